"""Benchmark of the search bot (arena/bots/search.py): speed and strength per time budget.

    python bench/search.py [--variants 56,28,29,304,304-solo] [--budgets 10,50,200]
                           [--points 12] [--deals 8] [--no-strength] [--json]

Speed: at ``--points`` decision points per variant (states reached by heuristic play,
every phase: bids, trump, exchanges, calls, plays; forced decisions left out), one
decision of the in-process bot (``decide_state``) per point and budget: decisions per
second, playouts (rollouts) and worlds (resampled deals) per decision, and the longest
decision (the budget is a bound: a decision stops between two rollouts).

Strength: duplicate deals against the heuristic bot at each budget: each deal is played
twice with the same cards, the search bot holding one side and then the other
(seat 0 and then seat 1 where each seat is its own side), and the result is the search
side's score change less the heuristic side's, summed over the pair; the mean per pair
with a 95% normal interval. Decisions go through ``decide`` (the observation: the arena
path, as the ladder plays it). On 2 shared cores keep ``--deals`` modest.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from taash.arena.bots.heuristic import heuristic_bot  # noqa: E402
from taash.arena.bots.search import SearchBot  # noqa: E402
from taash.interpreter import Match, State, load_variant  # noqa: E402


def decision_points(v, count, seed=1):
    """``count`` states with a real choice for the seat to act, reached by heuristic play
    from seeded deals, spread over the deal."""
    rng = random.Random(seed)
    h = heuristic_bot(v)
    out = []
    k = 0
    while len(out) < count:
        st = Match(v, seed * 1000 + k).new_deal()
        k += 1
        stop = rng.randrange(len(out) % 3 * v.tricks * v.players // 3 + 1, v.tricks * v.players + 6)
        while not st.is_terminal and len(st.history) < stop:
            st.apply(h.decide(st.observation(st.to_act), st.legal_actions()))
        if not st.is_terminal and len(st.legal_ids()) > 1:
            out.append(st)
    return out


def speed(v, budgets, points):
    """{budget: {decisions_per_s, playouts, worlds, max_ms}} over ``points`` states."""
    sts = decision_points(v, points)
    out = {}
    for ms in budgets:
        bot = SearchBot(v, seed=0, budget_ms=ms)
        walls, po, wo = [], [], []
        for st in sts:
            t0 = time.perf_counter()
            bot.decide_state(st, st.to_act)
            walls.append(time.perf_counter() - t0)
            po.append(bot.stats["playouts"])
            wo.append(bot.stats["worlds"])
        out[ms] = {"decisions_per_s": round(len(walls) / sum(walls), 1),
                   "playouts": round(statistics.mean(po), 1), "worlds": round(statistics.mean(wo), 1),
                   "max_ms": round(max(walls) * 1000, 1)}
    return out


def search_side(v, seat, first):
    """Is ``seat`` the search bot's in the play where the search bot sits at ``first``?"""
    if v.partnership == "fixed":
        return v.side_of[seat] == v.side_of[first]
    return seat == first


def strength(v, budget, deals, seed=100):
    """Duplicate pairs against heuristic at ``budget`` ms: (mean per pair, half-width of
    the 95% interval, pairs, wall seconds)."""
    t0 = time.perf_counter()
    nets = []
    for d in range(deals):
        base = Match(v, seed=seed + d).new_deal()
        text = v.deck.text
        hands = [[text[c] for c in h] for h in base.dealt]
        widow = [text[c] for c in base.widow] or None
        net = 0
        for first in (0, 1):
            st = State(v, dealer=base.dealer, hands=hands, widow=widow, scores=base.scores)
            s_bot, h_bot = SearchBot(v, seed=d, budget_ms=budget), heuristic_bot(v)
            while not st.is_terminal:
                s = st.to_act
                obs, legal = st.observation(s), [str(a) for a in st.legal_actions()]
                bot = s_bot if search_side(v, s, first) else h_bot
                st.apply(bot.decide(obs, legal))
            sc = st.score_change()
            mine = [sc[s] for s in range(v.players) if search_side(v, s, first)]
            theirs = [sc[s] for s in range(v.players) if not search_side(v, s, first)]
            net += statistics.mean(mine) - statistics.mean(theirs)
        nets.append(net)
    mean = statistics.mean(nets)
    half = 1.96 * statistics.stdev(nets) / math.sqrt(len(nets)) if len(nets) > 1 else float("nan")
    return round(mean, 3), round(half, 3), len(nets), round(time.perf_counter() - t0, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="56,28,29,304,304-solo")
    ap.add_argument("--budgets", default="10,50,200", help="ms per decision, comma-separated")
    ap.add_argument("--points", type=int, default=12, help="decision points per variant for speed")
    ap.add_argument("--deals", type=int, default=8, help="duplicate pairs per variant and budget")
    ap.add_argument("--no-strength", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    budgets = [int(x) for x in args.budgets.split(",")]
    report = {}
    for name in [x.strip() for x in args.variants.split(",") if x.strip()]:
        v = load_variant(name)
        r = report[name] = {"speed": speed(v, budgets, args.points)}
        if not args.json:
            for ms, s in r["speed"].items():
                print(f"{name:9} {ms:4d} ms: {s['decisions_per_s']:6.1f} decisions/s, {s['playouts']:7.1f} playouts "
                      f"and {s['worlds']:6.1f} worlds per decision, longest {s['max_ms']} ms", flush=True)
        if not args.no_strength:
            r["strength"] = {}
            for ms in budgets:
                mean, half, n, wall = strength(v, ms, args.deals)
                r["strength"][ms] = {"net_per_pair": mean, "ci95": half, "pairs": n, "wall_s": wall}
                if not args.json:
                    print(f"{name:9} {ms:4d} ms: search - heuristic = {mean:+.2f} ± {half:.2f} per duplicate pair "
                          f"({n} pairs, {wall} s)", flush=True)
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
