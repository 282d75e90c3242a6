"""The kernel against the Python engine (docs/architecture.md, "One truth, two speeds"): the
same seeds through both, on every shipped variant, house rule and worked example; at every
step the legal actions and every fact of the state (the kernel's array made from the
engine's State) are identical, to the deal's score; a kernel playout replayed on the
engine ends in the same state and result. A variant the kernel cannot compile says why,
once, and plays on the engine."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taash.interpreter import Match, State, load_variant, shipped_variants
from taash.kernel import KernelFallback, Unsupported, kernel_for, told, why_not
from taash.kernel.positions import positions, to_play
from taash.kernel.warm import KernelUse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(str(p) for p in (ROOT / "docs" / "examples").glob("*.yaml"))
ALL = sorted(shipped_variants()) + EXAMPLES
# what the kernel has no code for, by variant (read from the files: a trump laid face down
# or named secretly with its exposure in play; a question among the declarations; a play
# rule with higher(); a scoring rule with bid_of(); a hand size that changes by deal)
FALLBACK = {"28": "trump.mode: hidden", "house/28-no-undertrump": "trump.mode: hidden",
            "house/28-seventh-card": "trump.mode: hidden", "house/29-hidden-trump": "trump.mode: hidden",
            "house/28-redeal": "trump.mode: hidden",
            "house/29-bhoos": "trump.mode: secret", "house/56-cot": "asks a question",
            "call-break": "the function higher()",
            str(ROOT / "docs" / "examples" / "exact-bid.yaml"): "the function bid_of()",
            str(ROOT / "docs" / "examples" / "judgement.yaml"): "changes from deal to deal"}
COMPILED = [n for n in ALL if n not in FALLBACK]


def differences(k, ref, S) -> list:
    """(field+index, engine's, kernel's) for each place the arrays differ."""
    places = sorted(k.layout.at.items(), key=lambda x: x[1])
    out = []
    for i in np.nonzero(ref != S)[0]:
        name, off = max(((n, o) for n, o in places if o <= i), key=lambda x: x[1])
        out.append((f"{name}+{i - off}", int(ref[i]), int(S[i])))
    return out


def lockstep(k, st, rng) -> int:
    """Play ``st`` (in play) and the kernel's copy of it together to the end, each action
    drawn by ``rng`` from the engine's legal ids; asserts the legal ids and the whole state
    agree at every step. Returns the number of actions."""
    S = k.state(st)
    steps = 0
    while True:
        legal = st.legal_ids()
        assert k.legal(S) == list(legal), (st.history[-4:], legal)
        ref = k.state(st)
        assert not differences(k, ref, S), (differences(k, ref, S), st.history[-4:])
        if st.is_terminal:
            return steps
        a = legal[rng.randrange(len(legal))]
        st.apply_id(a)
        k.apply(S, a)
        steps += 1


def test_29_by_hand(kernel_cache):
    """A 29 deal worked out from the rules (docs/rules.md §29.6, §0.4): the kernel's legal
    plays and the trick's winner, checked against values worked out by hand."""
    v = load_variant("29")
    k = kernel_for(v, kernel_cache)
    hands = [["JS", "9S", "AH", "TH", "KD", "QD", "8C", "7C"],
             ["AS", "TS", "JH", "9H", "JD", "9D", "JC", "9C"],
             ["KS", "QS", "KH", "QH", "AD", "TD", "AC", "TC"],
             ["8S", "7S", "8H", "7H", "8D", "7D", "KC", "QC"]]
    st = State(v, dealer=3, hands=hands)       # seat 0 is eldest: bids first, leads first
    for call in ("bid 16", "pass", "pass", "pass", "trump H"):
        st.apply(call)
    S = k.state(st)
    ids = {v.action(f"play {c}").id: c for c in sum(hands, [])}
    assert sorted(ids[a] for a in k.legal(S)) == sorted(hands[0])          # leading: any card
    k.apply(S, v.action("play 8C").id)
    # seat 1 holds JC 9C: it must follow clubs
    assert sorted(ids[a] for a in k.legal(S)) == ["9C", "JC"]
    k.apply(S, v.action("play 9C").id)
    k.apply(S, v.action("play AC").id)
    k.apply(S, v.action("play KC").id)
    # 9C (strength 7 of 8 in clubs) beats AC, KC and 8C: seat 1 wins 2 + 1 points (9 and A)
    assert k.at(S, "to_act") == 1 and k.at(S, "tricks_done") == 1
    assert k.at(S, "side_points", 1) == 3 and k.at(S, "seat_points", 1) == 3
    k.apply(S, v.action("play JD").id)
    # seat 2 follows diamonds; seat 3 must too; then seat 0, with KD QD
    k.apply(S, v.action("play TD").id)
    assert sorted(ids[a] for a in k.legal(S)) == ["7D", "8D"]
    k.apply(S, v.action("play 7D").id)
    assert sorted(ids[a] for a in k.legal(S)) == ["KD", "QD"]


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_a_variant_it_cannot_compile_is_told_once(name, kernel_cache):
    v = load_variant(name)
    reason = why_not(v)
    assert reason and FALLBACK[name] in reason
    # told once a process: another test's search bot may have been told already
    before = told(v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert kernel_for(v, kernel_cache) is None
        assert kernel_for(v, kernel_cache) is None
    said = [w for w in caught if issubclass(w.category, KernelFallback)]
    assert told(v) == reason
    if before is None:
        assert len(said) == 1 and reason in str(said[0].message) and "Python engine" in str(said[0].message)
    else:
        assert before == reason and said == []


def test_a_state_outside_play_is_refused(kernel_cache):
    k = kernel_for(load_variant("29"), kernel_cache)
    with pytest.raises(Unsupported, match="auction"):
        k.state(State(load_variant("29"), seed=1))


def test_29_lockstep(kernel_cache):
    v = load_variant("29")
    k = kernel_for(v, kernel_cache)
    rng = random.Random(1)
    played = 0
    for seed in range(40):
        st = State(v, dealer=seed % 4, seed=seed)
        if to_play(st, rng):
            played += lockstep(k, st, rng)
    assert played > 40 * 8 * 4 // 2


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPILED)
def test_every_variant_lockstep_and_playouts(name, kernel_cache):
    """Deals of fresh matches and later deals of a match (its scores, dealer and
    variables carried), in lockstep; then kernel playouts replayed on the engine."""
    v = load_variant(name)
    k = kernel_for(v, kernel_cache)
    assert k is not None, why_not(v)
    rng = random.Random(7)
    reached = 0
    m = Match(v, seed=3)
    for i in range(24):
        if m.over:
            m = Match(v, seed=100 + i)
        st = m.new_deal()
        if to_play(st, rng):
            reached += 1
            before = st.copy()
            lockstep(k, st, rng)
            # a kernel playout from the same point, replayed on the engine
            S = k.state(before)
            for a in k.playout(S, seed=i):
                before.apply_id(a)
            assert before.is_terminal
            assert not differences(k, k.state(before), S)
        m.finish_deal(st)
    assert reached >= 12


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(COMPILED), seed=st.integers(0, 10 ** 6), depth=st.integers(0, 60),
       kseed=st.integers(0, 2 ** 31))
