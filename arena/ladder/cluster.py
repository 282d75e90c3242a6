"""Ladders and simulations on a Ray cluster (docs/cluster.md).

Ray (an optional extra: ``pip install 'taash[ray]'``) runs the games; this process, the
driver, stays the one that writes: `RayRunner` has the interface of `InProcessRunner`
(``results(specs)`` yields each `GameResult` as it comes, in any order), so
`run_ladder` stores every game and rates events in plan order exactly as it does
locally, and the standings are the same, byte for byte, whatever order the tasks end in.
`simulate_ray` is `taash simulate` played the same way: match k from seed ``seed + k``,
summed up in match order, so the summary equals a local run's.

What travels to a worker is names: the variant's name (or path) and options, each bot's
spec (a registered name or ``package.module:factory``; `BotEntry` pickles as its spec),
and the games' `GameSpec` (seed, bot per seat, deals). Each worker loads the variant and
the bots from its own installed packages (one load per worker process, cached), and a
game's cards come from its seed only.

Faults: a task is a chunk of several games (Ray's per-task cost is paid per chunk). A
worker process or node that dies takes its running chunk with it; Ray runs the chunk
again (``max_retries``, system failures only). Nothing reaches the store before the chunk
is back in the driver, so no game is lost or stored twice. An exception raised by the
games (a bot that cannot be imported on a worker) is not retried: it stops the run
with a one-line LadderError. A driver that stops leaves the store as a local run leaves
it; the same command resumes.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time

from taash.interpreter import load_variant

from ..bots import registry
from ..bots.registry import resolve
from ..errors import LadderError
from ..simulation import simulate_entries, simulate_match, simulate_summary
from .runners import InProcessRunner, bot_factory, play_game

INSTALL_HINT = "needs the ray extra: pip install 'taash[ray]'"
TASK_RETRIES = 3           # reruns of a chunk whose worker died (Ray's default for tasks)
MAX_TASK_GAMES = 32        # at most this many games per task
TASK_DEALS = 256           # simulate --deals: deals a task aims at


def require_ray():
    """The ``ray`` module. Raises ModuleNotFoundError (named ``ray``, saying how to install
    it) if it is missing; the command line answers it as every missing extra."""
    try:
        import ray
    except ImportError:
        raise ModuleNotFoundError(INSTALL_HINT, name="ray") from None
    return ray


def connect(address: str | None = None, num_cpus: int | None = None):
    """Join the Ray cluster at ``address`` (``host:port`` of its head, ``auto``, or
    ``ray://host:10001``), or start a local Ray for this run with ``num_cpus`` CPUs
    (default: all) when ``address`` is None. Reuses a Ray this process already joined (tests, a notebook).
    Returns the ``ray`` module. Raises ModuleNotFoundError if Ray is missing (`require_ray`),
    LadderError (one line) if the cluster cannot be reached."""
    ray = require_ray()
    if address:
        _reachable(address)
    if ray.is_initialized():
        return ray
    kw = dict(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)
    try:
        if address:
            ray.init(address=address, **kw)
        else:   # a Ray of this run only: on the loopback interface, its notices not shown
            kw["logging_level"] = logging.ERROR
            ray.init(address="local", num_cpus=num_cpus, _node_ip_address="127.0.0.1", **kw)
    except Exception as e:   # ConnectionError, TimeoutError, RuntimeError, ValueError ...
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        hint = ("check --address, and that RAY_AUTH_TOKEN holds the cluster's token "
                "(`ray get-auth-token` on its head)") if address else "see docs/cluster.md"
        raise LadderError(f"cannot reach {where}: {first} ({hint})") from None
    return ray


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Raise LadderError unless ``host:port`` of ``address`` (``ray://`` or not) takes a
    TCP connection within ``timeout`` seconds (Ray itself retries for minutes).
    ``auto`` and addresses without a port are left to Ray."""
    import socket
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise LadderError(f"cannot reach the Ray cluster at {address}: {e.strerror or e} "
                          "(start one with `ray start --head`, or check --address)") from None


def cluster_cpus(ray) -> int:
    """The CPUs of the cluster now (at least 1)."""
    try:
        return max(1, int(ray.cluster_resources().get("CPU", 1)))
    except Exception:
        return 1


def task_size(n: int, cpus: int) -> int:
    """Games (or matches) per task for ``n`` of them on ``cpus`` CPUs: about 4 tasks per
    CPU, so that a slow task does not hold up the end, and at most `MAX_TASK_GAMES`."""
    return max(1, min(MAX_TASK_GAMES, math.ceil(n / (4 * cpus))))


def _one_line(e) -> str:
    """The message of a task's exception (a RayTaskError's cause), on one line."""
    cause = getattr(e, "cause", None) or e
    text = str(cause).strip().splitlines()
    return text[-1] if text else type(cause).__name__


# -- in the workers -----------------------------------------------------------------------------
_CACHE: dict = {}


def _loaded(variant_name, options, bots):
    """The variant and bot factories of a worker, loaded once per process."""
    key = (variant_name, json.dumps(options, sort_keys=True), tuple(sorted((k, repr(v)) for k, v in bots.items())))
    got = _CACHE.get(key)
    if got is None:
        try:
            v = load_variant(variant_name, options or None)
        except Exception as e:
            raise LadderError(f"variant {variant_name!r} does not load on Ray worker "
                              f"{os.uname().nodename}: {_one_line(e)}") from None
        try:
            factories = {name: bot_factory(spec) for name, spec in bots.items()}
        except LadderError as e:
            raise LadderError(f"on Ray worker {os.uname().nodename}: {e} (install the bot's package "
                              "on every node of the cluster)") from None
        got = _CACHE[key] = (v, factories)
    return got


def _play_chunk(variant_name, options, bots, specs):
    """A task: play ``specs`` (GameSpec) in order; their GameResults."""
    v, factories = _loaded(variant_name, options, bots)
    return [play_game(v, factories, s, options) for s in specs]


def _simulate_chunk(variant_name, options, bots, seeds, max_deals):
    """A task: `simulate_match` for each match seed; their results (no Match kept)."""
    v, _ = _loaded(variant_name, options, {})
    try:
        entries = [resolve(b) for b in bots]
        for e in entries:
            e.load()
    except Exception as e:
        raise LadderError(f"on Ray worker {os.uname().nodename}: {_one_line(e)} "
                          "(install the bot's package on every node of the cluster)") from None
    return [simulate_match(v, entries, s, max_deals) for s in seeds]


_REMOTE: dict = {}


def _remote(ray, fn):
    r = _REMOTE.get(fn.__name__)
    if r is None:
        r = _REMOTE[fn.__name__] = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False)(fn)
    return r


