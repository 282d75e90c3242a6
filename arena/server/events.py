"""Public events of a game: numbered, sent to its seats' bots, and kept in feeds that
spectators read at their own pace (docs/protocol.md, "Public events", "Spectators").
No gRPC here: events are serialized protobuf bytes that the wire sends.

Spectators are off the game loop: publishing appends to the game's feed and to the
arena's feed of every game (O(1), whatever the number of spectators) and wakes the
readers once per loop turn; each spectator's Watch call drains the feeds with a cursor of
its own. A spectator of every game that falls more than the arena feed's length behind
is dropped (`Behind`); a spectator of one game reads that game's whole feed (a game is
bounded), so it can be slow without loss.
"""

from __future__ import annotations

import asyncio
from collections import deque
from itertools import islice

from ..pb import messages_pb2 as pb
from . import framing


class Behind(Exception):
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
    """One spectator: its ``feed`` and its position ``pos`` in it (the next event it takes)."""

    __slots__ = ("feed", "pos")

    def __init__(self, feed: Feed, pos: int):
        self.feed, self.pos = feed, pos


MAX_SPECTATORS = 1000      # Watch calls at once (taash arena serve --max-spectators)
SPECTATOR_BACKLOG = 20_000  # events a spectator of every game may fall behind (--spectator-backlog)


class Spectators:
    """The arena's spectators: at most ``limit`` readers, and the feed of every game's
    events (the last ``keep``). ``sweep`` takes out, every ``every_s`` seconds, the
    readers whose position the feed no longer keeps, even one blocked because its client
    does not read; each such call then ends itself (`Behind`, in the wire)."""

    def __init__(self, limit: int = MAX_SPECTATORS, keep: int = SPECTATOR_BACKLOG):
        self.limit = limit
        self.readers: set[Reader] = set()
        self.feed = Feed(keep)

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
                self.readers.discard(r)


def publish(game, ev: pb.GameEvent, spectators: Spectators, to_bots: bool = True) -> None:
    """Number a public event of ``game`` (a hosting.Game), add it to the game's feed and
    the spectators' feed of every game, and send it (once per connection) to the game's
    seats' bots. A connection in batch mode (Hello.batch_events) keeps it for its next
    DecisionRequest instead (hosting.Connection.send_decision), as the serialized bytes."""
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
                if c.batch:
                    c.held.append(data)
                else:
                    if msg is None:
                        msg = framing.event_message(data)
                    c.send(msg)
