"""docs/rules.md §H (and §56.8): the house rules 29-double, 28-seventh-card, 56-alt-table,
56-cot, 56-4p-32-cards, 56-8p-48-cards and 304-last-trick-10, each a file in
variants/house/.

Deals: G5_HANDS and A_HANDS from tests/helpers/rules.py (29/28, dealer 3, eldest 0);
F56, J56 (56, dealer 5, eldest 0), G8_HANDS and CUT_HANDS (304, dealer 3) from
tests/helpers/rules2.py. Expected values are worked out from docs/rules.md in the comments.
"""

from __future__ import annotations

import json
import random

import pytest

from taash.interpreter import Match, State
from taash.interpreter.loader import VariantError

from tests.helpers.rules import A_HANDS, G5_HANDS, do, hand_of, illegal, new_state, play_g5, plays
from tests.helpers.rules import play_out
from tests.helpers.rules2 import (CUT_HANDS, CUT_TRICKS, F56, F56_TRICKS, G8_HANDS, J56,
                                  J56_TRICKS, bids304, g8_tricks, split_legal, state, trick_n,
                                  tricks_n, variant2)

DBL = "house/29-double"
SEV = "house/28-seventh-card"
ALT = "house/56-alt-table"
COT = "house/56-cot"
P4 = "house/56-4p-32-cards"
P8 = "house/56-8p-48-cards"
LT10 = "house/304-last-trick-10"


# == 29-double ============================================================================
def dbl_deal(bid=15, scores=None, declarer=0):
    """G5 hands, 29-double: seat `declarer` (0 or 1) declares `bid` and names S."""
    st = new_state(DBL, G5_HANDS, scores=scores)
    if declarer == 0:
        do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump S")
    else:
        do(st, "0 pass", f"1 bid {bid}", "2 pass", "3 pass", "0 pass", "1 trump S")
    return st


def test_h_29_double_after_trump_before_second_packet():
    """docs/rules.md §H 29-double: right after trump is named and before the second packet,
    each defender in turn from next(declarer) calls double or pass: seat 0 declares, seat 1
    calls first, with four cards in every hand."""
    st = dbl_deal()
    assert st.phase == "doubling" and st.to_act == 1
    assert all(len(h) == 4 for h in st.hands)
    assert st.legal_actions() == ["pass", "double"]
    illegal(st, "redouble")
    illegal(st, "play 9S")
    do(st, "1 pass")
    assert st.to_act == 3 and st.legal_actions() == ["pass", "double"]
    do(st, "3 pass")
    assert st.phase == "play" and st.doubled == 0 and st.to_act == 0
    for s in range(4):
        assert hand_of(st, s) == set(G5_HANDS[s])


def test_h_29_double_undoubled_scores_1():
    """docs/rules.md §H 29-double, §G G5: nobody doubles: G5 at 15 made: +1."""
    st = dbl_deal()
    do(st, "1 pass", "3 pass")
    play_g5(st)
    assert st.scores == [1, 0]


def test_h_29_double_from_next_declarer():
    """docs/rules.md §H 29-double: from next(declarer): seat 1 declares, seat 2 calls first, then
    seat 0."""
    st = dbl_deal(declarer=1)
    assert st.phase == "doubling" and st.to_act == 2
    do(st, "2 pass")
    assert st.to_act == 0
    do(st, "0 pass")
    assert st.phase == "play"


def test_h_29_double_redouble_from_next_doubler():
    """docs/rules.md §H 29-double: once one defender doubles, no more doubling calls; each
    member of the declarer's side in turn from next(doubler) calls redouble or pass: seat
    1 doubles -> seat 2, then seat 0. Seat 0 redoubles: G5 at 15 made: 1 x 4 = +4."""
    st = dbl_deal()
    do(st, "1 double")
    assert st.doubled == 1
    assert st.to_act == 2 and st.legal_actions() == ["pass", "redouble"]
    illegal(st, "double")
    do(st, "2 pass")
    assert st.to_act == 0 and st.legal_actions() == ["pass", "redouble"]
    do(st, "0 redouble")
    assert st.phase == "play" and st.doubled == 2
    play_g5(st)
    assert st.made is True and st.scores == [4, 0]
    assert st.result()["doubled"] == 2


