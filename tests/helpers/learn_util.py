"""Helpers for the learner tests: a training command and a ladder of a trained policy, run
as a user runs them (real processes)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers.arena_util import ROOT, TAASH, env


def train_by_command(module: str, *args: str, timeout: float = 600) -> dict:
    """``python -m MODULE ARGS --json`` (a training command of taash.learn): its JSON
    summary, after checking it exited 0."""
    out = subprocess.run([sys.executable, "-m", module, *args, "--json"],
                         capture_output=True, text=True, cwd=ROOT, env=env(), timeout=timeout)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def ladder_against_random(spec: str, data, deals: int = 8) -> dict:
    """``taash ladder run`` of 29 between the bot ``learned=SPEC`` and ``random`` for
    ``deals`` deals: its JSON result, after checking both played every deal."""
    out = subprocess.run([*TAASH, "ladder", "run", "--variant", "29", "--bots", f"learned={spec},random",
                          "--deals", str(deals), "--data", str(data), "--json"],
                         capture_output=True, text=True, cwd=ROOT, env=env(), timeout=300)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert {s["bot"] for s in res["standings"]} == {"learned", "random"}
    assert all(s["deals"] == deals for s in res["standings"])
    return res
