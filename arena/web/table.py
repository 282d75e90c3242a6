"""A person at the table: one seat of an arena game played from a browser page
(`taash play`, `taash web --arena ADDR --play-as NAME`; docs/web.md, "Play a seat").

A person is a seat client with a face. `SeatClient` connects to the arena's ``Play``
stream with the seat's token, exactly as a bot does (docs/protocol.md), and keeps what
that stream gave it: the seat's last observation (from a DecisionRequest, or a SeatView
the arena sends when cards are dealt to the seat or a step of the deal begins), the public events since,
the last ended deal (whose hands the arena shows to every seat) and the pending
request. `table_view` folds that into the plain state the page draws; the page gets
nothing else, so it holds no card of another seat before the rules show it (a reload
draws the same state again: the stream is held here, not by the page).

Routes (added by `add_routes` to the `taash web` application; each needs the table's
key, ``?key=K``, printed when the table is served, so that no other visitor of the pages
can see the seat's hand or play for it):

- ``GET /table``: the page (templates/table.html, static/table.js);
- ``GET /table/events``: server-sent events, one ``data:`` JSON state per change;
- ``POST /table/answer``: ``{"request": ID, "action": TEXT}``: the person's action for
  the pending request; 409 with ``{"error": ...}`` for a stale request (a double click,
  a click after the time ran out) or an action not legal there, and nothing is sent;
- ``POST /table/continue``: ``{"deal": N}``: the person has read deal N's review: the
  next deal may start (`SeatClient.deal_break`, with `taash play`);
- ``POST /table/again``: another match with the same settings, once the match is over
  (`SeatClient.wait_again`, with `taash play`; 409 otherwise);
- ``GET /table/rules``: the rulebook of the game's variant (`taash rules`) as HTML.

The arena's time control applies to the seat as to a bot's: an unanswered request gets
the default action at its deadline; a closed tab leaves the stream open (the arena
sees no fault until the deadline); a lost connection to the arena is retried with
backoff and the arena sends the pending request again (resume).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
from types import SimpleNamespace

from taash.interpreter.rulebook import render

from ..bots.registry import ArenaAgent
from ..pb import arena_pb2_grpc
from ..pb import messages_pb2 as pb
from ..tls import PLAIN, Client, aio_channel
from .actions import Words
from .live import event_json

log = logging.getLogger("taash.table")

CLIENT = "taash-table/0.1"
CARD = re.compile(r"^[2-9TJQKA][SHDC]$")
# the person's own actions that take the named card out of the hand ("call X" names
# another seat's card; "take X" puts a widow card into it)
KEEPS = {"call", "take"}
# what an action a stream tells does to its seat's card count (table_view)
SIZE_CHANGE = {"play": -1, "take": 1, "discard": -1}
NOTES_KEPT = 5


class SeatClient:
    """The ``Play`` stream of the bot name ``name`` (token ``token``) at the arena
    ``server`` (host:port), held for a person. ``run()`` connects and reconnects (backoff
    from 0.1 s to ``retry_max_s``) until ``stop()``; ``answer`` sends the person's action.
    ``changed`` is set (and replaced) at every change; ``version`` counts them.

    State (read by `table_view`): ``game`` (GameStart as a dict, None before the first),
    ``seat``, ``deal``, ``dealer``, ``obs`` (the last observation of this deal, from a
    DecisionRequest or a SeatView, a dict),
    ``since`` ([seat, action, trick or None] public actions after it, the person's own
    in full), ``request`` (the pending DecisionRequest: id, legal, deadline), ``ended``
    (the last DealEnded: deal, hands, widow, result), ``score`` (match score per seat),
    ``over`` (GameEnded as a dict), ``notes`` (the arena's last verdicts about the seat).
    ``clock()``: the time in seconds that a request's time left is counted on; ``tls``: how
    to reach the arena (a tls.Client; plaintext by default)."""

    def __init__(self, server: str, token: str, name: str, retry_max_s: float = 5.0, clock=time.monotonic,
                 tls: Client = PLAIN):
        self.server, self.token, self.name = server, token, name
        self.tls = tls                       # how to reach the arena (tls.Client)
        self.clock = clock                   # seconds, for the time left to a request
        self.retry_max_s = retry_max_s
        self.connected = False
        self.refused: str | None = None      # the arena refused the token: why
        self.version = 0
        self.changed = asyncio.Event()
        self.game: dict | None = None
        self.seat: int | None = None
        self.deal: int | None = None
        self.dealer: int | None = None
        self.obs: dict | None = None
        self.since: list[list] = []
        self.request: dict | None = None
        self.sent: str | None = None         # the person's last action, until its event comes
        self.ended: dict | None = None
        self.score: list[int] = []
        self.over: dict | None = None
        self.notes: list[str] = []
        self.variant = None                  # the game's Variant when it loads here (words, hand order)
        self.words = Words(None)             # its actions' words and keys (actions.py)
        self.to_act: int | None = None       # the seat to act, as the stream last told it
        self.trick_points: list[int] = []    # the points of each trick of the deal, as the events told them
        self.games_done = 0
        self.review_s: float | None = None   # the longest break between deals (deal_break); None: no limit
        self.reviewing: int | None = None    # the deal whose review holds the next one (deal_break)
        self.went_on: int | None = None      # the last deal the person pressed continue after
        self._go = asyncio.Event()
        self._again = asyncio.Event()
        self.again_open = False              # `taash play` waits for "play again" (wait_again)
        self.last_index = -1                 # the index of the last public event folded
        self._call = None
        self._stopping = False

    # -- the page's side ----------------------------------------------------------------
    def _touch(self) -> None:
        self.version += 1
        ev, self.changed = self.changed, asyncio.Event()
        ev.set()

    async def answer(self, rid: str, action: str) -> str | None:
        """Send ``action`` for request ``rid``; None when sent, else why not (a request
        that is not the pending one, an action not among its legal ones, no stream)."""
        req = self.request
        if req is None or req["id"] != rid:
            return "that request is no longer open (answered, or its time ran out)"
        if action not in req["legal"]:
            return f"{action!r} is not a legal action here"
        call = self._call
        if call is None or call.done():
            return "not connected to the arena: the action is not sent (the arena sends the request again)"
        self.request, self.sent = None, action
        self.notes = []         # the arena's words about the seat stay until its next move
        self._touch()
        try:
            await call.write(pb.BotMessage(answer=pb.Answer(request_id=rid, action=action)))
        except Exception as e:      # the stream broke: the arena sends the request again on resume
            log.info("answer not sent: %s", e)
            return "the connection to the arena broke: the request comes again"
        return None

    async def deal_break(self, game_id: str, deal: int) -> None:
        """The arena's break after ``deal`` of ``game_id`` (`Arena.deal_break`, when the
        arena runs in this process: `taash play`): ``reviewing`` is that deal until the
        person presses continue (`go_on`), ``review_s`` seconds pass (None: no limit) or
        the table stops. No decision is open meanwhile: neither the person's clock nor a
        bot's runs, and the next deal is not dealt to anyone."""
        if self.game is None or game_id != self.game["id"] or self._stopping or self.went_on == deal:
            return      # (the person pressed continue before the break began)
        self.reviewing, self._go = deal, asyncio.Event()
        self._touch()
        try:
            await asyncio.wait_for(self._go.wait(), self.review_s)
        except asyncio.TimeoutError:
            pass
        finally:
            self.reviewing = None
            self._touch()

    async def wait_again(self) -> None:
        """Until the person asks for another match (`again`) or the table stops."""
        self._again = asyncio.Event()
        self.again_open = True
        self._touch()
        try:
            await self._again.wait()
        finally:
            self.again_open = False

    def again(self) -> bool:
        """Start another match with the same settings (`wait_again`); False if the
        table is not waiting for one."""
        if not self.again_open:
            return False
        self._again.set()
        return True

    def go_on(self, deal: int | None = None) -> bool:
        """End the break after ``deal`` (any deal: None); False if there is none. A
        ``deal`` whose end came but whose break has not begun yet gets none."""
        if deal is not None and self.ended is not None and deal == self.ended["deal"]:
            self.went_on = deal
        if self.reviewing is None or (deal is not None and deal != self.reviewing):
            return deal is not None and deal == self.went_on
        self._go.set()
        return True

    def stop(self) -> None:
        """Close the seat's stream to the arena and wake the pages' event streams, which
        then end."""
        self._stopping = True
        self._go.set()
        self._again.set()
        if self._call is not None:
            self._call.cancel()
        self._touch()

    @property
    def stopping(self) -> bool:
        return self._stopping

    # -- the arena's side -----------------------------------------------------------------
    async def run(self) -> None:
        import grpc
        delay = 0.1
        while not self._stopping:
            try:
                async with aio_channel(self.server, self.tls, options=[
                        ("grpc.max_receive_message_length", 8 << 20),
                        ("grpc.use_local_subchannel_pool", 1)]) as ch:
                    stub = arena_pb2_grpc.ArenaStub(ch)
                    call = self._call = stub.Play(metadata=[("authorization", f"Bearer {self.token}"),
                                                            ("taash-bot", self.name)])
                    await call.write(pb.BotMessage(hello=pb.Hello(client=CLIENT)))
                    async for msg in call:
                        if msg.WhichOneof("msg") == "welcome":
                            self.connected, delay = True, 0.1
                        self.handle(msg)
            except asyncio.CancelledError:
                if self._stopping:
                    break
                raise
            except grpc.aio.AioRpcError as e:
                if e.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                    self.refused = f"the arena refused the seat's token ({e.code().name}: {e.details()})"
                    self.connected = False
                    self._touch()
                    return
                if e.code() == grpc.StatusCode.CANCELLED and self._stopping:
                    break
                log.info("seat stream of %s at %s: %s: %s", self.name, self.server, e.code().name, e.details())
            self._call = None
            if self.connected:
                self.connected = False
                self._touch()
            if self._stopping:
                break
            await asyncio.sleep(delay + random.random() * delay / 2)
            delay = min(self.retry_max_s, delay * 2)

    def handle(self, msg: pb.ServerMessage) -> None:
        """Fold one ServerMessage into the state."""
        which = msg.WhichOneof("msg")
        if which == "game_start":
            g = msg.game_start
            if self.game is None or self.game["id"] != g.game_id:
                self._new_game(g)
        elif which == "decision":
            d = msg.decision
            for ev in d.events:
                self._event(ev)
            try:
                obs = json.loads(d.observation_json)
            except ValueError:
                obs = None
            if not isinstance(obs, dict):
                return
            if self.game is None or d.game_id != self.game["id"]:
                return
            self.seat = d.seat
            self.obs, self.since, self.sent = obs, [], None
            self.deal = obs.get("deal", self.deal)
            self.to_act = d.seat
            legal = list(d.legal_actions)
            self.request = {"id": d.request_id, "legal": legal, "deadline_ms": d.deadline_ms,
                            "bank_ms": d.time_bank_ms, "at": self.clock(),
                            "choices": [self.words.describe(a) for a in legal]}
        elif which == "view":      # the seat's observation now: its cards as dealt, the contract, trump
            v = msg.view
            for ev in v.events:
                self._event(ev)
            if self.game is None or v.game_id != self.game["id"] or v.seat != self.seat:
                return
            try:
                obs = json.loads(v.observation_json)
            except ValueError:
                obs = None
            if not isinstance(obs, dict):
                return
            # the view follows the public events that led to it: its history holds them
            self.obs, self.since = obs, []
            self.deal = obs.get("deal", self.deal)
            self.to_act = obs.get("to_act") if isinstance(obs.get("to_act"), int) and obs["to_act"] >= 0 else None
        elif which == "event":
            self._event(msg.event)
        elif which == "events":
            for ev in msg.events.events:
                self._event(ev)
        elif which == "verdict":
            v = msg.verdict
            if v.kind == pb.Verdict.RESUMED:
                return
            self.notes = (self.notes + [v.message or pb.Verdict.Kind.Name(v.kind)])[-NOTES_KEPT:]
            if self.request is not None and v.request_id == self.request["id"] and v.kind != pb.Verdict.ILLEGAL_ACTION:
                self.request = None     # settled by the arena (timeout, strike-out, absence)
        else:
            return
        self._touch()

    def _new_game(self, g) -> None:
        try:
            variant_data = json.loads(g.variant_json) if g.variant_json else {}
        except ValueError:
            variant_data = {}
        try:
            options = json.loads(g.options_json) if g.options_json else {}
        except ValueError:
            options = {}
        tc = g.time_control
        self.game = {"id": g.game_id, "variant": g.variant, "bots": list(g.bots), "seats": list(g.your_seats),
                     "options": options, "variant_data": variant_data, "sides": None,
                     "time": {"move_ms": tc.move_ms, "bank_ms": tc.bank_ms}}
        self.last_index = -1
        self.variant, self.words = None, Words(None)
        try:        # the fixed sides, from the variant as a bot loads it (GameStarted goes to spectators)
            v = self.variant = load_game_variant(self.game)
            self.words = Words(v)
            self.game["direction"] = v.direction
            if v.partnership == "fixed":
                self.game["sides"] = list(v.side_of)
            self.game["contract"] = {"auction": v.has_auction, "target_unit": v.target_unit}
        except Exception as e:      # a variant this side cannot load: the table goes on without sides
            log.info("game %s: the variant does not load here: %s", g.game_id, e)
        self.seat = g.your_seats[0] if g.your_seats else None
        self.to_act = None
        self.deal = self.dealer = self.obs = self.request = self.ended = self.over = self.sent = None
        self.since, self.notes = [], []
        self.went_on = None
        self.score = [0] * len(g.bots)

    def _event(self, ev) -> None:
        if self.game is None or ev.game_id != self.game["id"] or ev.index <= self.last_index:
            return      # another game's, or sent again after a reconnect
        self.last_index = ev.index
        e = event_json(ev)
        t = e["type"]
        if t == "deal_started":
            self.deal, self.dealer = e["deal"], e["dealer"]
            self.trick_points = []
            if self.request is not None and (self.obs or {}).get("deal") == e["deal"]:
                return      # the deal's first request came before its start: it stays open
            self.to_act = None
            self.obs, self.since, self.request, self.sent = None, [], None, None
        elif t == "action":
            text = e["action"]
            if e["seat"] == self.seat and self.sent is not None and not e["by_default"]:
                text, self.sent = self.sent, None      # the person's own action in full
            self.since.append([e["seat"], text, e.get("trick")])
            if e.get("trick"):
                self.trick_points.append(e["trick"][1])
            self.to_act = e.get("to_act")
        elif t == "deal_ended":
            res = e["result"]
            self.ended = {"deal": e["deal"], "hands": e["hands"], "widow": e["widow"], "result": res,
                          "sitting_out": list((self.obs or {}).get("sitting_out") or []),
                          "trick_points": list(self.trick_points)}
            self.to_act = None
            change = res.get("score_change") or []
            if len(change) == len(self.score):
                self.score = [a + b for a, b in zip(self.score, change)]
            self.request = None
        elif t == "game_ended":
            self.over = {"complete": e["complete"], "score": e["score"], "winners": e["winners"],
                         "deals": e["deals"]}
            self.score = list(e["score"])
            self.request = None
            self.games_done += 1


