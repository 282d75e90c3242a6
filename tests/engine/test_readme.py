"""The README's quick start, run as written: each command of "## Use" and of "Writing a
house rule", pasted into a shell in a fresh folder that has the checkout's `.venv` and
`variants/` (as a checkout does), in order, each exiting 0."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def indented_blocks(text: str) -> list[str]:
    """The indented (4 spaces) blocks of a Markdown section, dedented."""
    return [re.sub(r"(?m)^    ", "", b) for b in re.findall(r"(?m)(?:^    .*\n)+", text)]


def commands(block: str) -> list[str]:
    return [ln for ln in block.splitlines() if ln.startswith(".venv/bin/taash")]


USE = commands(indented_blocks(section("Use"))[0])
HOUSE = indented_blocks(section("Writing a house rule"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("readme")
    venv = Path(sys.executable).parent.parent
    if not (venv / "bin" / "taash").exists():
        pytest.skip("no taash console script next to the interpreter")
    (d / ".venv").symlink_to(venv)
    (d / "variants").symlink_to(ROOT / "variants")
    (d / "docs").symlink_to(ROOT / "docs")
    return d


def run(line: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120")
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_quick_start_is_what_this_test_runs():
    assert any("--record out.json" in c for c in USE) and any(c.split()[1:3] == ["replay", "out.json"]
                                                             for c in USE)
    assert any("--bots heuristic,random,heuristic,random" in c for c in USE)


def test_every_use_command_runs_as_written(folder):
    outs = {}
    for line in USE:
        r = run(line, folder)
        assert r.returncode == 0, (line, r.stderr)
        assert "Traceback" not in r.stderr
        outs[line] = r.stdout
    replay = next(out for line, out in outs.items() if " replay out.json --json" in line)
    # five matches recorded in out.json, replayed in order: each over (29 is played to +6 or
    # to its deal limit of 1000) with per-seat scores where partners (s, s + 2) agree
    got = json.loads(replay)["matches"]
    assert len(got) == 5
    for m in got:
        s = m["match"]["score"]
        assert m["match"]["over"] is True and s[0] == s[2] and s[1] == s[3]


def test_the_house_rule_example_runs_as_written(folder):
    yaml_block = next(b for b in HOUSE if b.startswith('extends: "29"'))
    (folder / "my-29.yaml").write_text(yaml_block)
    line, _new_game = [c for b in HOUSE for c in commands(b)]
    r = run(line, folder)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("my-29.yaml: ok\n")


def test_the_new_game_example_runs_as_written(folder):
    """The guide's worked example, a new game: 32 cards less two, 21 points."""
    _house, line = [c for b in HOUSE for c in commands(b)]
    r = run(line, folder)
    assert r.returncode == 0, r.stderr
    assert "30 cards:" in r.stdout and "21 points in all" in r.stdout


def test_simulate_with_a_bot_per_seat():
    """`--bots heuristic,heuristic,random,random`: the seats get those bots, in order."""
    env = dict(os.environ, NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "simulate", "29", "--bots",
                        "heuristic,heuristic,random,random", "--deals", "20", "--seed", "2", "--json"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["bots"] == ["heuristic", "heuristic", "random", "random"] and out["deals"] == 20
