"""Raw gRPC clients of the arena written from proto/ alone, as a hostile (or merely slow)
bot author would write them; each mode runs as a process of its own and prints one JSON
object on stdout (docs/protocol.md, "Limits"):

    python -m tests.helpers.hostile MODE --server ADDR --token T [--n N] [--ms MS]

- ``streams``: opens N Play streams with the token at once, each until its Welcome or its
  status; then closes the first, opens one more. Prints the outcome of each
  ({"opened": [...], "after_close": ...}).
- ``churn``: opens and closes N streams, 4 at a time (each until its Welcome), for the
  arena's memory after many streams. Prints {"opened": N}.
- ``hello``: on one stream, sends N hellos that toggle batching, as fast as it can, then
  reads to the end. Prints {"sent", "welcome", "code", "details", "verdicts": [[kind, message]]}.
- ``shared``: opens 4 streams and sends N hellos on each, in turn, as fast as it can.
  Prints {"ended": [{"code", "details"} of each stream]}.
- ``flood``: on one stream, writes N empty BotMessages with ``call.write`` (not through a
  request iterator), then reads to the end. Prints {"sent", "write_error", "code", "details",
  "last_verdict": [kind, message]}.
- ``big``: on one stream, writes N hellos whose client name is MS KiB long, then reads
  to the end; then opens one more stream with the token. Prints {"sent", "code",
  "details", "last_verdict", "again": the new stream's outcome as ``streams`` gives it}.
- ``unread``: opens one stream, sends a hello and never reads; ends after MS milliseconds.
  Prints {"sent": 1}.
- ``late``: plays honestly, but answers every request MS milliseconds after it came (the
  first legal action), until the arena ends its games or the stream ends. Prints
  {"connections", "answered", "verdicts": {kind: count}, "ended": [status codes]}.
"""

from __future__ import annotations

import argparse
import asyncio
import json

import grpc

from taash.arena.pb import messages_pb2 as pb

METHOD = "/taash.arena.v1.Arena/Play"


def _open(channel, token):
    play = channel.stream_stream(METHOD, request_serializer=lambda b: b,
                                 response_deserializer=pb.ServerMessage.FromString)
    return play(metadata=[("authorization", f"Bearer {token}")])


async def _first(call) -> dict:
    """Read ``call`` until its Welcome ({"welcome": bot}) or its end ({"code", "details"})."""
    try:
        msg = await call.read()
    except grpc.aio.AioRpcError as e:
        return {"code": e.code().name, "details": e.details()}
    if msg is grpc.aio.EOF:
        return {"code": (await call.code()).name, "details": await call.details()}
    return {"welcome": msg.welcome.bot}


async def _end(call, verdicts: list | None = None) -> tuple[str, str]:
    """Read ``call`` to its end; its status code name and details. ``verdicts`` gets
    (kind name, message) of each verdict read on the way."""
    try:
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF:
                break
            if verdicts is not None and msg.WhichOneof("msg") == "verdict":
                verdicts.append((pb.Verdict.Kind.Name(msg.verdict.kind), msg.verdict.message))
    except grpc.aio.AioRpcError as e:
        return e.code().name, e.details()
    return (await call.code()).name, await call.details()


async def streams(args) -> dict:
    async with grpc.aio.insecure_channel(args.server) as ch:
        calls = []
        out = []
        for _ in range(args.n):
            c = _open(ch, args.token)
            calls.append(c)
            out.append(await _first(c))
        calls[0].cancel()
        await asyncio.sleep(0.5)        # the arena sees the first one go
        again = _open(ch, args.token)
        after = await _first(again)
        for c in calls[1:] + [again]:
            c.cancel()
        return {"opened": out, "after_close": after}


async def churn(args) -> dict:
    async with grpc.aio.insecure_channel(args.server) as ch:
        done = 0
        while done < args.n:
            batch = [_open(ch, args.token) for _ in range(min(4, args.n - done))]
            got = [await _first(c) for c in batch]
            assert all("welcome" in g for g in got), got
            for c in batch:
                await c.done_writing()
            for c in batch:
                await _end(c)
            done += len(batch)
        return {"opened": done}


async def hello(args) -> dict:
    async with grpc.aio.insecure_channel(args.server) as ch:
        call = _open(ch, args.token)
        first = await _first(call)
        sent = 0
        try:
            for i in range(args.n):
                await call.write(pb.BotMessage(hello=pb.Hello(batch_events=i % 2 == 0)).SerializeToString())
                sent += 1
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass
        else:
            await call.done_writing()
        verdicts = []
        code, details = await _end(call, verdicts)
        return {"sent": sent, "welcome": first.get("welcome"), "code": code, "details": details,
                "verdicts": verdicts}


