"""docs/rules.md §H and §29.10: the five house rules of 29 in variants/house/:
29-no-last-trick, 29-21-scores-2, 29-counter-clockwise, 29-to-minus-6, 29-hidden-trump.

Deals are in tests/helpers/rules.py; expected values are worked out from docs/rules.md in the
comments. Dealer 3 throughout, so seat 0 is the eldest.
"""

from __future__ import annotations

import random

import pytest

from taash.interpreter import InvalidActionError, State

from tests.helpers.rules import (A_HANDS, A_TRICKS_NO_EXPOSE, B_HANDS, C_HANDS, G5_HANDS,
                                 G5_TRICKS, G6A_HANDS, G6A_TRICKS, J9_HANDS, J9_TRICKS, bids, do,
                                 hand_of, illegal, match_with, new_state, play_g5, play_tricks,
                                 plays, trick, variant)

NLT = "house/29-no-last-trick"
S2 = "house/29-21-scores-2"
CCW = "house/29-counter-clockwise"
M6 = "house/29-to-minus-6"
HID = "house/29-hidden-trump"


def open_deal(name, rows, bid=15, trump="S", scores=None):
    """Seat 0 bids `bid`, the others pass (none after 29: §29.4 ends the auction at once),
    seat 0 names `trump`."""
    st = new_state(name, rows, scores=scores)
    do(st, f"0 bid {bid}")
    if bid < st.v.max_bid:
        do(st, "1 pass", "2 pass", "3 pass")
    return do(st, f"0 trump {trump}")


def j9(st, royals_at_trick2=False):
    """All-J9 deal (seat 0 leads and wins every trick, 29 points to side 0; trump C so
    that seat 2 keeps KC QC until trick 7)."""
    trick(st, *J9_TRICKS[0])
    if royals_at_trick2:
        do(st, "0 play 9S", "1 play TS", "2 declare royals")
        do(st, "2 play QS", "3 play 7S")
        rest = J9_TRICKS[2:]
    else:
        rest = J9_TRICKS[1:]
    for leader, cards in rest:
        assert trick(st, leader, cards) == 0
    return st


# == 29-no-last-trick (§H, §29.10) ======================================================
def test_h_no_last_trick_28_points():
    """docs/rules.md §29.10, §H 29-no-last-trick: no point for the last trick: 28 in all."""
    v = variant(NLT)
    assert v.last_trick == 0 and v.total == 28 and v.deck.total_points() == 28


def test_h_no_last_trick_bids_15_to_28():
    """docs/rules.md §29.10: bids 15..28 (29 is not a bid)."""
    st = new_state(NLT, G5_HANDS)
    assert st.legal_actions() == ["pass"] + bids(15, 28)
    illegal(st, "bid 29", InvalidActionError)   # no bid of this variant


def test_h_no_last_trick_auction_ends_at_once_on_28():
    """docs/rules.md §29.10: the auction ends at once on 28."""
    st = new_state(NLT, G5_HANDS)
    do(st, "0 bid 15", "1 bid 28")
    assert st.phase == "trump" and st.declarer == 1 and st.bid == 28


def test_h_no_last_trick_forced_dealer_kept():
    """docs/rules.md §H (extends 29, §29.4): three passes, the dealer must still bid."""
    st = new_state(NLT, G5_HANDS)
    do(st, "0 pass", "1 pass", "2 pass")
    assert st.legal_actions() == bids(15, 28)


def test_h_no_last_trick_g5():
    """docs/rules.md §G G5 under 29-no-last-trick: 14 to 14, bid 15 failed; seat 2's last trick
    (QC TC KC AC) is worth 2 only: seats 9, 5, 3+2 = 5, 9."""
    st = play_g5(open_deal(NLT, G5_HANDS, bid=15))
    assert st.side_points == [14, 14]
    assert st.result()["points"] == [9, 5, 5, 9]
    assert st.made is False and st.scores == [-1, 0]


