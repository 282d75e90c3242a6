"""One side of a variant as a single-agent Gymnasium environment, the other seats played
by a bot (the ``learn`` extra).

>>> from taash.learn.single import SeatEnv
>>> e = SeatEnv("29", against="random")
>>> obs, info = e.reset(seed=3)
>>> obs.shape, int(e.action_masks().sum()) > 0
((1159,), True)

Single-agent libraries (Stable-Baselines3 and its maskable PPO, CleanRL-style scripts)
train on a Gymnasium ``Env``; this one is the PettingZoo environment
(`taash.learn.pettingzoo`) seen from one side. Each episode (a deal, or a match with
``episode="match"``) the learner holds every seat of one side (a fixed partnership: its
seats; otherwise one seat), the sides taking turns episode by episode
(`taash.learn.train.learner_seats`); every other seat is played by ``against``
(``random``, or any bot of the registry: `taash.learn.train.opponent`). The learner
acts for whichever of its seats is to act; the encoding is relative to that seat, so
one policy plays them all.

- Observation: the float32 encoding of the learner's seat to act (`Encoding`), a ``Box``
  of the encoding's size; all zeros once the episode is over.
- Action: ``Discrete(len(variant.actions))``; ``action_masks()`` gives the legal ones
  (bool), as sb3-contrib's ``MaskablePPO`` asks. An illegal action raises ValueError.
- Reward: the PettingZoo environment's reward of the learner's seat (default
  ``"margin"``, zero-sum: the learner's side against the other), as it comes.
- ``reset(seed=S)`` makes episode ``k`` from (S, k); the same seed, the same episodes for
  the same actions (the ``random`` opponent draws from a generator seeded by S too).
"""

from __future__ import annotations

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import gymnasium
    import numpy as np
    from gymnasium import spaces
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.single", e)) from e

from .pettingzoo import TaashEnv
from .train import deal_seed, learner_seats, opponent, turns


class SeatEnv(gymnasium.Env):
    """One side against a bot (module docstring). Raises VariantError for a bad variant,
    UnknownBotError for a bad ``against``, ValueError for a bad reward or episode."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, variant="29", against: str = "random", reward: str = "margin", episode: str = "deal",
                 seed: int = 0, options: dict | None = None, render_mode: str | None = None):
        self.aec = TaashEnv(variant, options, render_mode, reward, episode)
        self.v = self.aec.v
        self.against = against
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-np.inf, np.inf, (self.aec.encoding.size,), np.float32)
        self.action_space = spaces.Discrete(len(self.v.actions))
        self._seed = seed
        self._episodes = 0
        self._other = opponent(self.v, against, seed)
        self._mine: list[str] = []
        self._mask = np.zeros(len(self.v.actions), bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start the next episode (from ``seed`` when given: module docstring)."""
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._episodes = seed, 0
            self._other = opponent(self.v, self.against, seed)
        k = self._episodes
        self._episodes += 1
        self.aec.reset(seed=deal_seed(self._seed, k))
        self._mine = [self.aec.possible_agents[s] for s in learner_seats(self.v, k % turns(self.v))]
        obs, _, done, truncated = self._advance()
        return obs, {"seats": learner_seats(self.v, k % turns(self.v))}

    def _advance(self):
        """Let the other seats act until a learner's seat is to act or the episode ends:
        (observation, reward gathered, terminated, truncated)."""
        e = self.aec
        got = 0.0
        while True:
            if all(e.terminations[a] or e.truncations[a] for a in e.agents):
                self._mask[:] = False
                trunc = any(e.truncations[a] for a in self._mine)
                return np.zeros(self.observation_space.shape, np.float32), got, not trunc, trunc
            agent = e.agent_selection
            if agent in self._mine:
                obs = e.observe(agent)
                self._mask = obs["action_mask"].astype(bool)
                return obs["observation"], got, False, False
            e.step(self._other(e.deal, e.agent_seat[agent]))
            got += e.rewards[self._mine[0]]

    def step(self, action):
        """Apply the learner's ``action`` (an id), then the other seats' until the
        learner is to act again: (observation, reward, terminated, truncated, info)."""
        e = self.aec
        e.step(int(action))
        reward = e.rewards[self._mine[0]]
        obs, more, done, truncated = self._advance()
        return obs, float(reward + more), done, truncated, {}

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's seat to act (bool over the action table)."""
        return self._mask.copy()

    def render(self):
        """As `taash.learn.pettingzoo.TaashEnv.render`: ``"human"``, the deal as text printed;
        ``"ansi"``, that text; ``"rgb_array"``, the whole table as an ``(H, W, 3)`` uint8
        array; None without a render mode."""
        return self.aec.render()
