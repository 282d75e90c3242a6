"""The arena's limits on what a client may cost it, beyond a game's own (docs/protocol.md,
"Limits"), with their defaults: `Limits`, one value that `taash arena serve`'s flags fill
in and the server reads. Each is per token, per peer address or for the arena in all, as
its comment says; a client past one is refused or cut alone, with a status naming it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The limits of one arena (units in each field's name; 0 turns a bound off where
    its flag says so)."""
    # MyStanding calls of one token: this many at once, then this many a second
    # (--query-burst, --query-rate)
    query_burst: int = 10
    query_rate: float = 2.0
