"""docs/rules.md §304 (Three-nought-four with a called partner) and golden cases G1 (304), G8.

Deals are built by hand in tests/helpers/rules2.py (G8_HANDS, CUT_HANDS, K_HANDS,
SLAM304_HANDS); expected values are worked out from docs/rules.md in the comments there and
here. Dealer 3 throughout, so seat 0 is the eldest and the dealer's standing bid of 150 is
seat 3's. In G8, A = seat 0, B = seat 1, C = seat 2, D = seat 3.
"""

from __future__ import annotations

import random

import pytest

from taash.interpreter import Match, State

from tests.helpers.rules import do, illegal, play_out
from tests.helpers.rules2 import (CUT_HANDS, CUT_TRICKS, G8_HANDS, K_HANDS, SLAM304_HANDS,
                                  SLAM304_TRICKS, bids304, g8_tricks, plays_of, split_legal,
                                  state, trick_n, tricks_n, variant2)

DECK_ORDER = [r + s for s in "SHDC" for r in "J9ATKQ87"]  # §0.3, §0.10


def st304(rows, name="304"):
    return state(name, rows, dealer=3)


def g8_start(trump="S", name="304"):
    """G8: A (seat 0) declares 200 (180; D 185; A 200; D passes), names `trump`, calls JH."""
    st = st304(G8_HANDS, name)
    do(st, "0 bid 180", "1 pass", "2 pass", "3 bid 185", "0 bid 200", "3 pass")
    assert st.declarer == 0 and st.bid == 200
    return do(st, f"0 trump {trump}", "0 call JH")


def g8_play(st, d_gives_king=True, c_shows=True, b_shows=True, slam_t3=False):
    """The G8 play (tests/helpers/rules2.py, g8_tricks) with C's marriage before his card in trick 2
    and B's before his lead of trick 3."""
    t = g8_tricks(d_gives_king)
    tricks_n(st, t[:1])
    do(st, "0 play 7C", "1 play 9C")
    if c_shows:
        do(st, "2 declare marriage S")
    do(st, "2 play QC", "3 play KC")
    if b_shows:
        do(st, "1 declare marriage D")
    do(st, "1 play KD", "2 play 8D", "3 play JD")
    if slam_t3:
        do(st, "0 declare slam")
    do(st, "0 play TD")
    tricks_n(st, t[3:])
    return st


def cut_start(route=("0 bid 160", "1 pass", "2 pass", "3 pass")):
    st = st304(CUT_HANDS)
    do(st, *route)
    return do(st, "0 trump S", "0 call AH")


def k_start():
    """K: seat 0 declares 155, trump D, calls AH (seat 2). Trick 1: 7D 8D JD 9D, seat 2's
    JD wins (30+20 = 50), seat 2 not revealed."""
    st = st304(K_HANDS)
    do(st, "0 bid 155", "1 pass", "2 pass", "3 pass", "0 trump D", "0 call AH")
    assert trick_n(st, 0, "7D 8D JD 9D") == 2
    assert not st.partner_revealed
    return st


def slam_start(call="AS"):
    st = st304(SLAM304_HANDS)
    return do(st, "0 bid 155", "1 pass", "2 pass", "3 pass", "0 trump S", f"0 call {call}")


# -- §304.1 -------------------------------------------------------------------------------
def test_304_1_four_players_individual_scores_clockwise():
    """docs/rules.md §304.1: four players, individual scores (one per seat), clockwise."""
    v = variant2("304")
    assert v.players == 4 and v.direction == "clockwise"
    st = st304(G8_HANDS)
    assert st.scores == [0, 0, 0, 0]


def test_304_1_no_fixed_partnerships():
    """docs/rules.md §304.1, §0.6: partnerships are decided per deal: in G8 seat 0's partner is
    seat 2 (JH); in SLAM304 calling AS makes seat 1 (next to him) the partner, and calling
    8S seat 3; the made contract scores only the declarer and that partner."""
    st = g8_start()
    assert st.partner == 2
    for call, partner in (("AS", 1), ("8S", 3)):
        st = slam_start(call)
        assert st.partner == partner
        tricks_n(st, SLAM304_TRICKS)
        ch = [0, 0, 0, 0]
        ch[0] = ch[partner] = 1
        assert st.result()["score_change"] == ch


