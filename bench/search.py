"""Benchmark of the search bots (arena/bots/search.py, arena/bots/ismcts.py): speed and
the strength curve per time budget.

    python bench/search.py [--variants 56,28,29,304,304-solo] [--budgets 10,50,200,800]
                           [--opponents heuristic,ismcts] [--points 12] [--deals 8]
                           [--no-strength] [--json] [--kernel wait|off|both]

Speed: at ``--points`` decision points per variant (states reached by heuristic play,
every phase: bids, trump, exchanges, calls, plays; forced decisions left out), one
decision of each in-process search bot (``decide_state``) per point and budget: for
``search`` decisions per second, playouts (rollouts) and worlds (resampled deals) per
decision, playouts per second and the longest decision (the budget is a bound: a
decision stops between two rollouts); for ``ismcts`` its iterations (one world, one
path down its tree and one rollout each) per decision and per second. ``--kernel``: the
bots' ``kernel`` setting (default: the bots' own, the compiled kernel made in the
background with the fast extra; ``wait``: made before the first decision, in speed and
strength alike; ``off``: the Python engine only; ``both``: speed as ``wait``, and each
strength pair played with the kernel and then on the engine, deal by deal in turn so that
both see the machine's same load, with the paired difference of their margins).

Strength (the curve): at each budget, duplicate deals of the search bot against each
opponent of ``--opponents`` (``heuristic``; ``ismcts`` at the same budget): each deal is
played twice with the same cards, the search bot holding one side and then the other
(seat 0 and then seat 1 where each seat is its own side), and the result is the search
side's score change less the opponent side's, summed over the pair; the mean per pair
with a 95% normal interval. Decisions go through ``decide`` (the observation: the arena
path, as the ladder plays it). On 2 shared cores keep ``--deals`` modest: a pair at
800 ms takes minutes.
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
from taash.arena.bots.ismcts import ISMCTSBot  # noqa: E402
from taash.arena.bots.search import SearchBot  # noqa: E402
from taash.interpreter import Match, State, load_variant  # noqa: E402
from taash.kernel import kernel_for  # noqa: E402


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


def speed(v, budgets, points, kernel=None):
    """{budget: {decisions_per_s, playouts, worlds, playouts_per_s, max_ms,
    ismcts_iterations, ismcts_iterations_per_s}} over ``points`` states; ``kernel``: the
    bots' setting (True: the kernel made before the first decision)."""
    sts = decision_points(v, points)
    if kernel is True:
        kernel_for(v, quiet=True)
    out = {}
    for ms in budgets:
        bot = SearchBot(v, seed=0, budget_ms=ms, kernel=kernel)
        walls, po, wo = [], [], []
        for st in sts:
            t0 = time.perf_counter()
            bot.decide_state(st, st.to_act)
            walls.append(time.perf_counter() - t0)
            po.append(bot.stats["playouts"])
            wo.append(bot.stats["worlds"])
        tree = ISMCTSBot(v, seed=0, budget_ms=ms, kernel=kernel)
        iwalls, it = [], []
        for st in sts:
            t0 = time.perf_counter()
            tree.decide_state(st, st.to_act)
            iwalls.append(time.perf_counter() - t0)
            it.append(tree.stats["iterations"])
        out[ms] = {"decisions_per_s": round(len(walls) / sum(walls), 1),
                   "playouts": round(statistics.mean(po), 1), "worlds": round(statistics.mean(wo), 1),
                   "playouts_per_s": round(sum(po) / sum(walls)), "max_ms": round(max(walls) * 1000, 1),
                   "ismcts_iterations": round(statistics.mean(it), 1),
                   "ismcts_iterations_per_s": round(sum(it) / sum(iwalls))}
    return out


def search_side(v, seat, first):
    """Is ``seat`` the search bot's in the play where the search bot sits at ``first``?"""
    if v.partnership == "fixed":
        return v.side_of[seat] == v.side_of[first]
    return seat == first


OPPONENTS = ("heuristic", "ismcts")


def opponent_bot(v, name, budget, seed, kernel=None):
    """The opponent ``name`` (one of OPPONENTS) for ``v``: ismcts at ``budget`` ms (its
    ``kernel`` setting given)."""
    if name == "heuristic":
        return heuristic_bot(v)
    if name == "ismcts":
        return ISMCTSBot(v, seed=seed, budget_ms=budget, kernel=kernel)
    raise ValueError(f"unknown opponent {name!r}: one of {', '.join(OPPONENTS)}")


def _pair(v, d, budget, opponent, kernel, seed):
    """The duplicate pair of deal ``seed + d``: the search side's net (its mean score change
    less the other side's, summed over the two plays)."""
    base = Match(v, seed=seed + d).new_deal()
    text = v.deck.text
    hands = [[text[c] for c in h] for h in base.dealt]
    widow = [text[c] for c in base.widow] or None
    net = 0
    for first in (0, 1):
        st = State(v, dealer=base.dealer, hands=hands, widow=widow, scores=base.scores)
        s_bot = SearchBot(v, seed=d, budget_ms=budget, kernel=kernel)
        o_bot = opponent_bot(v, opponent, budget, d, kernel)
        while not st.is_terminal:
            s = st.to_act
            obs, legal = st.observation(s), [str(a) for a in st.legal_actions()]
            bot = s_bot if search_side(v, s, first) else o_bot
            st.apply(bot.decide(obs, legal))
        sc = st.score_change()
        mine = [sc[s] for s in range(v.players) if search_side(v, s, first)]
        theirs = [sc[s] for s in range(v.players) if not search_side(v, s, first)]
        net += statistics.mean(mine) - statistics.mean(theirs)
    return net


