"""resample() per second at trick 4 (interpreter/information.py; `playout.bench_resample`).

Usage: python bench/resample.py [-n N] [--kernel] [VARIANT...]   (default: 29 28 304 56)
Prints, per variant, ``warm`` (one state resampled N times for the seat to act, as a
search bot does: the model of the state is cached), ``cold`` (the model built anew each
call) and the number of unseen cards.

With ``--kernel`` (the ``fast`` extra), also the same states' worlds drawn on the kernel
(kernel/worlds.py, ``Kernel.worlds(state, seat).sample(rng)``: the same worlds as
``resample`` from the same generator) beside what the search bots did before it, a
``resample`` and then the world's array (``Kernel.state``), each run right after the
other on every state; worlds a second (wall clock, best of three) and their ratio, and
the path the kernel took (``fast``: the array at the first lead patched with the
proposal's cards; ``replay``: the history before the play replayed on the engine; or why
the engine draws them).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from taash.interpreter import load_variant  # noqa: E402
from taash.interpreter.playout import bench_resample, resample_points  # noqa: E402


def kernel_worlds(name: str, n: int) -> str:
    """The figures of ``--kernel`` for variant ``name``: one line."""
    from taash.kernel import Unsupported, kernel_for, why_not
    v = load_variant(name)
    k = kernel_for(v)
    if k is None:
        return f"{name:>28}  kernel: {why_not(v)}"
    points = resample_points(v)
    try:
        ws = [k.worlds(st, seat) for st, seat in points]
    except Unsupported as e:
        return f"{v.name:>28}  kernel: {e}"
    per = max(1, n // len(points))
    best_old = best_new = float("inf")
    for _ in range(3):
        r = random.Random(1)
        t0 = time.perf_counter()
        for st, seat in points:
            for _ in range(per):
                k.state(st.resample(seat, r))
        t1 = time.perf_counter()
        for w in ws:
            for _ in range(per):
                w.sample(r)
        t2 = time.perf_counter()
        best_old, best_new = min(best_old, t1 - t0), min(best_new, t2 - t1)
    total = per * len(points)
    path = "fast" if all(w.blind for w in ws) else "replay"
    return (f"{v.name:>28}  resample+state {total / best_old:>6.0f}/s  kernel worlds {total / best_new:>6.0f}/s  "
            f"{best_old / best_new:4.1f}x  ({path})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000, help="resamples per variant (warm)")
    ap.add_argument("--kernel", action="store_true", help="also the worlds drawn on the kernel")
    ap.add_argument("variants", nargs="*", default=["29", "28", "304", "56"])
    args = ap.parse_args(argv)
    for name in args.variants:
        r = bench_resample(name, args.n)
        print(f"{r['variant']:>28}  warm {r['warm']:>6}/s  cold {r['cold']:>5}/s  "
              f"unseen {r['unseen']}")
    if args.kernel:
        for name in args.variants:
            print(kernel_worlds(name, args.n))


if __name__ == "__main__":
    main()
