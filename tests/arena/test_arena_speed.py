"""What the arena's fast paths must keep exactly as before:

- the observation JSON the arena writes with orjson is, byte for byte, the text of
  ``json.dumps(obs, separators=(",", ":"), ensure_ascii=False)``, at every decision of
  whole deals of every shipped variant (hidden trump, widow, called partner), and for
  values orjson refuses (a non-string key, an integer past 64 bits: the json module then
  writes it);
- the spliced DecisionRequest bytes (held events appended as serialized bytes) are the
  bytes protobuf itself writes for the same request;
- the SDK's lazy `Observation` reads as the parsed JSON and parses nothing until read,
  and a bot with it plays a match over gRPC (the arena and the bots in processes of
  their own);
- a bot answering from its reading loop (threads=False) survives an answer it cannot send;
- a connection's `Outbox` gives its messages in the order put, to a reader that waits or
  not, and a reader cancelled while waiting loses nothing;
- a game's record file (orjson, indented) parses back to the record itself, non-ASCII
  text, integer keys and integers past 64 bits included;
- the floor server of bench/arena.py (--floor) does the engine's work of every decision:
  its requests are the engine's legal actions and observation and carry every action's
  public form, so that its figure is a true floor.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import subprocess
import sys
import time

import pytest

from taash.arena.pb import messages_pb2 as pb
from taash.arena.sdk import Observation
from taash.arena.server import framing
from taash.arena.server.hosting import Outbox
from taash.arena.store import SQLiteStore
from taash.arena.store import compact_json as observation_json
from taash.interpreter import Match, load_variant
from taash.interpreter.playout import steps
from tests.helpers import ROOT
from tests.helpers.arena_util import Server, env, record

EVENT_BOT = [sys.executable, "-m", "tests.helpers.event_bot"]

VARIANTS = ["28", "29", "56", "304", "304-solo", "court-piece"]


def observations(name: str, deals: int = 3, seed: int = 3):
    """Every seat's observation at every decision of ``deals`` deals, random legal play."""
    v = load_variant(name)
    rng = random.Random(seed)
    gen = steps(Match(v, seed), max_deals=deals)
    try:
        st, seat = next(gen)
        while True:
            for s in range(v.players):
                yield st.observation(s)
            st, seat = gen.send(rng.choice(st.legal_actions()))
    except StopIteration:
        return


@pytest.mark.parametrize("name", VARIANTS)
def test_observation_json_is_the_json_modules_text(name):
    n = 0
    for obs in observations(name):
        assert observation_json(obs) == json.dumps(obs, separators=(",", ":"), ensure_ascii=False)
        n += 1
    assert n > 100


def test_observation_json_falls_back_to_the_json_module():
    for obs in ({1: "x", "hand": ["QS"]}, {"n": 2 ** 70}, {"name": "Pāṇḍava \"quoted\" \\ \u0001"}):
        assert observation_json(obs) == json.dumps(obs, separators=(",", ":"), ensure_ascii=False)
    assert observation_json({1: "x"}) == '{"1":"x"}'


@pytest.mark.parametrize("name", VARIANTS)
def test_state_observation_json_is_the_json_modules_text(name):
    # what the arena sends: State.observation_json, its history and tricks kept between calls
    v = load_variant(name)
    rng = random.Random(5)
    gen = steps(Match(v, 5), max_deals=2)
    n = 0
    try:
        st, seat = next(gen)
        while True:
            for s in range(v.players):
                assert st.observation_json(s) == json.dumps(st.observation(s), separators=(",", ":"),
                                                            ensure_ascii=False)
                n += 1
            st, seat = gen.send(rng.choice(st.legal_actions()))
    except StopIteration:
        pass
    assert n > 100


def test_state_observation_json_falls_back_to_the_json_module():
    # a public variable past 64 bits: orjson refuses it, the json module writes it
    v = load_variant("house/29-dealer-keeps")
    st = Match(v, 1).new_deal()
    kept = next(x for x in v.variables if x.name == "kept")
    assert kept.public and kept.type == "number"
    st.vars[kept.index] = 2 ** 70
    text = st.observation_json(st.to_act)
    assert text == json.dumps(st.observation(st.to_act), separators=(",", ":"), ensure_ascii=False)
    assert str(2 ** 70) in text


