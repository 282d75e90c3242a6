"""The ladder store behind one interface: open_ladder_store's configuration strings, and the
same ladder in a PostgreSQL server as in SQLite (skipped where no server can be started)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from taash.arena.ladder import InProcessRunner, LadderSettings, recompute, run_ladder
from taash.arena.store import SQLiteLadderStore, StoreError, open_ladder_store
from taash.arena.store.sql import redact
from taash.interpreter import load_variant

BOTS = {"heuristic": "heuristic", "random": "random"}


def test_open_store_reads_the_configuration(tmp_path):
    assert open_ladder_store(None, tmp_path / "d").path == tmp_path / "d" / "ladder.sqlite3"
    assert open_ladder_store(str(tmp_path / "e")).path == tmp_path / "e" / "ladder.sqlite3"
    assert open_ladder_store(str(tmp_path / "f.db")).path == tmp_path / "f.db"
    assert open_ladder_store(f"sqlite:///{tmp_path}/g.sqlite3").path == tmp_path / "g.sqlite3"
    with pytest.raises(StoreError, match="unknown ladder store"):
        open_ladder_store("mysql://x/y")
    assert redact("postgresql://me:secret@db:5432/l") == "postgresql://me:***@db:5432/l"


def test_an_unwritable_place_is_a_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot open the ladder database"):
        SQLiteLadderStore(blocker / "sub" / "ladder.sqlite3")


@pytest.fixture(scope="module")
def postgres_url():
    pytest.importorskip("psycopg")
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl)")
    run_as = []
    d = Path(tempfile.mkdtemp(prefix="taash-pg-"))
    if os.geteuid() == 0:   # the server refuses to run as root
        if subprocess.run(["id", "postgres"], capture_output=True).returncode != 0 or not shutil.which("runuser"):
            pytest.skip("running as root without a postgres user to start the server as")
        shutil.chown(d, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    port = "55437"
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
def test_the_same_ladder_in_postgresql_as_in_sqlite(postgres_url, tmp_path):
    pg = open_ladder_store(postgres_url)
    pg.reset("304-solo")
    settings = LadderSettings(seed=2, duplicate=True, game_deals=2)
    s = run_ladder(pg, InProcessRunner("304-solo", BOTS), list(BOTS), 12, settings)
    lite = open_ladder_store(None, tmp_path)
    run_ladder(lite, InProcessRunner("304-solo", BOTS), list(BOTS), 12, settings)
    assert [x.to_json() for x in pg.standings("304-solo")] == [x.to_json() for x in lite.standings("304-solo")]
    assert pg.events("304-solo") and [e["event"] for e in pg.events("304-solo")] == \
        [e["event"] for e in lite.events("304-solo")]
    again = run_ladder(pg, InProcessRunner("304-solo", BOTS), list(BOTS), 12, settings)
    assert (again.games_played, again.games_total) == (0, s.games_total)
    assert [x.to_json() for x in recompute(pg, load_variant("304-solo")).table()] == \
        [x.to_json() for x in pg.standings("304-solo")]
    pg.close()