def test_h_29_double_second_defender_doubles_failed_x2():
    """docs/rules.md §H 29-double: seat 1 passes, seat 3 doubles; redouble calls from next(3) =
    seat 0, then seat 2; both pass. G5 at 16 (side 0 takes 15) failed: -1 x 2 = -2."""
    st = dbl_deal(bid=16)
    do(st, "1 pass", "3 double")
    assert st.to_act == 0
    do(st, "0 pass")
    assert st.to_act == 2
    do(st, "2 pass")
    assert st.phase == "play" and st.doubled == 1
    play_g5(st)
    assert st.made is False and st.scores == [-2, 0]


def test_h_29_double_redoubled_failed_x4():
    """docs/rules.md §H 29-double: G5 at 16 redoubled (seat 1 doubles, seat 2 redoubles): -4."""
    st = dbl_deal(bid=16)
    do(st, "1 double", "2 redouble")
    play_g5(st)
    assert st.scores == [-4, 0]


def test_h_29_double_no_cap():
    """docs/rules.md §H 29-double: game points x2 or x4, no cap: side 0 at 5 makes G5
    redoubled: 9; the match (first to 6, §29.9) is over."""
    m = Match(variant2(DBL), 0)
    m.scores = [5, 0]
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S", "1 double", "2 redouble")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [9, 0] and m.over and m.winners == [0, 2]


# == 28-seventh-card ======================================================================
# Deal A (tests/helpers/rules.py): seat 0's first packet 8H AS KS KH, second packet QS JC 9C AC: the
# seventh card dealt to him (third of the second packet) is 9C.
def sev_deal():
    st = new_state(SEV, A_HANDS)
    return do(st, "0 bid 16", "1 pass", "2 pass", "3 pass")


def test_h_28_seventh_card_is_an_option_beside_trump_card():
    """docs/rules.md §H 28-seventh-card: beside `trump-card CARD` (one of his first four) the
    declarer may act `trump-card seventh`; plain 28 has no such action."""
    st = sev_deal()
    legal = st.legal_actions()
    assert "trump-card seventh" in legal
    assert [a for a in legal if a != "trump-card seventh"] == [
        "trump-card AS", "trump-card KS", "trump-card KH", "trump-card 8H"]
    st28 = new_state("28", A_HANDS)
    do(st28, "0 bid 16", "1 pass", "2 pass", "3 pass")
    assert "trump-card seventh" not in st28.legal_actions()
    illegal(st28, "trump-card seventh")


def test_h_28_seventh_card_face_down_he_receives_3_and_sees_it():
    """docs/rules.md §H 28-seventh-card: the third card of his second packet (9C) goes face down
    as the trump card instead of into his hand: he receives 3 cards (QS JC AC) and sees it;
    the others receive 4 and do not see it."""
    st = sev_deal()
    do(st, "0 trump-card seventh")
    assert st.phase == "play"
    assert hand_of(st, 0) == set("8H AS KS KH QS JC AC".split())
    for s in (1, 2, 3):
        assert hand_of(st, s) == set(A_HANDS[s])
    o0 = st.observation(0)
    assert o0["trump_card"] == "9C" and o0["trump"] == "C"
    for s in (1, 2, 3):
        obs = st.observation(s)
        assert obs["trump_card"] is None and obs["trump"] is None and obs["face_down"]
        assert '"9C"' not in json.dumps(obs) and " 9C" not in json.dumps(obs)


def test_h_28_seventh_card_hidden_trump_rules_apply():
    """docs/rules.md §H 28-seventh-card, §28.6, §28.7: trump C is hidden: the declarer may not
    lead a club (JC AC) before exposure; seat 1 (no spade) may expose on AS, and then 9C
    goes into seat 0's hand, trump C is public, and seat 1 must play a trump (TC or KC)."""
    st = sev_deal()
    do(st, "0 trump-card seventh")
    assert st.legal_actions() == plays("AS KS QS KH 8H")
    do(st, "0 play AS")
    assert "expose" in st.legal_actions()
    do(st, "1 expose")
    assert hand_of(st, 0) == set("8H KS KH QS JC 9C AC".split())
    for s in range(4):
        assert st.observation(s)["trump"] == "C"
    assert st.legal_actions() == ["play TC", "play KC"]


