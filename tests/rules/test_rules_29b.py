"""docs/rules.md §29b (twenty-nine as played over the SmartBots 29 protocol,
variants/house/29-bhoos.yaml), and the engine guarantees its auction relies on.

Deals are built by hand; expected values are worked out from docs/rules.md in the comments
(points J3 9=2 A1 T1, strength J 9 A T K Q 8 7, §0.3, §29b.2). Seats 0..3 in turn order;
the deals of the reveal use dealer 0, so seat 1 is the eldest (as in the protocol's
captured request, where the first bidder and first leader are playerIds[1]).
"""

from __future__ import annotations

import random

import pytest

from taash.interpreter import Match, State, load_variant

from tests.helpers.rules import (G5_HANDS, G5_TRICKS, G6A_HANDS, G6A_TRICKS, bids, do, illegal,
                                 match_with, new_state, play_tricks, plays, trick, variant)

V = "house/29-bhoos"


def legal(st) -> list[str]:
    return list(st.legal_actions())


# -- §29b.1, §29b.2 -------------------------------------------------------------------------
def test_29b_1_2_four_players_28_points_no_last_trick_point():
    """docs/rules.md §29b.1-2: four players, partners opposite; 32 cards, 28 points, no point
    for the last trick."""
    v = variant(V)
    assert v.players == 4 and v.partnership == "fixed"
    assert v.deck.total_points() == 28 and v.last_trick == 0 and v.total == 28


def test_29b_2_g5_without_last_trick_point_14_to_14():
    """docs/rules.md §29b.2, §G G5: every trick of G5 is one suit (trump never matters). Side 0
    takes JS 9S AS TS (7) + JH 7H 8H QH (3) + 9D KD 8D 7D (2) + the last trick AC TC KC QC
    (2, no bonus) = 14; side 1 the other 14. Seat 0 bid 16: 14 < 16, failed, -1."""
    st = new_state(V, G5_HANDS)  # dealer 3: seat 0 is the eldest
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump S")
    before = None
    for i, (leader, cards, winner, pts) in enumerate(G5_TRICKS):
        before = list(st.side_points)
        assert trick(st, leader, cards) == winner
        side = winner % 2
        assert st.side_points[side] - before[side] == pts, cards  # the last trick too: no +1
    assert st.side_points == [14, 14] and sum(st.seat_points) == 28
    assert st.made is False and st.result()["score_change"] == [-1, 0, -1, 0]


@pytest.mark.parametrize("bid,made,change", [(18, True, 1), (19, False, -1)])
def test_29b_8_made_with_at_least_the_bid(bid, made, change):
    """docs/rules.md §29b.8: G6A's eight tricks all follow suit (trump never matters): side 0
    takes 9S AS TS JS (7) + JH KH 9H AH (6) + TH QH 8H 7H (1) + KC AC JC 8C (4) = 18, side 1
    9D JD AD TD (7) + KD 8D 7D QD (0) + the last trick 7C 9C TC QC (3, no bonus) = 10.
    Bid 18: made ("at least"), +1; bid 19: failed, -1."""
    st = new_state(V, G6A_HANDS)
    do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump H")
    play_tricks(st, G6A_TRICKS)
    assert st.side_points == [18, 10]
    assert st.made is made and st.scores == [change, 0]


# -- §29b.3 -----------------------------------------------------------------------------------
def test_29b_3_four_cards_auction_trump_four_more():
    """docs/rules.md §29b.3: 4 cards each during the auction and the trump call, 8 in play."""
    st = new_state(V, G5_HANDS)
    assert all(len(h) == 4 for h in st.hands)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass")
    assert st.phase == "trump" and all(len(h) == 4 for h in st.hands)
    assert legal(st) == ["trump S", "trump H", "trump D", "trump C"]
    do(st, "0 trump D")
    assert st.phase == "play" and all(len(h) == 8 for h in st.hands)