# -- the page's state --------------------------------------------------------------------
def _verb_card(text: str) -> tuple[str, str | None]:
    verb, _, arg = text.partition(" ")
    return verb, (arg if CARD.match(arg) else None)


def table_view(c: SeatClient, now: float | None = None) -> dict:
    """The state the page draws, a JSON-ready dict made only of what the seat's stream
    gave: {"connected", "refused", "game" (id, variant, bots, seat, players, sides),
    "deal", "dealer", "actions" (how many actions of the deal the seat has seen), "hand"
    (the seat's cards as its last observation showed them, less those it played since: a
    packet dealt to it shows at once, by the SeatView that follows), "hand_sizes" (each
    seat's card count, or None before the first observation), "trump", "exposed_card",
    "called_card", "partner", "contract" ({"bidder", "bid", "denomination", "doubled"}
    or None), "auction" ([seat, action] of the deal but the card plays), "trick" ([seat,
    card] of the trick being played), "last_trick" ({"cards", "winner", "points"}),
    "tricks_won" and "points" per seat, "side_points", "score" (match, per seat),
    "request" ({"id", "legal", "seconds"}: the pending decision, None when waiting),
    "playable" (card -> action for a click on a card of the hand), "widow" (the widow
    cards the seat is shown while it is to act in the exchange), "ended" (the last
    deal's hands, widow, result, "tricks" and "why", a sentence), "over", "notes",
    "to_act" (the seat to act, as the stream last told it), "leader" (of the trick being
    played), "tricks" (every trick of the deal: {"leader", "cards" ([seat, card]),
    "winner", "points"}), "reviewing" (the deal whose review holds the next one),
    "again" (a new match may be started)}. The hand is sorted (`sort_hand`); the
    request's "choices" and the auction's words come from `actions.describe`."""
    now = c.clock() if now is None else now
    g = c.game
    out = {"connected": c.connected, "refused": c.refused, "version": c.version, "game": None,
           "reviewing": c.reviewing, "again": c.again_open,
           "notes": c.notes, "over": c.over, "score": c.score, "ended": None, "request": None}
    if g is None:
        return out
    players = len(g["bots"])
    v = c.variant
    out["game"] = {"id": g["id"], "variant": g["variant"], "title": game_title(g, v), "bots": g["bots"],
                   "seat": c.seat, "players": players, "sides": g["sides"], "move_ms": g["time"]["move_ms"],
                   "bank_ms": g["time"]["bank_ms"], "direction": g.get("direction") or "clockwise"}
    out["deal"], out["dealer"] = c.deal, c.dealer
    obs = c.obs or {}
    hand = list(obs.get("hand") or [])
    auction = [[a[0], a[1], c.words.describe(a[1])["words"]] for a in (obs.get("history") or [])
               if not str(a[1]).startswith("play ")]
    trick = [list(t) for t in (obs.get("trick") or [])]
    done = obs.get("tricks") or []
    tricks_won = [0] * players
    for t in done:
        if 0 <= t.get("winner", -1) < players:
            tricks_won[t["winner"]] += 1
    points = list(obs.get("points") or [0] * players)
    # every trick of the deal so far, its cards with their seats (the turn passes from
    # each seat to the next: seat + 1; a seat that sits out plays no card)
    tricks = [{"leader": t["leader"], "cards": _trick_seats(t["leader"], t["cards"], players, obs),
               "winner": t["winner"], "points": None} for t in done]
    # each seat's card count: the observation's, less the cards played since and with
    # the widow's exchange (take, discard) counted; any other change of a hand ends a
    # flow step, and a SeatView with the new counts follows
    sizes = list(obs.get("hand_sizes") or [])
    for seat, text, won in c.since:
        verb, card = _verb_card(text)
        if len(sizes) == players and 0 <= seat < players and verb in SIZE_CHANGE:
            sizes[seat] += SIZE_CHANGE[verb]
        if verb == "play":
            trick.append([seat, card or text[5:]])
        else:
            auction.append([seat, text, c.words.describe(text)["words"]])
        if seat == c.seat and card and verb not in KEEPS and card in hand:
            hand.remove(card)
        if won:
            winner, pts = won
            if 0 <= winner < players:
                tricks_won[winner] += 1
                if len(points) == players:
                    points[winner] += pts
            tricks.append({"leader": trick[0][0] if trick else seat, "cards": trick, "winner": winner,
                           "points": pts})
            trick = []
    to_act = c.seat if c.request is not None else c.to_act
    out.update(actions=len(obs.get("history") or []) + len(c.since), hand=sort_hand(v, hand),
               hand_sizes=sizes or None, to_act=to_act,
               leader=trick[0][0] if trick else (to_act if obs.get("phase") == "play" else None),
               auction=auction, trick=trick, tricks=tricks, last_trick=tricks[-1] if tricks else None,
               tricks_won=tricks_won, points=points,
               trump=obs.get("trump"), exposed_card=obs.get("exposed_card"), face_down=obs.get("face_down"),
               trump_card=obs.get("trump_card"), called_card=obs.get("called_card"),
               partner=obs.get("partner"), declarer=obs.get("declarer"), widow=obs.get("widow") if c.request is not None else None,
               contract=_contract(obs), phase=obs.get("phase"), sitting_out=obs.get("sitting_out") or [])
    sides = g["sides"]
    if sides and len(sides) == players and len(points) == players:
        sp: dict[int, int] = {}
        for s, d in enumerate(sides):
            sp[d] = sp.get(d, 0) + points[s]
        out["side_points"] = [[d, sp[d]] for d in sorted(sp)]
    req = c.request
    if req is not None:
        left = max(0.0, req["deadline_ms"] / 1000 - (now - req["at"]))
        out["request"] = {"id": req["id"], "legal": req["legal"], "seconds": round(left, 1),
                          "bank_seconds": round(req["bank_ms"] / 1000, 1), "choices": req["choices"]}
        playable = {}
        for a in req["legal"]:
            verb, card = _verb_card(a)
            if card and card in hand and card not in playable and verb not in KEEPS:
                playable[card] = a
        out["playable"] = playable
    else:
        out["playable"] = {}
    if c.ended is not None:
        e = c.ended
        res = e["result"]
        pts = e.get("trick_points") or []
        rtricks = res.get("tricks") or []
        tricks = [{"leader": t.get("leader"), "winner": t.get("winner"),
                   "cards": _trick_seats(t.get("leader", 0), t.get("cards") or [], players,
                                         {"sitting_out": e.get("sitting_out")}),
                   "points": pts[i] if len(pts) == len(rtricks) else None}
                  for i, t in enumerate(rtricks)]
        out["ended"] = {"deal": e["deal"], "hands": [sort_hand(v, h) for h in e["hands"]], "widow": e["widow"],
                        "result": res, "tricks": tricks,
                        "why": why(res, g["bots"], sides, g.get("contract"))}
    return out


