"""The variant's generated ``apply_id`` (dsl.Compiler.build_play_step) against the
engine's own `State.apply_id`: the same state after every action of random games, in
every shipped variant, and the same errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from taash.interpreter import IllegalActionError, InvalidActionError, State, load_variant, shipped_variants
from taash.interpreter.engine import FIELDS, state_class

COMPARED = [f for group in FIELDS.values() for f in group if f not in ("_legal", "_legal_actions")]


def fields(st: State) -> dict:
    return {f: getattr(st, f) for f in COMPARED}


# and two files that are not shipped: the guide's worked example (trump set after a trick)
# and a test variant with cards held in different numbers and play.after_card
_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [str(_ROOT / "docs" / "examples" / "queen-hunt.yaml"),
            str(_ROOT / "tests" / "variants" / "mixed-copies.yaml")]


@pytest.mark.parametrize("name", shipped_variants() + EXAMPLES)
def test_generated_apply_id_is_the_engines(name):
    v = load_variant(name)
    assert type(State(v)) is state_class(v) and state_class(v) is not State
    rng = random.Random(name)
    plays = 0
    for deal in range(12):
        fast = State(v, dealer=deal % v.players, seed=rng.random())
        slow = fast.copy()
        assert type(slow) is state_class(v)      # copy keeps the class
        while fast.to_act >= 0:
            legal = fast.legal_ids()
            assert legal == slow.legal_ids()
            i = legal[rng.randrange(len(legal))]
            plays += i < v.deck.size
            fast.apply_id(i)
            State.apply_id(slow, i)             # the engine's method, not the variant's
            assert fields(fast) == fields(slow)
        assert fast.legal_ids() == slow.legal_ids() == []
    assert plays > 12 * v.tricks * v.players // 2   # the generated path was taken


def test_generated_apply_id_refuses_as_the_engine_does():
    v = load_variant("29")
    st = State(v, seed=3)
    while st.phase != "play":
        st.apply_id(st.legal_ids()[0])
    before = fields(st)
    hand = list(st.hands[st.to_act])
    other = next(c for c in range(v.deck.size) if c not in hand)
    with pytest.raises(IllegalActionError):
        st.apply_id(other)                      # a card, not in the hand
    with pytest.raises(InvalidActionError):
        st.apply_id(10_000)                     # no action of the variant
    with pytest.raises(InvalidActionError):
        st.apply_id("play JH")                  # text is for apply()
    assert fields(st) == before                 # refused: unchanged
    st.apply_id(st.legal_ids()[-1])
    assert st.history[-1][1].id in hand


def test_the_generated_source_holds_the_variants_rules_only_as_checked():
    v = load_variant("29")
    src = v.play_step_source
    assert src.startswith("def apply_id(s, i):")
    # the 29's marriage test (its declaration's `when`) is in it, and no question test:
    # none can be pending after a play
    assert "declared_keys" in src and "question" not in src