# == 29-21-scores-2 (§H, §29.10) ========================================================
@pytest.mark.parametrize("bid,change", [(15, 1), (20, 1), (21, 2), (29, 2)])
def test_h_21_scores_2_made(bid, change):
    """docs/rules.md §29.10: a winning bid of 21 or more scores 2. All-J9: side 0 takes 29, so
    every bid is made: 15 and 20 score +1, 21 and 29 score +2."""
    st = j9(open_deal(S2, J9_HANDS, bid=bid, trump="C"))
    assert st.side_points == [29, 0] and st.made is True
    assert st.scores == [change, 0]


@pytest.mark.parametrize("bid,change", [(16, -1), (20, -1), (21, -2), (25, -2)])
def test_h_21_scores_2_failed(bid, change):
    """docs/rules.md §29.10: G5 (side 0 takes 15): bids 16 and 20 fail -1, 21 and 25 fail -2;
    the other side does not change."""
    st = play_g5(open_deal(S2, G5_HANDS, bid=bid, scores=[3, 3]))
    assert st.made is False
    assert st.scores == [3 + change, 3]


def test_h_21_scores_2_counts_the_winning_bid_not_the_target():
    """docs/rules.md §29.10: 'a bid of 21 or more (the winning bid)'. All-J9, bid 21, trump C:
    seat 2 shows royals (KC QC) in trick 2: target 17, made: still +2."""
    st = j9(open_deal(S2, J9_HANDS, bid=21, trump="C"), royals_at_trick2=True)
    assert st.target == 17 and st.made is True
    assert st.scores == [2, 0]


def test_h_21_scores_2_raised_target_does_not_count():
    """docs/rules.md §29.10: G6A with a bid of 20: the other side's royals raise the target to
    24 (21 or more), side 0 takes 18 and fails; the winning bid was 20: -1."""
    st = open_deal(S2, G6A_HANDS, bid=20, trump="H")
    play_tricks(st, G6A_TRICKS[:1])
    do(st, "1 declare royals")
    play_tricks(st, G6A_TRICKS[1:])
    assert st.target == 24 and st.side_points == [18, 11]
    assert st.scores == [-1, 0]


def test_h_21_scores_2_match_to_6():
    """docs/rules.md §29.9, §0.9 with §29.10: 'reaches 6' means >= 6: from 5, a made 21
    gives 7: the match is over."""
    m = match_with(S2, [5, 5])
    st = m.new_deal(hands=J9_HANDS, dealer=3)
    do(st, "0 bid 21", "1 pass", "2 pass", "3 pass", "0 trump C")
    j9(st)
    m.finish_deal(st)
    assert m.scores == [7, 5] and m.over and m.winners == [0, 2]


# == 29-counter-clockwise (§H, §29.10) ==================================================
def test_h_counter_clockwise_direction_only():
    """docs/rules.md §29.10, §0.1: counter-clockwise is display only: the direction is
    counter-clockwise, turn order is still next(s) = s+1 and G5 plays exactly as in 29."""
    assert variant(CCW).direction == "counter-clockwise"
    st = new_state(CCW, G5_HANDS)
    do(st, "0 pass", "1 pass", "2 pass", "3 bid 15", "0 bid 16", "1 pass", "2 pass",
       "3 pass", "0 trump S")
    play_g5(st)   # checks every seat in order s, s+1, ... and every winner
    assert st.side_points == [15, 14] and st.made is False and st.scores == [-1, 0]


def test_h_counter_clockwise_random_deals_turn_order():
    """docs/rules.md §0.1 in 29-counter-clockwise: in a trick the seats play s, s+1, s+2, s+3."""
    rng = random.Random(7)
    for seed in range(3):
        st = State(variant(CCW), dealer=seed, seed=seed)
        while not st.is_terminal:
            s = st.to_act
            st.apply(rng.choice(st.legal_actions()))
            if st.phase == "play" and st.trick_cards and st.trick_seats[-1] == s:
                assert st.to_act == (s + 1) % 4