def _trick_seats(leader: int, cards: list, players: int, obs: dict) -> list[list]:
    """[seat, card] of a trick led by ``leader``: the turn passes to seat + 1, skipping
    the seats that sit out this deal (``obs["sitting_out"]``)."""
    out_ = set(obs.get("sitting_out") or [])
    seat, res = leader, []
    for card in cards:
        res.append([seat, card])
        seat = (seat + 1) % players
        for _ in range(players):
            if seat not in out_:
                break
            seat = (seat + 1) % players
    return res


def sort_hand(variant, hand: list[str]) -> list[str]:
    """``hand`` sorted by suit (the deck's suits, black and red taking turns: ♠ ♥ ♣ ♦)
    and, within a suit, by rank from the strongest (the deck's rank order). Unknown
    cards, or no variant, keep their order at the end."""
    if variant is None:
        return list(hand)
    suits = list(variant.deck.suits)
    black = [x for x in suits if x in "SC"]
    red = [x for x in suits if x in "HD"]
    order = [x for pair in zip(black, red) for x in pair] + black[len(red):] + red[len(black):]
    ranks = list(variant.deck.ranks)

    def key(card):
        r, su = card[:-1], card[-1]
        if su in order and r in ranks:
            return (0, order.index(su), ranks.index(r))
        return (1, 0, 0)
    return sorted(hand, key=key)


