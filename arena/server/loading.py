"""The variant of a RunMatches call, loaded without stalling the arena's games: a text
the caller sent (MatchRequest.variant_yaml) is checked first in a child process at low
priority, killed when it takes more than its time limit of CPU (or five times that in
wall time), and a name (MatchRequest.variant) is a shipped
variant or a file of the arena's DATA/variants/ folder, nothing else (docs/protocol.md,
"Sending a variant").

The event loop only waits: the check runs in a child made by a forkserver (a fork of a
clean process that has the interpreter imported, not of the arena with its gRPC threads),
and the Variant the games use is built on a thread once the check passed (a Variant holds
compiled rules: it is built where it is used, not sent between processes). A sent text's
Variant is built from the merged data the child read (`restore`, as a pickled Variant is),
so that the arena never reads its YAML itself: PyYAML's pure-Python scanner takes about
2 s of the arena's CPU (and its GIL) for a text of 1 MB, the build from its data a few
hundredths of a second (py-spy, bench/hostile.py variants).
Built Variants are remembered within `CACHE_BYTES` of their estimated sizes
(`estimated_bytes`), the least recently used forgotten first. Whatever the
text, the child reads it within the loader's `Bounds` and keeps at most `MAX_PROBLEMS`
problems; what a client is told is cut to `MAX_DETAILS` characters and quotes no file but
the text it sent (a name's problems are given without the file's lines).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import os
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

from taash.interpreter import VariantError, find_variant, load_variant, shipped_variants
from taash.interpreter.loader import BOUNDS, VARIANTS_DIR, Bounds, More, format_problems, lines_cache, read_tree
from taash.interpreter.variant import restore

from ..errors import ArenaError

LOAD_TIMEOUT_S = 10.0       # a sent text's check in the child process, at most
# checks at once (each a process, at low priority): one per core less the one the games
# need, at least one; more wait their turn, at most MAX_WAITING of them (more are refused)
MAX_LOADS = max(1, (os.cpu_count() or 2) - 1)
MAX_WAITING = 8
CHECK_NICE = 10             # added to the checker child's niceness: the games' CPU first
# the check's limit counts its CPU time (at low priority it waits for the games), and at
# most this many times the limit in wall time; its CPU is looked at every POLL_S seconds
WALL_FACTOR = 5
POLL_S = 0.05
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100    # /proc's clock ticks a second
MAX_DETAILS = 4000          # characters of the problems told to a client
MAX_PROBLEMS = 10           # problems a sent text's check formats
LINE_SHOWN = 120            # characters of a line of the sent text quoted under its problem
CACHE_SIZE = 64             # checks remembered, by the text's sha256 and the options
# Variants remembered, by their estimated sizes (--variant-cache-bytes): a Variant's
# compiled rules take at most VARIANT_BYTES whatever its text (measured with tracemalloc:
# 0.25-0.57 MiB for the shipped variants, 56's the most), and its text's bytes once more
# are counted for what a large text's data may add (a text of 1 MB, nearly all comments,
# took 0.23 MiB in all: the estimate is on the safe side)
CACHE_BYTES = 32 << 20
VARIANT_BYTES = 640 << 10
NAME_SHOWN = 100            # characters of a refused name quoted back


class Refused(ArenaError):
    """The variant of a call cannot be played: ``str(e)`` is the text for the client's
    INVALID_ARGUMENT status (at most `MAX_DETAILS` characters)."""

    def __init__(self, text: str):
        super().__init__(text[:MAX_DETAILS])


class Busy(Refused):
    """A sent text cannot be checked now: `MAX_WAITING` checks wait their turn already
    (the client's status is RESOURCE_EXHAUSTED; it may send it again later)."""


def shown(name: str) -> str:
    """``name`` as quoted in a refusal: repr, cut to `NAME_SHOWN` characters."""
    return repr(name[:NAME_SHOWN]) + ("..." if len(name) > NAME_SHOWN else "")


def estimated_bytes(text_bytes: int) -> int:
    """The memory a built Variant whose file has ``text_bytes`` bytes is counted for in
    the loader's cache (`VARIANT_BYTES` and the text's bytes: an estimate, see there)."""
    return VARIANT_BYTES + text_bytes


def _check(text: str, name: str, options: dict | None, bounds: Bounds, max_problems: int) -> tuple:
    """In the child: (problems, built). ``problems``: those of ``text`` (a variant's
    YAML), each located in ``name``, formatted (with the lines of ``text`` they point
    at); "" when it loads, and then ``built`` is (merged data, options as sorted
    (name, value) pairs, digest), what `restore` builds the same Variant from without
    reading the text again (else None). The text is read from a private temporary file,
    so that no path of the arena's host appears in them."""
    with tempfile.TemporaryDirectory(prefix="taash-sent-") as tmp:
        probe = Path(tmp) / "variant.yaml"
        probe.write_text(text, encoding="utf-8")
        try:
            data, locs = read_tree(probe, bounds)       # this file only: no base is read
        except VariantError as e:
            return told(e.problems, str(probe), name), None
        base = data.get("extends")
        if base is not None and base not in shipped_variants():
            # the caller's side merges its own `extends:` chain (taash arena match): a file
            # of the arena's host is no base for a caller's text (nor is it ever read)
            at = locs.get(("extends",))
            return (f"{name}:{at.line if at else 1}:{at.column if at else 1}: error: `extends:` of a sent "
                    f"variant must be a shipped name (taash variants lists them), not {shown(str(base))}; "
                    "send the merged text"), None
        try:
            v = load_variant(probe, options, bounds=bounds, max_problems=max_problems)
        except VariantError as e:
            return told(e.problems, str(probe), name), None
    return "", (v.data, tuple(sorted(v.options.items())), v.digest)


def told(problems: list, path: str, name: str) -> str:
    """``problems`` (of the text in ``path``) as a client is told them: in ``name``, each
    with the line it points at (cut to `LINE_SHOWN` characters), as many as fit in
    `MAX_DETAILS` characters, then one line counting the rest (those a `More` counts,
    and those that did not fit)."""
    out, used, more = [], 0, 0
    lines_of = lines_cache()
    for p in problems:
        if isinstance(p, More):
            more += p.count
            continue
        text = "\n".join(_clipped(p.format(True, lines_of).replace(path, name).splitlines()))
        if used + len(text) + 1 > MAX_DETAILS - 200:     # room kept for the count
            more += 1
            continue
        out.append(text)
        used += len(text) + 1
    if more:
        out.append(f"{name}: error: and {more} more problem{'s' if more != 1 else ''} "
                   f"(the first {len(out)} are listed)")
    return unrooted("\n".join(out))


def unrooted(text: str) -> str:
    """``text`` with the shipped variants' folder left out of their paths (``28.yaml``
    for a problem inherited from the 28): no path of the arena's host is told."""
    return text.replace(str(VARIANTS_DIR) + "/", "")


def _clipped(lines: list[str]):
    """``lines`` of a formatted problem, each cut to `LINE_SHOWN` characters (a caret
    past that is left out)."""
    for x in lines:
        if len(x) <= LINE_SHOWN:
            yield x
        elif x.strip() != "^":
            yield x[:LINE_SHOWN] + "..."


def _child(conn, *args) -> None:
    try:
        os.nice(CHECK_NICE)     # the arena's games go first; a check takes what CPU is left
        conn.send(("done", _check(*args)))
    except BaseException as e:      # a bug of the loader: told, never a hang
        conn.send(("failed", f"{type(e).__name__}: {str(e)[:500]}"))
    finally:
        conn.close()


class VariantLoader:
    """Loads the variants of RunMatches calls for one arena whose sent texts are kept in
    ``variants_dir`` (DATA/variants/). ``timeout_s``: the limit of one text's check;
    ``bounds``: the loader's limits on reading it; ``cache_bytes``: the Variants kept
    built, by their estimated sizes (`Kept`). Use `by_name` and `by_text` from the event
    loop."""

    def __init__(self, variants_dir: Path, timeout_s: float = LOAD_TIMEOUT_S, bounds: Bounds = BOUNDS,
                 max_loads: int = MAX_LOADS, max_waiting: int = MAX_WAITING, cache_bytes: int = CACHE_BYTES):
        self.dir = Path(variants_dir)
        self.timeout_s, self.bounds = timeout_s, bounds
        self.turns = asyncio.Semaphore(max_loads)
        self.max_loads, self.max_waiting = max_loads, max_waiting
        self.checking = 0       # checks running or waiting their turn
        self.checked: OrderedDict[tuple, str] = OrderedDict()     # (sha256, options) -> problems ("" ok)
        self.loaded = Kept(cache_bytes)                            # (path, options) -> Variant
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["taash.interpreter"])

    # -- names ----------------------------------------------------------------------------
    def path_of(self, name: str) -> str | Path:
        """What ``name`` names: a shipped variant's name (returned as it is), or the real
        path of a file in the variants folder (``NAME`` or ``NAME.yaml``, links followed
        only within it). Raises Refused for anything else, quoting only the name: no file
        outside is opened, nor is its existence told."""
        if name in shipped_variants():
            return name
        if name and len(name) <= 255 and "\0" not in name and not Path(name).is_absolute():
            root = self.dir.resolve()
            for rel in ((name,) if name.endswith((".yaml", ".yml")) else (name + ".yaml",)):
                try:
                    real = (root / rel).resolve(strict=True)
                except (OSError, RuntimeError, ValueError):
                    continue
                if real.is_relative_to(root) and real.is_file():
                    return real
        raise Refused(f"no variant named {shown(name)}: give a shipped variant's name (taash variants "
                      "lists them), the name of a file in the arena's DATA/variants/ folder, or send "
                      "the variant's text (`taash arena match FILE.yaml ...` sends it)")

    # -- loading ----------------------------------------------------------------------------
    async def by_name(self, name: str, options: dict | None) -> object:
        """The Variant of ``name`` (see `path_of`) with ``options``, built on a thread.
        Raises Refused: a name that names nothing, or a variant that does not load (its
        problems without the lines of the file, and with the file named as the caller
        named it)."""
        where = self.path_of(name)
        try:
            return await self._build(where, options)
        except VariantError as e:
            prs = e.problems[:MAX_PROBLEMS]
            text = "\n".join(f"{name}: {p.message}" if p.line < 1 else
                             f"{name}:{p.line}:{p.column}: error: {p.message}" for p in prs)
            raise Refused(unrooted(text)) from None

    async def by_text(self, text: str, name: str, options: dict | None, save) -> object:
        """The Variant of a sent ``text`` (problems located in ``name``, the caller's file)
        with ``options``: checked in a child process (at most ``timeout_s``; killed past
        it), then kept by ``save(text) -> Path`` and built on a thread from the data the
        child read (`restore`: the text is not read again here). Raises Refused with the
        text's problems, or when its check is past its time."""
        key = (hashlib.sha256(text.encode()).hexdigest(), json.dumps(options or {}, sort_keys=True), name)
        problems = self.checked.get(key)
        if problems:
            raise Refused(problems)
        if problems == "":      # it loaded before: its Variant may be kept still
            path = save(text)
            v = self.loaded.get(self._key(path, options))
            if v is not None:
                return v
        problems, built = await self._check(text, name, options)
        _remember(self.checked, key, problems)
        if problems:
            raise Refused(problems)
        path = save(text)
        data, opts, digest = built
        try:
            v = await asyncio.to_thread(restore, str(path), opts, digest, data)
        except VariantError as e:      # (it loaded in the child: only if a bug made them differ)
            raise Refused(format_problems(e.problems[:MAX_PROBLEMS], False).replace(str(path), name)) from None
        self.loaded.put(self._key(path, options), v, estimated_bytes(len(text.encode())))
        return v

    @staticmethod
    def _key(where, options: dict | None) -> tuple:
        """The cache key of the Variant of ``where`` (a shipped name or a file's path) with
        ``options``: a file's size and modification time with it, so that a file changed
        since is built again."""
        key = (str(where), json.dumps(options or {}, sort_keys=True))
        if isinstance(where, Path):
            try:
                st = where.stat()
                key += (st.st_size, st.st_mtime_ns)
            except OSError:
                pass
        return key

    async def _build(self, where, options: dict | None):
        """The Variant of ``where`` (a shipped name or a file's path) with ``options``,
        built on a thread and remembered; a file's is built again once the file changed
        (its size or modification time)."""
        key = self._key(where, options)
        v = self.loaded.get(key)
        if v is None:
            v = await asyncio.to_thread(load_variant, where, options or None, self.bounds, MAX_PROBLEMS)
            path = where if isinstance(where, Path) else find_variant(where)
            try:
                size = path.stat().st_size
            except OSError:
                size = 0
            self.loaded.put(key, v, estimated_bytes(size))
        return v

    async def _check(self, text: str, name: str, options: dict | None) -> tuple:
        """(problems, built) of ``text`` from a child process (`_check`); Refused when
        the child is past ``timeout_s`` (it is killed) or dies; Busy when `max_waiting`
        checks wait their turn already."""
        if self.checking >= self.max_loads + self.max_waiting:
            raise Busy(f"{name}: the arena is checking {self.checking} sent variants already (at most "
                       f"{self.max_loads} at once and {self.max_waiting} waiting): send it again later")
        self.checking += 1
        try:
            return await self._checked(text, name, options)
        finally:
            self.checking -= 1

    async def _checked(self, text: str, name: str, options: dict | None) -> tuple:
        async with self.turns:
            stop = threading.Event()
            run = asyncio.ensure_future(asyncio.to_thread(
                _run_check, self.ctx, (text, name, options, self.bounds, MAX_PROBLEMS), self.timeout_s, stop))
            try:
                got = await asyncio.shield(run)
            except asyncio.CancelledError:
                # the caller went away: the child is killed at once (or never started),
                # and its turn is kept until it is gone, so the bound on checks at once holds
                stop.set()
                await asyncio.wait([run])
                raise
        if got is None:
            raise Refused(f"{name}: the variant was not loaded within {self.timeout_s:g} s (the arena's "
                          "limit for a sent variant): make it smaller")
        how, out = got
        if how != "done":
            raise Refused(f"{name}: the variant could not be checked ({out})")
        return out