def test_h_28_seventh_card_played_face_down_at_trick_8():
    """docs/rules.md §H 28-seventh-card, §28.8: never exposed, the face-down 9C is the
    declarer's last card. Trick by trick (nobody exposes; the clubs discarded before have
    no trump power): T1 AS JD JS 7C: JS (seat 2), 7; T2 9S 8C KS 9D: 9S, 4; T3 TS QD QS
    AD: TS, 2; T4 8S 8D 8H 7H: 0; T5 7S 7D KH 9H: 2; T6 TD JH AC AH: TD (AC no power), 6;
    T7 KD TH JC KC: KD, 4; T8 QC QH 9C TC: clubs led, 9C wins for seat 0, 3. Side 0 takes
    all 28: bid 16 made."""
    st = sev_deal()
    do(st, "0 trump-card seventh")
    tr = [(0, "AS JD JS 7C", 2), (2, "9S 8C KS 9D", 2), (2, "TS QD QS AD", 2),
          (2, "8S 8D 8H 7H", 2), (2, "7S 7D KH 9H", 2), (2, "TD JH AC AH", 2),
          (2, "KD TH JC KC", 2)]
    tricks_n(st, tr)
    assert not st.trump_exposed
    do(st, "2 play QC", "3 play QH")
    assert st.legal_actions() == ["play 9C"]
    do(st, "0 play 9C", "1 play TC")
    assert st.tricks[-1][2] == 0
    assert st.side_points == [28, 0] and st.made is True
    assert st.result()["trump"] == "C"


# == 56-alt-table =========================================================================
@pytest.mark.parametrize("bid,fig", [(39, 1), (40, 2), (47, 2), (48, 3), (55, 3), (56, 4)])
def test_h_56_alt_table_made(bid, fig):
    """docs/rules.md §56.8 alternative table: made 28-39 1, 40-47 2, 48-55 3, 56 4 (J56: side 0
    takes 56)."""
    st = state(ALT, J56, dealer=5)
    do(st, f"0 bid {bid} NT", "1 pass", "2 pass", "3 pass", "4 pass", "5 pass")
    tricks_n(st, J56_TRICKS)
    assert st.made is True
    assert st.scores == [12 + fig, 12 - fig]


@pytest.mark.parametrize("bid,fig", [(37, 2), (40, 3), (47, 3), (48, 4), (55, 4), (56, 5)])
def test_h_56_alt_table_failed(bid, fig):
    """docs/rules.md §56.8 alternative table: failed 28-39 2, 40-47 3, 48-55 4, 56 5 (F56: side 0
    takes 36)."""
    st = state(ALT, F56, dealer=5)
    do(st, f"0 bid {bid} H", "1 pass", "2 pass", "3 pass", "4 pass", "5 pass")
    tricks_n(st, F56_TRICKS)
    assert st.made is False
    assert st.scores == [12 - fig, 12 + fig]


def test_h_56_alt_table_doubling_kept():
    """docs/rules.md §56.8, §56.7: the alternative table keeps x2 / x4: J56 at 56 doubled made
    8, redoubled 16 (12/12 -> 28/-4: the sides still hold 24)."""
    st = state(ALT, J56, dealer=5)
    do(st, "0 bid 56 NT", "1 double", "2 pass", "3 pass", "4 pass", "5 pass", "0 pass")
    tricks_n(st, J56_TRICKS)
    assert st.scores == [20, 4]
    st = state(ALT, J56, dealer=5)
    do(st, "0 bid 56 NT", "1 double", "2 redouble", "3 pass", "4 pass", "5 pass", "0 pass",
       "1 pass")
    tricks_n(st, J56_TRICKS)
    assert st.scores == [28, -4]


# == 56-cot ===============================================================================
def cot_deal(rows, call="bid 28 NT", then=(), scores=None):
    st = state(COT, rows, dealer=5, scores=scores)
    do(st, f"0 {call}")
    seat = 1
    for c in then:
        do(st, f"{seat} {c}")
        seat += 1
    for i in range(5):
        do(st, f"{(seat + i) % 6} pass")
    assert st.phase == "play"
    return st


