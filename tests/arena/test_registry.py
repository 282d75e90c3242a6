"""The bot registry (arena/bots/registry.py): names resolve, unknown ones are one clear line
listing the registered names, and a bot of one module registered once plays by name in
`taash simulate --bots` and in an in-process ladder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from taash.arena.bots import registry
from taash.arena.cli import main as taash_main
from taash.arena.ladder import InProcessRunner, LadderError, LadderSettings, run_ladder
from taash.arena.store import open_ladder_store
from taash.arena.ladder.runners import parse_bot_spec
from taash.interpreter import Match, load_variant

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE = '''"""An example bot: always the last legal action."""


class Last:
    def decide(self, observation, legal):
        assert observation["seat"] in range(observation["players"])
        return legal[-1]


def make(variant, seed=0):
    return Last()
'''


def taash(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "taash.arena.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=timeout)


@pytest.fixture
def example(tmp_path, monkeypatch):
    (tmp_path / "example_last_bot.py").write_text(EXAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register("last", "example_last_bot:make", "always the last legal action")
    yield "last"
    registry.unregister("last")


def test_the_search_bots_description_names_its_flags_not_environment_variables():
    """`taash bot --help` lists each bot with its description: the search bot's named
    TAASH_SEARCH_MS and TAASH_SEARCH_PLAYOUTS, which nothing reads; its settings are the
    command's flags."""
    d = registry.get("search").description
    assert "TAASH_" not in d
    assert "--budget-ms" in d and "--playouts" in d


def test_the_builtins_are_registered_once():
    assert {"random", "heuristic"} <= set(registry.names())
    v = load_variant("29")
    for name in ("random", "heuristic"):
        e = registry.get(name)
        assert e.name == name and e.description and e.arena
        agent = e.make(v, 0)
        st = Match(v, 1).new_deal()
        assert agent.decide(st.observation(st.to_act), st.legal_actions()) in st.legal_actions()


def test_an_unknown_name_is_one_line_listing_the_names():
    with pytest.raises(registry.UnknownBotError) as e:
        registry.get("nosuch")
    msg = str(e.value)
    assert "\n" not in msg and "'nosuch'" in msg and "heuristic, ismcts, random, search" in msg
    with pytest.raises(LadderError, match="unknown bot 'nosuch'"):
        parse_bot_spec("nosuch")


def test_specs_and_aliases():
    e = registry.resolve("mine=tests_pkg.somewhere:make")
    assert (e.name, e.factory) == ("mine", "tests_pkg.somewhere:make")
    assert registry.resolve("tests_pkg.somewhere:make_bot").name == "make_bot"
    h2 = registry.resolve("h2=heuristic")
    assert h2.name == "h2" and h2.factory == registry.get("heuristic").factory
    with pytest.raises(registry.UnknownBotError, match="cannot load bot 'mine'"):
        e.load()
    with pytest.raises(registry.UnknownBotError, match="bad bot name"):
        registry.resolve("no good=heuristic")
    with pytest.raises(ValueError, match="already registered"):
        registry.register("random", "taash.arena.bots.random:random_bot")


