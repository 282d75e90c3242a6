"""The HTTP bridge's speed (docs/http-bots.md): decisions per second through
`taash bot http`, and the latency it adds per decision over a local HTTP bot.

    python bench/http.py [--deals 16] [--seed 1]

It starts `taash arena serve` and `taash serve http --bot random` (the bot behind the
bridge: random, so that the figures are the bridge's and not a bot's thinking), and:

1. sends the requests of a set of deals straight to that server (aiohttp, keep-alive):
   the bare HTTP round trip, p50/p99;
2. plays ``--deals`` deals in the arena with all four seats through one bridge (the
   `BridgeClient` of `taash bot http`, in this process so that it can be timed): decisions/s
   (the match's wall time), and per decision the bridge's own time (from the decision's
   arrival to its answer written, less that decision's HTTP round trip), p50/p99;
3. plays the same deals with the native `taash bot random` over gRPC, for comparison:
   the arena's time per decision (the record's ``t_ms``, whole ms) of both matches.
"""

from __future__ import annotations

import sys
from pathlib import Path

# run as a script, this file's folder comes first on sys.path and its name would hide the
# standard library's `http`: put the checkout there instead
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import argparse
import asyncio
import json
import random
import subprocess
import tempfile
import time

ROOT = Path(__file__).resolve().parent.parent


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


async def bare(url, reqs):
    import aiohttp
    out = []
    async with aiohttp.ClientSession() as s:
        for path, body in reqs:
            t = time.perf_counter()
            async with s.post(url + path, data=json.dumps(body), headers={"Content-Type": "application/json"}) as r:
                await r.read()
            out.append((time.perf_counter() - t) * 1000)
    return out


def arena_ms(rec):
    out = []
    for ad in rec["arena"]["deals"]:
        ts = ad["t_ms"]
        out += [y - x for x, y in zip(ts, ts[1:])]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    import threading
    from taash.interpreter import State, load_variant, replay
    from taash.arena.http.bridge import BridgeClient
    from taash.arena.http.translate import default_ids, request_of
    from tests.helpers.arena_util import TAASH, Server, env, record
    v = load_variant("house/29-bhoos")
    reqs = []
    rng = random.Random(a.seed)
    for d in range(a.deals):
        st = State(v, dealer=d % 4, seed=a.seed + d)
        while not st.is_terminal:
            reqs.append(request_of(st.observation(st.to_act), default_ids()))
            la = st.legal_actions()
            st.apply(la[rng.randrange(len(la))])
    tc = dict(move_ms=5000, bank_ms=60000, grace_ms=5000, max_strikes=3)
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(Path(tmp) / "data")
        try:
            p = subprocess.Popen([*TAASH, "serve", "http", "--bot", "random", "--port", "0"], stdout=subprocess.PIPE,
                                 text=True, env=env(), cwd=ROOT)
            srv.procs.append(p)
            url = p.stdout.readline().split("listening on ")[1].split()[0]
            http_ms = asyncio.run(bare(url, reqs))
            client = BridgeClient(url, srv.token("hb"), "hb", srv.addr, max_games=1)
            th = threading.Thread(target=lambda: asyncio.run(client.run()), daemon=True)
            th.start()
            srv.wait_connected(["hb"])
            t = time.perf_counter()
            [res] = srv.run_matches("house/29-bhoos", ["hb"] * 4, seed=a.seed, max_deals=a.deals, **tc)
            wall = time.perf_counter() - t
            th.join(30)
            rec = record(res.record)
            assert not rec["arena"]["verdicts"], rec["arena"]["verdicts"]
            replay(rec)
            n = sum(len(ad["t_ms"]) for ad in rec["arena"]["deals"])
            via_bridge = arena_ms(rec)
            own = [tot - h for tot, h in client.timings if h > 0]
            srv.bot("random", "rn", srv.token("rn"))
            srv.wait_connected(["rn"])
            t = time.perf_counter()
            [res2] = srv.run_matches("house/29-bhoos", ["rn"] * 4, seed=a.seed, max_deals=a.deals, **tc)
            wall2 = time.perf_counter() - t
            rec2 = record(res2.record)
            n2 = sum(len(ad["t_ms"]) for ad in rec2["arena"]["deals"])
            native = arena_ms(rec2)
        finally:
            srv.stop()
    print(f"bare HTTP round trip to `taash serve http --bot random`: {len(http_ms)} requests, "
          f"p50 {pct(http_ms, 50):.2f} ms, p99 {pct(http_ms, 99):.2f} ms")
    print(f"through the arena and the bridge: {n} decisions in {wall:.2f} s: {n / wall:.0f} decisions/s "
          f"(one game, four seats on one bridge)")
    print(f"the bridge's own time per decision (arrival to answer, less its HTTP round trip): "
          f"{len(own)} decisions, p50 {pct(own, 50):.2f} ms, p99 {pct(own, 99):.2f} ms")
    print(f"arena time per decision (t_ms deltas): through the bridge p50 {pct(via_bridge, 50)} ms, "
          f"p99 {pct(via_bridge, 99)} ms; native `taash bot random` p50 {pct(native, 50)} ms, "
          f"p99 {pct(native, 99)} ms ({n2} decisions in {wall2:.2f} s: {n2 / wall2:.0f}/s)")


if __name__ == "__main__":
    main()
