"""The search bots' worlds judged on the kernel (kernel/worlds.py) against the engine's
`State.resample`: from the same generator state, the same world (the same deal, the same
array, the same draws consumed), on every variant the kernel compiles; the same verdict
on proposals the engine rejects; the fast path (the array at the first lead patched with
the proposal's cards) the same as the engine's replay of the history before the play."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from taash.interpreter import State, load_variant
from taash.kernel import Unsupported, kernel_for
from taash.kernel.positions import at_random, positions, to_play
from taash.kernel.source import deal_blind, rule_blind

from .test_differential import COMPILED, ROOT, differences

# the variants whose worlds the kernel draws in the fast path (304: a partner call; 56 and
# its 8 seats' deck: two copies of each card), and some whose history before the play it
# leaves to the engine's replay (a declaration, a widow's exchange, bids of tricks; two
# copies of the aces and a widow set aside)
MIXED_COPIES = str(ROOT / "tests" / "variants" / "mixed-copies.yaml")
FAST = ["29", "28", "house/29-bhoos", "court-piece", "304", "56", "house/56-8p-48-cards"]
REPLAY = ["house/28-redeal", "304-solo", "call-break", MIXED_COPIES]


def deep_positions(v, count: int, seed: int) -> list[State]:
    """``count`` states in play a random number of tricks in (up to all but the last),
    the seat to act having a choice: later states reject more proposals."""
    rng = random.Random(seed)
    out = []
    k = 0
    while len(out) < count and k < 50 * count:
        st = State(v, dealer=k % v.players, seed=seed * 1009 + k)
        k += 1
        if not to_play(st, rng):
            continue
        for _ in range(rng.randrange(v.players * max(1, v.tricks - 1))):
            if st.is_terminal:
                break
            legal = st.legal_ids()
            st.apply_id(legal[rng.randrange(len(legal))])
        if not st.is_terminal and len(st.legal_ids()) > 1:
            out.append(st)
    return out


def same_worlds(k, st, seat: int, draws: int) -> None:
    """``draws`` worlds of ``st`` for ``seat`` on the kernel and by `State.resample`, each
    pair from generators in the same state: the same array, the same deal and history at
    the first lead, the generators left in the same state."""
    w = k.worlds(st, seat)
    for i in range(draws):
        r1, r2 = random.Random(i), random.Random(i)
        e = st.resample(seat, r1)
        S = w.sample(r2)
        assert not differences(k, k.state(e), S), (i, differences(k, k.state(e), S))
        assert r1.getstate() == r2.getstate(), i
        first = w.last_start()
        assert first.dealt == e.dealt and first.widow == e.widow
        assert first.history == e.history[:len(first.history)]


@pytest.mark.parametrize("name", FAST + REPLAY)
def test_the_same_worlds_as_resample(name, kernel_cache):
    v = load_variant(name)
    k = kernel_for(v, kernel_cache)
    for st in positions(v, 6, 2, later=True) + deep_positions(v, 4, 3):
        for seat in range(v.players):
            same_worlds(k, st, seat, 12)


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPILED)
def test_the_same_worlds_on_every_variant(name, kernel_cache):
    """Every variant the kernel compiles: where it draws the worlds, they are
    `resample`'s; where it does not, it says why (Unsupported) and the bots resample."""
    v = load_variant(name)
    drawn = refused = 0
    for st in positions(v, 4, 4, later=True) + deep_positions(v, 3, 5):
        k = kernel_for(st.v, kernel_cache)
        try:
            k.worlds(st, st.to_act)
        except Unsupported as e:
            assert str(e)
            refused += 1
            continue
        same_worlds(k, st, st.to_act, 8)
        same_worlds(k, st, (st.to_act + 1) % v.players, 4)
        drawn += 1
    assert drawn + refused >= 5
    if name in FAST:
        assert refused == 0


def engine_accepts(r, deal, rng) -> bool:
    """`Resampler.sample`'s verdict on the proposal ``deal``."""
    st = r.deal_state(deal)
    return r.replay(st, deal, rng) and st.observation(r.seat) == r.target


