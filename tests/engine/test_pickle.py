"""Pickling a Variant and a State (docs/engine.md, "Pickling"): a Variant travels as what it
was loaded from (its ref and options) and is loaded again once per process; a State as its
variant and its plain fields. The copy plays the same game: the same legal actions, the
same observation for every seat, the same result after the same actions. Property-style:
every shipped variant (house rules included) and options, random prefixes of play."""

from __future__ import annotations

import dataclasses
import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from taash.interpreter import Match, State, VariantError, load_variant, shipped_variants
from taash.interpreter import variant as variant_module
from taash.interpreter.engine import state_class

# every shipped variant, and the 56 with options that change its players and deck
CASES = [(name, None) for name in shipped_variants()] + [
    ("56", {"players": 4, "short_deck": True}), ("56", {"players": 8})]


def same_game(a: State, b: State) -> None:
    """``a`` and ``b`` are at the same point of the same deal: legal actions, every seat's
    observation (and its JSON), the phase, the scores and the repr agree."""
    assert b.legal_actions() == a.legal_actions()
    assert b.legal_ids() == a.legal_ids()
    assert [b.observation(s) for s in range(a.v.players)] == [a.observation(s) for s in range(a.v.players)]
    assert [b.observation_json(s) for s in range(a.v.players)] == \
           [a.observation_json(s) for s in range(a.v.players)]
    assert (b.phase, b.to_act, b.scores, b.vars) == (a.phase, a.to_act, a.scores, a.vars)
    assert repr(b) == repr(a)


def play_on(a: State, b: State, rng: random.Random) -> None:
    """Play ``a`` and ``b`` to the end with the same random actions, checking at each step."""
    while not a.is_terminal:
        same_game(a, b)
        i = rng.choice(a.legal_ids())
        a.apply_id(i)
        b.apply_id(i)
    same_game(a, b)
    assert b.result() == a.result()
    assert b.actions() == a.actions()


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}{'+' if o else ''}" for n, o in CASES])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**32 - 1), prefix=hs.integers(0, 60))
def test_an_unpickled_state_plays_the_same_game(name, options, seed, prefix):
    v = load_variant(name, options)
    rng = random.Random(seed)
    st = Match(v, seed).new_deal()
    for _ in range(prefix):
        if st.is_terminal:
            break
        st.apply_id(rng.choice(st.legal_ids()))
    back = pickle.loads(pickle.dumps(st))
    assert type(back) is type(st) is state_class(v)
    assert back.v is v                          # the same Variant in this process
    copy = pickle.loads(pickle.dumps(st.copy()))  # a copy pickles as well
    same_game(st, copy)
    play_on(st.copy(), back, random.Random(seed + 1))
    play_on(st, copy, random.Random(seed + 1))


@pytest.mark.parametrize("name,options", [("house/29-double", None), ("304", None),
                                          ("56", {"players": 4, "short_deck": True}),
                                          ("house/28-seventh-card", None)])
def test_a_state_unpickled_in_a_fresh_process_plays_the_same_game(name, options, monkeypatch):
    """With no Variant of that key in the process (as in another process), unpickling
    loads the variant again, once for every State of it."""
    v = load_variant(name, options)
    rng = random.Random(name)
    states = []
    for deal in range(3):
        st = State(v, dealer=deal % v.players, seed=deal)
        for _ in range(rng.randrange(1, 40)):
            if st.is_terminal:
                break
            st.apply_id(rng.choice(st.legal_ids()))
        states.append(st)
    blob = pickle.dumps(states)
    monkeypatch.setattr(variant_module, "_LOADED", type(variant_module._LOADED)())
    back = pickle.loads(blob)
    assert back[0].v is not v and all(b.v is back[0].v for b in back)  # loaded once
    assert back[0].v.options == v.options and back[0].v.digest == v.digest
    for st, b in zip(states, back):
        play_on(st, b, random.Random(7))


def test_a_variant_pickles_as_what_it_was_loaded_from():
    v = load_variant("56", {"players": 4, "short_deck": True})
    blob = pickle.dumps(v)
    assert len(blob) < 300                      # its name, options and sha256, not its rules
    assert pickle.loads(blob) is v
    assert pickle.loads(pickle.dumps(load_variant("29"))).name == "29"


def test_a_file_outside_variants_travels_as_its_data(tmp_path, monkeypatch):
    """A house rule of one's own pickles as its merged data (what it extends included),
    so the copy plays the same game where the file is not (another machine, or gone)."""
    path = tmp_path / "mine.yaml"
    path.write_text('extends: "29"\nname: mine\nplay:\n  leader: declarer\n', encoding="utf-8")
    v = load_variant(path)
    st = State(v, dealer=1, seed=4)
    for _ in range(9):
        st.apply_id(st.legal_ids()[-1])
    blob = pickle.dumps(st)
    path.unlink()
    monkeypatch.setattr(variant_module, "_LOADED", type(variant_module._LOADED)())
    back = pickle.loads(blob)
    assert back.v is not v and back.v.digest == v.digest and back.v.ref == str(path)
    play_on(st, back, random.Random(3))


def test_a_changed_shipped_variant_is_refused(monkeypatch):
    """Unpickling a State of a shipped variant whose file changed since (another sha256)
    raises VariantError rather than play another game."""
    monkeypatch.setattr(variant_module, "_LOADED", type(variant_module._LOADED)())
    with pytest.raises(VariantError, match="changed since"):
        variant_module.restore("29", (), "0" * 64)


def test_a_variant_is_never_changed():
    v = load_variant("29")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.players = 6
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.play_legal = None


def test_reprs_say_what_they_are():
    v = load_variant("29")
    assert repr(v) == "<Variant 29 'Twenty-nine' 4 players>"
    st = State(v, dealer=0, seed=3)
    assert repr(st) == "<State 29 deal 1 auction, seat 1 to act>"
    while st.phase != "play":
        st.apply_id(st.legal_ids()[0] if st.phase != "auction" or st.bid else st.legal_ids()[1])
    for _ in range(4 * 4 + 1):                  # four tricks and a lead
        st.apply_id(st.legal_ids()[-1])
    assert repr(st) == f"<State 29 deal 1 play trick 5, seat {st.to_act} to act>"
    while not st.is_terminal:
        st.apply_id(st.legal_ids()[-1])
    assert repr(st) == "<State 29 deal 1 done>"
