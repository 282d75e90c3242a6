"""The ladder through the arena over gRPC (bots in processes of their own), and a short
`make run` main job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from taash.arena.ladder import InProcessRunner, LadderError, LadderSettings, run_ladder
from taash.arena.ladder.arena_runner import ArenaRunner
from taash.arena.store import open_ladder_store
from taash.arena.cli.mainjob import Processes

from tests.helpers import ROOT


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    data = tmp_path_factory.mktemp("arena") / "data"
    data.mkdir()
    procs = Processes(data)
    try:
        procs.start_arena()
        for name, kind in (("random", "random"), ("heuristic", "heuristic")):
            procs.start_bot(name, [sys.executable, "-m", "taash.arena.cli", "bot", kind], procs.token(name))
        procs.token("ghost")   # registered, never connected
        procs.wait_connected(["random", "heuristic"])
        yield procs
    finally:
        procs.stop()


def _admin(procs):
    return (procs.data / "admin-token").read_text().strip()


@pytest.mark.parametrize("name", ["29", "304-solo"])
def test_the_arena_plays_the_same_ladder_as_in_process(arena, tmp_path, name):
    settings = LadderSettings(seed=6, duplicate=True, game_deals=2)
    bots = ["heuristic", "random"]
    grpc_store = open_ladder_store(None, tmp_path / "grpc")
    runner = ArenaRunner(arena.addr, _admin(arena), name)
    try:
        s = run_ladder(grpc_store, runner, bots, 12, settings, workers=3)
    finally:
        runner.close()
    local = open_ladder_store(None, tmp_path / "local")
    run_ladder(local, InProcessRunner(name, {b: b for b in bots}), bots, 12, settings)
    assert [x.to_json() for x in grpc_store.standings(s.variant)] == [x.to_json() for x in local.standings(s.variant)]
    g_games = grpc_store.games(s.variant, records=True)
    l_games = local.games(s.variant, records=True)
    assert set(g_games) == set(l_games) and len(g_games) >= 2
    for key, g in g_games.items():
        assert g.arena_game and Path(g.record_path).is_file() and g.faults == 0
        assert [d["actions"] for d in g.record["deals"]] == [d["actions"] for d in l_games[key].record["deals"]]
        assert g.scores == l_games[key].scores
    assert grpc_store.standings(s.variant)[0].bot == "heuristic"


@pytest.mark.slow
def test_a_missing_bot_is_a_clear_error_and_loses_nothing(arena, tmp_path):
    store = open_ladder_store(None, tmp_path)
    runner = ArenaRunner(arena.addr, _admin(arena), "28", wait_s=0.5)
    try:
        with pytest.raises(LadderError, match="no bot named nobody"):
            run_ladder(store, runner, ["heuristic", "nobody"], 4, LadderSettings(game_deals=1))
        run_ladder(store, runner, ["heuristic", "random"], 4, LadderSettings(game_deals=1))
        before = [x.to_json() for x in store.standings("28")]
        with pytest.raises(LadderError, match="not connected after"):
            run_ladder(store, runner, ["heuristic", "ghost"], 8, LadderSettings(game_deals=1))
    finally:
        runner.close()
    # the rounds with ghost were planned, none was played; what was rated stays
    assert [x.to_json() for x in store.standings("28")] == before
    assert len(store.games("28")) == 4
    # and a run without ghost plans those rounds again and goes on
    runner = ArenaRunner(arena.addr, _admin(arena), "28")
    try:
        s = run_ladder(store, runner, ["heuristic", "random"], 8, LadderSettings(game_deals=1))
    finally:
        runner.close()
    assert (s.games_total, s.events_total, s.rounds) == (8, 8, 8)


def test_cli_ladder_through_the_arena_seats_every_connected_bot(arena, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "ladder", "run", "--variant", "28", "--arena", arena.addr,
                        "--data", str(arena.data), "--store", str(tmp_path / "l.sqlite3"), "--deals", "4",
                        "--game-deals", "1", "--duplicate", "--json"],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # ghost has a token but no connection: the default bots are the connected ones
    assert sorted(s["bot"] for s in out["standings"]) == ["heuristic", "random"]
    assert (out["games"], out["deals"]) == (4, 4)
    g = next(iter(open_ladder_store(str(tmp_path / "l.sqlite3")).games("28").values()))
    assert g.arena_game.startswith("g") and Path(g.record_path).parent == arena.data / "records"


def _our_processes(marker: str) -> list[str]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmd:
                out.append(cmd)
    return out


@pytest.mark.slow
def test_make_run_main_job_short(tmp_path):
    """`make run` runs `python -m taash.arena.cli.mainjob`; this is the same with fewer deals."""
    data = tmp_path / "run-data"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli.mainjob", "--data", str(data), "--deals", "6",
                        "--game-deals", "1", "--search-ms", "10"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    for v in ("56", "28", "29", "304", "304-solo"):
        assert f"{v}: " in out
    assert out.count("standings recomputed from the records: equal") == 6   # and house/29-bhoos
    assert "every process it started is stopped" in out
    assert (data / "ladder.png").read_bytes()[:4] == b"\x89PNG"
    records = list((data / "records").glob("*.json"))
    assert records and json.loads(records[0].read_text())["format"] == "taash-record/1"
    store = open_ladder_store(None, data)
    for v in ("56", "28", "29", "304", "304-solo"):
        names = [s.bot for s in store.standings(v)]
        assert names.index("heuristic") < names.index("random"), (v, names)
    # one seat family through the HTTP bridge (docs/http-bots.md): our heuristic served over HTTP
    names = [s.bot for s in store.standings("house/29-bhoos")]
    assert sorted(names) == ["heuristic", "heuristic-http", "random"]
    assert not _our_processes(str(data))
    # a second run makes its directory anew; a directory it did not make is refused
    other = tmp_path / "mine"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    r2 = subprocess.run([sys.executable, "-m", "taash.arena.cli.mainjob", "--data", str(other)], capture_output=True,
                        text=True, cwd=ROOT, env=env, timeout=120)
    assert r2.returncode == 1 and "not made by the main job" in r2.stderr
    assert (other / "keep.txt").exists()
