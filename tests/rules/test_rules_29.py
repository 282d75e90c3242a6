"""docs/rules.md §29 (Twenty-nine) and golden cases G1, G5, G6, G10.

Deals are built by hand (tests/helpers/rules.py); expected values are worked out from
docs/rules.md in the comments. Dealer 3 throughout unless stated, so seat 0 is the eldest.
"""

from __future__ import annotations

import pytest

from taash.interpreter import IllegalActionError, load_variant

from tests.helpers.rules import (D29_HANDS, E_HANDS, G5_HANDS, G5_TRICKS, G6A_HANDS, G6A_TRICKS,
                                 G6B_HANDS, G6B_TRICKS, J9_HANDS, J9_TRICKS, bids, do, hand_of,
                                 illegal, match_with, new_state, play_g5, play_tricks, plays, trick,
                                 variant)


def open_deal(rows, bid=15, trump="H", name="29", scores=None):
    """Seat 0 bids `bid`, the others pass, seat 0 names `trump`."""
    st = new_state(name, rows, scores=scores)
    return do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", f"0 trump {trump}")


def j9_tricks(st):
    """All-J9 deal: seat 0 leads and wins all eight tricks."""
    return play_tricks(st, [(l, c, 0, None) for l, c in J9_TRICKS])


# -- §29.1 --------------------------------------------------------------------------------
def test_29_1_four_players_fixed_partners_clockwise():
    """docs/rules.md §29.1: four players, partners opposite (seats 0+2 against 1+3), clockwise."""
    v = variant("29")
    assert v.players == 4
    assert v.direction == "clockwise"
    # partners opposite: G5 made by seat 0 shows +1 on seats 0 and 2 only
    st = play_g5(open_deal(G5_HANDS, trump="S"))
    assert st.result()["score_change"] == [1, 0, 1, 0]


# -- §29.2 / G1 ---------------------------------------------------------------------------
def test_29_2_deck_and_points():
    """docs/rules.md §29.2, §0.3: 32 cards, 7 to A in four suits; J3 9=2 A1 T1, others 0."""
    d = variant("29").deck
    assert len(d.cards()) == 32 and d.copies == 1
    assert set(d.ranks) == set("789TJQKA")
    pts = {t: d.point_of[d.parse(t)] for t in d.text}
    for t, p in pts.items():
        assert p == {"J": 3, "9": 2, "A": 1, "T": 1}.get(t[0], 0), t


def test_29_2_trick_points_and_last_trick_point():
    """docs/rules.md §29.2: G5 trick by trick: JS 9S AS TS = 7, QS KS 8S 7S = 0, ..., the last
    trick QC TC KC AC = 2 + 1 for the last trick."""
    st = open_deal(G5_HANDS, trump="S")
    for leader, cards, winner, pts in G5_TRICKS:
        side = winner % 2
        before = list(st.side_points)
        trick(st, leader, cards)
        bonus = 1 if len(st.tricks) == 8 else 0
        assert st.side_points[side] - before[side] == pts + bonus, cards


def test_g1_29_deck_totals_29():
    """docs/rules.md §G G1: 29 deck 28 + last trick = 29 (variant totals, and the points of two
    whole deals: G5 15 + 14, G6A 18 + 11)."""
    v = variant("29")
    assert v.deck.total_points() == 28
    assert v.last_trick == 1
    assert v.total == 29
    st = play_g5(open_deal(G5_HANDS, trump="S"))
    assert sum(st.side_points) == 29 and sum(st.result()["points"]) == 29
    st = open_deal(G6A_HANDS, trump="H")
    play_tricks(st, G6A_TRICKS[:1])
    do(st, "1 declare royals")
    play_tricks(st, G6A_TRICKS[1:])
    assert sum(st.side_points) == 29


# -- §29.3 --------------------------------------------------------------------------------
def test_29_3_four_cards_then_auction_then_trump_then_four_more():
    """docs/rules.md §29.3: 4 cards each (the first packet) during the auction and the trump
    call; the other 4 only after trump is named."""
    st = new_state("29", G5_HANDS)
    for s in range(4):
        assert hand_of(st, s) == set(G5_HANDS[s][:4])
        assert sorted(st.observation(s)["hand"]) == sorted(G5_HANDS[s][:4])
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass")
    assert st.phase == "trump"
    assert all(len(h) == 4 for h in st.hands)
    do(st, "0 trump S")
    assert st.phase == "play"
    for s in range(4):
        assert hand_of(st, s) == set(G5_HANDS[s])