def test_framed_messages_are_the_bytes_protobuf_writes():
    text = {s: observation_json(o) for s, o in enumerate(observations("304", deals=1)) if s < 4}
    events = [pb.GameEvent(game_id="g7", index=0, deal_started=pb.DealStarted(deal=1, dealer=3)),
              pb.GameEvent(game_id="g7", index=1, action=pb.ActionTaken(deal=1, seat=2, action="JS",
                                                                         by_default=True)),
              pb.GameEvent(game_id="g7", index=2, deal_ended=pb.DealEnded(
                  deal=1, hands=[pb.Cards(cards=["JS", "9S", "AS", "TS"] * 8)] * 4, result_json="{}" * 200))]
    assert len(events[2].SerializeToString()) > 128         # a length of two varint bytes
    for seat, obs in text.items():
        for n in range(len(events) + 1):
            req = pb.DecisionRequest(request_id=f"g7.{seat}", game_id="g7", seat=seat, observation_json=obs * 20,
                                     legal_actions=["pass", "bid 160"], deadline_ms=2000, time_bank_ms=seat,
                                     attempt=seat % 2, resumed=seat == 3)
            framed = framing.decision_message(req.SerializeToString(), [e.SerializeToString() for e in events[:n]])
            req.events.extend(events[:n])
            assert framed == pb.ServerMessage(decision=req).SerializeToString()
            assert pb.ServerMessage.FromString(framed).decision == req
            view = pb.SeatView(game_id="g7", seat=seat, deal=seat % 2, observation_json=obs * 20)
            framed = framing.view_message(view.SerializeToString(), [e.SerializeToString() for e in events[:n]])
            view.events.extend(events[:n])
            assert framed == pb.ServerMessage(view=view).SerializeToString()
    for e in events:
        assert framing.event_message(e.SerializeToString()) == pb.ServerMessage(event=e).SerializeToString()
    assert [framing.varint(n) for n in (0, 1, 127, 128, 300, 2 ** 21)] == \
        [b"\x00", b"\x01", b"\x7f", b"\x80\x01", b"\xac\x02", b"\x80\x80\x80\x01"]


def test_lazy_observation_parses_on_first_read_only():
    obs = next(observations("29", deals=1))
    text = observation_json(obs)
    lazy = Observation(text)
    assert lazy.text == text and lazy._d is None      # nothing parsed yet
    assert lazy["seat"] == 0 and lazy.get("nothing", 7) == 7 and "hand" in lazy
    assert dict(lazy) == obs and len(lazy) == len(obs) and list(lazy) == list(obs)
    with pytest.raises(KeyError):
        lazy["nothing"]
    assert isinstance(Observation("{}"), Observation) and dict(Observation("{}")) == {}
    with pytest.raises(ValueError):
        Observation("{bad")["seat"]      # a bad text fails where it is read (decide: a BotError)
    # made from the DecisionRequest itself (the SDK's way): its text is taken on first use
    req = pb.DecisionRequest(request_id="g1.0", observation_json=text)
    lazy = Observation(req)
    assert lazy._text is req and lazy._d is None
    assert lazy["seat"] == 0 and lazy.text == text and dict(lazy) == obs


