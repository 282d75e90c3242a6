"""A spectator for the arena tests, run as a process of its own:

    python -m tests.helpers.watch_client MODE --server ADDR --out FILE [--game ID] [--token T] [--batches]

MODE ``read`` reads every event; ``idle`` opens the Watch call and reads nothing until
the file ``FILE.go`` exists, then reads what is there. ``idle-bot`` does the same with a
bot's Play stream (``--token`` is the bot's) and never answers. Either way it writes to FILE (JSON)
when the call ends: the events it read (type, game, index) and the call's status code
and details. It writes FILE.open once the call is accepted (its first message or, for an
idle one, the call's initial metadata). ``--batches``: a spectator calls WatchBatches
instead of Watch; FILE then also holds the number of messages it read. ``--default-window``:
gRPC's default flow-control window (64 KiB) instead of a small one; FILE then also holds
``seconds``, from the call's acceptance to its end."""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path

import grpc

from taash.arena.pb import arena_pb2 as apb
from taash.arena.pb import arena_pb2_grpc


def _never():
    """A request stream that stays open and sends nothing (until the process ends)."""
    threading.Event().wait()
    yield from ()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["read", "idle", "idle-bot"])
    ap.add_argument("--server", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--game", default="")
    ap.add_argument("--token")
    ap.add_argument("--batches", action="store_true")
    ap.add_argument("--default-window", action="store_true")
    a = ap.parse_args()
    out = Path(a.out)
    md = [("authorization", f"Bearer {a.token}")] if a.token else None
    seen, code, details, messages = [], "OK", "", 0
    # a small receive window, so that a spectator that does not read makes the arena wait
    opts = [] if a.default_window else [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
    t_open = None
    with grpc.insecure_channel(a.server, options=opts) as ch:
        stub = arena_pb2_grpc.ArenaStub(ch)
        if a.mode == "idle-bot":
            call = stub.Play(_never(), metadata=md)
        elif a.batches:
            call = stub.WatchBatches(apb.WatchRequest(game_id=a.game), metadata=md)
        else:
            call = stub.Watch(apb.WatchRequest(game_id=a.game), metadata=md)
        try:
            call.initial_metadata()
            t_open = time.monotonic()
            Path(a.out + ".open").write_text("")
            if a.mode != "read":
                while not Path(a.out + ".go").exists():
                    time.sleep(0.05)
            for msg in call:
                messages += 1
                if a.mode == "idle-bot":
                    seen.append({"type": msg.WhichOneof("msg")})
                    continue
                for ev in (msg.events if a.batches else (msg,)):
                    seen.append({"type": ev.WhichOneof("event"), "game": ev.game_id, "index": ev.index})
        except grpc.RpcError as e:
            code, details = e.code().name, e.details()
    seconds = time.monotonic() - t_open if t_open is not None else None
    out.write_text(json.dumps({"events": seen, "code": code, "details": details, "messages": messages,
                               "seconds": seconds}))


if __name__ == "__main__":
    main()
