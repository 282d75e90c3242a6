"""docs/rules.md §56 (Fifty-six) and golden cases G1 (56 presets), G2, G3, G4.

Deals are built by hand in tests/helpers/rules2.py (F56, J56, G2_HANDS); expected values
are worked out from docs/rules.md in the comments. Six players unless stated: seats 0 2 4 are
side 0, seats 1 3 5 side 1 (§0.6). F56 and J56 use dealer 5 (eldest 0); G2 dealer 0.
"""

from __future__ import annotations

import random

import pytest

from taash.interpreter import Match, State
from taash.interpreter.loader import VariantError

from tests.helpers.rules import do, illegal, play_out
from tests.helpers.rules2 import (F56, F56_SEAT_POINTS, F56_TRICKS, G2_HANDS, J56, J56_TRICKS,
                                  bids56, state, trick_n, tricks_n, variant2)

PRESETS = [
    ({"players": 6}, 48, 8, [4, 4]),
    ({"players": 4}, 48, 12, [4, 4, 4]),
    ({"players": 4, "short_deck": True}, 32, 8, [4, 4]),
    ({"players": 8}, 64, 8, [4, 4]),
    ({"players": 8, "short_deck": True}, 48, 6, [3, 3]),
]


def deal56(rows, dealer=5, name="56", scores=None, options=None):
    return state(name, rows, dealer=dealer, scores=scores, options=options)


def finish_auction(st, first_seat):
    """Pass from `first_seat` until the auction ends; §56.4: n-1 = 5 passes are needed."""
    n = st.v.players
    for i in range(n - 1):
        assert st.phase == "auction", f"auction ended after {i} passes"
        do(st, f"{(first_seat + i) % n} pass")
    assert st.phase == "play"
    return st


def contract(rows, call="bid 28 H", then=(), name="56", scores=None):
    """Seat 0 (eldest, dealer 5) makes `call`; `then` are further calls from seat 1 on
    (e.g. double, redouble); then five passes."""
    st = deal56(rows, name=name, scores=scores)
    do(st, f"0 {call}")
    seat = 1
    for c in then:
        do(st, f"{seat} {c}")
        seat += 1
    return finish_auction(st, seat % 6)


# -- §56.1 --------------------------------------------------------------------------------
def test_56_1_players_4_6_8_default_6():
    """docs/rules.md §56.1: players 4, 6 or 8, default 6; other numbers are refused."""
    assert variant2("56").players == 6
    for n in (4, 6, 8):
        assert variant2("56", {"players": n}).players == n
    for n in (3, 5, 7):
        with pytest.raises(VariantError):
            variant2("56", {"players": n})


def test_56_1_two_sides_alternate_counter_clockwise():
    """docs/rules.md §56.1, §0.6, §0.1: two fixed sides, seats alternate (0 2 4 against 1 3 5);
    the direction is counter-clockwise, display only: calls still go 0, 1, 2, ... F56
    made by seat 0 at 28: side 0 +1, side 1 -1, each seat shows its side's change."""
    v = variant2("56")
    assert v.direction == "counter-clockwise"
    st = contract(F56, "bid 28 H")  # contract() checks the seat of every call
    tricks_n(st, F56_TRICKS)
    assert st.result()["score_change"] == [1, -1, 1, -1, 1, -1]
    assert st.scores == [13, 11]


@pytest.mark.parametrize("n", [4, 8])
def test_56_1_sides_alternate_at_4_and_8(n):
    """docs/rules.md §56.1, §0.6: partners opposite at 4, alternating at 8: seat s is on side
    s mod 2, so a deal scored for side 0 moves seats 0, 2, (4, 6) together."""
    v = variant2("56", {"players": n})
    st = State(v, dealer=n - 1, seed=7)
    play_out(st, random.Random(n))
    ch = st.result()["score_change"]
    assert len(ch) == n and ch[0] != 0
    assert all(ch[s] == ch[0] for s in range(0, n, 2))
    assert all(ch[s] == -ch[0] for s in range(1, n, 2))