def _window(ray, submit, chunks, inflight: int):
    """Submit the chunks of the iterable ``chunks`` with ``submit(chunk) -> ObjectRef``,
    at most ``inflight`` at once; yield (chunk index, result) as each task ends; cancel
    what is left on an early exit (an error, Ctrl-C, the caller stopping). Raises
    LadderError for a task that failed."""
    pending: dict = {}
    it = enumerate(chunks)
    more = True
    try:
        while more or pending:
            while more and len(pending) < inflight:
                nxt = next(it, None)
                if nxt is None:
                    more = False
                    break
                pending[submit(nxt[1])] = nxt[0]
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                i = pending.pop(ref)
                try:
                    out = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    raise LadderError(_one_line(e)) from None
                except ray.exceptions.RayError as e:
                    raise LadderError(f"a Ray task failed {TASK_RETRIES + 1} times: {_one_line(e)}") from None
                yield i, out
    finally:
        for ref in pending:
            try:
                ray.cancel(ref, force=True)
            except Exception:
                pass


# -- the ladder ---------------------------------------------------------------------------------
class RayRunner(InProcessRunner):
    """`InProcessRunner` whose games are Ray tasks of several games each. ``address``:
    the cluster's (None: a local Ray started for the run, ``num_cpus`` CPUs);
    ``task_games``: games per task (default `task_size`). Raises LadderError (Ray
    missing, cluster unreachable, a bot that does not load here)."""

    name = "ray"

    def __init__(self, variant_name: str, bots: dict, options: dict | None = None,
                 address: str | None = None, num_cpus: int | None = None, task_games: int | None = None):
        super().__init__(variant_name, bots, options)
        self.remote_name = _shipped_name(variant_name)
        self.ray = connect(address, num_cpus)
        self.task_games = task_games
        self.tasks = 0

    def results(self, specs, workers: int = 1):
        """Play ``specs`` on the cluster; yield each GameResult as its task ends (chunks
        in plan order, at most 2 tasks per CPU in flight)."""
        if not specs:
            return
        ray = self.ray
        cpus = cluster_cpus(ray)
        size = self.task_games or task_size(len(specs), cpus)
        chunks = [specs[i:i + size] for i in range(0, len(specs), size)]
        bots = {name: self.specs[name] for name in {b for s in specs for b in s.bots}}
        fn = _remote(ray, _play_chunk)

        def submit(chunk):
            self.tasks += 1
            return fn.remote(self.remote_name, self.options, bots, chunk)

        for _, games in _window(ray, submit, chunks, 2 * cpus):
            yield from games