# -- §304.2 / G1 --------------------------------------------------------------------------
def test_304_2_deck_and_points():
    """docs/rules.md §304.2: deck 32 (7 to A in four suits); J30 9=20 A11 T10 K3 Q2, 8 and 7
    nothing: 304 in all; no last-trick bonus."""
    v = variant2("304")
    d = v.deck
    assert d.copies == 1 and sorted(d.text[c] for c in d.cards()) == sorted(DECK_ORDER)
    for t in DECK_ORDER:
        assert d.point_of[d.parse(t)] == {"J": 30, "9": 20, "A": 11, "T": 10, "K": 3,
                                          "Q": 2}.get(t[0], 0), t
    assert v.last_trick == 0


def test_g1_304_deck_304():
    """docs/rules.md §G G1: 304 deck 304: the variant total, the deck's points, and the points
    of the whole G8 deal (182 + 122, no last-trick bonus)."""
    v = variant2("304")
    assert v.total == 304 and sum(v.deck.point_of[c] for c in v.deck.cards()) == 304
    st = g8_play(g8_start())
    assert st.side_points == [182, 122]
    assert sum(st.result()["points"]) == 304
    assert st.result()["points"] == [127, 46, 55, 76]  # see tests/helpers/rules2.py, G8


# -- §304.3 -------------------------------------------------------------------------------
def test_304_3_eight_each_before_the_auction():
    """docs/rules.md §304.3 [D]: 8 each in two packets of 4, all before the auction."""
    v = variant2("304")
    assert v.cards_per_seat == 8 and v.widow_size == 0
    assert [s["deal"] for s in v.flow if isinstance(s, dict)] == [[4, 4]]
    assert v.flow.index("auction") == 1
    st = st304(G8_HANDS)
    assert st.phase == "auction"
    for s in range(4):
        assert sorted(st.observation(s)["hand"]) == sorted(G8_HANDS[s].split())
    st = State(v, dealer=1, seed=9)
    assert all(len(h) == 8 for h in st.hands)


# -- §304.4 -------------------------------------------------------------------------------
def test_304_4_bids_5_to_30_above_in_steps_of_5():
    """docs/rules.md §304.4 [D]: the dealer holds a standing 150 (not a call); the eldest may
    pass or bid 155..180 (5 to 30 above, steps of 5)."""
    st = st304(G8_HANDS)
    assert st.to_act == 0 and st.bid == 150
    assert st.legal_actions() == ["pass"] + bids304(155, 180)
    for a in ("bid 150", "bid 157", "bid 185", "bid 200"):
        illegal(st, a)
    do(st, "0 bid 165")
    assert st.legal_actions() == ["pass"] + bids304(170, 195)
    illegal(st, "bid 165")


def test_304_4_pass_is_final_passed_seat_skipped():
    """docs/rules.md §304.4: a pass is final: a passed seat is skipped. 0 pass, 1 155, 2 pass,
    3 160: next is seat 1 (seat 0 skipped); 1 170, 3 pass: seat 1 declares at 170."""
    st = st304(G8_HANDS)
    do(st, "0 pass", "1 bid 155", "2 pass", "3 bid 160")
    assert st.to_act == 1
    do(st, "1 bid 170")
    assert st.to_act == 3
    do(st, "3 pass")
    assert st.phase == "trump" and st.declarer == 1 and st.bid == 170


def test_304_4_ends_when_all_but_high_bidder_passed():
    """docs/rules.md §304.4: the auction ends when every seat but the high bidder has passed
    after a bid: 0 155, 1 and 2 pass: the dealer still calls; it passes: seat 0 at 155."""
    st = st304(G8_HANDS)
    do(st, "0 bid 155", "1 pass", "2 pass")
    assert st.phase == "auction" and st.to_act == 3
    assert st.legal_actions() == ["pass"] + bids304(160, 185)
    do(st, "3 pass")
    assert st.phase == "trump" and st.declarer == 0 and st.bid == 155 and st.to_act == 0