# -- §56.2 / G1 ---------------------------------------------------------------------------
def test_56_2_deck_two_copies_of_j9atkq():
    """docs/rules.md §56.2: two copies of J 9 A T K Q in each suit, 48 cards; points J3 9=2 A1
    T1, others 0: 56 in all."""
    d = variant2("56").deck
    assert d.copies == 2
    cards = [d.text[c] for c in d.cards()]
    assert len(cards) == 48
    assert sorted(set(cards)) == sorted(r + s for s in "SHDC" for r in "J9ATKQ")
    assert all(cards.count(t) == 2 for t in set(cards))
    for t in set(cards):
        assert d.point_of[d.parse(t)] == {"J": 3, "9": 2, "A": 1, "T": 1}.get(t[0], 0), t
    assert sum(d.point_of[c] for c in d.cards()) == 56


@pytest.mark.parametrize("opts,size,_h,_p", PRESETS)
def test_56_2_deck_of_each_preset(opts, size, _h, _p):
    """docs/rules.md §56.2: 8 players add two copies of 8 and 7 (64 cards); options: 4 players
    without K and Q (32 cards), 8 players with the 48-card deck."""
    d = variant2("56", opts).deck
    cards = [d.text[c] for c in d.cards()]
    assert len(cards) == size
    ranks = {"48": "J9ATKQ", "64": "J9ATKQ87", "32": "J9AT"}[str(size)]
    assert sorted(set(cards)) == sorted(r + s for s in "SHDC" for r in ranks)
    assert all(cards.count(t) == 2 for t in set(cards))


@pytest.mark.parametrize("opts,size,_h,_p", PRESETS)
def test_g1_56_every_preset_56(opts, size, _h, _p):
    """docs/rules.md §G G1: 56 every preset 56 (deck points; no last-trick bonus; a whole deal
    played at random ends with 56 points between the sides)."""
    v = variant2("56", opts)
    d = v.deck
    assert sum(d.point_of[c] for c in d.cards()) == 56
    assert v.total == 56 and v.last_trick == 0
    for seed in range(3):
        st = State(v, dealer=seed % v.players, seed=seed)
        play_out(st, random.Random(seed))
        assert sum(st.side_points) == 56
        assert sum(st.result()["points"]) == 56


def test_56_2_no_last_trick_bonus():
    """docs/rules.md §56.2: no last-trick bonus: F56's last trick 9C JC QC AC TC KC gives
    seat 0 exactly its card points 2+3+0+1+1+0 = 7; the deal's points are 56."""
    st = contract(F56)
    tricks_n(st, F56_TRICKS[:7])
    before = st.seat_points[0]
    trick_n(st, 5, "9C JC QC AC TC KC")
    assert st.seat_points[0] - before == 7
    assert st.side_points == [36, 20]
    assert st.result()["points"] == F56_SEAT_POINTS


# -- §56.3 --------------------------------------------------------------------------------
@pytest.mark.parametrize("opts,_s,per_seat,packets", PRESETS)
def test_56_3_all_cards_before_the_auction(opts, _s, per_seat, packets):
    """docs/rules.md §56.3: every card is dealt before the auction, in packets of 4 (3 for 48
    cards at 8 players); hands 4p 12 (or 8), 6p 8, 8p 8 (or 6)."""
    v = variant2("56", opts)
    assert v.cards_per_seat == per_seat and v.widow_size == 0
    deals = [s["deal"] for s in v.flow if isinstance(s, dict) and "deal" in s]
    assert deals == [packets]
    assert v.flow.index("auction") > v.flow.index({"deal": packets})
    st = State(v, dealer=0, seed=3)
    assert st.phase == "auction"
    for s in range(v.players):
        assert len(st.hands[s]) == per_seat
        assert len(st.observation(s)["hand"]) == per_seat
    assert sorted(c for h in st.hands for c in h) == sorted(v.deck.cards())


def test_56_3_hands_given_are_held_in_the_auction():
    """docs/rules.md §56.3: F56 (dealer 5): at the first call every seat holds its 8 cards."""
    st = deal56(F56)
    assert st.phase == "auction" and st.to_act == 0
    for s in range(6):
        assert sorted(st.observation(s)["hand"]) == sorted(F56[s].split())


# -- §56.4 --------------------------------------------------------------------------------
def test_56_4_eldest_must_open_with_a_bid():
    """docs/rules.md §56.4: the eldest must open with a bid: no pass on the first call; bids
    28..56 in any denomination (§0.10 order: number, then S H D C NT NOES, number-first
    form before suit-first)."""
    st = deal56(F56)
    assert st.to_act == 0
    assert st.legal_actions() == bids56(28, 56)
    illegal(st, "pass")
    illegal(st, "bid 27 H")
    illegal(st, "bid 57 H")
    illegal(st, "double")


