"""Game hosting: connections, seats, pending decisions, time control, the fault policy
of docs/protocol.md. No gRPC here: a Connection is a queue of serialized ServerMessages
that the wire (wire.py) drains, and bot messages arrive as raw bytes. Everything runs on
one asyncio event loop, so the engine is only ever touched from one thread."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import traceback
from dataclasses import dataclass, replace

from google.protobuf.message import DecodeError

from interpreter import Match
from interpreter.playout import NoAnswer, play_async

from ..pb import messages_pb2 as pb
from ..store import Store
from . import events, persist

log = logging.getLogger("taash.arena")

PROTOCOL = "taash.arena.v1"
VERSION = "0.1.0"
V = pb.Verdict

# Kinds of verdicts that are faults of the seat (made public as FaultNoted).
PUBLIC_FAULTS = {V.TIMEOUT, V.LATE_ANSWER, V.ILLEGAL_ACTION, V.STRIKE_OUT, V.MALFORMED_MESSAGE,
                 V.STALE_REQUEST, V.UNKNOWN_REQUEST, V.DISCONNECTED, V.CRASHED, V.ABSENT,
                 V.BOT_ERROR, V.RESUMED}


@dataclass(frozen=True)
class TimeControl:
    """Time controls and fault limits of a game, in milliseconds (docs/protocol.md)."""
    move_ms: int = 2000       # free time per decision
    bank_ms: int = 20000      # time bank per seat per game
    grace_ms: int = 15000     # reconnect budget per seat per game
    max_strikes: int = 3      # illegal answers to one request before the default action

    def to_pb(self) -> pb.TimeControl:
        """As the wire message."""
        return pb.TimeControl(move_ms=self.move_ms, bank_ms=self.bank_ms, grace_ms=self.grace_ms,
                              max_strikes=self.max_strikes)

    def merged(self, msg: pb.TimeControl | None) -> "TimeControl":
        """This, with the non-zero fields of ``msg`` taking precedence."""
        if msg is None:
            return self
        kw = {f: getattr(msg, f) for f in ("move_ms", "bank_ms", "grace_ms", "max_strikes")
              if getattr(msg, f)}
        return replace(self, **kw)


def _kind_name(kind: int) -> str:
    return V.Kind.Name(kind)


class Connection:
    """One bot stream. Outgoing messages are serialized bytes in ``queue`` (None ends it)."""

    __slots__ = ("bot", "peer", "client", "queue", "alive", "games", "seats", "id")
    _next = 0

    def __init__(self, bot: str, peer: str = ""):
        Connection._next += 1
        self.id = Connection._next
        self.bot, self.peer, self.client = bot, peer, ""
        self.queue: asyncio.Queue = asyncio.Queue()
        self.alive = True
        self.games: set[str] = set()
        self.seats = 0

    def send(self, data: bytes) -> None:
        """Queue serialized ServerMessage bytes (dropped if the stream is gone)."""
        if self.alive:
            self.queue.put_nowait(data)


@dataclass
class Seat:
    """A seat of a running game: its bot, connection and clocks (ms)."""
    bot: str
    bank_ms: float
    grace_ms: float
    conn: Connection | None = None
    away: bool = False          # lost its connection and not yet back


class Pending:
    """A decision the arena is waiting for."""

    __slots__ = ("rid", "game", "seat", "st", "legal", "legal_set", "obs_json", "conn", "sent_at",
                 "spent", "deadline", "strikes", "result", "how", "waiter", "sends")

    def __init__(self, rid, game, seat, st, legal, obs_json):
        self.rid, self.game, self.seat, self.st = rid, game, seat, st
        self.legal, self.legal_set, self.obs_json = legal, set(legal), obs_json
        self.conn = None
        self.sent_at = 0.0
        self.spent = 0.0            # seconds used on earlier connections
        self.deadline = 0.0
        self.strikes = 0
        self.result = None          # the answer, or a NoAnswer once settled by default
        self.how = None             # "answer" or the Verdict kind that settled it
        self.waiter = None
        self.sends = 0

    def wake(self):
        """Wake the game waiting on this decision (an answer, a connection change)."""
        w = self.waiter
        if w is not None and not w.done():
            w.set_result(None)


class Game:
    """A running game (one match) and what its record needs beyond the engine's."""

    def __init__(self, game_id, variant, ref, options, seed, bots, tc: TimeControl):
        self.id, self.v, self.ref, self.options, self.seed = game_id, variant, ref, options, seed
        self.bots = list(bots)
        self.tc = tc
        self.seats = [Seat(b, tc.bank_ms, tc.grace_ms) for b in bots]
        self.match: Match | None = None
        self.deal = 0
        self.actions_in_deal = 0
        self.t0 = time.monotonic()
        self.started = time.time()
        self.nreq = 0
        self.closed: dict[str, tuple[str, str, int]] = {}  # request id -> (bot, how, seat)
        self.verdicts: list[dict] = []
        self.deal_log: list[dict] = []
        self.events: list[bytes] = []   # serialized GameEvent, for late spectators
        self.nevents = 0
        self.watchers: set[asyncio.Queue] = set()
        self.over = False
        self.start_msgs: dict[str, bytes] = {}

    def t_ms(self) -> int:
        """Milliseconds since the game began."""
        return int((time.monotonic() - self.t0) * 1000)

    def seats_of(self, bot: str) -> list[int]:
        """The seats ``bot`` holds in this game."""
        return [s for s, b in enumerate(self.bots) if b == bot]