def test_304_4_dealer_calls_like_everyone():
    """docs/rules.md §304.4: the dealer calls like everyone else: 0 155, 1 pass, 2 pass, dealer
    3 bids 160, 0 passes: seat 3 declares at 160."""
    st = st304(G8_HANDS)
    do(st, "0 bid 155", "1 pass", "2 pass", "3 bid 160", "0 pass")
    assert st.phase == "trump" and st.declarer == 3 and st.bid == 160


def test_304_4_dealer_may_raise_his_standing_bid():
    """docs/rules.md §304.4: after three passes the dealer may raise his own standing bid (or
    pass); his bid ends the auction (everybody else has passed): seat 3 at 175."""
    st = st304(G8_HANDS)
    do(st, "0 pass", "1 pass", "2 pass")
    assert st.to_act == 3
    assert st.legal_actions() == ["pass"] + bids304(155, 180)
    do(st, "3 bid 175")
    assert st.phase == "trump" and st.declarer == 3 and st.bid == 175


def test_304_4_all_four_pass_dealer_declares_150():
    """docs/rules.md §304.4: if all four pass, the dealer is declarer at 150."""
    st = st304(G8_HANDS)
    do(st, "0 pass", "1 pass", "2 pass", "3 pass")
    assert st.phase == "trump" and st.declarer == 3 and st.bid == 150 and st.target == 150
    assert st.to_act == 3


def test_304_4_at_most_300_and_ends_at_once():
    """docs/rules.md §304.4: at most 300 (304 is not a bid); the auction ends at once on 300.
    0 180, 1 210, 2 240, 3 270: seat 0 may bid 275..300."""
    st = st304(G8_HANDS)
    do(st, "0 bid 180", "1 bid 210", "2 bid 240", "3 bid 270")
    assert st.legal_actions() == ["pass"] + bids304(275, 300)
    illegal(st, "bid 304")
    illegal(st, "bid 305")
    do(st, "0 bid 300")
    assert st.phase == "trump" and st.declarer == 0 and st.bid == 300


# -- §304.5 -------------------------------------------------------------------------------
def test_304_5_trump_then_call_a_card_not_in_own_hand():
    """docs/rules.md §304.5: the declarer names trump openly (any suit), then calls a partner by
    naming one card not in his own hand (24 cards; order of §0.3/§0.10)."""
    st = st304(G8_HANDS)
    do(st, "0 bid 180", "1 pass", "2 pass", "3 pass")
    assert st.legal_actions() == ["trump S", "trump H", "trump D", "trump C"]
    illegal(st, "call JH")
    do(st, "0 trump S")
    assert st.phase == "call" and st.to_act == 0
    own = set(G8_HANDS[0].split())
    assert st.legal_actions() == [f"call {c}" for c in DECK_ORDER if c not in own]
    illegal(st, "call JS")   # his own card
    illegal(st, "call AD")
    do(st, "0 call JH")
    assert st.phase == "play" and st.partner == 2


def test_304_5_trump_and_called_card_public_holder_not():
    """docs/rules.md §304.5: trump and the called card are public; who holds the card is not:
    only the holder (seat 2) knows the partner; the declarer does not either."""
    st = g8_start()
    for s in range(4):
        obs = st.observation(s)
        assert obs["trump"] == "S" and obs["called_card"] == "JH"
        assert [0, "call JH"] in obs["history"]
        assert obs["partner"] == (2 if s == 2 else None)
    assert st.result()["partner"] == 2  # the whole truth, not an observation


# -- §304.6 -------------------------------------------------------------------------------
def test_304_6_eldest_leads_even_when_dealer_declares():
    """docs/rules.md §304.6, §0.2: the eldest leads: all pass, dealer 3 declares at 150, names H,
    calls JS (seat 0's): seat 0 leads, any card."""
    st = st304(G8_HANDS)
    do(st, "0 pass", "1 pass", "2 pass", "3 pass", "3 trump H")
    own = set(G8_HANDS[3].split())
    assert st.legal_actions() == [f"call {c}" for c in DECK_ORDER if c not in own]
    do(st, "3 call JS")
    assert st.partner == 0 and st.to_act == 0
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare slam"}  # seat 0 is the (secret) partner, §304.10
    assert cards == ["play JS", "play 9S", "play QH", "play 7H", "play AD", "play TD",
                     "play JC", "play 7C"]


