"""taash.interpreter.draws: the same permutations as random.shuffle (deals and resamples hang
on it: a difference would change every seeded deal)."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from taash.interpreter.draws import shuffle


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64), n=st.integers(min_value=0, max_value=70),
       draws_before=st.integers(min_value=0, max_value=5))
def test_shuffle_is_random_shuffle(seed, n, draws_before):
    a, b = random.Random(seed), random.Random(seed)
    for _ in range(draws_before):          # from any point of the generator's stream
        a.random(), b.random()
    x, y = list(range(n)), list(range(n))
    a.shuffle(x)
    shuffle(y, b)
    assert y == x
    assert a.random() == b.random()        # and the generator is left in the same state


class OnlyRandom(random.Random):
    """A generator that overrides random() alone: random.shuffle then draws with random()."""

    def random(self):
        return super().random()


class Duck:
    """Not a random.Random: an object with a shuffle of its own."""

    def __init__(self):
        self.called = 0

    def shuffle(self, x):
        self.called += 1
        x.reverse()


def test_other_generators_shuffle_their_own_way():
    x, y = list(range(20)), list(range(20))
    OnlyRandom(5).shuffle(x)
    shuffle(y, OnlyRandom(5))
    assert y == x
    d = Duck()
    z = [1, 2, 3]
    shuffle(z, d)
    assert d.called == 1 and z == [3, 2, 1]
