"""The cost of a deal of 29 random playouts, engine beside bench/ref29.py (the speed
reference), counted by valgrind's callgrind with its cache and branch simulation:
figures that do not move with the machine's load (the timing benchmarks do, by 10% and
more on shared cores), for comparing two versions of the engine.

    python bench/callgrind.py [--deals 300]

Each side runs ``--deals`` deals and 0 deals under callgrind (PYTHONHASHSEED=0); the
difference, divided by the deals, is the cost of a deal without start-up. Printed per
deal: instructions (Ir), L1 data misses (D1), conditional and indirect branch
mispredictions (Bcm, Bim), and an estimate of cycles, Ir/3 + 17 (Bcm + Bim) + 5 D1: a
rough model of a current x86 core, which put the engine at 1.54x ref29 when
bench/playouts.py measured 1.54x. Most of the engine's extra cost is mispredicted
dispatch of the interpreter's bytecodes: it goes with the number of bytecodes run and
of Python calls made, more than with instructions. Callgrind's simulated machine is not
the real one; address-space layout moves a figure by about 1% between runs. Needs
valgrind (Debian's package).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")


def counts(side: str, deals: int) -> dict[str, int]:
    """callgrind's totals for one run of ``side`` ("engine" or "ref29") over ``deals`` deals."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
             f"--callgrind-out-file={tmp}/out", sys.executable, __file__, "--role", side, str(deals)],
            capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"), check=True)
    m = re.search(r"Collected : ([\d ]+)", out.stderr)
    if m is None:
        raise SystemExit(f"no totals from callgrind:\n{out.stderr[-2000:]}")
    return dict(zip(EVENTS, map(int, m.group(1).split())))


def per_deal(side: str, deals: int) -> dict[str, float]:
    a, b = counts(side, deals), counts(side, 0)
    d = {k: (a[k] - b[k]) / deals for k in EVENTS}
    d["D1"] = d["D1mr"] + d["D1mw"]
    d["cycles"] = d["Ir"] / 3 + 17 * (d["Bcm"] + d["Bim"]) + 5 * d["D1"]
    return d


def role(side: str, deals: int) -> None:
    """What runs under callgrind: the random playouts of bench/playouts.py."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    import playouts
    from taash.interpreter import load_variant
    if side == "engine":
        v = load_variant("29")
        playouts.run_engine(v, 5, 1)    # the same warm-up in both runs
        if deals:
            playouts.run_engine(v, deals, 1)
    elif deals:
        playouts.run_ref29(deals, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--role", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.role:
        role(a.role[0], int(a.role[1]))
        return 0
    if shutil.which("valgrind") is None:
        print("bench/callgrind.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 1
    if a.deals < 1:
        ap.error("--deals must be at least 1")
    rows = {side: per_deal(side, a.deals) for side in ("engine", "ref29")}
    print(f"29 random playouts, per deal ({a.deals} deals less 0, under callgrind)")
    print(f"{'':8} {'Ir':>9} {'D1':>7} {'Bcm':>7} {'Bim':>7} {'cycles*':>9}")
    for side, d in rows.items():
        print(f"{side:8} {d['Ir']:9.0f} {d['D1']:7.0f} {d['Bcm']:7.0f} {d['Bim']:7.0f} {d['cycles']:9.0f}")
    e, r = rows["engine"], rows["ref29"]
    print(f"{'ratio':8} {e['Ir'] / r['Ir']:9.2f} {e['D1'] / r['D1']:7.2f} {e['Bcm'] / r['Bcm']:7.2f} "
          f"{e['Bim'] / r['Bim']:7.2f} {e['cycles'] / r['cycles']:9.2f}")
    print("* Ir/3 + 17 (Bcm + Bim) + 5 D1: a rough model, not a measurement")
    return 0


if __name__ == "__main__":
    sys.exit(main())
