// Cards as the pages draw them: rank and suit symbol, red or black.
"use strict";
const SUITS = {S: ["\u2660", "black"], H: ["\u2665", "red"], D: ["\u2666", "red"], C: ["\u2663", "black"]};
function cardHTML(text, extra) {
  if (!text) return "";
  const rank = text.slice(0, -1), suit = text.slice(-1);
  const [sym, col] = SUITS[suit] || [suit, "black"];
  return `<span class="card ${col} ${extra || ""}" data-card="${esc(text)}">${rank === "T" ? "10" : esc(rank)}${sym}</span>`;
}
function esc(s) {
  return String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}
function actionHTML(text) {  // "play JH" -> play J♥; "trump S" -> trump ♠
  const [kind, arg] = text.split(" ");
  if (arg && /^[2-9TJQKA][SHDC]$/.test(arg)) return `${esc(kind)} ${cardHTML(arg)}`;
  if (arg && SUITS[arg]) return `${esc(kind)} <span class="${SUITS[arg][1]}">${SUITS[arg][0]}</span>`;
  return esc(text);
}
