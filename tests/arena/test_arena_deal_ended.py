"""A deal that anyone was told had ended is never lost: the arena publishes DealEnded
only once the deal's journal entry is committed. A spectator in a process of its own
kills the arena (SIGKILL) the instant it reads a DealEnded, while fifty one-deal games
keep the store's thread busy (each game's end writes its record); the store, reopened,
holds every deal the spectator was told of: in its game's journal, or in the game
saved (its end writes the game and drops its journal together), every time."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from taash.arena.store import SQLiteStore
from tests.helpers.arena_util import ROOT, TAASH, Server, env

TRIALS = 10


def one_trial(data: Path, after: int) -> tuple[list, dict, dict]:
    """Start an arena on ``data`` with a random bot, a spectator that kills it at the
    ``after``th DealEnded, and one-deal games of the 28, fifty at a time; returns (the
    [game_id, deal] the spectator was told of, the store's journals after the kill, its
    saved games by id)."""
    # a spectator of every game may fall behind fifty games: not dropped here
    s = Server(data, "--spectator-rate", "0", "--spectator-backlog", "1000000")
    out = data.parent / f"{data.name}-killed.json"
    try:
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["r"])
        spy = subprocess.Popen([sys.executable, "-m", "tests.helpers.kill_at_deal_end", "--server", s.addr,
                                "--pid", str(s.proc.pid), "--out", str(out), "--after", str(after)], env=env(), cwd=ROOT,
                               stderr=subprocess.PIPE, text=True)
        s.procs.append(spy)
        end = time.monotonic() + 60
        while not Path(str(out) + ".open").exists():
            assert spy.poll() is None and time.monotonic() < end, spy.stderr.read() if spy.poll() is not None else ""
            time.sleep(0.02)
        match = subprocess.Popen([*TAASH, "arena", "match", "28", "--bots", "r,r,r,r", "--seed", "5", "--matches", "100000", "--parallel", "50", "--max-deals", "1",
                                  "--server", s.addr, "--data", str(data)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(), cwd=ROOT)
        s.procs.append(match)
        if spy.wait(120) != 0:
            print(spy.stderr.read()[-3000:], s.logtext()[-3000:])
            raise AssertionError("the spectator failed")
        assert s.proc.wait(30) == -9        # killed by the spectator
        told = json.loads(out.read_text())
    finally:
        for p in s.procs:
            p.kill()
        s.stop()
    store = SQLiteStore(data)
    try:
        return told, store.journals(), {g["game_id"]: g for g in store.games()}
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kills with SIGKILL")
def test_a_deal_told_ended_is_in_the_journal_when_the_arena_is_killed_at_once(tmp_path):
    for i in range(TRIALS):
        told, journals, saved = one_trial(tmp_path / f"data{i}", after=1 + 40 * (i % 5))
        for game_id, deal in told:
            if game_id in saved:        # the game ended and was saved: its one deal with it
                assert deal == 0 and saved[game_id]["record"], (i, game_id)
                continue
            entries = journals.get(game_id)
            assert entries is not None, (i, game_id, deal, "no journal and not saved")
            # entry 0 is the game's head; deal d (0-based, as DealEnded numbers it) is entry d + 1
            assert len(entries) >= deal + 2, (i, game_id, deal, len(entries))
            d = entries[deal + 1]
            assert len(d["hands"]) == 4 and all(len(h) == 8 for h in d["hands"]) and d["actions"]
