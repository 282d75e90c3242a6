"""The ``random`` bot: uniform among the legal actions, through the engine's public
contract (taash.interpreter.playout, docs/protocol.md); registered by name in
`taash.arena.bots.registry`."""

from __future__ import annotations

import hashlib
import json
import random


class RandomBot:
    """Uniform among the legal actions, drawn from its own generator seeded by ``seed``
    (one stream: the n-th decision gets the n-th draw)."""

    name = "random"

    def __init__(self, seed=0):
        self.seed = seed
        self.rng = random.Random(seed)
        # randrange(n) for n >= 1 is _randbelow(n): the same draws, one call fewer
        self._randrange = self.rng._randbelow
        self._getrandbits = self.rng.getrandbits

    def decide(self, observation: dict, legal_actions: list[str]) -> str:
        """One legal action (a text form), uniformly at random (``observation`` unused).
        Raises ValueError when there is none."""
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        return legal_actions[self._randrange(len(legal_actions))]

    def decide_state(self, state, seat: int) -> int:
        """As a state agent: the same draw among ``state.legal_ids()``, answered as the
        action's id; reads nothing else, so no observation is built (the fast path of
        `taash simulate`)."""
        legal = state.legal_ids()
        n = len(legal)
        if not n:
            raise ValueError("no legal action to choose from: the deal is over")
        # randrange(n) written out (random._randbelow_with_getrandbits): the same draw,
        # no call of its own (this is simulate's hot path)
        k = n.bit_length()
        r = self._getrandbits(k)
        while r >= n:
            r = self._getrandbits(k)
        return legal[r]


class ObservationRandomBot(RandomBot):
    """The registered ``random`` bot. As an observation agent (the arena, the ladder) it
    is uniform among the legal actions, drawn from a hash of (``seed``, observation, legal
    actions): the same seat in the same situation makes the same choice, so an arena
    match with these bots is the same game for the same match seed, however many games
    the bot plays at once, and the same game as in an in-process ladder. As a state agent
    (`taash simulate`) it draws from the stream of `RandomBot` instead: the same
    distribution, other draws, and no observation to build."""

    def decide(self, observation: dict, legal_actions: list[str], game=None) -> str:
        """One legal action, a function of (seed, observation, legal actions)."""
        key = json.dumps([str(self.seed), observation, legal_actions], sort_keys=True, separators=(",", ":"))
        h = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
        return legal_actions[h % len(legal_actions)]


def random_bot(variant=None, seed=0) -> ObservationRandomBot:
    """Registry factory of ``random`` (``variant`` unused)."""
    return ObservationRandomBot(seed)