def test_a_lazy_observation_bot_plays_a_match_over_grpc(tmp_path):
    """Two SDK bots in processes of their own (threads=False: answered from the reading
    loop), one with lazy_observation: each decision's observation names the bot's seat
    and the request's legal actions, and the match has no fault."""
    s = Server(tmp_path / "data")
    try:
        outs = {}
        for name, lazy in (("lz", True), ("dc", False)):
            outs[name] = tmp_path / f"{name}.json"
            cmd = [*EVENT_BOT, "--name", name, "--token", s.token(name), "--server", s.addr, "--batch",
                   "--out", str(outs[name])] + (["--lazy"] if lazy else [])
            s.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                            env=env(), cwd=ROOT))
        s.wait_connected(["lz", "dc"])
        [res] = s.run_matches("29", ["lz", "dc", "lz", "dc"], seed=5, max_deals=2)
        assert res.error == "" and res.faults == 0 and res.deals == 2
        rec = record(res.record)
        end = time.monotonic() + 30
        while not all(o.exists() and json.loads(o.read_text())["games_ended"] == 1 for o in outs.values()):
            assert time.monotonic() < end, "the bots did not see the game end"
            time.sleep(0.05)
        got = {k: json.loads(o.read_text())["decisions"] for k, o in outs.items()}
        assert got["lz"]["types"] == ["Observation"] and got["dc"]["types"] == ["dict"]
        # every action of the record was a decision of one of the two bots, none defaulted
        actions = sum(len(d["actions"]) for d in rec["deals"])
        assert got["lz"]["disagree"] == got["dc"]["disagree"] == 0
        assert got["lz"]["agree"] + got["dc"]["agree"] == actions > 40
    finally:
        s.stop()


def test_an_answer_that_cannot_be_sent_does_not_end_the_bot(tmp_path):
    """threads=False answers from the reading loop: an answer protobuf cannot encode
    (decide returned a lone surrogate) is logged there, as a task's failure was, and the
    bot plays on: that one decision times out (default action), every later one is
    answered."""
    s = Server(tmp_path / "data")
    try:
        outs = {}
        for name, extra in (("us", ["--unsendable-first"]), ("ok", [])):
            outs[name] = tmp_path / f"{name}.json"
            cmd = [*EVENT_BOT, "--name", name, "--token", s.token(name), "--server", s.addr, "--batch",
                   "--lazy", "--out", str(outs[name]), *extra]
            s.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                            env=env(), cwd=ROOT))
        s.wait_connected(["us", "ok"])
        [res] = s.run_matches("28", ["us", "ok", "us", "ok"], seed=2, max_deals=2, move_ms=300, bank_ms=0)
        assert res.error == "" and res.deals == 2
        rec = record(res.record)
        kinds = [v["kind"] for v in rec["arena"]["verdicts"]]
        assert kinds == ["TIMEOUT"]
        assert rec["arena"]["verdicts"][0]["seat"] in (0, 2)
        assert sum(len(d["by_default"]) for d in rec["arena"]["deals"]) == 1
        assert all(p.poll() is None for p in s.procs)       # both bots still running
    finally:
        s.stop()


def test_outbox_keeps_order_and_wakes_its_reader():
    async def main():
        box = Outbox()
        got = []

        async def reader(n):
            for _ in range(n):
                got.append(await box.get())
        t = asyncio.ensure_future(reader(3))
        await asyncio.sleep(0)              # the reader now waits on an empty box
        assert box.qsize() == 0 and not t.done()
        box.put_nowait(b"a")
        box.put_nowait(b"b")                # two puts before it runs: one wake, both read
        await asyncio.sleep(0)
        assert got == [b"a", b"b"]
        box.put_nowait(None)
        await t
        assert got == [b"a", b"b", None] and box.qsize() == 0
        # a reader cancelled while waiting: the next one gets what comes after
        waiting = asyncio.ensure_future(box.get())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        box.put_nowait(b"c")
        box.put_nowait(b"d")
        assert box.qsize() == 2 and box.get_nowait() == b"c"
        assert await box.get() == b"d"
        with pytest.raises(IndexError):
            box.get_nowait()
    asyncio.run(main())


def test_record_file_parses_back_to_the_record(tmp_path):
    store = SQLiteStore(tmp_path)
    record = {"variant": "29", "bots": ["Pāṇḍava \"q\" \\", "b"], "seats": {0: "n", 3: "w"},
              "seed": 2 ** 70, "deals": [{"actions": ["pass", "bid 16"], "t_ms": [0, 12]}], "none": None}
    path = store.save_game(store.new_game_id(), {"variant": "29", "seed": 1, "bots": ["a", "b"]}, record)
    text = open(path, encoding="utf-8").read()
    assert json.loads(text) == {**record, "seats": {"0": "n", "3": "w"}}     # JSON keys are strings
    record.pop("seed")                  # without the big integer: orjson writes it, two-space indent
    path = store.save_game(store.new_game_id(), {"variant": "29"}, record)
    text = open(path, encoding="utf-8").read()
    assert json.loads(text) == {**record, "seats": {"0": "n", "3": "w"}}
    assert text.startswith('{\n  "variant": "29",\n  "bots": [\n    "Pāṇḍava')
    store.close()