def test_56_4_strictly_higher_number_denominations_not_ranked():
    """docs/rules.md §56.4: a bid must have a strictly higher number; denominations are not
    ranked: after 30 S, 30 NT and 30 C are illegal, 31 of anything is legal. Seat 1 (an
    opponent of seat 0) may also double."""
    st = deal56(F56)
    do(st, "0 bid 30 S")
    assert st.legal_actions() == ["pass"] + bids56(31, 56) + ["double"]
    for a in ("bid 30 NT", "bid 30 C", "bid C 30", "bid 29 H", "bid 30 NOES"):
        illegal(st, a)
    do(st, "1 bid 31 C")
    assert st.bid == 31 and st.high_bidder == 1


def test_56_4_pass_is_not_final():
    """docs/rules.md §56.4 [D]: a pass is not final: seat 1 passes, later bids again."""
    st = deal56(F56)
    do(st, "0 bid 28 H", "1 pass", "2 pass", "3 bid 29 S", "4 pass", "5 pass", "0 pass")
    assert st.phase == "auction" and st.to_act == 1
    assert "bid 30 D" in st.legal_actions()
    do(st, "1 bid 30 D")
    finish_auction(st, 2)
    assert st.declarer == 1 and st.bid == 30


def test_56_4_double_only_an_opponents_undoubled_bid():
    """docs/rules.md §56.4: double when the high bid is an opponent's and not yet doubled.
    After seat 0's 28 H: seat 1 (opponent) may double; after seat 1 passes, seat 2
    (seat 0's partner) may not; after seat 3's double, seat 4 may not double again."""
    st = deal56(F56)
    do(st, "0 bid 28 H")
    assert "double" in st.legal_actions()
    do(st, "1 pass")
    assert st.legal_actions() == ["pass"] + bids56(29, 56)
    illegal(st, "double")
    do(st, "2 pass", "3 double")
    assert st.doubled == 1
    # seat 4 (seat 0's side): may redouble; no second double
    assert st.legal_actions() == ["pass"] + bids56(29, 56) + ["redouble"]
    illegal(st, "double")


def test_56_4_redouble_only_own_sides_doubled_bid():
    """docs/rules.md §56.4: redouble when the high bid is its own side's, doubled, not yet
    redoubled. Seat 0 28 H, seat 1 double: seat 2 (partner) may redouble; seat 3 (the
    doubler's partner) may not; after seat 2 redoubles nobody may double or redouble."""
    st = deal56(F56)
    do(st, "0 bid 28 H")
    illegal(st, "redouble")          # seat 1: an undoubled bid of the other side
    do(st, "1 double")
    assert st.legal_actions() == ["pass"] + bids56(29, 56) + ["redouble"]
    do(st, "2 pass")
    assert st.legal_actions() == ["pass"] + bids56(29, 56)   # seat 3, doubler's side
    illegal(st, "redouble")
    do(st, "3 pass", "4 redouble")
    assert st.doubled == 2
    for s in (5, 0):
        assert st.to_act == s
        assert st.legal_actions() == ["pass"] + bids56(29, 56)
        illegal(st, "double")
        illegal(st, "redouble")
        do(st, f"{s} pass")


def test_56_4_new_bid_cancels_double_and_redouble():
    """docs/rules.md §56.4: a new bid cancels any double and redouble."""
    st = deal56(F56)
    do(st, "0 bid 28 H", "1 double", "2 redouble")
    assert st.doubled == 2
    do(st, "3 bid 29 S")
    assert st.doubled == 0
    assert st.legal_actions() == ["pass"] + bids56(30, 56) + ["double"]


def test_56_4_ends_after_n_minus_1_passes():
    """docs/rules.md §56.4 [D]: the auction ends when n-1 = 5 consecutive passes follow the
    last bid, double or redouble; four are not enough."""
    st = deal56(F56)
    do(st, "0 bid 28 H", "1 double", "2 pass", "3 pass", "4 pass", "5 pass")
    assert st.phase == "auction" and st.to_act == 0
    do(st, "0 pass")
    assert st.phase == "play"
    assert st.declarer == 0 and st.bid == 28 and st.doubled == 1


