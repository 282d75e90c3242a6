"""The arena's own work per decision, without gRPC: hosting, engine and store.

    python bench/arena_hosting.py                  # 100 games of 29, 2 deals each, 3 runs
    python bench/arena_hosting.py --games 8 --repeat 1 --callgrind
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/dev/null \\
        python bench/arena_hosting.py --games 8 --repeat 1 --callgrind

An `taash.arena.server.hosting.Arena` plays ``--games`` games at once between connections that
are answered in this process (a random legal action, decoded from the DecisionRequest
bytes and sent back as BotMessage bytes, as the wire hands them over), so the figure is
what the server spends per decision beyond gRPC, plus this driver's small part. Prints the
CPU per decision of each run (this process, store thread included) and the lowest. On a
shared machine the CPU figure moves with the load; under callgrind with ``--callgrind``
(instrumentation switched on for the games only, with callgrind_control) the
instructions it reports ("Collected"), divided by the decisions printed, do not.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from taash.arena.pb import messages_pb2 as pb  # noqa: E402
from taash.arena.gcpolicy import tune_gc  # noqa: E402
from taash.arena.server.hosting import Arena, Connection, TimeControl  # noqa: E402
from taash.arena.store import SQLiteStore  # noqa: E402
from taash.interpreter import load_variant  # noqa: E402


async def run(games: int, deals: int, variant: str, callgrind: bool) -> tuple[int, float]:
    """(decisions, CPU seconds) of one run."""
    arena = Arena(SQLiteStore(tempfile.mkdtemp(prefix="taash-hosting-")),
                  TimeControl(move_ms=60_000, bank_ms=0, grace_ms=60_000))
    v = load_variant(variant)
    names = [f"b{s % 4}" for s in range(v.players)]
    rng = random.Random(7)
    conns = []
    for _ in range(games):
        for name in names:
            c = Connection(name)
            c.batch = True
            arena.connect(c)
            conns.append(c)

    async def bot(c):       # what the wire's writer and reader do, with the bot in between
        while True:
            item = await c.queue.get()
            if item is None:
                return
            if type(item) is tuple:
                item[1].written(item[2])
                d = pb.ServerMessage.FromString(item[0]).decision
                msg = pb.BotMessage()
                msg.answer.request_id = d.request_id
                msg.answer.action = d.legal_actions[rng.randrange(len(d.legal_actions))]
                arena.on_message(c, msg.SerializeToString())
                await asyncio.sleep(0)
    tasks = [asyncio.ensure_future(bot(c)) for c in conns]
    await asyncio.sleep(0.05)       # the welcomes
    arena.measure = True
    tune_gc()
    if callgrind:
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True)
    c0 = time.process_time()
    await asyncio.gather(*(arena.run_game(v, 1000 + g, names, max_deals=deals) for g in range(games)))
    cpu = time.process_time() - c0
    if callgrind:
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True)
    for c in conns:
        c.queue.put_nowait(None)
    await asyncio.gather(*tasks)
    arena.writer.shutdown(wait=True)
    return len(arena.latencies), cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--deals", type=int, default=2)
    ap.add_argument("--variant", default="29")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true",
                    help="switch callgrind's instrumentation on for the games only (run under valgrind)")
    args = ap.parse_args(argv)
    figures = []
    for _ in range(args.repeat):
        n, cpu = asyncio.run(run(args.games, args.deals, args.variant, args.callgrind))
        figures.append(cpu / n * 1e6)
        print(f"{args.games} games of {args.variant}, {args.deals} deals each: {n} decisions, "
              f"{figures[-1]:.0f} us CPU per decision", flush=True)
    print(f"lowest {min(figures):.0f} us per decision of {len(figures)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
