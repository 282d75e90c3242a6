"""A batch of self-play deals of one variant stepped at once: a Gymnasium vector
environment (the ``learn`` extra).

>>> import numpy as np
>>> from taash.learn.vector import VectorEnv
>>> envs = VectorEnv("29", num_envs=8)
>>> obs, infos = envs.reset(seed=3)
>>> obs["observation"].shape, obs["action_mask"].shape, infos["seat"].shape
((8, 1159), (8, 185), (8,))
>>> actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
>>> obs, rewards, terminations, truncations, infos = envs.step(actions)
>>> rewards.shape, terminations.shape
((8, 4), (8,))

The interface is Gymnasium's ``gymnasium.vector.VectorEnv`` (``num_envs``, batched
``observation_space`` and ``action_space``, ``single_observation_space`` and
``single_action_space``, ``reset(seed=...)``, ``step(actions)``,
``metadata["autoreset_mode"]``), for a turn-based game of several seats as the batched
game libraries give it (pgx's ``current_player`` and ``rewards`` per player): each
sub-environment is the PettingZoo environment of `taash.learn.pettingzoo` (a deal, or a
whole match with ``episode="match"``), and every step each of them has one seat to act.

- Observation: ``{"observation": (N, size) float32, "action_mask": (N, A) int8}``, row i
  the encoding (`taash.learn.encoding`) and legal-action mask of the seat to act in
  sub-environment i, byte for byte what the PettingZoo environment's ``observe`` gives that
  seat. ``infos["seat"]`` (N,) int64: that seat.
- Action: ``MultiDiscrete([A] * N)``, one action id for each sub-environment, for its seat
  to act. An illegal one raises ValueError naming the first such sub-environment, and no
  sub-environment steps.
- Rewards: ``(N, n)`` float32, each seat's reward of this step (unlike a single-agent
  Gymnasium vector environment's ``(N,)``: every seat of a deal is a learner); the
  PettingZoo environment's rewards in seat order: with ``score`` or ``margin`` they come
  as each deal ends, with ``match`` as the match ends.
- ``terminations`` / ``truncations`` (N,) bool: the episode ended (a match stopped at its
  deal limit is truncated). Autoreset in the same step (``AutoresetMode.SAME_STEP``): the
  row of an ended episode already holds the next episode's first observation; its last
  result (``State.result()``) is in ``infos["result"]`` (an object array, None in the other
  rows).
- ``kernel``: the play of the tricks on the compiled kernel (`taash.learn.kernelplay`:
  the same rows, byte for byte, 1.5 to 2 times the steps a second): None (default) when the
  ``fast`` extra is installed and the variant compiles, made in the background (the engine
  plays until it is ready: no step waits), else quietly the engine; True: the kernel, made
  at the first deal in play (waiting for it), a `KernelFallback` warning once when it cannot; False: the engine alone.
  ``kernel_cache``: the compiled kernels' directory (`taash.kernel.kernel_for`).
- Seeds: ``reset(seed=s)`` resets sub-environment i with seed ``s * N + i`` (with N = 1 the
  PettingZoo environment's ``reset(seed=s)``), and each later episode of it from its own
  generator (the PettingZoo environment's ``reset()``): the same seed and the same actions
  give the same batch of episodes. ``reset(seed=[s0, s1, ...])``, a seed for each
  sub-environment (as Gymnasium's ``SyncVectorEnv`` takes them; None draws one), resets
  sub-environment i with ``s_i``. ``reset()`` without a seed draws the seeds from the
  generator of the last one.
- After ``close()``, ``reset`` and ``step`` raise Gymnasium's ``ClosedEnvironmentError``.
"""

from __future__ import annotations

import random

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import gymnasium
    import numpy as np
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.vector", e)) from e

from taash.interpreter import load_variant