def test_56_4_bid_of_56_does_not_end_at_once():
    """docs/rules.md §56.4 [D]: also after a bid of 56 the auction ends only after five passes;
    meanwhile an opponent may still double (the partner only pass)."""
    st = deal56(F56)
    do(st, "0 bid 56 NT")
    assert st.phase == "auction" and st.to_act == 1
    assert st.legal_actions() == ["pass", "double"]
    do(st, "1 pass")
    assert st.legal_actions() == ["pass"]
    illegal(st, "bid 56 S")
    do(st, "2 pass", "3 double")
    assert st.legal_actions() == ["pass", "redouble"]
    do(st, "4 pass", "5 pass", "0 pass", "1 pass")
    assert st.phase == "auction"
    do(st, "2 pass")
    assert st.phase == "play" and st.bid == 56 and st.doubled == 1


# -- §56.5 --------------------------------------------------------------------------------
def test_56_5_suit_first_form_is_the_same_contract_kept_in_history():
    """docs/rules.md §56.5: `bid D 28` is legal and the same contract as `bid 28 D`; the form is
    kept in the public history (every seat sees it)."""
    a = contract(F56, "bid D 28")
    b = contract(F56, "bid 28 D")
    for st in (a, b):
        r = st.result()
        assert (r["bid"], r["denomination"], r["trump"], r["declarer"]) == (28, "D", "D", 0)
    for s in range(6):
        assert a.observation(s)["history"][0] == [0, "bid D 28"]
        assert b.observation(s)["history"][0] == [0, "bid 28 D"]
    tricks_n(a, F56_TRICKS)
    tricks_n(b, F56_TRICKS)
    assert a.result()["score_change"] == b.result()["score_change"] == [1, -1] * 3


def test_56_5_nt_and_noes_number_first_only():
    """docs/rules.md §56.5: NT and NOES have only the number-first form."""
    st = deal56(F56)
    illegal(st, "bid NT 28")
    illegal(st, "bid NOES 28")
    do(st, "0 bid 28 NOES")
    assert st.observation(3)["denomination"] == "NOES"


@pytest.mark.parametrize("den", ["NT", "NOES"])
def test_56_5_nt_and_noes_played_without_trump(den):
    """docs/rules.md §56.5 [D]: NOES and NT contracts are both played without trump. G2 deal,
    seat 1 bids 28 NT/NOES: seat 4's QD on the club trick is no trump: the first JC
    (seat 1) wins."""
    st = state("56", G2_HANDS, dealer=0)
    do(st, f"1 bid 28 {den}")
    finish_auction(st, 2)
    r = st.result()
    assert r["denomination"] == den and r["trump"] is None
    assert trick_n(st, 1, "JC 9C JC QD TC AC") == 1


# -- §56.6 --------------------------------------------------------------------------------
def test_56_6_eldest_leads_any_card():
    """docs/rules.md §56.6, §0.10: the eldest (seat 0, not necessarily the declarer) leads, any
    card; cards by suit S H D C, then strength J 9 A T K Q. Here seat 1 declares."""
    st = deal56(F56)
    do(st, "0 bid 28 H", "1 bid 29 S")
    finish_auction(st, 2)
    assert st.declarer == 1 and st.to_act == 0
    assert st.legal_actions() == ["play JS", "play QS", "play AH", "play TH", "play AD",
                                  "play QD", "play JC", "play AC"]


def test_56_6_follow_suit_if_able():
    """docs/rules.md §56.6: follow suit if able (G2 deal, trump D): on JC seat 2 must play 9C or
    KC; hearts and spades are illegal."""
    st = state("56", G2_HANDS, dealer=0)
    do(st, "1 bid 28 D")
    finish_auction(st, 2)
    do(st, "1 play JC")
    assert st.legal_actions() == ["play 9C", "play KC"]
    illegal(st, "play JH")
    illegal(st, "play QS")


def test_56_6_void_any_card_trumping_allowed_not_required():
    """docs/rules.md §56.6: otherwise any card; trumping is allowed, not required: seat 4 (no
    club, trump D) may play KH, QH or any diamond."""
    st = state("56", G2_HANDS, dealer=0)
    do(st, "1 bid 28 D")
    finish_auction(st, 2)
    do(st, "1 play JC", "2 play 9C", "3 play JC")
    assert st.legal_actions() == ["play KH", "play QH", "play JD", "play 9D", "play AD",
                                  "play QD"]