@pytest.mark.parametrize("name", FAST + REPLAY)
def test_proposals_the_engine_rejects_are_rejected(name, kernel_cache):
    """Proposals of the pool's cards shuffled over the unseen positions with no filter
    (a void shown in play, a forced card, a hidden trump of the wrong suit): the kernel
    accepts exactly those the engine accepts, and the array of an accepted one is the
    engine's world's."""
    v = load_variant(name)
    k = kernel_for(v, kernel_cache)
    accepted = rejected = 0
    for st in deep_positions(v, 8, 7):
        seat = st.to_act
        w = k.worlds(st, seat)
        r = w.resampler
        shuffler = random.Random(len(st.history))
        for i in range(40):
            deal = list(r.card)
            pool = [deal[p] for p in r.unseen]
            shuffler.shuffle(pool)
            for p, c in zip(r.unseen, pool):
                deal[p] = c
            r1, r2 = random.Random(i), random.Random(i)
            ok = engine_accepts(r, deal, r1)
            S = w.judge(deal, r2)
            assert ok == (S is not None), (i, ok)
            if ok:
                e = r.deal_state(deal)
                assert r.replay(e, deal, random.Random(i))
                assert np.array_equal(k.state(e), S)
                accepted += 1
            else:
                rejected += 1
    # the test means something: both verdicts were given
    assert accepted > 0 and rejected > 0, (accepted, rejected)


@pytest.mark.parametrize("name", FAST)
def test_the_fast_path_is_the_engines_replay(name, kernel_cache):
    """With the history before the play blind to the cards (`deal_blind`), the array at
    the first lead is patched; the engine's replay of that history (the slow path) gives
    the same worlds."""
    v = load_variant(name)
    assert deal_blind(v) is None
    k = kernel_for(v, kernel_cache)
    for st in positions(v, 5, 8, later=True) + deep_positions(v, 3, 9):
        fast, slow = k.worlds(st, st.to_act), k.worlds(st, st.to_act)
        slow.blind = False
        assert fast.blind
        for i in range(15):
            S1, S2 = fast.sample(random.Random(i)), slow.sample(random.Random(i))
            assert np.array_equal(S1, S2)
            assert fast.last_start().dealt == slow.last_start().dealt


def test_which_histories_are_blind_to_the_cards(tmp_path):
    """`deal_blind`: the auction's rules reading the calls only, a partner call (patched);
    a rule reading a hand, a widow's exchange, a declaration are not."""
    assert rule_blind("def r(s, me, x, y):\n    return x > s.bid")
    assert rule_blind("def r(s, me, x, y):\n    return s.bid == 29 or (s.bids > 0 and s.passes == 3)")
    assert not rule_blind("def r(s, me, x, y):\n    return x > s.bid and len(s.hands[me]) > 0")
    assert not rule_blind("def r(s, me, x, y):\n    return s.known_side_tricks(me) > 0")
    assert not rule_blind("def r(s, me, x, y):\n    return f(s)")
    path = tmp_path / "hand-bid.yaml"
    path.write_text(f"extends: {load_variant('29').path}\nname: hand-bid\n"
                    "auction:\n  may_bid: number > high_bid and count(hand) > 0\n")
    assert deal_blind(load_variant(str(path))) == "the rule auction.may_bid reads more than the calls"
    assert deal_blind(load_variant("304-solo")) == "the steps exchange, skip before the play"
    assert deal_blind(load_variant("house/28-redeal")) == "the steps declare before the play"
    assert deal_blind(load_variant("29")) is None and deal_blind(load_variant("304")) is None


def held_twice(w, S) -> list[int]:
    """The seats holding both copies of a card in the world ``S`` of ``w``."""
    lay, f = w.kern.layout, w.kern.facts
    at = lay.at["counts"]
    return [t for t in range(f.players) if max(S[at + t * f.size:at + (t + 1) * f.size]) == 2]


@pytest.mark.parametrize("name", ["56", MIXED_COPIES])
def test_copies_of_a_card_late_in_the_deal(name, kernel_cache):
    """A deck with copies of a card (a card id for both copies): from positions in the
    last three tricks, for each seat, the kernel's worlds are `resample`'s (the hands'
    bitsets and their counts), on 56's fast path and mixed-copies' replay; and a world
    puts both copies of a card in one hand, which a map from card id to position could
    not (the test means something)."""
    v = load_variant(name)
    assert v.deck.max_copies == 2
    k = kernel_for(v, kernel_cache)
    late = []
    for seed in range(40):
        lead, end = at_random(v, seed, 0), at_random(v, seed, 10 ** 4)
        if lead is None:
            continue
        # the same random play stopped 2 to 3 tricks before its end, a choice to make
        back = v.players + 1 + random.Random(seed).randrange(2 * v.players - 1)
        st = at_random(v, seed, len(end.history) - len(lead.history) - back)
        if not st.is_terminal and st.tricks_done >= v.tricks - 3 and len(st.legal_ids()) > 1:
            late.append(st)
        if len(late) == 3:
            break
    assert len(late) == 3
    twice = 0
    for st in late:
        for seat in range(v.players):
            w = k.worlds(st, seat)
            assert w.blind == (name == "56")
            same_worlds(k, st, seat, 6)
        w = k.worlds(st, st.to_act)
        twice += sum(len(held_twice(w, w.sample(random.Random(i)))) for i in range(20))
    start = positions(v, 3, 4)          # at the first lead: every hand full
    for st in start:
        w = k.worlds(st, st.to_act)
        twice += sum(len(held_twice(w, w.sample(random.Random(i)))) for i in range(20))
    assert twice > 0


