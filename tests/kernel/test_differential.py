"""The kernel against the Python engine (docs/architecture.md, "One truth, two speeds"): the
same seeds through both, on every shipped variant, house rule and worked example; at every
step the legal actions and every fact of the state (the kernel's array made from the
engine's State) are identical, to the deal's score; a kernel playout replayed on the
engine ends in the same state and result. A variant the kernel cannot compile says why,
once, and plays on the engine."""

from __future__ import annotations

import random
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taash.interpreter import Match, State, load_variant, shipped_variants
from taash.kernel import KernelFallback, Unsupported, kernel_for, told, why_not
from taash.kernel.positions import at_random, before_play, positions, to_play
from taash.kernel.warm import KernelUse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(str(p) for p in (ROOT / "docs" / "examples").glob("*.yaml"))
# new authors' files: other games, written from the authoring guide
AUTHORS = sorted(str(p) for p in (ROOT / "tests" / "variants").glob("*.yaml"))
ALL = sorted(shipped_variants()) + EXAMPLES + AUTHORS
COMPILED = ALL      # the kernel compiles every one (test_the_kernel_compiles_every_file)
# a file the kernel has no code for: count() of cards in a deck with copies of a card
COPIES_COUNT = """extends: {base}
name: copies-count
play:
  may_play: |
    when count(in_suit(hand, led)) > 1: in_suit(hand, led)
    else: hand
"""


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


def by_hand(name, hands, calls, kernel_cache):
    """Variant ``name`` dealt ``hands`` by dealer 3 (seat 0 eldest), ``calls`` made on the
    engine up to the play: (variant, kernel, the kernel's array, card of each play id)."""
    v = load_variant(name)
    k = kernel_for(v, kernel_cache)
    st = State(v, dealer=3, hands=hands)
    for call in calls:
        st.apply(call)
    return v, k, k.state(st), {v.action(f"play {c}").id: c for c in sum(hands, [])}


def test_29_by_hand(kernel_cache):
    """A 29 deal worked out from the rules (docs/rules.md §29.6, §0.4): the kernel's legal
    plays and the trick's winner, checked against values worked out by hand."""
    hands = [["JS", "9S", "AH", "TH", "KD", "QD", "8C", "7C"],
             ["AS", "TS", "JH", "9H", "JD", "9D", "JC", "9C"],
             ["KS", "QS", "KH", "QH", "AD", "TD", "AC", "TC"],
             ["8S", "7S", "8H", "7H", "8D", "7D", "KC", "QC"]]
    # seat 0 is eldest: bids first, leads first
    v, k, S, ids = by_hand("29", hands, ("bid 16", "pass", "pass", "pass", "trump H"), kernel_cache)
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


def test_28_exposure_by_hand(kernel_cache):
    """A 28 deal worked out from the rules (docs/rules.md §28.5-§28.7): the trump card laid
    face down, the exposure asked in play by a seat that cannot follow suit, the exposer's
    duty to trump, and a trump-suit card that counts only when played after the exposure."""
    hands = [["JS", "9S", "7S", "8S", "JH", "9H", "AH", "TH"],
             ["KH", "QH", "8H", "7H", "JD", "9D", "AD", "TD"],
             ["AS", "TS", "KS", "QS", "JC", "9C", "AC", "TC"],
             ["KD", "QD", "8D", "7D", "KC", "QC", "8C", "7C"]]
    v, k, S, ids = by_hand("28", hands, ("bid 14", "pass", "pass", "pass", "trump-card 7S"), kernel_cache)
    expose = v.expose_action.id
    # 7S lies face down: the declarer leads no spade while he holds another suit (§28.6)
    assert sorted(ids[a] for a in k.legal(S)) == ["9H", "AH", "JH", "TH"]
    assert k.at(S, "trump_card") == v.deck.parse("7S") and k.at(S, "trump_exposed") == 0
    k.apply(S, v.action("play JH").id)
    k.apply(S, v.action("play 7H").id)
    # seat 2 holds no heart: it may ask for the exposure, before its cards
    assert k.legal(S)[0] == expose and sorted(ids[a] for a in k.legal(S)[1:]) == sorted(hands[2])
    without = S.copy()
    k.apply(S, expose)
    # 7S goes to the declarer's hand, shown; seat 2, the exposer, must play a trump
    assert k.at(S, "trump_exposed") == 1 and k.at(S, "exposer") == 2 and k.at(S, "exposure_trick") == 1
    assert k.at(S, "trump_card") == -1 and k.at(S, "exposed_card") == v.deck.parse("7S")
    assert (k.at(S, "hands", 0) >> v.deck.parse("7S")) & 1
    assert sorted(ids[a] for a in k.legal(S)) == ["AS", "KS", "QS", "TS"]
    for S_ in (S, without):
        k.apply(S_, v.action("play QS").id)
        k.apply(S_, v.action("play KC").id)
    # QS played after the exposure is a trump and takes JH's 3 points for seats 0 and 2;
    # without the exposure it is a discard, and JH wins
    assert k.at(S, "to_act") == 2 and k.at(S, "seat_points", 2) == 3
    assert k.at(without, "to_act") == 0 and k.at(without, "seat_points", 0) == 3
    assert k.at(S, "side_points", 0) == k.at(without, "side_points", 0) == 3


