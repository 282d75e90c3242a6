"""Who plays whom: rounds of games between bots, seatings, and duplicate deals.

A ladder is played in **rounds**. Round ``r`` has one seed (`round_seed`), shared by
every game of the round, so all pairings of a round play the same cards. A **pairing** is
two bots; its **seatings** place them at the table (`seatings`):

- fixed partnerships: one bot holds every seat of side 0, the other every seat of side 1,
  and the swap;
- called partner, solo and individual games: the bots alternate seats (``a b a b``,
  ``a b a``), and every distinct seat rotation of that pattern and of its swap.

Across the seatings of a pairing every seat is held by each bot equally often, so with
``duplicate`` (every seating of a pairing plays the round's seed) the same cards are
played by both bots from every seat and card luck cancels. Without it a pairing plays one
seating per round, taken in turn from round to round.

A **game** (`GameSpec`) is one match of the variant from the round's seed, stopped after
``deals`` deals (or earlier if the match is over). An **event** is what is rated at once:
the games of a pairing in a round with ``duplicate``, one game without.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import combinations

ROUND_ROBIN = "round-robin"
BY_RATING = "rating"
SCHEDULES = (ROUND_ROBIN, BY_RATING)


@dataclass(frozen=True)
class GameSpec:
    """One game of the ladder.

    key: unique in the ladder, ``r00003/a/b/s1`` (round, pairing, seating index);
    event: the key of the rated event it belongs to (``r00003/a/b`` with duplicate,
    else the game's key); round: 0-based; seed: the match seed (int); bots: bot name per
    seat; deals: deals to play (fewer if the match ends first).
    """
    key: str
    event: str
    round: int
    seed: int
    bots: tuple[str, ...]
    deals: int

    def to_json(self) -> dict:
        """As a JSON-ready dict (what the store keeps of a round's plan)."""
        return {"key": self.key, "event": self.event, "round": self.round, "seed": self.seed,
                "bots": list(self.bots), "deals": self.deals}

    @classmethod
    def from_json(cls, d: dict) -> "GameSpec":
        """The inverse of `to_json`."""
        return cls(d["key"], d["event"], int(d["round"]), int(d["seed"]), tuple(d["bots"]), int(d["deals"]))


def round_seed(ladder_seed: int, rnd: int) -> int:
    """The match seed of every game of round ``rnd`` (0-based): a 31-bit int that depends
    only on the ladder's seed and the round."""
    h = hashlib.sha256(f"taash-ladder:{ladder_seed}:{rnd}".encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF


def seatings(players: int, partnership: str, side_of, a: str, b: str) -> list[tuple[str, ...]]:
    """The seatings of the pairing (a, b): a tuple of bot names per seat each.

    ``partnership`` "fixed": ``a`` holds the seats of side 0 (``side_of[s] == 0``), ``b``
    those of side 1, then the swap. Otherwise the pattern a, b, a, b, ... by seat and
    every distinct rotation of it and of its swap, in that order (4 players: 2 seatings;
    3 players: 6).

    >>> seatings(4, "fixed", [0, 1, 0, 1], "h", "r")
    [('h', 'r', 'h', 'r'), ('r', 'h', 'r', 'h')]
    >>> seatings(3, "solo", [0, 1, 0], "h", "r")
    [('h', 'r', 'h'), ('r', 'h', 'h'), ('h', 'h', 'r'), ('r', 'h', 'r'), ('h', 'r', 'r'), ('r', 'r', 'h')]
    """
    if partnership == "fixed":
        first = tuple(a if side_of[s] == 0 else b for s in range(players))
        return [first, tuple(b if x == a else a for x in first)]
    out: list[tuple[str, ...]] = []
    for pattern in ([a if s % 2 == 0 else b for s in range(players)],
                    [b if s % 2 == 0 else a for s in range(players)]):
        for k in range(players):
            rot = tuple(pattern[k:] + pattern[:k])
            if rot not in out:
                out.append(rot)
    return out


def pairs_round_robin(bots) -> list[tuple[str, str]]:
    """Every pair of distinct bots once, names sorted: [(a, b), ...] with a < b."""
    return list(combinations(sorted(set(bots)), 2))


def pairs_by_rating(bots, rating_of) -> list[tuple[str, str]]:
    """Neighbours in the standings play each other: the bots sorted by ``rating_of(bot)``
    (a number, higher first; ties by name), and each paired with the next one (k bots give
    k-1 pairings, each pair's names sorted)."""
    order = sorted(set(bots), key=lambda b: (-rating_of(b), b))
    return [tuple(sorted(p)) for p in zip(order, order[1:])]


def plan_round(rnd: int, pairs, *, ladder_seed: int, duplicate: bool, game_deals: int,
               players: int, partnership: str, side_of) -> list[GameSpec]:
    """The games of round ``rnd`` for ``pairs`` (a list of (a, b)), in play order.
    With ``duplicate`` every seating of a pairing, else seating ``rnd mod k`` of its k."""
    seed = round_seed(ladder_seed, rnd)
    games = []
    for a, b in pairs:
        seats = seatings(players, partnership, side_of, a, b)
        chosen = range(len(seats)) if duplicate else [rnd % len(seats)]
        event = f"r{rnd:05d}/{a}/{b}"
        for k in chosen:
            key = f"{event}/s{k}"
            games.append(GameSpec(key, event if duplicate else key, rnd, seed, seats[k], game_deals))
    return games
