"""`State.from_observation` (interpreter/information.py): a State rebuilt from one seat's
observation alone, as OpenSpiel's ResampleFromInfostate does from an information state."""

from __future__ import annotations

import json
import random

import pytest

from taash.interpreter import State, StateError, load_variant, shipped_variants
from taash.interpreter.errors import TaashError
from taash.interpreter.information import RebuildError
from tests.helpers.states import random_states


@pytest.mark.parametrize("name", shipped_variants())
def test_the_rebuilt_state_gives_the_seat_its_very_observation(name):
    """Property: at random states, the State rebuilt from the seat's observation (as JSON
    read back, as the arena sends it) gives that seat the same observation, holds its
    hand, and replays the same history."""
    for v, st in random_states(name, 5, seed=len(name) + 11):
        seat = st.to_act
        obs = json.loads(json.dumps(st.observation(seat)))
        back = State.from_observation(v, obs, random.Random(4))
        assert isinstance(back, State)
        assert back.observation(seat) == st.observation(seat)
        assert back.hands[seat] == st.hands[seat]
        shown = [(s, str(st.public_action(s, a, seat))) for s, a in st.history]
        assert [(s, str(back.public_action(s, a, seat))) for s, a in back.history] == shown


def test_the_same_seed_rebuilds_the_same_deal():
    v = load_variant("304")
    for _, st in random_states("304", 3, seed=2):
        obs = st.observation(st.to_act)
        a = State.from_observation(v, obs, 9)
        b = State.from_observation(v, obs, random.Random(9))
        assert a.dealt == b.dealt and a.widow == b.widow


def test_an_observation_no_deal_fits_is_refused():
    """An observation whose history cannot be replayed: the seat to act holds a card it
    already played in the trick. No deal fits it: RebuildError (a TaashError)."""
    v = load_variant("29")
    st = State(v, seed=1)
    while st.phase != "play":
        st.apply_id(st.legal_ids()[0])
    leader = st.to_act
    card = st.legal_actions()[0]
    st.apply(card)
    seat = st.to_act
    obs = json.loads(json.dumps(st.observation(seat)))
    obs["hand"][0] = card.arg            # the card led, shown in the seat's own hand too
    assert leader != seat
    with pytest.raises(RebuildError) as err:
        State.from_observation(v, obs, 1)
    assert isinstance(err.value, TaashError)


def test_a_seat_that_is_not_one_is_refused():
    v = load_variant("28")
    obs = State(v, seed=3).observation(0)
    obs["seat"] = 7
    with pytest.raises(StateError, match="seat must be 0..3"):
        State.from_observation(v, obs, 0)
