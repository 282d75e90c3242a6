"""Ratings with openskill (Weng-Lin, Plackett-Luce), per variant, from per-seat results.

What is rated (docs/ladder.md):

- fixed partnerships: the teams are the sides. A side held by one bot rates that bot alone
  (one player, not two copies of it); a mixed side rates each of its bots as a team. A bot
  on both sides is left out of that game's rating (it cannot beat itself).
- called partner, solo and individual scores: never as teams. Each bot is a player of its
  own, scored by the mean match score of the seats it held, and the bots are ranked by
  that (a free-for-all). So a declarer alone against three is not rated as a team of one
  against a team of three.
- duplicate comparison: with duplicate, the scores of all k games of a pairing's
  seatings in a round (the same cards, every seat held by each bot in turn) are summed
  first, so card luck cancels, and the bots are ranked by the sums; that one result is
  rated k times, once per game, so a duplicate ladder makes as many rating updates per
  deal as one without (as in duplicate bridge, where each board is scored against the
  same cards at the other table; for zero-sum scores the two are the same).
  Without duplicate each game is rated by itself.

Scores are the engine's match scores per seat after the game (`Match.seat_scores()`);
higher is better, equal scores tie.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Z95 = 1.959963984540054   # two-sided 95% normal quantile


@dataclass
class GameResult:
    """One played game. key: the GameSpec's key; bots: bot per seat; scores: match score
    per seat after the game (ints); deals: deals played; record: the match record
    (docs/records.md) or None; arena_game / record_path / faults: set by the arena runner."""
    key: str
    bots: tuple[str, ...]
    scores: list[int]
    deals: int
    record: dict | None = None
    arena_game: str | None = None
    record_path: str | None = None
    faults: int = 0


@dataclass
class BotStanding:
    """A bot's line in the standings of one variant. mu, sigma: openskill's rating (mean
    and standard deviation, openskill units: 25 +- 8.33 at the start); games, deals:
    played; wins/draws/losses: games where its team's score was alone on top / shared
    the top / below the top."""
    bot: str
    mu: float
    sigma: float
    games: int = 0
    deals: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% interval mu +- 1.96 sigma."""
        return self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma

    @property
    def win_rate(self) -> float | None:
        """(wins + draws / 2) / decided games; None before any game."""
        n = self.wins + self.draws + self.losses
        return (self.wins + self.draws / 2) / n if n else None

    def to_json(self) -> dict:
        """JSON-ready: every field plus ci95 and win_rate."""
        lo, hi = self.ci95
        return {"bot": self.bot, "mu": self.mu, "sigma": self.sigma, "ci95": [lo, hi],
                "games": self.games, "deals": self.deals, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "win_rate": self.win_rate}


def initial_rating() -> tuple[float, float]:
    """(mu, sigma) of a bot that has not played yet: openskill's defaults (25, 25/3)."""
    from openskill.models import PlackettLuce
    m = PlackettLuce()
    return float(m.mu), float(m.sigma)


def game_teams(partnership: str, side_of, bots, scores) -> tuple[list[tuple[str, ...]], list[float]]:
    """The rated teams of one game and their scores (see the module doc). Returns
    (teams, scores): teams are tuples of bot names, sorted; empty when nothing can be
    rated (one team only)."""
    n = len(bots)
    if partnership == "fixed":
        sides: dict[int, set] = {}
        side_score: dict[int, float] = {}
        for s in range(n):
            sides.setdefault(side_of[s], set()).add(bots[s])
            side_score[side_of[s]] = scores[s]
        on_several = {b for b in set(bots) if sum(b in m for m in sides.values()) > 1}
        teams, out = [], []
        for side in sorted(sides):
            members = tuple(sorted(sides[side] - on_several))
            if members:
                teams.append(members)
                out.append(float(side_score[side]))
    else:
        per: dict[str, list[int]] = {}
        for s in range(n):
            per.setdefault(bots[s], []).append(scores[s])
        teams = [(b,) for b in sorted(per)]
        out = [sum(per[b]) / len(per[b]) for b in sorted(per)]
    if len(teams) < 2:
        return [], []
    return teams, out


