"""The translation between taash and the SmartBots 29 HTTP protocol (arena/http/translate.py,
docs/http-bots.md, docs/rules.md §29b), and `taash serve http` in process. Expected values
are worked out by hand from the protocol (docs/http-bots.md) and the rules (docs/rules.md §29b)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from hypothesis import given, settings, strategies as hst

from taash.interpreter import State, load_variant
from taash.arena.http.translate import (Answer, AnswerError, RequestError, answer_of, card_in, card_out,
                                  default_ids, parse_answer, request_of, state_of)

V = load_variant("house/29-bhoos")
IDS = ["A0", "B0", "A1", "B1"]

# the captured request of docs/http-bots.md (the second call after B1's reveal)
CAPTURED = {"playerId": "B1", "playerIds": IDS, "timeRemaining": 1215.706928,
            "cards": ["1D", "8C", "7D", "9H", "JD", "KD"],
            "bidHistory": [["B0", 16], ["A1", 0], ["B1", 0], ["A0", 0]],
            "teams": [{"players": ["A0", "A1"], "bid": 0, "won": 1}, {"players": ["B0", "B1"], "bid": 16, "won": 6}],
            "played": ["KS", "8H", "TC"],
            "handsHistory": [["B0", ["JS", "9S", "1S", "7S"], "B0"], ["B0", ["8S", "7C", "KH", "TS"], "A0"]],
            "trumpSuit": "H", "trumpRevealed": {"hand": 3, "playerId": "B1"}}


def test_cards_both_ways():
    assert card_out("AS") == "1S" and card_out("TH") == "TH" and card_out("JC") == "JC"
    assert card_in("1S") == "AS" and card_in("AS") == "AS" and card_in("9D") == "9D"
    assert [card_in(x) for x in ("ZZ", "10S", "1s", 17, None, "1SS")] == [None] * 6


def test_the_captured_request_the_revealer_must_play_9h():
    st, seat = state_of(V, "/play", CAPTURED, random.Random(0))
    assert seat == 3 and st.to_act == 3
    assert st.legal_actions() == ["play 9H"]          # §29b.6: B0's 8H is a trump now; B1's only trump
    obs = st.observation(3)
    assert obs["declarer"] == 1 and obs["trump"] == "H" and obs["exposer"] == 3 and obs["exposure_trick"] == 3
    assert obs["points"][0] + obs["points"][2] == 1 and obs["points"][1] + obs["points"][3] == 6
    # and back: the request the bridge builds from that observation is the captured one
    path, body = request_of(obs, IDS, 1215.706928)
    assert path == "/play"
    assert sorted(body.pop("cards")) == sorted(CAPTURED["cards"])
    assert body == {k: v for k, v in CAPTURED.items() if k != "cards"}
    assert answer_of(st.legal_actions()[0]) == {"card": "9H"}


def duel():
    """docs/rules.md §29b.4's example: dealer 0, eldest 1."""
    st = State(V, dealer=0, seed=4)
    asked = []
    for a in ["bid 16", "bid 17", "bid 17", "pass", "bid 18", "pass", "pass"]:
        path, body = request_of(st.observation(st.to_act), default_ids(), 900.5)
        asked.append((body["playerId"], body["bidState"], body["bidHistory"]))
        assert path == "/bid" and len(body["cards"]) == 4
        st.apply(a)
    return st, asked


def test_bid_requests_over_the_duel():
    st, asked = duel()
    z = lambda d, c, db, cb: {"defenderId": d, "challengerId": c, "defenderBid": db, "challengerBid": cb}
    assert asked[0] == ("P1", z("P1", "P2", 0, 0), [])
    assert asked[1] == ("P2", z("P1", "P2", 16, 0), [["P1", 16]])
    assert asked[2] == ("P1", z("P1", "P2", 16, 17), [["P1", 16], ["P2", 17]])
    assert asked[3][1] == z("P1", "P2", 17, 17)
    assert asked[4] == ("P3", z("P1", "P3", 17, 0), [["P1", 16], ["P2", 17], ["P1", 17], ["P2", 0]])
    assert asked[5][1] == z("P1", "P3", 17, 18)
    assert asked[6] == ("P0", z("P3", "P0", 18, 0), asked[6][2])
    assert st.phase == "trump" and st.to_act == 3
    path, body = request_of(st.observation(3), default_ids())
    assert path == "/chooseTrump" and body["bidHistory"][-1] == ["P0", 0] and len(body["bidHistory"]) == 7


