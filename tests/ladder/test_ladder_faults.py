"""In-process ladder bots under the arena's fault policy (arena/ladder/runners.py,
docs/ladder.md): a decision past its time gets the default action and counts as a fault,
a bot that never returns is interrupted, a failing factory or decide is one clear line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena.ladder import InProcessRunner, LadderError
from arena.ladder.schedule import GameSpec
from arena.registry import BotEntry
from interpreter import Match, load_variant, replay

from tests.helpers import ROOT

SPEC = GameSpec("r00000/a/b/s0", "r00000/a/b/s0", 0, 5, ("slow", "random", "slow", "random"), 1)


def seat_defaults(rec, seats):
    """Whether each action of ``seats`` in the record is the default action at its point."""
    v = load_variant(rec["variant"])
    out = []
    for deal in rec["deals"]:
        st = Match(v, rec["seed"]).new_deal(hands=deal["hands"], widow=deal["widow"], dealer=deal["dealer"])
        for a in deal["actions"]:
            if st.to_act in seats:
                out.append(a == st.default_action())
            st.apply(a)
    return out


@pytest.mark.parametrize("factory", ["hang", "spin"])
def test_a_bot_that_never_answers_gets_the_default_at_its_deadline(factory):
    bots = {"slow": BotEntry("slow", f"tests.helpers.ladder_bots:{factory}"), "random": "random"}
    runner = InProcessRunner("28", bots, move_ms=20, bank_ms=30)
    (res,) = list(runner.results([SPEC]))
    assert res.deals == 1
    mine = seat_defaults(res.record, {0, 2})
    assert mine and all(mine)                      # every decision of seats 0 and 2: the default
    assert res.faults == len(mine)                 # each one a fault
    assert replay(res.record).deals[-1].is_terminal


def test_a_timeout_in_worker_processes_too():
    bots = {"slow": "slow=tests.helpers.ladder_bots:hang", "random": "random"}
    from arena.ladder import parse_bot_spec
    specs = dict(parse_bot_spec(b) for b in bots.values())
    runner = InProcessRunner("28", specs, move_ms=20, bank_ms=0)
    games = [SPEC, GameSpec("r00000/a/b/s1", "r00000/a/b/s1", 0, 6, SPEC.bots, 1)]
    results = list(runner.results(games, workers=2))
    assert len(results) == 2
    for res in results:
        mine = seat_defaults(res.record, {0, 2})
        assert mine and all(mine) and res.faults == len(mine)


def test_a_failing_factory_is_a_ladder_error():
    runner = InProcessRunner("29", {"slow": BotEntry("slow", "tests.helpers.ladder_bots:broken_factory"),
                                    "random": "random"})
    with pytest.raises(LadderError, match=r"bot 'slow' could not be made for 29: its factory raised "
                                          r"RuntimeError: cannot build a bot for 29"):
        list(runner.results([SPEC]))


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "arena.cli", "ladder", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


def test_cli_a_failing_factory_is_one_line(tmp_path):
    r = run_cli("run", "--variant", "29", "--bots", "x=tests.helpers.ladder_bots:broken_factory,random",
                "--deals", "2", "--data", str(tmp_path / "d"))
    assert r.returncode == 1
    assert "taash: error: bot 'x' could not be made for 29: its factory raised RuntimeError" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_a_raising_decide_and_a_hung_bot_are_faults_named_once(tmp_path):
    r = run_cli("run", "--variant", "29", "--bots", "bad=tests.helpers.ladder_bots:raises,"
                "hung=tests.helpers.ladder_bots:hang", "--deals", "2", "--game-deals", "1",
                "--move-ms", "10", "--bank-ms", "0", "--data", str(tmp_path / "d"), "--json")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    raised = [ln for ln in lines if "bot bad" in ln]
    hung = [ln for ln in lines if "bot hung" in ln]
    # one line per bot and game (2 games), whichever of its seats faulted first
    assert len(raised) == 2 and all("its decide raised ValueError: this bot is broken" in ln for ln in raised)
    assert len(hung) == 2 and all("it did not answer in time" in ln for ln in hung)
