"""The arena under hostile bots (docs/protocol.md, "Limits"): each case a bot in
a process of its own (tests/helpers/fault_bot.py) against `taash arena serve`, over gRPC
on localhost. Repeated faults are counted, not fanned out; a flooding stream is closed;
texts are clipped; a re-issued or revoked token cuts its streams; authorization is
strict; an answer just before its deadline is on time; an explicit 0 bank or grace is 0;
a default for a hidden choice is drawn at random and replays."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import grpc
import pytest

from taash.arena.server.faults import DETAIL_LIMIT, STREAM_BURST, TEXT_LIMIT
from taash.interpreter import Match, load_variant, replay
from tests.helpers.arena_util import Server, record, verdict_kinds


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # byte budgets past the 23 MiB of answers one test sends (test_arena_budgets.py cuts them)
    s = Server(tmp_path_factory.mktemp("limits") / "data", "--token-bytes", str(64 << 20), "--peer-bytes", str(64 << 20))
    yield s
    s.stop()


def bots_for(server, tmp_path, mode, name, others="plain"):
    """The fault bot ``mode`` as ``name`` and a second bot process for the other seats
    (``others``: a fault_bot mode, or ``random`` for `taash bot random`); returns (its
    log path, the other bot's name, the other's log path or None)."""
    other = f"o-{name}"
    olog = None
    if others == "random":
        server.bot("random", other, server.token(other))
    else:
        olog = tmp_path / f"{other}.json"
        server.fault_bot(others, other, server.token(other), olog)
    out = tmp_path / f"{name}.json"
    server.fault_bot(mode, name, server.token(name), out)
    server.wait_connected([name, other])
    return out, other, olog


def one_game(server, name, other, **tc):
    (res,) = server.run_matches("28", [name, other, other, other], seed=3, max_deals=1, **tc)
    assert res.error == "", res.error
    return res, record(res.record)


def n_actions(rec):
    return sum(len(d["actions"]) for d in rec["deals"])


def test_ten_thousand_empty_messages_are_counted_and_close_the_stream(server, tmp_path):
    out, other, olog = bots_for(server, tmp_path, "flood", "flood")
    res, rec = one_game(server, "flood", other, move_ms=5000, bank_ms=0, grace_ms=5000)
    log = json.loads(out.read_text())
    # the arena closed the flooding stream (RESOURCE_EXHAUSTED; a client still writing may
    # see its own INTERNAL instead); the bot came back and played on
    assert log["ended"][0]["code"] in ("RESOURCE_EXHAUSTED", "INTERNAL"), log["ended"]
    assert log["connections"] == 2
    kinds = verdict_kinds(rec)
    closed = [v for v in rec["arena"]["verdicts"] if v["kind"] == "CLOSED_BY_ARENA"]
    assert len(closed) == 1 and "too many messages on this stream" in closed[0]["message"]
    assert kinds.count("MALFORMED_MESSAGE") == DETAIL_LIMIT          # the first ones in full
    assert "CLOSED_BY_ARENA" in kinds and kinds[-1] == "RESUMED"
    counted = rec["arena"]["fault_counts"][0]["MALFORMED_MESSAGE"]
    assert STREAM_BURST <= counted <= 10_000                             # the rest counted
    assert rec["arena"]["fault_counts"][1:] == [{}, {}, {}]
    assert res.faults == sum(rec["arena"]["fault_counts"][0].values())
    # the opponents got a bounded number of events: one per action, the deal's start and
    # end, the game's end, and at most a few faults (those in full, one aggregated count)
    events = json.loads(olog.read_text())["events"]
    assert events <= n_actions(rec) + 3 + len(kinds) + 1, (events, n_actions(rec))
    assert Path(res.record).stat().st_size < 64 * 1024
    assert replay(rec).deals[-1].is_terminal


def test_answers_of_one_mebibyte_do_not_bloat_the_record(server, tmp_path):
    out, other, _ = bots_for(server, tmp_path, "huge", "huge", others="random")
    res, rec = one_game(server, "huge", other, move_ms=3000, bank_ms=0, grace_ms=2000)
    # 23 illegal answers: two ILLEGAL_ACTION, the third a strike-out, then 20 more and the
    # legal one come after the request is settled: LATE_ANSWER, five in full
    assert verdict_kinds(rec) == ["ILLEGAL_ACTION", "ILLEGAL_ACTION", "STRIKE_OUT"] + ["LATE_ANSWER"] * DETAIL_LIMIT
    assert rec["arena"]["fault_counts"][0] == {"ILLEGAL_ACTION": 2, "STRIKE_OUT": 1, "LATE_ANSWER": 21}
    for v in rec["arena"]["verdicts"]:
        assert v["action"] is None or len(v["action"]) <= TEXT_LIMIT + 30
        assert "XXXX" not in v["message"]                            # an action is stored once, clipped
    ill = rec["arena"]["verdicts"][0]["action"]
    assert ill.startswith("play 0XXX") and ill.endswith(f"...({(1 << 20) + 6} characters)")
    assert Path(res.record).stat().st_size < 64 * 1024
    assert replay(rec).deals[-1].is_terminal


@pytest.mark.parametrize("how", ["token", "revoke"])
def test_a_reissued_or_revoked_token_cuts_its_stream_at_once(server, tmp_path, how):
    name = f"held-{how}"
    out, other, _ = bots_for(server, tmp_path, "hold", name, others="random")
    results = {}

    def play():
        results["r"] = server.run_matches("28", [name, other, other, other], seed=4, max_deals=1,
                                          move_ms=30000, bank_ms=0, grace_ms=300)

    t = threading.Thread(target=play)
    t.start()
    hold = Path(str(out) + ".hold")
    end = time.monotonic() + 60
    while not hold.exists() and time.monotonic() < end:
        time.sleep(0.05)
    assert hold.exists(), "the bot never reached its 3rd request"
    r = server.taash("arena", how, name, "--data", str(server.data))
    assert r.returncode == 0, r.stderr
    t.join(120)
    assert not t.is_alive()
    (res,) = results["r"]
    assert res.error == ""
    rec = record(res.record)
    log = json.loads(out.read_text())
    assert log["ended"] == [{"code": "UNAUTHENTICATED", "details": log["ended"][0]["details"]}]
    assert "re-issued or revoked" in log["ended"][0]["details"]
    kinds = verdict_kinds(rec)
    # closed long before the held request's 30 s: its seat went away and, its grace
    # spent, played by default (ABSENT, never TIMEOUT) to the end of the deal
    assert kinds[0] == "CLOSED_BY_ARENA" and set(kinds[1:]) == {"ABSENT"}
    held = [v for v in rec["arena"]["verdicts"] if v["request_id"] == hold.read_text()]
    assert [v["kind"] for v in held] == ["CLOSED_BY_ARENA", "ABSENT"]    # the close names the open request
    assert replay(rec).deals[-1].is_terminal
    # no seat in a new game: the bot is not connected (or not even known, once revoked)
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
    req = apb.MatchRequest(variant="28", bots=[name, other, other, other], matches=1, seed=5, max_deals=1,
                           wait_ms=500)
    with grpc.insecure_channel(server.addr) as ch, pytest.raises(grpc.RpcError) as e:
        list(arena_pb2_grpc.ArenaStub(ch).RunMatches(req, metadata=[("authorization", f"Bearer {server.admin}")],
                                                     timeout=60))
    assert e.value.code() == (grpc.StatusCode.NOT_FOUND if how == "revoke" else grpc.StatusCode.FAILED_PRECONDITION)


def test_the_old_token_is_refused_after_reissue(server, tmp_path):
    old = server.token("reissued")
    server.token("reissued")
    out = tmp_path / "old.json"
    p = server.fault_bot("plain", "reissued", old, out)
    p.wait(60)
    assert json.loads(out.read_text())["ended"][0]["code"] == "UNAUTHENTICATED"


@pytest.mark.parametrize("mode,message", [
    ("auth-plain", "must be 'Bearer <token>'"),
    ("auth-two", "more than one 'authorization'"),
])
def test_authorization_is_parsed_strictly(server, tmp_path, mode, message):
    tok = server.token(f"strict-{mode}")
    out = tmp_path / f"{mode}.json"
    p = server.fault_bot(mode, f"strict-{mode}", tok, out)
    p.wait(60)
    ended = json.loads(out.read_text())["ended"]
    assert ended[0]["code"] == "UNAUTHENTICATED" and message in ended[0]["details"], ended


def test_an_answer_just_before_the_deadline_is_on_time(server, tmp_path):
    out, other, _ = bots_for(server, tmp_path, "edge", "edge", others="random")
    res, rec = one_game(server, "edge", other, move_ms=300, bank_ms=0, grace_ms=2000)
    log = json.loads(out.read_text())
    assert len(log["requests"]) >= 8
    assert verdict_kinds(rec) == []                     # no TIMEOUT, no LATE_ANSWER
    assert rec["arena"]["deals"][0]["by_default"] == []


def test_an_explicit_zero_bank_and_grace_mean_zero(server, tmp_path):
    server.bot("random", "zero", server.token("zero"))
    server.wait_connected(["zero"])
    r = server.taash("arena", "match", "28", "--bots", "zero,zero,zero,zero", "--max-deals", "1",
                     "--bank-ms", "0", "--grace-ms", "0", "--server", server.addr, "--data", str(server.data),
                     "--json")
    assert r.returncode == 0, r.stderr
    rec = record(json.loads(r.stdout)["matches"][0]["record"])
    assert rec["arena"]["time_control"]["bank_ms"] == 0 and rec["arena"]["time_control"]["grace_ms"] == 0
    # without them, the arena's defaults
    r = server.taash("arena", "match", "28", "--bots", "zero,zero,zero,zero", "--max-deals", "1",
                     "--server", server.addr, "--data", str(server.data), "--json")
    rec = record(json.loads(r.stdout)["matches"][0]["record"])
    assert (rec["arena"]["time_control"]["bank_ms"], rec["arena"]["time_control"]["grace_ms"]) == (20000, 15000)


def test_a_timed_out_hidden_trump_card_is_drawn_at_random_and_replays(server, tmp_path):
    """28 (docs/rules.md §28.5): a declarer that never answers gets a face-down trump card drawn
    from its legal cards, the same one on replay; over seeds, not always the first."""
    server.fault_bot("silent", "mute", server.token("mute"), tmp_path / "mute.json")
    server.wait_connected(["mute"])
    games = server.run_matches("28", ["mute"] * 4, matches=8, seed=20, max_deals=1,
                               move_ms=20, bank_ms=0, grace_ms=0)
    v = load_variant("28")
    positions = []
    for g in games:
        assert g.error == ""
        rec = record(g.record)
        deal = rec["deals"][0]
        st = Match(v, rec["seed"]).new_deal(hands=deal["hands"], widow=deal["widow"], dealer=deal["dealer"])
        for a in deal["actions"]:
            if a.startswith("trump-card"):
                legal = [x for x in st.legal_actions() if x.kind == "trump-card"]
                assert a == st.default_action()              # the record replays the same default
                positions.append(legal.index(a))
            st.apply(a)
    assert len(positions) == 8
    assert len(set(positions)) > 1, positions                 # not always the first card
