"""The heuristic bot's auction (arena/bots/heuristic.py): its contracts and what a setting
of its estimate is worth.

    python bench/heuristic.py [--variants 56,29,28,304,304-solo] [--deals 400]
                              [--partners 1 --against all]

Contracts: heuristic self-play over ``--deals`` seeded deals per variant: contracts
declared, the share made, the mean final bid.

Duplicate: each seeded deal is played twice with the same cards, the heuristic with
``partners = --partners`` holding one side and then the other against the heuristic with
``partners = --against`` (how many partners' hands its auction estimate counts as
average; "all" counts every partner); the result is the first side's score change less
the other's, summed over the pair; the mean per pair with a 95% normal interval.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from taash.arena.bots.heuristic import heuristic_bot  # noqa: E402
from taash.interpreter import Match, State, load_variant  # noqa: E402


def _partners(text):
    return None if text == "all" else int(text)


def contracts(v, deals, partners):
    """(contracts declared, share made, mean final bid) in heuristic self-play."""
    bot = heuristic_bot(v, partners=partners)
    made, bids = 0, []
    for k in range(deals):
        st = Match(v, k).new_deal()
        while not st.is_terminal:
            st.apply(bot.decide(st.observation(st.to_act), [str(x) for x in st.legal_actions()]))
        if st.declarer >= 0:
            bids.append(st.bid)
            made += bool(st.result().get("made"))
    return len(bids), made / max(1, len(bids)), statistics.mean(bids) if bids else float("nan")


def duplicate(v, deals, first, second, seed=5000):
    """(mean per pair, half-width of the 95% interval): heuristic(partners=first) against
    heuristic(partners=second)."""
    def ours(s, at):
        return v.side_of[s] == v.side_of[at] if v.partnership == "fixed" else s == at
    nets = []
    for d in range(deals):
        base = Match(v, seed=seed + d).new_deal()
        net = 0.0
        for at in (0, 1):
            st = State(v, dealer=base.dealer, hands=base.dealt, widow=base.widow or None, scores=base.scores)
            a, b = heuristic_bot(v, partners=first), heuristic_bot(v, partners=second)
            while not st.is_terminal:
                s = st.to_act
                bot = a if ours(s, at) else b
                st.apply(bot.decide(st.observation(s), [str(x) for x in st.legal_actions()]))
            sc = st.score_change()
            net += statistics.mean(sc[s] for s in range(v.players) if ours(s, at)) - \
                statistics.mean(sc[s] for s in range(v.players) if not ours(s, at))
        nets.append(net)
    return statistics.mean(nets), 1.96 * statistics.stdev(nets) / math.sqrt(len(nets))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="56,29,28,304,304-solo")
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--partners", type=_partners, default=1, help="partners counted by the first bot (default 1)")
    ap.add_argument("--against", type=_partners, default=None, help="partners counted by the second (default all)")
    args = ap.parse_args(argv)
    for name in [x.strip() for x in args.variants.split(",") if x.strip()]:
        v = load_variant(name)
        t0 = time.perf_counter()
        n, share, bid = contracts(v, args.deals, args.partners)
        mean, half = duplicate(v, args.deals, args.partners, args.against)
        print(f"{name:9} contracts {n}, made {share:.0%}, mean bid {bid:.1f}; partners {args.partners} against "
              f"{'all' if args.against is None else args.against}: {mean:+.3f} ± {half:.3f} a duplicate pair "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
