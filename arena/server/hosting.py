"""Game hosting: connections, the games' drive and the fault policy of docs/protocol.md
(a game's data, its seats, pending decision and time control: game.py). No gRPC here: a Connection is a queue of serialized ServerMessages
that the wire (wire.py) drains, and bot messages arrive as raw bytes. Everything runs on
one asyncio event loop, so the engine is only ever touched from one thread.

A game is driven by callbacks, not by a task of its own: the game loop is
`taash.interpreter.playout.Playout`, and a decision that settles (a legal answer read from a
bot's stream, a timer, a connection change) applies its action and opens the next
decision from that callback (`Arena._drive`), so the next request is queued for its
seat's stream with no task woken in between. `Arena.run_game` only awaits the game's
end."""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from google.protobuf.message import DecodeError

from taash.interpreter import Match
from taash.interpreter.playout import NoAnswer, Playout

from ..pb import messages_pb2 as pb
from ..store import Store, compact_json
from . import events, framing, persist
from .game import Game, Pending, TimeControl
from .faults import (MAX_STREAMS, NETWORK_GRACE_MS, STREAM_BURST, STREAM_RATE, TOKEN_BURST, TOKEN_RATE, Bucket,
                     Closed, clip)

log = logging.getLogger("taash.arena")

PROTOCOL = "taash.arena.v1"
VERSION = "0.1.0"
V = pb.Verdict

# Kinds of verdicts that are faults of the seat (made public as FaultNoted).
PUBLIC_FAULTS = {V.TIMEOUT, V.LATE_ANSWER, V.ILLEGAL_ACTION, V.STRIKE_OUT, V.MALFORMED_MESSAGE,
                 V.STALE_REQUEST, V.UNKNOWN_REQUEST, V.DISCONNECTED, V.CRASHED, V.ABSENT,
                 V.BOT_ERROR, V.RESUMED, V.CLOSED_BY_ARENA}


# a deal's result as DealEnded.result_json: compact JSON, the json module's text, written
# by orjson (a DecisionRequest's observation is State.observation_json, the same form)
result_json = compact_json


def _kind_name(kind: int) -> str:
    return V.Kind.Name(kind)


# Messages waiting to be sent on one bot stream before the stream is dropped as a fault
# (CRASHED; docs/protocol.md, "Limits"): a bot that does not read its stream cannot make
# the arena hold its messages without bound. The limit counts while the stream's write
# has waited WRITE_STALL_S (its client takes nothing: gRPC's window is full); a stream
# that is being written to may pass it in a burst (many games starting at once), up to
# BURST_FACTOR times the limit.
SEND_LIMIT = 10_000
WRITE_STALL_S = 2.0
BURST_FACTOR = 10
# a new stream takes back its bot's seats at its first message (a hello sets batching
# first), or this many seconds after it connected (a bot that sends nothing first)
RESUME_WAIT_S = 0.25
# Finished games remembered to tell a late answer STALE_REQUEST (rather than UNKNOWN).
FINISHED_KEPT = 2_000
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1     # the range of the protocol's scores


class Outbox:
    """The messages waiting to be written on one stream, in order, for one reader (the
    stream's writer in the wire): the calls of asyncio.Queue that the wire uses
    (``put_nowait``, ``qsize``, ``get_nowait``, ``get``) on a deque with at most one
    waiter, without asyncio.Queue's per-call loop lookup and waiter list (one decision
    puts and gets one message: this is on every decision's path). Unbounded: the
    Connection bounds it."""

    __slots__ = ("items", "_waiter", "_loop")

    def __init__(self):
        self.items: deque = deque()
        self._waiter: asyncio.Future | None = None
        self._loop = None       # the reader's loop, once known (get_running_loop makes a system call)

    def qsize(self) -> int:
        """Messages waiting."""
        return len(self.items)

    def put_nowait(self, item) -> None:
        """Add ``item`` and wake the reader if it waits."""
        self.items.append(item)
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    def get_nowait(self):
        """The oldest item; IndexError when there is none."""
        return self.items.popleft()

    async def get(self):
        """The oldest item, once there is one."""
        while not self.items:
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            w = self._waiter = loop.create_future()
            try:
                await w
            finally:
                if self._waiter is w:
                    self._waiter = None
        return self.items.popleft()