def test_56_6_double_deck_one_action_per_card_text():
    """docs/rules.md §0.3, §56.6: J56, seat 0 holds two copies of each jack: `play JS` is one
    legal action; playing it removes one copy, the other stays playable."""
    st = contract(J56, "bid 28 NT")
    assert st.legal_actions() == ["play JS", "play JH", "play JD", "play JC"]
    trick_n(st, 0, "JS 9S AS TS KS QS")
    assert sorted(st.observation(0)["hand"]) == sorted("JS JH JH JD JD JC JC".split())
    assert st.legal_actions() == ["play JS", "play JH", "play JD", "play JC"]
    do(st, "0 play JS")
    assert "JS" not in st.observation(0)["hand"]


def test_56_6_identical_cards_first_played_wins():
    """docs/rules.md §0.4, §56.6: of two identical cards the first played wins: F56 trick 1 the
    JS of seat 0 beats seat 5's; trick 5 (led by seat 4) seat 4's JD beats seat 1's
    although seat 1 has the lower number. F56 trick by trick (winners and points)."""
    st = contract(F56)
    tricks_n(st, F56_TRICKS)
    assert [w for _, _, w in st.tricks] == [0, 2, 3, 4, 4, 5, 5, 0]
    assert st.side_points == [36, 20]


def test_56_6_identical_trumps_first_played_wins():
    """docs/rules.md §0.4: identical trumps: in the G2 deal with trump C every club is a trump;
    seat 1's JC, played first, beats seat 3's JC (and 9C, TC, AC); KH is no trump."""
    st = state("56", G2_HANDS, dealer=0)
    do(st, "1 bid 28 C")
    finish_auction(st, 2)
    assert trick_n(st, 1, "JC 9C JC KH TC AC") == 1


# -- §56.7 --------------------------------------------------------------------------------
@pytest.mark.parametrize("bid,tables", [(28, 1), (36, 1)])
def test_56_7_made_at_least_target_28_39_scores_1(bid, tables):
    """docs/rules.md §56.7, §0.5: F56, side 0 takes 36: a bid of 28..36 is made (at least the
    target; 36 exactly) and scores the '28-39 made' figure 1: 12/12 -> 13/11."""
    st = contract(F56, f"bid {bid} H")
    tricks_n(st, F56_TRICKS)
    assert st.made is True
    assert st.scores == [12 + tables, 12 - tables]


@pytest.mark.parametrize("bid,fig", [(37, 2), (39, 2), (40, 3), (48, 3), (49, 4), (56, 4)])
def test_56_7_failed_figures(bid, fig):
    """docs/rules.md §56.7: F56 (side 0 takes 36): failed by the final bid: 28-39 pays 2, 40-48
    pays 3, 49-56 pays 4, in full to the defenders."""
    st = contract(F56, f"bid {bid} S")
    tricks_n(st, F56_TRICKS)
    assert st.made is False
    assert st.scores == [12 - fig, 12 + fig]
    assert st.result()["score_change"] == [-fig, fig] * 3


@pytest.mark.parametrize("bid,fig", [(39, 1), (40, 2), (48, 2), (49, 3), (56, 3)])
def test_56_7_made_figures(bid, fig):
    """docs/rules.md §56.7: J56 (side 0 takes all 56): made by the final bid: 28-39 1, 40-48 2,
    49-56 3, paid by the defenders."""
    st = contract(J56, f"bid {bid} NT")
    tricks_n(st, J56_TRICKS)
    assert st.made is True and st.side_points == [56, 0]
    assert st.scores == [12 + fig, 12 - fig]


def test_56_7_figure_goes_by_the_final_bid():
    """docs/rules.md §56.7: the figure is that of the final bid: seat 0 opens 28, seat 1 bids
    29, seat 0 raises to 40: J56 made at 40 = 2 (not 1)."""
    st = deal56(J56)
    do(st, "0 bid 28 H", "1 bid 29 S", "2 bid 40 NT")
    finish_auction(st, 3)
    assert st.declarer == 2 and st.bid == 40
    tricks_n(st, J56_TRICKS)
    assert st.scores == [14, 10]


def test_56_7_side_1_contract_fails_defenders_side_0_gain():
    """docs/rules.md §56.7: seat 1 declares 30 on F56 and its side takes 20: side 1 pays 2 to
    side 0: 14/10; seats show their side's change."""
    st = deal56(F56)
    do(st, "0 bid 28 H", "1 bid 30 D")
    finish_auction(st, 2)
    tricks_n(st, F56_TRICKS)
    assert st.made is False
    assert st.scores == [14, 10]
    assert st.result()["score_change"] == [2, -2] * 3


