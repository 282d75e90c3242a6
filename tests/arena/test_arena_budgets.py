"""What one bot token may take of an arena (docs/protocol.md, "Limits"), each case a raw
gRPC client in a process of its own (tests/helpers/hostile.py) against `taash arena
serve`: a cap of streams per token, the arena's memory back after many streams, a budget
that counts every message (hellos that toggle batching too) per stream and per token, the
status a flooder sees, and a bot that is late on every request: it gets its verdicts
and keeps its connection."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import grpc
import pytest

from taash.arena.pb import arena_pb2 as apb
from taash.arena.pb import arena_pb2_grpc
from taash.arena.pb import messages_pb2 as pb
from taash.arena.server.faults import MAX_STREAMS, STREAM_BURST, STREAM_RATE, TOKEN_BURST
from tests.helpers import ROOT
from tests.helpers.arena_util import Server, env, record

HOSTILE = [sys.executable, "-m", "tests.helpers.hostile"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("budgets") / "data")
    yield s
    s.stop()


def hostile(server, mode, token, *extra, timeout=300) -> dict:
    out = subprocess.run([*HOSTILE, mode, "--server", server.addr, "--token", token, *extra],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid`` (KiB, /proc/PID/status VmRSS)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_token_has_at_most_its_streams_the_next_is_refused(server):
    tok = server.token("many")
    got = hostile(server, "streams", tok, "--n", str(MAX_STREAMS + 1))
    opened = got["opened"]
    assert opened[:MAX_STREAMS] == [{"welcome": "many"}] * MAX_STREAMS
    refused = opened[MAX_STREAMS]
    assert refused["code"] == "RESOURCE_EXHAUSTED"
    assert f"{MAX_STREAMS} streams open with this token" in refused["details"]
    assert "--max-streams" in refused["details"]
    # one closed, one more may open
    assert got["after_close"] == {"welcome": "many"}


def test_memory_comes_back_after_many_streams(server):
    # 10,000 streams of one token once kept 266 MiB after they closed: each stream's
    # state is freed when it ends (after a first 300 that warm gRPC's own pools up)
    tok = server.token("churn")
    hostile(server, "churn", tok, "--n", "300")
    before = rss_kib(server.proc.pid)
    hostile(server, "churn", tok, "--n", "3000")
    after = rss_kib(server.proc.pid)
    assert after - before < 16 * 1024, (before, after)     # 3,000 streams of 27 KiB each would be 79 MiB


def test_hellos_that_toggle_batching_spend_the_stream_budget(server):
    # each hello costs the arena work; 5,000 of them on one stream are more than its
    # budget (STREAM_BURST, then STREAM_RATE a second): the stream is closed
    tok = server.token("toggler")
    got = hostile(server, "hello", tok, "--n", "5000")
    assert got["welcome"] == "toggler"
    assert got["code"] == "RESOURCE_EXHAUSTED", got
    assert "too many messages on this stream" in got["details"]
    assert f"more than {STREAM_BURST} at once or {STREAM_RATE:g} a second" in got["details"]
    assert got["sent"] > STREAM_BURST
    # the reason is in the stream too, as a verdict of no seat, before the status
    assert got["verdicts"] == [["CLOSED_BY_ARENA", got["details"]]]


def test_the_token_budget_is_shared_by_its_streams(server):
    # a new stream is no fresh allowance: four streams of one token, each sending less
    # than a stream's burst, pass the token's together
    tok = server.token("shared")
    per = STREAM_BURST - 100
    assert 4 * per > TOKEN_BURST + 200
    got = hostile(server, "shared", tok, "--n", str(per))
    codes = [e["code"] for e in got["ended"]]
    assert "RESOURCE_EXHAUSTED" in codes, got
    for e in got["ended"]:
        if e["code"] == "RESOURCE_EXHAUSTED":
            assert "too many messages with this token" in e["details"]
        else:
            assert e["code"] == "OK", e


@pytest.mark.parametrize("run", range(3))
def test_a_flooder_sees_resource_exhausted(server, run):
    # a client that writes with call.write and then reads gets the arena's status, not
    # gRPC's "Internal error from Core" (the arena ends the stream once the writes pause)
    got = hostile(server, "flood", server.token(f"flooder{run}"), "--n", "5000")
    assert got["code"] == "RESOURCE_EXHAUSTED", got
    assert "too many messages on this stream" in got["details"]
    assert got["write_error"] in (None, "finished")
    assert got["last_verdict"] == ["CLOSED_BY_ARENA", got["details"]]


def test_a_token_past_its_byte_budget_is_cut_and_refused_a_while(server):
    # hellos of 1 MiB each (a message, far within the message budget): each costs its
    # bytes past the first 1,024, so four fit in the token's 4 MiB and the fifth is past
    # it by about 1 MiB, which its 256 KiB a second refill takes about 4 s to repay; those
    # read after the cut (the sixth, and what was in flight up to the eighth) cost as much
    # each, so the debt is of 1 to 4 MiB: 4 to 16 s, less the second the next call is held
    got = hostile(server, "big", server.token("heavy"), "--n", "8", "--ms", "1024")
    assert got["sent"] >= 5
    assert got["code"] == "RESOURCE_EXHAUSTED", got
    assert got["details"].startswith("too many bytes with this token (more than 4 MiB at once or 256 KiB a second")
    assert "--token-bytes" in got["details"]
    assert got["last_verdict"] == ["CLOSED_BY_ARENA", got["details"]]
    # its next stream is refused before anything of it is read, saying for how long
    again = got["again"]
    assert again["code"] == "RESOURCE_EXHAUSTED" and "this token is past its budget" in again["details"]
    wait = float(again["details"].split("no new stream for ")[1].split(" s")[0])
    assert 2.5 < wait <= 16.0
    # another token from the same address is welcomed: the cut is the heavy token's alone
    assert hostile(server, "streams", server.token("light"), "--n", "1")["opened"] == [{"welcome": "light"}]


def test_a_message_past_the_largest_honest_one_is_refused_by_grpc_before_it_is_read(server):
    # the largest honest message is a MatchRequest with a text of 1 MiB (MAX_VARIANT_TEXT)
    # and 64 KiB for its other fields: a hello of 2 MiB (2,097,152 characters, framed in 10
    # bytes more) is refused by gRPC itself, and costs no byte of the token's budget
    from taash.arena.server.wire import MAX_MESSAGE
    assert MAX_MESSAGE == (1 << 20) + (64 << 10)
    got = hostile(server, "big", server.token("huge-hello"), "--n", "1", "--ms", "2048")
    assert got["code"] == "RESOURCE_EXHAUSTED", got
    assert got["details"] == f"SERVER: Received message larger than max ({(2 << 20) + 10} vs. {MAX_MESSAGE})"
    assert got["again"] == {"welcome": "huge-hello"}


def test_a_bot_late_on_every_request_keeps_its_connection(server):
    # one bot in all four seats of 60 games at once, each answer 400 ms after its
    # request, past every deadline (50 ms + the 250 ms network grace): more than a
    # hundred late answers a second, each a LATE_ANSWER verdict and nothing more (they
    # once spent a budget of 1,000 bad messages refilled at 50 a second, and the bot was cut)
    tok = server.token("slowpoke")
    games = 60
    result = {}

    def bot():
        result["bot"] = hostile(server, "late", tok, "--n", str(games), "--ms", "400", timeout=600)

    t = threading.Thread(target=bot)
    t.start()
    server.wait_connected(["slowpoke"])
    req = apb.MatchRequest(variant="28", bots=["slowpoke"] * 4, matches=games, parallel=games, seed=11,
                           max_deals=1, time_control=pb.TimeControl(move_ms=50, bank_ms=0, grace_ms=5000))
    with grpc.insecure_channel(server.addr) as ch:
        ups = arena_pb2_grpc.ArenaStub(ch).RunMatches(req, metadata=[("authorization", f"Bearer {server.admin}")],
                                                      timeout=600)
        results = [u.game for u in ups if u.WhichOneof("update") == "game"]
    t.join(120)
    assert not t.is_alive()
    got = result["bot"]
    assert len(results) == games and all(r.error == "" and r.deals == 1 for r in results)
    assert got["connections"] == 1 and got["ended"] == []          # never cut
    kinds = set()
    for r in results:
        kinds |= set(k for c in record(r.record)["arena"]["fault_counts"] for k in c)
    assert kinds == {"TIMEOUT", "LATE_ANSWER"}
    assert "CLOSED_BY_ARENA" not in got["verdicts"] and "DISCONNECTED" not in got["verdicts"]
    assert got["verdicts"]["LATE_ANSWER"] >= got["verdicts"]["TIMEOUT"] - games > 1000


def test_an_unread_stream_in_many_games_costs_the_honest_bots_nothing(server):
    # a bot that never reads its stream, seated in 30 games at once beside a heuristic
    # bot: its own seats time out; the honest bot, however slowed, keeps its connection
    # (such load once cut an honest bot for its late answers, in one run of three)
    server.bot("heuristic", "honest", server.token("honest"))
    p = subprocess.Popen([*HOSTILE, "unread", "--server", server.addr, "--token", server.token("deaf"),
                          "--ms", "600000"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=env(), cwd=ROOT)
    server.procs.append(p)
    server.wait_connected(["honest", "deaf"])
    games = 30
    req = apb.MatchRequest(variant="28", bots=["honest", "deaf", "honest", "deaf"], matches=games, parallel=games,
                           seed=21, max_deals=1, time_control=pb.TimeControl(move_ms=200, bank_ms=0, grace_ms=1000))
    with grpc.insecure_channel(server.addr) as ch:
        ups = arena_pb2_grpc.ArenaStub(ch).RunMatches(req, metadata=[("authorization", f"Bearer {server.admin}")],
                                                      timeout=600)
        results = [u.game for u in ups if u.WhichOneof("update") == "game"]
    assert len(results) == games and all(r.error == "" and r.deals == 1 for r in results)
    for r in results:
        counts = record(r.record)["arena"]["fault_counts"]
        # the honest bot, slowed by the load, may be late: that is a verdict, not a disconnect
        assert set(counts[0]) | set(counts[2]) <= {"TIMEOUT", "LATE_ANSWER"}, counts
        assert set(counts[1]) <= {"TIMEOUT", "ABSENT", "CRASHED"}, counts
    log = server.logtext()
    assert log.count("bot honest connected") == 1 and "bot honest lost" not in log   # never cut


def test_an_address_budget_is_shared_by_its_tokens():
    # two tokens from one address, each within its own byte budget (10 KiB at once), pass
    # the address's (16 KiB) together; a third stream from another address is untouched
    from taash.arena.limits import Limits
    from taash.arena.server.budgets import Budgets, peer_host
    from taash.arena.server.connection import Connection
    assert peer_host("ipv4:10.0.0.7:5555") == "ipv4:10.0.0.7" and peer_host("ipv6:[::1]:80") == "ipv6:[::1]"
    budgets = Budgets(Limits(token_bytes=10 << 10, token_byte_rate=1, peer_bytes=16 << 10, peer_byte_rate=1))
    a, b, c = (Connection(n, peer, token=n) for n, peer in
               (("a", "ipv4:10.0.0.7:5555"), ("b", "ipv4:10.0.0.7:6666"), ("c", "ipv4:10.0.0.8:5555")))
    for conn in (a, b, c):
        budgets.attach(conn)
    msg = 1024 + 8 * 1024           # costs 8 KiB: the first 1,024 bytes are free
    assert budgets.spend(a, msg, True) is None          # a: 8 of 10 KiB, the address 8 of 16
    assert budgets.spend(b, msg, True) is None          # b: 8 of 10, the address 16 of 16
    why = budgets.spend(b, 2048, True)                  # 1 KiB more: b's token holds, its address not
    assert why.startswith("too many bytes from this address (more than 16 KiB at once or 1 bytes a second")
    assert budgets.owed("b", "ipv4:10.0.0.7:7777").startswith("this address is past its budget")
    assert budgets.owed("c", "ipv4:10.0.0.8:1") is None and budgets.spend(c, msg, True) is None


def test_an_ipv6_address_budget_is_shared_by_its_64():
    # two addresses of one /64 spend one address budget (16 KiB); one of another /64 is apart
    from taash.arena.limits import Limits
    from taash.arena.server.budgets import Budgets
    from taash.arena.server.connection import Connection
    budgets = Budgets(Limits(token_bytes=10 << 10, token_byte_rate=1, peer_bytes=16 << 10, peer_byte_rate=1))
    a, b, c = (Connection(n, peer, token=n) for n, peer in
               (("a", "ipv6:[2001:db8:1:2::5]:5555"), ("b", "ipv6:[2001:db8:1:2:ffff::9]:6666"),
                ("c", "ipv6:[2001:db8:1:3::5]:5555")))
    for conn in (a, b, c):
        budgets.attach(conn)
    msg = 1024 + 8 * 1024           # 8 KiB each
    assert budgets.spend(a, msg, True) is None and budgets.spend(b, msg, True) is None   # the /64: 16 of 16
    assert budgets.spend(b, 2048, True).startswith("too many bytes from this address")
    assert budgets.owed("a", "ipv6:[2001:db8:1:2::77]:1").startswith("this address is past its budget")
    assert budgets.owed("c", "ipv6:[2001:db8:1:3::6]:1") is None and budgets.spend(c, msg, True) is None


def test_what_a_cut_stream_sends_after_its_cut_is_dropped_and_spent_from_its_budgets(tmp_path):
    # a token of 10 KiB at once (1 byte a second): a hello of 1,024 + 8 KiB bytes costs
    # 8 KiB; a second one passes the 10 KiB and closes the stream (6 KiB in debt); a third,
    # read after the cut, is dropped (the stream is not closed again: one CLOSED_BY_ARENA)
    # but costs its 8 KiB too: 14 KiB in debt, 14,336 s at 1 byte a second
    import asyncio

    from taash.arena.limits import Limits
    from taash.arena.server.faults import Closed
    from taash.arena.server.hosting import Arena, Connection, TimeControl
    from taash.arena.store import SQLiteStore
    # a client name of 9,210 characters: 3 bytes of tag and length each for it and for
    # the Hello around it, 9,216 bytes in all, of which 8 KiB past the free 1,024
    hello = pb.BotMessage(hello=pb.Hello(client="x" * 9210)).SerializeToString()
    assert len(hello) == 1024 + (8 << 10)
    cost = 8 << 10

    async def main():
        arena = Arena(SQLiteStore(tmp_path / "data"), TimeControl(),
                      limits=Limits(token_bytes=10 << 10, token_byte_rate=1))
        c = Connection("a", "ipv4:10.0.0.9:5000", token="t")
        arena.connect(c)
        arena.on_message(c, hello)
        first = 10 << 10 == round(c.token_bytes.tokens) + cost
        arena.on_message(c, hello)
        alive_after_second = c.alive
        arena.on_message(c, hello)
        sent = [c.queue.get_nowait() for _ in range(c.queue.qsize())]
        closes = [x for x in sent if isinstance(x, Closed)]
        return first, alive_after_second, closes, c.token_bytes.tokens, arena.budgets.owed_s("t", c.peer)

    first, alive, closes, level, owed = asyncio.run(main())
    assert first and not alive
    assert len(closes) == 1 and closes[0].message.startswith("too many bytes with this token")
    assert round(level) == (10 << 10) - 3 * cost == -(14 << 10)
    assert owed > 14_000


def test_a_token_that_owes_less_than_the_hold_is_let_in_after_it(tmp_path):
    # a token of 2 KiB at once, 2 KiB a second: a hello with a client name of 4 KiB is
    # 4,102 bytes (6 of tags and lengths), 3,078 past the free 1,024, 1,030 past the
    # budget: the stream is closed naming it, and the token owes about half a second; its
    # next call comes sooner and is held (unread) until it owes nothing, then welcomed,
    # where refusing it at once would have said "no new stream for 0.x s"
    s = Server(tmp_path / "data", "--token-bytes", "2048", "--token-byte-rate", "2048")
    try:
        got = hostile(s, "big", s.token("owing"), "--n", "1", "--ms", "4")
        assert got["code"] == "RESOURCE_EXHAUSTED"
        assert got["details"].startswith("too many bytes with this token (more than 2 KiB at once or 2 KiB a second")
        assert got["again"] == {"welcome": "owing"}
    finally:
        s.stop()
