"""Words for what went well and what was lost: a seat taken back (RESUMED) is listed apart
from the faults on the web pages, and a ladder whose arena dies mid-run says it lost
the arena, not that it never reached it."""

from __future__ import annotations

import asyncio
import socket

import pytest

from taash.arena.errors import LadderError
from taash.arena.ladder.arena_runner import ArenaRunner
from taash.arena.ladder.schedule import GameSpec
from taash.arena.pb import messages_pb2 as pb
from taash.arena.store import SQLiteStore
from taash.arena.web.data import Site
from taash.arena.web.live import apply_event
from tests.arena.test_web import _get, first_legal_record
from tests.helpers.arena_util import Server


def test_the_bot_page_lists_its_seats_taken_back_apart_from_its_faults(tmp_path):
    st = SQLiteStore(tmp_path)
    rec = first_legal_record(deals=1)
    # x holds seats 0 and 2: one TIMEOUT and two RESUMED are x's, the RESUMED of seat 1 is y's
    rec["arena"] = {"game_id": "g1", "bots": ["x", "y", "x", "y"], "verdicts": [
        {"deal": 0, "index": 3, "seat": 0, "kind": "TIMEOUT"}, {"deal": 0, "index": 4, "seat": 0, "kind": "RESUMED"},
        {"deal": 0, "index": 7, "seat": 2, "kind": "RESUMED"}, {"deal": 0, "index": 9, "seat": 1, "kind": "RESUMED"}]}
    gid = st.new_game_id()
    st.save_game(gid, {"variant": "29", "seed": 3, "bots": ["x", "y", "x", "y"], "complete": False,
                       "score": [0, 0, 0, 0], "winners": [], "faults": 4}, rec)
    site = Site(None, tmp_path)
    x, y = site.bot("x"), site.bot("y")
    assert (x["faults"], x["resumed"]) == ({"TIMEOUT": 1}, 2)
    assert (y["faults"], y["resumed"]) == ({}, 1)
    [(status, html, _), (_, html_y, _)] = asyncio.run(_get(site, "/bot/x", "/bot/y"))
    assert status == 200
    faults_table = html.split("<table class=\"faults\">")[1].split("</table>")[0]
    assert "TIMEOUT" in faults_table and "RESUMED" not in faults_table
    assert "(RESUMED, a recovery, not a fault): 2" in html
    assert "No fault in its arena games." in html_y and "(RESUMED, a recovery, not a fault): 1" in html_y


def test_the_live_page_counts_seats_taken_back_apart_from_faults():
    games = {}
    ev = lambda t, **kw: {"game": "g1", "index": 0, "type": t, **kw}
    apply_event(games, ev("game_started", variant="29", bots=["a", "b", "c", "d"]))
    apply_event(games, ev("fault", deal=0, seat=1, kind=pb.Verdict.RESUMED, count=1))
    g = apply_event(games, ev("fault", deal=0, seat=2, kind=pb.Verdict.TIMEOUT, count=3))
    assert (g["faults"], g["resumed"]) == (3, 1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_ladder_never_reaching_its_arena_says_so():
    addr = f"127.0.0.1:{_free_port()}"      # nothing listens there
    runner = ArenaRunner(addr, "tok", "28")
    try:
        with pytest.raises(LadderError) as e:
            runner.connected()
        assert str(e.value) == f"cannot reach the arena at {addr}: is `taash arena serve` running?"
    finally:
        runner.close()


def test_a_ladder_whose_arena_dies_mid_run_says_it_lost_it(tmp_path):
    s = Server(tmp_path / "data")
    runner = None
    try:
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["r"])
        runner = ArenaRunner(s.addr, s.admin, "28")
        assert runner.connected()["r"] >= 1
        g = runner.play(GameSpec("r00000/r/s1", "r00000/r/s1", 0, 4, ("r",) * 4, 1))
        assert g.deals == 1
        s.proc.kill()
        s.proc.wait(30)
        with pytest.raises(LadderError) as e:
            runner.play(GameSpec("r00000/r/s2", "r00000/r/s2", 0, 5, ("r",) * 4, 1))
        assert str(e.value).startswith(f"lost the arena at {s.addr} during the run (it stopped or was killed)")
    finally:
        if runner is not None:
            runner.close()
        s.stop()