def test_h_56_cot_defender_asks_before_his_card():
    """docs/rules.md §56.8 cot: a defender may act `cot` on his turn before his card (a
    declaration, §0.10: before the cards); the contractors may not (seat 0 leading)."""
    st = cot_deal(J56)
    assert st.legal_actions() == ["play JS", "play JH", "play JD", "play JC"]
    illegal(st, "cot")
    do(st, "0 play JS")
    assert st.legal_actions() == ["cot", "play 9S"]
    do(st, "1 play 9S")
    assert st.legal_actions() == ["play AS"]     # seat 2, a contractor
    illegal(st, "cot")


def test_h_56_cot_declarer_answers_at_once_then_asker_plays_once_per_deal():
    """docs/rules.md §56.8 cot: the declarer answers at once, `cot yes` or `cot no`, and the
    asker then plays; once per deal (seat 3 may not ask again)."""
    st = cot_deal(J56)
    do(st, "0 play JS", "1 cot")
    assert st.to_act == 0
    assert st.legal_actions() == ["cot yes", "cot no"]
    illegal(st, "play JH")
    do(st, "0 cot no")
    assert st.to_act == 1 and st.legal_actions() == ["play 9S"]
    do(st, "1 play 9S", "2 play AS")
    assert st.legal_actions() == ["play TS"]
    illegal(st, "cot")


def test_h_56_cot_answered_by_the_final_bidder():
    """docs/rules.md §56.8 cot: the declarer is the seat that made the final bid: seat 0 opens
    28, seat 2 (its partner) bids 29 NT; seat 1 asks in trick 1: seat 2 answers."""
    st = state(COT, J56, dealer=5)
    do(st, "0 bid 28 NT", "1 pass", "2 bid 29 NT", "3 pass", "4 pass", "5 pass", "0 pass",
       "1 pass")
    assert st.phase == "play" and st.declarer == 2
    do(st, "0 play JS", "1 cot")
    assert st.to_act == 2 and st.legal_actions() == ["cot yes", "cot no"]
    do(st, "2 cot yes")
    assert st.to_act == 1


def test_h_56_cot_leader_may_ask():
    """docs/rules.md §56.8 cot: on his turn in tricks 1 to 7, also as leader: F56 (side 0's
    contract), seat 3 leads trick 4 and may ask; seat 2 (a contractor) leading trick 3 may
    not."""
    st = cot_deal(F56)
    tricks_n(st, F56_TRICKS[:2])
    assert st.to_act == 2 and "cot" not in st.legal_actions()
    tricks_n(st, F56_TRICKS[2:3])
    assert st.to_act == 3
    # seat 3 holds QH KD TD KC TC: T ranks above K (§0.3)
    assert st.legal_actions() == ["cot", "play QH", "play TD", "play KD", "play TC",
                                  "play KC"]


def test_h_56_cot_tricks_1_to_7_only():
    """docs/rules.md §56.8 cot: in tricks 1 to 7 only: J56, seat 1 may ask in trick 7, not in
    trick 8."""
    st = cot_deal(J56)
    tricks_n(st, J56_TRICKS[:6])
    do(st, "0 play JC")
    assert st.legal_actions() == ["cot", "play 9C"]
    do(st, "1 play 9C", "2 play AC", "3 play TC", "4 play KC", "5 play QC")
    do(st, "0 play JC")
    assert st.legal_actions() == ["play 9C"]
    illegal(st, "cot")


def test_h_56_cot_yes_every_trick_scores_as_made():
    """docs/rules.md §56.8 cot: after `yes`, taking every trick scores as made (J56 at 28: +1)."""
    st = cot_deal(J56)
    do(st, "0 play JS", "1 cot", "0 cot yes", "1 play 9S", "2 play AS", "3 play TS",
       "4 play KS", "5 play QS")
    tricks_n(st, J56_TRICKS[1:])
    assert st.made is True and st.scores == [13, 11]


