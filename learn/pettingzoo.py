"""A deal or a whole match of any variant as a PettingZoo AEC environment (the ``learn`` extra).

>>> from taash.learn.pettingzoo import env
>>> e = env("29")                       # a shipped name, or a variant file's path
>>> e.reset(seed=7)
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((1159,), True)

``env(...)`` is the environment wrapped as PettingZoo's classic environments are
(``OrderEnforcingWrapper``: a step before ``reset`` or a render in no render mode gets its
message); ``raw_env(...)`` is the bare `TaashEnv`. An illegal action raises ValueError and
changes nothing (rather than ``TerminateIllegalWrapper``'s ending of the episode with a
penalty: a seat is never made to lose for a bug in its caller).

``episode``: ``"deal"`` (default) is one deal, the first of a `Match` seeded by ``reset``'s
seed (so the dealer is drawn from the seed too); ``"match"`` is the whole match, deal
after deal, with the match score and the variant's match-scope variables carried as the
ladder plays them (and in the observation's ``score`` and ``variables`` blocks), until the
variant's ``match.ends`` rule, or its ``match.max_deals`` (then the agents are truncated,
not terminated).

Agents are ``seat_0`` .. ``seat_{n-1}``, the variant's seats; the agent to act is the
engine's ``to_act``. Each agent's action space is ``Discrete(len(variant.actions))``
over the variant's action table, and its observation a dict of ``observation`` (the
float32 vector of `taash.learn.encoding`, made from that seat's ``State.observation``
only) and ``action_mask`` (int8, 1 for each legal action of the seat when it is to act,
else all zeros).

``reward`` (`taash.learn.rewards`): ``"score"`` (default), each seat's change of the match
score by the variant's own ``scoring.effect``; ``"margin"``, that change minus the mean of
its opponents' (zero-sum); ``"match"`` (whole matches only), +1/-1 for the match won or
lost, at its end. ``score`` and ``margin`` come when each deal ends. ``infos[agent]``
holds ``legal_actions`` (texts) for the agent to act and, after a deal, its ``result``
(``State.result()``); at a match's end ``match`` (``Match.summary()``).

``kernel``: the play of the tricks on the compiled kernel (`taash.learn.kernelplay`; the
same observations, rewards and infos, byte for byte): None (default) when the ``fast``
extra is installed and the variant compiles, made in the background (the engine plays
until it is ready: no step waits), else quietly the engine; True: the kernel, made at the
first deal in play (waiting for it), a `KernelFallback` warning once when it cannot; False: the engine alone. ``kernel_cache``:
the compiled kernels' directory (`taash.kernel.kernel_for`). The observation of the seat
to act is then made by the kernel; another seat's, and ``deal``, bring the engine's State
level with the kernel's play first.

``deal`` is the engine's `State` of the deal being played and ``match`` its `Match` (the
whole truth: for a referee or a test, never for a seat's agent). The same
``reset(seed=s)`` gives the same episode for the same actions. PettingZoo's ``state()``
(a global state for centralised critics) is not offered. ``render()``: render_mode
``"human"`` prints the deal as text, ``"ansi"`` returns that text, ``"rgb_array"`` returns
the whole table as a picture (an ``(H, W, 3)`` uint8 array, `taash.learn.picture`: every
hand face up, the trick in progress, the contract, trump and the match score in words).
The environment (raw or wrapped) pickles.
"""

from __future__ import annotations

import random

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.pettingzoo", e)) from e

from taash.interpreter import Match, load_variant

from . import rewards
from .encoding import Encoding
from . import kernelplay
from .picture import Picture


def env(variant="29", options: dict | None = None, render_mode: str | None = None,
        reward: str = "score", episode: str = "deal", kernel: bool | None = None, kernel_cache=None):
    """The AEC environment of ``variant`` (a name, a file's path, or a loaded Variant)
    with its ``options``, wrapped in ``OrderEnforcingWrapper`` (module docstring).
    Raises VariantError for a bad name, file or option, ValueError for a bad
    ``render_mode``, ``reward`` or ``episode``."""
    return wrappers.OrderEnforcingWrapper(raw_env(variant, options, render_mode, reward, episode, kernel,
                                                  kernel_cache))


