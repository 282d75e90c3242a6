"""taash.kernel: the play of the tricks and the deal's scoring compiled from a variant's
checked rules (the ``fast`` extra: numba and numpy), checked against the Python engine,
which stays the reference (docs/architecture.md, "One truth, two speeds").

    from taash.kernel import kernel_for
    k = kernel_for(variant)          # None (told once, in words) when it cannot compile it
    S = k.state(state)               # a State in the play phase, as the kernel's array
    k.legal(S), k.apply(S, a)        # the engine's legal_ids() and apply_id(a)
    k.playout(S, seed)               # random legal actions to the end of the deal: their ids
    k.playouts(S, count, seed)       # that, count times from copies: the sum of the scores
    k.rollout(S, draws, greedy)      # the search bot's rollout policy, its draws given
    k.worlds(state, seat).sample(rng)  # a world as State.resample draws it, judged on the kernel

    from taash.kernel.warm import kernel_soon
    w = kernel_soon(variant)         # the same, compiled by a child process: w.ready() never waits

``source`` is the kernel's one view of the engine; ``translate`` the rules' typed trees
as numba source; ``build`` the module of a variant, cached on disk; ``warm`` its compile in
the background; ``encoding`` a learner's observation vectors of the play written from the
kernel's arrays (taash.learn.kernelplay uses it); ``worlds`` the search bots' resampled
worlds judged on the kernel.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from .build import load_module, module_source
from .source import Facts, Layout, Unsupported, checked_rules, deal_blind, facts, from_state
from .worlds import Worlds

__all__ = ["Kernel", "KernelFallback", "Source", "Unsupported", "available", "default_cache_dir", "key", "kernel_for", "made",
           "source_of", "told", "why_not"]


class KernelFallback(UserWarning):
    """A variant the kernel cannot compile: it runs on the Python engine (said once a
    variant and process)."""


def available() -> bool:
    """Whether the ``fast`` extra (numba) is installed."""
    return importlib.util.find_spec("numba") is not None    # found, not imported: milliseconds


def default_cache_dir() -> Path:
    """Where compiled kernels are kept: ``$XDG_CACHE_HOME/taash/kernel`` (or
    ``~/.cache/taash/kernel``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "taash" / "kernel"


class Kernel:
    """The compiled play of one variant. ``compile_seconds``: the time to make it (the
    source, and numba's compile or its cache's load); ``numpy``: the numpy module (imported
    with the kernel, not with this package)."""

    def __init__(self, variant, src: "Source", module, seconds: float):
        import numpy as np
        self._np = self.numpy = np
        self.variant, self.facts, self.layout, self.module = variant, src.facts, src.layout, module
        f = src.facts
        self.compile_seconds = seconds
        # why the history before the play may depend on the cards (`source.deal_blind`), or
        # None: judged with the kernel's source, so that no decision parses Python
        self.blind_reason = src.blind_reason
        self._out = np.empty(f.size + len(f.play_checks) + 1, np.int64)

    def state(self, s):
        """State ``s`` (in the play phase, or over) as the kernel's int64 array. Raises
        Unsupported for a state it does not take (another phase, a question pending, a
        deal of another size: `kernel_for(s.v)` is that deal's kernel)."""
        if s.v.digest != self.variant.digest:
            raise Unsupported(f"a state of {s.v.name}, not of {self.variant.name}: its kernel is kernel_for(state.v)")
        if key(s.v) != key(self.variant):
            raise Unsupported(f"a state of deal {s.v.deal_index} of a flow that changes by deal, not of "
                              f"deal {self.variant.deal_index}: its kernel is kernel_for(state.v)")
        return self._np.array(from_state(self.variant, self.facts, self.layout, s), dtype=self._np.int64)

    def legal(self, S) -> list[int]:
        """The legal action ids of the seat to act, in the engine's order; [] at the end."""
        n = self.module.legal_ids(S, self._out)
        return self._out[:n].tolist()

    def apply(self, S, a: int) -> None:
        """Play action id ``a`` (a legal one: not checked)."""
        self.module.apply_id(S, a)

    def playout(self, S, seed: int) -> list[int]:
        """Uniformly random legal actions to the end of the deal (numba's generator, seeded
        with ``seed`` >= 0); changes ``S``; returns the action ids played. Raises ValueError
        for a negative seed."""
        if seed < 0:
            raise ValueError(f"a playout's seed is a whole number >= 0, not {seed}")
        acts = self._np.empty(self.facts.tricks * self.facts.players + 2 * len(self.facts.play_checks) + 1,
                              self._np.int64)
        n = self.module.playout(S, seed, acts)
        return acts[:n].tolist()

    def playouts(self, S, count: int, seed: int):
        """``count`` random playouts from copies of ``S``: the match scores after each,
        summed (one array, per side or seat as the variant keeps them)."""
        total = self._np.zeros(self.facts.nscores, self._np.int64)
        self.module.playouts(S, count, seed, total)
        return total

    def draws(self, values):
        """``values`` (floats in [0, 1)) as the array `rollout` reads."""
        return self._np.array(values, dtype=self._np.float64)

    def rollout(self, S, draws, greedy: float, helpful: int = 0) -> int:
        """Play ``S`` to the end of the deal by the search bot's rollout policy
        (arena/bots/search.py ``Rollout.run`` in the play phase), card for card: ``draws``,
        a float64 array, the values its generator's ``random()`` would give, in order (at
        most two a card); ``greedy`` its chance of the greedy card; ``helpful`` a mask of the
        play declarations it makes at once (bit k: the k-th of ``facts.play_checks``).
        Returns the draws used. Raises ValueError when ``draws`` is too short."""
        used = self.module.rollout(S, draws, float(greedy), int(helpful))
        if used < 0:
            raise ValueError("too few draws for the rollout: give two for every card still in hand")
        return used

    def worlds(self, root, seat: int):
        """The worlds of ``root`` (a State in the play phase) for ``seat``, drawn as
        `State.resample` draws them and judged on the kernel (`taash.kernel.worlds.Worlds`:
        ``sample(rng) -> S``). Raises Unsupported for a state it does not model (then
        `State.resample`; kernel/worlds.py)."""
        return Worlds(self, root, seat)

    def at(self, S, name: str, index: int = 0) -> int:
        """One fact of ``S`` by its name in `source.Layout`."""
        return int(S[self.layout.at[name] + index])


_TOLD: dict[str, str] = {}
_MADE: dict[tuple[str, str], Kernel] = {}
_MAKING = threading.RLock()      # one making at a time (a thread of `taash.kernel.warm` makes them too)



def _new_lock_in_child() -> None:
    # a process forked while a thread held the lock would wait on it for ever
    global _MAKING
    _MAKING = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def key(variant) -> tuple[str, int]:
    """What tells kernels apart: the variant's digest and, when its flow changes by deal,
    the deal size it is built for (`Variant.for_deal`; 0 otherwise)."""
    return variant.digest, variant.deal_index


def why_not(variant) -> str | None:
    """Why the kernel cannot compile ``variant`` (words), or None if it can; compiles
    nothing. Raises TypeError for what is not a Variant."""
    _is_variant(variant)
    if not available():
        return "numba is not installed (pip install 'taash[fast]')"
    try:
        source_of(variant)
    except Unsupported as e:
        return str(e)
    return None


@dataclass(frozen=True)
class Source:
    """What a variant's kernel is made from (`source_of`): its ``facts`` and ``layout``
    (`source.Facts`, `source.Layout`), ``text`` the numba module's Python source
    (`build.module_source`), and ``blind_reason``: why the history before the play may
    depend on the cards, or None (`source.deal_blind`)."""
    facts: Facts
    layout: Layout
    text: str
    blind_reason: str | None


def source_of(variant) -> Source:
    """The `Source` of ``variant``'s kernel: milliseconds, nothing compiled. Raises
    Unsupported (with the reason in words) for a variant the kernel cannot compile."""
    f = facts(variant)
    lay = Layout(f)
    return Source(f, lay, module_source(f, lay, checked_rules(variant)), deal_blind(variant))


def told(variant) -> str | None:
    """The reason this process was already told that ``variant`` plays on the Python
    engine (a `KernelFallback` warning of `kernel_for`), or None if it was not."""
    return _TOLD.get(variant.digest)


def made(variant, cache_dir: Path | None = None) -> Kernel | None:
    """The kernel of ``variant`` if this process has made it already (`kernel_for`), else
    None; makes nothing."""
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return _MADE.get((*key(variant), str(cache_dir)))


def kernel_for(variant, cache_dir: Path | None = None, quiet: bool = False,
               source: Source | None = None) -> Kernel | None:
    """The compiled kernel of ``variant`` (of one deal size when its flow changes by deal:
    `Variant.for_deal`, a State's ``v``; made once a process; its machine code cached on
    disk under ``cache_dir``, `default_cache_dir` by default), or None when it cannot be
    made: then a `KernelFallback` warning says why, once a variant and process (unless
    ``quiet``), and the Python engine plays it. Waits for the compile (10-30 s the first
    time on a machine, about a second from the cache); `taash.kernel.warm.kernel_soon`
    does not. A cache damaged on disk is compiled again; a ``cache_dir`` that cannot be
    made or written is told as the reason. ``source``: the variant's `source_of`, when
    the caller made it already (`taash.kernel.warm` makes it in the caller's thread, and
    its own thread only loads). Raises TypeError for what is not a Variant."""
    _is_variant(variant)
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    with _MAKING:
        return _make(variant, cache_dir, quiet, source)


def _is_variant(variant) -> None:
    if not hasattr(variant, "digest"):
        raise TypeError(f"the kernel is made from a Variant (taash.interpreter.load_variant), not {variant!r}")


def _make(variant, cache_dir: Path, quiet: bool, source: Source | None) -> Kernel | None:
    made_key = (*key(variant), str(cache_dir))
    if made_key in _MADE:
        return _MADE[made_key]
    if variant.digest in _TOLD:
        return None
    t0 = time.perf_counter()
    if not available():
        reason = "numba is not installed (pip install 'taash[fast]')"
    else:
        try:
            src = source if source is not None else source_of(variant)
            module = load_module(src.text, variant.digest, cache_dir)
        except Unsupported as e:
            reason = str(e)
        except OSError as e:
            reason = f"its cache directory {cache_dir} cannot be used ({e.strerror or e})"
        except Exception as e:      # numba's own failure: the engine plays on, and says why
            reason = f"the compile failed ({type(e).__name__}: {e})"
        else:
            k = _MADE[made_key] = Kernel(variant, src, module, time.perf_counter() - t0)
            return k
    _TOLD[variant.digest] = reason
    if not quiet:
        warnings.warn(f"{variant.name}: the compiled kernel cannot play this variant ({reason}); "
                      "the Python engine plays it", KernelFallback, stacklevel=3)
    return None
