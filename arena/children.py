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


class Relayed:
    """A child (`popen`, dying with this process) whose standard output a thread copies,
    line by line, to this process's standard output, watching for the line that says the
    child is ready (it starts with ``ready_line``). When the child's output ends the thread
    reaps it and calls ``on_exit(code, ready)`` (from that thread): ``code`` its exit
    status (negative: the signal that killed it), ``ready`` whether it had said it was
    ready. A child that dies is thus noticed, at its start or later, and never left a
    zombie."""

    def __init__(self, argv, ready_line: str, on_exit, out=None):
        import threading
        self.ready_line = ready_line
        self.ready = False
        self.on_exit = on_exit
        self.out = out if out is not None else sys.stdout
        self.proc = popen(argv, stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._relay, name=f"relay-{self.proc.pid}", daemon=True)
        self.thread.start()

    def _relay(self) -> None:
        for line in self.proc.stdout:
            if not self.ready and line.startswith(self.ready_line):
                self.ready = True
            try:
                self.out.write(line)
                self.out.flush()
            except (OSError, ValueError):    # our own output is closed: keep draining the child's
                pass
        self.proc.stdout.close()
        self.on_exit(self.proc.wait(), self.ready)

    def stop(self, timeout_s: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``timeout_s`` seconds; waits for its exit."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
