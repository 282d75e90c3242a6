"""The arena's drain (docs/protocol.md, "Health"): a spectator's Watch ends UNAVAILABLE
"the arena is stopping" when the arena stops, and a Play or Watch call that comes while it
drains is refused the same way (not welcomed, to be dropped a moment later). Real gRPC
over localhost."""

from __future__ import annotations

import asyncio

import grpc

from arena.pb import arena_pb2 as apb
from arena.pb import arena_pb2_grpc
from arena.pb import messages_pb2 as pb
from arena.server import ArenaServer, TimeControl
from arena.server.wire import STOPPING
from arena.store import SQLiteStore


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