async def shared(args) -> dict:
    async with grpc.aio.insecure_channel(args.server) as ch:
        calls = [_open(ch, args.token) for _ in range(4)]
        for c in calls:
            assert "welcome" in await _first(c)
        live = list(calls)
        for i in range(args.n):
            for c in list(live):
                try:
                    await c.write(pb.BotMessage(hello=pb.Hello(batch_events=i % 2 == 0)).SerializeToString())
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    live.remove(c)
        for c in live:
            try:
                await c.done_writing()
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                pass
        ends = [await _end(c) for c in calls]
        return {"ended": [{"code": c, "details": d} for c, d in ends]}


async def flood(args) -> dict:
    async with grpc.aio.insecure_channel(args.server) as ch:
        call = _open(ch, args.token)
        sent, error = 0, None
        try:
            for _ in range(args.n):
                await call.write(b"")
                sent += 1
        except grpc.aio.AioRpcError as e:
            error = e.code().name
        except asyncio.InvalidStateError:
            error = "finished"
        verdicts = []
        code, details = await _end(call, verdicts)
        return {"sent": sent, "write_error": error, "code": code, "details": details, "last_verdict": verdicts[-1]}


async def big(args) -> dict:
    async with grpc.aio.insecure_channel(args.server,
                                         options=[("grpc.max_send_message_length", 8 << 20)]) as ch:
        call = _open(ch, args.token)
        await _first(call)
        big = pb.BotMessage(hello=pb.Hello(client="x" * (args.ms << 10))).SerializeToString()
        sent = 0
        try:
            for _ in range(args.n):
                await call.write(big)
                sent += 1
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass
        verdicts = []
        code, details = await _end(call, verdicts)
        again = await _first(_open(ch, args.token))
        return {"sent": sent, "code": code, "details": details, "last_verdict": verdicts[-1] if verdicts else None,
                "again": again}


async def unread(args) -> dict:
    async with grpc.aio.insecure_channel(args.server) as ch:
        call = _open(ch, args.token)
        await call.write(pb.BotMessage(hello=pb.Hello(client="unread")).SerializeToString())
        await asyncio.sleep(args.ms / 1000)
        call.cancel()
        return {"sent": 1}


async def late(args) -> dict:
    out = {"connections": 0, "answered": 0, "verdicts": {}, "ended": []}
    async with grpc.aio.insecure_channel(args.server) as ch:
        games = 0
        while games < args.n:
            call = _open(ch, args.token)
            out["connections"] += 1
            tasks = set()
            lock = asyncio.Lock()       # one write at a time on a stream

            async def answer(d):
                await asyncio.sleep(args.ms / 1000)
                try:
                    async with lock:
                        await call.write(pb.BotMessage(answer=pb.Answer(
                            request_id=d.request_id, action=d.legal_actions[0])).SerializeToString())
                    out["answered"] += 1
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    pass
            try:
                while games < args.n:
                    msg = await call.read()
                    if msg is grpc.aio.EOF:
                        out["ended"].append("OK")
                        break
                    which = msg.WhichOneof("msg")
                    if which == "decision":
                        t = asyncio.ensure_future(answer(msg.decision))
                        tasks.add(t)
                        t.add_done_callback(tasks.discard)
                    elif which == "verdict":
                        k = pb.Verdict.Kind.Name(msg.verdict.kind)
                        out["verdicts"][k] = out["verdicts"].get(k, 0) + 1
                    elif which == "event" and msg.event.WhichOneof("event") == "game_ended":
                        games += 1
                    elif which == "events":
                        games += sum(e.WhichOneof("event") == "game_ended" for e in msg.events.events)
            except grpc.aio.AioRpcError as e:
                out["ended"].append(f"{e.code().name}: {e.details()}")
            for t in list(tasks):
                t.cancel()
            call.cancel()
            if out["ended"] and out["ended"][-1] != "OK" and games < args.n:
                continue        # reconnect, as a bot does
            break
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["streams", "churn", "hello", "shared", "flood", "big", "unread", "late"])
    ap.add_argument("--server", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--n", type=int, default=1)
    ap.add_argument("--ms", type=int, default=0)
    args = ap.parse_args()
    print(json.dumps(asyncio.run(globals()[args.mode](args))), flush=True)


if __name__ == "__main__":
    main()