def test_29_secret_trump_and_higher_by_hand(kernel_cache):
    """house/29-bhoos (docs/rules.md §29b.5, §29b.6): trump named secretly; a seat that
    cannot follow suit asks for it; the revealer must then play a trump higher than the
    opponent's trump winning the trick (``higher``), which counts once trump is public."""
    hands = [["JH", "9H", "AH", "TH", "JD", "9D", "AD", "TD"],
             ["8S", "JS", "KC", "QC", "8C", "7C", "AS", "TS"],
             ["9S", "7S", "JC", "9C", "AC", "TC", "KS", "QS"],
             ["KH", "QH", "8H", "7H", "KD", "QD", "8D", "7D"]]
    v, k, S, ids = by_hand("house/29-bhoos", hands, ("bid 16", "pass", "pass", "pass", "trump S"), kernel_cache)
    expose = v.expose_action.id
    assert k.at(S, "trump_exposed") == 0 and k.at(S, "trump_card") == -1
    k.apply(S, v.action("play JH").id)
    # seat 1 holds no heart: it may ask, or play any card; it plays 8S, not yet a trump
    assert k.legal(S)[0] == expose and len(k.legal(S)) == 9
    k.apply(S, v.action("play 8S").id)
    assert k.legal(S)[0] == expose
    k.apply(S, expose)
    # trump (spades) public: 8S now counts (200 + its strength) and wins for seat 1, an
    # opponent; seat 2 must beat it: of its spades 9S, KS, QS rank above 8S, 7S below
    assert k.at(S, "exposer") == 2 and k.at(S, "exposed_card") == -1
    assert sorted(ids[a] for a in k.legal(S)) == ["9S", "KS", "QS"]
    k.apply(S, v.action("play 9S").id)
    # seat 3 follows hearts; 9S wins the trick (JH 3 points, 8S 0, 9S 2, KH 0)
    assert sorted(ids[a] for a in k.legal(S)) == ["7H", "8H", "KH", "QH"]
    k.apply(S, v.action("play KH").id)
    assert k.at(S, "to_act") == 2 and k.at(S, "side_points", 0) == 5


@pytest.mark.parametrize("name", ["28", "house/29-bhoos"])
def test_a_hidden_trump_reaches_the_kernel_only_as_a_world(name, kernel_cache):
    """The bots give the kernel the worlds `resample` draws for the seat to act: with the
    hidden cards and the trump dealt anew (a twin the seat cannot tell apart, its trump
    or face-down card differing), the same draws give byte-identical kernel arrays."""
    v = load_variant(name)
    k = kernel_for(v, kernel_cache)
    differ = 0
    sts = [st for st in positions(v, 40, 8, later=True) if st.to_act != st.declarer and not st.trump_exposed]
    for st in sts[:4]:
        seat = st.to_act
        twin = st.resample(seat, random.Random(1))
        differ += (twin.trump, twin.trump_card, twin.hands) != (st.trump, st.trump_card, st.hands)
        for i in range(5):
            a = k.state(st.resample(seat, random.Random(100 + i)))
            b = k.state(twin.resample(seat, random.Random(100 + i)))
            assert a.tobytes() == b.tobytes()
    assert len(sts) >= 4 and differ >= 3


