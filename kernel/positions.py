"""Positions to run the kernel and the engine from, side by side: the deals of the
differential tests (tests/kernel) and of bench/kernel.py.

    to_play(st, rng)                       # random legal actions until the play phase
    positions(v, 20, seed=1)               # 20 states at the first lead
    positions(v, 20, seed=1, later=True)   # a few random plays after it, a choice to make
    at_random(v, seed, depth)              # one deal, played at random to depth actions into play
    before_play(v, 6, seed=11)             # 6 states before the play phase, a choice to make
"""

from __future__ import annotations

import random

from taash.interpreter import State

__all__ = ["at_random", "before_play", "positions", "to_play"]


def to_play(st: State, rng: random.Random) -> bool:
    """Play uniformly random legal actions (drawn by ``rng``) on ``st`` until the play
    phase or the end of the deal; whether the play phase was reached."""
    while st.phase != "play" and not st.is_terminal:
        legal = st.legal_ids()
        st.apply_id(legal[rng.randrange(len(legal))])
    return st.phase == "play"


def positions(v, count: int, seed: int, later: bool = False) -> list[State]:
    """``count`` states of variant ``v`` in the play phase: deal k dealt from seed
    ``seed * 100003 + k`` (dealer k modulo the seats) and played at random to the first
    lead (deals whose auction ends the deal are skipped); with ``later``, then 0 to
    ``3 * players - 1`` more random actions, keeping only states before the end whose
    seat to act has a choice (two legal actions or more). The same arguments give the
    same states."""
    rng = random.Random(seed)
    out = []
    k = 0
    while len(out) < count:
        st = State(v, dealer=k % v.players, seed=seed * 100003 + k)
        k += 1
        if not to_play(st, rng):
            continue
        if later:
            for _ in range(rng.randrange(3 * v.players)):
                if st.is_terminal:
                    break
                legal = st.legal_ids()
                st.apply_id(legal[rng.randrange(len(legal))])
            if st.is_terminal or len(st.legal_ids()) < 2:
                continue
        out.append(st)
    return out


def at_random(v, seed: int, depth: int) -> State | None:
    """A state of variant ``v``: the deal of seed ``seed`` (dealer ``seed`` modulo the
    seats) played at random (a generator seeded with ``seed``) to the play phase and then
    ``depth`` more random actions, or fewer if the deal ends (the property tests' random
    positions); None when its auction ends the deal."""
    rng = random.Random(seed)
    st = State(v, dealer=seed % v.players, seed=seed)
    if not to_play(st, rng):
        return None
    for _ in range(depth):
        if st.is_terminal:
            break
        legal = st.legal_ids()
        st.apply_id(legal[rng.randrange(len(legal))])
    return st


def before_play(v, count: int, seed: int) -> list[State]:
    """``count`` states of variant ``v`` before the play phase (the auction, the trump, a
    partner call, an exchange) whose seat to act has a choice: deal k dealt from seed
    ``seed * 100003 + k`` (dealer k modulo the seats), then 0 to ``3 * players - 1``
    random actions while it stays before the play with a choice. Fewer when 50 deals a
    state do not give them. The same arguments give the same states."""
    rng = random.Random(seed)
    out, k = [], 0
    while len(out) < count and k < 50 * count:
        st = State(v, dealer=k % v.players, seed=seed * 100003 + k)
        k += 1
        for _ in range(rng.randrange(3 * v.players)):
            if st.phase == "play" or st.is_terminal or len(st.legal_ids()) < 2:
                break
            legal = st.legal_ids()
            st.apply_id(legal[rng.randrange(len(legal))])
        if st.phase != "play" and not st.is_terminal and len(st.legal_ids()) >= 2:
            out.append(st)
    return out