def test_304_6_follow_suit_if_able():
    """docs/rules.md §304.6: G8 trick 1 (JC led): B must play 9C or 8C, C AC or QC."""
    st = g8_start()
    do(st, "0 play JC")
    assert st.legal_actions() == ["play 9C", "play 8C"]
    illegal(st, "play AS")
    do(st, "1 play 8C")
    decl, cards = split_legal(st.legal_actions())
    assert cards == ["play AC", "play QC"]
    illegal(st, "play KS")


def test_304_6_void_plays_any_card():
    """docs/rules.md §304.6: otherwise any card (trumping not required): CUT trick 3, seat 3 has
    no heart: any of QS 7S (trumps) 9D KD AC TC."""
    st = cut_start()
    tricks_n(st, CUT_TRICKS[:2])
    do(st, "0 play 7H", "1 play 8H", "2 play AH")
    assert st.legal_actions() == ["play QS", "play 7S", "play 9D", "play KD", "play AC",
                                  "play TC"]


# -- §304.7 -------------------------------------------------------------------------------
def test_304_7_declarer_leads_called_suit_holder_must_play_called_card():
    """docs/rules.md §304.7: when the declarer leads the called card's suit, the holder must
    play the called card: G8 trick 7, A leads QH, C (JH TH) may only play JH."""
    st = g8_start()
    g8_tricks_until(st, 6)
    do(st, "0 play QH", "1 play 9H")
    decl, cards = split_legal(st.legal_actions())
    assert cards == ["play JH"]
    illegal(st, "play TH")


def g8_tricks_until(st, n):
    """G8 with both marriages, through trick n."""
    t = g8_tricks(True)
    tricks_n(st, t[:1])
    do(st, "0 play 7C", "1 play 9C", "2 declare marriage S", "2 play QC", "3 play KC")
    if n >= 3:
        do(st, "1 declare marriage D")
        tricks_n(st, t[2:n])
    return st


def test_304_7_defender_leads_called_suit_holder_chooses():
    """docs/rules.md §304.7: only the declarer's lead forces the called card: if B (a defender)
    leads AH in trick 3, C may play JH or TH."""
    st = g8_start()
    g8_tricks_until(st, 2)
    do(st, "1 play AH")
    decl, cards = split_legal(st.legal_actions())
    assert cards == ["play JH", "play TH"]


def test_304_7_revealed_by_playing_the_called_card():
    """docs/rules.md §304.7: the holder is revealed when he plays the called card: K deal, seat
    2 leads AH in trick 2; from then on every seat sees the partner."""
    st = k_start()
    for s in (0, 1, 3):
        assert st.observation(s)["partner"] is None
    assert st.observation(2)["partner"] == 2
    do(st, "2 play AH")
    assert st.partner_revealed
    for s in range(4):
        assert st.observation(s)["partner"] == 2


def test_304_7_revealed_by_a_declaration():
    """docs/rules.md §304.7, §304.9: a partner who shows a marriage is thereby revealed: G8, C
    shows KS QS in trick 2 while JH is still in his hand."""
    st = g8_start()
    tricks_n(st, g8_tricks()[:1])
    do(st, "0 play 7C", "1 play 9C")
    assert not st.partner_revealed
    assert st.observation(1)["partner"] is None and st.observation(0)["partner"] is None
    do(st, "2 declare marriage S")
    assert st.partner_revealed
    assert "JH" in st.observation(2)["hand"]
    for s in range(4):
        assert st.observation(s)["partner"] == 2


