"""Public events of a game: numbered, sent to its seats' bots, and kept in feeds that
spectators read at their own pace (docs/protocol.md, "Public events", "Spectators").
No gRPC here: events are serialized protobuf bytes that the wire sends.

Spectators are off the game loop: publishing appends to the game's feed and to the
arena's feed of every game (O(1), whatever the number of spectators) and wakes the
readers once per loop turn; each spectator's Watch call drains the feeds with a cursor of
its own. A spectator of every game that falls more than the arena feed's length behind
is dropped (`Behind`); a spectator of one game reads that game's whole feed (a game is
bounded), so it can be slow without loss. What all spectators together are sent is
bounded by a `Budget` of messages and KiB a second: a client that does not read still
takes the arena's writes until its flow-control window is full (a thousand events and
more: gRPC clients grow their windows by default), and without a bound a thousand such
clients took the games to 0.3 of their speed (bench/arena.py).
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections import deque
from itertools import islice

from ..errors import ArenaError
from ..pb import messages_pb2 as pb
from . import framing


class Behind(ArenaError):
    """A reader asked for events the feed no longer keeps: ``missed`` of them."""

    def __init__(self, missed: int):
        super().__init__(f"{missed} events behind")
        self.missed = missed


class Feed:
    """Serialized events in publication order, numbered from 0; keeps the last ``keep``
    (None: all). Readers hold a position (the number of the next event they want) and
    ``wait`` for it; appending wakes them once per event-loop turn."""

    def __init__(self, keep: int | None = None):
        self.items: deque[bytes] = deque()
        self.first = 0          # the number of items[0]
        self.keep = keep
        self.closed = False
        self._waiter: asyncio.Future | None = None
        self._wake_soon = False

    @property
    def end(self) -> int:
        """The number the next event will have."""
        return self.first + len(self.items)

    def append(self, data: bytes) -> None:
        """Add one event (bytes); drop the oldest past ``keep``."""
        self.items.append(data)
        if self.keep is not None and len(self.items) > self.keep:
            self.items.popleft()
            self.first += 1
        self._schedule()

    def close(self) -> None:
        """No more events: readers get what is left, then the end."""
        self.closed = True
        self._schedule()

    def _schedule(self) -> None:
        if self._waiter is not None and not self._wake_soon:
            self._wake_soon = True
            asyncio.get_running_loop().call_soon(self._wake)

    def _wake(self) -> None:
        self._wake_soon = False
        w, self._waiter = self._waiter, None
        if w is not None and not w.done():
            w.set_result(None)

    def since(self, pos: int) -> list[bytes]:
        """The events from number ``pos`` on (may be empty). Raises Behind if some of
        them are no longer kept."""
        if pos < self.first:
            raise Behind(self.first - pos)
        if pos >= self.end:
            return []
        if pos == self.first:
            return list(self.items)
        out = list(islice(reversed(self.items), self.end - pos))   # O(events taken), not O(kept)
        out.reverse()
        return out

    async def wait(self, pos: int) -> None:
        """Return once event ``pos`` exists or the feed is closed."""
        while pos >= self.end and not self.closed:
            if self._waiter is None:
                self._waiter = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._waiter)


class Reader:
    """One spectator: its ``feed`` and its position ``pos`` in it (the next event it
    sends); ``dropped`` > 0 once `Spectators.sweep` has dropped it, that many events
    behind the end of its feed (its call is then to end)."""

    __slots__ = ("feed", "pos", "dropped")

    def __init__(self, feed: Feed, pos: int):
        self.feed, self.pos = feed, pos
        self.dropped = 0


MAX_SPECTATORS = 1000      # Watch calls at once (taash arena serve --max-spectators)
SPECTATOR_BACKLOG = 5_000  # events a spectator of every game may fall behind (--spectator-backlog)
SPECTATOR_RATE = 1_000      # units a second to all spectators together (--spectator-rate)
UNIT_BYTES = 1024           # a message costs one unit, or one per KiB of it


def cost(data: bytes) -> int:
    """What a message costs the spectators' budget: one unit, or one per started KiB
    (a WatchBatches message can hold a second of every game's events)."""
    return 1 + (len(data) - 1) // UNIT_BYTES if data else 1


class Budget:
    """What all spectators together may be sent: ``rate`` units a second (a message,
    or a KiB of a longer one: `cost`), at most ``burst`` of them saved up (a tenth of a
    second's worth by default); ``rate`` 0: no bound. `take` returns at once while there
    are units and nobody waits, else waits its turn; waiters are served the least behind
    first (``behind``: events between the spectator's position and the end of its feed;
    first come first served among equals), so spectators that keep up are not starved by
    clients that take messages without reading them, which fall behind and are dropped
    (`Spectators.sweep`). A message dearer than what is saved goes once there is a unit,
    leaving the budget in debt. A waiter whose call is cancelled loses its turn. One
    timer serves the waiters about every ``period_s``. ``clock``: seconds, monotonic
    (tests give their own)."""

    def __init__(self, rate: float = SPECTATOR_RATE, burst: float | None = None,
                 period_s: float = 0.01, clock=time.monotonic):
        if rate < 0:
            raise ValueError("a spectator rate is 0 (no bound) or more units a second")
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate / 10)
        if self.burst < 1:
            raise ValueError("a burst of less than one unit would never let a message through")
        self.period_s = period_s
        self.clock = clock
        self.tokens = self.burst
        self.t = clock()
        self.waiting: list = []     # heap of (behind, arrival, future, units)
        self._arrivals = 0
        self._timer = None

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now

    def take_nowait(self, units: int = 1) -> bool:
        """Take ``units`` if there is at least one unit and nobody waits."""
        if not self.rate:
            return True
        if self.waiting:
            return False
        self._refill()
        if self.tokens >= 1:
            self.tokens -= units
            return True
        return False

    async def take(self, units: int = 1, behind: int = 0) -> None:
        """Take ``units`` for one message of a spectator ``behind`` events behind,
        waiting for its turn."""
        if self.take_nowait(units):
            return
        fut = asyncio.get_running_loop().create_future()
        self._arrivals += 1
        heapq.heappush(self.waiting, (behind, self._arrivals, fut, units))
        self._arm()
        await fut

    def _arm(self) -> None:
        if self._timer is None and self.waiting:
            wait = max(0.0, (max(1.0, self.rate * self.period_s) - self.tokens) / self.rate)
            self._timer = asyncio.get_running_loop().call_later(wait, self._grant)

    def _grant(self) -> None:
        self._timer = None
        self._refill()
        waiting = self.waiting
        while waiting and self.tokens >= 1:
            _, _, f, units = heapq.heappop(waiting)
            if not f.done():
                f.set_result(None)
                self.tokens -= units
        self._arm()

    def close(self) -> None:
        """No bound from now on (the arena stops): the timer ends and every waiter goes
        on, so that each spectator reaches the end of the feed and its status."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.rate = 0
        while self.waiting:
            f = heapq.heappop(self.waiting)[2]
            if not f.done():
                f.set_result(None)


class Spectators:
    """The arena's spectators: at most ``limit`` readers, the feed of every game's
    events (the last ``keep``) and the `Budget` of units a second (``rate``) they
    share. ``sweep`` takes out, every ``every_s`` seconds, the readers whose position
    the feed no longer keeps, even one blocked because its client does not read; each
    such call then ends itself (``Reader.dropped``, `Behind`, in the wire)."""

    def __init__(self, limit: int = MAX_SPECTATORS, keep: int = SPECTATOR_BACKLOG,
                 rate: float = SPECTATOR_RATE):
        self.limit = limit
        self.readers: set[Reader] = set()
        self.feed = Feed(keep)
        self.budget = Budget(rate)

    def admit(self, feed: Feed, pos: int) -> Reader:
        """A new reader of ``feed`` from ``pos`` (the caller checks ``limit`` first)."""
        r = Reader(feed, pos)
        self.readers.add(r)
        return r

    def leave(self, r: Reader) -> None:
        """A spectator went away."""
        self.readers.discard(r)

    async def sweep(self, every_s: float = 0.1) -> None:
        """Until cancelled, every ``every_s`` seconds: the readers that fell behind leave
        ``readers`` (their places no longer count against ``limit``). Their calls are not
        ended from here: the call of a client that does not read is blocked on a write,
        and a status sent from outside waits behind what that client has not read, a
        cost to the arena's other streams while it waits (bench/arena.py: 1,000 idle
        spectators dropped that way mid-run took the games to about 0.8 of their speed,
        against about 1.0 without). Each call ends itself with RESOURCE_EXHAUSTED at its
        next look at the feed (`Feed.since` raises `Behind`), once its client has read
        what is on its way (meanwhile it holds the events of the batch it was writing)."""
        while True:
            await asyncio.sleep(every_s)
            behind = [r for r in self.readers if r.pos < r.feed.first]
            for r in behind:
                r.dropped = r.feed.end - r.pos
                self.readers.discard(r)


def publish(game, ev: pb.GameEvent, spectators: Spectators, to_bots: bool = True) -> None:
    """Number a public event of ``game`` (a game.Game), add it to the game's feed and
    the spectators' feed of every game, and send it (once per connection) to the game's
    seats' bots (connection.Connection.send_event: a connection in batch mode keeps it for
    its next DecisionRequest)."""
    ev.game_id = game.id
    ev.index = game.nevents
    game.nevents += 1
    data = ev.SerializeToString()
    game.feed.append(data)
    spectators.feed.append(data)
    if to_bots:
        msg = None
        sent = set()
        for seat in game.seats:
            c = seat.conn
            if c is not None and c.alive and c.id not in sent:
                sent.add(c.id)
                if msg is None and not c.batch:
                    msg = framing.event_message(data)   # framed once for every such stream
                c.send_event(data, msg)