def test_56_7_doubled_x2_redoubled_x4():
    """docs/rules.md §56.7 [D]: doubled x2, redoubled x4: F56 at 37 (side 0 takes 36) failed
    doubled = 2x2 = 4, redoubled = 8; J56 at 30 made doubled = 2, redoubled = 4."""
    st = contract(F56, "bid 37 H", then=["double"])
    tricks_n(st, F56_TRICKS)
    assert st.scores == [8, 16]
    st = contract(F56, "bid 37 H", then=["double", "redouble"])
    tricks_n(st, F56_TRICKS)
    assert st.scores == [4, 20]
    st = contract(J56, "bid 30 H", then=["double"])
    tricks_n(st, J56_TRICKS)
    assert st.scores == [14, 10]
    st = contract(J56, "bid 30 H", then=["double", "redouble"])
    tricks_n(st, J56_TRICKS)
    assert st.scores == [16, 8]


def test_g3_44_doubled_failed_6_redoubled_12_doubled_made_4():
    """docs/rules.md §G G3: 44 doubled and failed: contractors pay 6 tables (3 x 2); redoubled:
    12; doubled and made: defenders pay 4 (2 x 2). Sides at 12/12 after '44 doubled,
    failed': 6/18. (F56: side 0 takes 36 < 44; J56: 56 >= 44.)"""
    st = contract(F56, "bid 44 H", then=["double"])
    tricks_n(st, F56_TRICKS)
    assert st.made is False and st.doubled == 1
    assert st.scores == [6, 18]
    assert st.result()["score_change"] == [-6, 6] * 3
    st = contract(F56, "bid 44 H", then=["double", "redouble"])
    tricks_n(st, F56_TRICKS)
    assert st.scores == [0, 24] and st.result()["doubled"] == 2
    st = contract(J56, "bid 44 H", then=["double"])
    tricks_n(st, J56_TRICKS)
    assert st.made is True
    assert st.scores == [16, 8]


def test_56_7_sides_always_hold_24_and_may_go_below_0():
    """docs/rules.md §56.7: payments are in full; a side may go below 0; the two sides always
    hold 24 together: from 3/21, 44 redoubled failed (12): -9/33."""
    st = contract(F56, "bid 44 H", then=["double", "redouble"], scores=[3, 21])
    tricks_n(st, F56_TRICKS)
    assert st.scores == [-9, 33]
    assert sum(st.scores) == 24


def test_56_7_match_starts_at_12_and_goes_on_while_both_above_0():
    """docs/rules.md §56.7: each side starts the match with 12; F56 made at 28: 13/11, the
    match goes on."""
    m = Match(variant2("56"), 1)
    assert m.scores == [12, 12]
    st = m.new_deal(hands=[r.split() for r in F56], dealer=5)
    do(st, "0 bid 28 H")
    finish_auction(st, 1)
    tricks_n(st, F56_TRICKS)
    m.finish_deal(st)
    assert m.scores == [13, 11] and not m.over
    assert m.dealer == 0  # §0.2: the deal passes to next(dealer)


@pytest.mark.parametrize("start,end", [([6, 18], [0, 24]), ([2, 22], [-1, 25])])
def test_56_7_side_at_0_or_below_loses(start, end):
    """docs/rules.md §56.7 [D]: a side whose tables fall to 0 or below loses the match: F56 at
    44 doubled failed (3 x 2 = 6) from 6/18 -> 0/24; at 40 failed (3) from 2/22 -> -1/25.
    Winners: seats 1, 3, 5."""
    m = Match(variant2("56"), 2)
    m.scores = list(start)
    st = m.new_deal(hands=[r.split() for r in F56], dealer=5)
    if start == [6, 18]:
        do(st, "0 bid 44 H", "1 double")
        finish_auction(st, 2)
    else:
        do(st, "0 bid 40 H")
        finish_auction(st, 1)
    tricks_n(st, F56_TRICKS)
    m.finish_deal(st)
    assert m.scores == end
    assert m.over and m.winners == [1, 3, 5]
    assert m.seat_scores() == [end[0], end[1]] * 3


