"""Ladders and simulations on Ray (arena/ladder/cluster.py, docs/cluster.md): on a local Ray
of 2 CPUs started once for the module, the same standings and summaries as a local run, a
worker killed mid-run, the driver interrupted and resumed, PostgreSQL as the store; and
the one-line errors (Ray missing, a cluster that cannot be reached, a bot a worker cannot
import)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from taash.arena.ladder import InProcessRunner, LadderError, LadderSettings, recompute, run_ladder
from taash.arena.store import open_ladder_store
from taash.arena.ladder import cluster
from taash.interpreter import load_variant
from tests.helpers import ROOT

BOTS = {"heuristic": "heuristic", "random": "random"}
KILL_DIR = "TAASH_TEST_KILL_DIR"


def killer(variant, seed=0):
    """A bot that plays as ``heuristic`` and, on a Ray worker of this module once the
    test has armed it (file ``armed`` in $TAASH_TEST_KILL_DIR), SIGKILLs its own worker
    process at the third game it is seated in, once (file ``fired`` holds the pid)."""
    from taash.arena.bots.heuristic import heuristic_bot
    d = os.environ.get(KILL_DIR)
    if d and os.path.exists(os.path.join(d, "armed")):
        with open(os.path.join(d, "calls"), "a") as f:
            f.write(f"{os.getpid()}\n")
        with open(os.path.join(d, "calls")) as f:
            calls = len(f.readlines())
        if calls >= 3:
            try:
                fd = os.open(os.path.join(d, "fired"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                os.kill(os.getpid(), signal.SIGKILL)
    return heuristic_bot(variant, seed)


@pytest.fixture(scope="module")
def ray_cpus2(tmp_path_factory):
    """A local Ray with 2 CPUs for the module (its start-up, ~5 s, paid once); the
    workers see this checkout (PYTHONPATH) and the kill directory."""
    ray = pytest.importorskip("ray")
    kill_dir = tmp_path_factory.mktemp("kill")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", logging_level=logging.WARNING,
             runtime_env={"env_vars": {KILL_DIR: str(kill_dir), "PYTHONPATH": str(ROOT)}})
    try:
        yield kill_dir
    finally:
        ray.shutdown()


def standings(store, ref):
    return json.dumps([s.to_json() for s in store.standings(ref)])


def local_ladder(tmp_path, variant, deals, settings, bots=BOTS):
    store = open_ladder_store(None, tmp_path / f"local-{variant.replace('/', '_')}")
    run_ladder(store, InProcessRunner(variant, bots), list(bots), deals, settings)
    return store


# -- the same ladder, the same simulation -------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("variant,settings,deals", [
    ("29", LadderSettings(seed=7, duplicate=True, game_deals=2), 48),
    ("304-solo", LadderSettings(seed=3, duplicate=False, game_deals=1, schedule="rating"), 24),
])
def test_the_same_standings_on_ray_as_locally(ray_cpus2, tmp_path, variant, settings, deals):
    local = local_ladder(tmp_path, variant, deals, settings)
    store = open_ladder_store(None, tmp_path / "ray")
    # one game per task: many tasks, ending in any order on the 2 workers
    runner = cluster.RayRunner(variant, BOTS, task_games=1)
    s = run_ladder(store, runner, list(BOTS), deals, settings)
    assert runner.tasks == s.games_played == len(local.games(variant))
    assert standings(store, variant) == standings(local, variant)
    assert [e["event"] for e in store.events(variant)] == [e["event"] for e in local.events(variant)]
    # 29 duplicate: 48 deals of 2 per game = 24 games, 12 events (2 seatings per pairing)
    if variant == "29":
        assert (s.games_total, s.events_total, s.deals_total) == (24, 12, 48)


@pytest.mark.slow
@pytest.mark.parametrize("variant,how", [("28", {"deals": 45}), ("56", {"matches": 9})])
def test_simulate_on_ray_gives_the_local_summary(ray_cpus2, variant, how):
    from taash.arena.simulation import simulate
    bots = ["heuristic", "random"] * (load_variant(variant).players // 2)
    _, local = simulate(load_variant(variant), how.get("matches"), how.get("deals"), 5, bots=bots, keep=False)
    far = cluster.simulate_ray(variant, how.get("matches"), how.get("deals"), 5, bots=bots, task_matches=2)
    assert far == local
    if "deals" in how:    # the last match is cut at the limit, as locally
        assert far["deals"] == 45 and sum(m["deals"] for m in far["matches"]) == 45
    else:
        assert len(far["matches"]) == 9 and [m["seed"] for m in far["matches"]] == list(range(5, 14))


# -- faults ----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_and_doubles_no_game(ray_cpus2, tmp_path):
    bots = {"killer": "killer=tests.ladder.test_cluster:killer", "random": "random"}
    settings = LadderSettings(seed=4, duplicate=True, game_deals=2)
    local = local_ladder(tmp_path, "28", 40, settings, bots)      # the killer never fires here
    (ray_cpus2 / "armed").write_text("1")
    try:
        store = open_ladder_store(None, tmp_path / "ray")
        s = run_ladder(store, cluster.RayRunner("28", bots, task_games=2), list(bots), 40, settings)
    finally:
        (ray_cpus2 / "armed").unlink()
    pid = int((ray_cpus2 / "fired").read_text())
    assert pid != os.getpid()                      # a worker died, not this driver
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert (s.games_total, s.events_total, s.deals_total) == (20, 10, 40)
    assert standings(store, "28") == standings(local, "28")
    assert json.dumps([x.to_json() for x in recompute(store, load_variant("28")).table()]) == standings(store, "28")


@pytest.mark.slow
def test_the_driver_interrupted_resumes_where_it_stopped(ray_cpus2, tmp_path):
    settings = LadderSettings(seed=9, duplicate=True, game_deals=2)
    local = local_ladder(tmp_path, "29", 64, settings)
    store = open_ladder_store(None, tmp_path / "ray")
    seen = []

    def stop_at_third(ratings, event, deals_total):
        seen.append(event)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_ladder(store, cluster.RayRunner("29", BOTS, task_games=2), list(BOTS), 64, settings,
                   on_event=stop_at_third)
    cut = len(store.games("29"))
    # the workers may have played every game before the third event is rated (they run
    # ahead of the driver): then the rerun plays none and resumes the rating alone
    assert len(store.events("29")) == 3 and 6 <= cut <= 32
    again = run_ladder(open_ladder_store(None, tmp_path / "ray"), cluster.RayRunner("29", BOTS), list(BOTS), 64, settings)
    assert again.games_played == 32 - cut and (again.games_total, again.events_total) == (32, 16)
    assert standings(store, "29") == standings(local, "29")


# -- PostgreSQL as the store -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def postgres_url():
    """A throwaway PostgreSQL server (as tests/ladder/test_ladder_store.py starts one, on
    another port), or skip."""
    pytest.importorskip("psycopg")
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl)")
    run_as = []
    d = Path(tempfile.mkdtemp(prefix="taash-pg-ray-"))
    if os.geteuid() == 0:   # the server refuses to run as root
        if subprocess.run(["id", "postgres"], capture_output=True).returncode != 0 or not shutil.which("runuser"):
            pytest.skip("running as root without a postgres user to start the server as")
        shutil.chown(d, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    port = "55447"
    r = subprocess.run([*run_as, initdb, "-D", str(d / "db"), "-A", "trust", "-U", "postgres"], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"initdb failed: {r.stderr.decode()[-200:]}")
    r = subprocess.run([*run_as, pg_ctl, "-D", str(d / "db"), "-w", "-l", str(d / "log"), "-o",
                        f"-p {port} -k {d} -c listen_addresses=''", "start"], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"the PostgreSQL server did not start: {r.stderr.decode()[-200:]}")
    try:
        yield f"postgresql://postgres@/postgres?host={d}&port={port}"
    finally:
        subprocess.run([*run_as, pg_ctl, "-D", str(d / "db"), "-m", "fast", "stop"], capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.slow
def test_a_ray_ladder_into_postgresql_equals_a_local_one_in_sqlite(ray_cpus2, postgres_url, tmp_path):
    settings = LadderSettings(seed=2, duplicate=True, game_deals=2)
    local = local_ladder(tmp_path, "28", 32, settings)
    pg = open_ladder_store(postgres_url)
    pg.reset("28")
    s = run_ladder(pg, cluster.RayRunner("28", BOTS), list(BOTS), 32, settings)
    assert (s.games_total, s.events_total) == (16, 8)
    assert standings(pg, "28") == standings(local, "28")
    pg.close()


# -- the command line and its errors ---------------------------------------------------------------
@pytest.mark.slow
def test_cli_ladder_run_on_ray_then_locally_resumes_nothing(ray_cpus2, tmp_path, capsys):
    from taash.arena.cli import main
    args = ["ladder", "run", "--variant", "28", "--bots", "heuristic,random", "--deals", "24", "--seed", "1",
            "--data", str(tmp_path), "--json", "--quiet"]
    assert main([*args, "--cluster", "ray"]) == 0
    far = json.loads(capsys.readouterr().out)
    assert (far["games_played"], far["games"], far["deals"]) == (6, 6, 24)
    assert main(args) == 0                  # the same ladder, locally: nothing left to play
    near = json.loads(capsys.readouterr().out)
    assert near["games_played"] == 0 and near["standings"] == far["standings"]


@pytest.mark.slow
def test_cli_simulate_on_ray_prints_the_local_json(ray_cpus2, capsys):
    from taash.arena.cli import main
    args = ["simulate", "304", "--deals", "12", "--seed", "2", "--json"]
    assert main(args) == 0
    near = capsys.readouterr().out
    assert main([*args, "--cluster", "ray"]) == 0
    assert capsys.readouterr().out == near


@pytest.mark.slow
def test_a_bot_a_worker_cannot_import_is_one_clear_error(ray_cpus2, tmp_path, monkeypatch):
    # a module the driver imports from a folder on its own sys.path only
    mod = tmp_path / "mine"
    mod.mkdir()
    (mod / "drivers_only_bot.py").write_text("from taash.arena.bots.random import random_bot as factory\n")
    monkeypatch.syspath_prepend(str(mod))
    bots = {"mine": "mine=drivers_only_bot:factory", "random": "random"}
    with pytest.raises(LadderError) as e:
        run_ladder(open_ladder_store(None, tmp_path / "s"), cluster.RayRunner("28", bots), list(bots), 8, LadderSettings())
    msg = str(e.value)
    assert "\n" not in msg and "on Ray worker" in msg and "drivers_only_bot" in msg


def test_without_ray_cluster_ray_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    """As every command whose extra is missing: one line naming the ray extra, exit 2."""
    from taash.arena.cli import main
    monkeypatch.setitem(sys.modules, "ray", None)      # import ray -> ImportError
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'taash\[ray\]'") as e:
        cluster.connect()
    assert e.value.name == "ray"
    assert main(["ladder", "run", "--variant", "28", "--bots", "heuristic,random", "--deals", "4",
                 "--data", str(tmp_path), "--cluster", "ray"]) == 2
    assert capsys.readouterr().err == "taash ladder run: needs the ray extra: pip install 'taash[ray]'\n"
    assert main(["simulate", "28", "--deals", "4", "--cluster", "ray"]) == 2
    assert capsys.readouterr().err == "taash simulate: needs the ray extra: pip install 'taash[ray]'\n"


def test_an_unreachable_cluster_is_one_line_and_fast(tmp_path, capsys):
    pytest.importorskip("ray")
    import socket
    from taash.arena.cli import main
    with socket.socket() as s:     # a port of this machine that nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["ladder", "run", "--variant", "28", "--bots", "heuristic,random", "--deals", "4",
                 "--data", str(tmp_path), "--cluster", "ray", "--address", f"127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot reach the Ray cluster at 127.0.0.1:{port}" in err
