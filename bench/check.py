"""How long `taash check` takes: loading every shipped variant, and checking rules that are
broken throughout (the worst case of the parser's error recovery and of collecting every
problem of a rule).

    python bench/check.py              # 3 rounds
    python bench/check.py --rounds 10

Prints, per case, the mean time in milliseconds and the problems found. Needs nothing but
the project's venv.
"""

from __future__ import annotations

import argparse
import random
import time

from taash.interpreter import load_variant, shipped_variants
from taash.interpreter.dsl import MAX_RULE_CHARS, Compiler, DSLError


def broken_rules() -> dict[str, str]:
    """Rules of about MAX_RULE_CHARS characters, each broken all along."""
    n = MAX_RULE_CHARS - 10
    rng = random.Random(1)
    return {
        "a bad character every 2": "$ " * (n // 2),
        "unbalanced parentheses": ") ( " * (n // 4),
        "'=' everywhere": "= " * (n // 2),
        "30 misspelt names": " and ".join(["trmp == led", "lead == me"] * 15),
        "random characters": "".join(rng.choice('ab()=+-*,;:"x1 ') for _ in range(n)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    names = shipped_variants()
    t = time.perf_counter()
    for _ in range(args.rounds):
        for name in names:
            load_variant(name)
    ms = (time.perf_counter() - t) / args.rounds / len(names) * 1000
    print(f"{'load a shipped variant (mean of ' + str(len(names)) + ')':40} {ms:9.1f} ms")
    deck = load_variant("29").deck
    for label, text in broken_rules().items():
        for kind, hook in (("condition", "auction.may_pass"), ("effect", "play.after_trick")):
            t = time.perf_counter()
            found = 0
            for _ in range(args.rounds):
                try:
                    Compiler(deck, 4, 8, 15, 28).add(hook, text, kind)
                except DSLError as e:
                    found = len(e.errors)
            ms = (time.perf_counter() - t) / args.rounds * 1000
            print(f"{label + ' (' + kind + ')':40} {ms:9.1f} ms  {found} problems")


if __name__ == "__main__":
    main()