# -- §29b.4 the duel ----------------------------------------------------------------------------
def test_29b_4_the_example():
    """docs/rules.md §29b.4 example (dealer 0, eldest 1): 1 bids 16; 2 bids 17; 1 bids 17 (the
    holder equals); 2 passes; 3 bids 18; 1 passes; 0 passes: 3 declares at 18. The legal
    calls at each step, by the rule: the challenger bids above the holder's bid, the holder
    equal or above, every pass is final."""
    st = new_state(V, G5_HANDS, dealer=0)
    assert st.to_act == 1 and legal(st) == ["pass"] + bids(16, 28)
    do(st, "1 bid 16")
    assert (st.holder, st.challenger, st.to_act) == (1, 2, 2)
    assert legal(st) == ["pass"] + bids(17, 28)          # above 16
    do(st, "2 bid 17")
    assert st.to_act == 1 and legal(st) == ["pass"] + bids(17, 28)   # the holder may equal
    do(st, "1 bid 17")
    assert st.to_act == 2 and legal(st) == ["pass"] + bids(18, 28)   # the challenger may not
    illegal(st, "bid 17")
    do(st, "2 pass")                                      # 2 is out; 3 challenges holder 1
    assert (st.holder, st.challenger, st.to_act) == (1, 3, 3)
    assert legal(st) == ["pass"] + bids(18, 28)
    do(st, "3 bid 18")
    assert st.to_act == 1 and legal(st) == ["pass"] + bids(18, 28)
    do(st, "1 pass")                                      # 3 holds 18; 0 challenges
    assert (st.holder, st.challenger, st.to_act) == (3, 0, 0)
    assert legal(st) == ["pass"] + bids(19, 28)
    do(st, "0 pass")                                      # 1 and 2 are out: nobody is left
    assert st.phase == "trump" and st.declarer == 3 and st.bid == 18 and st.to_act == 3
    assert st.target == 18
    assert st.calls == 7


def test_29b_4_the_real_history():
    """docs/rules.md §29b.4, the protocol's real bidHistory [[A,16],[B,17],[A,0],[C,0],[D,0]]:
    A (seat 0, eldest, dealer 3) 16, B 17, A passes (B holds 17), C and D pass: B declares
    at 17."""
    st = new_state(V, G5_HANDS, dealer=3)
    do(st, "0 bid 16", "1 bid 17", "0 pass")
    assert (st.holder, st.challenger, st.to_act) == (1, 2, 2)
    assert legal(st) == ["pass"] + bids(18, 28)
    do(st, "2 pass", "3 pass")
    assert st.phase == "trump" and st.declarer == 1 and st.bid == 17


def test_29b_4_a_seat_that_passes_is_out_and_the_opener_moves_on():
    """docs/rules.md §29b.4: the eldest passes, so he is out and the next seat calls first;
    he is never asked again. Dealer 3: 0 passes, 1 bids 16, 2 bids 17, 1 bids 18, 2 passes,
    3 passes: the next seat after 3 that is not out is none (0 out, 1 holder, 2 out), so
    1 declares at 18."""
    st = new_state(V, G5_HANDS, dealer=3)
    do(st, "0 pass")
    assert st.to_act == 1 and st.holder == -1
    assert legal(st) == ["pass"] + bids(16, 28)   # not the dealer: he may pass
    do(st, "1 bid 16", "2 bid 17", "1 bid 18", "2 pass", "3 pass")
    assert st.phase == "trump" and st.declarer == 1 and st.bid == 18
    assert [s for s, _ in st.history] == [0, 1, 2, 1, 2, 3]


def test_29b_4_dealer_must_bid_after_three_passes_and_declares():
    """docs/rules.md §29b.4 [D]: if the first three calls are passes the dealer may not pass: he
    bids (any 16..28) and is the declarer at once (nobody is left to challenge)."""
    st = new_state(V, G5_HANDS, dealer=3)
    do(st, "0 pass", "1 pass", "2 pass")
    assert st.to_act == 3 and legal(st) == bids(16, 28)
    illegal(st, "pass")
    do(st, "3 bid 16")
    assert st.phase == "trump" and st.declarer == 3 and st.bid == 16 and st.to_act == 3


