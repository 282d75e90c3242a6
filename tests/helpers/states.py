"""States reached by seeded random play, for the tests of the search bots."""

from __future__ import annotations

import random

from taash.interpreter import Match, load_variant


def random_states(name, count, seed):
    """``count`` states of ``name`` reached by random play (seeded), with a seat to act
    that has a choice: (variant, state)."""
    v = load_variant(name)
    rng = random.Random(seed)
    out = []
    k = 0
    while len(out) < count:
        st = Match(v, seed * 1000 + k).new_deal()
        k += 1
        stop = rng.randrange(v.tricks * v.players + 12)
        while not st.is_terminal and len(st.history) < stop:
            st.apply(rng.choice(st.legal_actions()))
        if not st.is_terminal and len(st.legal_ids()) > 1:
            out.append((v, st))
    return out