def test_sweep_frees_the_places_of_spectators_behind_without_ending_their_calls():
    from taash.arena.server.events import Behind, Spectators

    async def main():
        sp = Spectators(limit=3, keep=5)
        behind, current = sp.admit(sp.feed, 0), sp.admit(sp.feed, 0)
        for i in range(8):                  # 8 events, 5 kept: positions 0-2 are gone
            sp.feed.append(b"e%d" % i)
        current.pos = 6
        task = asyncio.ensure_future(sp.sweep(every_s=0.01))
        await asyncio.sleep(0.05)
        task.cancel()
        assert sp.readers == {current}      # the one behind left the count
        with pytest.raises(Behind) as e:    # and its own next look ends its call
            sp.feed.since(behind.pos)
        assert e.value.missed == 3
        assert sp.feed.since(current.pos) == [b"e6", b"e7"]
    asyncio.run(main())


def test_the_spectators_budget_gives_rate_units_a_second_the_least_behind_first():
    from taash.arena.server.events import Budget, cost
    now = [0.0]
    b = Budget(rate=100, burst=3, clock=lambda: now[0])
    assert [b.take_nowait() for _ in range(4)] == [True, True, True, False]     # the burst, then none
    now[0] += 0.015                     # 1.5 units come back: one message
    assert [b.take_nowait(), b.take_nowait()] == [True, False]
    now[0] += 10                        # never more than the burst
    assert sum(b.take_nowait() for _ in range(10)) == 3
    now[0] += 10
    assert b.take_nowait(40) and b.tokens == 3 - 40     # a dear message goes, in debt
    now[0] += 0.3                       # 30 units pay back part of it: still nothing
    assert not b.take_nowait()
    assert Budget(rate=0).take_nowait() and all(Budget(rate=0).take_nowait(10 ** 6) for _ in range(10 ** 4))
    assert [cost(b"x"), cost(b"x" * 1024), cost(b"x" * 1025), cost(b"x" * 10_000)] == [1, 1, 2, 10]
    with pytest.raises(ValueError):
        Budget(rate=-1)
    with pytest.raises(ValueError):
        Budget(rate=10, burst=0.5)

    async def main():
        b = Budget(rate=200, burst=1, period_s=0.005)
        order = []

        async def spectator(name, behind):
            await b.take(1, behind)
            order.append(name)
        assert b.take_nowait()          # the one unit: the others wait
        tasks = [asyncio.ensure_future(spectator(n, behind))
                 for n, behind in (("idle", 900), ("a", 3), ("b", 3), ("c", 0))]
        await asyncio.sleep(0)
        assert len(b.waiting) == 4 and not b.take_nowait()      # nobody jumps the queue
        tasks[2].cancel()               # "b" leaves: its turn goes to the next
        await asyncio.gather(*tasks, return_exceptions=True)
        # the least behind first, the first come among equals; the far-behind client last
        assert order == ["c", "a", "idle"] and not b.waiting
        late = [asyncio.ensure_future(spectator(n, 0)) for n in "xy"]
        await asyncio.sleep(0)
        b.close()                       # the arena stops: waiters go on, and no bound from then
        await asyncio.gather(*late)
        assert order[3:] == ["x", "y"] and b.take_nowait()
    asyncio.run(main())


def test_batch_messages_say_how_many_events_each_holds():
    events = [pb.GameEvent(game_id="g1", index=i, deal_started=pb.DealStarted(deal=i, dealer=i % 4)).SerializeToString()
              for i in range(50)]
    out = list(framing.batch_messages(events, limit=200))
    assert len(out) > 3 and sum(n for _, n in out) == 50
    got = []
    for data, n in out:
        batch = pb.GameEventBatch.FromString(data)
        assert len(batch.events) == n
        got += [e.SerializeToString() for e in batch.events]
    assert got == events


