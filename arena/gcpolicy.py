"""How the arena's processes collect garbage: less often than Python's default; and the
heap a flood left freed handed back to the system (`release_memory`).

A server holding many games, or a simulation keeping many matches, has a large
long-lived heap that every full collection walks again; the engine and the arena make no
reference cycles per decision, so there is little for the collector to find. Both forms
freeze what exists and raise the first generation's threshold to `THRESHOLD`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from contextlib import contextmanager

THRESHOLD = (50_000, 20, 100)   # first-generation allocations, then as Python counts


def tune_gc() -> None:
    """For the life of the process (`taash arena serve`, the benches): freeze what exists
    now and collect at `THRESHOLD`."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLD)


@contextmanager
def fewer_collections():
    """`tune_gc` for the length of a ``with`` block (`taash simulate`: about a quarter of
    its time before matches kept no deals), then the threshold as before and the objects
    unfrozen. A process that froze objects already (or an enclosing block) keeps its
    freeze."""
    old = gc.get_threshold()
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.collect()
        gc.freeze()
    gc.set_threshold(*THRESHOLD)
    try:
        yield
    finally:
        if freeze:
            gc.unfreeze()
        gc.set_threshold(*old)


def release_memory() -> bool:
    """Hand the heap's free memory back to the system (glibc's ``malloc_trim(0)``: the
    freed buffers of a client's large messages stay in the process otherwise). True if
    memory was released; False where there is no glibc."""
    global _trim
    if _trim is None:
        try:
            _trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _trim = False
    return bool(_trim and _trim(0))


_trim = None        # glibc's malloc_trim once looked up; False where there is none