def test_56_7_side_1_at_0_loses_side_0_wins():
    """docs/rules.md §56.7 [D]: from 21/3 seat 0's side makes J56 at 49 (3 tables): 24/0; side 1
    at 0 loses, seats 0, 2, 4 win."""
    m = Match(variant2("56"), 3)
    m.scores = [21, 3]
    st = m.new_deal(hands=[r.split() for r in J56], dealer=5)
    do(st, "0 bid 49 NT")
    finish_auction(st, 1)
    tricks_n(st, J56_TRICKS)
    m.finish_deal(st)
    assert m.scores == [24, 0]
    assert m.over and m.winners == [0, 2, 4]


# -- §56.8 --------------------------------------------------------------------------------
def test_56_8_house_rules_are_variant_files():
    """docs/rules.md §56.8, §H: the alternative table and cot are variant files extending 56
    (details in tests/rules/test_house_more.py): 56 made at 56 scores 4 under the alternative
    table (3 in plain 56); cot is an action only in 56-cot."""
    st = contract(J56, "bid 56 NT", name="house/56-alt-table")
    tricks_n(st, J56_TRICKS)
    assert st.scores == [16, 8]
    st = contract(J56, "bid 28 NT", name="house/56-cot")
    do(st, "0 play JS")
    assert st.legal_actions()[0] == "cot"
    st = contract(J56, "bid 28 NT")
    do(st, "0 play JS")
    assert "cot" not in st.legal_actions()
    illegal(st, "cot")


# -- G2 -----------------------------------------------------------------------------------
def g2_deal():
    st = state("56", G2_HANDS, dealer=0)
    do(st, "1 bid 28 D")
    return finish_auction(st, 2)


def test_g2_first_jc_wins_10_points():
    """docs/rules.md §G G2: 56, 6 players, trump D. Trick led by seat 1: JC, 9C, JC, KH, TC, AC.
    The first JC wins (seat 1); points 3+2+3+0+1+1 = 10."""
    st = g2_deal()
    assert st.trump == st.v.deck.suits.index("D")
    assert trick_n(st, 1, "JC 9C JC KH TC AC") == 1
    assert st.seat_points[1] == 10 and st.side_points == [0, 10]
    r = st.observation(3)["tricks"][0]
    assert r == {"leader": 1, "cards": ["JC", "9C", "JC", "KH", "TC", "AC"], "winner": 1}


def test_g2_with_qd_seat_4_wins_10_points():
    """docs/rules.md §G G2: with QD instead of KH: seat 4 (only trump) wins, 10 points."""
    st = g2_deal()
    assert trick_n(st, 1, "JC 9C JC QD TC AC") == 4
    assert st.seat_points[4] == 10 and st.side_points == [10, 0]
    assert st.to_act == 4


# -- G4 -----------------------------------------------------------------------------------
def test_g4_auction():
    """docs/rules.md §G G4: 6 players, eldest seat 1: 28H, 30S, 31 NOES, double, redouble, 32S
    (the double and redouble are gone), then five passes: contract 32S by seat 2's side,
    undoubled; seat 1 leads."""
    st = state("56", G2_HANDS, dealer=0)
    assert st.to_act == 1
    do(st, "1 bid 28 H", "2 bid 30 S", "3 bid 31 NOES", "4 double")
    assert st.doubled == 1
    do(st, "5 redouble")
    assert st.doubled == 2
    do(st, "0 bid 32 S")
    assert st.doubled == 0
    for s in (1, 2, 3, 4):
        do(st, f"{s} pass")
        assert st.phase == "auction"
    do(st, "5 pass")
    assert st.phase == "play"
    r = st.result()
    assert (r["bid"], r["denomination"], r["trump"], r["doubled"]) == (32, "S", "S", 0)
    assert r["declarer"] == 0 and st.side[0] == st.side[2]
    assert st.to_act == 1


def test_g4_illegal_calls():
    """docs/rules.md §G G4: illegal: 28S after 28H; seat 4 doubling 30S of its partner seat 2;
    a redouble of an undoubled bid; a pass as the first call."""
    st = state("56", G2_HANDS, dealer=0)
    illegal(st, "pass")                     # first call
    do(st, "1 bid 28 H")
    illegal(st, "bid 28 S")                 # seat 2: not strictly higher
    do(st, "2 bid 30 S", "3 pass")
    illegal(st, "double")                   # seat 4 on its partner's 30S
    illegal(st, "redouble")                 # seat 4: 30S is undoubled
    do(st, "4 pass")
    illegal(st, "redouble")                 # seat 5: undoubled (and not its side)
    assert "double" in st.legal_actions()   # seat 5 is an opponent of seat 2
