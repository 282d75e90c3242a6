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


class ObservationRandomBot:
    """Uniform among the legal actions, drawn from a generator seeded by ``seed`` and the
    observation itself: the same seat in the same situation makes the same choice, so an
    arena match with these bots is the same game for the same match seed, however many
    games the bot plays at once."""

    name = "random"

    def __init__(self, seed=0):
        self.seed = str(seed)

    def decide(self, observation: dict, legal_actions: list[str], game=None) -> str:
        """One legal action, a function of (seed, observation, legal actions)."""
        import hashlib
        import json
        key = json.dumps([self.seed, observation, legal_actions], sort_keys=True, separators=(",", ":"))
        h = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
        return legal_actions[h % len(legal_actions)]


class VariantHeuristicBot:
    """The heuristic bot (arena.heuristic) for any game: it builds one HeuristicBot per
    variant from the variant data the arena sends (``game.variant_data``)."""

    name = "heuristic"

    def __init__(self):
        self._by_variant = {}

    def decide(self, observation: dict, legal_actions: list[str], game=None) -> str:
        """One legal action chosen by the heuristic for this game's variant."""
        import json
        from .heuristic import HeuristicBot
        extra = getattr(game, "extra", None)
        bot = extra.get("heuristic") if extra is not None else None
        if bot is None:
            data = getattr(game, "variant_data", None) or {}
            key = json.dumps(data, sort_keys=True)
            bot = self._by_variant.get(key)
            if bot is None:
                bot = self._by_variant[key] = HeuristicBot(data)
            if extra is not None:
                extra["heuristic"] = bot
        return bot.decide(observation, legal_actions)
