// A person's table: draws the state of /table/events (only what this seat's stream gave)
// and posts the chosen action to /table/answer. Keys: 1-9, 0, a-z (not r) pick the action
// with that key; <- -> choose a playable card, Enter plays it (or closes the deal's summary);
// R opens the rulebook.
"use strict";
const KEY = JSON.parse(document.getElementById("table-key").textContent);
const Q = "?key=" + encodeURIComponent(KEY);
const KEYS = "1234567890abcdefghijklmnopqstuvwxyz";
let S = null;            // the last state
let sentFor = null;      // the request an action was sent for (no second click for it)
let chosen = -1;         // the card chosen with the arrow keys
let seen = sessionStorage.getItem("taash-table-seen") || "";   // the deal summary closed last
let deadline = 0;
const $ = id => document.getElementById(id);

function name(s) { return S.game.seat === s ? "you" : S.game.bots[s]; }
function label(s) { return S.game.seat === s ? "you" : `${S.game.bots[s]} (${s})`; }   // a bot's name may fill several seats
function actionKey(i) { return i < KEYS.length ? KEYS[i] : ""; }

function count(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

function seatBox(s) {
  const g = S.game, P = g.players, pos = (s - g.seat + P) % P;
  const played = (S.trick || []).find(t => t[0] === s);
  const out = (S.sitting_out || []).includes(s);
  const cls = ["seat", "p" + pos, s === g.seat ? "me" : "", s === S.dealer ? "dealer" : "",
               s === S.declarer ? "declarer" : "", out ? "out" : ""].join(" ");
  const side = g.sides ? ` · side ${g.sides[s] + 1}` : "";
  const partner = S.partner === s && s !== g.seat ? " · partner" : "";
  return `<div class="${cls}" data-seat="${s}"><div class="who">${esc(name(s))} <small>seat ${s}${s === S.dealer ? " · dealer" : ""}${s === S.declarer ? " · declarer" : ""}${partner}${side}${out ? " · sits out" : ""}</small></div>
    <div class="counts">${S.hand_sizes ? count(S.hand_sizes[s], "card") + " · " : ""}${count(S.tricks_won ? S.tricks_won[s] : 0, "trick")} · ${count(S.points ? S.points[s] : 0, "point")}</div>
    <div class="played">${played ? cardHTML(played[1]) : ""}</div></div>`;
}

function centre() {
  const c = S.contract, bits = [];
  // the contract as the seat's last observation (decision or seat view) told it: the
  // arena sends a view when the auction ends; during the auction the list below
  // has every bid as it comes, so the centre names none
  if (S.phase === "auction") bits.push("the auction is on");
  else if (c && c.bid !== null && c.bid !== undefined)
    bits.push(`contract: <b>${esc(label(c.bidder))}</b> ${esc(c.bid)}${c.denomination ? " " + esc(c.denomination) : ""}${c.doubled ? " doubled" : ""}`);
  else bits.push("no contract yet");
  if (S.trump) bits.push(`trump ${S.trump.length === 1 ? actionHTML("x " + S.trump).slice(2) : esc(S.trump)}`);
  else if (S.face_down) bits.push("trump: face down");
  if (S.trump_card) bits.push(`your trump card ${cardHTML(S.trump_card)}`);
  if (S.exposed_card) bits.push(`exposed ${cardHTML(S.exposed_card)}`);
  if (S.called_card) bits.push(`called ${cardHTML(S.called_card)}`);
  if (S.widow && S.widow.length) bits.push(`widow: ${S.widow.map(c => cardHTML(c)).join("")}`);
  if (S.last_trick) bits.push(`last trick to <b>${esc(label(S.last_trick.winner))}</b>: ${S.last_trick.cards.map(t => cardHTML(t[1])).join("")}`);
  if (S.side_points) bits.push("points by side: " + S.side_points.map(([d, p]) => `side ${d + 1}: ${p}`).join(" · "));
  return `<div class="centre">${bits.map(b => `<div>${b}</div>`).join("")}</div>`;
}

function draw() {
  if (!S) return;
  if (!S.game) {
    $("title").textContent = S.refused || (S.connected ? "waiting for a game at the arena…" : "connecting to the arena…");
    return;
  }
  const g = S.game, req = S.request;
  $("title").innerHTML = `<b>${esc(g.variant)}</b> · deal ${S.deal === null || S.deal === undefined ? "–" : S.deal + 1} · you are seat ${g.seat}`;
  $("score").textContent = "match score: " + (g.sides
    ? [...new Set(g.sides)].map(d => `side ${d + 1}${g.sides[g.seat] === d ? " (yours)" : ""} ${S.score[g.sides.indexOf(d)]}`).join(" · ")
    : S.score.map((x, s) => `${label(s)} ${x}`).join(" · "));
  $("status").textContent = S.connected ? "" : "reconnecting to the arena…";
  let seats = "";
  for (let i = 1; i < g.players; i++) seats += seatBox((g.seat + i) % g.players);   // in order from yours
  $("felt").className = `felt n${g.players}`;
  $("felt").innerHTML = seats + centre() + seatBox(g.seat);
  // the hand: a card that an action names is a button
  const open = req && sentFor !== req.id;
  const legal = req ? req.legal : [];
  const cards = S.hand || [];
  const playableCards = cards.filter(c => S.playable[c]);
  if (chosen >= playableCards.length) chosen = playableCards.length - 1;
  $("hand").innerHTML = cards.map(c => {
    const a = S.playable[c];
    if (!a || !open) return `<span class="slot${req && !a ? " dim" : ""}">${cardHTML(c)}</span>`;
    const i = legal.indexOf(a), k = actionKey(i);
    const sel = playableCards[chosen] === c ? " chosen" : "";
    return `<button class="slot play${sel}" data-action="${esc(a)}" title="${esc(a)}${k ? " (" + k + ")" : ""}">${cardHTML(c)}${k ? `<kbd>${k}</kbd>` : ""}</button>`;
  }).join("") || `<span class="note">${S.ended && S.ended.deal === S.deal ? "" : "your cards show when you are first to act"}</span>`;
  const inHand = new Set(Object.values(S.playable));
  $("actions").innerHTML = open ? legal.map((a, i) => inHand.has(a) ? "" :
    `<button class="act" data-action="${esc(a)}">${actionKey(i) ? `<kbd>${actionKey(i)}</kbd> ` : ""}${actionHTML(a)}</button>`).join("") : "";
  if (open) deadline = Date.now() + req.seconds * 1000;
  prompt();
  $("auction").innerHTML = (S.auction || []).map(([s, a]) => `<li><b>${esc(label(s))}</b>: ${actionHTML(a)}</li>`).join("");
  $("notes").innerHTML = (S.notes || []).map(n => `<div>arena: ${esc(n)}</div>`).join("");
  drawEnded();
}

function prompt() {
  const req = S && S.request;
  let text;
  if (S.over) text = "the match is over";
  else if (req && sentFor !== req.id) text = `your turn: ${Math.max(0, Math.ceil((deadline - Date.now()) / 1000))} s left (this move's time and your bank)`;
  else if (req) text = "sent…";
  else text = "waiting for the other seats…";
  $("prompt").textContent = text;
  $("prompt").className = "prompt" + (req && sentFor !== req.id ? " yours" : "");
}
setInterval(() => { if (S && S.game) prompt(); }, 500);

function drawEnded() {
  const box = $("ended"), e = S.ended, g = S.game;
  const tag = e ? `${g.id}/${e.deal}` : "";
  if (S.over && seen !== g.id + "/over") {
    const link = `/game?src=arena&key=${encodeURIComponent(g.id)}`;
    box.innerHTML = `<div class="panel"><h2>Match over</h2>${e ? endedHTML(e) : ""}
      <p>final score: ${S.over.score.map((x, s) => `${esc(label(s))} ${x}`).join(" · ")}; winners: ${S.over.winners.map(s => esc(label(s))).join(", ") || "none"}</p>
      <p><a href="${link}">replay this game in the viewer</a></p>
      <button id="close">close (Enter)</button></div>`;
    box.hidden = false;
    $("close").onclick = () => closeEnded(g.id + "/over");
    return;
  }
  if (!e || seen === tag || S.over) { box.hidden = true; return; }
  box.innerHTML = `<div class="panel"><h2>Deal ${e.deal + 1} over</h2>${endedHTML(e)}<button id="close">next deal (Enter)</button></div>`;
  box.hidden = false;
  $("close").onclick = () => closeEnded(tag);
}

function endedHTML(e) {
  const hands = e.hands.map((h, s) => `<div class="endhand"><b>${esc(name(s))}</b> <small>seat ${s}</small> ${h.map(c => cardHTML(c)).join("")}</div>`).join("");
  const widow = e.widow && e.widow.length ? `<div class="endhand"><b>widow</b> ${e.widow.map(c => cardHTML(c)).join("")}</div>` : "";
  return `<p class="why">${esc(e.why)}</p><div class="endhands">${hands}${widow}</div>`;
}

function closeEnded(tag) { seen = tag; sessionStorage.setItem("taash-table-seen", tag); draw(); }

async function send(action) {
  const req = S && S.request;
  if (!req || sentFor === req.id) return;
  sentFor = req.id;
  chosen = -1;
  draw();
  const r = await fetch("/table/answer" + Q, {method: "POST", headers: {"Content-Type": "application/json"},
                                              body: JSON.stringify({request: req.id, action})});
  if (!r.ok) {
    const body = await r.json().catch(() => ({error: r.statusText}));
    S.notes = (S.notes || []).concat(["not sent: " + body.error]);
    if (S.request && S.request.id === req.id) sentFor = null;
    draw();
  }
}

document.addEventListener("click", ev => {
  const b = ev.target.closest("[data-action]");
  if (b) send(b.dataset.action);
});

document.addEventListener("keydown", ev => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || !S || !S.game) return;
  if (!$("ended").hidden) {
    if (ev.key === "Enter") { $("close").click(); ev.preventDefault(); }
    return;
  }
  if (ev.key === "r" || ev.key === "R") { $("rules").click(); return; }
  const req = S.request;
  if (!req || sentFor === req.id) return;
  const playable = (S.hand || []).filter(c => S.playable[c]);
  if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
    if (playable.length) chosen = (chosen + (ev.key === "ArrowRight" ? 1 : playable.length - 1) + (chosen < 0 && ev.key === "ArrowLeft" ? 1 : 0)) % playable.length;
    draw(); ev.preventDefault(); return;
  }
  if (ev.key === "Enter" && chosen >= 0 && playable[chosen]) { send(S.playable[playable[chosen]]); ev.preventDefault(); return; }
  const i = KEYS.indexOf(ev.key.toLowerCase());
  if (i >= 0 && i < req.legal.length && ev.key.length === 1) { send(req.legal[i]); ev.preventDefault(); }
});

function connect() {
  const es = new EventSource("/table/events" + Q);
  es.onmessage = m => {
    const prev = S && S.request ? S.request.id : null;
    S = JSON.parse(m.data);
    if (!S.request || S.request.id !== prev) chosen = -1;
    draw();
  };
  es.onerror = () => { $("status").textContent = "the page lost its server: trying again…"; };
}
connect();
