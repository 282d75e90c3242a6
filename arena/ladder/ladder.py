"""The ladder: plan rounds, play the missing games, rate events in plan order, resume.

`run_ladder` is the whole loop. It is safe to stop at any moment and to run again with
the same arguments: a round is planned once and its plan stored (a round none of whose
games was played is planned again by the next run, with that run's bots); a game is stored with
its record as soon as it ends; an event (`schedule`) is rated when all its games are
stored and every earlier event of the plan is rated, in the same transaction that stores
the new standings. So a rerun plays only the games that are missing, rates each event
exactly once, and the standings do not depend on how many workers played the games or
in which order they ended: same seed, same ladder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from taash.interpreter import TaashError, replay

from ..errors import LadderError
from .ratings import Ratings
from .schedule import ROUND_ROBIN, SCHEDULES, plan_round, pairs_by_rating, pairs_round_robin


@dataclass
class LadderSettings:
    """What fixes a ladder's games, stored at its first run (a rerun must match):
    seed (int), duplicate (bool), game_deals (deals per game, >= 1), schedule
    ("round-robin" or "rating")."""
    seed: int = 0
    duplicate: bool = False
    game_deals: int = 4
    schedule: str = ROUND_ROBIN

    def to_json(self) -> dict:
        """As stored with the ladder: {"seed", "duplicate", "game_deals", "schedule"}."""
        return {"seed": self.seed, "duplicate": self.duplicate, "game_deals": self.game_deals,
                "schedule": self.schedule}

    def describe(self) -> str:
        """The settings as command-line flags."""
        return (f"--seed {self.seed} --game-deals {self.game_deals} --schedule {self.schedule}"
                + (" --duplicate" if self.duplicate else ""))


@dataclass
class RunSummary:
    """What one `run_ladder` call did: games_played (this call), games_total and
    events_total (stored), deals_total (deals in rated games), rounds (planned)."""
    variant: str
    games_played: int = 0
    games_total: int = 0
    events_total: int = 0
    deals_total: int = 0
    rounds: int = 0
    standings: list = field(default_factory=list)


def variant_ref(variant) -> str:
    """The name a record uses for a loaded variant (``"29"``, ``"house/29-double"``, a path)."""
    return variant.ref


def run_ladder(store, runner, bots, deals: int, settings: LadderSettings, workers: int = 1,
               on_event=None) -> RunSummary:
    """Play the ladder of ``runner.variant`` until its planned rounds hold at least
    ``deals`` deals (games x deals per game; whole rounds), resuming what ``store`` has.

    store: a LadderStore; runner: InProcessRunner or ArenaRunner; bots: the bot names of
    rounds planned by this call (at least 2); workers: games played at once;
    on_event(ratings, event, deals_total): called after each rated event.
    Raises LadderError (conflicting settings, unknown bots, a failed game) and
    StoreError; what was stored before stays stored.
    """
    v = runner.variant
    ref = variant_ref(v)
    if settings.schedule not in SCHEDULES:
        raise LadderError(f"unknown schedule {settings.schedule!r}: use {' or '.join(SCHEDULES)}")
    if settings.game_deals < 1:
        raise LadderError("--game-deals must be at least 1")
    if deals < 1:
        raise LadderError("--deals must be at least 1")
    old = store.settings(ref)
    if old is not None and old != settings.to_json():
        was = LadderSettings(**old)
        raise LadderError(f"the {ref} ladder in this store was started with {was.describe()}; rerun with "
                          f"those settings to resume or extend it, or use another --data directory")
    bots = sorted(set(bots))
    if len(bots) < 2:
        raise LadderError(f"a ladder needs at least 2 bots, got {', '.join(bots) or 'none'}")
    runner.check(bots)
    store.save_settings(ref, settings.to_json())

    ratings = Ratings(store.standings(ref))
    rounds = store.rounds(ref)
    done = store.games(ref)
    # rounds planned but not begun (a stopped run, a bot that never came) are planned
    # again with this run's bots; a round begun is finished as planned
    begun = [i for i, r in enumerate(rounds) if any(g.key in done for g in r)]
    keep = begun[-1] + 1 if begun else 0
    if keep < len(rounds):
        store.drop_rounds(ref, keep)
        del rounds[keep:]
    new = sorted(set(bots) - {b for r in rounds for g in r for b in g.bots})
    if rounds and new and sum(g.deals for r in rounds for g in r) >= deals:
        # nothing would be played: the bots asked for would not join
        raise LadderError(f"the {ref} ladder in this store already has its {deals} deals without "
                          f"{', '.join(new)}: give a larger --deals to extend it with them, or use another "
                          "--data directory")
    events = store.events(ref)
    state = {"deals_total": events[-1]["deals_total"] if events else 0,
             "rated": {e["event"] for e in events}, "played": 0}

    def planned() -> int:
        return sum(g.deals for r in rounds for g in r)

    def plan_next() -> None:
        rnd = len(rounds)
        if settings.schedule == ROUND_ROBIN:
            pairs = pairs_round_robin(bots)
        else:
            pairs = pairs_by_rating(bots, lambda b: ratings.get(b).mu)
        games = plan_round(rnd, pairs, ladder_seed=settings.seed, duplicate=settings.duplicate,
                           game_deals=settings.game_deals, players=v.players,
                           partnership=v.partnership, side_of=v.side_of)
        store.save_round(ref, rnd, games)
        rounds.append(games)

    def execute(specs) -> None:
        order: list[tuple[str, list]] = []
        index = {}
        for g in specs:
            if g.event in state["rated"]:
                continue
            if g.event not in index:
                index[g.event] = len(order)
                order.append((g.event, []))
            order[index[g.event]][1].append(g)
        pos = [0]

        def flush():
            while pos[0] < len(order):
                ev, games = order[pos[0]]
                if any(g.key not in done for g in games):
                    return
                results = [done[g.key] for g in games]
                touched = ratings.apply(v.partnership, v.side_of, results)
                state["deals_total"] += sum(r.deals for r in results)
                store.apply_event(ref, ev, [g.key for g in games], state["deals_total"],
                                  [ratings.get(b) for b in touched])
                state["rated"].add(ev)
                pos[0] += 1
                if on_event:
                    on_event(ratings, ev, state["deals_total"])

        flush()
        todo = [g for _, games in order for g in games if g.key not in done]
        if not todo:
            return
        runner.check({b for g in todo for b in g.bots})
        by_key = {g.key: g for g in todo}
        for res in runner.results(todo, workers):
            spec = by_key[res.key]
            store.save_game(ref, spec, res, runner.name)
            done[res.key] = res
            state["played"] += 1
            flush()

    if settings.schedule == ROUND_ROBIN:
        while planned() < deals:
            plan_next()
        execute([g for r in rounds for g in r])
    else:
        for r in rounds:
            execute(r)
        while planned() < deals:
            plan_next()
            execute(rounds[-1])

    return RunSummary(ref, state["played"], len(store.games(ref)), len(state["rated"]),
                      state["deals_total"], len(rounds), ratings.table())


def recompute(store, variant, differ: list | None = None) -> Ratings:
    """The standings computed again from the stored records: every rated event, in the
    order it was rated, from its games' records replayed by the engine (the stored
    scores where a game has no record). Compare with ``store.standings(ref)``.
    ``differ``: a list to which a line is added for each game whose stored scores are not
    what its record replays to. Raises LadderError naming the game whose record does not
    replay."""
    ref = variant_ref(variant)
    games = store.games(ref, records=True)
    ratings = Ratings()
    for ev in store.events(ref):
        results = []
        for key in ev["games"]:
            g = games[key]
            if g.record is not None:
                try:
                    m = replay(g.record, variant)
                except TaashError as e:
                    raise LadderError(f"{ref} game {key}: its record does not replay: {e}") from None
                scores = m.seat_scores()
                if differ is not None and list(scores) != list(g.scores):
                    differ.append(f"{ref} game {key}: stored scores {list(g.scores)}, its record replays "
                                  f"to {list(scores)}")
                g = type(g)(g.key, g.bots, scores, len(m.deals), g.record)
            results.append(g)
        ratings.apply(variant.partnership, variant.side_of, results)
    return ratings
