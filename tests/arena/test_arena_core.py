"""Spectators, batched events and bounded queues of the arena, each with the
arena (`taash arena serve`), bots and spectators in processes of their own, over gRPC.

- the spectator cap refuses the N+1th Watch with RESOURCE_EXHAUSTED; --private-watch
  needs the watch token;
- a spectator that never reads is dropped with RESOURCE_EXHAUSTED while the games go on
  and finish; a spectator that reads sees every event of every game, in order, and one
  that reads WatchBatches the same events in fewer messages (an idle one is dropped alike);
- what all spectators are sent is bounded by --spectator-rate: an idle spectator with
  gRPC's default window falls behind and is dropped, a WatchBatches reader keeps up;
- a bot stream that is never read is dropped as a fault (CRASHED) past --max-queued;
  its game finishes (the seat is then absent); a burst on a stream being read (many
  games starting at once) is no fault, up to ten times the limit;
- batched events (Hello.batch_events) carry the same events, in the same order, as one
  message each, inside decisions and in one ServerMessage.events batch at a game's end.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from tests.helpers import ROOT
from tests.helpers.arena_util import Server, env, record
from taash.interpreter import replay
from taash.arena.pb import arena_pb2 as apb
from taash.arena.pb import arena_pb2_grpc
from taash.arena.server.hosting import BURST_FACTOR, WRITE_STALL_S, Connection

CLIENT = [sys.executable, "-m", "tests.helpers.watch_client"]
EVENT_BOT = [sys.executable, "-m", "tests.helpers.event_bot"]


def spawn(procs, cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    procs.append(p)
    return p


def reap(procs):
    """Wait for the spectator processes (their calls end with the server), killing a stuck one."""
    for p in procs:
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()


def events_by_game(seen, results):
    """A reading spectator's events (watch_client's FILE) by game id; every game of
    ``results`` (RunMatches results) is there, and no other."""
    by_game = {}
    for e in seen["events"]:
        by_game.setdefault(e["game"], []).append(e)
    assert sorted(by_game) == sorted(r.game_id for r in results)
    return by_game


def wait_file(path: Path, timeout=60.0):
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"no {path}"
        time.sleep(0.05)


def watch_error(addr, token=None, game_id="g-none"):
    """The status of a Watch call from this process for a game that is not running:
    (code, details). NOT_FOUND means the call passed the token and the cap."""
    md = [("authorization", f"Bearer {token}")] if token else None
    with grpc.insecure_channel(addr) as ch:
        call = arena_pb2_grpc.ArenaStub(ch).Watch(apb.WatchRequest(game_id=game_id), metadata=md, timeout=30)
        try:
            list(call)
        except grpc.RpcError as e:
            return e.code(), e.details()
        raise AssertionError("a Watch of no game ended without an error")


def test_spectator_cap_and_watch_token(tmp_path):
    s = Server(tmp_path / "data", "--max-spectators", "2", "--private-watch")
    procs = []
    try:
        tok = (tmp_path / "data" / "watch-token").read_text().strip()
        code, details = watch_error(s.addr)
        assert code == grpc.StatusCode.UNAUTHENTICATED and "watch token" in details
        code, details = watch_error(s.addr, token="taash_wrong")
        assert code == grpc.StatusCode.UNAUTHENTICATED and "neither this arena's watch token" in details
        outs = [tmp_path / f"w{i}.json" for i in range(2)]
        for o in outs:
            spawn(procs, [*CLIENT, "read", "--server", s.addr, "--out", str(o), "--token", tok])
        for o in outs:
            wait_file(Path(str(o) + ".open"))
        code, details = watch_error(s.addr, token=tok)
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "2 spectators" in details
        # the admin token also lets one watch; once a spectator leaves there is room again
        procs[0].terminate()
        procs[0].wait(10)
        end = time.monotonic() + 30
        while watch_error(s.addr, token=s.admin)[0] != grpc.StatusCode.NOT_FOUND:
            assert time.monotonic() < end, "the cap was not released"
            time.sleep(0.1)
    finally:
        for p in procs:
            p.kill()
        s.stop()


def test_a_spectator_that_never_reads_is_dropped_and_the_games_finish(tmp_path):
    s = Server(tmp_path / "data", "--spectator-backlog", "300")
    procs = []
    try:
        idle, reader = tmp_path / "idle.json", tmp_path / "reader.json"
        idle_b, reader_b = tmp_path / "idle-b.json", tmp_path / "reader-b.json"
        spawn(procs, [*CLIENT, "idle", "--server", s.addr, "--out", str(idle)])
        spawn(procs, [*CLIENT, "read", "--server", s.addr, "--out", str(reader)])
        spawn(procs, [*CLIENT, "idle", "--batches", "--server", s.addr, "--out", str(idle_b)])
        spawn(procs, [*CLIENT, "read", "--batches", "--server", s.addr, "--out", str(reader_b)])
        for f in (idle, reader, idle_b, reader_b):
            wait_file(Path(str(f) + ".open"))
        s.bot("random", "r1", s.token("r1"))
        s.bot("random", "r2", s.token("r2"))
        s.wait_connected(["r1", "r2"])
        results = s.run_matches("29", ["r1", "r2", "r1", "r2"], matches=4, seed=5, max_deals=5)
        assert len(results) == 4 and all(r.deals == 5 and r.error == "" and r.faults == 0 for r in results)
        Path(str(idle) + ".go").write_text("")
        Path(str(idle_b) + ".go").write_text("")
        wait_file(idle)
        wait_file(idle_b)
        got = json.loads(idle.read_text())
        for g in (got, json.loads(idle_b.read_text())):
            assert g["code"] == "RESOURCE_EXHAUSTED", g["code"]
            assert "fell" in g["details"] and "behind" in g["details"] and "last 300" in g["details"]
        # games played: each event count is what the records say
        total = 0
        for r in results:
            rec = record(r.record)
            # game_started, per deal: deal_started, its actions, deal_ended; game_ended
            total += 2 + sum(2 + len(d["actions"]) for d in rec["deals"])
        assert len(got["events"]) < total
    finally:
        s.stop()        # the reading spectator's call ends with the server
        reap(procs)
    seen = json.loads(reader.read_text())
    seen_b = json.loads(reader_b.read_text())
    assert seen_b["events"] == seen["events"]      # the same events in the same order
    assert seen["messages"] == len(seen["events"]) and seen_b["messages"] < len(seen["events"])
    by_game = events_by_game(seen, results)
    for r in results:
        evs = by_game[r.game_id]
        rec = record(r.record)
        assert [e["index"] for e in evs] == list(range(len(evs)))     # nothing skipped
        assert evs[0]["type"] == "game_started" and evs[-1]["type"] == "game_ended"
        assert sum(e["type"] == "action" for e in evs) == sum(len(d["actions"]) for d in rec["deals"])


def test_spectators_together_are_sent_at_most_the_spectator_rate(tmp_path):
    """An idle spectator with gRPC's default window (64 KiB: every event of these games
    fits) is sent no more than --spectator-rate allows, falls behind and is dropped;
    without the bound it took every event at once and was never dropped. A spectator
    that reads WatchBatches keeps up within the same budget and sees every game whole."""
    s = Server(tmp_path / "data", "--spectator-rate", "50", "--spectator-backlog", "300")
    procs = []
    try:
        idle, reader = tmp_path / "idle.json", tmp_path / "reader.json"
        spawn(procs, [*CLIENT, "idle", "--default-window", "--server", s.addr, "--out", str(idle)])
        spawn(procs, [*CLIENT, "read", "--batches", "--server", s.addr, "--out", str(reader)])
        for f in (idle, reader):
            wait_file(Path(str(f) + ".open"))
        s.bot("random", "r1", s.token("r1"))
        s.bot("random", "r2", s.token("r2"))
        s.wait_connected(["r1", "r2"])
        results = s.run_matches("29", ["r1", "r2", "r1", "r2"], matches=4, seed=9, max_deals=4)
        assert len(results) == 4 and all(r.deals == 4 and r.error == "" for r in results)
        code, details = watch_error(s.addr, game_id=results[0].game_id)      # a game that is over
        assert code == grpc.StatusCode.NOT_FOUND and "it is over" in details
        assert f"records/{results[0].game_id}.json" in details
        Path(str(idle) + ".go").write_text("")
        wait_file(idle)
        got = json.loads(idle.read_text())
        assert got["code"] == "RESOURCE_EXHAUSTED", got["code"]
        assert "fell" in got["details"] and "behind" in got["details"]
        # sent at most 50 a second while its call was open, plus the bucket's burst (5)
        assert got["messages"] <= 50 * got["seconds"] + 5, (got["messages"], got["seconds"])
        total = sum(2 + sum(2 + len(d["actions"]) for d in record(r.record)["deals"]) for r in results)
        assert got["messages"] < total
    finally:
        s.stop()
        reap(procs)
    seen = json.loads(reader.read_text())
    by_game = events_by_game(seen, results)
    for r in results:
        evs = by_game[r.game_id]
        assert [e["index"] for e in evs] == list(range(len(evs)))
        assert evs[-1]["type"] == "game_ended"


def test_a_bot_stream_never_read_is_dropped_as_a_fault(tmp_path):
    s = Server(tmp_path / "data", "--max-queued", "40")
    procs = []
    try:
        out = tmp_path / "idle-bot.json"
        spawn(procs, [*CLIENT, "idle-bot", "--server", s.addr, "--out", str(out), "--token", s.token("idle")])
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["idle", "r"])
        [res] = s.run_matches("28", ["idle", "r", "r", "r"], seed=2, max_deals=1,
                              move_ms=300, bank_ms=1, grace_ms=300, max_strikes=3)
        assert res.error == "" and res.deals == 1
        rec = record(res.record)
        # the idle bot's seat 0 (on a loaded machine a random bot may also answer late)
        kinds = [v["kind"] for v in rec["arena"]["verdicts"] if v["seat"] == 0]
        crashed = [v for v in rec["arena"]["verdicts"] if v["kind"] == "CRASHED"]
        assert len(crashed) == 1 and crashed[0]["seat"] == 0
        m = re.search(r"not read \((\d+) messages waiting, none taken for ([\d.]+) s; the limit is 40\)",
                      crashed[0]["message"])
        assert m and 40 <= int(m[1]) < 400 and float(m[2]) >= 2.0, crashed[0]["message"]
        # before the drop its decisions timed out; after it, its seat is absent
        assert set(kinds) <= {"TIMEOUT", "CRASHED", "ABSENT"} and "ABSENT" in kinds
        assert kinds.index("CRASHED") < kinds.index("ABSENT")
        Path(str(out) + ".go").write_text("")
        wait_file(out)
        got = json.loads(out.read_text())
        assert got["code"] == "RESOURCE_EXHAUSTED" and "not read" in got["details"]
        assert got["events"][0]["type"] == "welcome"
        assert len(got["events"]) <= 40 + 5         # what was queued, and little in flight
    finally:
        for p in procs:
            p.kill()
        s.stop()


def test_the_send_limit_counts_a_stalled_stream_not_a_burst():
    """In process: a Connection past its limit while its write is under way (or none
    is) takes more, up to BURST_FACTOR times the limit; once its write has waited
    WRITE_STALL_S with the limit reached, the next message calls on_overflow, once, and
    is not queued. The tester's case: 20 games starting at once on a stream with
    --max-queued 50 queued more than 50 messages and the healthy bot was dropped."""
    dropped = []

    def fresh():
        c = Connection("b")
        c.limit = 5
        c.on_overflow = dropped.append
        return c
    c = fresh()
    for i in range(12):                      # a burst, nothing written yet
        c.send(b"m")
    c.write_since = time.monotonic() - WRITE_STALL_S / 4      # a write under way, not stalled
    c.send(b"m")
    assert c.queue.qsize() == 13 and dropped == [] and not c.stalled()
    c.write_since = time.monotonic() - WRITE_STALL_S - 0.1    # its write waits: the client reads nothing
    assert c.stalled()
    c.send(b"m")
    c.send(b"m")
    assert dropped == [c] and c.queue.qsize() == 13
    c = fresh()
    for i in range(5 * BURST_FACTOR + 3):    # a burst past the hard bound
        c.send(b"m")
    assert dropped[1:] == [c] and c.queue.qsize() == 5 * BURST_FACTOR


def test_batched_events_carry_the_same_events_as_separate_ones(tmp_path):
    s = Server(tmp_path / "data")
    try:
        outs = {}
        for name, batch in (("eb", True), ("en", False)):
            outs[name] = tmp_path / f"{name}.json"
            cmd = [*EVENT_BOT, "--name", name, "--token", s.token(name), "--server", s.addr,
                   "--out", str(outs[name])] + (["--batch"] if batch else [])
            s.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                            env=env(), cwd=ROOT))
        s.wait_connected(["eb", "en"])
        results = s.run_matches("28", ["eb", "en", "eb", "en"], matches=2, seed=11, max_deals=2)
        assert all(r.error == "" and r.faults == 0 for r in results)
        for o in outs.values():
            wait_file(o)
        end = time.monotonic() + 30
        while True:
            b, n = (json.loads(outs[k].read_text()) for k in ("eb", "en"))
            if b["games_ended"] == 2 and n["games_ended"] == 2 or time.monotonic() > end:
                break
            time.sleep(0.1)
        assert b["games_ended"] == n["games_ended"] == 2
        # every event, in the same order, byte for byte
        assert b["events"] == n["events"] and len(b["events"]) > 100
        # the batched bot got them inside decisions (and the rest as one batch just before
        # each game_start message or at each game's end), the other one as messages of
        # their own
        assert n["messages"]["event"] == len(n["events"]) and n["in_decisions"] == n["in_batches"] == 0
        assert "events" not in n["messages"] and "event" not in b["messages"]
        assert b["in_decisions"] > len(b["events"]) // 2
        assert b["in_batches"] + b["in_decisions"] + b["in_views"] == len(b["events"])
        assert b["in_views"] > 0 and n["in_views"] == 0   # the seat views carry held events too
        # one batch at the end of each of the 2 games (its last events and game_ended), and
        # at most one before each game_start
        assert 2 <= b["messages"]["events"] <= 4
    finally:
        s.stop()


def test_taash_bot_with_batched_events_plays_without_a_fault(tmp_path):
    s = Server(tmp_path / "data")
    try:
        s.bot("heuristic", "hb", s.token("hb"), "--batch-events")
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["hb", "r"])
        [res] = s.run_matches("29", ["hb", "r", "hb", "r"], seed=4, max_deals=2)
        assert res.error == "" and res.faults == 0 and res.deals == 2
        assert replay(record(res.record)).deals[-1].is_terminal
    finally:
        s.stop()
