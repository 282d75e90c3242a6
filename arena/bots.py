"""Built-in bots that play through the engine's public contract."""

from __future__ import annotations

import random


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed=0):
        self.rng = random.Random(seed)

    def decide(self, observation: dict, legal_actions: list[str]) -> str:
        """One legal action (a text form), uniformly at random."""
        return legal_actions[self.rng.randrange(len(legal_actions))]
