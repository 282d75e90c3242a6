"""In-process ladder bots under the arena's fault policy (arena/ladder/runners.py,
docs/ladder.md): a decision past its time gets the default action and counts as a fault,
a bot that never returns is interrupted, a failing factory or decide is one clear line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from taash.arena.ladder import InProcessRunner, LadderError
from taash.arena.ladder.schedule import GameSpec
from taash.arena.bots.registry import BotEntry
from taash.interpreter import Match, load_variant, replay

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
    from taash.arena.ladder import parse_bot_spec
    specs = dict(parse_bot_spec(b) for b in bots.values())
    runner = InProcessRunner("28", specs, move_ms=20, bank_ms=0)
    games = [SPEC, GameSpec("r00000/a/b/s1", "r00000/a/b/s1", 0, 6, SPEC.bots, 1)]
    results = list(runner.results(games, workers=2))
    assert len(results) == 2
    for res in results:
        mine = seat_defaults(res.record, {0, 2})
        assert mine and all(mine) and res.faults == len(mine)


def test_a_failing_factory_is_a_ladder_error_before_any_game():
    with pytest.raises(LadderError, match=r"bot 'slow' could not be made for 29: its factory raised "
                                          r"RuntimeError: cannot build a bot for 29"):
        InProcessRunner("29", {"slow": BotEntry("slow", "tests.helpers.ladder_bots:broken_factory"),
                               "random": "random"})
    # a factory that gives no agent is not said to have raised
    with pytest.raises(LadderError) as e:
        InProcessRunner("29", {"none": BotEntry("none", "tests.helpers.ladder_bots:no_agent"), "random": "random"})
    assert "gave None, which is no agent" in str(e.value) and "raised" not in str(e.value)


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "taash.arena.cli", "ladder", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


def test_cli_a_failing_factory_is_one_line(tmp_path):
    r = run_cli("run", "--variant", "29", "--bots", "x=tests.helpers.ladder_bots:broken_factory,random",
                "--deals", "2", "--data", str(tmp_path / "d"))
    assert r.returncode == 1
    assert "taash: error: bot 'x' could not be made for 29: its factory raised RuntimeError" in r.stderr
    assert "Traceback" not in r.stderr
    # nothing was stored: the same directory takes a ladder of other settings at once
    assert not (tmp_path / "d" / "ladder.sqlite3").exists()
    r = run_cli("run", "--variant", "29", "--bots", "heuristic,random", "--deals", "4", "--game-deals", "2",
                "--duplicate", "--seed", "5", "--data", str(tmp_path / "d"), "--json")
    assert r.returncode == 0, r.stderr


def test_cli_a_bot_named_twice_is_refused(tmp_path):
    r = run_cli("run", "--variant", "29", "--bots", "a=heuristic,a=random", "--deals", "2",
                "--data", str(tmp_path / "d"))
    assert r.returncode == 1 and "--bots names 'a' more than once" in r.stderr
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("command", ["standings", "verify", "plot"])
def test_commands_that_read_a_ladder_create_none(tmp_path, command):
    # a mistyped --data is an error, and leaves no database behind
    r = run_cli(command, "--data", str(tmp_path / "typo"))
    assert r.returncode == 1 and f"no ladder in {tmp_path / 'typo' / 'ladder.sqlite3'}" in r.stderr, r.stderr
    assert not (tmp_path / "typo").exists()


def test_verify_with_nothing_to_verify_fails(tmp_path):
    from taash.arena.store import open_ladder_store
    open_ladder_store(None, tmp_path).close()          # a ladder database with no ladder in it
    r = run_cli("verify", "--data", str(tmp_path))
    assert r.returncode == 1 and "nothing to verify" in r.stderr


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


def test_verify_names_a_game_whose_stored_scores_or_record_are_wrong(tmp_path):
    import json
    import sqlite3
    r = run_cli("run", "--variant", "28", "--bots", "heuristic,random", "--deals", "2", "--game-deals", "1",
                "--data", str(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    assert run_cli("verify", "--data", str(tmp_path)).returncode == 0
    db = sqlite3.connect(tmp_path / "ladder.sqlite3")
    key, scores, record = db.execute("SELECT game_key, scores, record FROM games ORDER BY game_key").fetchone()
    wrong = [s + 1 for s in json.loads(scores)]
    db.execute("UPDATE games SET scores = ? WHERE game_key = ?", (json.dumps(wrong), key))
    db.commit()
    r = run_cli("verify", "--data", str(tmp_path))
    assert r.returncode == 1
    assert f"28 game {key}: stored scores {wrong}, its record replays to {json.loads(scores)}" in r.stdout
    # a record that does not replay: the game is named, in one line
    rec = json.loads(record)
    rec["deals"][0]["actions"][0] = "bid 999"
    db.execute("UPDATE games SET record = ? WHERE game_key = ?", (json.dumps(rec), key))
    db.commit()
    r = run_cli("verify", "--data", str(tmp_path))
    assert r.returncode == 1 and f"28 game {key}: its record does not replay" in r.stderr
    assert "Traceback" not in r.stderr


def test_standings_with_no_games_say_so(tmp_path):
    from taash.arena.store import open_ladder_store
    store = open_ladder_store(None, tmp_path, True)    # a ladder database with no ladder in it
    store.close()
    r = run_cli("standings", "--data", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"no games in {tmp_path} yet: run a ladder with `taash ladder run --variant V`\n"
    store = open_ladder_store(None, tmp_path, True)    # a ladder set up whose first game has not ended
    store.save_settings("29", {"bots": ["heuristic", "random"]})
    store.close()
    r = run_cli("standings", "--data", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"no games in {tmp_path} yet: run a ladder with `taash ladder run --variant V`\n"
