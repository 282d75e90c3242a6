"""The limits of the fault policy against a hostile bot (docs/protocol.md, "Limits"): what a
bot sends is clipped before it is kept, repeated faults of a seat are counted rather than
each recorded and published, and a stream past its message budget is closed. No
gRPC here (hosting.py applies these; wire.py turns a `Closed` into a gRPC status).
"""

from __future__ import annotations

import time

from ..pb import messages_pb2 as pb

V = pb.Verdict

TEXT_LIMIT = 200        # characters kept of any text a bot sends (action, request id, message)
DETAIL_LIMIT = 5        # faults of one seat and kind per game kept in full (record, FaultNoted)
# The message budget (docs/protocol.md, "Limits"): every message a bot sends (an answer,
# a hello, an error, bytes that do not decode) spends one from its stream's bucket and one
# from its token's; the first answer to each request the arena sent (on time or late) is
# paid for by the request, so a bot that answers what it is asked, however late, spends
# nothing. Past either bucket the stream is closed (RESOURCE_EXHAUSTED).
STREAM_BURST = 500      # messages one stream may send at once beyond its requests' answers ...
STREAM_RATE = 50.0      # ... and per second, on average, past that burst
TOKEN_BURST = 1000      # the same for all the streams of one token together ...
TOKEN_RATE = 100.0      # ... a second
MAX_STREAMS = 8         # streams one token may have open at once (taash arena serve --max-streams)
NETWORK_GRACE_MS = 250  # an answer is on time if the arena reads it by deadline_ms plus this

# Verdicts that settle a decision (the default action is applied): at most one per
# decision, so never aggregated; every other kind can be repeated at will by a bot.
SETTLING = frozenset((V.TIMEOUT, V.STRIKE_OUT, V.BOT_ERROR, V.ABSENT))


def clip(text: str | None, limit: int = TEXT_LIMIT) -> str | None:
    """``text`` if it has at most ``limit`` characters, else its first ``limit`` followed by
    ``...(N characters)``; None stays None."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}...({len(text)} characters)"


class FaultCounts:
    """The faults of one game per seat and kind. `note` says whether a fault is kept in
    full (the first `DETAIL_LIMIT` of its seat and kind, and every settling one); the
    others are only counted, and `flush` hands out, once, how many of each were counted
    since (for one aggregated FaultNoted per seat and kind at the end of a deal)."""

    __slots__ = ("total", "unshown")

    def __init__(self, players: int):
        self.total: list[dict[int, int]] = [{} for _ in range(players)]
        self.unshown: dict[tuple[int, int], int] = {}

    def note(self, seat: int, kind: int) -> bool:
        """Count a fault of ``seat``; True if it is to be recorded and published in full."""
        if not 0 <= seat < len(self.total):
            return True
        n = self.total[seat][kind] = self.total[seat].get(kind, 0) + 1
        if kind in SETTLING or n <= DETAIL_LIMIT:
            return True
        self.unshown[(seat, kind)] = self.unshown.get((seat, kind), 0) + 1
        return False

    def hidden(self) -> int:
        """How many faults were counted but not kept in full."""
        return sum(max(0, n - DETAIL_LIMIT) for counts in self.total for k, n in counts.items()
                   if k not in SETTLING)

    def flush(self) -> list[tuple[int, int, int]]:
        """(seat, kind, count) of the faults counted, not shown, since the last flush."""
        out = [(s, k, n) for (s, k), n in sorted(self.unshown.items())]
        self.unshown.clear()
        return out

    def summary(self) -> list[dict[str, int]]:
        """Per seat, {verdict kind name: faults of that kind in the game} (for the record)."""
        return [{V.Kind.Name(k): n for k, n in sorted(counts.items())} for counts in self.total]


class Bucket:
    """A token bucket of messages (or bytes): ``burst`` at once, refilled at ``rate`` a
    second. `spend` takes some and says whether the bucket is past its limit."""

    __slots__ = ("tokens", "t", "burst", "rate")

    def __init__(self, burst: int, rate: float):
        self.burst, self.rate = float(burst), rate
        self.tokens = float(burst)
        self.t = time.monotonic()

    def spend(self, n: float = 1) -> bool:
        """``n`` messages (or bytes); True once more than the limit was sent."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate) - n
        self.t = now
        return self.tokens < 0

    def take(self, n: float = 1) -> float:
        """Take ``n`` if the bucket holds them now: 0.0; else take nothing (a refusal costs
        no debt) and give the seconds until it will hold them (inf at rate 0)."""
        level = self.level()
        if level >= n:
            self.tokens, self.t = level - n, time.monotonic()
            return 0.0
        return (n - level) / self.rate if self.rate > 0 else float("inf")

    def owed_s(self) -> float:
        """Seconds until the bucket is out of debt (0: it is not past its limit now)."""
        level = min(self.burst, self.tokens + (time.monotonic() - self.t) * self.rate)
        return -level / self.rate if level < 0 and self.rate > 0 else 0.0

    def level(self) -> float:
        """What is left in the bucket now (negative: in debt)."""
        return min(self.burst, self.tokens + (time.monotonic() - self.t) * self.rate)

    def full(self) -> bool:
        """Refilled to its burst (nothing spent lately)."""
        return self.tokens + (time.monotonic() - self.t) * self.rate >= self.burst


class Closed:
    """Put on a connection's queue to end its stream with a status: ``status`` is a
    grpc.StatusCode name (``UNAUTHENTICATED``, ``RESOURCE_EXHAUSTED``), ``message`` its
    details."""

    __slots__ = ("status", "message")

    def __init__(self, status: str, message: str):
        self.status, self.message = status, message