def test_random_positions(name, seed, depth, kseed, kernel_cache):
    """From a random position in play: the same legal actions and facts, and a kernel
    playout that the engine replays legally to the same end."""
    v = load_variant(name)
    k = kernel_for(v, kernel_cache)
    rng = random.Random(seed)
    st = State(v, dealer=seed % v.players, seed=seed)
    if not to_play(st, rng):
        return
    for _ in range(depth):
        if st.is_terminal:
            break
        legal = st.legal_ids()
        st.apply_id(legal[rng.randrange(len(legal))])
    S = k.state(st)
    assert k.legal(S) == list(st.legal_ids())
    for a in k.playout(S, kseed):
        assert a in st.legal_ids()
        st.apply_id(a)
    assert st.is_terminal and not differences(k, k.state(st), S)


def same_rollouts(name, count, kernel_cache):
    """The search bot's rollout policy (arena/bots/search.py ``Rollout``) on the kernel,
    fed its generator's draws, ends every rollout where the engine's does."""
    from taash.arena.bots.search import Rollout
    v = load_variant(name)
    k = kernel_for(v, kernel_cache)
    for declare in (False, True):
        r = Rollout(v, declare=declare)
        for i, st in enumerate(positions(v, count, 11, later=True)):
            S = k.state(st)
            used = k.rollout(S, k.draws(r.draws(st, random.Random(i))), r.greedy, r.helpful_mask(k.facts.play_checks))
            r.run(st, random.Random(i))
            assert st.is_terminal and used >= 0
            assert not differences(k, k.state(st), S), (name, declare, i)


