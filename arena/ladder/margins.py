"""Head-to-head score margins: how many points a deal one bot gains over another, with a
95% interval, from the ladder's rated events.

The ratings (ratings.py) rank the bots by who won each event; a margin measures by how
much. For two bots that met as the only two teams of an event, the event's margin is the
first bot's score minus the second's, summed over the event's games (with duplicate:
every seating of the same cards, so the luck of the cards cancels), divided by the deals
played in those games. A pair's margin is the mean of its events' margins, and its 95%
interval is the Student t interval over those events (each event is one independent
sample: its own cards). This is the comparison of duplicate bridge, where a pair's score
on a board is set against the other table's on the same cards, and of the game-points-a-
deal tables in docs/bots.md.

Scores are the engine's match scores per seat (`Match.seat_scores()`): game points (or
tables) at 56, 28, 29 and 304. How bots become teams follows ratings.py: fixed
partnerships by side, other games by each bot's mean seat score. Events with more than
two teams, or with a team of two bots, are left out of the margins (they are still rated).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from .ratings import Z95, event_outcomes

# Two-sided 95% quantiles of Student's t distribution (0.975 quantile) by degrees of
# freedom, from the standard tables (NIST/SEMATECH e-Handbook of Statistical Methods,
# 1.3.6.7.2, "Critical values of the Student's t distribution"). Between two listed
# degrees of freedom the smaller one's (larger) quantile is used, so an interval is never
# narrower than it should be; past 120 the normal quantile.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
        18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
        26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 50: 2.009, 60: 2.000,
        80: 1.990, 100: 1.984, 120: 1.980}

# Fewest events for a pair to be called apart: with whole-number scores a few events can
# all have the same margin (a zero-width interval, even between two copies of one bot),
# so an interval over fewer events is shown but not trusted.
MIN_EVENTS = 10


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` >= 1 degrees of freedom (see T975)."""
    if df < 1:
        raise ValueError("a t quantile needs at least 1 degree of freedom")
    if df > 120:
        return Z95
    return T975[max(d for d in T975 if d <= df)]


@dataclass
class Margin:
    """The head-to-head of two bots. better, worse: the bots, ``better`` the one with the
    higher mean (by name on a tie); mean: ``better``'s score minus ``worse``'s a deal,
    in score points (>= 0); ci95: (lo, hi) the 95% t interval of that mean, None with
    fewer than 2 events; events: the events they met in; deals: deals played in them."""
    better: str
    worse: str
    mean: float
    ci95: tuple[float, float] | None
    events: int
    deals: int

    @property
    def apart(self) -> bool:
        """Whether ``better`` is ahead at 95%: the interval lies wholly above 0, over at
        least MIN_EVENTS events."""
        return self.ci95 is not None and self.ci95[0] > 0 and self.events >= MIN_EVENTS

    def to_json(self) -> dict:
        """JSON-ready: every field plus ``apart``."""
        return {"better": self.better, "worse": self.worse, "mean": self.mean,
                "ci95": list(self.ci95) if self.ci95 else None, "events": self.events, "deals": self.deals,
                "apart": self.apart}


def event_margin(partnership: str, side_of, games) -> tuple[str, str, float, int] | None:
    """One event's (a list of GameResult) margin as (a, b, points a deal of a over b, deals)
    with a < b by name; None when the event is not two single-bot teams in one outcome."""
    outcomes = event_outcomes(partnership, side_of, games)
    if len(outcomes) != 1:
        return None
    teams, scores, _ = outcomes[0]
    if len(teams) != 2 or any(len(t) != 1 for t in teams):
        return None
    deals = sum(g.deals for g in games)
    if deals < 1:
        return None
    (a, xa), (b, xb) = sorted(((t[0], x) for t, x in zip(teams, scores)))
    return a, b, (xa - xb) / deals, deals


def pair_margins(partnership: str, side_of, events) -> list[Margin]:
    """Every pair's `Margin` from ``events`` (each a list of GameResult, as rated), sorted
    by the better bot's name, then the worse one's."""
    per: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for games in events:
        m = event_margin(partnership, side_of, games)
        if m is not None:
            a, b, x, deals = m
            per.setdefault((a, b), []).append((x, deals))
    out = []
    for (a, b), xs in per.items():
        vals = [x for x, _ in xs]
        mean = statistics.fmean(vals)
        ci = None
        if len(vals) >= 2:
            half = t975(len(vals) - 1) * statistics.stdev(vals) / math.sqrt(len(vals))
            ci = (mean - half, mean + half)
        if mean < 0:
            a, b, mean = b, a, -mean
            ci = (-ci[1], -ci[0]) if ci else None
        out.append(Margin(a, b, mean, ci, len(vals), sum(d for _, d in xs)))
    return sorted(out, key=lambda m: (m.better, m.worse))


def store_margins(store, variant, games=None) -> list[Margin]:
    """The margins of ``variant``'s ladder in ``store`` (a LadderStore), from its stored
    games grouped by rated event; ``games``: ``store.games(variant.ref)`` when the caller
    has read them already."""
    ref = variant.ref
    games = store.games(ref) if games is None else games
    return pair_margins(variant.partnership, variant.side_of,
                        [[games[k] for k in ev["games"] if k in games] for ev in store.events(ref)])