# == 29-to-minus-6 (§H) =================================================================
def test_h_to_minus_6_side_at_minus_6_loses():
    """docs/rules.md §H 29-to-minus-6: a side at -6 loses: side 0 at -5 fails G5 (16): -6, the
    match is over and seats 1 and 3 win."""
    m = match_with(M6, [-5, 1])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [-6, 1] and m.over and m.winners == [1, 3]


def test_h_to_minus_6_plus_6_still_wins():
    """docs/rules.md §H 29-to-minus-6: besides, the first side to +6 wins."""
    m = match_with(M6, [5, -5])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [6, -5] and m.over and m.winners == [0, 2]


def test_h_to_minus_6_minus_5_goes_on():
    """docs/rules.md §H 29-to-minus-6: -4 - 1 = -5 does not end the match."""
    m = match_with(M6, [-4, 0])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [-5, 0] and not m.over


# == 29-hidden-trump (§H) ================================================================
def hid_a(bid=16, scores=None):
    st = new_state(HID, A_HANDS, scores=scores)
    return do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")


def hid_c(bid=15):
    st = new_state(HID, C_HANDS)
    return do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")


def test_h_hidden_auction_is_29():
    """docs/rules.md §H 29-hidden-trump: the auction of §29.4 is kept (bids 15..29, pass
    allowed, forced dealer)."""
    st = new_state(HID, A_HANDS)
    assert st.legal_actions() == ["pass"] + bids(15, 29)
    do(st, "0 pass", "1 pass", "2 pass")
    assert st.legal_actions() == bids(15, 29)


def test_h_hidden_trump_card_from_first_four():
    """docs/rules.md §H, §28.5: trump is chosen by a face-down card of the first four (8H AS KS
    KH), not named openly."""
    st = new_state(HID, A_HANDS)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass")
    assert st.legal_actions() == ["trump-card AS", "trump-card KS", "trump-card KH",
                                  "trump-card 8H"]
    illegal(st, "trump H")
    illegal(st, "trump-card QS")


def test_h_hidden_trump_seen_by_declarer_only():
    """docs/rules.md §H, §28.5: nobody else sees the card; it is not in the declarer's hand."""
    st = hid_a()
    assert "8H" not in hand_of(st, 0) and len(st.hands[0]) == 7
    assert st.observation(0)["trump"] == "H"
    for s in (1, 2, 3):
        assert st.observation(s)["trump"] is None
        assert "8H" not in str(st.observation(s)["history"])


def test_h_hidden_declarer_lead_restriction():
    """docs/rules.md §H, §28.6: before exposure the declarer may not lead trump (deal A: no KH)."""
    st = hid_a()
    assert st.legal_actions() == plays("AS KS QS JC 9C AC")
    illegal(st, "play KH")


def test_h_hidden_declarer_with_only_trumps_may_lead_them():
    """docs/rules.md §H, §28.6: deal B (seat 0 holds only hearts, 7H face down): he may lead
    any heart."""
    st = new_state(HID, B_HANDS)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump-card 7H")
    assert st.legal_actions() == plays("JH 9H AH TH KH QH 8H")


def test_h_hidden_before_exposure_any_card_no_power():
    """docs/rules.md §H, §28.6-28.7: before the exposure a void player need not trump and a
    trump-suit card has no power: AS 9H 7S JH, AS wins for seat 0."""
    st = hid_a()
    do(st, "0 play AS")
    assert st.legal_actions() == ["expose"] + plays("9H AH 7H JD 9D AD TC KC")
    do(st, "1 play 9H", "2 play 7S", "3 play JH")
    assert st.tricks[-1][2] == 0 and not st.trump_exposed


def test_h_hidden_discard_before_exposure_counts_as_trump():
    """docs/rules.md §H: 'trump-suit cards discarded to the exposing trick before the exposure
    do count as trumps'. Deal A trick 1: AS, seat 1 discards 9H, 7S, seat 3 exposes and must
    trump, plays QH: 9H now counts and beats QH: seat 1 wins (1+2+0+0 = 3 to side 1). (In
    28 seat 3 wins this trick.)"""
    st = hid_a()
    do(st, "0 play AS", "1 play 9H", "2 play 7S", "3 expose")
    assert st.legal_actions() == plays("JH TH QH")
    do(st, "3 play QH")
    assert st.tricks[-1][2] == 1
    assert st.side_points == [0, 3]


