"""Live tables: the arena's public event stream of every game (`WatchBatches`: `Watch`'s
events, several to a message) turned into one small JSON state per running game, pushed
to browsers as server-sent events.

Only what `Watch` sends reaches a page (docs/protocol.md: public events only): the
actions as every other seat sees them (a face-down card is the bare "trump-card") and
the hands when `DealEnded` shows them. A state never holds a hand before its deal ends,
and the hands of a deal are dropped when the next deal starts.
"""

from __future__ import annotations

import asyncio
import json
import logging

from ..pb import arena_pb2 as apb
from ..pb import messages_pb2 as pb
from ..tls import PLAIN, aio_channel

log = logging.getLogger("taash.web")


def event_json(ev) -> dict:
    """A GameEvent message as a JSON-ready dict: {"game", "index", "type", ...fields}."""
    which = ev.WhichOneof("event")
    out = {"game": ev.game_id, "index": ev.index, "type": which}
    e = getattr(ev, which)
    if which == "game_started":
        out.update(variant=e.variant, bots=list(e.bots), sides=list(e.sides) or None)
    elif which == "deal_started":
        out.update(deal=e.deal, dealer=e.dealer)
    elif which == "action":
        out.update(deal=e.deal, seat=e.seat, action=e.action, by_default=e.by_default)
        if e.HasField("trick"):
            out["trick"] = [e.trick.winner, e.trick.points]
        out["to_act"] = e.to_act if e.HasField("to_act") else None
    elif which == "fault":
        out.update(deal=e.deal, seat=e.seat, kind=int(e.kind), count=max(1, e.count))
    elif which == "deal_ended":
        out.update(deal=e.deal, hands=[list(h.cards) for h in e.hands], widow=list(e.widow),
                   result=json.loads(e.result_json or "{}"))
    elif which == "game_ended":
        out.update(complete=e.complete, score=list(e.score), winners=list(e.winners), deals=e.deals)
    return out


def apply_event(games: dict, e: dict) -> dict | None:
    """Fold one event (from `event_json`) into ``games`` (game id -> state); returns the
    game's new state. A state: {"id", "variant", "bots", "sides" (each seat's side, null
    when sides are not fixed), "deal", "dealer", "actions" ([seat, text] of this deal),
    "tricks" and "points" (per seat, won in this deal), "faults" (RESUMED apart, in
    "resumed" once there is one: a seat taken back is no fault), "score", "hands" (null
    until the deal ends), "last" (the last ended deal's result), "over"}."""
    g = games.get(e["game"])
    t = e["type"]
    if g is None:
        if t != "game_started":
            return None
        n = len(e["bots"])
        g = games[e["game"]] = {"id": e["game"], "variant": e["variant"], "bots": e["bots"], "sides": e.get("sides"),
                                "deal": None, "dealer": None, "actions": [], "tricks": [0] * n, "points": [0] * n,
                                "faults": 0, "score": [0] * n,
                                "hands": None, "widow": None, "last": None, "over": False}
        return g
    if t == "deal_started":
        n = len(g["bots"])
        g.update(deal=e["deal"], dealer=e["dealer"], actions=[], tricks=[0] * n, points=[0] * n, hands=None,
                 widow=None)
    elif t == "action":
        g["actions"].append([e["seat"], e["action"]])
        if "trick" in e:
            won_trick(g, *e["trick"])
    elif t == "fault":
        if e.get("kind") == pb.Verdict.RESUMED:     # a seat taken back: a recovery, not a fault
            g["resumed"] = g.get("resumed", 0) + e.get("count", 1)
        else:
            g["faults"] += e.get("count", 1)     # an aggregated FaultNoted stands for several
    elif t == "deal_ended":
        res = e["result"]
        g.update(hands=e["hands"], widow=e["widow"], last=res)
        g["score"] = [a + b for a, b in zip(g["score"], res.get("score_change") or [0] * len(g["score"]))]
    elif t == "game_ended":
        g.update(over=True, score=e["score"])
    return g


def won_trick(g: dict, winner: int, points: int) -> None:
    """Count a completed trick (ActionTaken.trick) in the state ``g``."""
    if 0 <= winner < len(g["tricks"]):
        g["tricks"][winner] += 1
        g["points"][winner] += points


class Subscriber:
    """A page's stream: the states changed since it last looked (id -> state) and an event
    set when there are some; ``reset`` when the hub lost the arena."""

    def __init__(self):
        self.dirty: dict[str, dict] = {}
        self.wake = asyncio.Event()
        self.reset = False

    def take(self) -> tuple[dict[str, dict], bool]:
        """The changed states and the reset flag, cleared."""
        d, r = self.dirty, self.reset
        self.dirty, self.reset = {}, False
        self.wake.clear()
        return d, r


class LiveHub:
    """Follows the arena at ``addr`` (host:port) with one `WatchBatches` call for every game and
    tells its subscribers which game states changed (no copy and no JSON per event: a
    page serializes only its own games, at most once per batch). Reconnects every
    ``retry_s`` seconds while the arena is away. ``token``: the watch token of an arena
    served with --private-watch; ``tls``: how to reach it (a tls.Client; None: plaintext).
    ``games``: id -> state of running games."""

    def __init__(self, addr: str, retry_s: float = 1.0, token: str | None = None, tls=None):
        self.addr = addr
        self.tls = tls or PLAIN
        self.metadata = [("authorization", f"Bearer {token}")] if token else None
        self.retry_s = retry_s
        self.games: dict[str, dict] = {}
        self.subs: set[Subscriber] = set()
        self.connected = False
        self.task: asyncio.Task | None = None
        self.events = 0

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass

    def subscribe(self) -> Subscriber:
        sub = Subscriber()
        self.subs.add(sub)
        return sub

    def unsubscribe(self, sub) -> None:
        self.subs.discard(sub)

    def _apply(self, events) -> None:
        """Fold a batch of GameEvent messages into the states; mark each changed game dirty
        once for every subscriber and wake them once."""
        games = self.games
        changed = {}
        for ev in events:
            self.events += 1
            if ev.WhichOneof("event") == "action":   # the common case, kept short
                g = games.get(ev.game_id)
                if g is None:
                    continue
                a = ev.action
                g["actions"].append([a.seat, a.action])
                if a.HasField("trick"):
                    won_trick(g, a.trick.winner, a.trick.points)
            else:
                g = apply_event(games, event_json(ev))
                if g is None:
                    continue
            changed[g["id"]] = g
            if g["over"]:
                games.pop(g["id"], None)
        if changed:
            for sub in self.subs:
                sub.dirty.update(changed)
                sub.wake.set()

    async def _run(self) -> None:
        while True:
            try:
                async with aio_channel(self.addr, self.tls,
                                       options=[("grpc.max_receive_message_length", 8 << 20)]) as ch:
                    call = ch.unary_stream("/taash.arena.v1.Arena/WatchBatches",
                                           request_serializer=apb.WatchRequest.SerializeToString,
                                           response_deserializer=pb.GameEventBatch.FromString)(apb.WatchRequest(),
                                                                                           metadata=self.metadata)
                    self.connected = True
                    async for batch in call:
                        self._apply(batch.events)
            except asyncio.CancelledError:
                raise
            except Exception as e:   # the arena is away: say so, and try again
                log.info("watching %s: %s", self.addr, e)
            self.connected = False
            self.games.clear()
            for sub in self.subs:
                sub.reset = True
                sub.wake.set()
            await asyncio.sleep(self.retry_s)
