"""docs/rules.md §28 (Twenty-eight, hidden trump) and golden case G7.

Deals A, B, C are in tests/helpers/rules.py; expected values are worked out from docs/rules.md
in the comments. Dealer 3 throughout, so seat 0 is the eldest.
"""

from __future__ import annotations

import pytest

from tests.helpers.rules import (A_HANDS, A_TRICKS_NO_EXPOSE, B_HANDS, C_HANDS, G5_HANDS, bids,
                                 do, hand_of, illegal, match_with, new_state, play_a_no_expose,
                                 play_tricks, plays, trick, variant)


def deal_a(bid=16, scores=None, name="28"):
    """Deal A: seat 0 bids `bid`, the others pass, seat 0 lays 8H face down."""
    st = new_state(name, A_HANDS, scores=scores)
    return do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")


def deal_c_seat0(bid):
    """Deal C: seat 0 declares `bid` and lays 8H face down."""
    st = new_state("28", C_HANDS)
    if bid == 28:
        return do(st, "0 bid 28", "0 trump-card 8H")
    return do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")


def deal_c_seat3(bid):
    """Deal C: seat 0 opens 14, seat 3 declares `bid` (over an opponent) with 7H face down."""
    st = new_state("28", C_HANDS)
    return do(st, "0 bid 14", "1 pass", "2 pass", f"3 bid {bid}", "0 pass", "1 pass",
              "2 pass", "3 trump-card 7H")


def c_trick1_exposed(st):
    """Deal C trick 1: seat 0 leads AS; seat 1 (no spades) exposes and must play a trump:
    AH; seat 2 8S; seat 3 QS. AH is the only trump: seat 1 wins."""
    do(st, "0 play AS", "1 expose")
    assert st.legal_actions() == plays("AH KH QH")
    do(st, "1 play AH", "2 play 8S", "3 play QS")
    assert st.tricks[-1][2] == 1
    return st


# -- §28.1 --------------------------------------------------------------------------------
def test_28_1_four_players_partners_opposite_counter_clockwise():
    """docs/rules.md §28.1, §0.1: four players, partners opposite, counter-clockwise (display
    only: the auction still goes 0, 1, 2, 3). Deal A: seat 2 wins tricks for declarer
    seat 0's side; the made contract shows +1 on seats 0 and 2."""
    v = variant("28")
    assert v.players == 4 and v.direction == "counter-clockwise"
    st = new_state("28", A_HANDS)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")
    play_a_no_expose(st)
    assert st.result()["score_change"] == [1, 0, 1, 0]


# -- §28.2 --------------------------------------------------------------------------------
def test_28_2_deck_28_points_no_last_trick_point():
    """docs/rules.md §28.2: 32 cards, J3 9=2 A1 T1: 28 in all, no last-trick point. Deal A
    without exposure: side 0 23, side 1 gets only trick 8 (QC JH 8H 9H = 0+3+0+2 = 5, no
    bonus): 23 + 5 = 28."""
    v = variant("28")
    assert len(v.deck.cards()) == 32
    assert v.deck.total_points() == 28 and v.last_trick == 0 and v.total == 28
    st = play_a_no_expose(deal_a())
    assert st.side_points == [23, 5]
    assert st.result()["points"] == [0, 5, 23, 0]


# -- §28.3 --------------------------------------------------------------------------------
def test_28_3_trump_card_from_first_four_then_four_more():
    """docs/rules.md §28.3, §28.5: 4 each, auction, a trump card from the declarer's first four
    (8H AS KS KH, not the second packet's QS JC 9C AC), then 4 more each; the declarer then
    holds 7 cards in hand."""
    st = new_state("28", A_HANDS)
    assert all(len(h) == 4 for h in st.hands)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass")
    assert st.phase == "trump" and st.to_act == 0
    assert st.legal_actions() == ["trump-card AS", "trump-card KS", "trump-card KH",
                                  "trump-card 8H"]
    illegal(st, "trump-card QS")
    illegal(st, "trump H")
    do(st, "0 trump-card 8H")
    assert st.phase == "play"
    assert hand_of(st, 0) == set("AS KS KH QS JC 9C AC".split())
    for s in (1, 2, 3):
        assert hand_of(st, s) == set(A_HANDS[s])


