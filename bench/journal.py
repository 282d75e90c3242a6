"""The cost of the arena's journal (arena/server/persist.py): one SQLite row per finished
deal, written on the event loop, so that a killed arena loses no finished deal.

    python bench/journal.py [--variant 29] [--deals 2000]

Plays --deals deals of the variant in process (random legal actions), then times
`SQLiteStore.journal` on each deal's real journal entry (cards, actions, times) in a
fresh data directory, as the arena writes it (autocommit, WAL, synchronous=NORMAL).
Prints microseconds per deal and per action of the deals.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from taash.arena.store import SQLiteStore  # noqa: E402
from taash.interpreter import Match, load_variant  # noqa: E402


def entries(variant: str, deals: int) -> list[dict]:
    """Journal entries of ``deals`` deals played with random legal actions."""
    v = load_variant(variant)
    text = v.deck.text
    rng = random.Random(1)
    out = []
    seed = 0
    while len(out) < deals:
        m = Match(v, seed)
        seed += 1
        while not m.over and len(out) < deals:
            st = m.new_deal()
            while not st.is_terminal:
                st.apply(rng.choice(st.legal_actions()))
            m.finish_deal(st)
            n = len(st.actions())
            out.append({"dealer": st.dealer, "hands": [[text[c] for c in h] for h in st.dealt],
                        "widow": [text[c] for c in st.widow], "actions": st.actions(),
                        "t_ms": list(range(0, 3 * n, 3)), "by_default": [], "verdicts": []})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="29")
    ap.add_argument("--deals", type=int, default=2000)
    args = ap.parse_args()
    es = entries(args.variant, args.deals)
    with tempfile.TemporaryDirectory() as d:
        store = SQLiteStore(d)
        times = []
        for i, e in enumerate(es):
            t = time.perf_counter()
            store.journal(f"g{i // 20:06d}", i % 20 + 1, e)
            times.append(time.perf_counter() - t)
        store.close()
    actions = sum(len(e["actions"]) for e in es)
    size = statistics.mean(len(json.dumps(e, separators=(",", ":"))) for e in es)
    print(f"{args.variant}: {len(es)} deals, {actions / len(es):.1f} actions and {size:.0f} bytes of journal per deal")
    print(f"journal write: mean {statistics.mean(times) * 1e6:.0f} us, p99 "
          f"{sorted(times)[int(len(times) * 0.99)] * 1e6:.0f} us per deal; "
          f"{sum(times) / actions * 1e6:.1f} us per action")


if __name__ == "__main__":
    main()
