// A person's table: draws the state of /table/events (only what this seat's stream gave)
// and posts the chosen action to /table/answer. Seats sit round an oval, yours at the
// bottom, in the order of play; each seat shows its calls, its card in the trick (in
// front of it), whether it leads and whether it is to act.
// Keys (each action's own, drawn from the variant's action table: table_view's
// request.choices): a bid is its number's digits then its denomination's letter, p pass,
// x double, z redouble, a card its rank and suit (jh, th for 10♥), a trump suit its
// letter; <- -> choose a playable card, Enter plays it (or continues after a deal);
// Esc clears the keys typed; R opens the rulebook, T the tricks of the deal.
"use strict";
const KEY = JSON.parse(document.getElementById("table-key").textContent);
const Q = "?key=" + encodeURIComponent(KEY);
const BIDDING = new Set(["bid", "pass", "double", "redouble"]);
let S = null;            // the last state
let sentFor = null;      // the request an action was sent for (no second click for it)
let chosen = -1;         // the card chosen with the arrow keys
let typed = "";          // the keys typed so far for the open request
let refusal = null;      // [request id, why the web server refused the click]: kept until the next request
let showTricks = false;  // the tricks of the deal, on request (T)
let seen = sessionStorage.getItem("taash-table-seen") || "";   // the deal review closed last
let deadline = 0;
let acting = null, actingSince = 0;   // the seat to act and since when (this page's clock)
let panelTag = "", panelAt = 0;   // the panel shown and when: a click or Enter meant for the
                                  // last card (a double click) does not close it at once
const PANEL_GUARD_MS = 700;
const $ = id => document.getElementById(id);

function name(s) { return S.game.seat === s ? "you" : S.game.bots[s]; }
function label(s) { return S.game.seat === s ? "you" : `${S.game.bots[s]} (${s})`; }   // a bot's name may fill several seats
function count(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }
// words with their suit symbols coloured
function words(text) { return esc(text).replace(/[\u2665\u2666]/g, m => `<span class="red">${m}</span>`); }
function open() { const r = S && S.request; return r && sentFor !== r.id ? r : null; }
function choices() { const r = open(); return r ? r.choices : []; }

// where seat s sits: an angle on the oval, yours at the bottom, the turn going round
// clockwise (or counter-clockwise, as the variant says)
function angle(s) {
  const g = S.game, P = g.players, k = (s - g.seat + P) % P;
  const dir = g.direction === "counter-clockwise" ? -1 : 1;
  return (90 + dir * k * 360 / P) * Math.PI / 180;
}
function at(s, rx, ry) {
  const a = angle(s);
  return `left:${(50 + rx * Math.cos(a)).toFixed(1)}%;top:${(50 + ry * Math.sin(a)).toFixed(1)}%`;
}

function seatBox(s) {
  const g = S.game;
  const out = (S.sitting_out || []).includes(s);
  const acting = S.to_act === s && !S.over && !(S.ended && S.ended.deal === S.deal && S.reviewing !== null);
  const cls = ["seat", s === g.seat ? "me" : "", acting ? "acting" : "", out ? "out" : ""].join(" ");
  const tags = [];
  if (s === S.dealer) tags.push("dealer");
  if (s === S.declarer) tags.push("declarer");
  if (S.partner === s && s !== g.seat) tags.push("partner");
  if (S.leader === s && (S.trick || []).length) tags.push("leads");
  if (g.sides) tags.push(`side ${g.sides[s] + 1}`);
  if (out) tags.push("sits out");
  const mine = (S.auction || []).filter(a => a[0] === s);
  const calls = mine.map(a => words(a[2]));
  let clock = "";
  if (acting) clock = s === g.seat && open() ? `<span class="clock" id="clock"></span>`
                                             : `<span class="clock" id="their-clock" title="time since this seat's turn began">…</span>`;
  const counts = `${S.hand_sizes ? count(S.hand_sizes[s], "card") + " · " : ""}${count(S.tricks_won ? S.tricks_won[s] : 0, "trick")} · ${count(S.points ? S.points[s] : 0, "point")}`;
  return `<div class="${cls}" data-seat="${s}" style="${at(s, 40, 38)}">
    <div class="who">${esc(name(s))} <small>seat ${s}</small> ${clock}</div>
    <div class="tags">${tags.map(t => `<span class="tag ${t.replace(/ .*/, "")}">${esc(t)}</span>`).join("")}</div>
    <div class="counts">${counts}</div>
    <div class="calls" title="${esc(mine.map(a => a[2]).join(" · "))}">${calls.length > 4 ? "… " : ""}${calls.slice(-4).join(" · ")}</div></div>`;
}