def test_simulate_seats_registered_bots_by_name():
    r = taash("simulate", "--bots", "heuristic,random,heuristic,random", "29", "--matches", 2, "--seed", 1, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["bots"] == ["heuristic", "random", "heuristic", "random"]
    assert [m["seed"] for m in out["matches"]] == [1, 2] and out["faults"] == [0, 0, 0, 0]
    bad = taash("simulate", "29", "--bots", "heuristic,nosuch,random,random")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "unknown bot 'nosuch'" in bad.stderr and "heuristic, ismcts, random, search" in bad.stderr
    few = taash("simulate", "29", "--bots", "random,random")
    assert few.returncode == 2 and "4 seats" in few.stderr


def test_taash_bot_help_lists_the_registry():
    r = taash("bot", "--help")
    assert r.returncode == 0
    for e in registry.entries():
        assert e.name in r.stdout and e.description[:30] in " ".join(r.stdout.split())
    r = taash("bot", "nosuch", "--token", "x")
    assert r.returncode == 2 and "unknown bot 'nosuch'" in r.stderr and "Traceback" not in r.stderr


def test_taash_bot_of_a_module_that_does_not_import_is_one_line_before_connecting():
    """`taash bot x=nomod:f` said it was playing, connected, and printed a traceback at
    every decision of every game it was seated in; it stops at once with one line, as
    `taash simulate --bots` does, without looking for an arena (nothing listens on port 1)."""
    r = taash("bot", "x=nosuchmodule:make", "--token", "x", "--server", "127.0.0.1:1", timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "playing" not in r.stderr
    assert r.stderr == ("taash: error: cannot load bot 'x' from 'nosuchmodule:make': No module named "
                        "'nosuchmodule' (the taash command does not look in the current directory: "
                        "add the module's folder to PYTHONPATH)\n")
    r = taash("bot", "x=json:nosuchname", "--token", "x", "--server", "127.0.0.1:1", timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot load bot 'x' from 'json:nosuchname'" in r.stderr


def test_a_one_module_bot_registered_once_plays_in_simulate_and_the_ladder(example, tmp_path, capsys):
    assert example in registry.names()
    assert taash_main(["simulate", "28", "--bots", "last,random,last,random", "--deals", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bots"] == ["last", "random", "last", "random"] and out["deals"] == 3
    assert out["faults"] == [0, 0, 0, 0]
    store = open_ladder_store(None, tmp_path / "ladder")
    s = run_ladder(store, InProcessRunner("28", {"last": "last", "random": "random"}), ["last", "random"], 8,
                   LadderSettings(seed=2, game_deals=2))
    assert sorted(x.bot for x in s.standings) == ["last", "random"]
    games = store.games(s.variant, records=True)
    assert games and all(g.faults == 0 for g in games.values())
    # the last bot's seats played the last legal action every time
    v = load_variant("28")
    g = next(iter(games.values()))
    seats = [i for i, b in enumerate(g.bots) if b == "last"]
    for deal in g.record["deals"]:
        st = Match(v, 0).new_deal(hands=deal["hands"], widow=deal["widow"], dealer=deal["dealer"])
        for a in deal["actions"]:
            if st.to_act in seats:
                assert a == st.legal_actions()[-1]
            st.apply(a)


def _no_args():
    return None


def _not_an_agent(variant):
    return 42


def _raises(variant, seed):
    raise KeyError("no such table")


@pytest.mark.parametrize("factory, words", [
    ("tests.arena.test_registry:_no_args", "must take (variant) or (variant, seed)"),
    ("tests.arena.test_registry:_not_an_agent", "gave 42, which is no agent"),
    ("tests.arena.test_registry:_raises", "its factory 'tests.arena.test_registry:_raises' raised KeyError: "
                                          "'no such table'"),
    ("nosuchbotmodule:factory", "No module named 'nosuchbotmodule' (the taash command does not look in "
                                "the current directory: add the module's folder to PYTHONPATH)"),
])
def test_a_factory_that_gives_no_agent_is_one_clear_error(factory, words):
    # the wrong signature, or no agent given: UnknownBotError (one line), not a TypeError
    # from deep in the game loop
    entry = registry.BotEntry("mine", factory)
    with pytest.raises(registry.UnknownBotError) as e:
        entry.make(load_variant("29"), 0)
    assert words in str(e.value) and "\n" not in str(e.value)
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "simulate", "29", "--bots",
                        f"mine={factory},random,random,random", "--deals", "2"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode != 0 and words in r.stderr and "Traceback" not in r.stderr


def test_the_random_bot_refuses_an_empty_choice():
    # with no legal action there is nothing to draw (a draw below 0 would never end)
    from taash.arena.bots.random import RandomBot
    with pytest.raises(ValueError, match="no legal action"):
        RandomBot(0).decide({}, [])


def test_the_random_bot_as_a_state_agent_draws_as_randrange():
    # its draw is randrange written out: the n-th decision takes the n-th randrange of
    # Random(seed), whatever the number of legal actions (1, powers of two, between)
    import random

    from taash.arena.bots.random import RandomBot

    class At:   # what decide_state reads of a State
        def __init__(self, legal):
            self.legal = legal

        def legal_ids(self):
            return self.legal

    sizes = [1, 2, 3, 5, 8, 9, 17, 31, 32, 33, 100] * 20
    bot, ref = RandomBot("7:2"), random.Random("7:2")
    got = [bot.decide_state(At(list(range(10, 10 + n))), 0) for n in sizes]
    assert got == [10 + ref.randrange(n) for n in sizes]
    with pytest.raises(ValueError, match="no legal action"):
        bot.decide_state(At([]), 0)