class Connection:
    """One bot stream. Outgoing messages are serialized bytes in ``queue`` (an `Outbox`; None ends it),
    at most ``limit`` of them: past that ``on_overflow(self)`` is called and nothing
    more is queued. With ``batch`` (Hello.batch_events) public events are ``held`` and
    go out inside the next DecisionRequest (``send_decision``), or as one ServerMessage.events batch before any
    other message, so that the order of everything the bot receives is kept. ``token``:
    the one it authenticated with (the arena closes the stream when it is re-issued or
    revoked); ``meter``: its message budget, ``token_meter`` its token's, shared by the
    token's streams (faults.Bucket; `Arena.connect` sets it)."""

    __slots__ = ("bot", "peer", "client", "queue", "alive", "games", "seats", "id", "batch", "held",
                 "on_overflow", "kill", "limit", "token", "meter", "token_meter", "resume_due", "write_since")
    _next = 0

    def __init__(self, bot: str, peer: str = "", token: str = ""):
        Connection._next += 1
        self.id = Connection._next
        self.bot, self.peer, self.client = bot, peer, ""
        self.token = token
        self.meter = Bucket(STREAM_BURST, STREAM_RATE)
        self.token_meter: Bucket | None = None
        self.queue = Outbox()
        self.alive = True
        self.games: set[str] = set()
        self.seats = 0
        self.batch = False
        self.held: list[bytes] = []     # serialized GameEvents (batch mode)
        self.on_overflow = None     # called once when the queue is full
        self.write_since = 0.0      # monotonic time the wire's write in progress began (0: none)
        self.kill = None            # set by the wire: kill(why) ends the stream at once
        self.limit = SEND_LIMIT
        self.resume_due = False     # its bot's seats in running games are given back at its first message

    def send(self, data) -> None:
        """Queue serialized ServerMessage bytes or a `faults.Closed` (dropped if the stream
        is gone), after any held events."""
        if self.alive:
            if self.held:
                self.flush()
            self._put(data)

    def send_event(self, data: bytes, message: bytes | None = None) -> None:
        """A public event (``data``: a serialized GameEvent): held for the next
        DecisionRequest in batch mode, else sent as a ServerMessage of its own
        (``message``, when the caller framed it already)."""
        if self.batch:
            self.held.append(data)
        else:
            self.send(message or framing.event_message(data))

    def send_decision(self, req: bytes, pending) -> None:
        """Queue a DecisionRequest (``req``: serialized, without events), carrying the
        held events (batch mode), as (bytes, pending, this connection): the wire starts
        the decision's clock as it writes it."""
        if self.alive:
            held, self.held = self.held, []
            self._put((framing.decision_message(req, held), pending, self))

    def send_view(self, view: bytes) -> None:
        """Queue a SeatView (``view``: serialized, without events), carrying the held
        events (batch mode) as a DecisionRequest does."""
        if self.alive:
            held, self.held = self.held, []
            self._put(framing.view_message(view, held))

    def flush(self) -> None:
        """Send the held events (before a message that is no decision, or at the end of
        a game): as one ServerMessage.events batch in batch mode, else (batching just
        turned off) one message each."""
        held, self.held = self.held, []
        if self.batch:
            for m in framing.batch_event_messages(held):
                self._put(m)
        else:
            for ev in held:
                self._put(framing.event_message(ev))

    def stalled(self) -> bool:
        """Past the send limit: ``limit`` messages wait while the stream's write has
        waited `WRITE_STALL_S` (its client does not read), or `BURST_FACTOR` times
        ``limit`` wait in any case."""
        n = self.queue.qsize()
        if n < self.limit:
            return False
        since = self.write_since
        return n >= self.limit * BURST_FACTOR or (since > 0 and time.monotonic() - since >= WRITE_STALL_S)

    def _put(self, data) -> None:
        if not self.alive:
            return
        if self.queue.qsize() >= self.limit and self.stalled():
            cb, self.on_overflow = self.on_overflow, None
            if cb is not None:
                cb(self)
            return
        self.queue.put_nowait(data)


def unread(conn: Connection) -> str:
    """Why ``conn`` is past its send limit, for its verdict and status: the messages
    waiting, the limit, and how long its write has waited."""
    n, since = conn.queue.qsize(), conn.write_since
    waited = f", none taken for {time.monotonic() - since:.1f} s" if since > 0 else ""
    return f"{n} messages waiting{waited}; the limit is {conn.limit}"