def event_outcomes(partnership: str, side_of, games) -> list[tuple[list[tuple[str, ...]], list[float], int]]:
    """The rated outcomes of one event (a list of GameResult) as (teams, scores, times):
    if every game has the same teams (a duplicate set), one outcome with the scores summed
    over the games, to be rated once per game (times = number of games); otherwise one
    outcome per game, rated once."""
    per_game = [game_teams(partnership, side_of, g.bots, g.scores) for g in games]
    per_game = [t for t in per_game if t[0]]
    if not per_game:
        return []
    teams0 = sorted(per_game[0][0])
    if len(per_game) > 1 and all(sorted(t) == teams0 for t, _ in per_game):
        total = {t: 0.0 for t in teams0}
        for teams, sc in per_game:
            for t, x in zip(teams, sc):
                total[t] += x
        return [(teams0, [total[t] for t in teams0], len(per_game))]
    return [(t, sc, 1) for t, sc in per_game]


def ranks_of(scores) -> list[int]:
    """Ranks for openskill: 1 + the number of strictly higher scores (1 is best; ties share)."""
    return [1 + sum(1 for y in scores if y > x) for x in scores]


class Ratings:
    """The standings of one variant, updated event by event.

    ``standings`` maps a bot name to its `BotStanding`. `apply` rates one event and
    updates the counts; `snapshot` copies the lines of some bots (for the store). The
    order of events matters (openskill is sequential): the ladder applies them in plan
    order, so the same games give the same ratings.
    """

    def __init__(self, standings=None):
        from openskill.models import PlackettLuce
        self.model = PlackettLuce()
        self.standings: dict[str, BotStanding] = {}
        for st in standings or ():
            self.standings[st.bot] = st

    def get(self, bot: str) -> BotStanding:
        """The bot's line, created at openskill's starting rating if new."""
        st = self.standings.get(bot)
        if st is None:
            r = self.model.rating()
            st = self.standings[bot] = BotStanding(bot, r.mu, r.sigma)
        return st

    def apply(self, partnership: str, side_of, games) -> list[str]:
        """Rate one event (a list of GameResult, all of one pairing and round) and count its
        games. Returns the names of the bots whose line changed, sorted."""
        touched = set()
        for g in games:
            for b in set(g.bots):
                st = self.get(b)
                st.games += 1
                st.deals += g.deals
                touched.add(b)
            teams, scores = game_teams(partnership, side_of, g.bots, g.scores)
            if teams:
                top = max(scores)
                n_top = sum(1 for x in scores if x == top)
                for t, x in zip(teams, scores):
                    for b in t:
                        st = self.get(b)
                        if x < top:
                            st.losses += 1
                        elif n_top == 1:
                            st.wins += 1
                        else:
                            st.draws += 1
        for teams, scores, times in event_outcomes(partnership, side_of, games):
            ranks = ranks_of(scores)
            for _ in range(times):
                rated = [[self._rating(b) for b in t] for t in teams]
                new = self.model.rate(rated, ranks=ranks)
                for t, rs in zip(teams, new):
                    for b, r in zip(t, rs):
                        st = self.get(b)
                        st.mu, st.sigma = float(r.mu), float(r.sigma)
                        touched.add(b)
        return sorted(touched)

    def _rating(self, bot):
        st = self.get(bot)
        return self.model.rating(mu=st.mu, sigma=st.sigma, name=bot)

    def table(self) -> list[BotStanding]:
        """All lines, best first (by mu, then by name)."""
        return sorted(self.standings.values(), key=lambda s: (-s.mu, s.bot))

    def separated(self, better: str, worse: str) -> bool:
        """Whether the 95% intervals of two bots are apart with ``better`` on top."""
        if better not in self.standings or worse not in self.standings:
            return False
        return self.standings[better].ci95[0] > self.standings[worse].ci95[1]
