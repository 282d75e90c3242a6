// The game viewer: one deal at a time, one action at a time (arrow keys, buttons).
"use strict";
const G = JSON.parse(document.getElementById("game-data").textContent);
let deal = 0, step = 0;   // step: actions applied so far in the deal (0 .. steps.length)

function render() {
  const d = G.deals[deal];
  if (!d) { document.getElementById("table").textContent = "no deal in this record"; return; }
  const steps = d.steps.slice(0, step);
  const played = new Set(steps.filter(s => s.card).map(s => s.card));
  const lastPlay = [...steps].reverse().find(s => s.card);
  const trick = lastPlay ? lastPlay.trick : null;
  const inTrick = {};
  if (trick !== null) steps.filter(s => s.trick === trick).forEach(s => { inTrick[s.seat] = s.card; });
  const t = trick !== null ? d.tricks[trick] : null;
  const complete = t && Object.keys(inTrick).length === t.cards.length;
  const next = d.steps[step];
  let html = "";
  for (let s = 0; s < G.players; s++) {
    const hand = (d.hands[s] || []).map(c => cardHTML(c, played.has(c) ? "gone" : "")).join("");
    const won = d.tricks.slice(0, trick === null ? 0 : (complete ? trick + 1 : trick)).filter(x => x.winner === s).length;
    html += `<div class="seat s${s}${next && next.seat === s ? " to-act" : ""}${complete && t.winner === s ? " winner" : ""}">
      <div class="who">${esc(G.bots[s] || "seat " + s)} <small>seat ${s}${d.dealer === s ? " · dealer" : ""} · tricks ${won}</small></div>
      <div class="hand">${hand}</div>
      <div class="played">${inTrick[s] ? cardHTML(inTrick[s]) : ""}</div></div>`;
  }
  html += `<div class="trickinfo">${trick === null ? "auction" : `trick ${trick + 1} of ${d.tricks.length}` +
    (complete ? ` — won by ${esc(G.bots[t.winner] || "seat " + t.winner)}` : "")}</div>`;
  document.getElementById("table").innerHTML = html;
  document.getElementById("auction").innerHTML = d.steps.map((s, i) => s.card ? "" :
    `<li class="${i < step ? "done" : "todo"}${i === step - 1 ? " current" : ""}">${esc(G.bots[s.seat] || s.seat)}: ${actionHTML(s.text)}</li>`).join("");
  const r = d.result, done = step === d.steps.length;
  const contract = r.declarer === null ? "thrown in" :
    `${esc(G.bots[r.declarer] || r.declarer)}${G.auction === false ? " declarer" : " bid " + esc(r.bid)}` +
    `${r.doubled ? (r.doubled === 2 ? " redoubled" : " doubled") : ""}, target ${esc(r.target)}${G.target_unit ? " " + esc(G.target_unit) : ""}`;
  document.getElementById("summary").innerHTML = `<p>dealer ${esc(G.bots[d.dealer] || d.dealer)}; ${contract}` +
    (done ? `; trump ${r.trump ? actionHTML("x " + r.trump).slice(2) : "none"}` : "") + "</p>" +
    (done ? `<p class="result">${r.made === null ? "no contract" : r.made ? "contract made" : "contract lost"}; points ${r.points.join(" / ")}; score change ${r.score_change.join(" / ")}</p>` : "");
  document.getElementById("verdicts").innerHTML = d.verdicts.length ? "<ul>" + d.verdicts.map(v =>
    `<li class="${v.index < step ? "done" : "todo"}">action ${v.index}: ${esc(G.bots[v.seat] || v.seat)} — ${esc(v.kind)}${v.applied ? ", applied " + esc(v.applied) : ""}</li>`).join("") + "</ul>" : "<p>none</p>";
  document.getElementById("pos").textContent = `deal ${deal + 1} of ${G.deals.length} · action ${step} of ${d.steps.length}`;
}

function go(dDeal, dStep, abs) {
  if (dDeal) { deal = Math.max(0, Math.min(G.deals.length - 1, deal + dDeal)); step = 0; }
  const n = G.deals[deal] ? G.deals[deal].steps.length : 0;
  if (abs !== undefined) step = abs < 0 ? n : abs;
  else if (dStep) {
    step += dStep;
    if (step > n && deal < G.deals.length - 1) { deal++; step = 0; }
    else if (step < 0 && deal > 0) { deal--; step = G.deals[deal].steps.length; }
    step = Math.max(0, Math.min(G.deals[deal].steps.length, step));
  }
  render();
}

document.addEventListener("keydown", e => {
  const k = {ArrowRight: [0, 1], ArrowLeft: [0, -1], PageDown: [1, 0], PageUp: [-1, 0]}[e.key];
  if (k) { go(k[0], k[1]); e.preventDefault(); }
  else if (e.key === "Home") { go(0, 0, 0); e.preventDefault(); }
  else if (e.key === "End") { go(0, 0, -1); e.preventDefault(); }
});
document.getElementById("next").onclick = () => go(0, 1);
document.getElementById("prev").onclick = () => go(0, -1);
document.getElementById("nextdeal").onclick = () => go(1, 0);
document.getElementById("prevdeal").onclick = () => go(-1, 0);
render();
