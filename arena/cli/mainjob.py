"""The main job (`make run`): a ladder of the registered bots and the Node.js bot, through
the arena over gRPC, on every shipped base variant.

    python -m taash.arena.cli.mainjob [--data run-data] [--deals 240] [--variants 56,28,29,304,304-solo]

It starts `taash arena serve` on localhost (a free port), issues tokens, starts `taash bot
NAME` for every bot of the registry that plays over the arena (arena/bots/registry.py: random,
heuristic, search and ismcts at ``--search-ms`` a decision) and the Node.js bot (bots/node; skipped with a note if
Node.js or its packages cannot be had) as processes of their own, runs a duplicate
round-robin ladder on each variant through the arena (`taash ladder run --arena`), prints
the standings, checks them against the records, writes the plot, says where everything
is, and stops every process it started, also on Ctrl-C or an error. The data directory
is made anew on each run (it must be empty or one this job made). Its children die with
it even when it is killed with SIGKILL (Linux: a parent-death signal, prctl PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..children import popen
from ..errors import ArenaError

ROOT = Path(__file__).resolve().parents[2]   # the repository: arena/cli/mainjob.py
NODE_DIR = ROOT / "bots" / "node"
MARK = ".taash-mainjob"
VARIANTS = ("56", "28", "29", "304", "304-solo")
SEARCH_MS = 50   # the search and ismcts bots' budget in the main job: their own default (about 5 minutes on 2 cores)
BHOOS = "house/29-bhoos"


class JobError(ArenaError):
    """The main job cannot go on; the message says why."""


def _taash(*args) -> list[str]:
    return [sys.executable, "-m", "taash.arena.cli", *args]


def _env() -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("TAASH_TOKEN", None)
    return e


class Processes:
    """The arena and its bots as child processes; `stop` ends them all (bots first).
    ``data``: the arena's data directory; logs go to ``data/logs``."""

    def __init__(self, data: Path):
        self.data = Path(data)
        self.logs = self.data / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.server: subprocess.Popen | None = None
        self.bots: dict[str, subprocess.Popen] = {}
        self.addr = ""

    def start_arena(self, timeout_s: float = 60.0) -> str:
        """Start `taash arena serve --port 0`; return its address host:port."""
        log = open(self.logs / "arena.log", "w")
        self.server = popen(_taash("arena", "serve", "--port", "0", "--data", str(self.data), "--quiet",
                                              "--public-seeds"),
                                       stdout=subprocess.PIPE, stderr=log, text=True, env=_env(), cwd=ROOT)
        line = _readline(self.server.stdout, timeout_s)
        if "listening on" not in line:
            raise JobError(f"the arena did not start (see {self.logs / 'arena.log'}): {line.strip()!r}")
        self.addr = line.split("listening on ", 1)[1].split()[0]
        return self.addr

    def token(self, name: str) -> str:
        """Issue a token for ``name`` in the arena's store."""
        from ..store import SQLiteStore
        store = SQLiteStore(self.data)
        try:
            return store.issue_token(name)
        finally:
            store.close()

    def start_bot(self, name: str, argv: list[str], token: str) -> None:
        """Start a bot process (``argv``; it gets the token and server in the environment too)."""
        env = _env()
        env.update(TAASH_TOKEN=token, TAASH_BOT=name, TAASH_SERVER=self.addr)
        log = open(self.logs / f"bot-{name}.log", "w")
        self.bots[name] = popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)

    def start_http(self, bot: str, timeout_s: float = 60.0) -> str:
        """Start `taash serve http --bot BOT --port 0`; return its URL."""
        log = open(self.logs / f"http-{bot}.log", "w")
        p = self.bots[f"http-{bot}"] = popen(_taash("serve", "http", "--bot", bot, "--port", "0"),
                                                        stdout=subprocess.PIPE, stderr=log, text=True, env=_env(),
                                                        cwd=ROOT)
        line = _readline(p.stdout, timeout_s)
        if "listening on" not in line:
            raise JobError(f"taash serve http did not start (see {self.logs / f'http-{bot}.log'}): {line.strip()!r}")
        return line.split("listening on ", 1)[1].split()[0]

    def wait_connected(self, names, timeout_s: float = 60.0) -> None:
        """Wait until every bot in ``names`` is connected; JobError naming the missing ones."""
        import grpc
        from ..pb import arena_pb2 as apb, arena_pb2_grpc
        admin = (self.data / "admin-token").read_text().strip()
        end = time.monotonic() + timeout_s
        with grpc.insecure_channel(self.addr) as ch:
            stub = arena_pb2_grpc.ArenaStub(ch)
            while True:
                rep = stub.ListBots(apb.ListBotsRequest(), metadata=[("authorization", f"Bearer {admin}")], timeout=10)
                have = {b.name for b in rep.bots if b.connections > 0}
                missing = sorted(set(names) - have)
                if not missing:
                    return
                dead = [n for n in missing if self.bots.get(n) is not None and self.bots[n].poll() is not None]
                if dead or time.monotonic() > end:
                    raise JobError(f"bot {', '.join(dead or missing)} did not connect "
                                   f"(see {self.logs}/bot-{(dead or missing)[0]}.log)")
                time.sleep(0.1)

    def stop(self) -> None:
        """End every process started here (SIGTERM, then SIGKILL after 10 s)."""
        procs = list(self.bots.values()) + ([self.server] if self.server else [])
        for p in procs:
            if p.poll() is None:
                p.terminate()
            end = time.monotonic() + 10
            while p.poll() is None and time.monotonic() < end:
                time.sleep(0.05)
            if p.poll() is None:
                p.kill()
                p.wait()
        self.bots.clear()
        self.server = None