# -- §28.4 / G7 ---------------------------------------------------------------------------
def test_28_4_eldest_must_bid_at_least_14():
    """docs/rules.md §28.4: the eldest must bid, 14..28; no pass, no 13, no 29."""
    st = new_state("28", G5_HANDS)
    assert st.to_act == 0
    assert st.legal_actions() == bids(14, 28)
    illegal(st, "pass")
    illegal(st, "bid 13")
    illegal(st, "bid 29")


def test_28_4_later_calls_pass_or_higher_bid():
    """docs/rules.md §28.4: each later call is pass or a bid strictly above the high bid, at
    most 28 (the opponent seat 1 after 14: pass, 15..28)."""
    st = new_state("28", G5_HANDS)
    do(st, "0 bid 14")
    assert st.legal_actions() == ["pass"] + bids(15, 28)
    illegal(st, "bid 14")


def test_28_4_bid_over_partner_at_least_20():
    """docs/rules.md §28.4: a bid over one's own partner's high bid must be at least 20: after
    0: 14, 1: pass, seat 2 may pass or bid 20..28."""
    st = new_state("28", G5_HANDS)
    do(st, "0 bid 14", "1 pass")
    assert st.legal_actions() == ["pass"] + bids(20, 28)
    illegal(st, "bid 15")
    illegal(st, "bid 19")
    do(st, "2 bid 20")
    assert st.high_bidder == 2 and st.bid == 20


def test_28_4_partner_rule_only_when_partner_holds_the_high_bid():
    """docs/rules.md §28.4: after 0: 14, 1: 15 the high bid is an opponent's, so seat 2 (who
    partners seat 0) may bid 16."""
    st = new_state("28", G5_HANDS)
    do(st, "0 bid 14", "1 bid 15")
    assert st.legal_actions() == ["pass"] + bids(16, 28)


def test_28_4_over_partners_high_bid_of_20_or_more():
    """docs/rules.md §28.4: over a partner's 21 the next bid 22 is already at least 20."""
    st = new_state("28", G5_HANDS)
    do(st, "0 bid 21", "1 pass")
    assert st.legal_actions() == ["pass"] + bids(22, 28)


def test_28_4_pass_is_not_final():
    """docs/rules.md §28.4: a pass is not final: 0: 14, 1 pass, 2 pass, 3: 15, 0 pass, 1 pass,
    seat 2 (passed once) bids 16 over opponent seat 3; three passes: seat 2 at 16."""
    st = new_state("28", G5_HANDS)
    do(st, "0 bid 14", "1 pass", "2 pass", "3 bid 15", "0 pass", "1 pass")
    assert "bid 16" in st.legal_actions()
    do(st, "2 bid 16", "3 pass", "0 pass")
    assert st.phase == "auction"
    do(st, "1 pass")
    assert st.phase == "trump" and st.declarer == 2 and st.bid == 16 and st.to_act == 2


def test_28_4_ends_at_once_on_28():
    """docs/rules.md §28.4: the auction ends at once on a bid of 28."""
    st = new_state("28", G5_HANDS)
    do(st, "0 bid 14", "1 bid 28")
    assert st.phase == "trump" and st.declarer == 1 and st.bid == 28


def test_28_4_three_passes_end():
    """docs/rules.md §28.4: three consecutive passes after a bid end the auction."""
    st = new_state("28", G5_HANDS)
    do(st, "0 bid 14", "1 pass", "2 pass")
    assert st.phase == "auction"
    do(st, "3 pass")
    assert st.phase == "trump" and st.declarer == 0 and st.target == 14


