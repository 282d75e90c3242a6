"""The fault policy of docs/protocol.md, each case reproduced by a misbehaving bot in a
process of its own (tests/helpers/fault_bot.py) against `taash arena serve`, over gRPC on
localhost. Every game must end, replay from its record, and show every verdict."""

from __future__ import annotations

import json

import pytest

from tests.helpers.arena_util import Server, record, verdict_kinds
from taash.interpreter import Match, load_variant, replay

TC = dict(move_ms=400, bank_ms=200, grace_ms=800, max_strikes=3)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("faults") / "data")
    yield s
    s.stop()


def play_fault(server, tmp_path, mode, variant="28", max_deals=1):
    """Seat 0: the fault bot; seats 1-3: one random bot. Returns (GameResult, record,
    what the fault bot saw)."""
    name, rname = f"f-{mode}", f"r-{mode}"
    server.bot("random", rname, server.token(rname))
    out = tmp_path / f"{mode}.json"
    server.fault_bot(mode, name, server.token(name), out)
    server.wait_connected([name, rname])
    results = server.run_matches(variant, [name, rname, rname, rname], seed=3, max_deals=max_deals, **TC)
    assert len(results) == 1
    res = results[0]
    assert res.error == "", res.error
    assert res.deals == max_deals
    rec = record(res.record)
    return res, rec, json.loads(out.read_text())


def seat_actions(rec, seat):
    """(deal, index, action, by_default) of every action of ``seat``, from replaying the
    record with the engine (which also checks that every action was legal)."""
    v = load_variant(rec["variant"], rec.get("options") or None)
    m = Match(v, rec["seed"])
    out = []
    for d, deal in enumerate(rec["deals"]):
        st = m.new_deal(hands=deal["hands"], widow=deal.get("widow"), dealer=deal["dealer"])
        by_default = set(rec["arena"]["deals"][d]["by_default"])
        for i, a in enumerate(deal["actions"]):
            if st.to_act == seat:
                out.append((d, i, a, i in by_default))
            st.apply(a)
        m.finish_deal(st)
    return out


def check_answers_applied(rec, log, seat=0):
    """Each action of ``seat`` is the bot's answer to that request, or (when the arena
    applied a default) the verdict's applied action; nothing else."""
    acts = seat_actions(rec, seat)
    reqs = [r for r in log["requests"] if not r.get("resumed")]
    defaults = {(v["deal"], v["index"]): v for v in rec["arena"]["verdicts"] if v["applied"]}
    for k, (d, i, a, dflt) in enumerate(acts):
        if dflt:
            assert (d, i) in defaults and defaults[(d, i)]["applied"] == a
            assert defaults[(d, i)]["seat"] == seat
        else:
            assert k < len(reqs) and reqs[k]["answer"] == a, (k, a, reqs[k] if k < len(reqs) else None)
    return acts


def test_late_answer_gets_the_default_and_is_never_applied_later(server, tmp_path):
    res, rec, log = play_fault(server, tmp_path, "late")
    kinds = verdict_kinds(rec)
    assert kinds == ["TIMEOUT", "LATE_ANSWER"]
    timeout, late = rec["arena"]["verdicts"]
    late_req = [r for r in log["requests"] if r["n"] == 2][0]
    assert timeout["request_id"] == late["request_id"] == late_req["request_id"]
    assert timeout["applied"] == late_req["legal"][0]          # the default: first legal action
    assert late["action"] == late_req["legal"][-1]             # what the bot sent, too late
    acts = check_answers_applied(rec, log)
    assert sum(1 for *_, dflt in acts if dflt) == 1
    # the bot was told, with typed verdicts
    assert [v["kind"] for v in log["verdicts"]] == ["TIMEOUT", "LATE_ANSWER"]
    # the bank was spent by the timeout: later requests carry only the move time
    later = [r for r in log["requests"] if r["n"] > 2]
    assert later and all(r["time_bank_ms"] == 0 and r["deadline_ms"] == TC["move_ms"] for r in later)
    assert replay(rec).deals[-1].is_terminal