def test_play_requests_hide_the_trump_until_the_reveal():
    st, _ = duel()
    st.apply("trump H")
    _, decl = request_of(st.observation(3), default_ids())            # 3 does not act, but may be asked
    _, other = request_of(st.observation(1), default_ids())
    assert decl["trumpSuit"] == "H" and other["trumpSuit"] is False and other["trumpRevealed"] is False
    assert decl["teams"] == [{"players": ["P0", "P2"], "bid": 0, "won": 0},
                             {"players": ["P1", "P3"], "bid": 18, "won": 0}]
    assert decl["played"] == [] and decl["handsHistory"] == [] and len(decl["cards"]) == 8


@pytest.mark.parametrize("body,action", [
    (b'{"bid": 0}', "pass"), (b'{"bid": 17}\n', "bid 17"), (b'{\n    "bid": 16.0\n}', "bid 16"),
    ('\ufeff{"bid": 28}'.encode(), "bid 28"), (b'{"bid": 15}', "bid 15"),
])
def test_bid_answers_in_every_form(body, action):
    assert parse_answer("/bid", body, {}) == Answer(action)


@pytest.mark.parametrize("body", [b"hello", b"[16]", b'{"bid": 16.5}', b'{"bid": "16"}', b'{"bid": true}',
                                  b'{"value": 16}', b"", b"\xff\xfe"])
def test_answers_that_name_no_action(body):
    with pytest.raises(AnswerError):
        parse_answer("/bid", body, {})


def test_trump_and_play_answers():
    assert parse_answer("/chooseTrump", b'{"suit": "D"}', {}) == Answer("trump D")
    assert parse_answer("/chooseTrump", b'{"suit": "X"}', {}).action == "trump X"     # the arena refuses it
    with pytest.raises(AnswerError):
        parse_answer("/chooseTrump", b'{"card": "1S"}', {})
    obs = {"seat": 2, "trump_exposed": False, "tricks": []}
    assert parse_answer("/play", b'{"card": "1S"}', obs) == Answer("play AS")
    assert parse_answer("/play", b'{"card": "AS", "revealTrump": false}', obs) == Answer("play AS")
    assert parse_answer("/play", b'{"card": "ZZ"}', obs) == Answer("play ZZ")
    assert parse_answer("/play", b'{"revealTrump": true}', obs) == Answer("expose", None)
    assert parse_answer("/play", b'{"revealTrump": true, "card": "9H"}', obs) == Answer("expose", "play 9H")
    # the second call after its own reveal in this trick (trick 3): the card alone
    after = {"seat": 2, "trump_exposed": True, "exposer": 2, "exposure_trick": 3, "tricks": [{}, {}]}
    assert parse_answer("/play", b'{"revealTrump": true, "card": "9H"}', after) == Answer("play 9H")
    assert parse_answer("/play", b'{"revealTrump": true}', after) == Answer("expose", None)   # illegal: refused
    with pytest.raises(AnswerError):
        parse_answer("/play", b'{"revealTrump": false}', obs)


def test_answers_of_actions():
    assert [answer_of(a) for a in ("pass", "bid 19", "trump C", "play AD", "expose")] == \
        [{"bid": 0}, {"bid": 19}, {"suit": "C"}, {"card": "1D"}, {"revealTrump": True}]


def test_request_to_state_gives_the_same_observation():
    """Every decision of random deals: the state built from the request alone gives the
    seat the observation it had (the request carries all the seat knows)."""
    rng = random.Random(3)
    n = 0
    for deal in range(12):
        st = State(V, dealer=deal % 4, seed=100 + deal)
        while not st.is_terminal:
            seat = st.to_act
            obs = st.observation(seat)
            path, body = request_of(obs, IDS)
            st2, s2 = state_of(V, path, json.loads(json.dumps(body)), random.Random(n))
            o2 = st2.observation(seat)
            assert s2 == seat and {k: o2[k] for k in obs if k != "deal"} == {k: obs[k] for k in obs if k != "deal"}
            n += 1
            la = st.legal_actions()
            st.apply("expose" if "expose" in la and rng.random() < 0.5 else la[rng.randrange(len(la))])
    assert n > 400