def test_a_face_down_card_of_a_deck_with_copies(kernel_cache, tmp_path):
    """28 with two copies of each card (a test file: 16 cards each, in two packets of 8):
    the declarer lays a card face down from the first packet, whose other copy may lie in
    another hand; the kernel's worlds are `resample`'s, the face-down card taken from the
    position the engine's model takes it from (`Resampler.aside`), for each seat."""
    path = tmp_path / "copies-hidden.yaml"
    path.write_text(f"extends: {load_variant('28').path}\nname: copies-hidden\n"
                    "deck:\n  copies: 2\n  total: 56\n"
                    "flow:\n  - deal: [8]\n  - auction\n  - trump\n  - deal: [8]\n  - play\n"
                    # 28's rule counts the cards of the suit led: not compiled with copies
                    "play:\n  may_expose: not leading and not trump_exposed and led != trump\n")
    v = load_variant(str(path))
    assert v.deck.max_copies == 2 and deal_blind(v) is None
    k = kernel_for(v, kernel_cache)
    elsewhere = 0
    for st in positions(v, 5, 2, later=True) + deep_positions(v, 3, 3):
        for seat in range(v.players):
            w = k.worlds(st, seat)
            assert w.blind
            r, p = w.resampler, w.card_pos
            if p >= 0:
                d = st.declarer
                assert r.offset[d] <= p < r.offset[d + 1] and r.card[p] == k.at(w.lead, "trump_card")
                mine = range(r.offset[d], r.offset[d + 1])
                elsewhere += any(c == r.card[p] and q not in mine for q, c in enumerate(r.card))
            same_worlds(k, st, seat, 6)
    # the other copy of the face-down card in another hand: its id alone is ambiguous
    assert elsewhere > 0


def test_what_the_kernel_does_not_draw(kernel_cache, tmp_path):
    """A partner call in a deck with copies of a card (which copy's holder is the
    partner: no shipped variant has both) and a state before the play: Unsupported, in
    words (the bots then resample on the engine)."""
    path = tmp_path / "copies-call.yaml"
    path.write_text(f"extends: {load_variant('304').path}\nname: copies-call\n"
                    "deck:\n  copies: 2\n  total: 608\n"
                    "flow:\n  - deal: [8, 8]\n  - auction\n  - trump\n  - call_partner\n  - play\n")
    v = load_variant(str(path))
    k = kernel_for(v, kernel_cache)
    st = positions(v, 1, 2, later=True)[0]
    assert any(a.kind == "call-partner" for _, a in st.history)
    with pytest.raises(Unsupported, match="a partner call in a deck with copies"):
        k.worlds(st, st.to_act)
    v = load_variant("29")
    k = kernel_for(v, kernel_cache)
    st = State(v, dealer=0, seed=1)
    with pytest.raises(Unsupported, match="play phase"):
        k.worlds(st, st.to_act)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=hst.sampled_from(FAST + REPLAY), seed=hst.integers(0, 10 ** 6), depth=hst.integers(0, 40),
       seat=hst.integers(0, 7), rseed=hst.integers(0, 2 ** 31))
def test_random_positions_draw_the_same_worlds(name, seed, depth, seat, rseed, kernel_cache):
    """From a random position in play, for a random seat: the kernel's worlds are
    `resample`'s from the same generator state."""
    v = load_variant(name)
    st = at_random(v, seed, depth)
    if st is None or st.is_terminal:
        return
    k = kernel_for(st.v, kernel_cache)
    w = k.worlds(st, seat % v.players)
    for i in range(4):
        r1, r2 = random.Random(rseed + i), random.Random(rseed + i)
        e = st.resample(seat % v.players, r1)
        assert not differences(k, k.state(e), w.sample(r2))
        assert r1.getstate() == r2.getstate()
