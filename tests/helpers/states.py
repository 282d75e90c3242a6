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
        if play_to_a_choice(v, st, rng):
            out.append((v, st))
    return out


def play_to_a_choice(v, st, rng) -> bool:
    """Play ``st`` at random (``rng``) to a random point; whether the seat to act there has
    a choice (the deal not over, more than one legal action)."""
    stop = rng.randrange(v.tricks * v.players + 12)
    while not st.is_terminal and len(st.history) < stop:
        st.apply(rng.choice(st.legal_actions()))
    return not st.is_terminal and len(st.legal_ids()) > 1


def later_deal_states(name, deals, seed):
    """States of the deal after ``deals`` deals of seeded matches of ``name`` played at
    random (four matches, one state each at most), at a random point with a choice for
    the seat to act: what the deals before carried (scores, the dealer, match-scope
    variables) is in them. (variant, state) pairs."""
    v = load_variant(name)
    rng = random.Random(seed)
    out = []
    for k in range(4):
        m = Match(v, seed * 100 + k)
        for _ in range(deals):
            if m.over:
                break
            st = m.new_deal()
            while not st.is_terminal:
                st.apply(rng.choice(st.legal_actions()))
            m.finish_deal(st)
        if not m.over:
            st = m.new_deal()
            if play_to_a_choice(v, st, rng):
                out.append((v, st))
    return out


def same_choices(make, name, count):
    """Two bots made alike (``make(variant)``), one of which first decides in other
    states, choose the same action in each of ``count`` random states of ``name``, by
    state and by observation. Returns the pairs (one, two) for further checks."""
    pairs = []
    for v, st in random_states(name, count, seed=3):
        seat = st.to_act
        one, two = make(v), make(v)
        for _, s2 in random_states(name, 2, seed=11):     # other work in between
            two.decide_state(s2, s2.to_act)
        a = one.decide_state(st, seat)
        assert two.decide_state(st, seat) == a
        pairs.append((one, two))
        obs = st.observation(seat)
        legal = [str(x) for x in st.legal_actions()]
        assert one.decide(obs, legal) == two.decide(obs, legal)
    return pairs
