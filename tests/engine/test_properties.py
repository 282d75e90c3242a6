"""Property tests (hypothesis) over every shipped variant (`shipped_variants()`, so a new
file under variants/ is picked up without editing this file).

1. never stuck      2. cards conserved    3. points add up     4. trick winners (oracle)
5. §0.10 order      6. records replay     7. copy independence 8. observation invariance
9. observation_json is the observation's JSON text, on a state and on its copies

Hypothesis draws the deal seed and the index of every legal action taken (properties 1-5
also play a few extra deals cheaply with a random.Random; whole matches use a seeded
random.Random). On a failure the variant, the seed, the hands and the actions are printed
(hypothesis `note`); replay them with `State(load_variant(name), dealer=..., hands=...)`.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as hs

from taash.interpreter import Match, load_variant, replay, replay_json, shipped_variants
from taash.interpreter.auction import PHASES

from tests.helpers import ROOT
from tests.helpers.props import (Redealer, auction_shy_chooser, check_conservation, check_order,
                                 check_tricks, obs_json, oracle_points, play_out,
                                 redeals, replay_in_lockstep, use_ranks, card_points)

pytestmark = pytest.mark.slow  # about a minute in all

# the shipped variants, and the worked examples of docs/authoring.md that no shipped one is
# like: each player for himself, a contract that changes hands
VARIANTS = shipped_variants() + [str(ROOT / "docs" / "examples" / "three-hand-alone.yaml"),
                                 str(ROOT / "docs" / "examples" / "exact-bid.yaml")]  # each bids his own
# a deck less named cards, points per suit and card, no trump, trump set by an effect in
# play; and a test variant built on it whose cards are held in different numbers (two
# copies of each ace) with a widow whose points count for the last trick's winner; every
# property below but the trick oracle's, which knows no trump set by an effect
EXAMPLES = [str(ROOT / "docs" / "examples" / "queen-hunt.yaml"),
            str(ROOT / "tests" / "variants" / "mixed-copies.yaml"),
            str(ROOT / "tests" / "variants" / "flow-constructs.yaml"),
            str(ROOT / "docs" / "examples" / "judgement.yaml")]  # a hand size by deal, trump by a rule
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                       HealthCheck.data_too_large,
                                                       HealthCheck.filter_too_much])
# Examples per variant, scaled so that the whole file stays within about a minute however
# many variants ship (17 at the time of writing).
_SCALE = max(0.25, min(1.0, 8 / len(VARIANTS)))


def examples(n: int) -> int:
    return max(5, round(n * _SCALE))


@lru_cache(maxsize=None)
def _variant(name):
    return load_variant(name)


def variant(name):
    v = _variant(name)
    use_ranks(v)  # the oracles' order of strength
    return v


def drawn(data):
    """A chooser whose choices hypothesis draws (and shrinks towards the first action)."""
    return lambda legal: data.draw(hs.integers(0, len(legal) - 1))


def new_deal(name, seed):
    v = variant(name)
    st = Match(v, seed).new_deal()
    note(f"variant={name!r} seed={seed} dealer={st.dealer} "
         f"hands={[[v.deck.text[c] for c in h] for h in st.dealt]}")
    return v, st


def report(st):
    note(f"actions={st.actions()!r}")


seeds = hs.integers(0, 2**32 - 1)


def run_deals(name, seed, data, check=None, at_end=None, extra=0):
    """Play one deal with drawn choices, then ``extra`` more deals cheaply (deal k: match
    seed ``seed + k + 1``, choices ``random.Random(seed + k + 1).randrange``), calling
    ``check(st)`` before every action and at the end, and ``at_end(st)`` at the end."""
    v, st = new_deal(name, seed)
    choosers = [drawn(data)]
    for k in range(extra):
        rng = random.Random(seed + k + 1)
        choosers.append(lambda legal, rng=rng: rng.randrange(len(legal)))
    for k, choose in enumerate(choosers):
        if k:
            st = Match(v, seed + k).new_deal()
        try:
            play_out(st, choose, check=check)
            if at_end:
                at_end(st)
        except BaseException:
            if k:
                note(f"failing deal: variant={name!r} Match(v, {seed + k}).new_deal(), "
                     f"choices random.Random({seed + k}).randrange")
            report(st)
            raise


# -- 1. never stuck -----------------------------------------------------------------------
@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(60), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_never_stuck(name, seed, data):
    v = variant(name)

    def check(s):
        if not s.is_terminal:
            assert 0 <= s.to_act < v.players
            assert s.phase not in ("done", "deal")
        else:
            # the handler is DONE exactly when no seat is to act (State.legal_ids asks it)
            assert s.legal_actions() == [] and s.to_act == -1 and s.phase == "done"

    # play_out asserts: legal actions non-empty and without duplicates, <= 500 actions
    run_deals(name, seed, data, check=check, extra=5)


# -- 2. cards conserved -------------------------------------------------------------------
@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(60), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_cards_conserved(name, seed, data):
    run_deals(name, seed, data, check=check_conservation, extra=1)


# -- 3. points add up -----------------------------------------------------------------------
def check_points(st):
    v = st.v
    if st.declarer < 0 and v.has_contract and st.taken_over is None:  # thrown in: nobody bid, no trick
        assert st.tricks == [] and sum(st.side_points) == 0 and sum(st.seat_points) == 0
        return
    assert len(st.tricks) == v.tricks
    # the cards of a seat that sits out stay in its hand and count for nobody
    held = sum(card_points(v, v.deck.text[c]) for s in range(v.players) if st.out[s] for c in st.hands[s])
    assert all(not h for s, h in enumerate(st.hands) if not st.out[s])
    assert sum(st.side_points) + held == v.total, f"side points {st.side_points} + {held} != {v.total}"
    assert sum(st.seat_points) + held == v.total, f"seat points {st.seat_points} + {held} != {v.total}"
    # and from the tricks, the last-trick bonus and the set-aside cards (§0.5), with the
    # sides of §0.6, §304.8 (the cut) and §304s.1
    seat_pts, decl_side_pts = oracle_points(st)
    assert seat_pts == list(st.seat_points), f"seat points {st.seat_points}, expected {seat_pts}"
    if st.declarer < 0:   # played without a contract: no declarer's side to count
        return
    assert st.side_points[st.side[st.declarer]] == decl_side_pts, (
        f"declarer's side has {st.side_points[st.side[st.declarer]]} points, expected {decl_side_pts}")


@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(60), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_points_add_up(name, seed, data):
    run_deals(name, seed, data, at_end=check_points, extra=20)


# -- 4. trick winners by an independent oracle ----------------------------------------------
@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(60), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_trick_winners(name, seed, data):
    run_deals(name, seed, data, at_end=check_tricks, extra=10)


# -- 5. legal actions ordered per §0.10 ------------------------------------------------------
@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(60), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_legal_actions_order(name, seed, data):
    run_deals(name, seed, data, check=lambda s: check_order(s.legal_actions()), extra=5)


# -- 6. records replay; same seed and choices, same match ----------------------------------
def play_match(v, seed, rng_seed, max_deals):
    m = Match(v, seed)
    choose = auction_shy_chooser(random.Random(rng_seed))
    while not m.over and len(m.deals) < max_deals:
        st = m.new_deal()
        play_out(st, choose)
        m.finish_deal(st)
    return m


@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(12), **SETTINGS)
@given(seed=seeds, rng_seed=seeds, max_deals=hs.integers(1, 30))
def test_records_replay(name, seed, rng_seed, max_deals):
    v = variant(name)
    note(f"variant={name!r} seed={seed} rng_seed={rng_seed} max_deals={max_deals} (auction_shy_chooser)")
    m = play_match(v, seed, rng_seed, max_deals)
    event("the match ended" if m.over else "the match goes on")
    rec = m.record()
    again = replay(json.loads(json.dumps(rec)))
    assert json.dumps(replay_json(again), sort_keys=True) == json.dumps(replay_json(m), sort_keys=True)
    assert again.over == m.over and again.record() == rec
    # the same seed and the same choices give the same match
    twin = play_match(v, seed, rng_seed, max_deals)
    assert twin.record() == rec
    assert replay_json(twin) == replay_json(m)


# -- 7. copy() is independent -----------------------------------------------------------------
def deal_at_random_point(name, seed, data):
    """A deal played with drawn choices, then rewound to a drawn point of it (so that
    every phase is reached as often as its share of the deal's actions)."""
    v, st = new_deal(name, seed)
    actions = play_out(st, drawn(data))
    stop = data.draw(hs.integers(0, len(actions)), label="stop")
    st = Match(v, seed).new_deal()
    for a in actions[:stop]:
        st.apply(a)
    report(st)
    return v, st, drawn(data)


def fingerprint(st):
    """Every seat's observation, the legal actions and the deal's whole truth."""
    return json.dumps({
        "obs": [st.observation(s) for s in range(st.v.players)],
        "legal": st.legal_actions(),
        "truth": [st.hands, st.dealt, st.widow, st.history, st.tricks, st.trick_cards,
                  st.trick_seats, st.side_points, st.seat_points, st.scores, st.phase,
                  st.to_act, st.declarer, st.trump, st.trump_card, st.trump_exposed],
    }, sort_keys=True, default=list)


@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(40), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_copy_is_independent(name, seed, data):
    v, st, choose = deal_at_random_point(name, seed, data)
    before = fingerprint(st)
    cp = st.copy()
    assert fingerprint(cp) == before
    play_out(cp, choose)  # play the copy to the end: the original does not move
    assert fingerprint(st) == before
    # and the other way round: playing the original on does not change a fresh copy
    cp2 = st.copy()
    play_out(st, choose)
    assert fingerprint(cp2) == before


# -- 9. observation_json: the observation's JSON, whatever the state's past ---------------
def check_json_views(st):
    """Every seat's observation_json is the json module's compact text of its observation."""
    for s in range(st.v.players):
        assert st.observation_json(s) == json.dumps(st.observation(s), separators=(",", ":"),
                                                    ensure_ascii=False), (report(st), s)


@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(20), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_observation_json_is_the_observations_text(name, seed, data):
    # its kept JSON of the history and tricks must follow the state it is asked of: a
    # copy taken midway and played on differently, and the original played on after it
    v, st, choose = deal_at_random_point(name, seed, data)
    check_json_views(st)
    cp = st.copy()
    play_out(cp, choose, check=check_json_views)
    check_json_views(cp)
    play_out(st, lambda legal: len(legal) - 1, check=check_json_views)
    check_json_views(st)


# -- 8. observation invariance under re-dealing the unseen cards ----------------------------
@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(50), **SETTINGS)
@given(seed=seeds, data=hs.data(), rseed=seeds)
def test_observation_invariance(name, seed, data, rseed):
    v, st, _choose = deal_at_random_point(name, seed, data)
    rng = random.Random(rseed)
    checked = 0  # seats whose observation was compared under a re-deal that moved a card
    for me in range(v.players):
        rd = Redealer(st, me)
        steps = None
        for assignment, (dealt, widow, history), steps in redeals(st, rd, rng, 20):
            if steps is not None:
                break
        if steps is None:
            event("no consistent re-deal found")
            continue
        moved = sum(1 for p, c in assignment.items() if c != rd.card_at(p))
        event(f"re-deal found in phase {st.phase}, {'some' if moved else 'no'} card moved")
        if rd.fd_pos is not None and assignment[rd.fd_pos] != rd.card_at(rd.fd_pos):
            event("the face-down trump card re-dealt")
        if history != st.history:
            event("a hidden card of the history remapped")
        if any(p[0] == "w" and c != rd.card_at(p) for p, c in assignment.items()):
            event("widow re-dealt")
        for k, a, b in steps:
            assert a == b, (f"seat {me}'s observation changes when the cards it cannot see are "
                            f"re-dealt, after {k} actions.\nre-dealt hands: {dealt}\n"
                            f"remapped history: {[x for _, x in history[:k]]}\n"
                            f"original: {a}\nre-dealt: {b}")
        checked += moved > 0
        negative_control(st, rd, me, rng)
    # A point where no seat could be re-dealt (every card seen, or no consistent re-deal
    # found) checks nothing: hypothesis discards it and draws another point, and fails the
    # test (Unsatisfiable) if it finds none that checks something.
    assume(checked > 0)