class Arena:
    """Connections, games and the fault policy. All methods run on the event loop."""

    def __init__(self, store: Store, defaults: TimeControl = TimeControl(), wait_ms: int = 30000,
                 salt: str = ""):
        self.store = store
        self.salt = salt  # mixed into every shuffle: seeds alone do not reveal the cards
        self.defaults = defaults
        self.wait_ms = wait_ms
        self.conns: dict[str, list[Connection]] = {}
        self.games: dict[str, Game] = {}
        self.pending: dict[str, Pending] = {}
        self.finished: dict[str, str] = {}      # recently finished game id -> its bots joined
        self.watch_all: set[asyncio.Queue] = set()
        self.tasks: set[asyncio.Task] = set()
        self.latencies: list[float] = []        # seconds per answered decision, if enabled
        self.measure = False
        self.stopping = False   # set by the wire's stop: a game cancelled then returns its result
        self._conn_changed = asyncio.Event()

    # -- connections ----------------------------------------------------------------
    def connect(self, conn: Connection) -> None:
        """Register a new authenticated stream; send Welcome; give it back the seats its
        bot holds in running games that have no live connection (resume)."""
        self.conns.setdefault(conn.bot, []).append(conn)
        conn.send(pb.ServerMessage(welcome=pb.Welcome(bot=conn.bot, protocol=PROTOCOL,
                                                      server=f"taash-arena/{VERSION}")).SerializeToString())
        log.info("bot %s connected (%s)", conn.bot, conn.peer)
        for game in list(self.games.values()):
            for s in game.seats_of(conn.bot):
                seat = game.seats[s]
                if seat.conn is None or not seat.conn.alive:
                    self._assign(game, s, conn)
        self._conn_changed.set()
        self._conn_changed = asyncio.Event()

    def disconnect(self, conn: Connection, how: int) -> None:
        """The stream ended: ``how`` is V.DISCONNECTED (the bot closed it) or V.CRASHED."""
        if not conn.alive:
            return
        conn.alive = False
        lst = self.conns.get(conn.bot, [])
        if conn in lst:
            lst.remove(conn)
        log.info("bot %s %s (%s)", conn.bot, "disconnected" if how == V.DISCONNECTED else "lost", conn.peer)
        now = time.monotonic()
        for gid in list(conn.games):
            game = self.games.get(gid)
            if game is None:
                continue
            for s, seat in enumerate(game.seats):
                if seat.conn is conn:
                    seat.conn = None
                    seat.away = True
                    self._verdict(game, s, how, message="the seat's connection "
                                  + ("was closed by the bot" if how == V.DISCONNECTED else "broke"))
            for p in list(self.pending.values()):
                if p.game is game and p.conn is conn:
                    p.spent += now - p.sent_at
                    p.conn = None
                    p.wake()

    def _live_conn(self, bot: str) -> Connection | None:
        best = None
        for c in self.conns.get(bot, ()):
            if c.alive and (best is None or c.seats < best.seats):
                best = c
        return best

    def _assign(self, game: Game, s: int, conn: Connection) -> None:
        seat = game.seats[s]
        seat.conn = conn
        conn.seats += 1
        if game.id not in conn.games:
            conn.games.add(game.id)
            conn.send(self._game_start(game, conn.bot, resumed=seat.away or game.match is not None))
        if seat.away:
            seat.away = False
            self._verdict(game, s, V.RESUMED, message="the seat is back; a pending request is sent again")
        for p in self.pending.values():
            if p.game is game and p.seat == s:
                p.wake()

    def _seat_conn(self, game: Game, s: int) -> Connection | None:
        seat = game.seats[s]
        if seat.conn is not None and seat.conn.alive:
            return seat.conn
        conn = self._live_conn(seat.bot)
        if conn is not None:
            self._assign(game, s, conn)
        return conn

    def _game_start(self, game: Game, bot: str, resumed: bool) -> bytes:
        msg = pb.ServerMessage(game_start=pb.GameStart(
            game_id=game.id, variant=game.ref, options_json=json.dumps(game.options),
            variant_json=json.dumps(getattr(game.v, "data", {}) or {}, default=str),
            bots=game.bots, your_seats=game.seats_of(bot), time_control=game.tc.to_pb(),
            resumed=resumed))
        return msg.SerializeToString()

    # -- messages from bots ---------------------------------------------------------
    def on_message(self, conn: Connection, raw: bytes) -> None:
        """Handle one message from a bot (raw bytes: decoding is ours, so that a bad
        message gets a verdict instead of breaking the stream)."""
        msg = pb.BotMessage()
        try:
            msg.ParseFromString(raw)
        except (DecodeError, ValueError, RuntimeError) as e:
            self._malformed(conn, None, f"cannot decode a BotMessage: {e}")
            return
        which = msg.WhichOneof("msg")
        if which == "answer":
            a = msg.answer
            if not a.request_id:
                self._malformed(conn, None, "an Answer needs a request_id")
            elif not a.action:
                self._malformed(conn, a.request_id, "an Answer needs an action")
            else:
                self._answer(conn, a.request_id, a.action)
        elif which == "error":
            e = msg.error
            p = self.pending.get(e.request_id)
            if not e.request_id:
                self._malformed(conn, None, "a BotError needs a request_id")
            elif p is None or p.game.bots[p.seat] != conn.bot:
                self._not_pending(conn, e.request_id, None)
            else:
                self._settle(p, V.BOT_ERROR, message=f"the bot reported an error: {e.message[:200]}")
        elif which == "hello":
            conn.client = msg.hello.client[:100]
        else:
            self._malformed(conn, None, "a BotMessage must set one of hello, answer, error")

    def _answer(self, conn: Connection, rid: str, action: str) -> None:
        p = self.pending.get(rid)
        if p is None or p.game.bots[p.seat] != conn.bot:
            self._not_pending(conn, rid, action)
            return
        if action in p.legal_set:
            p.result, p.how = action, "answer"
            p.wake()
            return
        p.strikes += 1
        game, tc = p.game, p.game.tc
        if p.strikes >= tc.max_strikes:
            self._settle(p, V.STRIKE_OUT, action=action,
                         message=f"{p.strikes} illegal answers to this request: default action applied")
        else:
            self._verdict(game, p.seat, V.ILLEGAL_ACTION, conn=conn, rid=rid, action=action,
                          legal=p.legal, strikes=p.strikes,
                          message=f"{action!r} is not legal here; answer again with one of the legal "
                                  f"actions before the deadline ({tc.max_strikes - p.strikes} tries left)")

    def _not_pending(self, conn: Connection, rid: str, action: str | None) -> None:
        gid = rid.rsplit(".", 1)[0]
        game = self.games.get(gid)
        if game is not None and rid in game.closed and game.closed[rid][0] == conn.bot:
            how = game.closed[rid][1]
            kind = V.STALE_REQUEST if how == "answer" else V.LATE_ANSWER
            msg = ("this request was already answered" if how == "answer" else
                   f"this request was settled by {how} before the answer came: ignored")
            self._verdict(game, game.closed[rid][2], kind, conn=conn, rid=rid,
                          action=action, message=msg)
        elif game is None and self.finished.get(gid) is not None and conn.bot in self.finished[gid].split(","):
            self._send_verdict(conn, pb.Verdict(kind=V.STALE_REQUEST, request_id=rid, game_id=gid, seat=-1,
                                                action=action or "", message="that game is over"))
        else:
            self._send_verdict(conn, pb.Verdict(kind=V.UNKNOWN_REQUEST, request_id=rid, seat=-1,
                                                action=action or "",
                                                message="no request with this id was sent to this bot"))

    def _malformed(self, conn: Connection, rid: str | None, message: str) -> None:
        p = self.pending.get(rid) if rid else None
        if p is not None and p.game.bots[p.seat] == conn.bot:
            self._verdict(p.game, p.seat, V.MALFORMED_MESSAGE, conn=conn, rid=rid, message=message)
            return
        # not tied to one request: recorded in every game where this connection is awaited
        sent = False
        for p in list(self.pending.values()):
            if p.conn is conn:
                self._verdict(p.game, p.seat, V.MALFORMED_MESSAGE, conn=conn if not sent else None,
                              rid=p.rid, message=message)
                sent = True
        if not sent:
            self._send_verdict(conn, pb.Verdict(kind=V.MALFORMED_MESSAGE, request_id=rid or "", seat=-1,
                                                message=message))
            log.info("bot %s: malformed message: %s", conn.bot, message)

    # -- verdicts and events ----------------------------------------------------------
    def _send_verdict(self, conn: Connection | None, v: pb.Verdict) -> None:
        if conn is not None:
            conn.send(pb.ServerMessage(verdict=v).SerializeToString())

    def _verdict(self, game: Game, seat: int, kind: int, conn: Connection | None = None, rid: str = "",
                 action: str | None = None, applied: str | None = None, legal=None, strikes: int = 0,
                 message: str = "") -> None:
        """Record a verdict in the game, send it to the seat's bot, publish the fault."""
        game.verdicts.append({"deal": game.deal, "index": game.actions_in_deal, "seat": seat,
                              "request_id": rid or None, "kind": _kind_name(kind), "action": action,
                              "applied": applied, "strikes": strikes, "message": message,
                              "t_ms": game.t_ms()})
        if conn is None and 0 <= seat < len(game.seats):
            c = game.seats[seat].conn
            conn = c if c is not None and c.alive else None
        self._send_verdict(conn, pb.Verdict(kind=kind, request_id=rid, game_id=game.id, seat=seat,
                                            action=action or "", applied_action=applied or "",
                                            legal_actions=legal or [], strikes=strikes, message=message))
        if kind in PUBLIC_FAULTS and seat >= 0:
            self._publish(game, pb.GameEvent(fault=pb.FaultNoted(deal=game.deal, seat=seat, kind=kind)))

    def _settle(self, p: Pending, kind: int, action: str | None = None, message: str = "") -> None:
        """End a pending decision without an answer: the verdict (now, as the protocol
        orders it) names the action the game loop applies for the seat,
        ``state.default_action()``; the decision's result is a NoAnswer of ``kind``."""
        if p.result is not None:
            return
        p.how = _kind_name(kind)
        p.result = NoAnswer(p.how, detail=message)
        self._verdict(p.game, p.seat, kind, rid=p.rid, action=action, applied=p.st.default_action(),
                      strikes=p.strikes, message=message)
        p.wake()

    def _publish(self, game: Game, ev: pb.GameEvent, to_bots: bool = True) -> None:
        """Publish a public event of ``game`` (events.publish)."""
        events.publish(game, ev, self.watch_all, to_bots)

    # -- decisions ------------------------------------------------------------------
    async def _wait(self, p: Pending, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        fut = p.waiter = loop.create_future()
        h = loop.call_later(max(0.0, timeout), _resolve, fut)
        try:
            await fut
        finally:
            h.cancel()
            p.waiter = None

    async def _decide(self, game: Game, st, s: int):
        """The remote seat ``s``: ask its bot for an action under the time controls and
        the fault policy (strikes, timeouts, absence: each verdict is given here). Returns
        a legal answer, or a `NoAnswer` of the verdict's kind when the decision was
        settled without one (the game loop then applies ``st.default_action()``)."""
        legal = st.legal_actions()
        seat = game.seats[s]
        tc = game.tc
        obs_json = json.dumps(st.observation(s), separators=(",", ":"), ensure_ascii=False)
        rid = f"{game.id}.{game.nreq}"
        game.nreq += 1
        p = Pending(rid, game, s, st, legal, obs_json)
        self.pending[rid] = p
        try:
            while p.result is None:
                conn = self._seat_conn(game, s)
                now = time.monotonic()
                if conn is None:
                    if seat.grace_ms <= 0:
                        self._settle(p, V.ABSENT,
                                     message="the seat is away and its grace budget is spent: "
                                             "default action applied")
                        break
                    await self._wait(p, seat.grace_ms / 1000)
                    seat.grace_ms -= (time.monotonic() - now) * 1000
                    continue
                if p.conn is not conn:
                    allowed = max(0.0, tc.move_ms + seat.bank_ms - p.spent * 1000)
                    p.conn, p.sent_at = conn, now
                    p.deadline = now + allowed / 1000
                    conn.send(pb.ServerMessage(decision=pb.DecisionRequest(
                        request_id=rid, game_id=game.id, seat=s, observation_json=obs_json,
                        legal_actions=legal, deadline_ms=int(allowed), time_bank_ms=int(seat.bank_ms),
                        attempt=p.strikes, resumed=p.sends > 0)).SerializeToString())
                    p.sends += 1
                remaining = p.deadline - now
                if remaining <= 0:
                    self._settle(p, V.TIMEOUT,
                                 message="no legal answer before the deadline: default action applied")
                    break
                await self._wait(p, remaining)
        finally:
            self.pending.pop(rid, None)
            if p.result is None:    # cancelled: the game is being stopped
                p.how = "cancelled"
            game.closed[rid] = (seat.bot, p.how, s)
        used = p.spent + (time.monotonic() - p.sent_at if p.conn is not None else 0.0)
        if p.how == "TIMEOUT":
            seat.bank_ms = 0
        else:
            over = used * 1000 - tc.move_ms
            if over > 0:
                seat.bank_ms = max(0.0, seat.bank_ms - over)
        if self.measure and p.how == "answer":
            self.latencies.append(time.monotonic() - p.sent_at)
        return p.result

    # -- games ----------------------------------------------------------------------
    async def run_game(self, variant, seed: int, bots: list[str], tc: TimeControl | None = None,
                       max_deals: int = 0, deals: list[dict] | None = None, game_id: str | None = None,
                       ref: str | None = None) -> dict:
        """Play one match of ``variant`` (a loaded Variant) with bot ``bots[s]`` in seat s
        and record it. ``deals``: optional per-deal {"hands", "widow", "dealer"} as in a
        record (else the seed deals). Returns the GameResult fields as a dict: game_id,
        seed, bots, deals, score, winners, complete, faults, record (path), error."""
        tc = tc or self.defaults
        if len(bots) != variant.players:
            raise ValueError(f"{variant.name} needs {variant.players} bots, got {len(bots)}")
        game_id = game_id or self.store.new_game_id()
        options = dict(getattr(variant, "options", {}) or {})
        game = Game(game_id, variant, ref or variant.ref, options, seed, bots, tc)
        self.games[game_id] = game
        for s in range(variant.players):
            self._seat_conn(game, s)
        self._publish(game, pb.GameEvent(game_started=pb.GameStarted(
            variant=game.ref, options_json=json.dumps(options), bots=bots, time_control=tc.to_pb(),
            sides=variant.side_of if variant.partnership == "fixed" else ())),
            to_bots=False)
        m = game.match = Match(variant, seed, salt=self.salt)
        persist.journal_start(self.store, game, max_deals)
        error = None
        playing = {}        # the deal being played: "st", "dlog"
        players = variant.players
        text = variant.deck.text
        publish = self._publish

        def deal_started(st):
            d = st.deal_number
            game.deal, game.actions_in_deal = d, 0
            dlog = {"actions": [], "t_ms": [], "by_default": []}
            game.deal_log.append(dlog)
            playing["st"], playing["dlog"], playing["tricks"] = st, dlog, 0
            publish(game, pb.GameEvent(deal_started=pb.DealStarted(deal=d, dealer=st.dealer)))

        def action_taken(st, s, action, by_default):
            dlog = playing["dlog"]
            game.actions_in_deal += 1
            dlog["actions"].append(action)
            dlog["t_ms"].append(game.t_ms())
            if by_default:
                dlog["by_default"].append(len(dlog["actions"]) - 1)
            ev = pb.ActionTaken(deal=game.deal, seat=s, action=events.public_text(st, players, s, action),
                                by_default=by_default)
            if len(st.tricks) > playing["tricks"]:   # this play completed a trick
                playing["tricks"] = n = len(st.tricks)
                ev.trick.number, ev.trick.winner, ev.trick.points = n, st.tricks[-1][2], st.trick_points_of(n - 1)
            publish(game, pb.GameEvent(action=ev))

        def deal_ended(st):
            playing["st"] = None
            persist.journal_deal(self.store, game, st, playing["dlog"])   # kept if the arena dies
            # the deal's cards as its record holds them (Match.record)
            publish(game, pb.GameEvent(deal_ended=pb.DealEnded(
                deal=game.deal, hands=[pb.Cards(cards=[text[c] for c in h]) for h in st.dealt],
                widow=[text[c] for c in st.widow], result_json=json.dumps(st.result()))))

        async def ask(st, s):
            return await self._decide(game, st, s)

        log.info("game %s: %s seed %s, bots %s", game_id, game.ref, seed, ",".join(bots))
        try:
            await play_async(m, ask, max_deals=max_deals or None, deals=deals, on_deal_start=deal_started,
                             on_action=action_taken, on_deal_end=deal_ended)
        except asyncio.CancelledError:
            error = "the arena stopped before the game ended"
            if not self.stopping:   # the caller went away: nobody to tell
                raise
        except Exception as e:  # an engine or arena bug: the game ends, recorded as it was
            error = f"{type(e).__name__}: {e}"
            log.error("game %s failed:\n%s", game_id, traceback.format_exc())
        finally:
            result = self._finish(game, playing["dlog"] if playing.get("st") is not None else None, error)
        return result

    def _finish(self, game: Game, unfinished: dict | None, error: str | None) -> dict:
        m = game.match
        result = persist.save_game(self.store, game, unfinished, error)
        self._publish(game, pb.GameEvent(game_ended=pb.GameEnded(
            complete=m.over, score=result["score"], winners=result["winners"], seed=game.seed,
            deals=len(m.deals), record=result["record"])))
        game.over = True
        for w in list(game.watchers):
            w.put(None)
        self.games.pop(game.id, None)
        self.finished[game.id] = ",".join(game.bots)
        if len(self.finished) > 100_000:
            for k in list(self.finished)[:50_000]:
                del self.finished[k]
        for seat in game.seats:
            if seat.conn is not None:
                seat.conn.seats -= 1
                seat.conn.games.discard(game.id)
        game.events = []
        log.info("game %s over: score %s, winners %s, %d verdicts", game.id, result["score"],
                 result["winners"], len(game.verdicts))
        return result

    async def wait_for_bots(self, names, timeout_s: float) -> list[str]:
        """Wait until every bot in ``names`` has a live connection, at most ``timeout_s``
        seconds; return the names still missing (empty when all are here)."""
        end = time.monotonic() + timeout_s
        while True:
            missing = sorted({b for b in names if self._live_conn(b) is None})
            left = end - time.monotonic()
            if not missing or left <= 0:
                return missing
            ev = self._conn_changed
            try:
                await asyncio.wait_for(ev.wait(), left)
            except asyncio.TimeoutError:
                pass

    def spawn(self, coro) -> asyncio.Task:
        """Run a game coroutine as a task owned by the arena (it outlives the RPC that
        started it; `stop` cancels it and its record is saved as cut short)."""
        t = asyncio.ensure_future(coro)
        self.tasks.add(t)
        t.add_done_callback(self.tasks.discard)
        return t


def tune_gc() -> None:
    """Collect garbage less often: a server holding many games has a large long-lived
    heap that every full collection walks. Freezes what exists now and raises the
    first-generation threshold (the arena makes no reference cycles per decision)."""
    import gc
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def _resolve(fut):
    if not fut.done():
        fut.set_result(None)