# -- §304.8 -------------------------------------------------------------------------------
def test_304_8_cut_partner_goes_over_to_the_defenders():
    """docs/rules.md §304.8: CUT, trick 3: the declarer leads 7H (the called card's suit, not
    trump), the holder plays AH, seat 3 (defender) wins with the trump 7S: the declarer
    plays the rest alone. Trick 1 (won by seat 2 before the cut, 50) stays with the
    declarer's side: 50 + 32 = 82 against 11."""
    st = cut_start()
    tricks_n(st, CUT_TRICKS[:2])
    assert st.side[2] == st.side[0] and st.side_points == [82, 0]
    do(st, "0 play 7H", "1 play 8H")
    decl, cards = split_legal(st.legal_actions())
    assert cards == ["play AH"]
    do(st, "2 play AH", "3 play 7S")
    assert st.tricks[-1][2] == 3
    assert st.side[2] == st.side[1] == st.side[3] != st.side[0]
    assert st.side_points == [82, 11]


def test_304_8_after_the_cut_marriage_as_defender_no_slam_tricks_to_defenders():
    """docs/rules.md §304.8: from the next trick on the partner counts as a defender: his
    marriage moves the target +20 (160 -> 180), he may not declare slam, the trick he wins
    (trick 4, 41) goes to the defenders; he still shares the declarer's score. Final:
    declarer's side 252, defenders 52 (helpers/rules2.py CUT): made: seats 0 and 2 +1."""
    st = cut_start()
    tricks_n(st, CUT_TRICKS[:3])
    do(st, "3 play 9D", "0 play TD", "1 play AD")
    decl, cards = split_legal(st.legal_actions())
    # the defenders have a trick (seat 3's), and the partner is revealed (§304.9)
    assert decl == {"declare marriage C"}
    assert cards == ["play 8S", "play JH", "play KH", "play KC", "play QC"]
    illegal(st, "declare slam")
    do(st, "2 declare marriage C")
    assert st.target == 180
    do(st, "2 play 8S")
    assert st.tricks[-1][2] == 2
    assert st.side_points == [82, 52]
    tricks_n(st, CUT_TRICKS[4:])
    assert st.side_points == [252, 52]
    r = st.result()
    assert r["points"] == [202, 0, 91, 11]
    assert r["made"] is True and r["partner"] == 2
    assert r["score_change"] == [1, 0, 1, 0]


def test_304_8_cut_partner_shares_the_failure():
    """docs/rules.md §304.8, §304.11: CUT at 250 (0 180, 3 185, 0 215, 3 220, 0 250): the cut
    partner's marriage as a defender raises the target to 270; the declarer's side takes
    252: failed, and the partner shares it: seats 0 and 2 -1."""
    st = cut_start(("0 bid 180", "1 pass", "2 pass", "3 bid 185", "0 bid 215", "3 bid 220",
                    "0 bid 250", "3 pass"))
    assert st.declarer == 0 and st.bid == 250
    tricks_n(st, CUT_TRICKS[:3])
    do(st, "3 play 9D", "0 play TD", "1 play AD", "2 declare marriage C", "2 play 8S")
    tricks_n(st, CUT_TRICKS[4:])
    assert st.target == 270 and st.side_points == [252, 52]
    assert st.made is False
    assert st.scores == [-1, 0, -1, 0]


def test_304_8_no_cut_when_the_called_card_wins():
    """docs/rules.md §304.8: only a trick won by a defender's trump cuts: if seat 3 discards AC
    instead of trumping, AH wins for the declarer's side and seat 2 stays a partner."""
    st = cut_start()
    tricks_n(st, CUT_TRICKS[:2])
    assert trick_n(st, 0, "7H 8H AH AC") == 2
    assert st.side[2] == st.side[0]
    assert st.side_points == [82 + 0 + 0 + 11 + 11, 0]


# -- §304.9 -------------------------------------------------------------------------------
def test_304_9_partner_counts_declarers_trick_from_trick_1():
    """docs/rules.md §304.9: the partner counts the declarer's tricks from trick 1: G8, A won
    trick 1; C (who has won nothing, not revealed) may show KS QS in trick 2; trump S:
    target 200 - 40 = 160."""
    st = g8_start()
    tricks_n(st, g8_tricks()[:1])
    do(st, "0 play 7C", "1 play 9C")
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare marriage S", "declare slam"}
    assert cards == ["play QC"]
    do(st, "2 declare marriage S")
    assert st.target == 160