def _interval(xs):
    """(mean, half-width of the normal 95% interval) of ``xs``, rounded."""
    mean = statistics.mean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return round(mean, 3), round(half, 3)


def strength(v, budget, deals, seed=100, opponent="heuristic", kernel=None):
    """Duplicate pairs of the search bot against ``opponent`` (OPPONENTS) at ``budget``
    ms, the bots' ``kernel`` setting given: (mean per pair, half-width of the 95%
    interval, pairs, wall seconds)."""
    if kernel is True:
        kernel_for(v, quiet=True)
    t0 = time.perf_counter()
    nets = [_pair(v, d, budget, opponent, kernel, seed) for d in range(deals)]
    mean, half = _interval(nets)
    return mean, half, len(nets), round(time.perf_counter() - t0, 1)


def strength_both(v, budget, deals, seed=100, opponent="heuristic"):
    """`strength` with the kernel (made first) and on the engine, deal by deal in turn so
    that both see the same load: {"kernel": (mean, half), "engine": (mean, half),
    "difference": (mean, half) of the paired differences kernel - engine, "pairs",
    "wall_s"}."""
    kernel_for(v, quiet=True)
    t0 = time.perf_counter()
    on, off = [], []
    for d in range(deals):
        on.append(_pair(v, d, budget, opponent, True, seed))
        off.append(_pair(v, d, budget, opponent, False, seed))
    return {"kernel": _interval(on), "engine": _interval(off),
            "difference": _interval([a - b for a, b in zip(on, off)]), "pairs": deals,
            "wall_s": round(time.perf_counter() - t0, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="56,28,29,304,304-solo")
    ap.add_argument("--budgets", default="10,50,200,800", help="ms per decision, comma-separated")
    ap.add_argument("--opponents", default=",".join(OPPONENTS),
                    help="the search bot's opponents in the strength curve, comma-separated "
                         f"(of {', '.join(OPPONENTS)}; default both)")
    ap.add_argument("--points", type=int, default=12, help="decision points per variant for speed")
    ap.add_argument("--deals", type=int, default=8, help="duplicate pairs per variant, budget and opponent")
    ap.add_argument("--no-strength", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--kernel", choices=("wait", "off", "both"),
                    help="the bots' compiled kernel: made before the first decision, or not used "
                         "(default: the bots' own, made in the background with the fast extra); "
                         "both: the strength curve with the kernel and on the engine, deal by deal "
                         "in turn, and their paired difference")
    args = ap.parse_args(argv)
    kernel = {"wait": True, "off": False, "both": True}.get(args.kernel)
    try:
        budgets = [int(x) for x in args.budgets.split(",")]
    except ValueError:
        ap.error(f"--budgets: whole numbers of ms, comma-separated, not {args.budgets!r}")
    opponents = [x.strip() for x in args.opponents.split(",") if x.strip()]
    for o in opponents:
        if o not in OPPONENTS:
            ap.error(f"--opponents: {o!r} is not one of {', '.join(OPPONENTS)}")
    report = {}
    for name in [x.strip() for x in args.variants.split(",") if x.strip()]:
        v = load_variant(name)
        r = report[name] = {"speed": speed(v, budgets, args.points, kernel)}
        if not args.json:
            for ms, s in r["speed"].items():
                print(f"{name:9} {ms:4d} ms: search {s['decisions_per_s']:6.1f} decisions/s, "
                      f"{s['playouts']:7.1f} playouts and {s['worlds']:6.1f} worlds per decision ({s['playouts_per_s']} playouts/s), "
                      f"longest {s['max_ms']} ms; ismcts {s['ismcts_iterations']:7.1f} iterations per decision "
                      f"({s['ismcts_iterations_per_s']}/s)", flush=True)
        if not args.no_strength:
            r["strength"] = {o: {} for o in opponents}
            for ms in budgets:
                for o in opponents:
                    if args.kernel == "both":
                        b = r["strength"][o][ms] = strength_both(v, ms, args.deals, opponent=o)
                        if not args.json:
                            (km, kh), (em, eh), (dm, dh) = b["kernel"], b["engine"], b["difference"]
                            print(f"{name:9} {ms:4d} ms: search - {o} = {km:+.2f} ± {kh:.2f} with the kernel, "
                                  f"{em:+.2f} ± {eh:.2f} on the engine; kernel - engine {dm:+.2f} ± {dh:.2f} "
                                  f"per duplicate pair ({b['pairs']} pairs, {b['wall_s']} s)", flush=True)
                        continue
                    mean, half, n, wall = strength(v, ms, args.deals, opponent=o, kernel=kernel)
                    r["strength"][o][ms] = {"net_per_pair": mean, "ci95": half, "pairs": n, "wall_s": wall}
                    if not args.json:
                        print(f"{name:9} {ms:4d} ms: search - {o} = {mean:+.2f} ± {half:.2f} per duplicate pair "
                              f"({n} pairs, {wall} s)", flush=True)
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
