"""The arena's drain (docs/protocol.md, "Health"): a spectator's Watch ends UNAVAILABLE
"the arena is stopping" when the arena stops, and a Play or Watch call that comes while it
drains is refused the same way (not welcomed, to be dropped a moment later). Real gRPC
over localhost."""

from __future__ import annotations

import asyncio

import grpc

from taash.arena.pb import arena_pb2 as apb
from taash.arena.pb import arena_pb2_grpc
from taash.arena.pb import messages_pb2 as pb
from taash.arena.server import ArenaServer, TimeControl
from taash.arena.server.wire import STOPPING
from taash.arena.store import SQLiteStore


async def _stop_ends_the_watch(tmp):
    store = SQLiteStore(tmp)
    token = store.issue_token("late")
    server = ArenaServer(store, TimeControl())
    port = await server.start("127.0.0.1", 0)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
        stub = arena_pb2_grpc.ArenaStub(ch)
        watch = stub.Watch(apb.WatchRequest())
        await watch.initial_metadata()          # admitted
        stop = asyncio.ensure_future(server.stop())
        while not server.arena.stopping:
            await asyncio.sleep(0.001)
        # while it drains: a bot and a spectator that come now are refused
        late = stub.Play(metadata=[("authorization", f"Bearer {token}")])
        await late.write(pb.BotMessage(hello=pb.Hello(client="test")))
        try:
            got = await late.read()
        except grpc.aio.AioRpcError as e:
            got = e
        late_watch = stub.Watch(apb.WatchRequest())
        try:
            late_watch_got = [ev async for ev in late_watch]
        except grpc.aio.AioRpcError as e:
            late_watch_got = e
        try:
            seen = [ev async for ev in watch]
        except grpc.aio.AioRpcError as e:
            seen = e
        await stop
    return got, late_watch_got, seen


def test_stopping_ends_watch_and_refuses_new_calls(tmp_path):
    got, late_watch, seen = asyncio.run(_stop_ends_the_watch(str(tmp_path)))
    for e in (got, late_watch, seen):
        assert isinstance(e, grpc.aio.AioRpcError), e
        assert e.code() == grpc.StatusCode.UNAVAILABLE and e.details() == STOPPING


async def _stop_with_spectators_that_do_not_read(tmp):
    # no spectator budget and a backlog they do not reach: stuck in writes, not dropped
    server = ArenaServer(SQLiteStore(tmp), TimeControl(), spectator_rate=0, spectator_backlog=100_000)
    port = await server.start("127.0.0.1", 0)
    # small receive windows: a stream that is not read blocks the server's writes soon
    opts = [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=opts) as ch:
        stub = arena_pb2_grpc.ArenaStub(ch)
        watches = [stub.Watch(apb.WatchRequest()) for _ in range(3)]
        for w in watches:
            await w.initial_metadata()
        feed = server.arena.spectators.feed
        event = pb.GameEvent(game_id="g", deal_started=pb.DealStarted(deal=0, dealer=1)).SerializeToString()
        for _ in range(200):                 # far past a 1 KiB window and the transport's buffers
            for _ in range(50):
                feed.append(event)
            await asyncio.sleep(0.005)
        blocked = len(server.arena.spectators.readers)
        await server.stop()
        for w in watches:
            w.cancel()
    return blocked, len(server.arena.spectators.readers)


def test_stop_ends_spectators_that_do_not_read_without_a_traceback(tmp_path, caplog, capfd):
    """A Watch that is never read is stuck in a write when the arena stops: the stop ends
    it, so it leaves the arena's spectators (before, the server's stop cancelled it with
    its generator never closed, and gRPC printed a traceback per such call: 31 of them
    in bench/arena.py at 1,000 spectators), and nothing is logged at error level."""
    import logging
    caplog.set_level(logging.DEBUG)
    blocked, left = asyncio.run(_stop_with_spectators_that_do_not_read(str(tmp_path)))
    assert blocked == 3                      # all three were still being served (stuck)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert "Traceback" not in capfd.readouterr().err
    assert left == 0                         # each left the arena's spectators
