"""python -m tests.playthroughs [--update] [--redeal] [VARIANT ...]

Without --update: compare each golden playthrough with what the engine plays now, print a
unified diff per mismatch, exit 1 if any. --update: rewrite the files (each keeps the deal
of its header; with --redeal, a fresh first deal of Match(variant, SEED) instead)."""

import argparse
import sys

from interpreter import shipped_variants

from tests.playthroughs import path_for, diff, update


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.playthroughs", description=__doc__.split("\n\n")[1])
    ap.add_argument("--update", action="store_true", help="rewrite the files from the engine")
    ap.add_argument("--redeal", action="store_true", help="with --update: draw the deals anew")
    ap.add_argument("variants", nargs="*", help="shipped variant names (default: all)")
    args = ap.parse_args(argv)
    names = args.variants or shipped_variants()
    if args.update:
        if args.redeal:
            for n in names:
                path_for(n).unlink(missing_ok=True)
        for p in update(names):
            print(f"wrote {p}")
        return 0
    bad = 0
    for n in names:
        p = path_for(n)
        if not p.exists():
            print(f"{n}: no playthrough file {p} (run with --update)")
            bad += 1
            continue
        d = diff(p)
        if d:
            print(d)
            bad += 1
    print(f"{len(names) - bad} of {len(names)} playthroughs agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
