"""Child processes that die with their parent, even when it is killed with SIGKILL
(Linux: a parent-death signal, prctl(2) PR_SET_PDEATHSIG; elsewhere nothing: the parent's
normal stop still ends them). Used by the main job, `taash arena serve --web` and the
ladder's worker processes."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys

PR_SET_PDEATHSIG = 1   # prctl(2): the signal a child gets when its parent dies


def _load_libc():
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _load_libc()


def die_with_parent(parent: int | None = None) -> None:
    """Ask for SIGTERM when this process's parent dies (kept across exec). ``parent``:
    the parent's pid as seen before the fork: if it is already gone, exit at once (it
    died before the request took hold)."""
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if parent is not None and os.getppid() != parent:
            os._exit(1)


def popen(argv, **kw) -> subprocess.Popen:
    """subprocess.Popen of a child that dies with this process (`die_with_parent`, run
    between fork and exec)."""
    return subprocess.Popen(argv, preexec_fn=functools.partial(die_with_parent, os.getpid()), **kw)