def negative_control(st, rd, me, rng):
    """Swapping one card of me's own hand with an unseen card must change its observation
    (so the comparison above can fail)."""
    text = st.v.deck.text
    hand = [text[c] for c in st.hands[me]]
    unseen = set(rd.positions)
    own = [(me, i) for i, c in enumerate(rd.dealt[me]) if (me, i) not in unseen and c in hand]
    others = [p for p in rd.positions if p[0] not in ("w", me)]
    if not own or not others:
        return
    for _ in range(20):
        p_own, p = rng.choice(own), rng.choice(others)
        card, other_card = rd.card_at(p_own), rd.card_at(p)
        if other_card == card:
            continue
        swapped = rd.build({p_own: other_card, p: card})
        steps = replay_in_lockstep(st, *swapped, me)
        if steps is None:
            continue
        assert steps[-1][1] != steps[-1][2], "swapping a card of the seat's own hand left its observation unchanged"
        event("negative control ran")
        return


# -- the DSL's beats() is the engine's trick order --------------------------------------------
@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(20), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_beats_agrees_with_the_trick_winner(name, seed, data):
    """At every decision of play, the card winning the trick as it stands beats every other
    card of the trick (an identical copy played later excepted) and none of them beats it,
    by ``State.beats`` for the seat to act: the DSL's ``beats`` and ``Play.best`` agree."""
    def check(s):
        if s.is_terminal or s.phase != "play" or not s.trick_cards:
            return
        win = s.winning_card()
        for c in s.trick_cards:
            if c != win:
                assert s.beats(s.to_act, win, c) and not s.beats(s.to_act, c, win), (win, c)
        assert not s.beats(s.to_act, win, win) and s.beats(s.to_act, win, -1)

    run_deals(name, seed, data, check=check, extra=1)