def test_rollouts_29(kernel_cache):
    same_rollouts("29", 40, kernel_cache)


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPILED)
def test_rollouts_every_variant(name, kernel_cache):
    same_rollouts(name, 40, kernel_cache)


@pytest.mark.parametrize("bot,name", [("search", "29"), ("ismcts", "29"), ("ismcts", "56")])
def test_a_bot_decides_alike_with_the_kernel(bot, name, kernel_cache):
    """The search and ismcts bots with a playout budget, their rollouts on the kernel and
    on the engine: the same choice and the same figures, search's value of every action,
    ismcts's visits of every root action and spread of values (its tree grown alike: the
    same actions and the same draws of its generator)."""
    from taash.arena.bots.registry import resolve
    factory = resolve(bot).load()
    v = load_variant(name)
    on = factory(v, 3, budget_ms=None, playouts=40, kernel=True)
    on.kernels = KernelUse(v, True, kernel_cache)
    off = factory(v, 3, budget_ms=None, playouts=40, kernel=False)
    figures = ("values", "playouts") if bot == "search" else ("visits", "spread", "iterations")
    for st in positions(v, 10, 5, later=True):
        seat = st.to_act
        a, b = on.decide_state(st, seat), off.decide_state(st, seat)
        assert on.stats["kernel"] and not off.stats["kernel"]
        assert a == b and [on.stats[k] for k in figures] == [off.stats[k] for k in figures]
        assert on.stats[figures[-1]] == 40


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPILED)
def test_ismcts_decides_alike_with_the_kernel_on_every_variant(name, kernel_cache):
    """The ismcts bot's tree grown alike on the kernel and on the engine, on every variant
    the kernel compiles (its declarations in play among the tree's actions)."""
    from taash.arena.bots.ismcts import ismcts_bot
    v = load_variant(name)
    on = ismcts_bot(v, 3, budget_ms=None, playouts=30, kernel=True)
    on.kernels = KernelUse(v, True, kernel_cache)
    off = ismcts_bot(v, 3, budget_ms=None, playouts=30, kernel=False)
    for st in positions(v, 4, 9, later=True):
        a, b = on.decide_state(st, st.to_act), off.decide_state(st, st.to_act)
        assert on.stats["kernel"] and (a, on.stats["visits"]) == (b, off.stats["visits"])


def test_search_decides_alike_before_and_after_the_kernel_is_ready(tmp_path):
    """The search bot's default (kernel=None): its first decision in play starts the
    kernel's making in a child process and rolls out on the engine, as every decision does
    until the kernel is ready; then on the kernel. With a playout budget every decision,
    either way, is the engine bot's: the same action and the same value of every action.
    The child compiles into a fresh cache directory, which this process then loads."""
    import taash.arena.bots.search as search
    v = load_variant("29")
    auto = search.search_bot(v, 3, budget_ms=None, playouts=40)
    auto.kernels = KernelUse(v, None, tmp_path)
    off = search.search_bot(v, 3, budget_ms=None, playouts=40, kernel=False)
    sts = positions(v, 12, 5, later=True)
    used = []
    for i, st in enumerate(sts):
        if i == len(sts) // 2:
            assert auto.warming.wait(timeout=600) is not None, auto.warming.reason
        seat = st.to_act
        a, b = auto.decide_state(st, seat), off.decide_state(st, seat)
        assert a == b and auto.stats["values"] == off.stats["values"]
        used.append(auto.stats["kernel"])
    # the first decision started the making (a cold compile, many seconds): on the engine;
    # from the wait on, on the kernel, loaded from the cache the child process wrote
    assert used[0] is False and all(used[len(sts) // 2:])
    assert list(tmp_path.glob("__pycache__/*.nbi")) and list(tmp_path.glob("__pycache__/*.nbc"))
    assert off.stats["kernel"] is False


def test_the_kernel_off_or_without_the_extra_is_the_engine(monkeypatch):
    import taash.arena.bots.search as search
    import taash.kernel.warm as warm
    v = load_variant("29")
    assert search.search_bot(v, 1, playouts=10, kernel=False).kernel() is None
    monkeypatch.setattr(warm, "available", lambda: False)
    bot = search.search_bot(v, 1, playouts=10)
    st = positions(v, 1, 5, later=True)[0]
    bot.decide_state(st, st.to_act)
    assert bot.warming is None and bot.stats["kernel"] is False
    with pytest.raises(ValueError, match="kernel"):
        search.search_bot(v, 1, playouts=10, kernel="yes")