def test_29b_4_holder_may_equal_28_then_the_challenger_can_only_pass():
    """docs/rules.md §29b.4: the challenger bids 28, the holder equals 28; nothing is above 28,
    so the challenger passes (his only call) and, the other two passing, the holder
    declares at 28."""
    st = new_state(V, G5_HANDS, dealer=3)
    do(st, "0 bid 16", "1 bid 28")
    assert legal(st) == ["pass", "bid 28"]
    do(st, "0 bid 28")
    assert legal(st) == ["pass"]
    do(st, "1 pass", "2 pass", "3 pass")
    assert st.declarer == 0 and st.bid == 28


def test_29b_4_every_auction_ends_within_its_bound():
    """Engine guarantee (docs/authoring.md): never two equal bids in a row, so every two
    bids raise the high bid by at least 1, and every pass puts a seat out: at most
    4 passes + 2 x 13 bids (16..28) = 30 calls, and the declarer is the last holder."""
    v = variant(V)
    for seed in range(300):
        rng = random.Random(seed)
        st = State(v, dealer=seed % 4, seed=seed)
        calls = 0
        while st.phase == "auction":
            st.apply(rng.choice(st.legal_actions()))
            calls += 1
            assert calls <= 30
        assert st.declarer == st.holder == st.high_bidder >= 0
        numbers = [a.code[0] for _, a in st.history if a.kind == "bid"]
        assert all(n >= m for m, n in zip(numbers, numbers[1:]))
        assert all(n > m for m, n in zip(numbers, numbers[2:]))  # every two bids raise it


def test_engine_may_equal_in_a_round_auction_never_twice_in_a_row(tmp_path):
    """docs/authoring.md, "What the engine guarantees": with `may_equal: true` in a round
    auction, 1 may equal 0's 15, but then 2 may not equal again (the last bid was an equal
    bid) and must bid 16 or more; 3 may equal 16. A seat never equals its own bid: after
    a full round of passes (this file ends only on four passes), 3 faces its own 16 and may
    bid 17 or more only."""
    p = tmp_path / "eq.yaml"
    p.write_text('extends: "29"\nname: eq\nauction:\n  may_bid: true\n  may_equal: true\n'
                 '  ends: bids > 0 and passes == players\n')
    st = State(load_variant(p), dealer=3, hands=[list(h) for h in G5_HANDS])
    do(st, "0 bid 15")
    assert legal(st) == ["pass"] + bids(15, 29)
    do(st, "1 bid 15")
    assert st.high_bidder == 1 and legal(st) == ["pass"] + bids(16, 29)
    illegal(st, "bid 15")
    do(st, "2 bid 16")
    assert legal(st) == ["pass"] + bids(16, 29)
    do(st, "3 bid 16", "0 pass", "1 pass", "2 pass")
    assert st.to_act == 3 and legal(st) == ["pass"] + bids(17, 29)
    do(st, "3 pass")
    assert st.declarer == 3 and st.bid == 16


