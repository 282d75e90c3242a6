"""A spectator that kills the arena the instant it is told a deal ended, run as a process
of its own:

    python -m tests.helpers.kill_at_deal_end --server ADDR --pid PID --out FILE [--after N]

It watches every game (Watch, empty game_id); at the Nth DealEnded event (default 1) it
sends SIGKILL to PID (the arena's process) before anything else, then writes FILE (JSON):
the [game_id, deal] of every DealEnded it read, in order. It writes FILE.open once the
call is accepted."""

from __future__ import annotations

import argparse
import json
import os
import signal
from pathlib import Path

import grpc

from taash.arena.pb import arena_pb2 as apb
from taash.arena.pb import arena_pb2_grpc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--after", type=int, default=1)
    a = ap.parse_args()
    out = Path(a.out)
    with grpc.insecure_channel(a.server) as ch:
        call = arena_pb2_grpc.ArenaStub(ch).Watch(apb.WatchRequest())
        call.initial_metadata()
        Path(str(out) + ".open").write_text("")
        told = []
        for ev in call:
            if ev.WhichOneof("event") == "deal_ended":
                told.append([ev.game_id, ev.deal_ended.deal])
                if len(told) >= a.after:
                    os.kill(a.pid, signal.SIGKILL)
                    out.write_text(json.dumps(told))
                    return


if __name__ == "__main__":
    main()