def game_title(game: dict, variant) -> str:
    """The game's name for the page: a shipped variant's name; a house file by its own
    name (the ``name:`` it gives, else its file's name), never the arena's copy
    ``variants/<digest>.yaml``."""
    name = str(game.get("variant") or "")
    if variant is not None and getattr(variant, "name", None) and name.endswith((".yaml", ".yml", ".json")):
        return str(variant.name)
    return name


def _contract(obs: dict) -> dict | None:
    if obs.get("high_bid") is None and obs.get("declarer") is None:
        return None
    return {"bidder": obs.get("declarer") if obs.get("declarer") is not None else obs.get("high_bidder"),
            "bid": obs.get("high_bid"), "target": obs.get("target"),
            "denomination": obs.get("denomination"), "doubled": obs.get("doubled")}


def why(result: dict, bots: list[str], sides: list[int] | None, contract: dict | None = None) -> str:
    """One sentence for a deal's result (DealEnded.result_json, docs/records.md): who
    declared what, what the declarer's side (the declarer alone when each player is for
    himself) took against the target, made or lost. ``contract`` holds the variant's
    facts when it loads here: ``auction`` (False: no auction, so no bid to tell) and
    ``target_unit`` ("tricks": the target counts tricks, counted from the result's
    tricks; "points" or None: card points)."""
    contract = contract or {}
    d = result.get("declarer")
    if d is None and result.get("tricks"):   # played without a contract (none, or a declaration's)
        pts = result.get("points") or []
        text = "no contract; " + ", ".join(f"seat {s} ({bots[s]}) took {p} point{'' if p == 1 else 's'}"
                                           for s, p in enumerate(pts) if s < len(bots))
        if result.get("trump"):
            text += f"; trump {result['trump']}"
        change = result.get("score_change")
        if change:
            text += " (score " + ", ".join(f"{'+' if x > 0 else ''}{x}" for x in change) + ")"
        return text
    if d is None:
        return "no contract: the deal was thrown in"
    n = len(bots)
    if sides and len(sides) == n:
        team = [s for s in range(n) if sides[s] == sides[d]]
    else:
        team = [d] + ([result["partner"]] if result.get("partner") is not None and result["partner"] != d else [])
    unit = contract.get("target_unit")
    if unit == "tricks":
        took = sum(1 for t in result.get("tricks") or [] if t.get("winner") in team)
    else:
        pts = result.get("points") or []
        took = sum(pts[s] for s in team if s < len(pts))
    who = " & ".join(f"seat {s} ({bots[s]})" for s in team if s < n)
    bid = result.get("bid")
    target = result.get("target")
    trump = result.get("trump")
    made = result.get("made")
    text = f"seat {d} ({bots[d]})" if d < n else f"seat {d}"
    text += " is the declarer" if contract.get("auction") is False else f" declared {bid}"
    if result.get("denomination"):
        text += f" {result['denomination']}"
    if trump:
        text += f", trump {trump}"
    if result.get("doubled"):
        text += f", doubled x{result['doubled']}" if isinstance(result["doubled"], int) and result["doubled"] > 1 else ", doubled"
    text += f"; {who} took {took} {unit or 'points'}"
    if target is not None:
        text += f" against a target of {target}"
    if made is True:
        text += ": contract made"
    elif made is False:
        text += ": contract lost"
    change = result.get("score_change")
    if change:
        text += " (score " + ", ".join(f"{'+' if x > 0 else ''}{x}" for x in change) + ")"
    return text


