"""State.resample (interpreter/information.py) and State.default_action, by property tests
over every shipped variant at random points of random games, and the exposed trump card
of docs/rules.md §28.7 in every seat's observation, worked by hand.

Self-contained: the checks below replay through the public State API only.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as hs

from taash.interpreter import Match, State, load_variant, shipped_variants

VARIANTS = shipped_variants()
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
NOT_DEFAULT = {"declare", "expose", "double", "redouble"}


@lru_cache(maxsize=None)
def variant(name):
    return load_variant(name)


def random_point(name, seed, stop):
    """Deal 0 of Match(v, seed) played at random (random.Random(seed)) and stopped after
    a fraction ``stop`` of its actions; also the whole list of its states."""
    v = variant(name)
    rng = random.Random(seed)
    st = Match(v, seed).new_deal()
    states = [st.copy()]
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
        states.append(st.copy())
    k = min(len(states) - 1, int(stop * len(states)))
    st = states[k]
    note(f"variant={name!r} seed={seed} actions={st.actions()!r}")
    return v, st


def texts(v, cards):
    return [v.deck.text[c] for c in cards]


def fingerprint(st):
    return json.dumps({"obs": [st.observation(s) for s in range(st.v.players)],
                       "truth": [st.hands, st.dealt, st.widow, [list(x) for x in st.history],
                                 st.tricks, st.trick_cards, st.phase, st.to_act, st.trump,
                                 st.trump_card]}, sort_keys=True, default=list)


def check_exact(st, r, seat):
    """``r`` is a consistent re-deal of ``st`` for ``seat``: replaying r's history on r's
    deal is legal at every step, every step shows ``seat`` the same observation as the
    original at that step, its hand is unchanged and the cards make up the deck."""
    v = st.v
    hands = [texts(v, h) for h in r.dealt]
    widow = texts(v, r.widow) or None
    a = State(v, dealer=st.dealer, hands=[texts(v, h) for h in st.dealt],
              widow=texts(v, st.widow) or None, scores=st.start_scores, deal_number=st.deal_number)
    b = State(v, dealer=st.dealer, hands=hands, widow=widow, scores=st.start_scores,
              deal_number=st.deal_number)
    assert a.observation(seat) == b.observation(seat)
    assert len(r.history) == len(st.history)
    for (sa, xa), (sb, xb) in zip(st.history, r.history):
        assert sa == sb == a.to_act == b.to_act
        assert st.public_action(sa, xa, seat) == r.public_action(sb, xb, seat)
        a.apply(xa)
        b.apply(xb)       # raises IllegalActionError if the re-deal is inconsistent
        assert a.observation(seat) == b.observation(seat)
    assert r.observation(seat) == st.observation(seat)
    assert r.hands[seat] == st.hands[seat]
    deck = Counter(v.deck.cards())
    assert Counter(c for h in r.dealt for c in h) + Counter(r.widow) == deck
    # the cards on the table are those of the original
    assert r.tricks == st.tricks and r.trick_cards == st.trick_cards


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=12, **SETTINGS)
@given(seed=hs.integers(0, 2**32 - 1), stop=hs.floats(0, 1), rseed=hs.integers(0, 2**32 - 1),
       seat_draw=hs.integers(0, 7))
def test_resample_is_exact_and_independent(name, seed, stop, rseed, seat_draw):
    v, st = random_point(name, seed, stop)
    seat = seat_draw % v.players
    before = fingerprint(st)
    r = st.resample(seat, random.Random(rseed))
    assert r is not st
    check_exact(st, r, seat)
    # the same rng state gives the same re-deal
    again = st.resample(seat, random.Random(rseed))
    assert (again.dealt, again.widow, again.history) == (r.dealt, r.widow, r.history)
    # independent: playing the re-deal to its end leaves the original as it was
    rng = random.Random(rseed)
    while not r.is_terminal:
        r.apply(rng.choice(r.legal_actions()))
    assert fingerprint(st) == before
    # and the original goes on without changing a fresh re-deal
    r2 = st.resample(seat, random.Random(rseed))
    snap = fingerprint(r2)
    cp = st.copy()
    while not cp.is_terminal:
        cp.apply(rng.choice(cp.legal_actions()))
    assert fingerprint(r2) == snap


@pytest.mark.parametrize("name", VARIANTS)
def test_resample_every_seat_through_a_deal(name):
    """Every seat at every fourth point of two seeded deals: never fails, always exact."""
    v = variant(name)
    for seed in (11, 12):
        rng = random.Random(seed)
        st = Match(v, seed).new_deal()
        k = 0
        while True:
            if k % 4 == 0:
                for seat in range(v.players):
                    check_exact(st, st.resample(seat, rng), seat)
            if st.is_terminal:
                break
            st.apply(rng.choice(st.legal_actions()))
            k += 1


def test_resample_moves_unseen_cards_and_keeps_seen_ones():
    """29 at the start of play: seat 0's eight cards stay; the other 24 cards move."""
    v = variant("29")
    st = Match(v, 5).new_deal()
    rng = random.Random(5)
    while st.phase != "play":
        st.apply(st.default_action())
    moved = 0
    for _ in range(20):
        r = st.resample(0, rng)
        assert r.dealt[0] == st.dealt[0] and r.hands[0] == st.hands[0]
        moved += sum(a != b for s in (1, 2, 3) for a, b in zip(r.hands[s], st.hands[s]))
    assert moved > 0