def test_illegal_action_retry_then_strike_out(server, tmp_path):
    res, rec, log = play_fault(server, tmp_path, "illegal")
    assert verdict_kinds(rec) == ["ILLEGAL_ACTION", "ILLEGAL_ACTION", "ILLEGAL_ACTION", "STRIKE_OUT"]
    first = log["verdicts"][0]
    req2 = [r for r in log["requests"] if r["n"] == 2][0]
    assert first["kind"] == "ILLEGAL_ACTION" and first["action"] == "play ZZ" and first["strikes"] == 1
    assert first["legal"] == req2["legal"]                      # the legal set comes with the verdict
    strike = rec["arena"]["verdicts"][-1]
    req4 = [r for r in log["requests"] if r["n"] == 4][0]
    assert strike["request_id"] == req4["request_id"] and strike["strikes"] == 3
    assert strike["applied"] == req4["legal"][0]
    acts = check_answers_applied(rec, log)
    assert sum(1 for *_, dflt in acts if dflt) == 1             # the retry at request 2 was the bot's
    assert [v["kind"] for v in log["verdicts"]] == verdict_kinds(rec)


def test_malformed_messages_are_ignored_with_a_verdict(server, tmp_path):
    res, rec, log = play_fault(server, tmp_path, "malformed")
    assert verdict_kinds(rec) == ["MALFORMED_MESSAGE"] * 3
    msgs = [v["message"] for v in rec["arena"]["verdicts"]]
    assert "cannot decode" in msgs[0]
    assert "needs an action" in msgs[1]
    assert "must set one of" in msgs[2]
    acts = check_answers_applied(rec, log)
    assert not any(dflt for *_, dflt in acts)                   # the bot's own answer counted
    assert [v["kind"] for v in log["verdicts"]] == ["MALFORMED_MESSAGE"] * 3


def test_stale_and_unknown_requests(server, tmp_path):
    res, rec, log = play_fault(server, tmp_path, "stale")
    assert verdict_kinds(rec) == ["STALE_REQUEST"]
    assert [v["kind"] for v in log["verdicts"]] == ["STALE_REQUEST", "UNKNOWN_REQUEST"]
    assert log["verdicts"][1]["request_id"] == "g999999.7"
    acts = check_answers_applied(rec, log)
    assert not any(dflt for *_, dflt in acts)


def test_disconnect_and_resume_the_pending_decision(server, tmp_path):
    res, rec, log = play_fault(server, tmp_path, "disconnect")
    assert verdict_kinds(rec) == ["CRASHED", "RESUMED"]          # a cancelled stream, then back
    assert log["connections"] == 2
    resent = [r for r in log["requests"] if r["resumed"]]
    req3 = [r for r in log["requests"] if r["n"] == 3 and not r["resumed"]][0]
    assert len(resent) == 1 and resent[0]["request_id"] == req3["request_id"]
    assert resent[0]["legal"] == req3["legal"]
    req3["answer"] = resent[0]["answer"]
    acts = check_answers_applied(rec, log)
    assert not any(dflt for *_, dflt in acts)
    assert [v["kind"] for v in log["verdicts"]] == ["RESUMED"]
    # the verdict names the request it sends again (it had none before this was mended)
    assert [v["request_id"] for v in log["verdicts"]] == [req3["request_id"]]
    [resumed] = [v for v in rec["arena"]["verdicts"] if v["kind"] == "RESUMED"]
    assert resumed["request_id"] == req3["request_id"] and "pending request is sent again" in resumed["message"]


@pytest.mark.slow
@pytest.mark.parametrize("mode,kind", [("vanish", "DISCONNECTED"), ("crash", "CRASHED")])
def test_gone_for_good_plays_default_actions_to_the_end(server, tmp_path, mode, kind):
    res, rec, log = play_fault(server, tmp_path, mode)
    kinds = verdict_kinds(rec)
    assert kinds[0] == kind and kinds[1:] and set(kinds[1:]) == {"ABSENT"}
    acts = check_answers_applied(rec, log)
    n_before = len([r for r in log["requests"] if r["n"] < 3])
    assert not any(dflt for *_, dflt in acts[:n_before])
    assert all(dflt for *_, dflt in acts[n_before:])             # from request 3 on: defaults
    assert len(kinds) - 1 == len(acts) - n_before
    assert replay(rec).deals[-1].is_terminal