def test_304_9_defender_counts_his_own_trick():
    """docs/rules.md §304.9: a defender counts his own tricks: B won trick 2 and shows KD QD
    leading trick 3: target 160 + 20 = 180; defenders may not declare slam."""
    st = g8_start()
    g8_tricks_until(st, 2)
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare marriage D"}
    assert cards == ["play AS", "play TS", "play 9H", "play AH", "play KD", "play QD"]
    do(st, "1 declare marriage D")
    assert st.target == 180


def test_304_9_not_before_the_side_has_won_a_trick():
    """docs/rules.md §304.9: G8 trick 1: nobody has won a trick: no marriage for C (KS QS) nor
    for B (KD QD)."""
    st = g8_start()
    assert split_legal(st.legal_actions())[0] == {"declare slam"}  # A leads
    do(st, "0 play JC")
    assert split_legal(st.legal_actions())[0] == set()
    do(st, "1 play 8C")
    assert split_legal(st.legal_actions())[0] == {"declare slam"}  # C: slam only


def test_304_9_declarer_counts_partner_only_once_revealed():
    """docs/rules.md §304.9: the declarer counts his own tricks, and the partner's once the
    partner is revealed. K deal: seat 2 (partner) won trick 1. If seat 2 leads 8H in trick
    2 (still unrevealed), seat 0 may not show KS QS; if it leads AH (revealed), he may."""
    st = k_start()
    a = st.copy()
    do(st, "2 play 8H", "3 play JH")
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare slam"} and cards == ["play TH", "play QH"]  # T above Q
    illegal(st, "declare marriage S")
    do(a, "2 play AH", "3 play 7H")
    decl, cards = split_legal(a.legal_actions())
    assert decl == {"declare marriage S", "declare slam"}
    do(a, "0 declare marriage S")
    assert a.target == 155 - 20   # not trump (D): 20


def test_304_9_defender_counts_other_defender_only_once_revealed():
    """docs/rules.md §304.9: a defender counts his own tricks, and the other defender's once the
    partner is revealed. K deal: trick 2 8H JH QH 9H is won by seat 3 (defender); in trick
    3 (7H TH, partner not revealed) seat 1 (KC QC) may not show; seat 2 then plays AH and
    wins trick 3; in trick 4 seat 1 may show (+20: 175)."""
    st = k_start()
    assert trick_n(st, 2, "8H JH QH 9H") == 3
    do(st, "3 play 7H", "0 play TH")
    assert st.legal_actions() == ["play KH"]
    illegal(st, "declare marriage C")
    do(st, "1 play KH", "2 play AH")
    assert st.tricks[-1][2] == 2 and st.partner_revealed
    do(st, "2 play TS", "3 play 7C", "0 play JS")
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare marriage C"} and cards == ["play 8S", "play 7S"]
    do(st, "1 declare marriage C")
    assert st.target == 175


def test_304_9_marriage_in_trump_40_by_defender():
    """docs/rules.md §304.9: G8 with trump D: C's KS QS (not trump) -20, B's KD QD (trump) +40:
    200 - 20 + 40 = 220. Every G8 trick is one suit, so the play is the same: A's side 182
    < 220: failed, A and C -1."""
    st = g8_start(trump="D")
    g8_play(st)
    assert st.target == 220
    assert st.side_points == [182, 122]
    assert st.scores == [-1, 0, -1, 0]


def test_304_9_each_suit_once_and_only_while_holding_both():
    """docs/rules.md §304.9: each suit once: in trick 5 C still holds KS QS but may not show
    them again. While he holds both: if B leads KD in trick 3 without showing, in trick 4
    (QD left) he may not show D."""
    st = g8_start()
    g8_tricks_until(st, 4)
    do(st, "3 play 8S", "0 play JS", "1 play AS")
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare slam"} and cards == ["play KS", "play QS"]
    illegal(st, "declare marriage S")
    st = g8_start()
    t = g8_tricks()
    tricks_n(st, t[:1])
    do(st, "0 play 7C", "1 play 9C", "2 declare marriage S", "2 play QC", "3 play KC")
    tricks_n(st, t[2:3])   # B leads KD without showing
    do(st, "3 play 9D", "0 play AD")
    assert st.legal_actions() == ["play QD"]
    illegal(st, "declare marriage D")