def test_h_hidden_after_exposure_every_seat_must_trump():
    """docs/rules.md §H: from the exposure on §29.6 applies to every seat. Deal A trick 1: AS,
    seat 1 exposes and plays 7H, seat 2 7S; seat 3 (no spades) must now play a trump."""
    st = hid_a()
    do(st, "0 play AS", "1 expose")
    assert st.legal_actions() == plays("9H AH 7H")
    do(st, "1 play 7H", "2 play 7S")
    assert st.legal_actions() == plays("JH TH QH")
    illegal(st, "play QD")
    do(st, "3 play QH")
    assert st.tricks[-1][2] == 3


def test_h_hidden_after_exposure_later_tricks_must_trump():
    """docs/rules.md §H: deal C, seat 0 declares 15. Trick 1 AS, seat 1 exposes, AH, 8S, QS:
    seat 1 wins. Trick 2: seat 1 leads QD; seat 2 (no diamonds, JH 9H TH) must trump."""
    st = hid_c()
    do(st, "0 play AS", "1 expose", "1 play AH", "2 play 8S", "3 play QS")
    assert st.tricks[-1][2] == 1
    do(st, "1 play QD")
    assert st.legal_actions() == plays("JH 9H TH")


def test_h_hidden_declarer_self_exposes_and_must_trump():
    """docs/rules.md §H, §28.7: deal A: T1 AS JD JS 7C (seat 2); T2 TD 7D, seat 0 (no diamonds)
    exposes and must play a trump (KH 8H)."""
    st = hid_a()
    assert trick(st, 0, "AS JD JS 7C") == 2
    do(st, "2 play TD", "3 play 7D", "0 expose")
    assert st.legal_actions() == plays("KH 8H")
    do(st, "0 play 8H", "1 play AD")
    assert st.tricks[-1][2] == 0


def test_h_hidden_face_down_card_at_trick_8():
    """docs/rules.md §H, §28.8: never exposed, seat 0's only action in trick 8 is `play 8H`.
    Trick 8 QC JH 8H 9H is the exposing trick: JH, discarded before the exposure, counts as
    a trump under this house rule and is the highest: seat 3 wins 0+3+0+2 + 1 (last trick)
    = 6. Side 0 has 23 from tricks 1-7; 23 + 6 = 29. Bid 16 is made: +1."""
    st = hid_a(16)
    play_tricks(st, A_TRICKS_NO_EXPOSE[:7])
    do(st, "2 play QC", "3 play JH")
    assert st.legal_actions() == ["play 8H"]
    do(st, "0 play 8H", "1 play 9H")
    assert st.tricks[-1][2] == 3
    assert st.side_points == [23, 6]
    assert st.made is True and st.scores == [1, 0]
    assert st.result()["trump"] == "H"


def test_h_hidden_royals_only_after_exposure():
    """docs/rules.md §H: royals only after the exposure. Deal C, seat 0 declares 15. T1 AS 9C
    8S JS: seat 3 wins (no exposure). T2 9S 7S: seat 1 (KH QH, side has a trick) gets no
    royals while trump is hidden; after exposing it may show them (other side: 15 + 4 = 19),
    then must play a trump."""
    st = hid_c(15)
    assert trick(st, 0, "AS 9C 8S JS") == 3
    do(st, "3 play 9S", "0 play 7S")
    assert st.legal_actions() == ["expose"] + plays("AH KH QH QD 8D 7D JC")
    illegal(st, "declare royals")
    do(st, "1 expose")
    assert st.legal_actions() == ["declare royals"] + plays("AH KH QH")
    do(st, "1 declare royals")
    assert st.target == 19
    assert st.legal_actions() == plays("AH KH QH")