# -- §29.4 --------------------------------------------------------------------------------
def test_29_4_bids_15_to_29_or_pass():
    """docs/rules.md §29.4: the eldest may pass or bid 15..29; 14 and 30 are not bids."""
    st = new_state("29", G5_HANDS)
    assert st.to_act == 0
    assert st.legal_actions() == ["pass"] + bids(15, 29)
    illegal(st, "bid 14")
    illegal(st, "bid 30")


def test_29_4_bid_strictly_above_high_bid():
    """docs/rules.md §29.4: a bid must be strictly above the high bid (17 after 17 is illegal)."""
    st = new_state("29", G5_HANDS)
    do(st, "0 bid 17")
    assert st.legal_actions() == ["pass"] + bids(18, 29)
    illegal(st, "bid 17")
    illegal(st, "bid 16")
    do(st, "1 bid 18")
    assert st.high_bidder == 1 and st.bid == 18


def test_29_4_pass_is_not_final():
    """docs/rules.md §29.4 [D]: a pass is not final. 0 pass, 1 bid 15, 2 pass, 3 pass, 0 bids 16
    (after its own pass), then 1, 2, 3 pass: seat 0 declares at 16."""
    st = new_state("29", G5_HANDS)
    do(st, "0 pass", "1 bid 15", "2 pass", "3 pass")
    assert st.phase == "auction" and st.to_act == 0
    assert "bid 16" in st.legal_actions()
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass")
    assert st.phase == "trump" and st.declarer == 0 and st.bid == 16


def test_29_4_three_passes_after_a_bid_end_the_auction():
    """docs/rules.md §29.4: two passes after a bid do not end the auction; the third does."""
    st = new_state("29", G5_HANDS)
    do(st, "0 bid 15", "1 pass", "2 pass")
    assert st.phase == "auction" and st.to_act == 3
    do(st, "3 pass")
    assert st.phase == "trump" and st.declarer == 0 and st.to_act == 0


def test_29_4_bid_of_29_ends_at_once():
    """docs/rules.md §29.4: the auction ends at once on a bid of 29."""
    st = new_state("29", G5_HANDS)
    do(st, "0 bid 15", "1 bid 29")
    assert st.phase == "trump" and st.declarer == 1 and st.bid == 29 and st.to_act == 1


def test_29_4_dealer_must_bid_after_three_passes():
    """docs/rules.md §29.4 [D]: if the first three calls are passes the dealer may not pass and
    must bid, any bid 15..29."""
    st = new_state("29", G5_HANDS)
    do(st, "0 pass", "1 pass", "2 pass")
    assert st.to_act == 3
    assert st.legal_actions() == bids(15, 29)
    illegal(st, "pass")


def test_29_4_dealer_bid_opens_a_normal_auction():
    """docs/rules.md §29.4: after the forced dealer's bid the auction goes on as usual: the
    dealer may be overcalled, and three passes then end it."""
    st = new_state("29", G5_HANDS)
    do(st, "0 pass", "1 pass", "2 pass", "3 bid 15", "0 pass", "1 pass")
    assert st.phase == "auction" and st.to_act == 2
    do(st, "2 pass")
    assert st.phase == "trump" and st.declarer == 3 and st.bid == 15


def test_g10_forced_dealer():
    """docs/rules.md §G G10: dealer 3: pass, pass, pass, seat 3 bids 17, seat 0 bids 18, then
    seats 1, 2, 3 pass: seat 0 declares at 18."""
    st = new_state("29", G5_HANDS, dealer=3)
    do(st, "0 pass", "1 pass", "2 pass")
    assert "pass" not in st.legal_actions()
    do(st, "3 bid 17")
    assert st.legal_actions() == ["pass"] + bids(18, 29)
    do(st, "0 bid 18", "1 pass", "2 pass", "3 pass")
    assert st.phase == "trump"
    assert st.declarer == 0 and st.bid == 18 and st.target == 18 and st.to_act == 0