def test_304_9_no_bounds():
    """docs/rules.md §304.9: no bounds: a target may go below 155 or above 304. G8 at 155 (seat
    0 bids 155, all pass): C's trump marriage: 115. G8 at 300 (0 180, 1 210, 2 240, 3 270,
    0 300) and only B shows: 320."""
    st = st304(G8_HANDS)
    do(st, "0 bid 155", "1 pass", "2 pass", "3 pass", "0 trump S", "0 call JH")
    tricks_n(st, g8_tricks()[:1])
    do(st, "0 play 7C", "1 play 9C", "2 declare marriage S")
    assert st.target == 115
    st = st304(G8_HANDS)
    do(st, "0 bid 180", "1 bid 210", "2 bid 240", "3 bid 270", "0 bid 300", "0 trump S",
       "0 call JH")
    g8_play(st, c_shows=False)
    assert st.target == 320 and st.made is False


# -- §304.10 ------------------------------------------------------------------------------
def test_304_10_declarer_slam_won_plus_4_each():
    """docs/rules.md §304.10, §304.11: SLAM304 (seat 0 wins all 8 tricks), partner seat 1 (AS):
    seat 0 declares slam before leading trick 1: +4 each for seats 0 and 1."""
    st = slam_start()
    do(st, "0 declare slam")
    assert "declare slam" not in st.legal_actions()
    tricks_n(st, SLAM304_TRICKS[:1])
    assert "declare slam" not in st.legal_actions()   # once per deal
    tricks_n(st, SLAM304_TRICKS[1:])
    assert st.side_points == [304, 0]
    assert st.made is True
    assert st.scores == [4, 4, 0, 0]


def test_304_10_partner_may_declare_slam_and_is_revealed():
    """docs/rules.md §304.10: the partner may declare slam; he is thereby revealed. SLAM304 with
    AC called (seat 1, who plays it only in trick 7): seat 1 declares in trick 1: +4 for
    seats 0 and 1."""
    st = slam_start("AC")
    do(st, "0 play JS")
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare slam"} and cards == ["play AS", "play TS"]
    assert st.observation(0)["partner"] is None
    do(st, "1 declare slam")
    assert st.partner_revealed
    for s in range(4):
        assert st.observation(s)["partner"] == 1
    do(st, "1 play AS", "2 play KS", "3 play 8S")
    tricks_n(st, SLAM304_TRICKS[1:])
    assert st.scores == [4, 4, 0, 0]


def test_304_10_defenders_may_not_declare_slam():
    """docs/rules.md §304.10: only the declarer or the partner: SLAM304 (AS called, seat 1):
    seats 2 and 3 get no slam."""
    st = slam_start()
    do(st, "0 play JS", "1 play AS")
    assert st.legal_actions() == ["play KS", "play QS"]
    illegal(st, "declare slam")
    do(st, "2 play KS")
    assert st.legal_actions() == ["play 8S", "play 7S"]


def test_304_10_slam_in_tricks_1_to_5_only_even_after_lost_trick():
    """docs/rules.md §304.10: during tricks 1 to 5, even after a lost trick: G8, A may declare in
    trick 3 (B won trick 2) and in trick 5, not in trick 6."""
    st = g8_start()
    g8_tricks_until(st, 2)
    do(st, "1 declare marriage D", "1 play KD", "2 play 8D", "3 play JD")
    assert "declare slam" in st.legal_actions()
    do(st, "0 play TD")
    tricks_n(st, g8_tricks()[3:4])
    do(st, "3 play 8S")
    assert "declare slam" in st.legal_actions()   # trick 5
    do(st, "0 play JS", "1 play AS", "2 play KS")
    assert st.tricks[-1][2] == 0 and st.to_act == 0  # A leads trick 6
    decl, cards = split_legal(st.legal_actions())
    assert decl == set()
    illegal(st, "declare slam")


