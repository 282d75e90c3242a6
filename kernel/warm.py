"""A kernel made while the caller goes on: a child process compiles the variant's module
into numba's cache on disk, then a thread of this process loads it from there.

    w = kernel_soon(variant)     # returns at once; None without the fast extra
    w.ready()                    # the Kernel once made, else None (never waits)
    w.wait(timeout)              # waits for it: the Kernel, or None if it cannot be made

Why a child process: numba's typing and lowering are Python code, run under its global
compiler lock (numba/core/compiler_lock.py, a ``threading.RLock``) and the interpreter
lock; only LLVM's own passes, called through llvmlite, let go of the interpreter lock. A
compile on a thread of this process would take the caller's Python most of the 10-30 s
(a minute on a busy machine) a cold compile lasts. The child compiles on another core
and writes the machine code where this process then loads it, on a thread (about a
second, some of it holding the interpreter lock between the caller's own steps). The
child runs this interpreter (``sys.executable``) on the module file `build.write_module`
wrote, so its cache is the one `kernel_for` reads; a child still running when this
process exits finishes its compile, so that the next start finds it cached (a process
that plays a few deals and ends would otherwise compile in vain each time). The source
is made, and a variant the kernel cannot compile is told (`KernelFallback`), in the
caller, before any of this: milliseconds; the thread only loads (it converts no Python
syntax tree beside the caller's: `taash.interpreter.dsl.pyast`). At most `MAX_CHILDREN` children compile at
once in a process (each holds numba and LLVM, about 150 MB); the kernels of more
variants wait their turn, their deals played on the engine meanwhile.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import Source, available, default_cache_dir, kernel_for, key, made, source_of, told
from .build import write_module
from .source import Unsupported

__all__ = ["KernelUse", "Warming", "kernel_soon"]

CHILD_TIMEOUT_S = 600      # a child compiling longer than this is ended (the engine plays on)

# the child: `build.compile_module` on the module file. At its normal priority: niced (10),
# on a busy machine, a cold compile of 29 took 390 s instead of about a minute
_CHILD = "import sys; from taash.kernel.build import compile_module; compile_module(sys.argv[1])"

# compiling children at once in a process (each holds numba and LLVM: about 150 MB): more
# variants wait their turn, their deals on the engine meanwhile
MAX_CHILDREN = 2
_CHILDREN = threading.BoundedSemaphore(MAX_CHILDREN)

_LOCK = threading.Lock()
_WARMING: dict[tuple[str, str], "Warming"] = {}


class Warming:
    """The kernel of one variant and cache directory, being made in the background
    (`kernel_soon`). ``reason``: why it could not be made (words), or None;
    ``child_seconds``, ``load_seconds``: wall-clock seconds of the child's compile (or
    load) and of this process's load from the cache, once over."""

    def __init__(self, variant, cache_dir: Path):
        self.variant, self.cache_dir = variant, cache_dir
        self.reason: str | None = None
        self.child_seconds = self.load_seconds = 0.0
        self.path: Path | None = None      # the module file, once its making started
        self.source: Source | None = None  # its source, made in the caller's thread
        self._kernel = None
        self._done = threading.Event()

    def ready(self):
        """The `Kernel` if it is made, else None; never waits."""
        return self._kernel if self._done.is_set() else None

    def wait(self, timeout: float | None = None):
        """The `Kernel` once made (waiting at most ``timeout`` seconds), or None: not made
        yet, or it could not be (``reason`` says why)."""
        self._done.wait(timeout)
        return self.ready()

    @property
    def done(self) -> bool:
        """Whether the making is over (the kernel made, or not)."""
        return self._done.is_set()

    def _finish(self, kernel, reason: str | None) -> None:
        self._kernel, self.reason = kernel, reason
        self._done.set()

    def _start(self, path: Path, src: Source) -> None:
        self.path, self.source = path, src
        threading.Thread(target=self._make, args=(path,), name=f"taash-kernel-{self.variant.name}",
                         daemon=True).start()

    def _make(self, path: Path) -> None:
        # the thread: the child compiles into the cache, then this process loads from it
        with _CHILDREN:
            self._compile(path)

    def _compile(self, path: Path) -> None:
        reason = None
        t0 = time.perf_counter()
        try:
            child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path)], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as e:
            child, reason = None, f"the compiling process could not start ({e})"
        if child is not None:
            try:
                _, err = child.communicate(timeout=CHILD_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                child.kill()
                _, err = child.communicate()
                reason = f"the compile took more than {CHILD_TIMEOUT_S} s"
            if reason is None and child.returncode != 0:
                lines = err.decode("utf-8", "replace").strip().splitlines()
                reason = f"the compiling process failed ({lines[-1] if lines else f'exit {child.returncode}'})"
        kernel = None
        t1 = time.perf_counter()
        self.child_seconds = t1 - t0
        if reason is None:
            try:
                kernel = kernel_for(self.variant, self.cache_dir, quiet=True, source=self.source)   # loaded
            except Exception as e:      # a broken install: the engine plays on, and says why
                reason = f"{type(e).__name__}: {e}"
        if kernel is None and reason is None:
            reason = told(self.variant) or "not made"
        self.load_seconds = time.perf_counter() - t1
        self._finish(kernel, reason)


def kernel_soon(variant, cache_dir: Path | None = None) -> Warming | None:
    """The kernel of ``variant`` made in the background (module docstring); one making
    per variant and cache directory in a process, shared by its callers. None without the
    ``fast`` extra (nothing is said: the engine plays, as without the kernel). A variant
    the kernel cannot compile gets a `Warming` already done, without a kernel, and the
    `KernelFallback` warning of `kernel_for` (once a variant and process). Takes
    milliseconds (the module's source made and written)."""
    if not available():
        return None
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    wkey = (*key(variant), str(cache_dir))
    with _LOCK:
        w = _WARMING.get(wkey)
        if w is not None:
            return w
        w = _WARMING[wkey] = Warming(variant, cache_dir)
    k = made(variant, cache_dir)
    if k is not None:
        w._finish(k, None)
        return w
    try:
        src = source_of(variant)
        path = write_module(src.text, variant.digest, cache_dir)
    except (Unsupported, OSError) as e:
        kernel_for(variant, cache_dir)          # says why, once
        w._finish(None, told(variant) or str(e))
        return w
    w._start(path, src)
    return w


class KernelUse:
    """How a bot gets its kernel, by its ``kernel`` setting ``mode``: None, made in the
    background (`kernel_soon`, started by the first `get`; until it is ready `get` returns
    None: the engine plays); True, made at the first `get`, which waits
    for it (`kernel_for`); False, never. None always without the ``fast`` extra or for a
    variant the kernel cannot compile (told once). Raises ValueError for another mode.
    ``cache_dir``: the kernels' cache directory (`default_cache_dir` by default).
    ``warming``: the `Warming` of the last deal asked for, once started (mode None). A
    flow that changes by deal has a kernel per deal size (`taash.kernel.key`), each made
    when a State of that deal first asks."""

    def __init__(self, variant, mode: bool | None = None, cache_dir: Path | None = None):
        if mode not in (None, True, False):
            raise ValueError(f"kernel is None (in the background), True (wait for it) or False, not {mode!r}")
        self.variant, self.mode, self.cache_dir = variant, mode, cache_dir
        self.on = mode is not False and available()
        self.warming: Warming | None = None
        self._kernels: dict = {}        # deal index -> Kernel (mode True) or Warming (mode None)

    def get(self, variant=None):
        """The kernel to use now for a State of ``variant`` (its ``v``; by default the
        bot's variant), or None (the engine)."""
        if not self.on:
            return None
        v = self.variant if variant is None else variant
        if self.mode is True:
            k = self._kernels.get(v.deal_index)
            if k is None:
                k = self._kernels[v.deal_index] = kernel_for(v, self.cache_dir)
                self.on = k is not None
            return k
        w = self._kernels.get(v.deal_index)
        if w is None:
            w = self._kernels[v.deal_index] = kernel_soon(v, self.cache_dir)
            self.on = w is not None
            if not self.on:
                return None
        self.warming = w
        k = self.warming.ready()
        if k is None and self.warming.done:     # it could not be made: the engine plays on
            self.on = False
        return k


def _restart_in_child() -> None:
    """In a process forked while kernels were being made (a pool of ladder workers), whose
    threads did not come along: a new lock, and each making started again."""
    global _LOCK, _CHILDREN
    _LOCK = threading.Lock()
    _CHILDREN = threading.BoundedSemaphore(MAX_CHILDREN)
    for w in _WARMING.values():
        if not w.done and w.path is not None:
            w._start(w.path, w.source)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_restart_in_child)
