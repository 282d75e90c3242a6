"""The HTTP bridge's speed (docs/http-bots.md): decisions per second through
`taash bot http`, and the latency it adds per decision over a local HTTP bot.

    python bench/http.py [--deals 8] [--seed 1]

It starts `taash serve http --bot random` (the bot behind the bridge: so that the figures
are the bridge's, not a bot's thinking), measures the bare HTTP round trip of each of the
requests of a set of deals straight to that server (aiohttp, keep-alive), then plays the
same number of deals in the arena with all four seats through one bridge, and reports:

- decisions/s through the arena and the bridge (wall time of the match / decisions);
- per decision, the arena's time from request to answer (the record's t_ms deltas) minus
  the bare HTTP round trip: the bridge's added latency, p50 and p99.
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
import statistics
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    from interpreter import State, load_variant, replay
    from arena.http.translate import default_ids, request_of
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
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(Path(tmp) / "data")
        try:
            p = subprocess.Popen([*TAASH, "serve", "http", "--bot", "random", "--port", "0"], stdout=subprocess.PIPE,
                                 text=True, env=env(), cwd=ROOT)
            srv.procs.append(p)
            url = p.stdout.readline().split("listening on ")[1].split()[0]
            http_ms = asyncio.run(bare(url, reqs))
            b = subprocess.Popen([*TAASH, "bot", "http", url, "--name", "hb", "--token", srv.token("hb"),
                                  "--server", srv.addr], stderr=subprocess.DEVNULL, env=env(), cwd=ROOT)
            srv.procs.append(b)
            srv.wait_connected(["hb"])
            t = time.perf_counter()
            [res] = srv.run_matches("house/29-bhoos", ["hb"] * 4, seed=a.seed, max_deals=a.deals,
                                    move_ms=5000, bank_ms=60000, grace_ms=5000, max_strikes=3)
            wall = time.perf_counter() - t
            rec = record(res.record)
            assert not rec["arena"]["verdicts"], rec["arena"]["verdicts"]
            replay(rec)
            per = []
            for ad in rec["arena"]["deals"]:
                ts = ad["t_ms"]
                per += [y - x for x, y in zip(ts, ts[1:])]
            n = sum(len(ad["t_ms"]) for ad in rec["arena"]["deals"])
        finally:
            srv.stop()
    hp50, hp99 = pct(http_ms, 50), pct(http_ms, 99)
    ap50, ap99 = pct(per, 50), pct(per, 99)
    print(f"bare HTTP round trip to `taash serve http --bot random`: {len(http_ms)} requests, "
          f"p50 {hp50:.2f} ms, p99 {hp99:.2f} ms (mean {statistics.mean(http_ms):.2f})")
    print(f"through arena + bridge: {n} decisions in {wall:.2f} s: {n / wall:.0f} decisions/s; "
          f"per decision p50 {ap50:.2f} ms, p99 {ap99:.2f} ms")
    print(f"added by the arena and the bridge per decision: p50 {ap50 - hp50:.2f} ms, p99 {ap99 - hp99:.2f} ms")


if __name__ == "__main__":
    main()