def test_h_56_cot_yes_losing_a_trick_fails_twice_the_failed_figure():
    """docs/rules.md §56.8 cot: after `yes`, losing any trick makes the deal a failure costing
    twice the failed figure: F56 at 28, side 0 takes 36 (>= 28) but loses trick 3: 2 x 2 =
    4: 8/16."""
    st = cot_deal(F56)
    do(st, "0 play JS", "1 cot", "0 cot yes")
    do(st, "1 play 9S", "2 play AS", "3 play TS", "4 play KS", "5 play JS")
    tricks_n(st, F56_TRICKS[1:])
    assert st.side_points == [36, 20]
    assert st.made is False
    assert st.scores == [8, 16]


def test_h_56_cot_yes_failure_doubled_and_band():
    """docs/rules.md §56.8 cot: twice the failed figure, then x2 for a double: F56 at 28 doubled
    with cot yes: 2 x 2 x 2 = 8: 4/20. At 40 (failed figure 3): 6: 6/18."""
    st = cot_deal(F56, then=["double"])
    do(st, "0 play JS", "1 cot", "0 cot yes")
    do(st, "1 play 9S", "2 play AS", "3 play TS", "4 play KS", "5 play JS")
    tricks_n(st, F56_TRICKS[1:])
    assert st.scores == [4, 20]
    st = cot_deal(F56, call="bid 40 H")
    do(st, "0 play JS", "1 cot", "0 cot yes")
    do(st, "1 play 9S", "2 play AS", "3 play TS", "4 play KS", "5 play JS")
    tricks_n(st, F56_TRICKS[1:])
    assert st.scores == [6, 18]


@pytest.mark.parametrize("call,scores", [("bid 28 H", [13, 11]), ("bid 37 H", [10, 14])])
def test_h_56_cot_no_changes_nothing(call, scores):
    """docs/rules.md §56.8 cot: `no` changes nothing: F56 (side 0 takes 36) at 28 made +1; at 37
    failed -2."""
    st = cot_deal(F56, call=call)
    do(st, "0 play JS", "1 cot", "0 cot no")
    do(st, "1 play 9S", "2 play AS", "3 play TS", "4 play KS", "5 play JS")
    tricks_n(st, F56_TRICKS[1:])
    assert st.scores == scores


# == 56-4p-32-cards =======================================================================
# P4 (dealer 3, eldest 0): seat 0 holds all eight jacks, seats 1, 2, 3 the nines, aces and
# tens: seat 0 leads a jack each trick and everybody follows: 3+2+1+1 = 7 a trick, 56.
P4_HANDS = [
    "JS JS JH JH JD JD JC JC",
    "9S 9S 9H 9H 9D 9D 9C 9C",
    "AS AS AH AH AD AD AC AC",
    "TS TS TH TH TD TD TC TC",
]


def test_h_56_4p_32_cards_variant():
    """docs/rules.md §56.2, §56.3, §H 56-4p-32-cards: four players without K and Q: 32 cards,
    8 each in packets of 4, 56 points; only 4 players."""
    v = variant2(P4)
    assert v.players == 4 and v.cards_per_seat == 8
    assert [s["deal"] for s in v.flow if isinstance(s, dict)] == [[4, 4]]
    d = v.deck
    assert len(d.cards()) == 32 and d.copies == 2
    assert sorted(set(d.text)) == sorted(r + s for s in "SHDC" for r in "J9AT")
    assert v.total == 56 and sum(d.point_of[c] for c in d.cards()) == 56
    with pytest.raises(VariantError):
        variant2(P4, {"players": 6})


def test_h_56_4p_32_cards_play():
    """docs/rules.md §H 56-4p-32-cards, §56.4, §56.7: P4: seat 0 bids 56 NT, three passes end
    the auction (n-1 = 3); side 0 takes all 56: made, figure 3: 15/9. K and Q do not
    exist."""
    st = state(P4, P4_HANDS, dealer=3)
    assert "pass" not in st.legal_actions()
    do(st, "0 bid 56 NT", "1 pass", "2 pass")
    assert st.phase == "auction"
    do(st, "3 pass")
    assert st.phase == "play"
    illegal(st, "play KS")
    for s in "SSHHDDCC":
        assert trick_n(st, 0, f"J{s} 9{s} A{s} T{s}") == 0
    assert st.side_points == [56, 0]
    assert st.scores == [15, 9]
    assert st.result()["score_change"] == [3, -3, 3, -3]


