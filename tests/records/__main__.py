"""python -m tests.records: write the records of `CORPUS` that are missing, with the
`taash replay --json` output of the engine installed now (see tests/records/__init__.py)."""

import subprocess
import sys
from pathlib import Path

from tests.records import CORPUS, expected_path, record_path

TAASH = [sys.executable, "-m", "taash.arena.cli"]


def main() -> int:
    for name, seed, how in CORPUS:
        rec, exp = record_path(name, seed), expected_path(name, seed)
        if rec.exists():
            continue
        rec.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([*TAASH, "simulate", name, "--seed", str(seed), *how, "--record", str(rec)],
                       check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run([*TAASH, "replay", str(rec), "--json"], check=True, capture_output=True,
                             text=True).stdout
        exp.write_text(out)
        print(f"wrote {rec} and {exp.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