function played(s, card) {
  const lead = S.leader === s ? " lead" : "";
  const narrow = $("felt").clientWidth < 600;
  return `<div class="played${lead}" data-seat="${s}" style="${at(s, narrow ? 25 : 19, narrow ? 17 : 17)}">${cardHTML(card)}</div>`;
}

// keep every seat's box inside the felt (a narrow screen puts the side seats at its edges)
function fitSeats() {
  const W = $("felt").clientWidth;
  for (const el of document.querySelectorAll("#felt .seat")) {
    const w = el.offsetWidth, x = parseFloat(el.style.left) / 100 * W;
    const fit = Math.min(Math.max(x, w / 2 + 2), W - w / 2 - 2);
    if (fit !== x) el.style.left = `${fit}px`;
  }
}
window.addEventListener("resize", () => { if (S && S.game) draw(); });

function centre() {
  const c = S.contract, bits = [];
  if (S.phase === "auction") {
    const last = (S.auction || []).filter(a => a[2].startsWith("bid ")).slice(-1)[0];
    bits.push(last ? `auction: high <b>${words(last[2].slice(4))}</b> by ${esc(label(last[0]))}` : "the auction is on");
  } else if (c && c.bid !== null && c.bid !== undefined)
    bits.push(`contract <b>${esc(c.bid)}${c.denomination ? " " + words(denomWords(c.denomination)) : ""}${c.doubled ? (c.doubled > 1 ? " redoubled" : " doubled") : ""}</b> by ${esc(label(c.bidder))}${c.target !== null && c.target !== undefined ? ` · target ${esc(c.target)}` : ""}`);
  else bits.push("no contract yet");
  if (S.trump) bits.push(`trump <b>${S.trump.length === 1 ? words(denomWords(S.trump)) : esc(S.trump)}</b>`);
  else if (S.face_down) bits.push("trump: face down");
  else if (S.phase === "play") bits.push("no trump");
  if (S.trump_card) bits.push(`your trump card ${cardHTML(S.trump_card)}`);
  if (S.exposed_card) bits.push(`exposed ${cardHTML(S.exposed_card)}`);
  if (S.called_card) bits.push(`called ${cardHTML(S.called_card)}`);
  if (S.widow && S.widow.length) bits.push(`widow ${S.widow.map(c => cardHTML(c)).join("")}`);
  if (S.side_points) bits.push(S.side_points.map(([d, p]) => `side ${d + 1}: ${p}`).join(" · "));
  return `<div class="centre">${bits.map(b => `<div>${b}</div>`).join("")}</div>`;
}
function denomWords(d) { return ({S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"})[d] || d; }

function trickLine(t) {
  return `<div class="trickline">${t.cards.map(([s, c]) => `<span class="tc${s === t.leader ? " lead" : ""}${s === t.winner ? " won" : ""}"><small>${esc(name(s))}</small>${cardHTML(c)}</span>`).join("")}
    <span class="winner">→ ${esc(label(t.winner))}${t.points !== null && t.points !== undefined ? ` (${count(t.points, "point")})` : ""}</span></div>`;
}

function draw() {
  if (!S) return;
  if (!S.game) {
    $("title").textContent = S.refused || (S.connected ? "waiting for a game at the arena…" : "connecting to the arena…");
    return;
  }
  const g = S.game, req = open();
  if (S.to_act !== acting) { acting = S.to_act; actingSince = Date.now(); }
  document.title = `${g.title} · your table · taash`;
  $("title").innerHTML = `<b>${esc(g.title)}</b> · deal ${S.deal === null || S.deal === undefined ? "–" : S.deal + 1} · you are seat ${g.seat}`;
  $("score").textContent = "match score: " + (g.sides
    ? [...new Set(g.sides)].map(d => `side ${d + 1}${g.sides[g.seat] === d ? " (yours)" : ""} ${S.score[g.sides.indexOf(d)]}`).join(" · ")
    : S.score.map((x, s) => `${label(s)} ${x}`).join(" · "));
  $("status").textContent = S.connected ? "" : "reconnecting to the arena…";
  let html = `<div class="oval"></div>` + centre();
  for (let s = 0; s < g.players; s++) html += seatBox(s);
  for (const [s, c] of S.trick || []) html += played(s, c);
  $("felt").className = `felt n${g.players}`;
  $("felt").innerHTML = html;
  fitSeats();
  // the last trick, and on request every trick of the deal
  const tricks = S.tricks || [];
  $("tricks").innerHTML = tricks.length ? (showTricks
    ? `<b>tricks of this deal</b> <button id="tricks-toggle">last only (T)</button>` + tricks.map((t, i) => `<div><small>${i + 1}.</small> ${trickLine(t)}</div>`).join("")
    : `<b>last trick</b> ${trickLine(tricks[tricks.length - 1])} <button id="tricks-toggle">every trick (T)</button>`) : "";
  if ($("tricks-toggle")) $("tricks-toggle").onclick = () => { showTricks = !showTricks; draw(); };
  drawHand(req);
  drawBox(req);
  if (req) deadline = Date.now() + req.seconds * 1000;
  prompt();
  const notes = (S.notes || []).map(n => `arena: ${n}`);
  if (refusal && S.request && refusal[0] === S.request.id) notes.push("not sent: " + refusal[1]);
  $("notes").innerHTML = notes.map(n => `<div>${esc(n)}</div>`).join("");
  drawEnded();
}

function drawHand(req) {
  const cards = S.hand || [];
  const byCard = {};
  for (const ch of req ? req.choices : []) if (ch.card && cards.includes(ch.card) && !byCard[ch.card] && ch.kind !== "take" && ch.kind !== "call-partner") byCard[ch.card] = ch;
  const playable = cards.filter(c => byCard[c]);
  if (chosen >= playable.length) chosen = playable.length - 1;
  const faceDown = req && req.choices.some(ch => ch.kind === "trump-card" && ch.card);
  $("hand-note").textContent = faceDown ? "choose your trump card: the card you click is laid face down as trump (only you see it)" : "";
  $("hand").className = "hand" + (faceDown ? " facedown" : "");
  $("hand").innerHTML = cards.map(c => {
    const ch = byCard[c];
    if (!ch) return `<span class="slot">${cardHTML(c)}</span>`;
    const sel = playable[chosen] === c ? " chosen" : "";
    return `<button class="slot playable${sel}" data-action="${esc(ch.action)}" title="${esc(ch.words)} (${esc(ch.key)})">${cardHTML(c)}<kbd>${esc(ch.key)}</kbd></button>`;
  }).join("") || `<span class="note">${S.ended && S.ended.deal === S.deal ? "" : "your cards show as they are dealt"}</span>`;
}

// the bidding box: numbers in one row, denominations in another, pass / double /
// redouble in a row of their own (pass always first); the other actions as buttons
function drawBox(req) {
  const chs = req ? req.choices : [];
  const inHand = new Set((S.hand || []));
  const bidding = chs.some(ch => BIDDING.has(ch.kind));
  let html = "";
  if (bidding) {
    const bids = chs.filter(ch => ch.kind === "bid");
    const numbers = [...new Set(bids.map(b => b.number))].sort((a, b) => a - b);
    const denoms = [...new Set(bids.map(b => b.denom).filter(d => d))];
    const pick = /^\d+$/.test(typed) ? typed : "";
    html += `<div class="box"><div class="row numbers">` + numbers.map(n => {
      const withDenom = bids.filter(b => b.number === n);
      const exact = withDenom.find(b => !b.denom);
      const sel = pick && String(n) === pick ? " sel" : (pick && String(n).startsWith(pick) ? " maybe" : "");
      return exact ? `<button class="num${sel}" data-action="${esc(exact.action)}" data-key="${esc(exact.key)}" title="${esc(exact.words)} (keys ${esc(exact.key)})">${n}</button>`
                   : `<button class="num${sel}" data-num="${n}" title="keys ${n}">${n}</button>`;
    }).join("") + `</div>`;
    if (denoms.length) {
      const n = numbers.find(x => String(x) === pick);
      html += `<div class="row denoms">` + denoms.map(d => {
        const b = n !== undefined && bids.find(x => x.number === n && x.denom === d);
        const k = (bids.find(x => x.denom === d) || {key: ""}).key.replace(/^\d+/, "");
        return b ? `<button class="den" data-action="${esc(b.action)}" title="${esc(b.words)} (keys ${esc(b.key)})">${words(denomWords(d))}<kbd>${esc(k)}</kbd></button>`
                 : `<button class="den" disabled title="choose a number first">${words(denomWords(d))}<kbd>${esc(k)}</kbd></button>`;
      }).join("") + `<span class="hint">${n === undefined ? "choose a number, then a denomination" : `bid ${n}: now a denomination`}</span></div>`;
    }
    html += `<div class="row calls">` + ["pass", "double", "redouble"].map(kind => {
      const ch = chs.find(x => x.kind === kind);
      return ch ? `<button class="call ${kind}" data-action="${esc(ch.action)}">${esc(ch.words)}<kbd>${esc(ch.key)}</kbd></button>`
                : `<button class="call ${kind}" disabled>${kind}</button>`;
    }).join("") + `</div></div>`;
  }
  const rest = chs.filter(ch => !BIDDING.has(ch.kind) && !(ch.card && inHand.has(ch.card) && ch.kind !== "take" && ch.kind !== "call-partner"));
  html += rest.map(ch => `<button class="act" data-action="${esc(ch.action)}">${words(ch.words)}${ch.key ? `<kbd>${esc(ch.key)}</kbd>` : ""}</button>`).join("");
  $("actions").innerHTML = html;
  $("typed").textContent = typed ? `keys: ${typed}` : "";
}

function prompt() {
  const req = S && S.request;
  let text;
  if (S.over) text = "the match is over";
  else if (req && sentFor !== req.id) text = "your turn";
  else if (req) text = "sent…";
  else if (S.reviewing !== null && S.reviewing !== undefined) text = "the next deal waits for you (no clock runs)";
  else text = S.to_act !== null && S.to_act !== undefined ? `waiting for ${label(S.to_act)}…` : "waiting for the other seats…";
  $("prompt").textContent = text;
  $("prompt").className = "prompt" + (req && sentFor !== req.id ? " yours" : "");
  const t = $("their-clock");
  if (t) t.textContent = `${Math.floor((Date.now() - actingSince) / 1000)} s`;
  const c = $("clock");
  if (c && req) {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    c.textContent = `${left} s`;
    c.title = "this move's time left; then your bank";
    c.className = "clock" + (left <= 10 ? " low" : "");
  }
}
setInterval(() => { if (S && S.game) prompt(); }, 500);

function finalScore() {
  const g = S.game, o = S.over;
  let text;
  if (g.sides) {
    const sides = [...new Set(g.sides)];
    text = sides.map(d => `side ${d + 1} (${g.sides.map((x, s) => x === d ? label(s) : null).filter(x => x).join(", ")}): ${o.score[g.sides.indexOf(d)]}`).join(" · ");
  } else text = o.score.map((x, s) => `${label(s)}: ${x}`).join(" · ");
  const w = o.winners.map(s => label(s));
  const winners = w.length ? `winners: ${esc(w.join(", "))}` :
    (o.complete ? "no winner: the match ended level" :
     `no winners: the match was stopped after ${count(o.deals, "deal")} (--deals), before its own end, so nobody has won it`);
  return `<p class="final">final score (${o.complete ? "the match played to its end" : "stopped early"}): ${esc(text)}</p><p>${winners}</p>`;
}

function drawEnded() {
  const box = $("ended"), e = S.ended, g = S.game;
  const tag = e ? `${g.id}/${e.deal}` : "";
  if (S.over && seen !== g.id + "/over") {
    const link = `/game?src=arena&key=${encodeURIComponent(g.id)}`;
    box.innerHTML = `<div class="panel"><h2>Match over</h2>${finalScore()}${e ? endedHTML(e) : ""}
      <p><a href="${link}">replay this game in the viewer</a></p>
      ${S.again ? `<button id="again">play again (same settings)</button> ` : ""}<button id="close">close (Enter)</button></div>`;
    shown(g.id + "/over");
    $("close").onclick = () => guarded() && closeEnded(g.id + "/over");
    if ($("again")) $("again").onclick = () => guarded() && againMatch();
    return;
  }
  if (!e || seen === tag || S.over) { box.hidden = true; return; }
  const waits = S.reviewing === e.deal;
  box.innerHTML = `<div class="panel"><h2>Deal ${e.deal + 1} over</h2>${endedHTML(e)}
    <button id="close">${waits ? "continue: deal the next hand (Enter)" : "close (Enter)"}</button>
    ${waits ? `<span class="note">no clock runs until you continue</span>` : ""}</div>`;
  shown(tag);
  $("close").onclick = () => guarded() && closeEnded(tag, e.deal);
}

function shown(tag) {
  $("ended").hidden = false;
  if (panelTag !== tag) { panelTag = tag; panelAt = Date.now(); }
}
function guarded() { return Date.now() - panelAt >= PANEL_GUARD_MS; }

function endedHTML(e) {
  // a column per seat: each seat's card of each trick (dashed: the leader's; outlined: the winning card)
  const P = S.game.players;
  const seats = [...Array(P).keys()];
  const tricks = (e.tricks || []).map((t, i) => `<tr><td class="num">${i + 1}</td>${seats.map(s => {
    const c = t.cards.find(x => x[0] === s);
    return `<td class="${s === t.leader ? "lead" : ""}${s === t.winner ? " won" : ""}">${c ? cardHTML(c[1]) : "–"}</td>`;
  }).join("")}<td>${esc(label(t.winner))}</td><td class="num">${t.points === null || t.points === undefined ? "" : t.points}</td></tr>`).join("");
  const hands = e.hands.map((h, s) => `<div class="endhand"><b>${esc(name(s))}</b> <small>seat ${s}</small> ${h.map(c => cardHTML(c)).join("")}</div>`).join("");
  const widow = e.widow && e.widow.length ? `<div class="endhand"><b>widow</b> ${e.widow.map(c => cardHTML(c)).join("")}</div>` : "";
  const head = `<tr><th>trick</th>${seats.map(s => `<th>${esc(name(s))} <small>${s}</small></th>`).join("")}<th>won by</th><th>points</th></tr>`;
  return `<p class="why">${esc(e.why)}</p>${tricks ? `<table class="review"><thead>${head}</thead><tbody>${tricks}</tbody></table>
    <p class="note">dashed: the card that led the trick; outlined: the card that won it</p>` : ""}
    <h3>hands as dealt</h3><div class="endhands">${hands}${widow}</div>`;
}

async function closeEnded(tag, deal) {
  seen = tag; sessionStorage.setItem("taash-table-seen", tag); draw();
  if (deal !== undefined) await fetch("/table/continue" + Q, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({deal})});
}

async function againMatch() {
  await fetch("/table/again" + Q, {method: "POST"});
}

async function send(action) {
  const req = S && S.request;
  if (!req || sentFor === req.id) return;
  sentFor = req.id;
  chosen = -1; typed = "";
  draw();
  const r = await fetch("/table/answer" + Q, {method: "POST", headers: {"Content-Type": "application/json"},
                                              body: JSON.stringify({request: req.id, action})});
  if (!r.ok) {
    const body = await r.json().catch(() => ({error: r.statusText}));
    refusal = [req.id, body.error];
    if (S.request && S.request.id === req.id) sentFor = null;
    draw();
  }
}

document.addEventListener("click", ev => {
  const b = ev.target.closest("[data-action]");
  if (b && !b.disabled) { send(b.dataset.action); return; }
  const n = ev.target.closest("[data-num]");
  if (n) { typed = n.dataset.num; draw(); }
});

// the keys typed so far pick the action whose key they spell: sent once no other
// action's key goes on from them (a bid's number waits for its denomination)
function typeKey(k) {
  const chs = choices();
  let next = typed + k;
  let cands = chs.filter(ch => ch.key && ch.key.startsWith(next));
  if (!cands.length) { next = k; cands = chs.filter(ch => ch.key && ch.key.startsWith(next)); }
  if (!cands.length) return false;
  typed = next;
  const exact = cands.find(ch => ch.key === typed);
  if (exact && cands.every(ch => ch === exact || ch.key === exact.key)) { send(exact.action); return true; }
  draw();
  return true;
}

document.addEventListener("keydown", ev => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || !S || !S.game) return;
  if (!$("ended").hidden) {
    if (ev.key === "Enter") { $("close").click(); ev.preventDefault(); }
    return;
  }
  const req = open();
  if ((ev.key === "r" || ev.key === "R") && !typed) { $("rules").click(); return; }
  if ((ev.key === "t" || ev.key === "T") && !typed && !(req && req.choices.some(ch => ch.key && ch.key[0] === "t"))) { showTricks = !showTricks; draw(); return; }
  if (!req) return;
  if (ev.key === "Escape" || ev.key === "Backspace") { typed = ""; draw(); ev.preventDefault(); return; }
  const playable = [...document.querySelectorAll(".hand button[data-action]")];
  if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
    if (playable.length) chosen = (chosen + (ev.key === "ArrowRight" ? 1 : playable.length - 1) + (chosen < 0 && ev.key === "ArrowLeft" ? 1 : 0)) % playable.length;
    draw(); ev.preventDefault(); return;
  }
  if (ev.key === "Enter") {
    if (chosen >= 0 && playable[chosen]) { send(playable[chosen].dataset.action); ev.preventDefault(); return; }
    const exact = req.choices.find(ch => ch.key && ch.key === typed);
    if (exact) { send(exact.action); ev.preventDefault(); }
    return;
  }
  if (ev.key.length === 1 && typeKey(ev.key.toLowerCase())) ev.preventDefault();
});

function connect() {
  const es = new EventSource("/table/events" + Q);
  es.onmessage = m => {
    const prev = S && S.request ? S.request.id : null;
    S = JSON.parse(m.data);
    if (!S.request || S.request.id !== prev) { chosen = -1; typed = ""; }
    draw();
  };
  es.onerror = () => { $("status").textContent = "the page lost its server: trying again…"; };
}
connect();