# == 56-8p-48-cards =======================================================================
def test_h_56_8p_48_cards_variant():
    """docs/rules.md §56.2, §56.3, §H 56-8p-48-cards: eight players with the 48-card deck
    (J 9 A T K Q, two copies): 6 each in packets of 3; 56 points; only 8 players."""
    v = variant2(P8)
    assert v.players == 8 and v.cards_per_seat == 6
    assert [s["deal"] for s in v.flow if isinstance(s, dict)] == [[3, 3]]
    d = v.deck
    assert len(d.cards()) == 48
    assert sorted(set(d.text)) == sorted(r + s for s in "SHDC" for r in "J9ATKQ")
    assert v.total == 56
    with pytest.raises(VariantError):
        variant2(P8, {"players": 4})


@pytest.mark.parametrize("seed", range(3))
def test_h_56_8p_48_cards_deals_and_plays(seed):
    """docs/rules.md §H 56-8p-48-cards: every card before the auction (6 each), the eldest must
    open, 7 passes end the auction, 6 tricks of 8 cards, 56 points, sides alternate."""
    v = variant2(P8)
    st = State(v, dealer=7, seed=seed)
    assert st.phase == "auction" and st.to_act == 0
    assert all(len(h) == 6 for h in st.hands)
    assert "pass" not in st.legal_actions()
    play_out(st, random.Random(seed))
    assert len(st.tricks) == 6 and all(len(c) == 8 for _, c, _ in st.tricks)
    assert sum(st.side_points) == 56
    ch = st.result()["score_change"]
    assert ch[0::2] == [ch[0]] * 4 and ch[1::2] == [-ch[0]] * 4


# == 304-last-trick-10 ====================================================================
def test_h_304_last_trick_10_total_314_bids_unchanged():
    """docs/rules.md §H 304-last-trick-10: 314 in all; bids unchanged (155..300 in steps of 5, 5
    to 30 above the high bid)."""
    v = variant2(LT10)
    assert v.total == 314 and v.last_trick == 10
    st = state(LT10, G8_HANDS, dealer=3)
    assert st.legal_actions() == ["pass"] + bids304(155, 180)
    do(st, "0 bid 180", "1 bid 210", "2 bid 240", "3 bid 270")
    assert st.legal_actions() == ["pass"] + bids304(275, 300)
    illegal(st, "bid 310")


def test_h_304_last_trick_10_g8_defender_takes_last_trick():
    """docs/rules.md §H 304-last-trick-10: G8 (D gives KH): B wins trick 8 (21) + 10: B 56;
    A's side 182, defenders 132: 314; target 180: made, A and C +1."""
    st = state(LT10, G8_HANDS, dealer=3)
    do(st, "0 bid 180", "1 pass", "2 pass", "3 bid 185", "0 bid 200", "3 pass",
       "0 trump S", "0 call JH")
    t = g8_tricks(True)
    tricks_n(st, t[:1])
    do(st, "0 play 7C", "1 play 9C", "2 declare marriage S", "2 play QC", "3 play KC",
       "1 declare marriage D")
    tricks_n(st, t[2:])
    assert st.result()["points"] == [127, 56, 55, 76]
    assert st.side_points == [182, 132] and sum(st.side_points) == 314
    assert st.scores == [1, 0, 1, 0]


def test_h_304_last_trick_10_declarer_takes_last_trick():
    """docs/rules.md §H 304-last-trick-10: CUT at 160 (no marriage shown): seat 0 wins trick 8
    (37) + 10: declarer's side 252 + 10 = 262, defenders 52."""
    st = state(LT10, CUT_HANDS, dealer=3)
    do(st, "0 bid 160", "1 pass", "2 pass", "3 pass", "0 trump S", "0 call AH")
    tricks_n(st, CUT_TRICKS)
    assert st.side_points == [262, 52]
    assert st.result()["points"] == [212, 0, 91, 11]