def _shipped_name(variant_name: str) -> str:
    """What a worker loads: a shipped name as it is, a YAML path made absolute (it must
    be at that path on every node)."""
    return os.path.abspath(variant_name) if os.path.isfile(variant_name) else variant_name


# -- simulate -----------------------------------------------------------------------------------
def simulate_ray(variant_name: str, matches=None, deals=None, seed: int = 0, options=None, bots=None,
                 address=None, num_cpus=None, progress=False, task_matches: int | None = None):
    """`taash.arena.simulation.simulate` on Ray: the same (Matches not kept: no records) and the same
    summary. With ``deals``, matches are played ahead in tasks and taken in order until
    ``deals`` deals; the match that crosses the limit is played again here, cut at it,
    as a local run cuts it. Returns the summary dict. Raises LadderError, SimulationError,
    UnknownBotError."""
    v = load_variant(variant_name, options or None)
    entries = simulate_entries(v, bots)
    for e in entries:
        e.load()
    specs = [_spec_of(e) for e in entries]
    ray = connect(address, num_cpus)
    cpus = cluster_cpus(ray)
    # --matches: about 4 tasks per CPU; --deals: 1 match a task until the first task
    # tells how long a match is, then about TASK_DEALS deals a task
    size = [task_matches or (task_size(matches, cpus) if matches else 1)]
    fn = _remote(ray, _simulate_chunk)
    target = matches if deals is None else deals
    bar = progress_bar(target, "simulating on Ray", "matches" if deals is None else "deals") if progress else None
    results: list = []
    total = 0
    t0 = time.perf_counter()

    def chunks():
        k = 0
        while matches is None or k < matches:
            n = size[0] if matches is None else min(size[0], matches - k)
            yield list(range(seed + k, seed + k + n))
            k += n

    got: dict = {}
    want = 0
    remote_name = _shipped_name(variant_name)
    try:
        for i, out in _window(ray, lambda seeds: fn.remote(remote_name, options, specs, seeds, deals),
                              chunks(), 2 * cpus):
            got[i] = out
            if deals is not None and not task_matches and out:
                per_match = sum(r["deals"] for r in out) / len(out)
                size[0] = max(1, min(256, math.ceil(TASK_DEALS / max(per_match, 1))))
            while want in got:
                for r in got.pop(want):
                    if deals is not None and total >= deals:
                        break
                    if deals is not None and total > 0 and r["deals"] >= deals - total:
                        # cut as a local run cuts it: played again here to the limit (the
                        # first match was played to the limit already)
                        r = simulate_match(v, entries, r["line"]["seed"], deals - total)
                    results.append(r)
                    total += r["deals"]
                want += 1
                if bar:
                    done = len(results) if deals is None else total
                    bar.update(done, time.perf_counter() - t0)
            if deals is not None and total >= deals:
                break
    finally:
        if bar:
            bar.stop()
    return simulate_summary(v, seed, entries, results)


def _spec_of(entry) -> str:
    """A bot entry as the spec a worker resolves: its registered name, else
    ``NAME=module:factory``."""
    try:
        if registry.get(entry.name).factory == entry.factory:
            return entry.name
    except registry.UnknownBotError:
        pass
    if isinstance(entry.factory, str):
        return f"{entry.name}={entry.factory}"
    f = entry.factory
    return f"{entry.name}={f.__module__}:{f.__qualname__}"


# -- progress -----------------------------------------------------------------------------------
class progress_bar:
    """A rich progress bar on stderr (when it is a terminal): done of ``total`` ``unit``,
    the rate per second and an ETA. ``update(done, seconds, base)``, ``stop()``."""

    def __init__(self, total: int, label: str, unit: str = "deals"):
        import sys
        self.p = None
        if not sys.stderr.isatty():
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        self.p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                          console=Console(stderr=True), transient=True)
        self.unit = unit
        self.p.start()
        self.task = self.p.add_task(label, total=total, rate="")

    def update(self, done: int, seconds: float, base: int = 0) -> None:
        """Show ``done`` of the total, and (done - base) / seconds as the rate (``base``:
        what was done before this run, a resumed ladder's deals)."""
        if self.p is not None:
            rate = f"{(done - base) / seconds:,.0f} {self.unit}/s" if seconds > 0 else ""
            self.p.update(self.task, completed=done, rate=rate)

    def stop(self) -> None:
        if self.p is not None:
            self.p.stop()