# -- §29b.5, §29b.6: the secret trump and the reveal ---------------------------------------------
# Deal C: the protocol's captured request (docs/http-bots.md). Seats A0 B0 A1 B1 = 0 1 2 3.
# B0 (1) bids 16, the others pass; trump H, hidden. Trick 1: JS 9S AS 7S, B0 wins (6 points).
# Trick 2: B0 8S; A1 7C; B1 KH (void in spades, no reveal: a discard); A0 TS wins (1 point).
# Trick 3: A0 KS, B0 8H, A1 TC; B1 reveals, holding AD 8C 7D 9H JD KD.
C_HANDS = [
    "7S TS KS QS 9D TD QD 8D".split(),
    "JS 8S 8H JH AH TH QH 7H".split(),
    "9S 7C TC JC 9C AC KC QC".split(),
    "AS KH AD 8C 7D 9H JD KD".split(),
]
# Deal D: as C, but A1 holds QH (not TC) and B1 holds 7H and 9H (B0 has TC and 7D instead),
# so that in trick 3 A1 can discard QH, a trump-suit card above B0's 8H and below 9H.
D_HANDS = [
    "7S TS KS QS 9D TD QD 8D".split(),
    "JS 8S 8H JH AH TH TC 7D".split(),
    "9S 7C QH JC 9C AC KC QC".split(),
    "AS KH AD 8C 7H 9H JD KD".split(),
]
# Deal D2: as D with 9H and 9D swapped between A0 and B1: B1's only trump is 7H.
D2_HANDS = [
    "7S TS KS QS 9H TD QD 8D".split(),
    "JS 8S 8H JH AH TH TC 7D".split(),
    "9S 7C QH JC 9C AC KC QC".split(),
    "AS KH AD 8C 7H 9D JD KD".split(),
]


def to_trick_3(hands, trump="H"):
    """Dealer 0: 1 bids 16, 2, 3, 0 pass; 1 names `trump`; tricks 1 and 2 as in deal C."""
    st = new_state(V, hands, dealer=0)
    do(st, "1 bid 16", "2 pass", "3 pass", "0 pass", f"1 trump {trump}")
    assert trick(st, 1, "JS 9S AS 7S") == 1
    do(st, "1 play 8S")
    assert "expose" in legal(st)          # A1 is void in spades: he may ask for the reveal
    do(st, "2 play 7C")
    assert "expose" in legal(st)
    do(st, "3 play KH", "0 play TS")      # KH: no reveal, no trump power; TS wins
    assert st.tricks[-1][2] == 0
    return st


def test_29b_6_captured_request_the_revealer_must_play_9h():
    """docs/http-bots.md's captured request under docs/rules.md §29b.6: after B1's reveal,
    B0's 8H counts as a trump and wins (his partner's): B1 must play a trump, 9H his only
    one. 9H then wins: KS 0 + 8H 0 + TC 1 + 9H 2 = 3 points to side 1 (6 + 3 = 9)."""
    st = to_trick_3(C_HANDS)
    assert st.side_points == [1, 6]
    do(st, "0 play KS", "1 play 8H", "2 play TC")
    assert legal(st) == ["expose"] + plays("9H JD AD KD 7D 8C")   # void: any card, or reveal
    do(st, "3 expose")
    assert st.trump_exposed and st.exposer == 3 and st.exposure_trick == 3
    assert st.winning_card() == st.v.deck.parse("8H") and st.trick_winner() == 1
    assert legal(st) == ["play 9H"]
    do(st, "3 play 9H")
    assert st.tricks[-1][2] == 3 and st.side_points == [1, 9]


def test_29b_6_over_trump_an_opponents_trump():
    """docs/rules.md §29b.6, deal D: trick 3 KS, 8H, and A1 (an opponent of B1) discards QH;
    B1 reveals: QH (a trump now, Q above 8) wins for the opponent, so B1 must play a
    higher trump: 9H (9 ranks above Q), not 7H."""
    st = to_trick_3(D_HANDS)
    do(st, "0 play KS", "1 play 8H", "2 play QH", "3 expose")
    assert st.trick_winner() == 2
    assert legal(st) == ["play 9H"]
    illegal(st, "play 7H")
    do(st, "3 play 9H")
    assert st.tricks[-1][2] == 3


