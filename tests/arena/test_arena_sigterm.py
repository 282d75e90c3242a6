"""SIGTERM of an arena in full play: twenty games at once, two bot processes, their streams
written to as the stop comes. The arena exits without a traceback (a write refused by
gRPC core as the server ends its calls, ExecuteBatchError, was uncaught), and every game
it was playing is saved as the docs say: cut short, its finished deals in its record,
nothing left in the journal."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time

from taash.arena.store import SQLiteStore
from tests.helpers.arena_util import ROOT, TAASH, Server, env, record


def test_sigterm_in_full_play_saves_every_game_and_raises_nothing(tmp_path):
    s = Server(tmp_path / "data")
    try:
        for name in ("a", "b"):
            s.bot("random", name, s.token(name))
        s.wait_connected(["a", "b"])
        client = subprocess.Popen([*TAASH, "arena", "match", "28", "--bots", "a,b,a,b", "--matches", "100000",
                                   "--parallel", "20", "--max-deals", "3", "--server", s.addr, "--data", str(s.data)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(), cwd=ROOT)
        s.procs.append(client)
        db = sqlite3.connect(f"file:{s.data / 'arena.sqlite3'}?mode=ro", uri=True, timeout=10)
        end = time.monotonic() + 120
        while db.execute("SELECT count(*) FROM journal WHERE n > 0").fetchone()[0] < 20:
            assert time.monotonic() < end, s.logtext()
            time.sleep(0.01)
        db.close()
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(60) == 0
        log = s.logtext()
    finally:
        s.stop()
    assert "Traceback" not in log and "ExecuteBatchError" not in log and "Error" not in log, log[-3000:]
    store = SQLiteStore(tmp_path / "data")
    try:
        assert store.journals() == {}          # every game in flight was saved at the stop
        games = store.games()
    finally:
        store.close()
    cut = [g for g in games if not g["complete"] and record(g["record"])["arena"].get("error")]
    assert cut, "no game was in flight at the stop"
    for g in cut:
        rec = record(g["record"])
        assert rec["arena"]["error"] == "the arena stopped before the game ended"
        assert len(rec["deals"]) <= 3
    out = subprocess.run([*TAASH, "replay", cut[0]["record"], "--json"], capture_output=True, text=True,
                         env=env(), cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["deals"]) == len(record(cut[0]["record"])["deals"])