# -- §29.5 --------------------------------------------------------------------------------
@pytest.mark.parametrize("suit", ["S", "H", "D", "C"])
def test_29_5_declarer_names_any_trump_openly(suit):
    """docs/rules.md §29.5: the declarer names any of the four suits; trump is public."""
    st = new_state("29", G5_HANDS)
    do(st, "0 pass", "1 bid 15", "2 pass", "3 pass", "0 pass")
    assert st.phase == "trump" and st.to_act == 1
    assert st.legal_actions() == ["trump S", "trump H", "trump D", "trump C"]
    illegal(st, "trump-card KS")
    do(st, f"1 trump {suit}")
    assert st.trump == "SHDC".index(suit) and st.trump_exposed
    for s in range(4):
        assert st.observation(s)["trump"] == suit


# -- §29.6 --------------------------------------------------------------------------------
def test_29_6_eldest_leads_any_card():
    """docs/rules.md §29.6: the eldest leads, any card of its hand."""
    st = open_deal(D29_HANDS, trump="H")
    assert st.to_act == 0
    assert st.legal_actions() == plays("QS 8S 7S AH TH KH QH KC")


def test_29_6_follow_suit_if_able():
    """docs/rules.md §29.6: deal E, trump H: seat 1 holds one spade (8S) and must play it on
    7S, though it holds trumps; seat 3 must play one of its spades."""
    st = open_deal(E_HANDS, trump="H")
    do(st, "0 play 7S")
    assert st.legal_actions() == ["play 8S"]
    illegal(st, "play 7H")
    illegal(st, "play JC")
    do(st, "1 play 8S", "2 play JD")
    assert st.legal_actions() == plays("JS 9S TS")
    illegal(st, "play TC")


def test_29_6_void_must_trump_if_able():
    """docs/rules.md §29.6: deal E, trump H: in trick 2 (TS led) seat 1 has no spade left and
    holds hearts: it must play a heart; clubs are illegal."""
    st = open_deal(E_HANDS, trump="H")
    trick(st, 0, "7S 8S JD 9S")
    do(st, "3 play TS", "0 play QS")
    assert st.legal_actions() == plays("9H QH 8H 7H")
    illegal(st, "play JC")
    illegal(st, "play AC")


def test_29_6_void_without_trump_plays_any_card():
    """docs/rules.md §29.6: deal E, trump H: seat 2 (only diamonds) may play any card on a
    spade lead; on a heart (trump) lead seat 3 (no hearts) may play any card too."""
    st = open_deal(E_HANDS, trump="H")
    do(st, "0 play 7S", "1 play 8S")
    assert st.legal_actions() == plays("JD 9D AD TD KD QD 8D 7D")
    do(st, "2 play JD", "3 play 9S")
    trick(st, 3, "TS QS 7H 9D")
    do(st, "1 play 9H", "2 play 8D")
    assert st.legal_actions() == plays("JS TC KC QC 8C 7C")


# -- §29.7 --------------------------------------------------------------------------------
def d29_to_trick3(bid=15):
    """D29, trump H, seat 0 (KH QH) declares `bid`. T1 7S 7H TC JS: seat 1 (only trump);
    T2 8H 9C 7C AH: seat 0 (AH over 8H). Seat 0 then leads trick 3."""
    st = open_deal(D29_HANDS, bid=bid, trump="H")
    assert trick(st, 0, "7S 7H TC JS") == 1
    assert trick(st, 1, "8H 9C 7C AH") == 0
    return st


def test_29_7_royals_by_declarers_side_lowers_target():
    """docs/rules.md §29.7: royals shown by the declarer's side: target - 4, and no bounds:
    bid 15 -> 11."""
    st = d29_to_trick3(15)
    assert st.target == 15
    do(st, "0 declare royals")
    assert st.target == 11


def test_29_7_royals_by_the_other_side_raises_target():
    """docs/rules.md §29.7: royals shown by the other side: target + 4 (15 -> 19). G6A: seat 1
    holds KH QH, wins trick 1 with JD and shows royals leading trick 2."""
    st = open_deal(G6A_HANDS, bid=15, trump="H")
    play_tricks(st, G6A_TRICKS[:1])
    assert st.legal_actions()[0] == "declare royals"
    do(st, "1 declare royals")
    assert st.target == 19


def test_29_7_no_upper_bound():
    """docs/rules.md §29.7 [D]: no bounds: bid 27, the other side shows: 31 (above 29)."""
    st = open_deal(G6A_HANDS, bid=27, trump="H")
    play_tricks(st, G6A_TRICKS[:1])
    do(st, "1 declare royals")
    assert st.target == 31