def test_29b_6_a_trump_when_the_partner_wins_and_the_trump_played_before_the_reveal_counts():
    """docs/rules.md §29b.6, deal D: trick 3 KS, 8H, JC; B1 reveals. His partner B0 wins with
    8H, a trump now: B1 must play a trump, either (9H, 7H). With 7H, B0's 8H, played before
    the reveal but in the reveal trick, counts as a trump and beats 7H: seat 1 wins (not
    seat 0's KS of the suit led, not seat 3's 7H)."""
    st = to_trick_3(D_HANDS)
    do(st, "0 play KS", "1 play 8H", "2 play JC", "3 expose")
    assert legal(st) == plays("9H 7H")
    do(st, "3 play 7H")
    assert st.tricks[-1][2] == 1


def test_29b_6_no_higher_trump_then_any_trump():
    """docs/rules.md §29b.6, deal D2: as the over-trump case, but B1's only trump is 7H, below
    QH: he must still play a trump: 7H. QH wins for side 0 (KS 0 + 8H 0 + QH 0 + 7H 0)."""
    st = to_trick_3(D2_HANDS)
    do(st, "0 play KS", "1 play 8H", "2 play QH", "3 expose")
    assert legal(st) == ["play 7H"]
    do(st, "3 play 7H")
    assert st.tricks[-1][2] == 2


def test_29b_6_after_the_reveal_follow_suit_otherwise_any_card():
    """docs/rules.md §29b.6: only the revealer, in the reveal trick, has the duty. Deal D after
    B1's 9H wins trick 3: B1 leads 8C in trick 4; A0 (QS 9D TD QD 8D) is void in clubs and
    may play any card (no expose any more); B0 must follow with TC."""
    st = to_trick_3(D_HANDS)
    do(st, "0 play KS", "1 play 8H", "2 play QH", "3 expose", "3 play 9H", "3 play 8C")
    assert legal(st) == plays("QS 9D TD QD 8D")
    do(st, "0 play 8D")
    assert legal(st) == ["play TC"]


# Deal E: the declarer reveals himself. Dealer 0; seat 1 declares at 16 with trump H.
# Trick 1: 1 7S, 2 JS, 3 8S, 0 9S: JS wins (seat 2). Trick 2: 2 AD, 3 7D, 0 (void in
# diamonds) discards QH; the declarer, void in diamonds, holds 9H 8H 7H and clubs.
E_HANDS = [
    "9S QH KS QS JH AH TH KH".split(),
    "7S 9H 8H 7H JC 9C AC TC".split(),
    "JS AD KD QD KC QC 8C 7C".split(),
    "8S 7D 9D TD JD 8D AS TS".split(),
]


def deal_e_to_declarers_turn():
    st = new_state(V, E_HANDS, dealer=0)
    do(st, "1 bid 16", "2 pass", "3 pass", "0 pass", "1 trump H")
    assert trick(st, 1, "7S JS 8S 9S") == 2
    do(st, "2 play AD", "3 play 7D", "0 play QH")
    return st


def test_29b_6_the_declarer_reveals_himself_under_the_same_duty():
    """docs/rules.md §29b.6, deal E: the declarer, void in diamonds, may reveal; QH, discarded
    by seat 0 before the reveal, counts as a trump in the reveal trick and wins for an
    opponent, so the declarer must over-trump: 9H only (8H, 7H rank below Q). He wins:
    AD 1 + 7D 0 + QH 0 + 9H 2 = 3 points."""
    st = deal_e_to_declarers_turn()
    assert legal(st) == ["expose"] + plays("9H 8H 7H JC 9C AC TC")
    do(st, "1 expose")
    assert st.exposer == 1 and legal(st) == ["play 9H"]
    do(st, "1 play 9H")
    assert st.tricks[-1][2] == 1 and st.side_points == [5, 3]


def test_29b_6_without_a_reveal_a_trump_suit_card_has_no_power():
    """docs/rules.md §29b.6, deal E: without a reveal the declarer may play any card; QH (and
    his own 9H) have no trump power: with 9H the trick goes to AD, the highest diamond
    (seat 2); trump stays secret."""
    st = deal_e_to_declarers_turn()
    do(st, "1 play 9H")
    assert st.tricks[-1][2] == 2 and not st.trump_exposed
    assert st.side_points == [5 + 3, 0]  # trick 1: JS 3 + 9S 2; trick 2: AD 1 + 9H 2


