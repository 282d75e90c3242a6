"""The play phase of a batch of learners' deals on the compiled kernel (taash.kernel), with
each seat's observation vector and action mask made there (taash.kernel.encoding), byte
for byte what the engine's `State.observation` and `Encoding.encode` give.

A row (a sub-environment of `taash.learn.vector.VectorEnv`, or the deal of a PettingZoo
environment, `taash.learn.pettingzoo`) enters the kernel when its deal enters the play
phase (`enter`): its State becomes the kernel's array, and each seat's vector is encoded
once by the Python encoding (the *base*). Its plays are then applied to the array alone
(`play`) and kept; the engine's State is brought level with them (`catch_up`: the kept
ids applied by the engine, the last by the environment's own ``step``, which scores a
finished deal; or `take`, the caller applying them) when the deal ends (`due`), when an
action that is not a play is made, when a fact outside the play's own moves (trump
exposed, a declaration, a partner revealed, a variable), before an illegal action's
error, and when the engine's State is read; then, while the deal is still in play and a
fact outside the play's moved, a new base is taken (`rebase`). So results, rewards and
``infos`` are the engine's.

The kernel is the one of the deal's own variant (a flow that changes by deal has a kernel
per deal size), got as the bots get theirs (`taash.kernel.warm.KernelUse`): with ``quiet``
(the environments' ``kernel=None``) made in the background by a child process, the deals
playing on the engine until it is ready, so that no step waits for a compile (10-30 s the
first time on a machine); otherwise made at the first deal in play, which waits for it. A
deal whose kernel cannot be made, or is not ready yet, plays on the engine (`enter`
returns False): the rows are the same bytes either way.
"""

from __future__ import annotations

import os
import warnings

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.kernelplay", e)) from e

from taash.kernel import KernelFallback, available, key
from taash.kernel.warm import KernelUse
from taash.kernel import encoding as kenc


def check(kernel, cache_dir) -> None:
    """Refuse an environment's ``kernel`` setting other than None, True or False
    (ValueError) and a ``kernel_cache`` other than None, a str or a path (TypeError)."""
    if kernel is not None and not isinstance(kernel, bool):
        raise ValueError(f"kernel is None (when it can, made in the background), True or False, not {kernel!r}")
    if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
        raise TypeError(f"kernel_cache is a directory's path, not {cache_dir!r}")


def chosen(encoding, N: int, kernel: bool | None, cache_dir=None, stacklevel: int = 3) -> "KernelPlay | None":
    """The `KernelPlay` of ``N`` rows as ``kernel`` asks (None: when the ``fast`` extra is
    installed, else the engine, saying nothing; True: the kernel, and a `KernelFallback`
    warning when the extra or the variant's compile is missing; False: the engine), or
    None for the engine alone. ``stacklevel``: the warning's, counted from this function
    (3: the caller of its caller, the user's line for an environment's constructor)."""
    if not (kernel is None and available() or kernel):
        return None
    if not available():
        warnings.warn(f"{encoding.v.name}: the compiled kernel needs numba (pip install 'taash[fast]'); "
                      "the Python engine plays it", KernelFallback, stacklevel=stacklevel)
        return None
    return KernelPlay(encoding, N, cache_dir, quiet=not kernel)


class _Group:
    """The rows on one kernel: their arrays (N, L), the arrays when their bases were
    taken, their legal ids."""

    def __init__(self, k, N: int, enc):
        v = k.variant
        self.k, self.module = k, k.module
        lay = k.layout
        self.SS = np.zeros((N, lay.size), np.int64)
        self.snap = np.zeros((N, lay.size), np.int64)
        self.views = list(self.SS)          # row i's array (a view of SS)
        self.legal = np.zeros((N, len(k.facts.play_checks) + k.facts.size + 1), np.int64)
        self.legal_rows = list(self.legal)
        self.nlegal = np.zeros(N, np.int64)
        self.watch = kenc.watched(lay)
        self.one = [np.array([i], np.int64) for i in range(N)]    # row i alone, as `rows`
        self.flags = np.zeros(N, np.int64)
        self.P = kenc.params(lay, v.players, v.deck.size, v.deck.max_copies > 1, enc.offsets)