def test_304_10_slam_lost_is_minus_1_even_with_target_reached():
    """docs/rules.md §304.11: a declared slam that loses a trick is -1 each even if the target
    was reached: G8 (target 180, A's side 182) with A's slam declared in trick 3."""
    st = g8_play(g8_start(), slam_t3=True)
    assert st.target == 180 and st.side_points[0] == 182
    assert st.made is False
    assert st.scores == [-1, 0, -1, 0]


# -- §304.11 / G8 -------------------------------------------------------------------------
def test_g8_182_made():
    """docs/rules.md §G G8: bid 200 by A, trump S, A calls JH held by C: C shows KS QS after A's
    side won trick 1: target 160; B shows KD QD after winning trick 2: target 180. A's side
    ends with 182: A +1, C +1, B 0, D 0."""
    st = g8_start()
    assert st.partner == 2
    g8_play(st, d_gives_king=True)
    assert st.target == 180
    assert st.side_points == [182, 122]
    assert st.made is True
    r = st.result()
    assert r["declarer"] == 0 and r["bid"] == 200 and r["trump"] == "S"
    assert r["score_change"] == [1, 0, 1, 0]


def test_g8_179_failed():
    """docs/rules.md §G G8: with 179 (D keeps KH for B's last trick): A -1, C -1, B 0, D 0."""
    st = g8_play(g8_start(), d_gives_king=False)
    assert st.target == 180
    assert st.side_points == [179, 125]
    assert st.made is False
    assert st.result()["score_change"] == [-1, 0, -1, 0]


def test_304_11_defenders_score_0_whatever_happens():
    """docs/rules.md §304.11: defenders score 0 whatever happens: from [2, 5, 1, 3] G8 failed
    (179): [1, 5, 0, 3]; made (182): [3, 5, 2, 3]."""
    st = state("304", G8_HANDS, dealer=3, scores=[2, 5, 1, 3])
    do(st, "0 bid 180", "1 pass", "2 pass", "3 bid 185", "0 bid 200", "3 pass",
       "0 trump S", "0 call JH")
    g8_play(st, d_gives_king=False)
    assert st.scores == [1, 5, 0, 3]
    st = state("304", G8_HANDS, dealer=3, scores=[2, 5, 1, 3])
    do(st, "0 bid 180", "1 pass", "2 pass", "3 bid 185", "0 bid 200", "3 pass",
       "0 trump S", "0 call JH")
    g8_play(st, d_gives_king=True)
    assert st.scores == [3, 5, 2, 3]


# -- §304.12 ------------------------------------------------------------------------------
def test_304_12_eleven_deals_highest_total_wins_ties_share():
    """docs/rules.md §304.12: a match is 11 deals; the highest total wins; equal totals share
    the win. Ten random deals do not end it; before the 11th the scores are set to
    [2, 3, 1, 3]; G8 made (A +1, C +1): [3, 3, 2, 3]: seats 0, 1 and 3 win."""
    m = Match(variant2("304"), 4)
    rng = random.Random(4)
    for i in range(10):
        st = m.new_deal()
        play_out(st, rng)
        m.finish_deal(st)
        assert not m.over, i
    m.scores = [2, 3, 1, 3]
    st = m.new_deal(hands=[r.split() for r in G8_HANDS], dealer=3)
    do(st, "0 bid 180", "1 pass", "2 pass", "3 bid 185", "0 bid 200", "3 pass",
       "0 trump S", "0 call JH")
    g8_play(st)
    m.finish_deal(st)
    assert m.scores == [3, 3, 2, 3]
    assert m.over and m.winners == [0, 1, 3]
    with pytest.raises(ValueError):
        m.new_deal()


def test_304_10_several_declarations_before_one_card():
    """docs/rules.md §0.8, §304.10: several different declarations may precede one card: in G8
    trick 2 C shows KS QS (target 160), is still to act, declares slam, then plays QC."""
    st = g8_start()
    tricks_n(st, g8_tricks()[:1])
    do(st, "0 play 7C", "1 play 9C", "2 declare marriage S")
    assert st.to_act == 2
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare slam"} and cards == ["play QC"]
    do(st, "2 declare slam")
    assert st.to_act == 2 and st.legal_actions() == ["play QC"]
    do(st, "2 play QC")
    assert st.target == 160 and st.to_act == 3
