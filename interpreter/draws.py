"""Draws from a `random.Random` for the hot paths: the same results as the standard
library's calls, with fewer Python calls.

>>> import random
>>> a, b = list(range(32)), list(range(32))
>>> random.Random(7).shuffle(a); shuffle(b, random.Random(7))
>>> a == b
True
"""

from __future__ import annotations

import random

_WITH_GETRANDBITS = random.Random._randbelow_with_getrandbits


def shuffle(x: list, rng: random.Random) -> None:
    """Shuffle ``x`` in place exactly as ``rng.shuffle(x)`` does: CPython's
    ``random.shuffle`` (Fisher-Yates from the last position down, position ``j`` drawn
    below ``i + 1`` by ``getrandbits`` of ``(i + 1).bit_length()`` bits, redrawn while too
    large), with the draw written out, so the same generator state gives the same
    permutation at about 40% of the time (no Python call per card). A generator whose
    class draws otherwise (a subclass that overrides ``random`` alone), or any other
    object with a ``shuffle``, is left to its own. Deals (`taash.interpreter.engine`) and
    resamples (`taash.interpreter.information`) shuffle here; tests/engine/test_draws.py holds
    it equal to ``random.shuffle``."""
    if getattr(type(rng), "_randbelow", None) is not _WITH_GETRANDBITS:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