@pytest.mark.parametrize("change,message", [
    (dict(playerIds=["A0", "B0", "A1"]), "four distinct"),
    (dict(playerId="Z"), "not one of"),
    (dict(cards=["1D", "8C", "7D", "9H", "JD", "XX"]), "no card"),
    (dict(cards=["1D", "8C", "7D", "9H", "JD", "KS"]), "twice"),
    (dict(cards=["1D", "8C", "7D", "9H", "JD"]), "not 8"),
    (dict(trumpRevealed={"hand": 9, "playerId": "B1"}), "not a trick"),
    (dict(bidHistory=[["B0", 16], ["B0", 17]]), "out of turn"),
])
def test_malformed_requests(change, message):
    with pytest.raises(RequestError, match=message):
        state_of(V, "/play", {**CAPTURED, **change})
    with pytest.raises(RequestError):
        state_of(V, "/play", b"not json")


def test_a_request_to_the_wrong_seat():
    bid = {"playerId": "B1", "playerIds": IDS, "cards": ["1D", "8C", "7D", "9H"], "bidHistory": [["B0", 16]],
           "bidState": {}}
    with pytest.raises(RequestError, match="A1's turn, not B1's"):
        state_of(V, "/bid", bid)
    st, seat = state_of(V, "/bid", {**bid, "playerId": "A1"})
    assert seat == 2 and st.dealer == 0 and "bid 17" in st.legal_actions() and "bid 16" not in st.legal_actions()


def test_serve_http_answers_and_refuses_in_process():
    from aiohttp.test_utils import TestClient, TestServer
    from taash.arena.http.serve import Served, make_app

    async def go():
        async with TestClient(TestServer(make_app(Served("heuristic")))) as c:
            r = await c.get("/hi")
            assert r.status == 200 and (await r.json())["value"] == "hello"
            r = await c.post("/play", data=json.dumps(CAPTURED), headers={"Content-Type": "application/json"})
            assert r.status == 200 and await r.json() == {"card": "9H"}
            for bad in (b"{", b"[]", json.dumps({**CAPTURED, "cards": "1D"}).encode()):
                r = await c.post("/play", data=bad)
                assert r.status == 400 and "error" in await r.json()
            # a client's mistakes are 400 and 413, not the bot's 500: JSON nested 100,000
            # deep, and a body one byte over 1 MiB
            r = await c.post("/play", data=b"[" * 100_000 + b"]" * 100_000)
            assert r.status == 400 and "nested too deeply" in (await r.json())["error"]
            r = await c.post("/play", data=b" " * ((1 << 20) + 1))
            assert r.status == 413 and (await r.json())["error"] == "the body is over 1048576 bytes"
            st, _ = duel()
            path, body = request_of(st.observation(3), IDS)
            r = await c.post(path, data=json.dumps(body))
            assert r.status == 200 and (await r.json())["suit"] in "SHDC"
    asyncio.run(go())


