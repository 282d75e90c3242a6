"""Random legal playouts through the engine's public contract, for every shipped variant,
beside the hand-written 29 of ../shared/bench/ref29.py on the same number of deals.

Usage: python bench/playouts.py [--deals N] [--seed S] [--repeat R] [VARIANT...]
Prints deals/s and decisions/s per variant, the ref29 figures, and the 29 ratio
(interpreted time / ref29 time, each run paired with a ref29 run right after it so both
see the same machine load; the bar is <= 3). Speeds are the best of R runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import State, load_variant, shipped_variants  # noqa: E402

REF29 = ROOT.parent / "shared" / "bench" / "ref29.py"


def run_engine(v, deals: int, seed: int) -> tuple[float, int]:
    """Play ``deals`` random deals; returns (seconds, decisions)."""
    rng = random.Random(seed)
    n = v.players
    decisions = 0
    t0 = time.perf_counter()
    dealer = 0
    for i in range(deals):
        st = State(v, dealer=dealer, seed=rng.random())
        while st.to_act >= 0:
            legal = st.legal_ids()
            st.apply_id(legal[rng.randrange(len(legal))])
            decisions += 1
        dealer = (dealer + 1) % n
    return time.perf_counter() - t0, decisions


def run_ref29(deals: int, seed: int) -> tuple[float, int] | None:
    if not REF29.is_file():
        return None
    spec = importlib.util.spec_from_file_location("ref29", REF29)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = random.Random(seed)
    decisions = 0
    t0 = time.perf_counter()
    dealer = 0
    for _ in range(deals):
        _, d = mod.play_deal(rng, dealer)
        decisions += d
        dealer = (dealer + 1) % 4
    return time.perf_counter() - t0, decisions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("variants", nargs="*")
    a = ap.parse_args(argv)
    names = a.variants or shipped_variants()
    print(f"python {sys.version.split()[0]}, {a.deals} deals per run, best of {a.repeat}")
    print(f"{'variant':32} {'deals/s':>10} {'decisions/s':>12} {'seconds':>8}")
    ratios = []
    ref = []
    for name in names:
        v = load_variant(name)
        runs = []
        for _ in range(a.repeat):
            runs.append(run_engine(v, a.deals, a.seed))
            if name == "29":
                # interleave with ref29 so that both see the same machine load
                r = run_ref29(a.deals, a.seed)
                if r is not None:
                    ref.append(r)
                    ratios.append(runs[-1][0] / r[0])
        dt, dec = min(runs)
        print(f"{name:32} {a.deals / dt:10.0f} {dec / dt:12.0f} {dt:8.3f}")
    if not ref:
        r = run_ref29(a.deals, a.seed)
        if r is None:
            print(f"ref29 not found at {REF29}")
            return 0
        ref.append(r)
    rdt, rdec = min(ref)
    print(f"{'ref29 (hand-written)':32} {a.deals / rdt:10.0f} {rdec / rdt:12.0f} {rdt:8.3f}")
    if ratios:
        ratios.sort()
        print(f"ratio 29 / ref29 = {ratios[len(ratios) // 2]:.2f} (median of {len(ratios)} interleaved "
              f"pairs; best {ratios[0]:.2f}; bar: <= 3.00)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
