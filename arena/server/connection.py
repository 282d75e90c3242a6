"""One bot stream as the arena holds it (no gRPC): `Connection`, the queue of serialized
ServerMessages the wire (wire.py) drains (`Outbox`), the events it holds in batch mode,
and its send limit (`Connection.stalled`, docs/protocol.md "Limits")."""

from __future__ import annotations

import asyncio
import time
from collections import deque

from . import framing
from .faults import STREAM_BURST, STREAM_RATE, Bucket

# Messages waiting to be sent on one bot stream before the stream is dropped as a fault
# (CRASHED; docs/protocol.md, "Limits"): a bot that does not read its stream cannot make
# the arena hold its messages without bound. The limit counts while the stream's write
# has waited WRITE_STALL_S (its client takes nothing: gRPC's window is full); a stream
# that is being written to may pass it in a burst (many games starting at once), up to
# BURST_FACTOR times the limit.
SEND_LIMIT = 10_000
WRITE_STALL_S = 2.0
BURST_FACTOR = 10


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
    token's streams, ``token_bytes`` its token's byte budget, ``peer_meter`` and
    ``peer_bytes`` its address's (faults.Bucket; budgets.Budgets.attach sets them)."""

    __slots__ = ("bot", "peer", "client", "queue", "alive", "games", "seats", "id", "batch", "held",
                 "on_overflow", "kill", "limit", "token", "meter", "token_meter", "token_bytes", "peer_meter",
                 "peer_bytes", "resume_due", "write_since")
    _next = 0

    def __init__(self, bot: str, peer: str = "", token: str = ""):
        Connection._next += 1
        self.id = Connection._next
        self.bot, self.peer, self.client = bot, peer, ""
        self.token = token
        self.meter = Bucket(STREAM_BURST, STREAM_RATE)
        self.token_meter: Bucket | None = None
        self.token_bytes: Bucket | None = None     # its token's byte budget, then its address's
        self.peer_meter: Bucket | None = None
        self.peer_bytes: Bucket | None = None
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
