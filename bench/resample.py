"""resample() per second at trick 4 (interpreter/information.py; `playout.bench_resample`).

Usage: python bench/resample.py [-n N] [VARIANT...]   (default: 29 28 304 56)
Prints, per variant, ``warm`` (one state resampled N times for the seat to act, as a
search bot does: the model of the state is cached), ``cold`` (the model built anew each
call) and the number of unseen cards.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from taash.interpreter.playout import bench_resample  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000, help="resamples per variant (warm)")
    ap.add_argument("variants", nargs="*", default=["29", "28", "304", "56"])
    args = ap.parse_args(argv)
    for name in args.variants:
        r = bench_resample(name, args.n)
        print(f"{r['variant']:>28}  warm {r['warm']:>6}/s  cold {r['cold']:>5}/s  "
              f"unseen {r['unseen']}")


if __name__ == "__main__":
    main()