def test_29b_6_no_reveal_for_the_leader_or_a_seat_that_can_follow():
    """docs/rules.md §29b.6: only a player who cannot follow suit may ask; never the leader."""
    st = new_state(V, C_HANDS, dealer=0)
    do(st, "1 bid 16", "2 pass", "3 pass", "0 pass", "1 trump H")
    assert "expose" not in legal(st)       # the leader
    do(st, "1 play JS")
    assert legal(st) == ["play 9S"]        # 2 holds 9S: follow, no reveal


def test_29b_5_the_suit_is_secret_until_the_reveal():
    """docs/rules.md §29b.5: only the declarer knows the suit: the others see `trump` in the
    history and no trump in their observation, and their observations are the same
    whichever suit he named (deal C, tricks 1-2, trump H or D); after the reveal every
    seat sees H, with the reveal's seat and trick."""
    st_h, st_d = to_trick_3(C_HANDS, "H"), to_trick_3(C_HANDS, "D")
    for seat in (0, 2, 3):
        obs = st_h.observation(seat)
        assert obs["trump"] is None and not obs["trump_exposed"]
        assert [1, "trump"] in obs["history"] and [1, "trump H"] not in obs["history"]
        assert obs == st_d.observation(seat)
    obs1 = st_h.observation(1)
    assert obs1["trump"] == "H" and [1, "trump H"] in obs1["history"]
    assert obs1 != st_d.observation(1)
    assert st_h.public_action(1, "trump H", None) == "trump"
    do(st_h, "0 play KS", "1 play 8H", "2 play TC", "3 expose")
    for seat in range(4):
        obs = st_h.observation(seat)
        assert obs["trump"] == "H" and obs["exposer"] == 3 and obs["exposure_trick"] == 3


def test_29b_8_a_trump_never_revealed_changes_nothing():
    """docs/rules.md §29b.8 [D]: G6A (all tricks follow suit) with trump H never revealed:
    the result shows no trump, side 0 takes 18 against bid 18: made."""
    st = new_state(V, G6A_HANDS)
    do(st, "0 bid 18", "1 pass", "2 pass", "3 pass", "0 trump H")
    play_tricks(st, G6A_TRICKS)
    assert not st.trump_exposed and st.result()["trump"] is None and st.made is True


# -- §29b.7 -------------------------------------------------------------------------------------
def test_29b_7_no_declarations():
    """docs/rules.md §29b.7: no pair, no royals. In G6A seat 1 holds KH QH with trump H and his
    side wins trick 1: in 29 he could declare royals; here no declare action exists."""
    v = variant(V)
    assert v.declarations == [] and not any(a.kind == "declare" for a in v.actions)
    st = new_state(V, G6A_HANDS)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump H")
    play_tricks(st, G6A_TRICKS[:1])
    assert all(a.kind == "play" for a in st.legal_actions())


# -- §29b.9 -------------------------------------------------------------------------------------
def test_29b_9_first_side_to_plus_6_wins():
    """docs/rules.md §29b.9: side 0 at 5 makes G6A at 18: 6, the match is over, 0 and 2 win."""
    m = match_with(V, [5, -2])
    st = m.new_deal(hands=G6A_HANDS, dealer=3)
    do(st, "0 bid 18", "1 pass", "2 pass", "3 pass", "0 trump H")
    play_tricks(st, G6A_TRICKS)
    m.finish_deal(st)
    assert m.scores == [6, -2] and m.over and m.winners == [0, 2]