def _run_check(ctx, args: tuple, timeout_s: float, stop: threading.Event):
    """Check a sent text (``args``: `_check`'s) in a child process of ``ctx`` and return its
    (how, out), or None (`_receive`); the child is gone when this returns, whatever ends
    it: its answer, its limits, or ``stop`` (set when the call that sent the text ends)."""
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, daemon=True, name="taash-variant-check", args=(send, *args))
    try:
        if stop.is_set():
            return None
        proc.start()
        send.close()
        return _receive(recv, proc.pid, timeout_s, stop)
    finally:
        recv.close()
        if proc.pid is not None:
            if proc.is_alive():
                proc.kill()
            proc.join()


def _receive(conn, pid: int, timeout_s: float, stop: threading.Event):
    """The child's (how, text), or None when the child ``pid`` used more than
    ``timeout_s`` seconds of CPU (it runs at low priority: its wall time depends on the
    games'), or ran `WALL_FACTOR` times that in wall time, without an answer, or ended
    without one, or ``stop`` is set (looked at every `POLL_S`)."""
    end = time.monotonic() + timeout_s * WALL_FACTOR
    try:
        while True:
            if conn.poll(min(POLL_S, max(0.0, end - time.monotonic()))):
                return conn.recv()
            if stop.is_set() or time.monotonic() >= end or _cpu_s(pid) > timeout_s:
                return None
    except (EOFError, OSError):
        pass
    return None


def _cpu_s(pid: int) -> float:
    """The CPU seconds process ``pid`` has used (user and system, /proc/PID/stat); 0 when
    it cannot be read (gone, or no /proc: the wall-time bound then holds alone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def _remember(cache: OrderedDict, key, value) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


class Kept:
    """Values remembered within ``max_bytes`` of their sizes (each given with it, an
    estimate): past that the least recently used are forgotten first; a value larger
    than ``max_bytes`` alone is not kept. ``bytes``: the sizes of those kept."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.items: OrderedDict = OrderedDict()      # key -> (value, size)
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, key) -> bool:
        return key in self.items

    def get(self, key):
        """The value of ``key`` (now the most recently used), or None."""
        got = self.items.get(key)
        if got is None:
            return None
        self.items.move_to_end(key)
        return got[0]

    def put(self, key, value, size: int) -> None:
        """Remember ``value`` of ``size`` bytes under ``key``, forgetting the least recently
        used values until those kept take at most ``max_bytes``."""
        old = self.items.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if size > self.max_bytes:
            return
        self.items[key] = (value, size)
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, (_, gone) = self.items.popitem(last=False)
            self.bytes -= gone