def test_sdk_reports_an_error_in_decide(server, tmp_path):
    res, rec, log = play_fault(server, tmp_path, "sdk-error")
    assert verdict_kinds(rec) == ["BOT_ERROR"]
    v = rec["arena"]["verdicts"][0]
    assert "RuntimeError: this bot crashed while deciding" in v["message"]
    assert v["applied"] == log["requests"][1]["legal"][0]
    check_answers_applied(rec, log)


def test_sdk_reconnects_and_resumes(server, tmp_path):
    res, rec, log = play_fault(server, tmp_path, "sdk-drop")
    assert verdict_kinds(rec) == ["CRASHED", "RESUMED"]
    acts = check_answers_applied(rec, log)
    assert not any(dflt for *_, dflt in acts)


def test_verdicts_of_a_seat_that_goes_and_comes_back_name_its_open_request(tmp_path):
    # hosting alone (no gRPC: its connections are answered in this process). Bot "b"
    # holds seats 1 and 3. Its stream goes while no request of it is open (DISCONNECTED
    # without a request id); the next decision is one of its seats', and is not sent
    # while it is away; a new stream gets it (RESUMED: "sent now", the request id,
    # resumed false). That stream breaks while the request is open (CRASHED with its id
    # for that seat); the next one gets it again (RESUMED: "sent again", resumed true),
    # and the deal is played out.
    import asyncio
    from taash.arena.pb import messages_pb2 as pb
    from taash.arena.server.hosting import Arena, Connection, TimeControl
    from taash.arena.server.faults import V
    from taash.arena.store import SQLiteStore

    def drain(c):       # the messages queued on c so far, parsed
        out = []
        while c.queue.qsize():
            item = c.queue.get_nowait()
            if type(item) is tuple:
                item[1].written(item[2])
                item = item[0]
            out.append(pb.ServerMessage.FromString(item))
        return out

    def split(msgs):
        return ([m.verdict for m in msgs if m.HasField("verdict")],
                [m.decision for m in msgs if m.HasField("decision")])

    async def main():
        arena = Arena(SQLiteStore(tmp_path / "data"), TimeControl(move_ms=60_000, bank_ms=0, grace_ms=60_000))
        v = load_variant("28")
        a, b1 = Connection("a"), Connection("b")
        arena.connect(a)
        arena.connect(b1)
        seed = next(s for s in range(100) if Match(v, s).new_deal().to_act % 2 == 0)   # a seat of "a" first
        game = asyncio.ensure_future(arena.run_game(v, seed, ["a", "b", "a", "b"], max_deals=1))

        def answer(c, d):
            m = pb.BotMessage()
            m.answer.request_id, m.answer.action = d.request_id, d.legal_actions[0]
            arena.on_message(c, m.SerializeToString())
        for _ in range(500):
            await asyncio.sleep(0.01)
            if any(type(i) is tuple for i in a.queue.items):
                break
        assert not any(type(i) is tuple for i in b1.queue.items)        # nothing asked of b yet
        first_missed = next(iter(arena.games.values())).nevents
        arena.disconnect(b1, V.DISCONNECTED)
        [d] = split(drain(a))[1]
        answer(a, d)                                                    # b's seat is next, b away
        p = arena.games[d.game_id].asking
        assert p is not None and p.seat in (1, 3) and p.sends == 0
        b2 = Connection("b")
        arena.connect(b2)
        # its seats come back at its first message: a hello asking for batched events
        assert not [m for m in drain(b2) if not m.HasField("welcome")]
        hello = pb.BotMessage()
        hello.hello.batch_events = True
        arena.on_message(b2, hello.SerializeToString())
        msgs = drain(b2)
        verdicts, asked = split(msgs)
        assert [(x.kind, x.seat, x.request_id) for x in verdicts] == [
            (V.RESUMED, s, p.rid if s == p.seat else "") for s in (1, 3)]
        [mine] = [x for x in verdicts if x.request_id]
        assert "sent now" in mine.message
        # the seat with no request pending is sent its view right after its RESUMED: the
        # observation of that seat now (its hand), as the engine gives it
        st = arena.games[d.game_id].st
        other = 4 - p.seat            # b's seat that is not asked: 1 or 3
        kinds = [m.WhichOneof("msg") for m in msgs]
        views = [m.view for m in msgs if m.HasField("view")]
        assert [(x.seat, x.deal) for x in views] == [(other, st.deal_number)]
        assert json.loads(views[0].observation_json) == st.observation(other)
        back = next(i for i, m in enumerate(msgs) if m.HasField("verdict") and m.verdict.seat == other)
        assert kinds[back + 1] == "view"
        assert [x.request_id for x in asked] == [p.rid] and not asked[0].resumed
        # every public event published while b was away reaches it, batched as it asked
        # (an events batch before the verdicts, the rest inside the view and the request;
        # none as a message of its own), in order, nothing twice
        assert not [m for m in msgs if m.HasField("event")]
        carried = {"events": lambda m: m.events.events, "view": lambda m: m.view.events,
                   "decision": lambda m: m.decision.events}
        seen = [e.index for m in msgs if m.WhichOneof("msg") in carried
                for e in carried[m.WhichOneof("msg")](m)] + [
            pb.GameEvent.FromString(e).index for e in b2.held]   # still held
        assert seen == list(range(first_missed, arena.games[d.game_id].nevents))
        arena.disconnect(b2, V.CRASHED)                                 # with the request open
        b3 = Connection("b")                                            # sends nothing first
        arena.connect(b3)
        await asyncio.sleep(0.4)                                        # its seats come back anyway
        msgs = drain(b3)
        verdicts, asked = split(msgs)
        [mine] = [x for x in verdicts if x.request_id]
        assert mine.request_id == p.rid and "sent again" in mine.message
        assert [x.request_id for x in asked] == [p.rid] and asked[0].resumed
        # not batching: the events missed (its own CRASHED faults, at least) one message each
        missed = [m.event.index for m in msgs if m.HasField("event")]
        assert missed and missed == list(range(missed[0], missed[-1] + 1))
        answer(b3, asked[0])
        conns = {"a": a, "b": b3}
        while not game.done():      # play the deal out, first legal action
            for c in conns.values():
                for x in split(drain(c))[1]:
                    answer(c, x)
            await asyncio.sleep(0.01)
        return game.result(), p.rid, p.seat

    result, rid, seat = asyncio.run(main())
    assert result["error"] == "" and result["deals"] == 1
    rec = json.loads(open(result["record"]).read())
    got = [(v["kind"], v["seat"], v["request_id"]) for v in rec["arena"]["verdicts"]]
    named = {s: rid if s == seat else None for s in (1, 3)}
    assert got == ([("DISCONNECTED", s, None) for s in (1, 3)] + [("RESUMED", s, named[s]) for s in (1, 3)]
                   + [("CRASHED", s, named[s]) for s in (1, 3)] + [("RESUMED", s, named[s]) for s in (1, 3)])
    assert replay(rec).deals[-1].is_terminal


