"""Bad input to the engine's API is a TaashError of its kind (docs/engine.md, "Errors"),
still a ValueError, and changes nothing."""

from __future__ import annotations

import random

import pytest

import taash.interpreter as interpreter
from taash.interpreter import Match, State, StateError, TaashError, load_variant


def _refused(f):
    with pytest.raises(StateError) as e:
        f()
    assert isinstance(e.value, TaashError) and isinstance(e.value, ValueError)
    return str(e.value)


def test_arguments_refused_for_what_they_are():
    v = load_variant("29")
    st = State(v, seed=3)
    before = (st.to_act, [h[:] for h in st.hands], list(st.history))
    assert _refused(lambda: st.observation(99)) == "seat must be 0..3, not 99"
    assert _refused(lambda: st.observation("0")) == "seat must be 0..3, not '0'"
    assert _refused(lambda: st.resample(-1, random.Random(1))) == "seat must be 0..3, not -1"
    assert (st.to_act, st.hands, st.history) == before
    assert _refused(lambda: State(v, dealer=9)) == "dealer must be a seat 0..3, not 9"
    assert _refused(lambda: State(v, hands=[["XX"]] * 4)) == "seat 0 has 1 cards; each seat is dealt 8"
    assert _refused(lambda: State(v, hands=[["XX"] * 8] * 4)) == "'XX' is not a card of this deck"
    deck = v.deck.cards()
    twice = [deck[:8]] * 4      # every seat dealt the same 8 cards
    assert "the deck has 1" in _refused(lambda: State(v, hands=twice))


def test_calls_out_of_turn_refused():
    v = load_variant("29")
    m = Match(v, seed=5)
    st = m.new_deal()
    assert _refused(lambda: m.finish_deal(st)) == "the deal is not over"
    while st.to_act >= 0:
        st.apply(st.legal_actions()[0])
    assert _refused(st.default_action) == "the deal is over: no seat is to act"
    m.finish_deal(st)
    counted = Match(v, seed=5, keep_deals=False)
    st = counted.new_deal()
    while st.to_act >= 0:
        st.apply(st.legal_actions()[0])
    counted.finish_deal(st)
    assert "kept no deals" in _refused(counted.record)


def test_the_errors_are_exported():
    for name in ("TaashError", "VariantError", "ActionError", "InvalidActionError", "IllegalActionError",
                 "RecordError", "StateError", "ResampleError"):
        assert issubclass(getattr(interpreter, name), TaashError), name
        assert name in interpreter.__all__, name



def test_every_error_class_of_taash_is_a_taash_error():
    """Every exception class defined in taash (the engine, the arena, the learners) is a
    TaashError (docs/engine.md, "Errors"; arena/errors.py): one root to catch. A
    BaseException that is no Exception (the ladder's DecisionTimeout, which no `except
    Exception` may swallow) is a signal, not an error, and is left out."""
    import ast
    import importlib

    from tests.imports import modules

    found = []
    for mod, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
            if any(b == "Exception" or b.endswith("Error") or (b.endswith("Exception") and b != "BaseException")
                   for b in bases):
                found.append((mod, node.name))
    assert ("taash.interpreter.dsl.names", "RegistryError") in found
    assert ("taash.learn.policy", "PolicyError") in found
    assert ("taash.arena.server.loading", "Refused") in found
    outside = []
    for mod, name in found:
        cls = getattr(importlib.import_module(mod), name)
        if not issubclass(cls, TaashError):
            outside.append(f"{mod}.{name}")
    assert outside == []
