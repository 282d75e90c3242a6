"""The rewards a learner chooses (taash.learn.rewards), worked out by hand from the rules:
the margin and the match outcome, what is zero-sum, and the found bounds against the
largest change each shipped variant's scoring can give."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from taash.interpreter import load_variant
from taash.learn import rewards


def test_margin_of_a_fixed_partnership_is_side_minus_side():
    # 29 (seats 0, 2 against 1, 3): the declarer's side makes its contract, +1; the other 0
    v = load_variant("29")
    assert rewards.margin(v, [1, 0, 1, 0]) == [1.0, -1.0, 1.0, -1.0]
    # 56 (three against three): a redoubled 49 lost, 4 x 4 = 16 tables each way (§56.7)
    v = load_variant("56")
    assert rewards.margin(v, [-16, 16, -16, 16, -16, 16]) == [-32.0, 32.0] * 3


def test_margin_without_fixed_partnerships_is_against_every_other_seat():
    # 304: declarer 0 and partner 2 make a slam, 4 each, the defenders 0 (§304.11):
    # seat 0: 4 - (0 + 4 + 0) / 3 = 8/3; seat 1: 0 - (4 + 4 + 0) / 3 = -8/3
    v = load_variant("304")
    got = rewards.margin(v, [4, 0, 4, 0])
    assert got == pytest.approx([8 / 3, -8 / 3, 8 / 3, -8 / 3])
    # 304-solo: the declarer alone loses 1: -1 - 0 = -1; each defender 0 - (-1 + 0) / 2
    v = load_variant("304-solo")
    assert rewards.margin(v, [0, -1, 0]) == pytest.approx([0.5, -1.0, 0.5])


def test_the_match_outcome():
    v = load_variant("29")
    assert rewards.match_outcome(v, [1, 3]) == [-1.0, 1.0, -1.0, 1.0]
    assert rewards.match_outcome(v, []) == [0.0] * 4            # stopped at the deal limit
    v = load_variant("304-solo")
    assert rewards.match_outcome(v, [2]) == [-0.5, -0.5, 1.0]
    assert rewards.match_outcome(v, [0, 2]) == [0.5, -1.0, 0.5]  # equal top totals share it


@pytest.mark.parametrize("name", ["29", "304", "304-solo", "56", "house/56-8p-48-cards"])
@settings(deadline=None)              # the first example loads the variant
@given(values=st.lists(st.integers(-64, 64), min_size=8, max_size=8))
def test_margin_is_zero_sum_where_it_says_so(name, values):
    v = load_variant(name)
    assert rewards.zero_sum(v, "margin") and rewards.zero_sum(v, "match")
    assert not rewards.zero_sum(v, "score")
    per_seat = [values[v.side_of[s]] for s in range(v.players)] if v.score_unit == "side" else values[:v.players]
    assert sum(rewards.margin(v, per_seat)) == pytest.approx(0, abs=1e-9)


# the largest |score change| of one seat in one deal and the largest |margin|, by hand from
# each file's scoring (docs/rules.md)
BY_HAND = {
    "29": (1, 1),                        # §29.8: +-1 for the declarer's side, 0 for the other
    "28": (1, 1),                        # §28.11: the same
    "court-piece": (2, 2),               # all thirteen tricks: 2 to the winners, 0 to the others
    "56": (16, 32),                      # §56.7: a bid of 49+ lost, 3 + 1, redoubled x4, both ways
    "304": (4, 8 / 3),                   # §304.11: a slam made, 4 to declarer and partner
    "304-solo": (4, 4),                  # the declarer alone: 4 against two zeros
    "house/29-double": (4, 4),           # redoubled: 4
    "house/29-single-hand": (3, 3),      # the single hand: a stake of 3
}


@pytest.mark.parametrize("name", sorted(BY_HAND))
def test_the_found_bounds_are_the_largest_changes_by_hand(name):
    score, margin = BY_HAND[name]
    assert rewards.found_bounds(load_variant(name)) == pytest.approx((score, margin))


def test_bounds_by_reward_and_episode():
    v = load_variant("56")
    assert rewards.bound(v, "score", "deal") == 16
    assert rewards.bound(v, "margin", "deal") == 32
    assert rewards.bound(v, "margin", "match") == 32 * v.max_deals
    assert rewards.bound(v, "match", "match") == 1


def test_bad_choices_are_refused():
    with pytest.raises(ValueError, match="reward must be one of score, margin, match, not 'win'"):
        rewards.check("win", "deal")
    with pytest.raises(ValueError, match="episode must be one of deal, match, not 'game'"):
        rewards.check("score", "game")
    with pytest.raises(ValueError, match="needs episode 'match'"):
        rewards.check("match", "deal")
