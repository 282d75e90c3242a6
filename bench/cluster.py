"""Deals/s of a ladder on Ray against the local runner, Ray's cost per task, and the rate
at which the driver can take results (store writes + ratings): the ceiling of a cluster.

    python bench/cluster.py                          # 28, heuristic vs random, 480 deals
    python bench/cluster.py --variant 29 --deals 960 --store postgresql://...

Rows (each a fresh temporary store; the same ladder, the same seed, so the same games):
- local, 1 process (InProcessRunner) and local, 2 processes (--workers 2);
- Ray with 1 and with 2 CPUs (a local Ray started for the row, 127.0.0.1): the first
  ladder ("cold", worker processes starting) and a second one on a fresh store ("warm");
- `taash simulate --deals` locally and on Ray (1 and 2 CPUs, cold and warm), its summary
  checked equal to the local one;
- Ray's cost per task: no-op tasks, and `_play_chunk` of no game (what a chunk costs
  beyond its games);
- the driver's ceiling: the ladder's stored results replayed into a fresh store by a
  runner that plays nothing, so only planning, store writes and ratings are timed:
  games/s and deals/s the driver can absorb (SQLite, and --store if given).
The standings of every row are checked equal to the local run's.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# bench/http.py would shadow the standard library's http (Ray imports it): not on the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from taash.arena.ladder import InProcessRunner, LadderSettings, run_ladder  # noqa: E402
from taash.arena.store import open_ladder_store  # noqa: E402
from taash.arena.ladder import cluster  # noqa: E402

BOTS = {"heuristic": "heuristic", "random": "random"}


def timed_ladder(runner, variant, deals, settings, workers=1, store=None):
    """(seconds, summary, standings JSON) of one ladder into a fresh store."""
    with tempfile.TemporaryDirectory() as d:
        st = store if store is not None else open_ladder_store(None, d)
        t = time.perf_counter()
        s = run_ladder(st, runner, list(BOTS), deals, settings, workers=workers)
        dt = time.perf_counter() - t
        ref = runner.variant.ref
        out = json.dumps([x.to_json() for x in st.standings(ref)]), st.games(ref, records=True)
        if store is None:
            st.close()
    return dt, s, out


class Replay:
    """A runner that plays nothing: it yields the results of a finished ladder."""
    name = "replay"

    def __init__(self, variant, results):
        self.variant, self.by_key = variant, results

    def check(self, names):
        pass

    def results(self, specs, workers=1):
        for s in specs:
            yield self.by_key[s.key]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="28")
    ap.add_argument("--deals", type=int, default=480)
    ap.add_argument("--game-deals", type=int, default=4)
    ap.add_argument("--tasks", type=int, default=200, help="no-op tasks to time")
    ap.add_argument("--sim-deals", type=int, default=4000, help="deals of the simulate rows")
    ap.add_argument("--sim-bots", default="random,heuristic,random,heuristic", type=lambda t: t.split(","),
                    help="a bot per seat for the simulate rows")
    ap.add_argument("--store", help="also time the driver's ceiling with this store (postgresql://...)")
    a = ap.parse_args()
    settings = LadderSettings(seed=1, duplicate=True, game_deals=a.game_deals)
    rows = []

    def row(name, dt, s, note=""):
        rows.append((name, s.games_played, s.deals_total, dt, s.deals_total / dt, note))
        print(f"{name:28} {s.games_played:6} games {s.deals_total:6} deals {dt:8.2f} s "
              f"{s.deals_total / dt:9.1f} deals/s {note}", flush=True)

    local = InProcessRunner(a.variant, BOTS)
    dt, s, (ref_standings, results) = timed_ladder(local, a.variant, a.deals, settings)
    row("local, 1 process", dt, s)
    dt, s2, (st2, _) = timed_ladder(local, a.variant, a.deals, settings, workers=2)
    row("local, 2 processes", dt, s2, "" if st2 == ref_standings else "STANDINGS DIFFER")

    from taash.arena.simulation import simulate
    sims = []
    t = time.perf_counter()
    _, sim_ref = simulate(local.variant, None, a.sim_deals, 1, bots=a.sim_bots, keep=False)
    sims.append(("local, 1 process", time.perf_counter() - t))

    import ray
    per_task = {}
    for cpus in (1, 2):
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
                 logging_level=logging.WARNING)
        try:
            for phase in ("cold", "warm"):
                runner = cluster.RayRunner(a.variant, BOTS)
                dt, s, (st, _) = timed_ladder(runner, a.variant, a.deals, settings)
                row(f"Ray, {cpus} CPU{'s' if cpus > 1 else ''}, {phase}", dt, s,
                    f"{runner.tasks} tasks" + ("" if st == ref_standings else "  STANDINGS DIFFER"))
            for phase in ("cold", "warm"):
                t = time.perf_counter()
                got = cluster.simulate_ray(a.variant, None, a.sim_deals, 1, bots=a.sim_bots)
                sims.append((f"Ray, {cpus} CPU{'s' if cpus > 1 else ''}, {phase}", time.perf_counter() - t,
                             "" if got == sim_ref else "SUMMARY DIFFERS"))
            noop = ray.remote(lambda: None)
            ray.get([noop.remote() for _ in range(20)])
            t = time.perf_counter()
            ray.get([noop.remote() for _ in range(a.tasks)])
            per_task[f"no-op task, {cpus} CPUs (batch of {a.tasks})"] = (time.perf_counter() - t) / a.tasks
            t = time.perf_counter()
            for _ in range(50):
                ray.get(noop.remote())
            per_task[f"no-op task round trip, {cpus} CPUs (one at a time)"] = (time.perf_counter() - t) / 50
            chunk = cluster._remote(ray, cluster._play_chunk)
            ray.get(chunk.remote(a.variant, {}, BOTS, []))
            t = time.perf_counter()
            for _ in range(50):
                ray.get(chunk.remote(a.variant, {}, BOTS, []))
            per_task[f"empty game chunk round trip, {cpus} CPUs"] = (time.perf_counter() - t) / 50
        finally:
            ray.shutdown()

    print(f"\nsimulate {a.variant} --deals {a.sim_deals} --bots {','.join(a.sim_bots)}:")
    for name, dt, *note in sims:
        print(f"{name:28} {dt:8.2f} s {a.sim_deals / dt:9.1f} deals/s {' '.join(note)}")
    print()
    for k, v in per_task.items():
        print(f"{k:50} {v * 1000:8.2f} ms per task")

    print()
    v = local.variant
    game_s = rows[0][3] / rows[0][1]
    print(f"one game ({a.game_deals} deals) in one process: {game_s * 1000:.1f} ms")
    stores = [("SQLite", None)] + ([("--store", a.store)] if a.store else [])
    for label, url in stores:
        with tempfile.TemporaryDirectory() as d:
            st = open_ladder_store(url, d) if url else open_ladder_store(None, d)
            if url:
                st.reset(v.ref)
            t = time.perf_counter()
            s = run_ladder(st, Replay(v, results), list(BOTS), a.deals, settings)
            dt = time.perf_counter() - t
            ok = json.dumps([x.to_json() for x in st.standings(v.ref)]) == ref_standings
            st.close()
        print(f"driver ceiling, {label:7}: {s.games_played / dt:8.1f} games/s = {s.deals_total / dt:8.1f} deals/s "
              f"(store writes + ratings, {dt / s.games_played * 1000:.2f} ms per game)"
              + ("" if ok else "  STANDINGS DIFFER"))
        print(f"  -> workers the driver can feed before it is the bottleneck: "
              f"{game_s * s.games_played / dt:.0f} (one game = {game_s * 1000:.1f} ms of a worker)")
        # its parts: the store's writes alone (one transaction per game), the ratings alone
        with tempfile.TemporaryDirectory() as d:
            st = open_ladder_store(url, d) if url else open_ladder_store(None, d)
            if url:
                st.reset(v.ref)
            with tempfile.TemporaryDirectory() as d2:
                plan = open_ladder_store(None, d2)
                run_ladder(plan, Replay(v, results), list(BOTS), a.deals, settings)
                specs = [g for r in plan.rounds(v.ref) for g in r]
            t = time.perf_counter()
            for g in specs:
                st.save_game(v.ref, g, results[g.key], "bench")
            w = time.perf_counter() - t
            st.close()
        from taash.arena.ladder import Ratings
        events: dict = {}
        for g in specs:
            events.setdefault(g.event, []).append(results[g.key])
        t = time.perf_counter()
        r = Ratings()
        for games in events.values():
            r.apply(v.partnership, v.side_of, games)
        rt = time.perf_counter() - t
        size = sum(len(json.dumps(results[g.key].record, separators=(",", ":"))) for g in specs) / len(specs)
        print(f"  parts: save_game {w / len(specs) * 1000:.2f} ms per game ({len(specs) / w:.0f} writes/s, "
              f"record {size / 1024:.1f} KiB); ratings {rt / len(specs) * 1000:.3f} ms per game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