# -- the generated auction step is the rules asked one by one -----------------------------
@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(30), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_generated_auction_legal_is_the_rules(name, seed, data):
    """``Variant.auction_legal`` (dsl.Compiler.build_auction_legal) gives, at every call of
    the auction, what `engine.Auction.legal` gives asking ``may_pass``, ``may_bid`` (once
    per bid number), ``may_equal``, ``may_double`` and ``may_redouble`` one by one
    (docs/rules.md §0.5, §0.10): the same ids in the same order."""
    asked, void = [], []

    def check(s):
        if s.is_terminal:
            void.append(s.voided)   # a deal a declaration ended void before the auction
            return
        if s.phase != "auction":
            return
        assert s.v.auction_legal(s) == PHASES["auction"].legal(s)
        asked.append(1)

    run_deals(name, seed, data, check=check, extra=1)
    if load_variant(name).has_auction and not any(void):
        assert asked, "no call of the auction was checked"


# -- the generated play step is the rules asked one by one --------------------------------
def play_legal_by_rules(s) -> list[int]:
    """docs/rules.md §0.4, §0.8, §28.7, from the variant's compiled rules asked one at a time
    (each its own function, as `taash rules` shows it): a question's answers; the face-down
    trump card alone at the declarer's last card; else the play declarations not made yet
    whose `when` holds, expose when `play.may_expose` holds (trump chosen, not public),
    then the cards `play.may_play` gives (the hand when it gives none), one id per card."""
    v, me = s.v, s.to_act
    if s.question is not None:
        return [a.id for a in s.question[1].answer_actions]
    hand = s.hands[me]
    if s.trump_card >= 0 and me == s.declarer and not hand:
        return [s.trump_card]
    cards = sorted(set(v.rules["play.may_play"](s, me, None, None) or hand))
    out = [a.id for a, decl, su in v.declaration_actions
           if decl.at == "play" and a.id not in s.declared_keys and decl.when(s, me, su, None)]
    expose = v.rules["play.may_expose"]
    if s.trump >= 0 and not s.trump_exposed and expose is not None and expose(s, me, None, None):
        out.append(v.expose_action.id)
    return out + cards


@pytest.mark.parametrize("name", VARIANTS + EXAMPLES)
@settings(max_examples=examples(30), **SETTINGS)
@given(seed=seeds, data=hs.data())
def test_generated_play_legal_is_the_rules(name, seed, data):
    """``Variant.play_legal`` (one function made from the checked trees,
    dsl.Compiler.build_play_legal) gives, at every decision of play, what the variant's
    rules give asked one by one, and a list of its own (not the hand)."""
    def check(s):
        if s.is_terminal or s.phase != "play":
            return
        got = s.v.play_legal(s)
        assert got == play_legal_by_rules(s)
        assert got is not s.hands[s.to_act]

    run_deals(name, seed, data, check=check, extra=2)