from . import kernelplay
from .pettingzoo import TaashEnv


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` self-play episodes of ``variant`` (a name, a file's path or a loaded
    Variant, with ``options``), stepped at once (module docstring); ``reward`` and
    ``episode`` as the PettingZoo environment's; ``kernel`` and ``kernel_cache``: the
    module docstring. Raises VariantError for a bad variant, ValueError for a bad
    ``num_envs``, ``reward`` or ``episode``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, variant="29", num_envs: int = 1, options: dict | None = None, reward: str = "score",
                 episode: str = "deal", kernel: bool | None = None, kernel_cache=None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs is a whole number, not {num_envs!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        kernelplay.check(kernel, kernel_cache)
        v = variant if hasattr(variant, "actions") else load_variant(variant, options)
        self.num_envs = N = int(num_envs)
        self.envs = [TaashEnv(v, reward=reward, episode=episode, kernel=False) for _ in range(N)]
        self.v, self.encoding = v, self.envs[0].encoding
        one = self.envs[0]
        self.single_observation_space = one.observation_space(one.possible_agents[0])
        self.single_action_space = one.action_space(one.possible_agents[0])
        self.observation_space = batch_space(self.single_observation_space, N)
        self.action_space = batch_space(self.single_action_space, N)
        self._obs = np.zeros((N, self.encoding.size), np.float32)
        self._mask = np.zeros((N, len(v.actions)), np.int8)
        self._seat = np.zeros(N, np.int64)
        self._rng = random.Random()
        # the play on the compiled kernel (taash.learn.kernelplay), or None
        self._kernel_setting = (kernel, kernel_cache)
        self.kernel = kernelplay.chosen(self.encoding, N, kernel, kernel_cache)

    def __getstate__(self):
        """Pickled (or copied) without the kernel, its compiled code: each row's engine State
        is brought level with it first; unpickling takes the kernel again."""
        kp = self.kernel
        if kp is not None:
            for i in range(self.num_envs):
                if kp.on(i):
                    self._catch_up(i)
        return dict(self.__dict__, kernel=None)

    def __setstate__(self, state):
        self.__dict__.update(state)
        kernel, cache = self._kernel_setting
        self.kernel = kernelplay.chosen(self.encoding, self.num_envs, kernel, cache)
        if self.kernel is not None:
            for i, e in enumerate(self.envs):
                self.kernel.enter(i, e.deal)

    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        """Start every sub-environment's episode afresh (seeds: module docstring);
        ``options`` is unused. Returns (observations, infos). Raises ValueError for a list
        of seeds of another length than ``num_envs``, TypeError for a seed that is not a
        whole number, ClosedEnvironmentError once closed."""
        self._open()
        N = self.num_envs
        if isinstance(seed, (list, tuple)):
            if len(seed) != N:
                raise ValueError(f"a seed for each of the {N} environments, not {len(seed)}")
            seeds = [self._seed(s) if s is not None else self._rng.randrange(2 ** 63) for s in seed]
            super().reset(seed=seeds[0])
            self._rng = random.Random(repr(seeds))
        else:
            if seed is not None:
                seed = self._seed(seed)
                super().reset(seed=seed)
                self._rng = random.Random(seed)
            else:
                seed = self._rng.randrange(2 ** 63)
            seeds = [seed * N + i for i in range(N)]
        kp = self.kernel
        for i, e in enumerate(self.envs):
            e.reset(seed=seeds[i])
            if kp is not None:
                kp.leave(i)
                kp.enter(i, e.deal)
        self._observe_all(range(self.num_envs))
        return self._batch(), {"seat": self._seat.copy()}

    def step(self, actions):
        """One action id for each sub-environment's seat to act. Returns (observations,
        rewards (N, n), terminations, truncations, infos)."""
        self._open()
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must be one id for each of the {self.num_envs} environments, "
                             f"not an array of shape {actions.shape}")
        N, n, kp = self.num_envs, self.v.players, self.kernel
        self._rewards = np.zeros((N, n), np.float32)
        self._terminations = np.zeros(N, bool)
        self._truncations = np.zeros(N, bool)
        self._results = None
        mask, A = self._mask, len(self.v.actions)
        ids = [int(a) for a in actions]
        for i, a in enumerate(ids):       # every action checked before any row steps
            if not (0 <= a < A and mask[i, a]):
                self._refuse(i, a)
        for i, e in enumerate(self.envs):
            a = ids[i]
            if kp is not None and kp.on(i):
                kp.play(i, a)
                continue
            e.step(a)
            self._stepped(i)
        self._finish(range(N))
        infos = {"seat": self._seat.copy()}
        if self._results is not None:
            infos["result"] = self._results
        return self._batch(), self._rewards, self._terminations, self._truncations, infos

    def _open(self) -> None:
        if self.closed:
            raise gymnasium.error.ClosedEnvironmentError("the environments are closed: make a new VectorEnv")

    @staticmethod
    def _seed(s) -> int:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"a seed is a whole number, not {s!r}")
        return int(s)

    def _refuse(self, i: int, a: int) -> None:
        """Raise the ValueError of row i's environment for its illegal action ``a`` (the
        engine's words), naming the row; nothing steps."""
        if self.kernel is not None and self.kernel.on(i):
            self._catch_up(i)           # the engine's State level with the kernel's: no move
        try:
            self.envs[i].step(a)
        except ValueError as err:
            raise ValueError(f"environment {i}: {err}") from None
        raise AssertionError(f"environment {i}: action {a} outside the mask was applied")

    def _stepped(self, i: int) -> None:
        """Sub-environment i has stepped on the engine: its rewards, its episode's end (then
        a new one) and, when its deal is in play, the kernel."""
        e = self.envs[i]
        got, agents = e.rewards, e.possible_agents
        self._rewards[i] = [got[a] for a in agents]
        agent = agents[0]
        if e.terminations[agent] or e.truncations[agent]:     # the episode is over
            self._terminations[i], self._truncations[i] = e.terminations[agent], e.truncations[agent]
            if self._results is None:
                self._results = np.full(self.num_envs, None, object)
            self._results[i] = e.infos[agent].get("result")
            e.reset()
        kp = self.kernel
        if kp is not None:
            if kp.still(i, e):
                kp.rebase(i, e.deal)
            else:
                kp.leave(i)
                kp.enter(i, e.deal)

    def _catch_up(self, i: int) -> None:
        """Sub-environment i's engine State level with its kernel (`KernelPlay.catch_up`)."""
        if self.kernel.catch_up(i, self.envs[i]):
            self._stepped(i)

    def _finish(self, rows) -> None:
        """After the actions of ``rows``: the engine caught up where it must, every row
        observed."""
        kp = self.kernel
        if kp is not None:
            for i in kp.due([i for i in rows if kp.on(i)]):
                self._catch_up(i)
        self._observe_all(rows)

    def _observe_all(self, rows) -> None:
        kp = self.kernel
        on = []
        for i in rows:
            if kp is not None and kp.on(i):
                on.append(i)
            else:
                self._observe(i)
        if on:
            kp.observe(on, self._obs, self._mask, self._seat)

    def _observe(self, i: int) -> None:
        """Row i of the batch: the observation and mask of sub-environment i's seat to act."""
        e = self.envs[i]
        st = e.deal
        seat = self._seat[i] = st.to_act
        self.encoding.encode(st.observation(seat), self._obs[i])
        row = self._mask[i]
        row.fill(0)
        row[st.legal_ids()] = 1

    def _batch(self) -> dict:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def close_extras(self, **kwargs) -> None:
        for e in self.envs:
            e.close()