def test_bid_of_by_hand(kernel_cache):
    """docs/examples/exact-bid.yaml: seat 0 holds every heart (trump) and AS KS, so it takes
    all 8 tricks whatever is played; it bid 8 and seat 1 bid 0 (both exact: 10 + the bid),
    seat 2 bid 1 (not exact: nothing). Every random playout scores 18, 10, 0."""
    v = load_variant(str(ROOT / "docs" / "examples" / "exact-bid.yaml"))
    k = kernel_for(v, kernel_cache)
    hands = [["AH", "KH", "QH", "JH", "TH", "9H", "AS", "KS"],
             ["QS", "JS", "TS", "9S", "AD", "KD", "QD", "JD"],
             ["TD", "9D", "AC", "KC", "QC", "JC", "TC", "9C"]]
    st = State(v, dealer=2, hands=hands)
    for call in ("bid 8", "bid 0", "bid 1"):
        st.apply(call)
    S = k.state(st)
    assert [k.at(S, "seat_bids", i) for i in range(3)] == [8, 0, 1]
    assert k.playouts(S, 20, seed=5).tolist() == [20 * 18, 20 * 10, 0]


def test_a_question_by_hand(kernel_cache):
    """house/56-cot: a defender asks `cot` (will the contractors take every trick?); the
    declarer (answered_by) answers at once, yes or no; then the asker plays on, and the
    question is not asked again."""
    v = load_variant("house/56-cot")
    k = kernel_for(v, kernel_cache)
    cot, yes, no = (v.action(t).id for t in ("cot", "cot yes", "cot no"))
    st = next(st for st in positions(v, 30, 3) if cot in st.legal_ids())
    S = k.state(st)
    asker, declarer = st.to_act, st.declarer
    assert k.legal(S)[0] == cot and st.side[asker] != st.side[declarer]
    k.apply(S, cot)
    assert k.at(S, "to_act") == declarer and k.legal(S) == [yes, no]
    k.apply(S, yes)
    assert k.at(S, "to_act") == asker and k.at(S, "answers") == 1       # bit 0: `cot yes`
    assert k.legal(S) and all(a in st.hands[asker] for a in k.legal(S))    # cards only: asked once


def test_the_kernel_compiles_every_file():
    """Every shipped variant, house rule, worked example and new author's file (why_not
    compiles nothing: it makes the module's source)."""
    assert {name: why_not(load_variant(name)) for name in ALL} == dict.fromkeys(ALL)


def test_a_variant_it_cannot_compile_is_told_once(kernel_cache, tmp_path):
    path = tmp_path / "copies-count.yaml"
    path.write_text(COPIES_COUNT.format(base=ROOT / "tests" / "variants" / "mixed-copies.yaml"))
    v = load_variant(str(path))
    reason = why_not(v)
    assert reason == "count() of cards in a deck with copies of a card"
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