def test_29_7_not_before_side_has_won_a_trick():
    """docs/rules.md §29.7: only once the holder's side has won a trick. G6A: in trick 1 seat 1
    (KH QH) may only follow diamonds; D29: seat 0 (KH QH) leading trick 1 may not show."""
    st = open_deal(G6A_HANDS, bid=15, trump="H")
    do(st, "0 play 9D")
    assert st.legal_actions() == plays("JD KD")
    illegal(st, "declare royals")
    st = open_deal(D29_HANDS, trump="H")
    assert "declare royals" not in st.legal_actions()


def test_29_7_partners_trick_counts():
    """docs/rules.md §29.7, §0.8: G6B, bid 20: seat 0 won trick 1, so in trick 2 its partner
    seat 2 (KH QH) may show royals: target 16."""
    st = open_deal(G6B_HANDS, bid=20, trump="H")
    play_tricks(st, G6B_TRICKS[:1])
    do(st, "0 play KS", "1 play QS")
    assert st.legal_actions() == ["declare royals", "play 8S"]
    do(st, "2 declare royals")
    assert st.target == 16


def test_29_7_once_per_deal():
    """docs/rules.md §29.7: once per deal. D29: seat 0 shows royals leading trick 3 (QS; seat 1
    must trump with 9H and wins: 9H is the only trump). In trick 4 seat 0 still holds KH QH
    and its side has a trick, but royals are not offered again."""
    st = d29_to_trick3(15)
    do(st, "0 declare royals")
    assert trick(st, 0, "QS 9H JD 9S") == 1
    do(st, "1 play JH", "2 play 9D", "3 play 8C")
    assert st.legal_actions() == plays("TH KH QH")
    illegal(st, "declare royals")
    assert st.target == 11


def test_29_7_only_while_holding_both():
    """docs/rules.md §29.7: only while he still holds both. D29: seat 0 leads KH in trick 3
    without showing (seat 1's JH wins); in trick 4 it holds only QH: no royals."""
    st = d29_to_trick3(15)
    assert trick(st, 0, "KH JH 9D 8C") == 1
    do(st, "1 play 9H", "2 play AD", "3 play QC")
    assert st.legal_actions() == plays("TH QH")
    assert st.target == 15


def test_29_7_only_the_trump_king_and_queen():
    """docs/rules.md §29.7: royals are the trump K and Q. D29 with trump D: seat 0 holds KH QH
    (not trump). T1 AH 7H TD 8C: seat 2 trumps with TD and wins; in trick 2 seat 0 (side
    has a trick) gets no royals."""
    st = open_deal(D29_HANDS, trump="D")
    assert trick(st, 0, "AH 7H TD 8C") == 2
    do(st, "2 play JC", "3 play 7C")
    assert st.legal_actions() == ["play KC"]


def test_g6_other_side_royals_target_19_takes_18_fails():
    """docs/rules.md §G G6: bid 15, the other side shows royals: target 19; the declarer's side
    takes 18 (7+0+6+1+4, see G6A in helpers): -1 for seats 0 and 2."""
    st = open_deal(G6A_HANDS, bid=15, trump="H")
    play_tricks(st, G6A_TRICKS[:1])
    do(st, "1 declare royals")
    play_tricks(st, G6A_TRICKS[1:])
    assert st.target == 19
    assert st.side_points == [18, 11]
    assert st.made is False
    r = st.result()
    assert r["target"] == 19 and r["bid"] == 15 and r["trump"] == "H"
    assert r["score_change"] == [-1, 0, -1, 0]


def test_g6_declarers_side_royals_target_16_takes_16_makes():
    """docs/rules.md §G G6: bid 20, the declarer's side shows royals: target 16; it takes 16
    (7+0+7+0+2): +1."""
    st = open_deal(G6B_HANDS, bid=20, trump="H")
    play_tricks(st, G6B_TRICKS[:1])
    do(st, "0 play KS", "1 play QS", "2 declare royals", "2 play 8S", "3 play 7S")
    play_tricks(st, G6B_TRICKS[2:])
    assert st.target == 16
    assert st.side_points == [16, 13]
    assert st.made is True
    assert st.result()["score_change"] == [1, 0, 1, 0]


# -- §29.8 / G5 ----------------------------------------------------------------------------
def test_g5_points_15_14_bid_15_made():
    """docs/rules.md §G G5: side 0 takes 7 + 3 + 2 + (2+1) = 15, the other side 14; bid 15 is
    made: +1."""
    st = play_g5(open_deal(G5_HANDS, bid=15, trump="S"))
    assert st.side_points == [15, 14]
    assert st.made is True
    assert st.scores == [1, 0]


