// Live tables: the server-sent events of /live/events, one state per game, drawn as a table.
"use strict";
const page = Number(new URLSearchParams(location.search).get("page") || 0);
const games = new Map();
let updates = 0;
document.getElementById("page").textContent = page + 1;
document.getElementById("older").href = "?page=" + (page + 1);

function tableHTML(g) {
  const P = g.bots.length;
  const plays = g.actions.filter(a => a[1].startsWith("play "));
  const auction = g.actions.filter(a => !a[1].startsWith("play "));
  const n = plays.length, start = n ? Math.floor((n - 1) / P) * P : 0;
  const trick = {};
  plays.slice(start).forEach(([s, a]) => { trick[s] = a.split(" ")[1]; });
  const bids = auction.filter(a => a[1].startsWith("bid "));
  const contract = bids.length ? `${esc(g.bots[bids[bids.length - 1][0]])} ${esc(bids[bids.length - 1][1])}` : "no bid yet";
  const trump = auction.map(a => a[1]).reverse().find(t => t.startsWith("trump ") || t === "trump-card");
  let seats = "";
  for (let s = 0; s < P; s++) {
    const hand = g.hands ? g.hands[s].map(c => cardHTML(c)).join("") : "";
    seats += `<div class="seat s${s}"><div class="who">${esc(g.bots[s])} <small>seat ${s}${g.dealer === s ? " · dealer" : ""} · score ${g.score[s]} · tricks ${g.tricks[s]} · points ${g.points[s]}</small></div>
      <div class="played">${trick[s] ? cardHTML(trick[s]) : ""}</div>${g.hands ? `<div class="hand">${hand}</div>` : ""}</div>`;
  }
  let sides = "";
  if (g.sides) {   // fixed partnerships: tricks and points per side
    const t = {}, p = {}, who = {};
    g.sides.forEach((d, s) => { t[d] = (t[d] || 0) + g.tricks[s]; p[d] = (p[d] || 0) + g.points[s]; (who[d] = who[d] || []).push(`${esc(g.bots[s])} (${s})`); });
    sides = `<div class="sides">${Object.keys(t).map(d => `<span class="side" data-side="${d}">${who[d].join(" & ")}: ${t[d]} tricks, ${p[d]} points</span>`).join(" · ")}</div>`;
  }
  const last = g.hands && g.last ? `<p class="result">deal over: ${g.last.made === null ? "thrown in" : g.last.made ? "contract made" : "contract lost"}, points ${g.last.points.join(" / ")}</p>` : "";
  return `<h3>${esc(g.id)} <small>${esc(g.variant)} · deal ${g.deal === null ? "-" : g.deal + 1}${g.faults ? " · faults " + g.faults : ""}${g.resumed ? " · seats taken back " + g.resumed : ""}${g.over ? " · over" : ""}</small></h3>
    <div class="livetable seats${P}">${seats}<div class="trickinfo">trick ${n ? Math.floor((n - 1) / P) + 1 : "-"} · contract ${contract}${trump ? " · " + actionHTML(trump) : ""}</div></div>${sides}
    <div class="auction-line">${auction.map(([s, a]) => `<span>${esc(g.bots[s])}: ${actionHTML(a)}</span>`).join(" ")}</div>${last}`;
}

function draw(g) {
  let el = document.getElementById("game-" + g.id);
  if (!el) {
    el = document.createElement("section");
    el.id = "game-" + g.id; el.className = "live";
    document.getElementById("tables").appendChild(el);
  }
  el.innerHTML = tableHTML(g);
  el.dataset.actions = g.actions.length;
  if (g.over) setTimeout(() => { el.remove(); games.delete(g.id); }, 5000);
}

const src = new EventSource("/live/events?page=" + page);
src.addEventListener("snapshot", e => {
  const m = JSON.parse(e.data);
  document.getElementById("status").textContent = m.connected ? "connected" : "waiting for the arena…";
  document.getElementById("running").textContent = m.running;
  document.getElementById("tables").innerHTML = "";
  m.games.forEach(g => { games.set(g.id, g); draw(g); });
  window.taashFirstData = performance.now();
});
const dirty = new Map();
let frame = 0;
function flush() { frame = 0; dirty.forEach(g => draw(g)); dirty.clear(); }
src.onmessage = e => {
  const m = JSON.parse(e.data);
  updates++; window.taashUpdates = updates;
  if (m.kind === "reset") { dirty.clear(); document.getElementById("tables").innerHTML = ""; document.getElementById("status").textContent = "arena away, reconnecting…"; return; }
  if (m.kind === "games") {
    m.games.forEach(g => { games.set(g.id, g); dirty.set(g.id, g); });
    document.getElementById("running").textContent = m.running;
    document.getElementById("status").textContent = "connected";
    if (!frame) frame = requestAnimationFrame(flush);   // draw once per frame
  }
};
src.onerror = () => { document.getElementById("status").textContent = "reconnecting…"; };
