"""A seat is told its hand when its cards are dealt (docs/protocol.md, "Seat views"): a
real arena process plays one deal of the 29 (flow: deal 4, auction, trump, deal 4, play;
docs/rules.md §29.3) with four raw clients over gRPC, each answering its first legal
action. Each seat that does not open the auction gets a SeatView holding the four cards
of its first packet before its first DecisionRequest; after the trump step every seat
but the one to lead gets a view holding its eight cards before it plays."""

from __future__ import annotations

import asyncio
import json

import grpc

from taash.arena.pb import messages_pb2 as pb
from taash.arena.sdk import Bot, BotClient
from tests.helpers.arena_util import Server, record

METHOD = "/taash.arena.v1.Arena/Play"


async def _seat_client(addr: str, token: str, name: str, prefer: str = "") -> list[pb.ServerMessage]:
    """A raw bot: answers each request with ``prefer`` when it is legal, else its first
    legal action; returns every ServerMessage it read, in order, up to its game's end."""
    got = []
    async with grpc.aio.insecure_channel(addr) as ch:
        call = ch.stream_stream(METHOD, request_serializer=lambda b: b, response_deserializer=lambda b: b)(
            metadata=[("authorization", f"Bearer {token}")])
        while True:
            raw = await call.read()
            if raw is grpc.aio.EOF:
                return got
            msg = pb.ServerMessage.FromString(raw)
            got.append(msg)
            which = msg.WhichOneof("msg")
            if which == "decision":
                d = msg.decision
                action = prefer if prefer in d.legal_actions else d.legal_actions[0]
                await call.write(pb.BotMessage(answer=pb.Answer(request_id=d.request_id,
                                                                action=action)).SerializeToString())
            elif which == "event" and msg.event.WhichOneof("event") == "game_ended":
                call.cancel()
                return got


class Watcher(Bot):
    """An SDK bot that takes the first legal action and logs what it is told, in order."""

    def __init__(self):
        self.log = []

    def decide(self, observation, legal_actions, game):
        self.log.append(("decide", dict(observation)))
        return legal_actions[0]

    def on_view(self, game, seat, observation):
        assert game is not None and seat in game.seats
        self.log.append(("view", dict(observation)))


def _play(tmp_path, client=_seat_client, variant="29", seed=3):
    s = Server(tmp_path / "data")
    try:
        names = [f"v{i}" for i in range(4)]
        tokens = [s.token(n) for n in names]

        async def main():
            clients = [asyncio.ensure_future(client(s.addr, t, n)) for t, n in zip(tokens, names)]
            await asyncio.to_thread(s.wait_connected, names)
            games = await asyncio.to_thread(s.run_matches, variant, names, 1, seed, 1)
            return games, await asyncio.wait_for(asyncio.gather(*clients), 60)

        games, seen = asyncio.run(main())
    finally:
        s.stop()
    assert len(games) == 1 and games[0].error == ""
    return record(games[0].record), seen


def test_each_seat_gets_its_packets_before_it_must_act(tmp_path):
    rec, seen = _play(tmp_path)
    deal = rec["deals"][0]
    dealer, dealt = deal["dealer"], deal["hands"]
    eldest = (dealer + 1) % 4
    for seat, msgs in enumerate(seen):
        kinds = [m.WhichOneof("msg") for m in msgs]
        views = [json.loads(m.view.observation_json) for m in msgs if m.WhichOneof("msg") == "view"]
        assert all(m.view.seat == seat and m.view.game_id == msgs[1].game_start.game_id and m.view.deal == 0
                   for m in msgs if m.WhichOneof("msg") == "view")
        assert all(v["seat"] == seat and v["legal_actions"] == [] for v in views)
        first_decision = kinds.index("decision")
        if seat != eldest:
            # its first packet (the first four cards dealt to it) before it is asked anything
            i = kinds.index("view")
            assert i < first_decision
            assert sorted(views[0]["hand"]) == sorted(dealt[seat][:4])
            assert views[0]["phase"] == "auction" and views[0]["hand_sizes"] == [4, 4, 4, 4]
        # the second packet: a view (or, for the seat to lead, its request) in the play
        # phase holding all eight cards before the seat plays a card
        eight = [json.loads(m.view.observation_json if m.WhichOneof("msg") == "view" else m.decision.observation_json)
                 for m in msgs if m.WhichOneof("msg") in ("view", "decision")]
        first_play = next(o for o in eight if o["phase"] == "play")
        assert sorted(first_play["hand"]) == sorted(dealt[seat])
        assert first_play["hand_sizes"] == [8, 8, 8, 8] and first_play["trick"] == []
        assert first_play["declarer"] is not None and first_play["high_bid"] >= 15
        # no view holds another seat's cards: each card in a view's hand was dealt to it
        for v in views:
            assert set(v["hand"]) <= set(dealt[seat])


def test_the_sdk_hands_views_to_on_view(tmp_path):
    """The SDK's Bot.on_view gets each view before the decisions that follow it, with
    events batched (Hello.batch_events) on two of the four streams."""
    async def sdk_client(addr, token, name):
        bot = Watcher()
        await BotClient(bot, token, name=name, server=addr, max_games=1, threads=False,
                        batch_events=name in ("v1", "v3")).run()
        return bot.log

    rec, seen = _play(tmp_path, sdk_client)
    deal = rec["deals"][0]
    dealer, dealt = deal["dealer"], deal["hands"]
    for seat, log in enumerate(seen):
        kinds = [k for k, _ in log]
        if seat != (dealer + 1) % 4:
            assert kinds[0] == "view" and sorted(log[0][1]["hand"]) == sorted(dealt[seat][:4])
        first_play = next(o for _, o in log if o["phase"] == "play")
        assert sorted(first_play["hand"]) == sorted(dealt[seat])
        assert all(o["seat"] == seat for _, o in log)


def test_a_seat_set_to_sit_out_is_told_before_the_next_action(tmp_path):
    """house/29-single-hand: in the declare step (each seat in turn from the declarer) the
    declarer declares ``single`` (``declare single``) and its partner sits out the deal (docs/rules.md §H).
    That is a rule's effect, not a public action, and the step goes on, so every seat but
    the one to act next gets a view saying who sits out before the step's next action."""
    async def client(addr, token, name):
        return await _seat_client(addr, token, name, prefer="declare single")

    _, seen = _play(tmp_path, client, variant="house/29-single-hand")
    # the deal's actions as every stream is told them: (seat, public text)
    told = [(m.event.action.seat, m.event.action.action) for m in seen[0]
            if m.WhichOneof("msg") == "event" and m.event.WhichOneof("event") == "action"]
    declared = told.index(next(t for t in told if t[1] == "declare single"))
    declarer, next_to_act = told[declared][0], told[declared + 1][0]
    partner = (declarer + 2) % 4
    assert next_to_act != declarer     # the step goes on: another seat may declare
    for seat, msgs in enumerate(seen):
        if seat == next_to_act:
            continue
        events = [i for i, m in enumerate(msgs) if m.WhichOneof("msg") == "event"
                  and m.event.WhichOneof("event") == "action"]
        at = next(i for i in events if msgs[i].event.action.action == "declare single")
        after = next(i for i in events if i > at)
        views = [json.loads(m.view.observation_json) for m in msgs[at + 1:after] if m.WhichOneof("msg") == "view"]
        assert [v["sitting_out"] for v in views] == [[partner]], seat
