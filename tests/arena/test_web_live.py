"""Live tables (arena/web/live.py): what a page receives from /live/events does not depend
on the cards nobody has seen. A hidden-trump game (28) is played twice through a real
arena over gRPC on localhost, once with the dealt hands and once with every unplayed card
of seats other than k permuted within its suit (the face-down trump card becoming
another: tests/arena/test_arena_info.py `redeal`); the web app follows the arena and the
server-sent events of both games must show the same state for the same public prefix
(a page may skip states when events come faster than it is sent them) until the deal
ends, and no hand before it."""

from __future__ import annotations

import asyncio
import json
import random

import grpc
from aiohttp.test_utils import TestClient, TestServer

from taash.arena.pb import messages_pb2 as pb
from taash.arena.server import ArenaServer, TimeControl
from taash.arena.store import SQLiteStore
from taash.arena.web.app import make_app
from taash.arena.web.data import Site
from taash.interpreter import load_variant
from tests.arena.test_arena_info import first_legal_deal, redeal, seats_of

METHOD = "/taash.arena.v1.Arena/Play"


async def play_and_watch(hands, dealer, prefix, seats, tmp):
    """One deal of 28 through the arena (seats play ``prefix`` then their first legal
    action) watched by the web app; returns the game's states in /live/events, in order, as
    JSON texts."""
    store = SQLiteStore(tmp)
    # batch_wait_s=0: WatchBatches sends each loop turn's events, so the page sees states
    # at many action counts to compare
    server = ArenaServer(store, TimeControl(move_ms=60_000, bank_ms=5_000, grace_ms=5_000), batch_wait_s=0)
    port = await server.start("127.0.0.1", 0)
    v = load_variant("28")
    names = [f"s{s}" for s in range(v.players)]
    tokens = {n: store.issue_token(n) for n in names}
    script = {s: [a for a, who in zip(prefix, seats) if who == s] for s in range(v.players)}
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")

    async def bot(s):
        call = channel.stream_stream(METHOD, request_serializer=lambda b: b, response_deserializer=lambda b: b)(
            metadata=[("authorization", f"Bearer {tokens[names[s]]}")])
        while True:
            raw = await call.read()
            if raw is grpc.aio.EOF:
                return
            msg = pb.ServerMessage.FromString(raw)
            which = msg.WhichOneof("msg")
            if which == "decision":
                d = msg.decision
                todo = script[s]
                action = todo.pop(0) if todo else d.legal_actions[0]
                await call.write(pb.BotMessage(answer=pb.Answer(request_id=d.request_id, action=action))
                                 .SerializeToString())
            elif which == "event" and msg.event.WhichOneof("event") == "game_ended":
                call.cancel()
                return

    lines = []
    async with TestClient(TestServer(make_app(Site(None, tmp), arena=f"127.0.0.1:{port}", batch_s=0))) as web:
        for _ in range(200):
            if (await (await web.get("/live.json")).json())["connected"]:
                break
            await asyncio.sleep(0.02)
        resp = await web.get("/live/events")
        assert (await asyncio.wait_for(resp.content.readline(), 30)).startswith(b"event: snapshot")
        await asyncio.wait_for(resp.content.readline(), 30)
        tasks = [asyncio.ensure_future(bot(s)) for s in range(v.players)]
        await server.arena.wait_for_bots(names, 10)
        game = asyncio.ensure_future(server.arena.run_game(v, 0, names, max_deals=1, game_id="live",
                                                           deals=[{"hands": hands, "dealer": dealer}]))
        while True:
            line = await asyncio.wait_for(resp.content.readline(), 30)
            if line.startswith(b"data: "):
                msg = json.loads(line[6:])
                states = [g for g in msg.get("games", []) if g["id"] == "live"]
                lines += [json.dumps(g, sort_keys=True) for g in states]
                if any(g["over"] for g in states):
                    break
        result = await game
        resp.close()
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
    await channel.close()
    await server.stop()
    store.close()
    assert result["error"] == ""
    return lines


def test_live_events_do_not_depend_on_unseen_cards(tmp_path):
    v = load_variant("28")
    hands, dealer, actions = first_legal_deal(v, 2)
    seats, _ = seats_of(v, hands, dealer, actions)
    declarer = seats[next(i for i, a in enumerate(actions) if a.startswith("trump-card "))]
    k = (declarer + 1) % v.players
    # t: before the face-down card is exposed (docs/rules.md §28.7), at least one whole trick played
    exposed = next((i for i, a in enumerate(actions) if a == "expose"), len(actions))
    first_play = next(i for i, a in enumerate(actions) if a.startswith("play "))
    t = min(exposed, first_play + 6)
    new_hands, new_prefix = redeal(v, hands, dealer, actions, k, t, random.Random(2))
    assert new_hands != hands and new_prefix != actions[:t]
    a = asyncio.run(play_and_watch(hands, dealer, actions[:t], seats[:t], tmp_path / "a"))
    b = asyncio.run(play_and_watch(new_hands, dealer, new_prefix, seats[:t], tmp_path / "b"))

    def before_t(lines):
        """The states shown with at most t actions of the deal, by their number of actions."""
        out = {}
        for x in lines:
            g = json.loads(x)
            if g["deal"] == 0 and len(g["actions"]) <= t and g["hands"] is None:
                out[len(g["actions"])] = x
        return out

    sa, sb = before_t(a), before_t(b)
    common = sorted(set(sa) & set(sb))
    assert common and common[-1] >= 1
    assert [sa[n] for n in common] == [sb[n] for n in common]
    states = [json.loads(x) for x in a]
    # no hand is shown before the deal ends, and the face-down card is shown as such
    first_hands = next(i for i, g in enumerate(states) if g["hands"] is not None)
    assert all(g["hands"] is None for g in states[:first_hands])
    assert all(len(g["actions"]) <= len(actions) for g in states[:first_hands])
    assert any(act == "trump-card" for g in states for _, act in g["actions"])
    shown = {act for g in states for _, act in g["actions"]}
    assert not any(x.startswith("trump-card ") for x in shown)
    # once the deal ends the hands are shown, and they are the dealt ones
    assert states[first_hands]["hands"] == hands
    # tricks and points per seat as the engine counts them for the same deal, sides fixed
    _, end = seats_of(v, hands, dealer, actions)
    shown = states[first_hands]
    assert shown["sides"] == [0, 1, 0, 1]
    assert shown["tricks"] == [sum(w == s for _, _, w in end.tricks) for s in range(v.players)]
    assert shown["points"] == end.trick_points() and sum(shown["points"]) == 28
