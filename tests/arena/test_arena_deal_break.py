"""The arena's break between deals (`Arena.deal_break`, what `taash play` holds while the
person reads a deal's review): the deal's end reaches every seat before the break, and
nothing of the next deal (its DealStarted, a seat's view of its new cards, a decision)
reaches any seat until the break is over; no decision is open meanwhile, so with 300 ms
a decision and no bank a break of 1.2 s costs no seat a fault."""

from __future__ import annotations

import asyncio
import time

import grpc

from taash.arena.pb import messages_pb2 as pb
from taash.arena.server import ArenaServer, TimeControl
from taash.arena.store import SQLiteStore
from taash.interpreter import load_variant
from tests.helpers.arena_util import raw_play_call

BREAK_S = 1.2


async def _game(tmp):
    store = SQLiteStore(tmp)
    server = ArenaServer(store, TimeControl(move_ms=300, bank_ms=0, grace_ms=5_000))
    port = await server.start("127.0.0.1", 0)
    players = load_variant("29").players
    tokens = [store.issue_token(f"s{s}") for s in range(players)]
    breaks = []         # (game, deal, start, end, decisions open at the start)

    async def hold(game_id, deal):
        t0 = time.monotonic()
        open_now = len(server.arena.pending)
        await asyncio.sleep(BREAK_S)
        breaks.append((game_id, deal, t0, time.monotonic(), open_now))

    server.arena.deal_break = hold
    got: dict[int, list] = {s: [] for s in range(players)}     # (time, what, deal)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")

    async def bot(s):
        call = raw_play_call(channel, tokens[s])
        async for raw in call:
            msg = pb.ServerMessage.FromString(raw)
            now = time.monotonic()
            which = msg.WhichOneof("msg")
            if which == "decision":
                d = msg.decision
                got[s].append((now, "decision", None))
                await call.write(pb.BotMessage(answer=pb.Answer(request_id=d.request_id, action=d.legal_actions[0]))
                                 .SerializeToString())
            elif which == "view":
                got[s].append((now, "view", msg.view.deal))
            elif which == "verdict":
                got[s].append((now, "verdict", msg.verdict.kind))
            elif which == "event":
                e = msg.event.WhichOneof("event")
                deal = getattr(msg.event, e).deal if e in ("deal_started", "deal_ended") else None
                got[s].append((now, e, deal))
                if e == "game_ended":
                    call.cancel()
                    return

    names = [f"s{s}" for s in range(players)]
    tasks = [asyncio.ensure_future(bot(s)) for s in range(players)]
    await server.arena.wait_for_bots(names, 10)
    result = await server.arena.run_game(load_variant("29"), 0, names, max_deals=2, game_id="brk")
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    await channel.close()
    await server.stop()
    store.close()
    return result, breaks, got


def test_a_break_between_deals_holds_the_next_deal(tmp_path):
    result, breaks, got = asyncio.run(_game(tmp_path))
    assert result["deals"] == 2 and result["faults"] == 0 and result["error"] == ""
    # one break, after deal 0 (none after the match's last deal), no decision open in it
    assert [(g, d, n) for g, d, _, _, n in breaks] == [("brk", 0, 0)]
    _, _, start, end, _ = breaks[0]
    assert end - start >= BREAK_S
    for s, msgs in got.items():
        assert not [m for m in msgs if m[1] == "verdict"], (s, msgs)
        ended = next(t for t, what, deal in msgs if what == "deal_ended" and deal == 0)
        assert ended <= start + 0.05          # told the deal ended before (or as) the break began
        # nothing of deal 1 before the break's end
        later = [(t, what) for t, what, deal in msgs if t > ended and what in ("deal_started", "view", "decision")]
        assert later and all(t >= end - 0.01 for t, _ in later), (s, later[:3], end)
