"""A burst: 4,000 bot streams dial in at once and 1,000 four-seat games start together.
No stream may be refused or cancelled (gRPC's default limit on pending calls would
refuse about a third of them: taash.arena.server.SERVER_OPTIONS raises it). The games are
stopped after a few rounds; their records are saved as cut short."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest

from taash.arena.pb import messages_pb2 as pb
from taash.arena.server import ArenaServer, TimeControl
from taash.arena.store import SQLiteStore
from taash.interpreter import load_variant

GAMES = 1000
METHOD = "/taash.arena.v1.Arena/Play"


async def burst(tmp):
    store = SQLiteStore(tmp)
    # a thousand streams per token: the cap of streams per token is raised to let them in
    server = ArenaServer(store, TimeControl(move_ms=120_000, bank_ms=0, grace_ms=120_000), max_streams=GAMES)
    port = await server.start("127.0.0.1", 0)
    arena = server.arena
    names = [f"b{s}" for s in range(4)]
    tokens = {n: store.issue_token(n) for n in names}
    chans = [grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
             for _ in range(16)]
    seen = {"welcome": 0, "game_start": 0, "decision": 0, "verdict": 0}
    errors = []

    async def bot(i):
        name = names[i % 4]
        call = chans[i % len(chans)].stream_stream(METHOD, request_serializer=pb.BotMessage.SerializeToString,
                                                   response_deserializer=pb.ServerMessage.FromString)(
            metadata=[("authorization", f"Bearer {tokens[name]}")])
        try:
            async for msg in call:
                which = msg.WhichOneof("msg")
                if which in seen:
                    seen[which] += 1
                if which == "decision":
                    d = msg.decision
                    await call.write(pb.BotMessage(answer=pb.Answer(request_id=d.request_id,
                                                                    action=d.legal_actions[0])))
        except grpc.aio.AioRpcError as e:
            errors.append(e.code())
        except asyncio.CancelledError:
            pass

    bots = [asyncio.ensure_future(bot(i)) for i in range(4 * GAMES)]   # all at once
    for _ in range(600):
        if seen["welcome"] == 4 * GAMES or errors:
            break
        await asyncio.sleep(0.1)
    connected = seen["welcome"]
    v = load_variant("29")
    games = [arena.spawn(arena.run_game(v, g, names, max_deals=1)) for g in range(GAMES)]   # all at once
    for _ in range(1200):
        if all(g.actions_in_deal >= 8 for g in arena.games.values()) and len(arena.games) == GAMES or errors:
            break
        await asyncio.sleep(0.1)
    progressed = sum(1 for g in arena.games.values() if g.actions_in_deal >= 8)
    faults = sum(len(g.verdicts) for g in arena.games.values())
    early_errors = list(errors)                          # what went wrong before the stop
    await server.stop()                                  # cancels the games; records are saved
    await asyncio.gather(*games, return_exceptions=True)
    results = store.games()
    for b in bots:
        b.cancel()
    await asyncio.gather(*bots, return_exceptions=True)
    for ch in chans:
        await ch.close()
    store.close()
    return connected, progressed, faults, seen, early_errors, results


@pytest.mark.slow
def test_a_thousand_games_start_together(tmp_path):
    connected, progressed, faults, seen, errors, results = asyncio.run(burst(tmp_path / "data"))
    assert errors == []
    assert connected == 4 * GAMES
    assert seen["game_start"] == 4 * GAMES            # every seat was told its game
    assert progressed == GAMES and faults == 0 and seen["verdict"] == 0
    assert len(results) == GAMES and all(r["complete"] is False and r["bots"] == ["b0", "b1", "b2", "b3"]
                                         for r in results)
    rec = json.loads(Path(results[0]["record"]).read_text())
    assert rec["deals"] == [] and rec["arena"]["complete"] is False
    assert "stopped" in rec["arena"]["error"] and len(rec["arena"]["unfinished_deal"]["actions"]) >= 8
