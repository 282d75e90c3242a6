"""The encoding of a seat's observation (taash.learn.encoding): values worked out by hand
from the rules of 29, and invariance under a re-deal of the cards the seat cannot see."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

np = pytest.importorskip("numpy")

from taash.interpreter import State, load_variant, shipped_variants  # noqa: E402
from taash.learn.encoding import PHASES, Encoding  # noqa: E402

SUITS = "SHDC"
RANKS = ["J", "9", "A", "T", "K", "Q", "8", "7"]   # 29's deck, strongest first


def suit_cards(s):
    return [r + s for r in RANKS]


def test_29_by_hand():
    """29, dealer 0, each seat dealt one suit (first packet: J 9 A T; second: K Q 8 7).
    Seat 1 (eldest, §0.2) is first to call; seat 2 looks."""
    v = load_variant("29")
    e = Encoding(v)
    st = State(v, dealer=0, hands=[suit_cards(s) for s in SUITS])
    b = e.views(e.encode(st.observation(2)))
    assert b["phase"].tolist() == [1.0 if p == "auction" else 0.0 for p in PHASES]
    # relative seats: seat 1 is 3 places after seat 2, the dealer seat 0 is 2 places after
    assert b["to_act"].tolist() == [0, 0, 0, 1, 0]
    assert b["dealer"].tolist() == [0, 0, 1, 0]
    # a card's id is suit index * 8 + rank index: diamonds are 16..23; J 9 A T are dealt first
    assert np.flatnonzero(b["hand"]).tolist() == [16, 17, 18, 19]
    assert b["hand_sizes"].tolist() == [0.5, 0.5, 0.5, 0.5]       # 4 of the 8 cards a seat gets
    assert b["trump"].tolist() == [0, 0, 0, 0, 1]          # no trump yet
    assert not b["calls"].any() and not b["played"].any()

    st.apply("bid 16")                                      # seat 1
    st.apply("pass")                                        # seat 2
    b = e.views(e.encode(st.observation(2)))
    k16, kpass = e.other_index["bid 16"], e.other_index["pass"]
    assert b["calls"][3, k16] == 1 and b["calls"][0, kpass] == 1
    assert b["calls"].sum() == 2
    assert b["high_bid"][0] == pytest.approx(16 / 29)
    assert b["high_bidder"].tolist() == [0, 0, 0, 1, 0]
    assert b["to_act"].tolist() == [0, 1, 0, 0, 0]           # seat 3 next: relative 1


def test_29_trick_and_played_by_hand():
    """Seat 1 bids 15 and everyone passes: seat 1 declares, names hearts trump, and leads;
    after its lead JH, seat 0 sees JH in the trick and played by relative seat 1."""
    v = load_variant("29")
    e = Encoding(v)
    st = State(v, dealer=0, hands=[suit_cards(s) for s in SUITS])
    for a in ("bid 15", "pass", "pass", "pass", "trump H"):
        st.apply(a)
    assert st.phase == "play" and st.to_act == 1
    st.apply("play JH")
    b = e.views(e.encode(st.observation(0)))
    jh = 8                                                  # hearts: 8..15, J first
    assert np.flatnonzero(b["trick"][1]).tolist() == [jh]
    assert np.flatnonzero(b["played"][1]).tolist() == [jh]
    assert b["trick"].sum() == 1 and b["played"].sum() == 1
    assert b["declarer"].tolist() == [0, 1, 0, 0, 0]
    assert b["trump"].tolist() == [0, 1, 0, 0, 0]           # open trump: every seat knows H
    assert b["target"][0] == pytest.approx(15 / 29)
    assert b["hand"].sum() == 8 and b["hand_sizes"].tolist() == [1, 7 / 8, 1, 1]


def test_call_break_bids_by_hand():
    """Call Break (bids.min 1, bids.max 8: the top bid 8), dealer 0: the eldest, seat 1,
    bids first. Seat 1 bids 3 and seat 2 bids 5; seat 2 sees its own bid in row 0 and
    seat 1's in row 3 (seat 1 is 3 places after it), as made and bid / 8; seats 3 and 0
    have not bid. A variant without a bids step has no feature for them."""
    v = load_variant("call-break")
    e = Encoding(v)
    st = State(v, dealer=0, seed=4)
    assert st.phase == "bids" and st.to_act == 1
    assert e.blocks["bids"] == (4, 2)
    assert not e.views(e.encode(st.observation(2)))["bids"].any()
    st.apply("bid 3")
    st.apply("bid 5")
    b = e.views(e.encode(st.observation(2)))
    assert b["bids"].tolist() == [[1, 5 / 8], [0, 0], [0, 0], [1, 3 / 8]]
    assert e.views(e.encode(st.observation(1)))["bids"].tolist() == [[1, 3 / 8], [1, 5 / 8], [0, 0], [0, 0]]
    e29 = Encoding(load_variant("29"))
    assert e29.blocks["bids"] == (4, 0) and e29.size == 1159


def test_mask_is_the_legal_actions():
    v = load_variant("29")
    e = Encoding(v)
    st = State(v, dealer=0, hands=[suit_cards(s) for s in SUITS])
    m = e.mask(st.observation(1))
    assert np.flatnonzero(m).tolist() == sorted(a.id for a in st.legal_actions())
    assert not e.mask(st.observation(2)).any()               # not to act: all zeros


def redeal_invariance(name, seed, every=1):
    """At each step of a random deal, for each seat: the seat's encoded observation is the
    same bytes on a re-deal of the cards it cannot see (State.resample)."""
    v = load_variant(name)
    e = Encoding(v)
    rng = random.Random(seed)
    st = State(v, dealer=seed % v.players, seed=seed)
    step = 0
    while not st.is_terminal:
        if step % every == 0:
            for s in range(v.players):
                r = st.resample(s, rng)
                assert e.encode(r.observation(s)).tobytes() == e.encode(st.observation(s)).tobytes(), (name, step, s)
        st.apply_id(rng.choice(st.legal_ids()))
        step += 1
    for s in range(v.players):
        assert e.encode(st.observation(s)).shape == (e.size,)


@pytest.mark.parametrize("name", shipped_variants())
def test_redeal_leaves_each_seats_encoding_unchanged(name):
    redeal_invariance(name, seed=1, every=3)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(name=hs.sampled_from(shipped_variants()), seed=hs.integers(0, 10 ** 6))
def test_redeal_invariance_every_step(name, seed):
    """The invariant as a property: any variant, any deal, every step, every seat."""
    redeal_invariance(name, seed)


def test_hidden_cards_do_change_the_full_state():
    """The invariance above is not empty: the re-deal does move other seats' cards."""
    v = load_variant("29")
    st = State(v, dealer=0, seed=5)
    r = st.resample(0, random.Random(1))
    assert r.hands[0] == st.hands[0] and r.dealt != st.dealt


def test_a_hand_size_by_deal_keeps_one_size():
    """docs/examples/judgement.yaml deals 8 cards in deal 1 down to 1 in deal 8: one
    encoding for every deal, sized by the most (8 cards, 8 tricks). In deal 8 (one card
    each, seat 2 deals) seat 3 is the eldest and bids first; seat 0 sees each seat's
    hand as 1 of the 8 cards an encoded hand makes room for: 1/8."""
    v = load_variant(Path(__file__).resolve().parents[2] / "docs" / "examples" / "judgement.yaml")
    e = Encoding(v)
    st = State(v, dealer=2, seed=3, deal_number=7)
    first = State(v, dealer=2, seed=3)
    x, y = e.encode(st.observation(0)), e.encode(first.observation(0))
    assert x.shape == y.shape == (e.size,)
    b = e.views(x)
    assert b["hand_sizes"].tolist() == [0.125] * 4
    assert b["to_act"].tolist() == [0, 0, 0, 1, 0]      # seat 3: three places after seat 0
    # the bids of this deal are 0 and 1; the mask's ids are the variant's, the same in every deal
    assert [v.actions[i].text for i in np.flatnonzero(e.mask(st.observation(3)))] == ["bid 0", "bid 1"]
