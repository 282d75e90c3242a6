"""The live page under load: first paint and update rate of /live with many games
running, and the arena's decisions/s with the page open against without.

    python bench/web.py                 # 1000 concurrent games of 29, 2 deals each
    python bench/web.py --games 200 --deals 1 --repeat 3

On localhost it starts `taash arena serve`, two `taash bot random` processes (every game
is r1,r2,r1,r2) and runs --games games at once through RunMatches, twice (--repeat N: N interleaved pairs):

- without the page: the arena alone; decisions/s = the actions in the games' records /
  the wall time of the RunMatches call;
- with the page: `taash web --arena` following the arena and a headless Chromium
  (Debian's, /usr/bin/chromium, through Playwright) on /live from the start. Figures:
  first contentful paint and the time to the first live data (the SSE snapshot) after
  navigation, ms; the page's update rate (SSE messages applied per second, its page of
  24 tables); the arena's decisions/s as above.

Everything shares the machine's cores (here 2): the page's cost includes the CPU the web
process and the browser take from the arena. Prints one table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TAASH = [sys.executable, "-m", "taash.arena.cli"]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def start_arena(data: Path):
    p = subprocess.Popen([*TAASH, "arena", "serve", "--port", "0", "--data", str(data), "--public-seeds"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env(), cwd=ROOT)
    line = p.stdout.readline()
    addr = line.split("listening on ")[1].split()[0]
    bots = []
    for n in ("r1", "r2"):
        tok = subprocess.run([*TAASH, "arena", "token", n, "--data", str(data)], capture_output=True, text=True,
                             env=env(), cwd=ROOT, check=True).stdout.strip()
        bots.append(subprocess.Popen([*TAASH, "bot", "random", "--name", n, "--token", tok, "--server", addr],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(), cwd=ROOT))
    return p, bots, addr


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def renice_browser(n: int) -> None:
    """Lower by ``n`` the CPU priority of this process's descendants that are Chromium
    (the browser Playwright started; nobody else's)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                pass
    me = os.getpid()
    for pid in parent:
        p, seen = pid, 0
        while p in parent and p != me and seen < 50:
            p, seen = parent[p], seen + 1
        if p == me and pid != me:
            try:
                if "chrom" in Path(f"/proc/{pid}/comm").read_text():
                    os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid) + n)
            except OSError:
                pass


def run_games(addr, data, games, deals, seed):
    """RunMatches of ``games`` games at once; returns (decisions, seconds)."""
    import grpc
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
    admin = (Path(data) / "admin-token").read_text().strip()
    req = apb.MatchRequest(variant="29", bots=["r1", "r2", "r1", "r2"], matches=games, parallel=games, seed=seed,
                           max_deals=deals, wait_ms=30000)
    t0 = time.monotonic()
    with grpc.insecure_channel(addr) as ch:
        ups = list(arena_pb2_grpc.ArenaStub(ch).RunMatches(req, metadata=[("authorization", f"Bearer {admin}")],
                                                           timeout=1800))
    dt = time.monotonic() - t0
    n = 0
    for u in ups:
        if u.WhichOneof("update") == "game" and u.game.record:
            rec = json.loads(Path(u.game.record).read_text())
            n += sum(len(d["actions"]) for d in rec["deals"])
    return n, dt


def with_page(addr, data, tmp, a, arena, bots, k):
    """One run with `taash web` and a headless Chromium on /live: returns its table row."""
    web = subprocess.Popen([*TAASH, "web", "--data", str(data), "--arena", addr, "--port", "0", "--nice", str(a.nice)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env(), cwd=ROOT)
    url = web.stdout.readline().split("web pages on ")[1].strip()
    from playwright.sync_api import sync_playwright
    try:
        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(str(tmp / f"profile-{k}"), executable_path="/usr/bin/chromium",
                                                        args=FLAGS, headless=True)
            page = ctx.new_page()
            if a.nice:
                renice_browser(a.nice)
            box = {}
            c0 = {p.pid: cpu_s(p.pid) for p in [arena, web] + bots}
            t = threading.Thread(target=lambda: box.update(r=run_games(addr, data, a.games, a.deals, k)))
            t.start()
            time.sleep(1.0)   # the games are running
            page.goto(url + "live", wait_until="load")
            page.wait_for_function("window.taashFirstData !== undefined", timeout=60_000)
            fcp_js = "performance.getEntriesByName('first-contentful-paint')[0]?.startTime"
            try:
                page.wait_for_function(fcp_js + " !== undefined", timeout=30_000)
            except Exception:
                pass
            fcp = page.evaluate(fcp_js + " ?? null")
            first = page.evaluate("window.taashFirstData")
            u0, t0 = page.evaluate("window.taashUpdates || 0"), time.monotonic()
            t.join(1800)
            u1, t1 = page.evaluate("window.taashUpdates || 0"), time.monotonic()
            n, dt = box["r"]
            cpu = {k: cpu_s(k) - v for k, v in c0.items()}
            ctx.close()
            return ("with /live open", n / dt, fcp, first, (u1 - u0) / (t1 - t0), cpu[arena.pid],
                    sum(cpu.values()) - cpu[arena.pid] - cpu[web.pid], cpu[web.pid])
    finally:
        web.terminate()
        web.wait(10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--deals", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="N interleaved pairs of runs (without, with the page); the ratio is their median")
    ap.add_argument("--nice", type=int, default=0,
                    help="run the web process (taash web --nice N) and the browser at a lower CPU priority")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="taash-bench-web-"))
    data = tmp / "data"
    arena, bots, addr = start_arena(data)
    rows = []
    try:
        time.sleep(1.5)   # the bots connect
        run_games(addr, data, 4, 1, 10_000)   # warm up
        for k in range(a.repeat):
            c0 = {p.pid: cpu_s(p.pid) for p in [arena] + bots}
            n, dt = run_games(addr, data, a.games, a.deals, k)
            cpu = {q: cpu_s(q) - v for q, v in c0.items()}
            rows.append(("without the page", n / dt, None, None, None, cpu[arena.pid],
                         sum(cpu.values()) - cpu[arena.pid], None))
            rows.append(with_page(addr, data, tmp, a, arena, bots, k))
    finally:
        for p in bots + [arena]:
            p.terminate()
        for p in bots + [arena]:
            p.wait(15)
    print(f"{a.games} games of 29 at once, {a.deals} deals each, 2 random bot processes"
          f"{f', web and browser at nice {a.nice}' if a.nice else ''}; load average at the end "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'':18} {'decisions/s':>12} {'first paint ms':>15} {'first data ms':>14} {'updates/s':>10}"
          f" {'arena cpu s':>12} {'bots cpu s':>11} {'web cpu s':>10}")
    for name, dps, fcp, first, ups, ca, cb, cw in rows:
        f = lambda x: "-" if x is None else f"{x:.0f}"
        g = lambda x: "-" if x is None else f"{x:.1f}"
        print(f"{name:18} {dps:12.0f} {f(fcp):>15} {f(first):>14} {f(ups):>10} {g(ca):>12} {g(cb):>11} {g(cw):>10}")
    ratios = [rows[i + 1][1] / rows[i][1] for i in range(0, len(rows), 2)]
    cpu = [rows[i + 1][5] / rows[i][5] for i in range(0, len(rows), 2)]
    print(f"page open / without, decisions/s: {statistics.median(ratios):.2f} (median of {len(ratios)}: "
          + ", ".join(f"{r:.2f}" for r in ratios) + f"); arena cpu: {statistics.median(cpu):.2f}")


if __name__ == "__main__":
    main()