@pytest.mark.parametrize("start,over", [(-5, True), (-4, False)])
def test_29b_9_a_side_at_minus_6_loses(start, over):
    """docs/rules.md §29b.9 [D]: side 0 fails G6A at 19 (18 points): from -5 to -6, it loses
    and 1 and 3 win; from -4 to -5 the match goes on."""
    m = match_with(V, [start, 0])
    st = m.new_deal(hands=G6A_HANDS, dealer=3)
    do(st, "0 bid 19", "1 pass", "2 pass", "3 pass", "0 trump H")
    play_tricks(st, G6A_TRICKS)
    m.finish_deal(st)
    assert m.scores == [start - 1, 0] and m.over is over
    assert m.winners == ([1, 3] if over else [])


def test_29b_a_whole_match_plays_to_its_end():
    """docs/rules.md §29b.9: a match of random legal play ends by its rule (a side at +6 or -6)."""
    m = Match(variant(V), seed=7)
    rng = random.Random(7)
    while not m.over:
        st = m.new_deal()
        while not st.is_terminal:
            st.apply(rng.choice(st.legal_actions()))
        m.finish_deal(st)
    assert m.ended_by == "rule" and (max(m.scores) >= 6 or min(m.scores) <= -6)


def test_29b_5_resample_draws_the_secret_suit_anew_until_the_reveal():
    """docs/rules.md §29b.5 and State.resample (interpreter/information.py): before the reveal
    a seat other than the declarer cannot know the suit, so its resampled worlds name each
    of the four suits, a quarter of the time each (400 draws: 100 expected, sd 8.7; bounds
    60..140); the declarer's worlds keep his suit; after the reveal every seat's do."""
    st = to_trick_3(C_HANDS)                   # trump H, not revealed; seat 0 to lead
    rng = random.Random(3)
    counts = {}
    for _ in range(400):
        w = st.resample(0, rng)
        assert w.observation(0) == st.observation(0)
        counts[w.trump] = counts.get(w.trump, 0) + 1
    assert sorted(counts) == [0, 1, 2, 3] and all(60 <= c <= 140 for c in counts.values()), counts
    assert {st.resample(1, rng).trump for _ in range(50)} == {1}   # H, the declarer's
    do(st, "0 play KS", "1 play 8H", "2 play TC", "3 expose")
    assert {st.resample(0, rng).trump for _ in range(50)} == {1}


def test_engine_trick_as_it_stands_and_higher():
    """The names the revealer's duty uses (docs/authoring.md), by docs/rules.md §0.4. Deal D,
    trick 3 before the reveal: KS, 8H, QH played, trump H secret, so no trump counts: KS
    (the suit led) wins. `higher` of B1's cards over KS: no spade of his beats it, and his
    hearts have no power yet: none. After B1's reveal 8H and QH count as trumps: QH wins,
    and of 9H 7H only 9H ranks above it. Before any lead a card counts as the card led:
    over QS, KS beats it and no diamond does."""
    st = to_trick_3(D_HANDS)
    d, text = st.v.deck.parse, st.v.deck.text
    assert st.trick_winner() == -1 and st.winning_card() == -1
    assert [text[c] for c in st.higher(0, sorted(map(d, ["KS", "QS", "9D"])), d("QS"))] == ["KS"]
    do(st, "0 play KS", "1 play 8H", "2 play QH")
    assert st.trick_winner() == 0 and st.winning_card() == d("KS")
    assert st.higher(3, list(st.hands[3]), d("KS")) == []
    do(st, "3 expose")
    assert st.trick_winner() == 2 and st.winning_card() == d("QH")
    assert [text[c] for c in st.higher(3, list(st.hands[3]), d("QH"))] == ["9H"]


def test_engine_a_duel_has_only_final_passes(tmp_path):
    """docs/authoring.md: in a duel every pass is final; a file that says otherwise is
    refused with the line and column of `final_pass`."""
    from taash.interpreter import VariantError
    p = tmp_path / "d.yaml"
    p.write_text('extends: house/29-bhoos\nname: d\nauction:\n  final_pass: false\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    [pr] = e.value.problems
    assert (pr.line, pr.column) == (4, 15) and "every pass is final" in pr.message