def raw_env(variant="29", options: dict | None = None, render_mode: str | None = None,
            reward: str = "score", episode: str = "deal", kernel: bool | None = None,
            kernel_cache=None) -> "TaashEnv":
    """The bare `TaashEnv` (as `env`, without the wrapper)."""
    return TaashEnv(variant, options, render_mode, reward, episode, kernel, kernel_cache)


class TaashEnv(AECEnv):
    """A deal or a match of a variant as an AEC environment (module docstring)."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "taash_v1", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, variant="29", options: dict | None = None, render_mode: str | None = None,
                 reward: str = "score", episode: str = "deal", kernel: bool | None = None, kernel_cache=None):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', not {render_mode!r}")
        rewards.check(reward, episode)
        kernelplay.check(kernel, kernel_cache)
        self.v = variant if hasattr(variant, "actions") else load_variant(variant, options)
        self.reward, self.episode = reward, episode
        self.encoding = Encoding(self.v)
        self.render_mode = render_mode
        self.picture = Picture(self.v) if render_mode == "rgb_array" else None
        self.metadata = dict(self.metadata, name=f"taash_{self.v.ref}_v1".replace("/", "_").replace("-", "_"))
        self.possible_agents = [f"seat_{s}" for s in range(self.v.players)]
        self.agent_seat = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (len(self.v.actions),), np.int8),
        })
        act_space = spaces.Discrete(len(self.v.actions))
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: act_space for a in self.possible_agents}
        self._rng = random.Random()
        self.match = None
        self._deal = None
        self.agents = []
        self.kernel, self.kernel_cache = kernel, kernel_cache
        self._kp = None             # the play on the compiled kernel (KernelPlay, one row), or None
        self._kp_tried = False
        self._row = None            # its observation buffers

    @property
    def deal(self):
        """The engine's State of the deal being played (brought level with the kernel's
        play first, when the kernel plays it)."""
        kp = self._kp
        if kp is not None and kp.pending[0]:
            for a in kp.take(0):
                self._deal.apply_id(a)
        return self._deal

    @deal.setter
    def deal(self, st) -> None:
        self._deal = st
        kp = self._kernel_play() if st is not None else self._kp
        if kp is not None:
            kp.leave(0)
            if st is not None:
                kp.enter(0, st)

    def _kernel_play(self):
        """The KernelPlay of this environment (made at first use), or None for the engine."""
        if self._kp is None and not self._kp_tried:
            self._kp_tried = True
            # the warning at the line that called reset (through the setter of deal)
            self._kp = kernelplay.chosen(self.encoding, 1, self.kernel, self.kernel_cache, stacklevel=5)
            if self._kp is not None:
                self._row = (np.zeros((1, self.encoding.size), np.float32),
                             np.zeros((1, len(self.v.actions)), np.int8), np.zeros(1, np.int64))
        return self._kp

    def kernel_on(self) -> bool:
        """Whether the deal's play is on the compiled kernel now."""
        return self._kp is not None and self._kp.on(0)

    def __getstate__(self):
        """Pickled without the kernel (its compiled code): the engine's State level with it;
        the kernel is taken again at the next deal in play."""
        self.deal   # noqa: B018 (brings the engine level)
        out = dict(self.__dict__)
        out.update(_kp=None, _kp_tried=False, _row=None)
        return out

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode: from ``seed`` (an int) if given, else from the
        environment's own generator (seeded by the last seed given). ``options`` is
        unused."""
        if seed is not None:
            self._rng = random.Random(seed)
            match_seed = seed
        else:
            match_seed = self._rng.randrange(2 ** 63)
        self.match = Match(self.v, seed=match_seed, keep_deals=False)
        self.deal = self.match.new_deal()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self):
        st = self.deal
        if st.is_terminal:
            return
        self.agent_selection = self.possible_agents[st.to_act]
        self.infos[self.agent_selection]["legal_actions"] = [a.text for a in st.legal_actions()]

    def observe(self, agent):
        """``{"observation": float32 vector, "action_mask": int8 vector}`` of ``agent``'s
        seat, from its ``State.observation`` only."""
        kp = self._kp
        if self.kernel_on() and kp.to_act(0) == self.agent_seat[agent]:
            obs, mask, seat = self._row
            kp.observe([0], obs, mask, seat)
            return {"observation": obs[0].copy(), "action_mask": mask[0].copy()}
        obs = self.deal.observation(self.agent_seat[agent])
        return {"observation": self.encoding.encode(obs), "action_mask": self.encoding.mask(obs)}

    def step(self, action) -> None:
        """Apply ``action`` (an action id) for the agent to act. Raises ValueError for an
        id that is not legal now (nothing changes)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            i = int(action)
        except (TypeError, ValueError):
            i = -1
        kp = self._kernel_play()
        if kp is not None and kp.on(0) and i in kp.legal(0):
            self._kernel_step(agent, i)
            return
        st = self.deal
        legal = st.legal_ids()
        if i not in legal:
            raise ValueError(f"{agent}: action {action!r} is not legal now; legal: "
                             f"{sorted(legal)} ({', '.join(a.text for a in st.legal_actions())})")
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {}
        st.apply_id(i)
        for a in self.agents:
            self.rewards[a] = 0
        if st.is_terminal:
            self._end_deal(st)
        else:
            self._select()
            if kp is not None:
                kp.enter(0, st) if not kp.on(0) else kp.rebase(0, st)

    def _kernel_step(self, agent, i: int) -> None:
        """`step` with the deal on the kernel: ``i`` legal there."""
        kp = self._kp
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {}
        kp.play(0, i)
        for a in self.agents:
            self.rewards[a] = 0
        if kp.due([0]):             # the deal's end, or a fact outside the play's: the engine's turn
            st = self.deal
            if st.is_terminal:
                kp.leave(0)
                self._end_deal(st)
                return
            if st.phase == "play":
                kp.rebase(0, st)
            else:
                kp.leave(0)
            self._select()
            return
        self.agent_selection = self.possible_agents[kp.to_act(0)]
        texts = self.v.actions
        self.infos[self.agent_selection]["legal_actions"] = [texts[a].text for a in kp.legal(0)]

    def step_played(self, ids) -> None:
        """Apply the action ids ``ids`` (a non-empty list) played by the seats to act one
        after another, as elsewhere (the compiled kernel's play of this deal:
        taash.learn.kernelplay): all but the last applied to the deal by the engine, the
        last by `step`, which scores the deal if it ends. Rewards, terminations and infos
        are then those of stepping them one by one. Raises the engine's
        IllegalActionError, or `step`'s ValueError for the last, for an id not legal."""
        st = self.deal
        for a in ids[:-1]:
            st.apply_id(a)
        if len(ids) > 1:
            self._select()
        self.step(ids[-1])

    def _end_deal(self, st) -> None:
        """Score a finished deal; end the episode (a deal, or the match over) or deal the
        match's next deal."""
        m = self.match
        m.finish_deal(st)
        got = rewards.deal_reward(self.v, self.reward, st.score_change())
        result = st.result()
        over = self.episode == "deal" or m.over
        if over and self.reward == "match":
            got = rewards.match_outcome(self.v, m.winners)
        for a, s in self.agent_seat.items():
            self.rewards[a] = got[s]
            self.infos[a] = {"result": result}
            if over and self.episode == "match":
                self.infos[a]["match"] = m.summary()
        self._accumulate_rewards()
        if not over:
            self.deal = m.new_deal()
            self._select()
            return
        # every agent is done: each takes its last observation and steps with None; a
        # match stopped at the deal limit is truncated
        limit = self.episode == "match" and m.ended_by == "deal limit"
        for a in self.agents:
            self.truncations[a] = limit
            self.terminations[a] = not limit
        self.agent_selection = self._deads_step_first()

    def text(self) -> str:
        """The deal as text: the state, the match score, each seat's hand, the actions."""
        st = self.deal
        deck_text = st.v.deck.text
        lines = [f"{st!r}", f"match score: {st.seat_scores()}"]
        for s in range(st.v.players):
            lines.append(f"seat {s}: {' '.join(deck_text[c] for c in st.hands[s])}")
        lines.append("actions: " + " ".join(f"{s}:{a}" for s, a in st.history))
        return "\n".join(lines)

    def render(self):
        """``"ansi"``: the deal as text (`text`); ``"human"``: that text printed, None;
        ``"rgb_array"``: the whole table as an ``(H, W, 3)`` uint8 array (`Picture.draw`;
        its size fixed by the variant). None before the first reset or without a render
        mode."""
        if self.render_mode is None or self.deal is None:
            return None
        if self.render_mode == "ansi":
            return self.text()
        if self.render_mode == "rgb_array":
            return self.picture.draw(self.deal, match=self.match)
        print(self.text(), flush=True)
        return None

    def close(self) -> None:
        self.deal = None
        self.match = None