def test_resample_seat_out_of_range():
    st = Match(variant("29"), 1).new_deal()
    with pytest.raises(ValueError):
        st.resample(4, random.Random(0))


# -- default_action -----------------------------------------------------------------------
@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=15, **SETTINGS)
@given(seed=hs.integers(0, 2**32 - 1), stop=hs.floats(0, 1))
def test_default_action(name, seed, stop):
    v, st = random_point(name, seed, stop)
    if st.is_terminal:
        with pytest.raises(ValueError):
            st.default_action()
        return
    legal = st.legal_actions()
    a = st.default_action()
    assert a in legal
    assert a.kind not in NOT_DEFAULT, (a, legal)
    if all(x.kind == "answer" for x in legal):
        assert a == legal[0]          # a question is answered, with its first answer


def test_default_action_answers_cot():
    """56-cot (docs/rules.md §56.8): after a defender asks `cot`, the declarer's default is
    the first answer, `cot yes`."""
    v = variant("house/56-cot")
    for seed in range(40):
        st = Match(v, seed).new_deal()
        while not st.is_terminal and "cot" not in st.legal_actions():
            st.apply(st.default_action())
        if not st.is_terminal:
            break
    assert st.default_action().kind == "play"      # cot itself is never the default
    st.apply("cot")
    assert st.to_act == st.declarer
    assert st.default_action() == "cot yes"


def first_hidden_choice(name, seed, kind):
    """Deal 0 of Match(v, seed) played by default actions up to the first decision whose
    legal actions include ``kind``, or None if the deal ends first."""
    st = Match(variant(name), seed).new_deal()
    while not st.is_terminal:
        if any(a.kind == kind for a in st.legal_actions()):
            return st
        st.apply(st.default_action())
    return None


@pytest.mark.parametrize("name,kind,hidden", [
    ("28", "trump-card", "trump-card"),     # docs/rules.md §28.5: the face-down card
    ("house/29-bhoos", "trump", "trump"),  # §29b.5: the suit named secretly
    ("304-solo", "take", "take"),           # §304s: a card taken from the widow
])
def test_hidden_default_is_drawn_from_every_choice_and_replays(name, kind, hidden):
    """A default for a choice the other seats cannot see reveals nothing: it is drawn
    from the legal actions of that kind (all shown as the bare ``hidden`` word to the
    others), not always the first; the same point of the same deal gets the same one."""
    seen = Counter()
    positions = set()
    for seed in range(120):
        st = first_hidden_choice(name, seed, kind)
        if st is None:
            continue
        legal = [a for a in st.legal_actions() if a.kind == kind]
        assert all(st.public_action(st.to_act, a, (st.to_act + 1) % st.v.players) == hidden
                   for a in legal)
        a = st.default_action()
        assert a in legal
        positions.add(legal.index(a))
        seen[a.kind] += 1
        # the same point again (a copy; the same deal re-dealt from its record): the same default
        assert st.copy().default_action() == a
        rec = Match(variant(name), seed)
        st2 = rec.new_deal(hands=[[st.v.deck.text[c] for c in h] for h in st.dealt],
                           widow=[st.v.deck.text[c] for c in st.widow], dealer=st.dealer)
        for _, act in st.history:
            st2.apply(act)
        assert st2.default_action() == a
        # an explicit generator draws from the same set
        assert st.default_action(random.Random(7)) in legal
    assert seen[kind] >= 60
    assert positions == set(range(len(legal))), positions   # each choice appears, not only the first


def test_visible_default_stays_the_first():
    """A choice every seat sees (a bid, a card played) is still the first of §0.10."""
    for seed in range(20):
        st = Match(variant("29"), seed).new_deal()
        while not st.is_terminal:
            legal = st.legal_actions()
            a = st.default_action()
            if st.public_action(st.to_act, a, None) == a:
                assert a == [x for x in legal if x.kind not in NOT_DEFAULT][0]
            st.apply(a)


# -- docs/rules.md §28.7: the exposed card is public ----------------------------------------
# 28, dealer 3, eldest 0 (first four cards, then the second packet, per seat)
HANDS_28 = [["JS", "9S", "AS", "7H", "TS", "KS", "QS", "8S"],
            ["JH", "9H", "AH", "TH", "KH", "QH", "8H", "JD"],
            ["7S", "9D", "AD", "TD", "KD", "QD", "8D", "7D"],
            ["JC", "9C", "AC", "TC", "KC", "QC", "8C", "7C"]]


