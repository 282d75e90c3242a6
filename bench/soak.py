"""Arena memory over many games: RSS of the server process per 1,000 games.

    python bench/soak.py                       # 10,000 games of 28 (one deal each)
    python bench/soak.py --games 3000 --every 500

The server (taash.arena.server.ArenaServer, in a process of its own) plays --games games,
--parallel at once, each cut after one deal, between three Python SDK bots (another
process: this one) and one bot whose Play stream is never read: its decisions time out
(move 100 ms, no bank, 5 ms grace), its send queue fills until the arena drops the stream
(--max-queued), and it opens a new stream that it does not read either. Prints the
server's RSS (VmRSS of /proc, MiB) after every --every games and the ratio of the last to
the first. The bar: RSS after 10,000 games within 10% of RSS after 1,000.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def server(games: int, parallel: int, every: int, max_queued: int, data: str) -> None:
    from taash.interpreter import load_variant
    from taash.arena.server import ArenaServer, TimeControl, tune_gc
    from taash.arena.store import SQLiteStore
    store = SQLiteStore(data)
    names = ["idle", "s1", "s2", "s3"]
    tokens = {n: store.issue_token(n) for n in names}
    srv = ArenaServer(store, TimeControl(move_ms=100, bank_ms=0, grace_ms=5), send_limit=max_queued)
    port = await srv.start("127.0.0.1", 0)
    print(json.dumps({"port": port, "tokens": tokens}), flush=True)
    arena = srv.arena
    while any(arena.live_conn(n) is None for n in names):
        await asyncio.sleep(0.05)
    tune_gc()
    v = load_variant("28")
    done = 0
    sem = asyncio.Semaphore(parallel)
    lock = asyncio.Lock()

    async def one(i):
        nonlocal done
        async with sem:
            await arena.run_game(v, i, names, max_deals=1)
        async with lock:
            done += 1
            if done % every == 0:
                print(json.dumps({"games": done, "rss_mib": rss_mib(), "conns": len(arena.conns.get("idle", []))}),
                      flush=True)
    await asyncio.gather(*(one(i) for i in range(games)))
    await srv.stop()
    print(json.dumps({"end": True}), flush=True)


async def idle_bot(addr: str, token: str, stop: threading.Event) -> int:
    """Open a Play stream, never read it; when the arena ends it, open another."""
    from taash.arena.pb import messages_pb2 as pb
    streams = 0
    async with grpc.aio.insecure_channel(addr, options=[("grpc.http2.lookahead_bytes", 1024),
                                                        ("grpc.http2.bdp_probe", 0)]) as ch:
        while not stop.is_set():
            call = ch.stream_stream("/taash.arena.v1.Arena/Play", request_serializer=pb.BotMessage.SerializeToString,
                                    response_deserializer=pb.ServerMessage.FromString)(
                metadata=[("authorization", f"Bearer {token}")])
            streams += 1
            await call.code()       # the end of the call, without reading a message
    return streams


async def clients(addr: str, tokens: dict, proc) -> None:
    from taash.arena.sdk import BotClient
    bots = [BotClient(lambda o, legal: legal[0], tokens[n], n, addr, threads=False) for n in ("s1", "s2", "s3")]
    tasks = [asyncio.ensure_future(b.run()) for b in bots]
    stop = threading.Event()
    idle = asyncio.ensure_future(idle_bot(addr, tokens["idle"], stop))
    first = None
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, proc.stdout.readline)
        if not line:
            break
        r = json.loads(line)
        if r.get("end"):
            break
        first = first or r["rss_mib"]
        print(f"{r['games']:>8} games  RSS {r['rss_mib']:8.1f} MiB  ({r['rss_mib'] / first:.3f} of the first)",
              flush=True)
    stop.set()
    for b in bots:
        b.stop()
    idle.cancel()
    await asyncio.gather(*tasks, idle, return_exceptions=True)


def main(argv=None) -> int:
    import logging
    logging.getLogger("taash").setLevel(logging.ERROR)   # the timeouts are the point
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--parallel", type=int, default=50)
    ap.add_argument("--max-queued", type=int, default=10_000, help="the arena's send queue limit")
    ap.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.role:
        asyncio.run(server(a.games, a.parallel, a.every, a.max_queued, a.role[1]))
        return 0
    data = tempfile.mkdtemp(prefix="taash-soak-")
    proc = subprocess.Popen([sys.executable, __file__, "--games", str(a.games), "--every", str(a.every),
                             "--parallel", str(a.parallel), "--max-queued", str(a.max_queued),
                             "--role", "server", data], stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
    info = json.loads(proc.stdout.readline())
    print(f"arena soak: {a.games} games of 28 (one deal), {a.parallel} at once, one seat never reads "
          f"(--max-queued {a.max_queued}); server RSS:", flush=True)
    asyncio.run(clients(f"127.0.0.1:{info['port']}", info["tokens"], proc))
    proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
