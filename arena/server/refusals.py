"""The arena's account of what it refused past a bound (docs/protocol.md, "Limits"):
connections reset by the front door (front.Front), calls refused by the wire (wire.py).
One `Refusals` per kind counts them by reason and logs them, at most one line every
`LOG_EVERY_S`, so that a flood costs a log line, not one per refusal; every refusal is
in exactly one line: the first at once, those within the next `LOG_EVERY_S` in a line
at its end, what is left in a last line when the arena stops (`flush`)."""

from __future__ import annotations

import asyncio
import logging
import time

log = logging.getLogger("taash.arena")

LOG_EVERY_S = 10.0      # at most one log line of one kind of refusals per this many seconds


class Refusals:
    """Refusals of one kind (``what``: "refused connections", "refused calls"), counted by
    reason: ``total`` (reason -> refusals since the start) and logged as
    "<what> past their bound (docs/protocol.md, Limits): N for <reason>; M for ..."."""

    def __init__(self, what: str, every_s: float = LOG_EVERY_S):
        self.what = what
        self.every_s = every_s
        self.total: dict[str, int] = {}
        self.waiting: dict[str, int] = {}       # reason -> refusals not logged yet
        self.logged = -float("inf")             # when the last line was written (time.monotonic)
        self.timer: asyncio.TimerHandle | None = None

    def count(self, why: str) -> None:
        """One refusal for ``why``: logged at once if no line was written in the last
        ``every_s`` seconds, else in the line written when they are over."""
        self.total[why] = self.total.get(why, 0) + 1
        self.waiting[why] = self.waiting.get(why, 0) + 1
        due = self.logged + self.every_s - time.monotonic()
        if due <= 0:
            self.flush()
        elif self.timer is None:
            try:
                self.timer = asyncio.get_running_loop().call_later(due, self.flush)
            except RuntimeError:        # no loop running (a synchronous caller): at once
                self.flush()

    def flush(self) -> None:
        """Log the refusals not logged yet, if any (the arena's stop calls it last)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.waiting:
            return
        self.logged = time.monotonic()
        log.warning("%s past their bound (docs/protocol.md, Limits): %s", self.what,
                    "; ".join(f"{n} for {w}" for w, n in self.waiting.items()))
        self.waiting.clear()