# -- the routes --------------------------------------------------------------------------
def add_routes(app, seat: SeatClient, key: str, page, rulebook=None) -> None:
    """Add the table's routes for ``seat`` to the aiohttp ``app``; ``key`` guards them;
    ``page(name, **kw)`` renders a template; ``rulebook(game) -> str``: the rulebook
    text of a game's variant (default: loaded from what the arena sent)."""
    from aiohttp import web

    def check(request) -> None:
        if request.query.get("key", "") != key:
            raise web.HTTPForbidden(text="this table needs its key: open the address `taash play` printed")

    async def table(request):
        check(request)
        return page("table.html", key=key, root=f"/table?key={key}")

    async def events(request):
        check(request)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        try:
            while not seat.stopping:
                changed = seat.changed
                await resp.write(b"data: " + json.dumps(table_view(seat), separators=(",", ":")).encode() + b"\n\n")
                try:
                    await asyncio.wait_for(changed.wait(), 15)
                except asyncio.TimeoutError:
                    pass
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return resp

    async def answer(request):
        check(request)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return web.json_response({"error": "the body must be JSON: {\"request\": ID, \"action\": TEXT}"},
                                     status=400)
        if not isinstance(body, dict) or not isinstance(body.get("request"), str) \
                or not isinstance(body.get("action"), str):
            return web.json_response({"error": "the body must be {\"request\": ID, \"action\": TEXT}"}, status=400)
        err = await seat.answer(body["request"][:200], body["action"][:200])
        if err:
            return web.json_response({"error": err}, status=409)
        return web.json_response({"ok": True})

    async def go_on(request):
        check(request)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            body = {}
        deal = body.get("deal") if isinstance(body, dict) else None
        return web.json_response({"ok": seat.go_on(deal if isinstance(deal, int) else None)})

    async def again(request):
        check(request)
        ok = seat.again()
        return web.json_response({"ok": ok} if ok else {"error": "no match to start again here"},
                                 status=200 if ok else 409)

    async def rules(request):
        check(request)
        if seat.game is None:
            raise web.HTTPNotFound(text="no game yet: the rulebook comes with the first game")
        text = (rulebook or game_rulebook)(seat.game)
        from markupsafe import Markup
        return page("rules.html", key=key, root=f"/table?key={key}",
                    variant=game_title(seat.game, seat.variant), html=Markup(rulebook_html(text)))

    app.router.add_get("/table", table)
    app.router.add_get("/table/events", events)
    app.router.add_post("/table/answer", answer)
    app.router.add_get("/table/rules", rules)
    app.router.add_post("/table/continue", go_on)
    app.router.add_post("/table/again", again)


def load_game_variant(game: dict):
    """The Variant of ``game`` (a `SeatClient.game`), loaded as a bot of the registry
    loads it: by its name, else from the data the arena sent (a house file of the
    arena's host). Raises VariantError or ValueError if neither loads."""
    info = SimpleNamespace(game_id=game["id"], variant=game["variant"], options=game["options"],
                           variant_data=game["variant_data"])
    return ArenaAgent(None).variant_of(info)


def rulebook_html(text: str) -> str:
    """The rulebook's Markdown as HTML (markdown-it-py, CommonMark with tables). Raw HTML
    in the text is escaped, not passed on, and a link's address other than http(s),
    mailto or a relative one is dropped (markdown-it's own check): a variant file is
    untrusted input."""
    from markdown_it import MarkdownIt
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def game_rulebook(game: dict) -> str:
    """The rulebook (`taash rules`, Markdown) of ``game``'s variant."""
    try:
        return render(load_game_variant(game))
    except Exception as e:      # a variant this side cannot load: say so on the page
        return f"the rulebook of {game['variant']} cannot be shown here: {e}"
