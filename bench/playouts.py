"""Random legal playouts through the engine's public contract, for every shipped variant,
beside the hand-written 29 of bench/ref29.py (the speed reference) on the same number of
deals.

Usage: python bench/playouts.py [--deals N] [--seed S] [--repeat R] [--simulate N] [VARIANT...]

Prints, per variant: deals/s and decisions/s of random playouts (on the hot path,
``legal_ids``/``apply_id``; the ``legal_actions``/``apply`` path on Actions for 29 too),
each deal dealt as ref29.py deals, on the same deals (one generator shuffles the deck and
makes the choices; the shuffle is timed; the hands are given to ``State``), and for 29
also from a seed per deal (as a Match deals: a new generator per deal, about 15 us more),
``copy()`` + ``apply()`` per second and ``resample()`` per second at trick 4 (the search
bot's hot path); then the ref29 figures and the 29 ratio (interpreted time / ref29 time,
each run paired with a ref29 run right after it so both see the same machine load; the
median of the pairs; bar: <= 1.5). ``--simulate N`` also times the user's path,
``taash simulate 29 --deals N`` against ``ref29.py N``, per deal with start-up excluded
(a 10-deal run's time is subtracted), as the median of ``--simulate-repeat`` interleaved
pairs (default 3: one pair of runs on a shared machine can be far off). Speeds are the
best of R runs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

import ref29  # noqa: E402
from taash.interpreter import State, load_variant, shipped_variants  # noqa: E402

REF29 = Path(ref29.__file__).resolve()


def run_engine(v, deals: int, seed: int, ids: bool = True, seeded: bool = False) -> tuple[float, int]:
    """Play ``deals`` random deals; returns (seconds, decisions). Each deal is dealt as
    ref29.py deals (the deck shuffled by the one generator that also makes the choices,
    the shuffle timed) and given to ``State`` as hands; ``seeded``: from a seed per deal
    instead (``State(v, seed=...)``, as a Match deals: a new generator per deal).
    ``ids``: on the hot path (``legal_ids``/``apply_id``), else through
    ``legal_actions()``/``apply()`` on Actions."""
    rng = random.Random(seed)
    decisions = 0
    n, k = v.players, v.cards_per_seat
    deck = v.deck.cards()
    t0 = time.perf_counter()
    dealer = 0
    for i in range(deals):
        if seeded:
            st = State(v, dealer=dealer, seed=rng.random())
        else:
            cards = deck[:]
            rng.shuffle(cards)
            st = State(v, dealer=dealer, hands=[cards[j * k:(j + 1) * k] for j in range(n)],
                       widow=cards[n * k:])
        legal_of, apply = (st.legal_ids, st.apply_id) if ids else (st.legal_actions, st.apply)
        while st.to_act >= 0:
            legal = legal_of()
            apply(legal[rng.randrange(len(legal))])
            decisions += 1
        dealer = (dealer + 1) % v.players
    return time.perf_counter() - t0, decisions


def at_trick(v, trick: int, seed: int) -> State:
    """A random deal played on until ``trick`` (1-based) is to be led (or its end)."""
    rng = random.Random(seed)
    while True:
        st = State(v, dealer=rng.randrange(v.players), seed=rng.random())
        while st.to_act >= 0 and not (st.phase == "play" and st.tricks_done == trick - 1
                                      and not st.trick_cards):
            legal = st.legal_ids()
            st.apply_id(legal[rng.randrange(len(legal))])
        if st.to_act >= 0:
            return st


def copy_apply_rate(v, n: int, seed: int) -> float:
    """``copy()`` then one ``apply()`` of a legal action, per second, at trick 4."""
    st = at_trick(v, 4, seed)
    legal = st.legal_actions()
    t0 = time.perf_counter()
    for i in range(n):
        st.copy().apply(legal[i % len(legal)])
    return n / (time.perf_counter() - t0)


def resample_rate(v, n: int, seed: int) -> float | None:
    """``resample(seat, rng)`` per second at trick 4, for the seat to act."""
    if not hasattr(State, "resample"):
        return None
    st = at_trick(v, 4, seed)
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for _ in range(n):
        st.resample(st.to_act, rng)
    return n / (time.perf_counter() - t0)


def simulate_path(deals: int) -> tuple[float, float] | None:
    """Seconds per deal of `taash simulate 29 --deals N` and of `ref29.py N`, each less a
    10-deal run (start-up excluded)."""
    import subprocess
    taash = Path(sys.executable).with_name("taash")
    if not taash.exists():
        return None

    def timed(cmd):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0
    sim = (timed([str(taash), "simulate", "29", "--deals", str(deals), "--seed", "1"])
           - timed([str(taash), "simulate", "29", "--deals", "10", "--seed", "1"])) / (deals - 10)
    ref = (timed([sys.executable, str(REF29), str(deals)])
           - timed([sys.executable, str(REF29), "10"])) / (deals - 10)
    return sim, ref


def run_ref29(deals: int, seed: int) -> tuple[float, int]:
    """bench/ref29.py's ``deals`` deals from ``seed``; returns (seconds, decisions)."""
    return ref29.play_deals(deals, seed)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ops", type=int, default=2000, help="copy+apply and resample calls per variant")
    ap.add_argument("--simulate", type=int, default=0, metavar="N",
                    help="also time `taash simulate 29 --deals N` against `ref29.py N`")
    ap.add_argument("--simulate-repeat", type=int, default=3, metavar="R",
                    help="pairs of --simulate runs (taash simulate, then ref29.py); the median ratio")
    ap.add_argument("variants", nargs="*")
    a = ap.parse_args(argv)
    names = a.variants or shipped_variants()
    print(f"python {sys.version.split()[0]}, {a.deals} deals per run, best of {a.repeat}")
    print(f"{'variant':32} {'deals/s':>10} {'decisions/s':>12} {'copy+apply/s':>13} {'resample/s':>11}")
    ratios = []
    ref = []
    for name in names:
        v = load_variant(name)
        runs = []
        for _ in range(a.repeat):
            runs.append(run_engine(v, a.deals, a.seed))
            if name == "29":
                # interleave with ref29 so that both see the same machine load
                ref.append(run_ref29(a.deals, a.seed))
                ratios.append(runs[-1][0] / ref[-1][0])
        dt, dec = min(runs)
        ca = copy_apply_rate(v, a.ops, a.seed)
        rs = resample_rate(v, max(1, a.ops // 10), a.seed)
        rs_text = f"{rs:11.0f}" if rs is not None else f"{'-':>11}"
        print(f"{name:32} {a.deals / dt:10.0f} {dec / dt:12.0f} {ca:13.0f} {rs_text}")
        if name == "29":
            adt, adec = min(run_engine(v, a.deals, a.seed, ids=False) for _ in range(a.repeat))
            print(f"{'29 (legal_actions/apply)':32} {a.deals / adt:10.0f} {adec / adt:12.0f}")
            sdt, sdec = min(run_engine(v, a.deals, a.seed, seeded=True) for _ in range(a.repeat))
            print(f"{'29 (a seed per deal)':32} {a.deals / sdt:10.0f} {sdec / sdt:12.0f}"
                  f"   ({sdt / dt:.2f}x the time of dealt hands)")
    if not ref:
        ref.append(run_ref29(a.deals, a.seed))
    rdt, rdec = min(ref)
    print(f"{'ref29 (hand-written)':32} {a.deals / rdt:10.0f} {rdec / rdt:12.0f}")
    if ratios:
        ratios.sort()
        print(f"ratio 29 / ref29 = {ratios[len(ratios) // 2]:.2f} (median of {len(ratios)} interleaved "
              f"pairs; best {ratios[0]:.2f}; bar: <= 1.50)")
    if a.simulate:
        pairs = [p for p in (simulate_path(a.simulate) for _ in range(max(1, a.simulate_repeat))) if p]
        if pairs:
            pairs.sort(key=lambda p: p[0] / p[1])
            sim, rf = pairs[len(pairs) // 2]
            print(f"taash simulate 29 --deals {a.simulate}: {sim * 1e6:.1f} us/deal; ref29.py: "
                  f"{rf * 1e6:.1f} us/deal; ratio {sim / rf:.2f} (the median of {len(pairs)} interleaved "
                  f"pairs: {' '.join(f'{s / r:.2f}' for s, r in pairs)}; start-up excluded; bar: <= 1.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
