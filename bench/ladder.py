"""How many deals a ladder needs to separate two bots, with and without --duplicate.

    python bench/ladder.py                        # heuristic vs random, five variants, 10 seeds
    python bench/ladder.py --variants 29 304 --seeds 20 --game-deals 1

For each variant, each mode (plain, duplicate) and each ladder seed it runs an in-process
round-robin ladder of the two bots (taash.arena.ladder.run_ladder, a temporary SQLite store)
and notes the deals rated when the first bot's 95% interval (mu +- 1.96 sigma) first lies
wholly above the second's and stays there to the end of the ladder (--max-deals). Prints
the median, min and max over the seeds, how many seeds never separated, and the wall time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from taash.arena.ladder import InProcessRunner, LadderSettings, run_ladder  # noqa: E402
from taash.arena.store import open_ladder_store  # noqa: E402


def deals_to_separate(variant, better, worse, seed, duplicate, game_deals, max_deals):
    """Deals rated when ``better`` separates from ``worse`` for good, or None."""
    state = {"at": None}

    def on_event(ratings, event, deals_total):
        if ratings.separated(better, worse):
            if state["at"] is None:
                state["at"] = deals_total
        else:
            state["at"] = None

    with tempfile.TemporaryDirectory() as d:
        store = open_ladder_store(None, d)
        run_ladder(store, InProcessRunner(variant, {better: better, worse: worse}), [better, worse], max_deals,
                   LadderSettings(seed=seed, duplicate=duplicate, game_deals=game_deals), on_event=on_event)
        store.close()
    return state["at"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", nargs="+", default=["56", "28", "29", "304", "304-solo"])
    ap.add_argument("--bots", nargs=2, default=["heuristic", "random"], metavar=("BETTER", "WORSE"))
    ap.add_argument("--seeds", type=int, default=10, help="ladders per variant and mode (default 10)")
    ap.add_argument("--game-deals", type=int, default=4, help="deals per game (default 4)")
    ap.add_argument("--max-deals", type=int, default=480, help="deals per ladder (default 480)")
    args = ap.parse_args(argv)
    better, worse = args.bots
    print(f"deals rated until {better}'s 95% interval lies above {worse}'s for good; "
          f"{args.seeds} ladders each, {args.game_deals} deals a game, at most {args.max_deals} deals")
    print(f"{'variant':>9} {'mode':>10} {'median':>7} {'min':>5} {'max':>5} {'never':>6} {'seconds':>8}")
    for v in args.variants:
        for duplicate in (False, True):
            t0 = time.perf_counter()
            got = [deals_to_separate(v, better, worse, seed, duplicate, args.game_deals, args.max_deals)
                   for seed in range(args.seeds)]
            ok = [x for x in got if x is not None]
            mode = "duplicate" if duplicate else "plain"
            med = f"{statistics.median(ok):.0f}" if ok else "-"
            print(f"{v:>9} {mode:>10} {med:>7} {min(ok) if ok else '-':>5} {max(ok) if ok else '-':>5} "
                  f"{len(got) - len(ok):>6} {time.perf_counter() - t0:>8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