class Arena:
    """Connections, games and the fault policy. All methods run on the event loop."""

    def __init__(self, store: Store, defaults: TimeControl = TimeControl(), wait_ms: int = 30000,
                 salt: str = "", spectators: events.Spectators | None = None):
        self.store = store
        self.salt = salt  # mixed into every shuffle: seeds alone do not reveal the cards
        self.defaults = defaults
        self.wait_ms = wait_ms
        self.conns: dict[str, list[Connection]] = {}
        self.games: dict[str, Game] = {}
        self.pending: dict[str, Pending] = {}
        self.finished: dict[str, str] = {}      # recently finished game id -> its bots joined
        self.spectators = spectators or events.Spectators()
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="taash-store")
        self.stopping = False       # set by the wire's stop: answers are ignored from then on
        self.send_limit = SEND_LIMIT    # messages not read before a bot stream is dropped
        self.tasks: set[asyncio.Task] = set()
        self.max_streams = MAX_STREAMS  # streams of one token at once
        # token -> its message budget (faults.Bucket), shared by its streams: one per token
        # that ever connected, and only the store's tokens connect (bounded by the admin)
        self.budgets: dict[str, Bucket] = {}
        self.latencies: list[float] = []        # seconds per answered decision, if enabled
        self.measure = False
        self._conn_changed = asyncio.Event()
        # between deals: an ``async (game_id, deal) -> None`` awaited after a deal's end is
        # published and before the next deal's first event (`_committed`); no decision is
        # open meanwhile, so no seat's clock runs and no seat learns anything of the next
        # deal. None: the next deal follows at once. (`taash play`: the person's review.)
        self.deal_break = None
        # a game cut short by the arena's stop: its record's arena error
        self.stop_words = "the arena stopped before the game ended"

    # -- connections ----------------------------------------------------------------
    def connect(self, conn: Connection) -> None:
        """Register a new authenticated stream; send Welcome; give it back the seats its
        bot holds in running games that have no live connection (resume)."""
        self.conns.setdefault(conn.bot, []).append(conn)
        conn.token_meter = self.budgets.get(conn.token)
        if conn.token_meter is None:
            conn.token_meter = self.budgets[conn.token] = Bucket(TOKEN_BURST, TOKEN_RATE)
        conn.on_overflow = self._overflow
        conn.limit = self.send_limit
        conn.send(pb.ServerMessage(welcome=pb.Welcome(bot=conn.bot, protocol=PROTOCOL,
                                                      server=f"taash-arena/{VERSION}")).SerializeToString())
        log.info("bot %s connected (%s)", conn.bot, conn.peer)
        # The seats it takes back wait for its first message (a hello sets batch_events
        # first: what is sent on the resume is then batched as it asked), or RESUME_WAIT_S.
        conn.resume_due = True
        try:
            asyncio.get_running_loop().call_later(RESUME_WAIT_S, self._resume, conn)
        except RuntimeError:        # no loop running (a synchronous caller): at once
            self._resume(conn)
        self._conn_changed.set()
        self._conn_changed = asyncio.Event()

    def streams_of(self, bot: str, token: str) -> int:
        """The streams of ``bot`` open with ``token`` (at most `max_streams`: wire.py
        refuses more)."""
        return sum(1 for c in self.conns.get(bot, ()) if c.alive and c.token == token)

    def _resume(self, conn: Connection) -> None:
        """Give ``conn`` the seats its bot holds in running games that have no live
        connection (once: at its first message, or RESUME_WAIT_S after it connected)."""
        if not conn.resume_due or not conn.alive:
            return
        conn.resume_due = False
        for game in list(self.games.values()):
            for s in game.seats_of(conn.bot):
                seat = game.seats[s]
                if seat.conn is None or not seat.conn.alive:
                    self._assign(game, s, conn)

    def _overflow(self, conn: Connection) -> None:
        """``conn`` is past its send limit (`Connection.stalled`): the bot does not read
        its stream. Its seats go away (CRASHED) and the stream is ended."""
        why = unread(conn)
        log.warning("bot %s: %s: stream dropped (%s)", conn.bot, why, conn.peer)
        self.disconnect(conn, V.CRASHED, message=f"the seat's stream was not read ({why}): dropped")
        conn.queue = Outbox()    # free what it held
        conn.queue.put_nowait(None)
        if conn.kill is not None:
            conn.kill(why)

    def close(self, conn: Connection, status: str, message: str) -> None:
        """The arena ends a stream (a re-issued or revoked token, past its message budget):
        its seats go through the disconnect path at once (verdict CLOSED_BY_ARENA, then
        away), and the wire ends the call with ``status`` (a grpc.StatusCode name) and
        ``message``, after a CLOSED_BY_ARENA verdict of seat -1 with the same message on
        the stream itself (the reason in the stream, for a client that loses the status)."""
        if not conn.alive:
            return
        log.warning("bot %s: stream closed by the arena (%s): %s", conn.bot, conn.peer, message)
        self._send_verdict(conn, pb.Verdict(kind=V.CLOSED_BY_ARENA, seat=-1, message=message))
        self.disconnect(conn, V.CLOSED_BY_ARENA, message)
        conn.queue.put_nowait(Closed(status, message))

    def check_tokens(self) -> None:
        """Close every stream whose token no longer belongs to its bot (re-issued or
        revoked in the store): status UNAUTHENTICATED; its seats are away. The
        budgets of tokens that no longer hold are forgotten."""
        for conns in list(self.conns.values()):
            for conn in list(conns):
                if conn.alive and self.store.bot_for_token(conn.token) != conn.bot:
                    self.close(conn, "UNAUTHENTICATED",
                               f"the token of bot {conn.bot!r} was re-issued or revoked: this stream is "
                               "closed (connect again with the new token)")
        for token in list(self.budgets):
            if self.store.bot_for_token(token) is None:
                del self.budgets[token]

    def disconnect(self, conn: Connection, how: int, message: str | None = None) -> None:
        """The stream ended: ``how`` is V.DISCONNECTED (the bot closed it), V.CRASHED or
        V.CLOSED_BY_ARENA (`close`); ``message`` replaces the verdict's usual sentence."""
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
            p = game.asking     # the game's one open decision, if any
            # the events it does not get from now on are sent when it is back (_assign),
            # unless another stream of the bot gets them
            if not any(c is not conn and c.alive and gid in c.games for c in self.conns.get(conn.bot, ())):
                game.missed_from.setdefault(conn.bot, game.nevents)
            for s, seat in enumerate(game.seats):
                if seat.conn is conn:
                    seat.conn = None
                    seat.away = True
                    # the verdict names the seat's open request, if it has one
                    rid = p.rid if p is not None and p.seat == s and p.result is None else ""
                    self._verdict(game, s, how, rid=rid, message=message or "the seat's connection "
                                  + ("was closed by the bot" if how == V.DISCONNECTED else "broke"))
            if p is not None and p.conn is conn and not p.closed:
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
        missed = game.missed_from.pop(conn.bot, None)
        if game.id not in conn.games:
            conn.games.add(game.id)
            conn.send(self._game_start(game, conn.bot, resumed=seat.away or game.match is not None))
            if missed is not None:      # the public events published while it was away, in order
                for data in game.feed.since(missed):
                    conn.send_event(data)
        p = game.asking     # the game's one open decision, if any
        waiting = p if p is not None and p.seat == s else None
        if seat.away:
            seat.away = False
            if waiting is not None:
                self._verdict(game, s, V.RESUMED, rid=waiting.rid,
                              message="the seat is back; its pending request is sent again" if waiting.sends
                              else "the seat is back; its pending request is sent now (it had not been sent)")
            else:
                self._verdict(game, s, V.RESUMED, message="the seat is back; no request of it is pending")
                # its view at once (a pending request would carry it): the hand it holds now,
                # not only the public events it missed (docs/protocol.md, "Seat views")
                st = game.st
                if st is not None and game.held is None and not st.is_terminal:
                    conn.send_view(pb.SeatView(game_id=game.id, seat=s, deal=st.deal_number,
                                               observation_json=st.observation_json(s)).SerializeToString())
        if waiting is not None:
            waiting.wake()

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
            game_id=game.id, variant=game.ref, options_json=game.options_json, variant_json=game.variant_json,
            bots=game.bots, your_seats=game.seats_of(bot), time_control=game.tc.to_pb(),
            resumed=resumed))
        return msg.SerializeToString()

    # -- messages from bots ---------------------------------------------------------
    def on_message(self, conn: Connection, raw: bytes) -> None:
        """Handle one message from a bot (raw bytes: decoding is ours, so that a bad
        message gets a verdict instead of breaking the stream). Every message spends one
        from the stream's and the token's budget (`_spend`), but the first answer to a
        request sent to the bot, on time or late: the request pays for that one."""
        if self.stopping or not conn.alive:
            return      # stopping, or closed by the arena: what was in flight is dropped
        msg = pb.BotMessage()
        paid = False
        try:
            msg.ParseFromString(raw)
        except (DecodeError, ValueError, RuntimeError) as e:
            self._malformed(conn, None, f"cannot decode a BotMessage: {e}")
            self._spend(conn)
            return
        which = msg.WhichOneof("msg")
        if which == "answer":
            a = msg.answer
            if not a.request_id:
                self._malformed(conn, None, "an Answer needs a request_id")
            elif not a.action:
                self._malformed(conn, a.request_id, "an Answer needs an action")
            else:
                paid = self._answer(conn, a.request_id, a.action)
        elif which == "error":
            e = msg.error
            p = self.pending.get(e.request_id)
            if not e.request_id:
                self._malformed(conn, None, "a BotError needs a request_id")
            elif p is None or p.game.bots[p.seat] != conn.bot:
                paid = self._not_pending(conn, e.request_id, None)
            else:
                self._settle(p, V.BOT_ERROR, message=f"the bot reported an error: {clip(e.message)}")
                paid = True
        elif which == "hello":
            conn.client = clip(msg.hello.client, 100)
            conn.batch = msg.hello.batch_events
            if not conn.batch and conn.held:
                conn.flush()
        else:
            self._malformed(conn, None, "a BotMessage must set one of hello, answer, error")
        if not paid:
            self._spend(conn)
        if conn.resume_due:
            self._resume(conn)

    def _answer(self, conn: Connection, rid: str, action: str) -> bool:
        """An answer to ``rid``: applied if it is legal for the pending request, else a
        verdict. True if it is the request's first answer (paid for by the request)."""
        p = self.pending.get(rid)
        if p is None or p.game.bots[p.seat] != conn.bot:
            return self._not_pending(conn, rid, action)
        act = p.legal_set.get(action)
        if act is not None:
            p.result, p.how = act, "answer"
            p.wake()
            return p.strikes == 0
        p.strikes += 1
        game, tc = p.game, p.game.tc
        if p.strikes >= tc.max_strikes:
            self._settle(p, V.STRIKE_OUT, action=action,
                         message=f"{p.strikes} illegal answers to this request: default action applied")
        else:
            left = tc.max_strikes - p.strikes
            self._verdict(game, p.seat, V.ILLEGAL_ACTION, conn=conn, rid=rid, action=action,
                          legal=p.legal, strikes=p.strikes,
                          message=f"not legal here; answer again with one of the legal actions before "
                                  f"the deadline ({left} {'try' if left == 1 else 'tries'} left)")
        return p.strikes == 1

    def _spend(self, conn: Connection) -> None:
        """One message of ``conn`` not paid for by a request: close the stream once it is
        past its budget or its token's (faults.Bucket)."""
        over = conn.meter.spend()
        tm = conn.token_meter
        if tm is not None and tm.spend():
            self.close(conn, "RESOURCE_EXHAUSTED",
                       f"too many messages with this token (more than {TOKEN_BURST} at once or {TOKEN_RATE:g} "
                       "a second on all its streams, beyond the answers to the requests sent: docs/protocol.md, "
                       "Limits): closed by the arena")
        elif over:
            self.close(conn, "RESOURCE_EXHAUSTED",
                       f"too many messages on this stream (more than {STREAM_BURST} at once or {STREAM_RATE:g} "
                       "a second, beyond the answers to the requests sent: docs/protocol.md, Limits): "
                       "closed by the arena")

    def _not_pending(self, conn: Connection, rid: str, action: str | None) -> bool:
        """An answer or error for ``rid``, which is not pending for this bot: its verdict
        (LATE_ANSWER, STALE_REQUEST, UNKNOWN_REQUEST). True if it is the first message for
        a request settled without an answer (a late answer: paid for by the request)."""
        gid = rid.rsplit(".", 1)[0]
        game = self.games.get(gid)
        if game is not None and rid in game.closed and game.closed[rid][0] == conn.bot:
            how = game.closed[rid][1]
            first = how != "answer" and rid not in game.late
            if first:
                game.late.add(rid)
            if how == "cancelled":      # the arena is stopping this game: not the bot's fault
                return first
            kind = V.STALE_REQUEST if how == "answer" else V.LATE_ANSWER
            msg = ("this request was already answered" if how == "answer" else
                   f"this request was settled by {how} before the answer came: ignored")
            self._verdict(game, game.closed[rid][2], kind, conn=conn, rid=rid,
                          action=action, message=msg)
            return first
        if game is None and self.finished.get(gid) is not None and conn.bot in self.finished[gid].split(","):
            self._send_verdict(conn, pb.Verdict(kind=V.STALE_REQUEST, request_id=rid, game_id=gid, seat=-1,
                                                action=clip(action) or "", message="that game is over"))
        else:
            self._send_verdict(conn, pb.Verdict(kind=V.UNKNOWN_REQUEST, request_id=clip(rid), seat=-1,
                                                action=clip(action) or "",
                                                message="no request with this id was sent to this bot"))
        return False

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
            self._send_verdict(conn, pb.Verdict(kind=V.MALFORMED_MESSAGE, request_id=clip(rid) or "", seat=-1,
                                                message=message))
            log.info("bot %s: malformed message: %s", conn.bot, message)

    # -- verdicts and events ----------------------------------------------------------
    def _send_verdict(self, conn: Connection | None, v: pb.Verdict) -> None:
        if conn is not None:
            conn.send(pb.ServerMessage(verdict=v).SerializeToString())

    def _verdict(self, game: Game, seat: int, kind: int, conn: Connection | None = None, rid: str = "",
                 action: str | None = None, applied: str | None = None, legal=None, strikes: int = 0,
                 message: str = "") -> None:
        """Send a verdict to the seat's bot; record it in the game and publish the fault,
        unless it is a repeated fault past faults.DETAIL_LIMIT (then only counted, and
        published once, aggregated, at the end of the deal: `_publish_counted`). Text from
        the bot is clipped (faults.clip)."""
        action = clip(action)
        shown = game.faults.note(seat, kind)
        if shown:
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
        if shown and kind in PUBLIC_FAULTS and seat >= 0:
            self._publish(game, pb.GameEvent(fault=pb.FaultNoted(deal=game.deal, seat=seat, kind=kind, count=1)))

    def _publish_counted(self, game: Game) -> None:
        """One FaultNoted per seat and kind for the repeated faults only counted since the
        last call (``count`` of them): at the end of each deal, and of the game."""
        for seat, kind, n in game.faults.flush():
            if kind in PUBLIC_FAULTS:
                self._publish(game, pb.GameEvent(fault=pb.FaultNoted(deal=game.deal, seat=seat, kind=kind,
                                                                     count=n)))

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
        """Publish a public event of ``game`` (events.publish); while the journal entry
        of a deal that ended is being written, the event waits for it (`_committed`)."""
        if game.held is not None:
            game.held.append((ev, to_bots))
            return
        events.publish(game, ev, self.spectators, to_bots)

    def _release(self, game: Game) -> bool:
        """Publish the events ``game`` held for a journal entry, and send the seat views
        held with them, in order; False if none were held."""
        held, game.held = game.held, None
        if held is None:
            return False
        for ev, to_bots in held:
            if type(ev) is bytes:       # a serialized SeatView, to_bots its seat
                self._send_view(game, to_bots, ev)
            else:
                events.publish(game, ev, self.spectators, to_bots)
        return True

    def _views(self, game: Game, st) -> None:
        """Send each seat of ``game`` its observation at ``st`` as a SeatView when what
        the rules show it changed other than by a public action: a new deal or flow step
        (cards dealt to it, the auction over, trump chosen, the play begun), the trump
        exposed, the partner revealed, a seat set to sit out. One observation per seat per change, after the
        public events published so far (held with them while a deal's journal entry is
        written). The seat to act gets none: its DecisionRequest, sent next, carries the
        same observation."""
        at = (st.deal_number, st.step, st.trump_exposed, st.partner_revealed, tuple(st.out))
        if game.view_at == at:
            return
        game.view_at = at
        to_act = st.to_act
        for s in range(len(game.seats)):
            if s == to_act:
                continue
            data = pb.SeatView(game_id=game.id, seat=s, deal=st.deal_number,
                               observation_json=st.observation_json(s)).SerializeToString()
            if game.held is not None:
                game.held.append((data, s))
            else:
                self._send_view(game, s, data)

    def _send_view(self, game: Game, s: int, data: bytes) -> None:
        """Queue a serialized SeatView (without events) on the stream holding seat ``s``,
        if one does (an away seat is not sent it: its next decision tells it)."""
        seat = game.seats[s]
        conn = seat.conn
        if conn is not None and conn.alive and not seat.away:
            conn.send_view(data)

    def _committed(self, game: Game) -> None:
        """The journal entry of the deal that ended is written (or its write failed,
        logged): the events held since go out, and the game goes on with its next
        decision (`_drive`). Nothing if the game ended meanwhile (its end released them).
        With a `deal_break` and a next deal, the events up to the DealEnded go out, and
        the rest (the next deal's) once the break is over (`_after_break`)."""
        held = game.held
        if (self.deal_break is not None and held is not None and game.next_at is not None
                and game.done is not None and not game.done.done()):
            end = next((k for k, (ev, _) in enumerate(held)
                        if type(ev) is not bytes and ev.WhichOneof("event") == "deal_ended"), None)
            if end is not None:
                game.held = held[:end + 1]
                self._release(game)
                game.held = held[end + 1:]      # events published meanwhile join them
                game.pause = asyncio.ensure_future(self._after_break(game, held[end][0].deal_ended.deal))
                return
        self._go_on(game)

    async def _after_break(self, game: Game, deal: int) -> None:
        """Await `deal_break` for ``game``'s ended ``deal``, then go on (`_go_on`)."""
        try:
            await self.deal_break(game.id, deal)
        except asyncio.CancelledError:
            raise
        except Exception as e:     # the break's own failure ends the break, not the game
            log.info("game %s: the break after deal %s failed: %s", game.id, deal, e)
        game.pause = None
        self._go_on(game)

    def _go_on(self, game: Game) -> None:
        if not self._release(game) or game.done is None or game.done.done():
            return
        try:
            at, game.next_at = game.next_at, None
            if at is None:
                game.done.set_result(None)
                return
            p = self._ask(game, *at)
            if p.result is None:
                return
            self._drive(game, self._close(p))
        except Exception as e:
            _fail(game, e)

    # -- decisions ------------------------------------------------------------------
    def _ask(self, game: Game, st, s: int) -> Pending:
        """Open the decision of remote seat ``s`` at ``st`` and look at it once
        (`_progress`: the request goes to the seat's bot, or the seat's absence is
        counted). Returns the Pending; it may already be settled (an absent seat whose
        grace is spent)."""
        legal = st.legal_actions()
        rid = f"{game.id}.{game.nreq}"
        game.nreq += 1
        p = Pending(rid, game, s, st, legal, st.observation_json(s), self._wake)
        self.pending[rid] = p
        game.asking = p
        self._progress(p)
        return p

    def _progress(self, p: Pending) -> None:
        """One look at the open decision ``p`` under the time controls and the fault
        policy (docs/protocol.md): (re)send the request when the seat's connection is new
        to it, settle it ABSENT once the seat is away past its grace budget or TIMEOUT
        past its deadline (each verdict is given here), else set its timer for the next
        look. Called when it opens and at each wake; a wake during the look is not
        needed (the look reads everything afresh)."""
        if p.busy or p.closed:
            return
        p.busy = True
        try:
            game, s = p.game, p.seat
            seat = game.seats[s]
            now = time.monotonic()
            if p.away_since is not None:        # the seat was away since then
                seat.grace_ms -= (now - p.away_since) * 1000
                p.away_since = None
            if p.result is not None:
                return
            conn = self._seat_conn(game, s)
            if conn is None:
                if seat.grace_ms <= 0:
                    self._settle(p, V.ABSENT,
                                 message="the seat is away and its grace budget is spent: "
                                         "default action applied")
                else:
                    p.away_since = now
                    self._timer(p, now + seat.grace_ms / 1000)
                return
            if p.conn is not conn:
                tc = game.tc
                allowed = max(0.0, tc.move_ms + seat.bank_ms - p.spent * 1000)
                p.conn, p.sent_at = conn, now
                # the bot is told `allowed`; its answer counts if read within the grace
                p.deadline = now + (allowed + NETWORK_GRACE_MS) / 1000
                # the wire calls p.written(conn) as it hands the request to gRPC, and
                # the clock starts again from there
                conn.send_decision(pb.DecisionRequest(
                    request_id=p.rid, game_id=game.id, seat=s, observation_json=p.obs_json,
                    legal_actions=p.legal, deadline_ms=int(allowed), time_bank_ms=int(seat.bank_ms),
                    attempt=p.strikes, resumed=p.sends > 0).SerializeToString(), p)
                p.sends += 1
            if p.deadline <= now:
                self._settle(p, V.TIMEOUT, message="no legal answer before the deadline: default action applied")
            else:
                self._timer(p, p.deadline)
        finally:
            p.busy = False

    def _timer(self, p: Pending, at: float) -> None:
        """Look at ``p`` again at monotonic time ``at``, or before: one timer per game,
        kept while it is due no later than that (a look before the deadline only sets the
        timer again), so that a decision answered in time costs no timer of its own."""
        game = p.game
        if game.timer is not None:
            if game.timer_at <= at:
                return
            game.timer.cancel()
        game.timer_at = at
        game.timer = asyncio.get_running_loop().call_at(at, _timer_due, game)   # loop.time() is time.monotonic()

    def _wake(self, p: Pending) -> None:
        """``p.wake()``: look at ``p``; once it is settled, its game goes on from here
        (`_drive`). An exception ends the game with it (`Arena.run_game` records it)."""
        try:
            if p.result is None or p.away_since is not None:    # else (an answer) nothing to look at
                self._progress(p)
            if p.result is not None and not p.closed:
                self._drive(p.game, self._close(p))
        except Exception as e:
            _fail(p.game, e)

    def _close(self, p: Pending):
        """``p`` is settled: forget it, count its time against the seat's bank; returns
        its result for the game loop (a legal Action, or a NoAnswer)."""
        self._forget(p, p.how)
        game = p.game
        seat = game.seats[p.seat]
        now = time.monotonic()
        used = p.spent + (now - p.sent_at if p.conn is not None else 0.0)
        if p.how == "TIMEOUT":
            seat.bank_ms = 0
        else:
            over = used * 1000 - game.tc.move_ms
            if over > 0:
                seat.bank_ms = max(0.0, seat.bank_ms - over)
        if self.measure and p.how == "answer":
            self.latencies.append(now - p.sent_at)
        return p.result

    def _forget(self, p: Pending, how: str) -> None:
        """``p`` is no longer open: out of the arena's pending decisions and its game's
        asking, into the game's closed ones as ``how`` settled it."""
        p.closed = True
        self.pending.pop(p.rid, None)
        p.game.asking = None
        p.game.closed[p.rid] = (p.game.seats[p.seat].bot, how, p.seat)

    def _abandon(self, game: Game) -> None:
        """The game stops where it is (the arena is stopping, or the game failed): its
        open decision is closed as cancelled, the game loop ends."""
        if game.timer is not None:
            game.timer.cancel()
            game.timer = None
        if game.pause is not None:
            game.pause.cancel()
            game.pause = None
        p = game.asking
        if p is not None and not p.closed:
            self._forget(p, "cancelled" if p.result is None else p.how)
        if game.playout is not None:
            game.playout.close()

    def _drive(self, game: Game, answer=None, start: bool = False) -> None:
        """Play ``game`` on from here: apply ``answer`` (or deal the first deal, with
        ``start``), then open each next decision until one must wait for its bot; at the
        end of the playout, ``game.done`` is set. Nothing once ``game.done`` is done (the
        game was stopped or failed)."""
        while not game.done.done():
            at = game.playout.start() if start else game.playout.send(answer)
            start = False
            if game.held is not None:   # a deal ended: on once its journal entry is written
                game.next_at = at
                return
            if at is None:
                game.done.set_result(None)
                return
            p = self._ask(game, *at)
            if p.result is None:
                return          # waits for its bot: the wake goes on from there
            answer = self._close(p)

    # -- games ----------------------------------------------------------------------
    async def run_game(self, variant, seed: int, bots: list[str], tc: TimeControl | None = None,
                       max_deals: int = 0, deals: list[dict] | None = None, game_id: str | None = None,
                       ref: str | None = None, named: str | None = None) -> dict:
        """Play one match of ``variant`` (a loaded Variant) with bot ``bots[s]`` in seat s
        and record it. ``deals``: optional per-deal {"hands", "widow", "dealer"} as in a
        record (else the seed deals). ``named``: the name the caller gave a variant it sent
        as text (the record names the variant so, the arena's copy as ``variant_copy``). Returns the GameResult fields as a dict: game_id,
        seed, bots, deals, score, winners, complete, faults, record (path), error."""
        tc = tc or self.defaults
        if len(bots) != variant.players:
            raise ValueError(f"{variant.name} needs {variant.players} bots, got {len(bots)}")
        game_id = game_id or await self.store_call(self.store.new_game_id)
        options = dict(getattr(variant, "options", {}) or {})
        game = Game(game_id, variant, ref or variant.ref, options, seed, bots, tc)
        game.named = named
        self.games[game_id] = game
        for s in range(variant.players):
            self._seat_conn(game, s)
        self._publish(game, pb.GameEvent(game_started=pb.GameStarted(
            variant=game.ref, options_json=game.options_json, bots=bots, time_control=tc.to_pb(),
            sides=variant.side_of if variant.partnership == "fixed" else ())),
            to_bots=False)
        m = game.match = Match(variant, seed, salt=self.salt)
        persist.journal_start(self.store, game, max_deals, run=self.writer.submit)
        error = None
        playing = {}        # the deal being played: "st", "dlog"
        text = variant.deck.text
        publish = self._publish

        def deal_started(st):
            d = st.deal_number
            game.deal, game.actions_in_deal = d, 0
            dlog = {"actions": [], "t_ms": [], "by_default": []}
            game.deal_log.append(dlog)
            playing["st"], playing["dlog"], playing["tricks"] = st, dlog, 0
            game.st = st
            publish(game, pb.GameEvent(deal_started=pb.DealStarted(deal=d, dealer=st.dealer)))
            self._views(game, st)

        def action_taken(st, s, action, by_default):
            dlog = playing["dlog"]
            game.actions_in_deal += 1
            dlog["actions"].append(action)
            dlog["t_ms"].append(game.t_ms())
            if by_default:
                dlog["by_default"].append(len(dlog["actions"]) - 1)
            msg = pb.GameEvent()
            ev = msg.action         # filled in place (GameEvent(action=...) would copy it)
            ev.deal, ev.seat, ev.action = game.deal, s, st.public_action(s, action, None)
            if st.to_act >= 0:
                ev.to_act = st.to_act
            if by_default:
                ev.by_default = True
            if len(st.tricks) > playing["tricks"]:   # this play completed a trick
                playing["tricks"] = n = len(st.tricks)
                ev.trick.number, ev.trick.winner, ev.trick.points = n, st.tricks[-1][2], st.trick_points_of(n - 1)
            publish(game, msg)
            if st.to_act >= 0:      # the deal goes on (its end shows every hand)
                self._views(game, st)

        def deal_ended(st):
            # Kept if the arena dies: the deal's journal entry is written on the store's
            # thread, and nobody is told the deal ended before it is committed: from
            # here the game's events wait (game.held), and the game goes on from
            # `_committed`, called on the loop once the write is done.
            playing["st"] = None
            game.held = []
            self._publish_counted(game)
            written = persist.journal_deal(self.store, game, st, playing["dlog"], run=self._store_submit)
            # the deal's cards as its record holds them (Match.record)
            publish(game, pb.GameEvent(deal_ended=pb.DealEnded(
                deal=game.deal, hands=[pb.Cards(cards=[text[c] for c in h]) for h in st.dealt],
                widow=[text[c] for c in st.widow], result_json=result_json(st.result()))))
            if written is None:     # written here (the store's thread is gone: the arena stops)
                loop.call_soon(self._committed, game)
            else:
                written.add_done_callback(lambda _: loop.call_soon_threadsafe(self._committed, game))

        loop = asyncio.get_running_loop()
        log.info("game %s: %s seed %s, bots %s", game_id, game.ref, seed, ",".join(bots))
        game.playout = Playout(m, max_deals=max_deals or None, deals=deals, on_deal_start=deal_started,
                               on_action=action_taken, on_deal_end=deal_ended)
        game.done = asyncio.get_running_loop().create_future()
        try:
            self._drive(game, start=True)
            await game.done
        except asyncio.CancelledError:
            error = (self.stop_words if self.stopping else
                     "stopped before its end: the call that started it went away")
            if not self.stopping:   # the caller went away: nobody to tell
                raise
        except Exception as e:  # an engine or arena bug: the game ends, recorded as it was
            error = f"{type(e).__name__}: {e}"
            log.error("game %s failed:\n%s", game_id, traceback.format_exc())
        finally:
            self._abandon(game)
            result = await self._finish(game, playing["dlog"] if playing.get("st") is not None else None,
                                        error)
        return result

    def _store_submit(self, fn, *args):
        """Run ``fn(*args)`` on the store's thread: its concurrent Future; None once that
        thread is shut down (the arena stopping), when it is run here."""
        try:
            return self.writer.submit(fn, *args)
        except RuntimeError:        # cannot schedule new futures after shutdown
            fn(*args)
            return None

    async def store_call(self, fn, *args):
        """Run a store method off the event loop, on the arena's one store thread (the
        store's writes keep their order); returns its result, raises its error."""
        return await asyncio.get_running_loop().run_in_executor(self.writer, fn, *args)

    async def _finish(self, game: Game, unfinished: dict | None, error: str | None) -> dict:
        m = game.match
        self._publish_counted(game)
        result, record = persist.record_of(game, unfinished, error)
        result = await self.store_call(persist.write, self.store, game.ref, result, record)
        self._release(game)     # after the record (and so any journal entry before it) is written
        if any(not INT32_MIN <= x <= INT32_MAX for x in result["score"]):
            # the wire's scores are 32-bit (GameEnded, GameResult); the record replays to the true ones
            too = "a score passes the protocol's 32-bit integers: `taash replay` of the record gives the scores"
            result["error"] = f"{result['error']}; {too}" if result["error"] else too
            result["score"] = []
        try:
            self._publish(game, pb.GameEvent(game_ended=pb.GameEnded(
                complete=m.over, score=result["score"], winners=result["winners"], seed=game.seed,
                deals=len(m.deals), record=result["record"])))
        finally:        # whatever happens, the game is no longer running (its spectators told)
            game.feed.close()
            self.games.pop(game.id, None)
        self.finished[game.id] = ",".join(game.bots)
        if len(self.finished) > FINISHED_KEPT:
            for k in list(self.finished)[:FINISHED_KEPT // 2]:
                del self.finished[k]
        for seat in game.seats:
            c = seat.conn
            if c is not None:
                c.seats -= 1
                c.games.discard(game.id)
                if c.held:
                    c.flush()
        log.info("game %s %s: score %s, winners %s, %d verdicts", game.id,
                 f"cut short ({error})" if error else "over",
                 result["score"], result["winners"], len(game.verdicts))
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


def _timer_due(game: Game) -> None:
    game.timer = None
    p = game.asking
    if p is not None:
        p.wake()


def _fail(game: Game, e: BaseException) -> None:
    """End ``game`` with the error ``e`` (an engine or arena bug, raised while driving
    it from a callback): `Arena.run_game` records it."""
    if game.done is not None and not game.done.done():
        game.done.set_exception(e)
    else:
        log.error("game %s: error after its end: %r", game.id, e)