def test_the_sdk_keeps_one_open_request_per_seat_however_long_the_match(tmp_path):
    # a real arena and one SDK client in all four seats of a 6-deal match: the requests it
    # keeps for a retry stay one per seat (they used to pile up until the game's end,
    # about 50 KB a deal of each running game)
    import asyncio
    import grpc
    from taash.arena.sdk import Bot, BotClient
    from taash.arena.server import ArenaServer, TimeControl

    async def main():
        store = SQLiteStore(tmp_path / "data")
        server = ArenaServer(store, TimeControl(move_ms=60_000, bank_ms=0, grace_ms=60_000))
        port = await server.start("127.0.0.1", 0)
        kept = []
        client = None

        class Last(Bot):
            def decide(self, observation, legal_actions, game=None):
                return legal_actions[-1]

            def on_event(self, game, event):
                kept.append(len(client._requests))
        client = BotClient(Last(), store.issue_token("b"), "b", f"127.0.0.1:{port}", threads=False,
                           batch_events=True)
        task = asyncio.ensure_future(client.run())
        await server.arena.wait_for_bots(["b"], 10)
        result = await server.arena.run_game(load_variant("28"), 3, ["b"] * 4, max_deals=6)
        for _ in range(500):        # its GameEnded on the way
            if client.games_done:
                break
            await asyncio.sleep(0.01)
        client.stop()
        await asyncio.wait_for(task, 10)
        await server.stop()
        store.close()
        return result, kept, client

    result, kept, client = asyncio.run(main())
    assert result["error"] == "" and result["deals"] == 6 and result["faults"] == 0
    assert len(kept) > 6 * 32 and max(kept) <= 4, max(kept)
    assert client._requests == {} and client._latest == {}     # the game's end lets go of them


def test_the_bench_floor_game_does_the_engines_work_of_each_decision():
    """bench/arena.py's FloorGame beside a match played here with the same seed: each
    request is the seat to act's, with the engine's legal actions and its
    `State.observation_json` text, and carries the public form of every action since
    that seat's last request, in order (the face-down trump card of 28 hidden); an
    answer that is no legal action plays the first legal one; a Hello is no answer;
    request ids count up; a finished match is followed by the next seed's."""
    spec = importlib.util.spec_from_file_location("bench_arena", ROOT / "bench" / "arena.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    v = load_variant("28")
    floor = bench.FloorGame(v, 11, "000001")
    seed = 11
    m = Match(v, seed)
    st = m.new_deal()
    rng = random.Random(3)
    owed: list[list[str]] = [[] for _ in range(v.players)]
    assert floor.answer(pb.BotMessage(hello=pb.Hello(client="x")).SerializeToString()) is False
    hidden = deals = 0
    for i in range(400):
        s, data = floor.request()
        d = pb.ServerMessage.FromString(data).decision
        assert (s, d.seat, d.request_id) == (st.to_act, st.to_act, f"000001.{i}")
        assert list(d.legal_actions) == list(st.legal_actions())
        assert d.observation_json == st.observation_json(s)
        assert [e.action.action for e in d.events] == owed[s]
        owed[s] = []
        bad = i % 7 == 3
        act = "no such action" if bad else rng.choice(list(d.legal_actions))
        assert floor.answer(pb.BotMessage(answer=pb.Answer(request_id=d.request_id, action=act))
                            .SerializeToString()) is True
        applied = st.legal_actions()[0] if bad else act
        st.apply(applied)
        public = st.public_action(s, applied, None)
        hidden += public != applied
        for t in range(v.players):
            owed[t].append(public)
        if st.to_act < 0:
            deals += 1
            m.finish_deal(st)
            if m.over:
                seed += 1
                m = Match(v, seed)
            st = m.new_deal()
    assert deals >= 5 and hidden >= 1