class KernelPlay:
    """The kernel's side of ``N`` rows of one variant's deals, encoded by ``encoding``
    (module docstring); ``cache_dir`` the kernels' (`taash.kernel.kernel_for`), ``quiet``: the
    kernel made in the background and nothing said when a variant cannot be compiled (else
    made at the first deal in play, waiting, and a `KernelFallback` warning, once)."""

    def __init__(self, encoding, N: int, cache_dir=None, quiet: bool = True):
        self.enc, self.N = encoding, N
        self.cache_dir, self.quiet = cache_dir, quiet
        v = encoding.v
        n, C = v.players, v.deck.size
        self.n = n
        self.is_play = [a.kind == "play" for a in v.actions]
        self.groups: dict = {}
        self.uses: dict = {}                   # variant digest -> its KernelUse
        self.group: list = [None] * N          # row i's group, None: on the engine
        self.deal: list = [None] * N           # row i's engine State on the kernel
        self.pending: list = [[] for _ in range(N)]
        self.must_sync = [False] * N
        self.legal_ids: list = [None] * N      # row i's legal ids, once asked, until it moves
        self.base = np.zeros((N, n, encoding.size), np.float32)
        self.counts = np.zeros((N, n, C), np.int64)
        self.sizes, self.won, self.points_total = encoding.play_tables()

    def on(self, i: int) -> bool:
        """Whether row i's deal is in play on the kernel."""
        return self.group[i] is not None

    def _group(self, v):
        g = self.groups.get(key(v))
        if g is None:
            use = self.uses.get(v.digest)
            if use is None:
                use = self.uses[v.digest] = KernelUse(v, None if self.quiet else True, self.cache_dir)
            with warnings.catch_warnings():
                if self.quiet:
                    warnings.simplefilter("ignore", KernelFallback)
                k = use.get(v)
            if k is not None:
                g = self.groups[key(v)] = _Group(k, self.N, self.enc)
        return g

    def enter(self, i: int, st) -> bool:
        """Row i onto the kernel with the engine's State ``st`` (its deal) if that is in play
        and its kernel can be made; whether it is."""
        if st is None or st.phase != "play" or st.is_terminal:
            return False
        g = self._group(st.v)
        if g is None:
            return False
        g.SS[i] = g.k.state(st)
        self.group[i], self.deal[i] = g, st
        self._rebase(i, st)
        return True

    def _rebase(self, i: int, st) -> None:
        g = self.group[i]
        for s in range(self.n):
            self.enc.encode(st.observation(s), self.base[i, s])
        kenc.hand_counts(g.views[i], g.P, self.counts[i])
        g.snap[i] = g.SS[i]
        self.pending[i] = []
        self.must_sync[i] = False
        self.legal_ids[i] = None

    def play(self, i: int, a: int) -> None:
        """Apply action id ``a`` (legal: the caller checked it on the mask) to row i."""
        g = self.group[i]
        g.module.apply_id(g.views[i], a)
        self.legal_ids[i] = None
        self.pending[i].append(a)
        if not self.is_play[a]:
            self.must_sync[i] = True

    def catch_up(self, i: int, e) -> bool:
        """Bring row i's engine State level with its kernel (the kept ids applied: the
        last by ``e.step``); whether anything was applied."""
        ids = self.pending[i]
        if not ids:
            return False
        self.pending[i] = []
        e.step_played(ids)
        return True

    def still(self, i: int, e) -> bool:
        """Whether row i is on the kernel and ``e``'s deal is the one it took there, still
        in play (a new base is then due after `catch_up`, not a new array)."""
        st = e.deal
        return self.group[i] is not None and st is self.deal[i] and st.phase == "play" and not st.is_terminal

    def to_act(self, i: int) -> int:
        """The seat to act in row i's kernel array."""
        g = self.group[i]
        return int(g.SS[i, g.k.layout.at["to_act"]])

    def legal(self, i: int) -> list[int]:
        """The legal action ids in row i's kernel array, in the engine's order."""
        ids = self.legal_ids[i]
        if ids is None:
            g = self.group[i]
            n = g.module.legal_ids(g.views[i], g.legal_rows[i])
            ids = self.legal_ids[i] = g.legal_rows[i][:n].tolist()
        return ids

    def take(self, i: int) -> list[int]:
        """Row i's kept action ids (not yet applied by the engine), forgotten here: the
        caller applies them."""
        ids, self.pending[i] = self.pending[i], []
        return ids

    def leave(self, i: int) -> None:
        """Row i back on the engine."""
        self.group[i] = self.deal[i] = None
        self.pending[i] = []
        self.must_sync[i] = False

    def due(self, rows) -> list[int]:
        """The rows of ``rows`` (on the kernel) whose engine State must catch up: their
        deal ended, or a fact outside the play's own moved, or an action not a play."""
        if len(rows) == 1:
            i = rows[0]
            if self.must_sync[i]:
                return [i]
            g = self.group[i]
            kenc.changed(g.SS, g.one[i], g.snap, g.watch, g.flags)
            return [i] if g.flags[0] else []
        out = []
        by_group: dict = {}
        for i in rows:
            if self.must_sync[i]:
                out.append(i)
            else:
                by_group.setdefault(id(self.group[i]), (self.group[i], []))[1].append(i)
        for g, idx in by_group.values():
            r = np.array(idx, np.int64)
            flags = np.zeros(len(idx), np.int64)
            kenc.changed(g.SS, r, g.snap, g.watch, flags)
            out.extend(int(i) for i in r[flags != 0])
        return sorted(out)

    def rebase(self, i: int, st) -> None:
        """Row i's new base from ``st``, its deal's engine State caught up and still in
        play (`still`)."""
        self._rebase(i, st)

    def observe(self, rows, obs, mask, seat) -> None:
        """Rows ``rows`` (on the kernel, caught up where due) of the batch: ``obs``,
        ``mask`` and ``seat`` written (`taash.kernel.encoding.write_rows`)."""
        by_group: dict = {}
        for i in rows:
            g = self.group[i]
            ids = self.legal_ids[i]                 # (the ids in g.legal[i])
            g.nlegal[i] = len(ids) if ids is not None else g.module.legal_ids(g.views[i], g.legal_rows[i])
            by_group.setdefault(id(g), (g, []))[1].append(i)
        for g, idx in by_group.values():
            kenc.write_rows(g.SS, g.one[idx[0]] if len(idx) == 1 else np.array(idx, np.int64), g.P, self.base, self.counts, self.sizes, self.won,
                            self.points_total, g.legal, g.nlegal, obs, mask, seat)