def _readline(stream, timeout_s: float) -> str:
    import threading
    out = []
    t = threading.Thread(target=lambda: out.append(stream.readline()), daemon=True)
    t.start()
    t.join(timeout_s)
    return out[0] if out else ""


def node_bot_argv(log) -> list[str] | None:
    """The command of the Node.js bot, installing its packages (npm ci) if needed; None,
    with a note on ``log``, if Node.js, npm or the packages cannot be had."""
    node = shutil.which("node")
    if not node or not (NODE_DIR / "bot.js").is_file():
        log(f"note: no Node.js bot: {'node is not installed' if not node else 'bots/node/bot.js is missing'}")
        return None
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        npm = shutil.which("npm")
        if not npm:
            log("note: no Node.js bot: npm is not installed to fetch its packages")
            return None
        cmd = [npm, "ci" if (NODE_DIR / "package-lock.json").is_file() else "install", "--no-audit", "--no-fund",
               "--loglevel=error"]
        r = subprocess.run(cmd, cwd=NODE_DIR, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            log(f"note: no Node.js bot: `{' '.join(cmd[1:2])}` in bots/node failed: {r.stderr.strip()[-300:]}")
            return None
    return [node, str(NODE_DIR / "bot.js")]


class Terminated(KeyboardInterrupt):
    """SIGTERM: the job stops as on Ctrl-C (its children are ended), and exits 143."""


def _interrupt(signum, frame):
    raise Terminated


def _prepare(data: Path) -> None:
    if data.exists() and any(data.iterdir()):
        if not (data / MARK).exists():
            raise JobError(f"{data} is not empty and was not made by the main job: give another --data")
        shutil.rmtree(data)
    data.mkdir(parents=True, exist_ok=True)
    (data / MARK).write_text("made by python -m taash.arena.cli.mainjob; remade on each run\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m taash.arena.cli.mainjob", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="run-data", help="data directory, made anew (default run-data)")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated (default: the five base variants)")
    ap.add_argument("--deals", type=int, default=240, help="planned deals per variant (whole rounds; default 240)")
    ap.add_argument("--game-deals", type=int, default=4, help="deals per game (default 4)")
    ap.add_argument("--seed", type=int, default=1, help="the ladders' seed (default 1)")
    ap.add_argument("--workers", type=int, default=6, help="games at once in the arena (default 6)")
    ap.add_argument("--no-duplicate", action="store_true", help="no duplicate deals")
    ap.add_argument("--no-node", action="store_true", help="leave out the Node.js bot")
    ap.add_argument("--search-ms", type=int, default=SEARCH_MS,
                    help=f"the search and ismcts bots' time per decision, ms (default {SEARCH_MS}, their own "
                         "default; 10 runs the job in about half the time, with the search bots about level "
                         "with the heuristic)")
    ap.add_argument("--bhoos-deals", type=int, default=48,
                    help=f"deals of the {BHOOS} ladder with our heuristic through the HTTP bridge (0: none; default 48)")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    from rich.console import Console
    con = Console()
    err = Console(stderr=True)
    procs = None
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        data = Path(args.data).resolve()
        _prepare(data)
        procs = Processes(data)
        addr = procs.start_arena()
        err.print(f"arena listening on {addr} (data {args.data})", highlight=False)
        from ..bots.registry import entries
        bots = {e.name: _taash("bot", e.name) for e in entries() if e.arena}
        for name in ("search", "ismcts"):   # the search bots' time per decision (arena/bots/search.py, ismcts.py)
            if name in bots:
                bots[name] += ["--budget-ms", str(args.search_ms)]
        if not args.no_node:
            node = node_bot_argv(lambda m: err.print(m, highlight=False))
            if node:
                bots["node"] = node
        for name, cmd in bots.items():
            procs.start_bot(name, cmd, procs.token(name))
        extra = []
        if args.bhoos_deals:   # one seat family through the SmartBots 29 HTTP bridge (docs/http-bots.md)
            url = procs.start_http("heuristic")
            procs.start_bot("heuristic-http", _taash("bot", "http", url), procs.token("heuristic-http"))
            extra = [(BHOOS, ["heuristic", "random", "heuristic-http"], args.bhoos_deals)]
        procs.wait_connected(list(bots) + [b for _, bs, _ in extra for b in bs if b not in bots])
        err.print(f"bots connected: {', '.join(bots)}{', heuristic-http (our heuristic over HTTP)' if extra else ''} "
                  "(each a process of its own, over gRPC)", highlight=False)
        results = run_ladders(con, err, data, addr, list(bots), args, extra)
    except JobError as e:
        print(f"main job: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # an unusable data directory, or a process that cannot start
        print(f"main job: error: {e.strerror or e}: {e.filename or args.data}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        terminated = isinstance(e, Terminated)
        print(f"main job: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 143 if terminated else 130     # 128 + the signal, as a shell reports it
    finally:
        if procs is not None:
            procs.stop()
        signal.signal(signal.SIGTERM, previous)
    wall = time.monotonic() - t0
    recs = data / "records"
    print(f"records: {recs} (one JSON per game; replay one with `taash replay {recs / results['first_record']}`)"
          if results["first_record"] else f"records: in {data / 'ladder.sqlite3'}")
    print(f"ladder database: {data / 'ladder.sqlite3'} (see `taash ladder standings --data {args.data}`; "
          f"each pair's margin a deal: `taash ladder margins --data {args.data}`)")
    print(f"plot: {results['plot']}")
    print(f"report: {results['report']} (open it in a browser; `taash web --data {args.data}` for every page)")
    print(f"main job: {results['games']} games, {results['deals']} deals on {len(results['variants'])} variants "
          f"in {wall:.1f} s wall time; every process it started is stopped")
    return 0 if results["ok"] else 1


def run_ladders(con, err, data: Path, addr: str, bots: list[str], args, extra=()) -> dict:
    """The ladders of the main job through the arena at ``addr``; returns what to report.
    ``extra``: more ladders, (variant, bots, deals) each."""
    from taash.interpreter import load_variant
    from .ladder import standings_table
    from ..ladder import LadderError, LadderSettings, recompute, run_ladder
    from ..ladder.arena_runner import ArenaRunner, read_admin_token
    from ..store import open_ladder_store
    from ..ladder.plot import plot_history
    store = open_ladder_store(None, data)
    admin = read_admin_token(data)
    settings = LadderSettings(seed=args.seed, duplicate=not args.no_duplicate, game_deals=args.game_deals)
    games = deals = 0
    ok = True
    refs = []
    plan = [(v.strip(), bots, args.deals) for v in args.variants.split(",") if v.strip()] + list(extra)
    for name, vbots, vdeals in plan:
        t = time.monotonic()
        runner = ArenaRunner(addr, admin, name)
        try:
            s = run_ladder(store, runner, vbots, vdeals, settings, workers=args.workers)
        except LadderError as e:
            raise JobError(str(e)) from None
        finally:
            runner.close()
        refs.append(s.variant)
        games += s.games_total
        deals += s.deals_total
        same = [x.to_json() for x in recompute(store, load_variant(name)).table()] == \
               [x.to_json() for x in store.standings(s.variant)]
        ok &= same
        con.print(standings_table(s.variant, s.standings,
                                  f"{s.variant}: {s.deals_total} deals, {s.games_total} games through the arena "
                                  f"({'duplicate, ' if settings.duplicate else ''}{time.monotonic() - t:.1f} s)"))
        con.print(f"  standings recomputed from the records: {'equal' if same else 'DIFFERENT'}", highlight=False)
    plot = plot_history({v: store.history(v) for v in refs}, data / "ladder.png")
    from ..web.data import Site
    from ..web.report import write_report
    report = write_report(Site(store, data), data / "report.html", refs)   # beside the plot (docs/web.md)
    first = next((g.record_path for v in refs[:1] for g in store.games(v).values() if g.record_path), None)
    store.close()
    return {"games": games, "deals": deals, "variants": refs, "plot": plot, "report": report, "ok": ok,
            "first_record": Path(first).name if first else None}


if __name__ == "__main__":
    sys.exit(main())