def test_a_kernel_per_deal_size(kernel_cache):
    """docs/examples/judgement.yaml deals 8 cards a seat, then 7, ... 1, then back to 8:
    each deal size has its kernel, which takes only states of its deal."""
    v = load_variant(str(ROOT / "docs" / "examples" / "judgement.yaml"))
    m = Match(v, seed=2)
    rng = random.Random(4)
    st = m.new_deal()
    while not st.is_terminal:
        legal = st.legal_ids()
        st.apply_id(legal[rng.randrange(len(legal))])
    m.finish_deal(st)
    st2 = m.new_deal()                   # the second deal: 7 cards a seat, 7 tricks
    assert st2.v.tricks == 7 and len(st2.hands[0]) == 7
    k8, k7 = kernel_for(v, kernel_cache), kernel_for(st2.v, kernel_cache)
    assert k8.facts.tricks == 8 and k7.facts.tricks == 7 and k7 is not k8
    assert kernel_for(v.for_deal(14), kernel_cache) is k8      # the 15th deal: 8 cards again
    assert to_play(st2, rng)
    with pytest.raises(Unsupported, match="deal 1"):
        k8.state(st2)
    S = k7.state(st2)
    acts = k7.playout(S, seed=1)
    assert len(acts) == 7 * 4 and k7.at(S, "tricks_done") == 7 and k7.at(S, "terminal") == 1


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
    variables carried), in lockstep; then kernel playouts replayed on the engine. A flow
    that changes by deal plays each deal on the kernel of its size."""
    v = load_variant(name)
    assert kernel_for(v, kernel_cache) is not None, why_not(v)
    rng = random.Random(7)
    reached = 0
    m = Match(v, seed=3)
    for i in range(24):
        if m.over:
            m = Match(v, seed=100 + i)
        st = m.new_deal()
        k = kernel_for(st.v, kernel_cache)
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
    st = at_random(v, seed, depth)
    if st is None:
        return
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


def kernel_and_engine_bots(bot: str, name: str, playouts: int, kernel_cache):
    """(variant, the bot with the kernel, the bot on the engine, the stats to compare):
    ``bot`` (search or ismcts) with a budget of ``playouts``, seed 3."""
    from taash.arena.bots.registry import resolve
    factory = resolve(bot).load()
    v = load_variant(name)
    on = factory(v, 3, budget_ms=None, playouts=playouts, kernel=True)
    on.kernels = KernelUse(v, True, kernel_cache)
    off = factory(v, 3, budget_ms=None, playouts=playouts, kernel=False)
    return v, on, off, (("values", "playouts") if bot == "search" else ("visits", "spread", "iterations"))


@pytest.mark.parametrize("bot,name", [("search", "29"), ("search", "28"), ("search", "304"), ("search", "56"),
                                      ("search", "304-solo"), ("search", "house/29-bhoos"), ("search", "call-break"),
                                      ("ismcts", "29"), ("ismcts", "304-solo"), ("ismcts", "56")])
def test_a_decision_before_the_play_rolls_out_on_the_kernel_from_the_first_lead(bot, name, kernel_cache):
    """A decision before the play phase (a bid, a trump, an exchange): each rollout runs
    on the engine to the first lead and on the kernel from there, fed the same draws; with
    a playout budget the bot decides as on the engine alone, with the same figures
    (search's value of every action, ismcts's visits and spread)."""
    v, on, off, figures = kernel_and_engine_bots(bot, name, 30, kernel_cache)
    sts = before_play(v, 6, 11)
    assert len(sts) == 6 and "play" not in {st.phase for st in sts}
    for st in sts:
        seat = st.to_act
        a, b = on.decide_state(st, seat), off.decide_state(st, seat)
        assert on.stats["kernel"] and not off.stats["kernel"] and not on.stats["kernel_worlds"]
        assert a == b and [on.stats[k] for k in figures] == [off.stats[k] for k in figures]


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPILED)
def test_rollouts_every_variant(name, kernel_cache):
    same_rollouts(name, 40, kernel_cache)


@pytest.mark.parametrize("bot,name", [("search", "29"), ("ismcts", "29"), ("search", "56"), ("ismcts", "56"),
                                      ("search", "28"),
                                      ("ismcts", "house/29-bhoos"), ("search", "304"), ("ismcts", "304")])
def test_a_bot_decides_alike_with_the_kernel(bot, name, kernel_cache):
    """The search and ismcts bots with a playout budget, their worlds and rollouts on the
    kernel and on the engine: the same choice and the same figures, search's value of
    every action, ismcts's visits of every root action and spread of values (its tree
    grown alike: the same worlds, the same actions and the same draws of its generator).
    The kernel draws the worlds, on decks with copies of a card (56) too."""
    v, on, off, figures = kernel_and_engine_bots(bot, name, 40, kernel_cache)
    for st in positions(v, 10, 5, later=True):
        seat = st.to_act
        a, b = on.decide_state(st, seat), off.decide_state(st, seat)
        assert on.stats["kernel"] and not off.stats["kernel"]
        assert on.stats["kernel_worlds"] and not off.stats["kernel_worlds"]
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


def test_search_decides_alike_before_and_after_the_kernel_is_ready(tmp_path, monkeypatch):
    """The search bot's default (kernel=None): its first decision in play starts the
    kernel's making in a child process and rolls out on the engine, as every decision does
    until the kernel is ready; then on the kernel. With a playout budget every decision,
    either way, is the engine bot's: the same action and the same value of every action.
    The child compiles into a fresh cache directory, which this process then loads. The
    kernel's source is made once, in the caller's thread: the loading thread makes none."""
    import taash.arena.bots.search as search
    import taash.kernel as kernel
    import taash.kernel.warm as warm
    made_in = []

    def source_of(variant):
        made_in.append(threading.current_thread().name)
        return kernel.source_of.__wrapped__(variant)
    source_of.__wrapped__ = kernel.source_of
    monkeypatch.setattr(kernel, "source_of", source_of)
    monkeypatch.setattr(warm, "source_of", source_of)
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
    assert made_in == [threading.current_thread().name]


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


def test_a_state_of_another_variant_or_no_variant_is_refused(kernel_cache):
    k = kernel_for(load_variant("29"), kernel_cache)
    other = Match(load_variant("56"), seed=1).new_deal()
    with pytest.raises(Unsupported, match="a state of 56, not of 29"):
        k.state(other)
    for call in (kernel_for, why_not):
        with pytest.raises(TypeError, match="made from a Variant .*not '29'"):
            call("29")
    st = Match(load_variant("29"), seed=1).new_deal()
    assert to_play(st, random.Random(1))
    with pytest.raises(ValueError, match="seed is a whole number >= 0, not -1"):
        k.playout(k.state(st), -1)


NO_NUMBA_CHECK = ("import sys; sys.modules['numba'] = None; from taash.arena.cli import main; "
                  "sys.exit(main(['check', '--kernel', '29']))")


def test_check_says_whether_the_kernel_plays_each_file(tmp_path):
    """``taash check --kernel``: after each file's "ok", whether the kernel plays it or why
    not (each deal size of a flow that changes by deal checked); nothing for a file with
    problems; the extra named when numba is missing."""
    import subprocess
    import sys
    copies = tmp_path / "copies-count.yaml"
    copies.write_text(COPIES_COUNT.format(base=ROOT / "tests" / "variants" / "mixed-copies.yaml"))
    broken = tmp_path / "broken.yaml"
    broken.write_text("extends: \"29\"\nname: broken\nplay:\n  may_play: in_suit(hand,\n")
    judgement = str(ROOT / "docs" / "examples" / "judgement.yaml")
    out = subprocess.run([sys.executable, "-m", "taash", "check", "--kernel", "29", str(copies), judgement, str(broken)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 1
    assert out.stdout.splitlines() == [
        "29: ok",
        "29: the compiled kernel plays it (the fast extra)",
        f"{copies}: ok",
        f"{copies}: the Python engine plays it; the compiled kernel cannot "
        "(count() of cards in a deck with copies of a card)",
        f"{judgement}: ok",
        f"{judgement}: the compiled kernel plays it (the fast extra)",
    ]
    assert f"{broken}:4:" in out.stderr and "Traceback" not in out.stderr
    bare = subprocess.run([sys.executable, "-c", NO_NUMBA_CHECK], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)
    assert bare.returncode == 0, bare.stderr
    assert bare.stdout.splitlines()[1] == ("29: the Python engine plays it; the compiled kernel cannot "
                                           "(numba is not installed (pip install 'taash[fast]'))")


@pytest.mark.parametrize("bot", ["search", "ismcts"])
def test_the_wait_for_the_kernel_is_not_the_decisions_time(bot, kernel_cache):
    """kernel=True: the first decision waits for the kernel's making, then searches for
    its whole budget (here the making made to take 0.3 s, six budgets of 50 ms)."""
    import time as clock
    v, on, _, figures = kernel_and_engine_bots(bot, "29", 40, kernel_cache)
    on.playouts = None
    on.budget_ms = 50
    get = on.kernels.get

    def slow_get(variant=None):
        clock.sleep(0.3)
        return get(variant)
    on.kernels.get = slow_get
    st = positions(v, 1, 5, later=True)[0]
    on.decide_state(st, st.to_act)
    assert on.stats["kernel"] and on.stats[figures[-1]] >= 20