def test_g5_bid_16_failed():
    """docs/rules.md §G G5: the same deal with a bid of 16 fails: -1."""
    st = play_g5(open_deal(G5_HANDS, bid=16, trump="S"))
    assert st.side_points == [15, 14]
    assert st.made is False
    assert st.scores == [-1, 0]


def test_g5_no_last_trick_14_14_bid_15_failed():
    """docs/rules.md §G G5: under 29-no-last-trick the sides take 14 and 14; bid 15 fails."""
    st = play_g5(open_deal(G5_HANDS, bid=15, trump="S", name="house/29-no-last-trick"))
    assert st.side_points == [14, 14]
    assert st.made is False
    assert st.scores == [-1, 0]


def test_29_8_made_plus_1_other_side_unchanged():
    """docs/rules.md §29.8: made: the declarer's side +1; the other side's score does not
    change (from 2 and 3: 3 and 3)."""
    st = play_g5(open_deal(G5_HANDS, bid=15, trump="S", scores=[2, 3]))
    assert st.scores == [3, 3]
    assert st.result()["score_change"] == [1, 0, 1, 0]


def test_29_8_failed_minus_1_other_side_unchanged():
    """docs/rules.md §29.8: failed: the declarer's side -1 (from 2 and 3: 1 and 3)."""
    st = play_g5(open_deal(G5_HANDS, bid=16, trump="S", scores=[2, 3]))
    assert st.scores == [1, 3]


def test_29_8_defenders_winning_does_not_score():
    """docs/rules.md §29.8: seat 1 declares 15 on G5 and its side takes 14: side 1 -1, side 0
    (which beat the contract) stays at 0."""
    st = new_state("29", G5_HANDS)
    do(st, "0 pass", "1 bid 15", "2 pass", "3 pass", "0 pass", "1 trump S")
    play_g5(st)
    assert st.made is False and st.scores == [0, -1]


# -- §29.9 --------------------------------------------------------------------------------
def test_29_9_first_side_to_6_wins():
    """docs/rules.md §29.9: side 0 at 5 makes G5: 6, the match is over, seats 0 and 2 win."""
    m = match_with("29", [5, 4])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [6, 4] and m.over and m.winners == [0, 2]


def test_29_9_side_1_reaching_6_wins():
    """docs/rules.md §29.9: all-J9 hands turned one seat (dealer 0, seat 1 eldest holds every J
    and 9): seat 1 bids 15 and takes all 29 points; side 1 goes 5 -> 6 and wins."""
    rows = [J9_HANDS[3], J9_HANDS[0], J9_HANDS[1], J9_HANDS[2]]
    m = match_with("29", [3, 5])
    st = m.new_deal(hands=rows, dealer=0)
    do(st, "1 bid 15", "2 pass", "3 pass", "0 pass", "1 trump S")
    play_tricks(st, [(1, c, 1, None) for _, c in J9_TRICKS])
    assert st.side_points == [0, 29]
    m.finish_deal(st)
    assert m.scores == [3, 6] and m.over and m.winners == [1, 3]


def test_29_9_minus_6_does_not_end_plain_29():
    """docs/rules.md §29.9: only reaching 6 ends 29 (the -6 end is house rule 29-to-minus-6):
    side 0 at -5 fails G5 with 16: -6, the match goes on."""
    m = match_with("29", [-5, 0])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [-6, 0] and not m.over


# -- §29.10 -------------------------------------------------------------------------------
def test_29_10_house_rules_named_by_the_seed_exist():
    """docs/rules.md §29.10: counter-clockwise play (display only), no last-trick point (28 in
    all, bids 15..28), a winning bid of 21 or more scores 2: each is a variant file
    (details in tests/rules/test_house_29.py)."""
    ccw = load_variant("house/29-counter-clockwise")
    assert ccw.direction == "counter-clockwise" and ccw.players == 4
    nlt = load_variant("house/29-no-last-trick")
    assert nlt.total == 28 and nlt.last_trick == 0
    assert (nlt.min_bid, nlt.max_bid) == (15, 28)
    # 21-scores-2: bid 21 on the all-J9 deal (side 0 takes 29): +2
    st = open_deal(J9_HANDS, bid=21, trump="C", name="house/29-21-scores-2")
    j9_tricks(st)
    assert st.scores == [2, 0]
