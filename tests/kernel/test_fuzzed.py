"""The kernel against the engine on fuzzed files: rules of the play and the scoring
generated at random (type-directed, the loader's fuzzer's, tests/dsl/test_fuzz.py) in a
file that extends 29. A file that loads is compiled (or told, in words, why not) and its
deals played in lockstep on both: the same legal actions and the same facts at every
step."""

from __future__ import annotations

import random
import warnings

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from taash.interpreter import RuleError, State, VariantError, load_variant
from taash.kernel import KernelFallback, kernel_for, why_not
from taash.kernel.positions import to_play

from tests.dsl.test_fuzz import SLOTS, rule_file, rule_text, write_tmp

from .test_differential import lockstep

pytestmark = pytest.mark.slow

# the hooks the kernel runs (taash.kernel.source.PLAY_HOOKS but the leader, which the
# engine runs before the play)
KERNEL_SLOTS = ["play.may_play", "play.counts_as_trump", "play.may_expose", "play.after_trick",
                "play.after_card", "scoring.made", "scoring.effect"]


@st.composite
def kernel_rule(draw):
    slot = draw(st.sampled_from(KERNEL_SLOTS))
    return slot, draw(rule_text(slot))


@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(sr=kernel_rule())
def test_fuzzed_rules_play_alike_on_the_kernel(sr, kernel_cache):
    slot, rule = sr
    text, _, _ = rule_file(SLOTS[slot][0], rule)
    try:
        v = load_variant(write_tmp(text, "kernel-fuzz.yaml"))
    except VariantError:
        event("refused by the loader")
        return                                   # located problems: the loader's fuzzer's part
    reason = why_not(v)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        k = kernel_for(v, kernel_cache)
    if k is None:                                # told once, in words, with the same reason
        assert reason and [str(w.message) for w in said if issubclass(w.category, KernelFallback)]
        event("told why not")
        return
    assert reason is None
    rng = random.Random(5)
    for seed in range(4):
        st_ = State(v, dealer=seed % 4, seed=seed)
        try:
            if to_play(st_, rng):
                lockstep(k, st_, rng)
                event("played in lockstep")
        except RuleError:
            event("a rule error on the engine")
            return                               # a rule that names no seat: the engine's clear error
