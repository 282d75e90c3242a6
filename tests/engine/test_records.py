"""Old records replay to the same result: each record of tests/records/, written
by the engine at main 893837c, replayed by the current engine gives the `taash replay
--json` output that engine gave (stored beside it). See tests/records/__init__.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from taash.interpreter import RecordError, replay, replay_json, shipped_variants

from tests.helpers import ROOT
from tests.records import CORPUS, HERE, expected_path, record_path

IDS = [f"{name}-s{seed}" for name, seed, _ in CORPUS]


def replayed(rec: dict) -> dict:
    """`taash replay --json` of ``rec`` in-process, through JSON as the CLI prints it."""
    return json.loads(json.dumps(replay_json(replay(rec, base=HERE))))


def test_every_shipped_variant_has_old_records():
    assert {name for name, _, _ in CORPUS} == set(shipped_variants())
    assert sum(p.stat().st_size for p in HERE.rglob("*.json")) < 2_000_000


@pytest.mark.parametrize("name,seed", [(n, s) for n, s, _ in CORPUS], ids=IDS)
def test_old_record_replays_to_the_same_result(name, seed):
    rec = json.loads(record_path(name, seed).read_text())
    expected = json.loads(expected_path(name, seed).read_text())
    assert rec["variant"] == name and rec["seed"] == seed
    assert len(expected["deals"]) == len(rec["deals"]) >= 1
    got = replayed(rec)
    for i, (g, e) in enumerate(zip(got["deals"], expected["deals"])):
        assert g == e, f"{name} seed {seed}, deal {i}: replays to {g}, the old engine said {e}"
    assert got == expected


def test_the_command_line_replays_an_old_record_the_same():
    name, seed, _ = CORPUS[0]
    out = subprocess.run([sys.executable, "-m", "taash.arena.cli", "replay", str(record_path(name, seed)), "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(expected_path(name, seed).read_text())


def test_the_digest_follows_the_rules_not_the_wording(tmp_path):
    """A copy of 29.yaml with another title, source, comment and option description has
    29's digest; the same copy with a minimum bid of 16 has another."""
    from taash import load_variant
    text = (ROOT / "variants" / "29.yaml").read_text()
    assert "\ntitle: Twenty-nine\n" in text and "\nsource: " in text
    reworded = text.replace("\ntitle: Twenty-nine\n", "\ntitle: Twenty nine, as we play it\n")
    reworded, n = re.subn(r"\nsource:.*?\nplayers:", "\nsource: our club's sheet\nplayers:", reworded, flags=re.S)
    assert n == 1
    reworded = "# a comment of ours\n" + reworded
    (tmp_path / "29.yaml").write_text(reworded)
    assert load_variant(tmp_path / "29.yaml").digest == load_variant("29").digest
    assert "min_bid: 15" in text
    (tmp_path / "29-16.yaml").write_text(reworded.replace("min_bid: 15", "min_bid: 16", 1))
    assert load_variant(tmp_path / "29-16.yaml").digest != load_variant("29").digest


def test_a_changed_action_changes_the_replay():
    """The comparison can fail: swapping the last two cards played in a deal of an old
    record gives another result or a clear RecordError (a card that may not be played)."""
    name, seed, _ = CORPUS[0]
    rec = json.loads(record_path(name, seed).read_text())
    acts = rec["deals"][0]["actions"]
    plays = [i for i, a in enumerate(acts) if a.startswith("play ")]
    i, j = plays[-5], plays[-1]
    acts[i], acts[j] = acts[j], acts[i]
    try:
        got = replayed(rec)
    except RecordError:
        return
    assert got != json.loads(expected_path(name, seed).read_text())


def _replay_lines(name: str, seed: int) -> tuple[list[str], dict]:
    """`taash replay` of a corpus record: its deal lines, and its `--json` replay."""
    out = subprocess.run([sys.executable, "-m", "taash.arena.cli", "replay", str(record_path(name, seed))],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return [x for x in out.stdout.splitlines() if x.startswith("deal ")], replayed(json.loads(
        record_path(name, seed).read_text()))


def test_replay_tells_a_trick_target_in_tricks_and_no_bid_without_an_auction():
    """Court piece: no auction (the eldest's side is the declarer's), target 7 TRICKS
    (scoring.made: tricks_won(declarer_side) >= target); sides 0&2 against 1&3. The count
    is worked out from the deal's tricks: the ones whose winner sits on the declarer's side."""
    lines, got = _replay_lines("court-piece", 1)
    assert len(lines) == len(got["deals"]) >= 1
    for i, (line, d) in enumerate(zip(lines, got["deals"])):
        side = {d["declarer"] % 2, d["declarer"] % 2 + 2}
        won = sum(1 for t in d["tricks"] if t["winner"] in side)
        assert len(d["tricks"]) == 13
        verdict = "made" if won >= 7 else "failed"
        assert line.startswith(f"deal {i + 1}: dealer {d['dealer']}, declarer {d['declarer']}, trump {d['trump']}, "
                               f"target 7: declarer's side took {won} tricks, {verdict}; "), line
        assert " bid " not in line and "points" not in line


def test_replay_tells_a_point_target_in_points_as_before():
    """29: the target counts card points (points(declarer_side) >= target): the line is
    the one it always was, the declarer's side's points summed from the seats' points."""
    lines, got = _replay_lines("29", 1)
    for i, (line, d) in enumerate(zip(lines, got["deals"])):
        if d["declarer"] is None:
            continue
        side = {d["declarer"] % 2, d["declarer"] % 2 + 2}
        took = sum(p for s, p in enumerate(d["points"]) if s in side)
        verdict = "made" if took >= d["target"] else "failed"
        assert line.startswith(f"deal {i + 1}: dealer {d['dealer']}, declarer {d['declarer']} bid {d['bid']}, "
                               f"trump {d['trump'] or '-'}, target {d['target']}: declarer's side took {took} points, "
                               f"{verdict}; "), line


@pytest.mark.parametrize("made, unit", [
    ("points(declarer_side) >= target", "points"),
    ("tricks_won(declarer_side) >= target", "tricks"),
    ("target <= tricks_won(declarer_side)", "tricks"),
    ("seat_tricks(declarer) >= target", "tricks"),
    ("seat_points(declarer) > target - 1", "points"),
    # beside the target's comparison, another on tricks (304's slam) does not count
    ("points(declarer_side) >= target and tricks_won(declarer_side) > 0", "points"),
    # both kinds against the target, or none: not one unit
    ("points(declarer_side) >= target or tricks_won(declarer_side) >= target", None),
    ("tricks_won(declarer_side) == tricks", None),
])
def test_the_target_unit_comes_from_the_made_rule(tmp_path, made, unit):
    from taash import load_variant
    p = tmp_path / "x.yaml"
    p.write_text(f'extends: "29"\nname: x\nscoring:\n  made: "{made}"\n')
    assert load_variant(p).target_unit == unit


def test_the_shipped_target_units():
    from taash import load_variant
    assert load_variant("court-piece").target_unit == "tricks"
    assert load_variant("29").target_unit == load_variant("304").target_unit == "points"
    assert load_variant(ROOT / "docs" / "examples" / "three-hand-alone.yaml").target_unit == "tricks"
