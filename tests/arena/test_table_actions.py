"""The table's words and keys of actions (arena/web/actions.py), drawn from each
variant's own action table: every action of every shipped variant (and of 56 for 4 and
8 players) has words and a key, and in the decisions of random deals the keys of the
legal actions tell them apart, none a prefix of another's, so that typing them picks
exactly one."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from taash.arena.web.actions import describe
from taash.interpreter import Match, load_variant, shipped_variants

VARIANTS = [(n, None) for n in shipped_variants()] + [("56", {"players": 4}), ("56", {"players": 8})]


def _ids(x):
    return x[0] + (f"-{x[1]['players']}p" if x[1] else "")


@pytest.mark.parametrize("name, options", VARIANTS, ids=[_ids(x) for x in VARIANTS])
def test_every_action_has_words_and_a_key(name, options):
    v = load_variant(name, options)
    for a in v.actions:
        d = describe(v, str(a))
        assert d["words"] and d["key"], (str(a), d)
        assert d["kind"] == a.kind
        assert d["key"] == d["key"].lower() and " " not in d["key"]
        if a.kind == "bid":
            assert d["number"] == a.arg[0] and d["words"].startswith(f"bid {a.arg[0]}")
            assert d["key"].startswith(str(a.arg[0]))
        if a.kind in ("play", "take", "discard", "call-partner"):
            assert d["card"] == a.arg and d["key"] == a.arg.lower()
    # two texts of the same call (56's `bid 31 S` and `bid S 31`) read and key alike
    calls = {}
    for a in v.actions:
        d = describe(v, str(a))
        calls.setdefault((a.kind, a.arg), set()).add((d["words"], d["key"]))
    assert all(len(x) == 1 for x in calls.values())


def test_words_and_keys_worked_out_by_hand():
    v = load_variant("56")
    assert describe(v, "bid S 31") == describe(v, "bid 31 S") | {"action": "bid S 31"}
    d = describe(v, "bid S 31")
    assert (d["words"], d["key"], d["number"], d["denom"]) == ("bid 31 \u2660", "31s", 31, "S")
    assert describe(v, "bid 40 NT")["key"] == "40n" and describe(v, "bid 40 NOES")["key"] == "40o"
    assert describe(v, "bid 40 NOES")["words"] == "bid 40 NOES"
    assert (describe(v, "pass")["key"], describe(v, "double")["key"], describe(v, "redouble")["key"]) == ("p", "x", "z")
    assert describe(v, "play TH")["words"] == "play 10\u2665" and describe(v, "play TH")["key"] == "th"
    v = load_variant("29")
    assert describe(v, "trump-card JS")["words"] == "lay J\u2660 face down as trump"
    assert describe(v, "trump H")["key"] == "h" and describe(v, "bid 16")["key"] == "16"
    # a public text without its card (another seat's face-down trump): its words, no key
    d = describe(v, "trump-card")
    assert d["words"] == "a trump card laid face down" and d["key"] is None
    # no variant at hand: the text is its words
    assert describe(None, "bid 16")["words"] == "bid 16"


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(hs.sampled_from(VARIANTS), hs.integers(0, 10**6))
def test_the_keys_of_a_decision_tell_its_actions_apart(variant, seed):
    name, options = variant
    v = load_variant(name, options)
    st = Match(v, seed).new_deal()
    rng = random.Random(seed)
    while not st.is_terminal:
        legal = st.legal_actions()
        keys = {}
        for a in legal:
            d = describe(v, str(a))
            keys.setdefault(d["key"], set()).add((a.kind, a.arg))
        assert all(len(calls) == 1 for calls in keys.values()), keys      # one call per key
        ks = sorted(keys)
        for k1, k2 in zip(ks, ks[1:]):      # sorted: a prefix sits just before what it starts
            assert not k2.startswith(k1), (k1, k2)
        st.apply(legal[rng.randrange(len(legal))])
