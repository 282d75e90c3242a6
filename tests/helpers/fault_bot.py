"""A misbehaving arena bot for the fault tests, run as a process of its own:

    python -m tests.helpers.fault_bot MODE --name N --token T --server ADDR --out FILE

It speaks the raw protocol (no SDK) so that it can send anything. It answers every
request with its first legal action except where MODE says otherwise, at its 2nd (or
3rd) decision request:

    late        answers the 2nd request after its deadline and the network grace (with the
                last legal action)
    illegal     2nd request: an illegal action, then a legal one after the verdict;
                4th request: three illegal actions (strike-out)
    malformed   2nd request: undecodable bytes, an Answer without action, an empty
                message, then its answer
    stale       2nd request: answers it twice; also answers a request id never sent
    stale8      2nd request: answers it, then 7 times more (7 STALE_REQUEST: 5 kept in
                full, 2 only counted)
    disconnect  3rd request: cancels its stream, reconnects 0.3 s later, answers the
                request the arena sends again
    vanish      3rd request: closes its stream and exits
    crash       3rd request: the process dies (os._exit) without closing anything
    flood       2nd request: 10,000 empty messages, then its answer; if the arena closes
                the stream, it reconnects and answers the request sent again
    huge        2nd request: 23 answers of 1 MiB each (none legal), then a legal one
    edge        answers every request 15 ms before its deadline_ms (from receipt)
    hold        3rd request: writes FILE.hold and does not answer; logs how the stream
                ended (its gRPC status) and exits without reconnecting
    auth-plain  connects with `authorization: TOKEN` (no `Bearer `) and logs the status
    auth-two    connects with two `authorization` headers and logs the status
    plain       answers every request at once (and counts the events it gets)
    silent      never answers
    sdk-error   (the Python SDK) decide raises at the 2nd request
    sdk-drop    (the Python SDK) the connection breaks at the 3rd request; the SDK
                reconnects and resumes

It writes what it saw to FILE (JSON) after every message: requests (id, seat, legal,
resumed, answer), verdicts (kind, request id, action, applied, legal, strikes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path

import grpc

from taash.arena.pb import messages_pb2 as pb
from taash.arena.server.faults import NETWORK_GRACE_MS   # the arena waits that much past deadline_ms

METHOD = "/taash.arena.v1.Arena/Play"


class Log:
    def __init__(self, path):
        self.path = Path(path)
        self.data = {"requests": [], "verdicts": [], "games_ended": 0, "connections": 0}

    def save(self):
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.data))
        tmp.replace(self.path)


def verdict_dict(v):
    return {"kind": pb.Verdict.Kind.Name(v.kind), "request_id": v.request_id, "action": v.action,
            "applied": v.applied_action, "legal": list(v.legal_actions), "strikes": v.strikes,
            "seat": v.seat, "game_id": v.game_id}


async def raw_bot(args, log: Log):
    md = [("authorization", f"Bearer {args.token}"), ("taash-bot", args.name)]
    if args.mode == "auth-plain":
        md = [("authorization", args.token)]
    elif args.mode == "auth-two":
        md = [("authorization", f"Bearer {args.token}"), ("authorization", "Bearer taash_other")]
    channel = grpc.aio.insecure_channel(args.server)
    stream = channel.stream_stream(METHOD, request_serializer=lambda b: b,
                                   response_deserializer=pb.ServerMessage.FromString)
    n = 0
    outq = asyncio.Queue()

    async def outgoing():
        while True:
            item = await outq.get()
            if item is None:
                return
            yield item

    def open_call():
        # flood writes through a request iterator: a write that fails on a closed stream
        # would otherwise hide the arena's status behind the client's own INTERNAL
        return stream(outgoing(), metadata=md) if args.mode == "flood" else stream(metadata=md)

    async def write(data):
        if args.mode == "flood":
            await outq.put(data)
        else:
            await call.write(data)

    call = open_call()
    log.data["connections"] += 1
    log.data["events"] = 0
    log.data["ended"] = []
    answers = {}

    async def answer(rid, action):
        answers[rid] = action
        await write(pb.BotMessage(answer=pb.Answer(request_id=rid, action=action)).SerializeToString())

    while True:
        try:
            msg = await call.read()
        except grpc.aio.AioRpcError as e:
            log.data["ended"].append({"code": e.code().name, "details": e.details()})
            log.save()
            if args.mode == "flood" and len(log.data["ended"]) == 1:
                outq = asyncio.Queue()
                call = open_call()
                log.data["connections"] += 1
                continue
            break
        if msg is grpc.aio.EOF:
            log.data["ended"].append({"code": "OK", "details": ""})
            break
        if msg.WhichOneof("msg") == "event":
            log.data["events"] += 1
        which = msg.WhichOneof("msg")
        if which == "verdict":
            v = msg.verdict
            log.data["verdicts"].append(verdict_dict(v))
            if v.kind == pb.Verdict.ILLEGAL_ACTION and args.mode == "illegal" and v.strikes == 1 \
                    and log.data["requests"][-1]["n"] == 2:
                await answer(v.request_id, v.legal_actions[0])
                log.data["requests"][-1]["answer"] = v.legal_actions[0]
        elif which == "event" and msg.event.WhichOneof("event") == "game_ended":
            log.data["games_ended"] += 1
        elif which == "decision":
            d = msg.decision
            legal = list(d.legal_actions)
            if not d.resumed:
                n += 1
            req = {"n": n, "request_id": d.request_id, "seat": d.seat, "legal": legal, "resumed": d.resumed,
                   "deadline_ms": d.deadline_ms, "time_bank_ms": d.time_bank_ms, "answer": None}
            log.data["requests"].append(req)
            log.save()
            mode = args.mode
            if mode == "late" and n == 2 and not d.resumed:
                await asyncio.sleep((d.deadline_ms + NETWORK_GRACE_MS + 150) / 1000)
                req["answer"] = legal[-1]
                await answer(d.request_id, legal[-1])
            elif mode == "illegal" and n == 2 and not d.resumed:
                req["answer"] = None
                await answer(d.request_id, "play ZZ")
            elif mode == "illegal" and n == 4 and not d.resumed:
                for bad in ("bogus one", "bogus two", "bogus three"):
                    await answer(d.request_id, bad)
            elif mode == "flood" and n == 2 and not d.resumed:
                empty = pb.BotMessage().SerializeToString()
                for _ in range(10_000):
                    await write(empty)
                req["answer"] = legal[0]
                await answer(d.request_id, legal[0])
            elif mode == "huge" and n == 2 and not d.resumed:
                for i in range(23):
                    await answer(d.request_id, f"play {i}" + "X" * (1 << 20))
                req["answer"] = legal[0]
                await answer(d.request_id, legal[0])
            elif mode == "edge":
                await asyncio.sleep(max(0, d.deadline_ms - 15) / 1000)
                req["answer"] = legal[0]
                await answer(d.request_id, legal[0])
            elif mode == "silent":
                pass
            elif mode == "hold" and n == 3 and not d.resumed:
                log.save()
                Path(args.out + ".hold").write_text(d.request_id)
            elif mode == "malformed" and n == 2 and not d.resumed:
                await call.write(b"\xff\xff\xff\xff\x0f")
                await call.write(pb.BotMessage(answer=pb.Answer(request_id=d.request_id)).SerializeToString())
                await call.write(pb.BotMessage().SerializeToString())
                req["answer"] = legal[0]
                await answer(d.request_id, legal[0])
            elif mode == "stale" and n == 2 and not d.resumed:
                req["answer"] = legal[0]
                await answer(d.request_id, legal[0])
                await answer(d.request_id, legal[0])
                await answer("g999999.7", legal[0])
            elif mode == "stale8" and n == 2 and not d.resumed:
                req["answer"] = legal[0]
                for _ in range(8):
                    await answer(d.request_id, legal[0])
            elif mode == "disconnect" and n == 3 and not d.resumed:
                call.cancel()
                log.save()
                await asyncio.sleep(0.3)
                call = stream(metadata=md)
                log.data["connections"] += 1
                continue
            elif mode == "vanish" and n == 3 and not d.resumed:
                await call.done_writing()      # a clean goodbye: the arena ends the stream
                log.save()
                while await call.read() is not grpc.aio.EOF:
                    pass
                await channel.close()
                return
            elif mode == "crash" and n == 3 and not d.resumed:
                log.save()
                os._exit(3)
            else:
                req["answer"] = legal[0]
                await answer(d.request_id, legal[0])
        log.save()
        if args.games and log.data["games_ended"] >= args.games:
            break
    log.save()
    await channel.close()


def sdk_bot(args, log: Log):
    from taash.arena.sdk import Bot, BotClient

    class FaultySDKBot(Bot):
        def __init__(self):
            self.n = 0
            self.client = None

        def decide(self, observation, legal_actions, game):
            self.n += 1
            log.data["requests"].append({"n": self.n, "seat": observation["seat"], "legal": legal_actions,
                                         "answer": legal_actions[0]})
            log.save()
            if args.mode == "sdk-error" and self.n == 2:
                log.data["requests"][-1]["answer"] = None
                raise RuntimeError("this bot crashed while deciding")
            if args.mode == "sdk-drop" and self.n == 3:
                self.client.drop()   # the answer goes out again when the arena resends the request
            return legal_actions[0]

        def on_verdict(self, verdict):
            log.data["verdicts"].append(verdict_dict(verdict))
            log.save()

        def on_game_end(self, game, ended):
            log.data["games_ended"] += 1
            log.save()

    bot = FaultySDKBot()
    client = BotClient(bot, args.token, args.name, args.server, max_games=args.games or None, threads=False)
    bot.client = client
    asyncio.run(client.run())
    log.data["connections"] = client.connections
    log.save()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode")
    ap.add_argument("--name", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--games", type=int, default=0)
    args = ap.parse_args()
    log = Log(args.out)
    log.save()
    if args.mode.startswith("sdk-"):
        sdk_bot(args, log)
    else:
        asyncio.run(raw_bot(args, log))


if __name__ == "__main__":
    main()