def test_exposed_card_is_in_every_observation():
    """Seat 0 bids 14 and lays 7H face down (§28.5); only seat 0 sees it. Seat 0 leads
    JS; seat 1, void in spades, asks `expose` (§28.7): from then on every seat's
    observation shows `exposed_card` 7H and trump H, nobody's shows a face-down card,
    and seat 1 must play a heart."""
    v = variant("28")
    st = State(v, dealer=3, hands=HANDS_28)
    for a in ["bid 14", "pass", "pass", "pass", "trump-card 7H", "play JS"]:
        st.apply(a)
    obs = [st.observation(s) for s in range(4)]
    assert [o["trump_card"] for o in obs] == ["7H", None, None, None]
    assert [o["exposed_card"] for o in obs] == [None] * 4
    assert [o["trump"] for o in obs] == ["H", None, None, None]
    assert "expose" in st.legal_actions()
    st.apply("expose")
    obs = [st.observation(s) for s in range(4)]
    assert [o["exposed_card"] for o in obs] == ["7H"] * 4
    assert [o["trump"] for o in obs] == ["H"] * 4
    assert [o["trump_card"] for o in obs] == [None] * 4
    assert not any(o["face_down"] for o in obs)
    assert "7H" in obs[0]["hand"]
    assert st.legal_actions() == ["play " + c for c in ["JH", "9H", "AH", "TH", "KH", "QH", "8H"]]
    st.apply("play JH")
    assert all(st.observation(s)["exposed_card"] == "7H" for s in range(4))
    # the exposed card is information: every re-deal for seat 2 keeps 7H in seat 0's hand
    rng = random.Random(3)
    for _ in range(10):
        r = st.resample(2, rng)
        assert v.deck.parse("7H") in r.hands[0]


def test_face_down_card_is_redealt_before_the_exposure():
    """Before the exposure the face-down card is unseen by seat 2: re-deals for seat 2
    lay other cards face down, among seat 0's first four cards; seat 0's own re-deals
    keep 7H."""
    v = variant("28")
    st = State(v, dealer=3, hands=HANDS_28)
    for a in ["bid 14", "pass", "pass", "pass", "trump-card 7H", "play JS"]:
        st.apply(a)
    rng = random.Random(4)
    down = set()
    for _ in range(30):
        r = st.resample(2, rng)
        down.add(v.deck.text[r.trump_card])
        assert r.trump_card in r.dealt[0][:4]
        assert st.resample(0, rng).trump_card == v.deck.parse("7H")
    assert len(down) > 1


def test_exposed_card_played_at_the_last_trick():
    """§28.8: never exposed, the face-down card is seat 0's last card; played, it is the
    exposed card for every seat."""
    v = variant("28")
    st = State(v, dealer=3, hands=HANDS_28)
    for a in ["bid 14", "pass", "pass", "pass", "trump-card 7H"]:
        st.apply(a)
    while not st.is_terminal:
        legal = st.legal_actions()
        st.apply(next(a for a in legal if a != "expose"))
    assert [st.observation(s)["exposed_card"] for s in range(4)] == ["7H"] * 4


def test_widow_exchange_is_redealt_for_the_defenders_only():
    """304-solo (docs/rules.md §304s.4): the declarer takes both widow cards and discards two.
    A defender sees only `take`/`discard`: its re-deals change the cards taken and set
    aside (the history's hidden cards follow them); the declarer, who saw the widow,
    keeps widow and set-aside cards in every re-deal."""
    v = variant("304-solo")
    st = Match(v, 3).new_deal()
    while st.phase != "play":
        st.apply(st.default_action())
    takes = [a for _, a in st.history if a.kind == "take"]
    assert len(takes) == 2 and len(st.set_aside) == 2
    defender = next(s for s in range(v.players) if s != st.declarer)
    rng = random.Random(8)
    seen_takes = set()
    for _ in range(30):
        r = st.resample(defender, rng)
        seen_takes.add(tuple(a for _, a in r.history if a.kind == "take"))
        assert not set(r.set_aside) & {c for h in r.hands for c in h}
        d = st.resample(st.declarer, rng)
        assert d.widow == st.widow and d.set_aside == st.set_aside
        assert d.history == st.history
    assert len(seen_takes) > 1


def test_bounded_tries_raise_a_clear_error():
    from taash.interpreter import TaashError
    from taash.interpreter.information import ResampleError, resample
    st = Match(variant("29"), 2).new_deal()
    with pytest.raises(ResampleError, match="no consistent deal for seat 1 in 0 tries"):
        resample(st, 1, random.Random(0), max_tries=0)
    assert issubclass(ResampleError, TaashError)