def test_g7_partner_overcall():
    """docs/rules.md §G G7: E (seat 0) 15, N (1) 16, W (2) pass: S (3, N's partner) may not bid
    17, may bid 20; E, N, W then pass: S declares at 20."""
    st = new_state("28", G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 bid 16", "2 pass")
    assert st.to_act == 3
    illegal(st, "bid 17")
    assert st.legal_actions() == ["pass"] + bids(20, 28)
    do(st, "3 bid 20", "0 pass", "1 pass", "2 pass")
    assert st.phase == "trump" and st.declarer == 3 and st.bid == 20 and st.target == 20


# -- §28.5 --------------------------------------------------------------------------------
def test_28_5_hidden_trump_card():
    """docs/rules.md §28.5: the face-down card is seen by the declarer only and is not part of
    his hand until exposed."""
    st = deal_a()
    assert st.trump_card == st.v.deck.parse("8H")
    assert not st.trump_exposed
    assert "8H" not in hand_of(st, 0)
    o0 = st.observation(0)
    assert o0["trump"] == "H" and o0["trump_card"] == "8H" and "8H" not in o0["hand"]
    for s in (1, 2, 3):
        o = st.observation(s)
        assert o["trump"] is None and o["trump_card"] is None
        assert "8H" not in str(o["history"])
        assert "8H" not in o["hand"]


# -- §28.6 --------------------------------------------------------------------------------
def test_28_6_declarer_may_not_lead_trump_before_exposure():
    """docs/rules.md §28.6: deal A, seat 0 leads with AS KS KH QS JC 9C AC (8H face down): the
    trump suit (KH) may not be led."""
    st = deal_a()
    assert st.legal_actions() == plays("AS KS QS JC 9C AC")
    illegal(st, "play KH")


def test_28_6_declarer_with_nothing_but_trumps_may_lead_them():
    """docs/rules.md §28.6: deal B: the declarer holds only hearts (7H face down): he may lead
    any of JH 9H AH TH KH QH 8H."""
    st = new_state("28", B_HANDS)
    do(st, "0 bid 14", "1 pass", "2 pass", "3 pass")
    assert st.legal_actions() == ["trump-card JH", "trump-card 9H", "trump-card AH",
                                  "trump-card 7H"]
    do(st, "0 trump-card 7H")
    assert st.legal_actions() == plays("JH 9H AH TH KH QH 8H")


def test_28_6_trumps_have_no_power_before_exposure():
    """docs/rules.md §28.6, §28.7: deal A, trick 1 AS 9H 7S JH without exposure: the hearts
    (the hidden trump suit) have no power; AS, highest spade, wins for seat 0 (1+2+0+3 = 6
    points)."""
    st = deal_a()
    do(st, "0 play AS", "1 play 9H", "2 play 7S")
    assert "play JH" in st.legal_actions()   # a void player may play a trump-suit card
    do(st, "3 play JH")
    assert st.tricks[-1][2] == 0
    assert st.side_points == [6, 0]
    assert not st.trump_exposed


def test_28_6_restriction_ends_with_exposure():
    """docs/rules.md §28.6: after the exposure the declarer may lead trumps (see the
    self-exposure of §28.7 below: seat 0 leads trick 3 with KH among his choices)."""
    st = _declarer_self_exposes()
    assert st.to_act == 0
    assert st.legal_actions() == plays("KS QS KH JC 9C AC")


# -- §28.7 --------------------------------------------------------------------------------
def test_28_7_expose_only_by_a_void_follower():
    """docs/rules.md §28.7: never the leader, and not a player who can follow suit. Deal A:
    seat 0 leads (no expose); seat 2 holds spades (no expose); seat 1 (no spades) may."""
    st = deal_a()
    assert "expose" not in st.legal_actions()
    illegal(st, "expose")
    do(st, "0 play AS")
    assert st.legal_actions()[0] == "expose"
    do(st, "1 play 9H")
    assert st.legal_actions() == plays("JS 9S TS 8S 7S")
    illegal(st, "expose")


def test_28_7_expose_shows_card_and_exposer_must_trump():
    """docs/rules.md §28.7: seat 1 exposes: the declarer takes 8H into his hand, trump is public,
    and seat 1 must then play a trump (9H AH 7H)."""
    st = deal_a()
    do(st, "0 play AS", "1 expose")
    assert st.trump_exposed and st.trump_card == -1
    assert "8H" in hand_of(st, 0)
    for s in range(4):
        assert st.observation(s)["trump"] == "H"
    assert st.to_act == 1
    assert st.legal_actions() == plays("9H AH 7H")
    illegal(st, "play JD")
    illegal(st, "expose")


def test_28_7_discard_before_exposure_is_not_a_trump():
    """docs/rules.md §28.7: deal A trick 1: AS, seat 1 discards 9H (no exposure), 7S, seat 3
    exposes and must trump (JH TH QH), plays QH. 9H was played before the exposure and is
    not a trump; QH is: seat 3 wins (AS 1 + 9H 2 = 3 points to side 1)."""
    st = deal_a()
    do(st, "0 play AS", "1 play 9H", "2 play 7S", "3 expose")
    assert st.legal_actions() == plays("JH TH QH")
    do(st, "3 play QH")
    assert st.tricks[-1][2] == 3
    assert st.side_points == [0, 3]


def test_28_7_exposer_without_trumps_plays_any_card():
    """docs/rules.md §28.7: 'must play a trump if he holds one'. Deal B: seat 0 leads JH (he
    holds only hearts); seat 1 (only spades) exposes 7H and may then play any spade."""
    st = new_state("28", B_HANDS)
    do(st, "0 bid 14", "1 pass", "2 pass", "3 pass", "0 trump-card 7H", "0 play JH")
    assert st.legal_actions() == ["expose"] + plays("JS 9S AS TS KS QS 8S 7S")
    do(st, "1 expose")
    assert st.legal_actions() == plays("JS 9S AS TS KS QS 8S 7S")


def _declarer_self_exposes():
    """Deal A: T1 AS JD JS 7C: seat 2 (JS). T2 seat 2 leads TD, seat 3 7D; seat 0 (no
    diamonds) exposes his own 8H and must play a trump (KH or 8H): 8H; seat 1 follows with
    AD. 8H is the only trump: seat 0 wins trick 2."""
    st = deal_a()
    assert trick(st, 0, "AS JD JS 7C") == 2
    do(st, "2 play TD", "3 play 7D")
    assert st.legal_actions() == ["expose"] + plays("KS QS KH JC 9C AC")
    do(st, "0 expose")
    assert st.to_act == 0 and st.trump_exposed
    assert st.legal_actions() == plays("KH 8H")
    do(st, "0 play 8H")
    assert st.legal_actions() == plays("9D AD")   # §28.9: follow suit if able
    do(st, "1 play AD")
    assert st.tricks[-1][2] == 0
    return st


def test_28_7_declarer_may_expose_himself_and_must_trump():
    """docs/rules.md §28.7: the declarer, when void, may expose himself and must then play a
    trump (any trump he holds)."""
    st = _declarer_self_exposes()
    # T2 TD 7D 8H AD: 1 + 0 + 0 + 1 = 2 to side 0; T1 AS JD JS 7C: 1+3+3+0 = 7
    assert st.side_points == [9, 0]


# -- §28.8 --------------------------------------------------------------------------------
def test_28_8_face_down_card_is_the_declarers_last_card():
    """docs/rules.md §28.8: never exposed: in trick 8 `play 8H` is seat 0's only action (no
    expose). Before that the face-down card is not playable (trick 7: seat 0, no diamonds,
    may expose or play KH)."""
    st = deal_a()
    play_tricks(st, A_TRICKS_NO_EXPOSE[:6])
    do(st, "2 play KD", "3 play TH")
    assert st.legal_actions() == ["expose", "play KH"]
    do(st, "0 play KH", "1 play AH")
    assert st.tricks[-1][2] == 2
    do(st, "2 play QC", "3 play JH")
    assert st.legal_actions() == ["play 8H"]
    illegal(st, "expose")


def test_28_8_face_down_card_counts_as_trump_exposing_trick():
    """docs/rules.md §28.8, §28.7: trick 8 QC JH 8H 9H: JH was discarded before the exposure
    (no trump); 8H is exposed as played and is a trump; 9H is played after the exposure and
    is a trump too, and higher: seat 1 wins (0+3+0+2 = 5). Side 0 keeps its 23; trump H is
    public at the end."""
    st = deal_a()
    play_tricks(st, A_TRICKS_NO_EXPOSE[:7])
    do(st, "2 play QC", "3 play JH", "0 play 8H")
    assert st.trump_exposed and st.observation(1)["trump"] == "H"
    do(st, "1 play 9H")
    assert st.tricks[-1][2] == 1
    assert st.side_points == [23, 5]
    assert st.result()["trump"] == "H"


# -- §28.9 --------------------------------------------------------------------------------
def test_28_9_after_exposure_void_player_may_play_any_card():
    """docs/rules.md §28.9: deal A trick 1: AS, seat 1 exposes and plays 7H, seat 2 7S; seat 3
    (no spades) may now play any card, trump or not (the duty to trump is only the
    exposer's). It plays QH, a trump after the exposure and higher than 7H: seat 3 wins."""
    st = deal_a()
    do(st, "0 play AS", "1 expose", "1 play 7H", "2 play 7S")
    assert st.legal_actions() == plays("JH TH QH QD 8D 7D 8C 7C")
    do(st, "3 play QH")
    assert st.tricks[-1][2] == 3


def test_28_9_later_tricks_any_card_when_void():
    """docs/rules.md §28.9: deal C, seat 0 declares 16; trick 1 exposed (seat 1 wins with AH).
    Trick 2: seat 1 leads QD; seat 2 (no diamonds, holds JH 9H TH) may play any card."""
    st = c_trick1_exposed(deal_c_seat0(16))
    do(st, "1 play QD")
    assert st.legal_actions() == plays("TS JH 9H TH AC TC KC")


# -- §28.10 -------------------------------------------------------------------------------
@pytest.mark.parametrize("bid,target", [(14, 18), (22, 26), (26, 28), (28, 28)])
def test_28_10_pair_by_other_side_raises_target_not_above_28(bid, target):
    """docs/rules.md §28.10: deal C, seat 0 declares; seat 1 (other side) shows the pair (KH QH)
    leading trick 2: target + 4 but not above 28: 14 -> 18, 22 -> 26, 26 -> 28, 28 -> 28."""
    st = c_trick1_exposed(deal_c_seat0(bid))
    assert st.legal_actions() == ["declare pair"] + plays("KH QH QD 8D 7D JC 9C")
    do(st, "1 declare pair")
    assert st.target == target
    assert st.to_act == 1


@pytest.mark.parametrize("bid,target", [(22, 18), (20, 16), (18, 16), (17, 16), (16, 16),
                                        (15, 15)])
def test_28_10_pair_by_declarers_side_lowers_target_not_below_16(bid, target):
    """docs/rules.md §28.10: deal C, seat 3 declares (7H face down) and its partner seat 1 shows
    the pair: target - 4 but not below 16, and a target already below 16 stays: 22 -> 18,
    20 -> 16, 18 -> 16, 17 -> 16, 16 -> 16, 15 -> 15."""
    st = c_trick1_exposed(deal_c_seat3(bid))
    assert "7H" in hand_of(st, 3)
    do(st, "1 declare pair")
    assert st.target == target


def test_28_10_pair_only_after_exposure():
    """docs/rules.md §28.10: deal C, seat 0 declares 16. T1 AS 9C 8S JS (no exposure): seat 3
    wins with JS, so seat 1's side has a trick; in trick 2 seat 1 (KH QH) may not show the
    pair while trump is hidden; after it exposes it may (any trick of the deal counts)."""
    st = deal_c_seat0(16)
    assert trick(st, 0, "AS 9C 8S JS") == 3
    do(st, "3 play 9S", "0 play 7S")
    assert "declare pair" not in st.legal_actions()
    illegal(st, "declare pair")
    do(st, "1 expose")
    assert st.legal_actions() == ["declare pair"] + plays("AH KH QH")
    do(st, "1 declare pair")
    assert st.target == 20


def test_28_10_pair_needs_a_trick_won():
    """docs/rules.md §28.10: in trick 1 of deal C, after exposing, seat 1 holds KH QH with trump
    open but its side has no trick yet: no pair."""
    st = deal_c_seat0(16)
    do(st, "0 play AS", "1 expose")
    assert st.legal_actions() == plays("AH KH QH")
    illegal(st, "declare pair")


def test_28_10_pair_once_per_deal():
    """docs/rules.md §28.10: once per deal. Deal C (seat 0 at 16): seat 1 shows the pair (20)
    and leads QD; seat 2 AC, seat 3 7C, seat 0 JD wins (no trump played). In trick 3 seat 1
    still holds KH QH but is not offered the pair again."""
    st = c_trick1_exposed(deal_c_seat0(16))
    do(st, "1 declare pair", "1 play QD", "2 play AC", "3 play 7C", "0 play JD")
    assert st.tricks[-1][2] == 0
    do(st, "0 play 9D")
    assert st.legal_actions() == plays("8D 7D")
    illegal(st, "declare pair")
    assert st.target == 20


def test_28_10_pair_only_while_holding_both():
    """docs/rules.md §28.10: deal C (seat 0 at 16): seat 1 leads KH without showing; seat 2 JH
    wins (KH JH 7H 8H). In trick 3 seat 1 holds QH only: no pair."""
    st = c_trick1_exposed(deal_c_seat0(16))
    assert trick(st, 1, "KH JH 7H 8H") == 2
    do(st, "2 play TS", "3 play KS", "0 play 7S")
    assert st.legal_actions() == plays("QH QD 8D 7D JC 9C")
    assert st.target == 16


# -- §28.11 -------------------------------------------------------------------------------
@pytest.mark.parametrize("bid,made,change", [(16, True, 1), (23, True, 1), (24, False, -1)])
def test_28_11_score_made_plus_1_failed_minus_1(bid, made, change):
    """docs/rules.md §28.11, §0.5: deal A without exposure, side 0 takes 23: bids 16 and 23
    are made (+1, 'at least'), 24 fails (-1); side 1 unchanged."""
    st = play_a_no_expose(deal_a(bid, scores=[1, 2]))
    assert st.made is made
    assert st.scores == [1 + change, 2]
    assert st.result()["score_change"] == [change, 0, change, 0]


def test_28_11_first_side_to_plus_6_wins():
    """docs/rules.md §28.11: side 0 at 5 makes deal A (16): 6, the match is over, 0 and 2 win."""
    m = match_with("28", [5, -3])
    st = m.new_deal(hands=A_HANDS, dealer=3)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")
    play_a_no_expose(st)
    m.finish_deal(st)
    assert m.scores == [6, -3] and m.over and m.winners == [0, 2]


def test_28_11_side_at_minus_6_loses():
    """docs/rules.md §28.11: side 0 at -5 fails deal A with 24: -6, it loses: 1 and 3 win."""
    m = match_with("28", [-5, -1])
    st = m.new_deal(hands=A_HANDS, dealer=3)
    do(st, "0 bid 24", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")
    play_a_no_expose(st)
    m.finish_deal(st)
    assert m.scores == [-6, -1] and m.over and m.winners == [1, 3]


def test_28_11_not_over_between():
    """docs/rules.md §28.11: at -4 a failure gives -5: the match goes on."""
    m = match_with("28", [-4, 5])
    st = m.new_deal(hands=A_HANDS, dealer=3)
    do(st, "0 bid 24", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")
    play_a_no_expose(st)
    m.finish_deal(st)
    assert m.scores == [-5, 5] and not m.over