def test_the_bridge_client_turns_each_failure_into_its_kind():
    """arena/http/bridge.py's HttpBot against an in-process aiohttp bot: a refused
    connection, 4xx/5xx and bad bodies are BridgeError (BOT_ERROR in the arena), no answer
    in time BridgeTimeout (the arena's TIMEOUT), and a reveal with a card is `expose`, then
    the card without asking again."""
    from aiohttp import web
    from aiohttp.test_utils import TestServer
    from taash.arena.http.bridge import BridgeError, BridgeTimeout, HttpBot

    answers = {}

    async def play(request):
        assert request.headers["Content-Type"] == "application/json"
        kind = answers["next"]
        if kind == "slow":
            await asyncio.sleep(1.0)
        if kind == "404":
            return web.Response(status=404, text="no")
        if kind == "text":
            return web.Response(text="OK")
        return web.Response(body=kind)          # bytes as given, no JSON Content-Type

    async def hi(request):
        return web.Response(text='{"value": "hello"}')

    async def go():
        app = web.Application()
        app.router.add_post("/play", play)
        app.router.add_get("/hi", hi)
        async with TestServer(app) as srv:
            bot = HttpBot(str(srv.make_url("")))
            try:
                assert "hello" in await bot.hi()
                st, seat = state_of(V, "/play", CAPTURED, random.Random(0))
                obs = st.observation(seat)
                # B1 before its reveal in trick 3
                before = dict(obs, trump_exposed=False, exposer=None, exposure_trick=None,
                              history=obs["history"][:-1], trump=None)
                for kind, err in (("404", BridgeError), ("text", BridgeError), (b'{"cad": "9H"}', BridgeError),
                                  ("slow", BridgeTimeout)):
                    answers["next"] = kind
                    with pytest.raises(err):
                        await bot.decide("g1", before, 300.0)
                answers["next"] = b'{"revealTrump": true, "card": "9H"}\n'
                assert await bot.decide("g1", before, 1000.0) == "expose"
                calls = bot.calls
                assert await bot.decide("g1", obs, 1000.0) == "play 9H" and bot.calls == calls
                answers["next"] = b'{"card": "9H"}'
                assert await bot.decide("g1", obs, 1000.0) == "play 9H" and bot.calls == calls + 1
            finally:
                await bot.close()
        refused = HttpBot("http://127.0.0.1:9")
        try:
            with pytest.raises(BridgeError, match="cannot connect"):
                await refused.decide("g1", CAPTURED_OBS(), 500.0)
            with pytest.raises(BridgeError, match="no HTTP bot"):
                await refused.hi()
        finally:
            await refused.close()
    asyncio.run(go())


def CAPTURED_OBS():
    st, seat = state_of(V, "/play", CAPTURED, random.Random(0))
    return st.observation(seat)


def _values():
    st = hst
    leaf = st.none() | st.booleans() | st.integers(-2, 40) | st.floats(allow_nan=False) | \
        st.sampled_from(["", "B1", "A0", "1S", "9H", "ZZ", "H"])
    return st.recursive(leaf, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
        st.sampled_from(["hand", "playerId", "bid"]), kids, max_size=2), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(hst.dictionaries(hst.sampled_from(sorted(CAPTURED) + ["bidState"]), _values(), max_size=3),
       hst.sampled_from(["/bid", "/chooseTrump", "/play"]))
def test_any_broken_request_is_a_request_error(change, path):
    """A request with any field replaced by any JSON value is answered (a State) or refused
    with RequestError (400), never another exception (a 500)."""
    try:
        state_of(V, path, {**CAPTURED, **change}, random.Random(0))
    except RequestError:
        pass


class _Exposer:
    def decide(self, observation, legal):
        return "expose" if "expose" in legal else legal[-1]


def test_served_reveals_as_the_protocol_wants():
    """A served bot that asks for the reveal: as the declarer (it knows the trump) it
    answers the reveal and its card at once; any other seat the reveal alone, and plays
    when asked again with the trump known (docs/http-bots.md, "The reveal")."""
    from taash.arena.bots import registry
    from taash.arena.http.serve import Served
    registry.register("test-exposer", lambda v: _Exposer(), replace=True)
    try:
        served = Served("test-exposer")
        seen = set()
        for seed in range(40):
            st = State(V, dealer=seed % 4, seed=seed)
            while not st.is_terminal and len(seen) < 2:
                seat = st.to_act
                obs = st.observation(seat)
                if "expose" in obs["legal_actions"]:
                    path, body = request_of(obs, IDS)
                    ans = served.answer(path, body)
                    if obs["declarer"] == seat:
                        seen.add("declarer")
                        after = st.copy()
                        after.apply("expose")
                        assert ans["revealTrump"] is True and f"play {card_in(ans['card'])}" in after.legal_actions()
                    else:
                        seen.add("other")
                        assert ans == {"revealTrump": True}
                        st.apply("expose")
                        path, body = request_of(st.observation(seat), IDS)
                        assert body["trumpRevealed"] == {"hand": len(st.tricks) + 1, "playerId": IDS[seat]}
                        again = served.answer(path, body)
                        assert set(again) == {"card"} and f"play {card_in(again['card'])}" in st.legal_actions()
                        continue
                st.apply(st.legal_actions()[-1] if st.phase == "play" else st.default_action())
            if len(seen) == 2:
                break
        assert seen == {"declarer", "other"}
    finally:
        registry.unregister("test-exposer")
