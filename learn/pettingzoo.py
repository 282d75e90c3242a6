"""A deal of any variant as a PettingZoo AEC environment (the ``learn`` extra).

>>> from taash.learn.pettingzoo import env
>>> e = env("29")                       # a shipped name, or a variant file's path
>>> e.reset(seed=7)
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((1158,), True)

One episode is one deal (a `Match`'s first deal, from the seed given to ``reset``).
Agents are ``seat_0`` .. ``seat_{n-1}``, the variant's seats; the agent to act is the
engine's ``to_act``. Each agent's action space is ``Discrete(len(variant.actions))``
over the variant's action table, and its observation a dict of ``observation`` (the
float32 vector of `taash.learn.encoding`, made from that seat's ``State.observation``
only) and ``action_mask`` (int8, 1 for each legal action of the seat when it is to act,
else all zeros). An action outside the mask raises ValueError and changes nothing.

Rewards come once, when the deal ends: each seat's change of the match score in the
deal, by the variant's own ``scoring.effect`` (``State.score_change()``: a seat gets its
side's change; e.g. 29 gives the declarer's side +1 when the contract is made, -1 when
not, and the other side 0). Then every agent is terminated; no truncation (every deal
ends: docs/engine.md). ``infos[agent]`` holds ``legal_actions`` (texts) for the agent
to act and, at the end, ``result`` (``State.result()``).

``env.deal`` is the engine's `State` of the deal (the whole truth: for a referee or a
test, never for a seat's agent). The same ``reset(seed=s)`` gives the same deal, and so
the same episode for the same actions. PettingZoo's ``state()`` (a global state for
centralised critics) is not offered. ``render()`` (render_mode ``"ansi"``) returns the engine's view of the deal.
"""

from __future__ import annotations

import random

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.pettingzoo", e)) from e

from taash.interpreter import Match, load_variant

from .encoding import Encoding


def env(variant="29", options: dict | None = None, render_mode: str | None = None) -> "TaashEnv":
    """The AEC environment of ``variant`` (a name, a file's path, or a loaded Variant)
    with its ``options``. Raises VariantError for a bad name, file or option."""
    return TaashEnv(variant, options, render_mode)


class TaashEnv(AECEnv):
    """One deal of a variant as an AEC environment (module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "taash_v0", "is_parallelizable": False}

    def __init__(self, variant="29", options: dict | None = None, render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.v = variant if hasattr(variant, "actions") else load_variant(variant, options)
        self.encoding = Encoding(self.v)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"taash_{self.v.ref}_v0".replace("/", "_").replace("-", "_"))
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
        self.deal = None
        self.agents = []

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new deal: from ``seed`` (an int) if given, else from the environment's
        own generator (seeded by the last seed given). ``options`` is unused."""
        if seed is not None:
            self._rng = random.Random(seed)
            deal_seed = seed
        else:
            deal_seed = self._rng.randrange(2 ** 63)
        self.deal = Match(self.v, seed=deal_seed).new_deal()
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
        self.infos[self.agent_selection] = {"legal_actions": [a.text for a in st.legal_actions()]}

    def observe(self, agent):
        """``{"observation": float32 vector, "action_mask": int8 vector}`` of ``agent``'s
        seat, from its ``State.observation`` only."""
        obs = self.deal.observation(self.agent_seat[agent])
        return {"observation": self.encoding.encode(obs), "action_mask": self.encoding.mask(obs)}

    def step(self, action) -> None:
        """Apply ``action`` (an action id) for the agent to act. Raises ValueError for an
        id that is not legal now (the deal is unchanged)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.deal
        legal = st.legal_ids()
        try:
            i = int(action)
        except (TypeError, ValueError):
            i = -1
        if i not in legal:
            raise ValueError(f"{agent}: action {action!r} is not legal now; legal: "
                             f"{sorted(legal)} ({', '.join(a.text for a in st.legal_actions())})")
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {}
        st.apply_id(i)
        if st.is_terminal:
            change = st.score_change()
            result = st.result()
            for a, s in self.agent_seat.items():
                self.rewards[a] = change[s]
                self.terminations[a] = True
                self.infos[a] = {"result": result}
            self._accumulate_rewards()
            # every agent is done: each takes its last observation and steps with None
            self.agent_selection = self._deads_step_first()
        else:
            for a in self.agents:
                self.rewards[a] = 0
            self._select()

    def render(self):
        """The deal as text (render_mode ``"ansi"``), or None."""
        if self.render_mode != "ansi" or self.deal is None:
            return None
        st = self.deal
        text = st.v.deck.text
        lines = [repr(st)]
        for s in range(st.v.players):
            lines.append(f"seat {s}: {' '.join(text[c] for c in st.hands[s])}")
        lines.append("actions: " + " ".join(f"{s}:{a}" for s, a in st.history))
        return "\n".join(lines)

    def close(self) -> None:
        self.deal = None