def test_every_hello_spends_one_of_the_stream_and_the_token_budget(tmp_path):
    # docs/protocol.md, Limits: every message counts, a hello that toggles batching too
    # (each costs the arena work); a second stream of the same token shares its budget
    import asyncio
    from taash.arena.pb import messages_pb2 as pb
    from taash.arena.server.faults import STREAM_BURST, TOKEN_BURST
    from taash.arena.server.hosting import Arena, Connection, TimeControl
    from taash.arena.store import SQLiteStore

    def hello(batch):
        m = pb.BotMessage()
        m.hello.batch_events = batch
        return m.SerializeToString()

    async def main():
        arena = Arena(SQLiteStore(tmp_path / "data"), TimeControl())
        c, d = Connection("a", token="t"), Connection("a", token="t")
        arena.connect(c)
        arena.connect(d)
        spent = []
        for batch in (True, False, True, True, True):
            arena.on_message(c, hello(batch))
            spent.append((round(STREAM_BURST - c.meter.tokens), round(TOKEN_BURST - c.token_meter.tokens)))
        arena.on_message(d, hello(False))
        return c.batch, d.batch, spent, round(STREAM_BURST - d.meter.tokens), round(TOKEN_BURST - d.token_meter.tokens)
    batch, dbatch, spent, d_stream, d_token = asyncio.run(main())
    assert batch is True and dbatch is False
    assert spent == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    assert (d_stream, d_token) == (1, 6)
