"""A corpus of old records: records written by the engine at main 893837c (before the
engine was rewritten), each with the `taash replay --json` output of that engine
beside it. tests/engine/test_records.py replays each with the current engine and
requires the same output: every record the old engine wrote replays to the same result.

``<variant>-s<seed>.json`` is the record of
``taash simulate <variant> --seed <seed> (--matches M | --deals N) --record FILE``,
``<variant>-s<seed>.replay.json`` is ``taash replay FILE --json`` of it, both as written
then (``house/`` variants under house/). Matches that run long under random play (the 29
family) are cut after a few deals (``--deals``); the 56 family plays one deal per match
here, so two matches (seeds 1 and 2).

The corpus is history: never regenerate a file that exists. To add records (a new
variant, a new record format) run ``python -m tests.records``: it writes only the ones
missing from `CORPUS`. Note that a record names its variant's sha256 (the variant's data
without its prose: `Variant.digest`): if a shipped variant's rules change, its records no
longer replay (RecordError, by design) and the corpus of that variant must be rewritten
on purpose (delete its files, rerun). The digests in these files are those of the digest
without prose, written into the old records when the digest left the prose out; their
actions and replays are the old engine's.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

# (variant, seed, the other simulate arguments) of each record
CORPUS = [(name, 1, ["--matches", "1"]) for name in (
    "28", "304", "304-solo", "house/28-seventh-card", "house/29-to-minus-6", "house/304-last-trick-10")]
CORPUS += [(name, 1, ["--deals", "3"]) for name in (
    "29", "house/29-21-scores-2", "house/29-counter-clockwise", "house/29-double",
    "house/29-hidden-trump", "house/29-no-last-trick")]
CORPUS += [("house/29-bhoos", 1, ["--matches", "1"])]  # added with the variant (branch bhoos)
CORPUS += [("house/29-dealer-keeps", 1, ["--deals", "3"])]  # added with the variant (branch dsl-vars)
CORPUS += [("house/28-no-undertrump", 1, ["--deals", "3"])]  # added with the variant (branch dsl-expr)
CORPUS += [("court-piece", 1, ["--matches", "1"]),  # added with the variants (branch dsl-flow)
           ("house/29-single-hand", 1, ["--deals", "3"])]
CORPUS += [(name, seed, ["--matches", "1"]) for name in (
    "56", "house/56-4p-32-cards", "house/56-8p-48-cards", "house/56-alt-table", "house/56-cot")
    for seed in (1, 2)]
CORPUS += [("call-break", 1, ["--matches", "1"])]
CORPUS += [("house/28-redeal", 2, ["--deals", "12"])]  # deals 4, 7, 11 and 12 are void


def record_path(name: str, seed: int) -> Path:
    return HERE / f"{name}-s{seed}.json"


def expected_path(name: str, seed: int) -> Path:
    return HERE / f"{name}-s{seed}.replay.json"
