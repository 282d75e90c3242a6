"""docs/rules.md §0 (common ground), tested on 29 and 28 with hand-built deals.

Each test names its section; expected values are worked out by hand from docs/rules.md (see
the comments and tests/helpers/rules.py).
"""

from __future__ import annotations

import random

import pytest

from taash.interpreter import IllegalActionError, Match, State, replay, replay_json

from tests.helpers.rules import (A_HANDS, C_HANDS, D29_HANDS, E_HANDS, G5_HANDS, G5_TRICKS,
                                 G6B_HANDS, bids, do, illegal, match_with, new_state,
                                 play_a_no_expose, play_g5, play_out, plays, trick, variant)

ALL = ["29", "28", "house/29-counter-clockwise", "house/29-hidden-trump", "house/29-no-last-trick"]


def g5_bid(bid: int = 15, name: str = "29", scores=None) -> State:
    st = new_state(name, G5_HANDS, scores=scores)
    return do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump S")


# -- §0.1 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("seed", range(4))
def test_0_1_turn_order_is_next_seat(name, seed):
    """docs/rules.md §0.1: turn order is always next(s) = (s+1) mod n, whatever the direction.
    Within an auction and within a trick the next seat to act is s+1; a declaration or an
    `expose` leaves the same seat to act (§0.8, §28.7); a trick's winner leads next."""
    rng = random.Random(seed)
    v = variant(name)
    st = State(v, dealer=seed % 4, seed=1000 + seed)
    while not st.is_terminal:
        s, phase, ntricks = st.to_act, st.phase, len(st.tricks)
        a = rng.choice(st.legal_actions())
        st.apply(a)
        if st.is_terminal:
            break
        if a.startswith("declare") or a == "expose":
            assert st.to_act == s
        elif phase == "auction" and st.phase == "auction":
            assert st.to_act == (s + 1) % 4
        elif a.startswith("play"):
            if len(st.tricks) > ntricks:
                assert st.to_act == st.tricks[-1][2]
            else:
                assert st.to_act == (s + 1) % 4


@pytest.mark.parametrize("name", ["28", "house/29-counter-clockwise"])
def test_0_1_counter_clockwise_is_display_only(name):
    """docs/rules.md §0.1: a counter-clockwise variant still calls and plays 0, 1, 2, 3."""
    v = variant(name)
    assert v.direction == "counter-clockwise"
    st = State(v, dealer=3, seed=5)
    do(st, "0 bid 15", "1 pass", "2 pass")  # do() checks the seat before each call
    assert st.to_act == 3


# -- §0.2 ---------------------------------------------------------------------------------
def test_0_2_first_dealer_is_drawn_from_the_match_seed():
    """docs/rules.md §0.2: the first dealer is drawn from the match seed: the same seed gives
    the same dealer, and different seeds do not all give one dealer."""
    v = variant("29")
    dealers = [Match(v, s).dealer for s in range(40)]
    assert dealers == [Match(v, s).dealer for s in range(40)]
    assert set(dealers) <= {0, 1, 2, 3}
    assert len(set(dealers)) > 1


@pytest.mark.parametrize("name", ["29", "28"])
def test_0_2_deal_passes_to_next_dealer(name):
    """docs/rules.md §0.2: after a deal the deal passes to next(dealer)."""
    v = variant(name)
    m = Match(v, 11)
    rng = random.Random(3)
    for _ in range(3):
        d = m.dealer
        st = m.new_deal()
        assert st.dealer == d
        play_out(st, rng)
        m.finish_deal(st)
        assert m.dealer == (d + 1) % 4


@pytest.mark.parametrize("name", ["29", "28"])
@pytest.mark.parametrize("dealer", range(4))
def test_0_2_eldest_calls_first(name, dealer):
    """docs/rules.md §0.2: the eldest, next(dealer), calls first (also in the counter-clockwise
    28: 'the first player after the dealer starts, whatever the direction')."""
    st = State(variant(name), dealer=dealer, seed=dealer)
    assert st.phase == "auction"
    assert st.to_act == (dealer + 1) % 4


def test_0_2_eldest_leads_first_trick_not_declarer_29():
    """docs/rules.md §0.2, §29.6: the eldest leads trick 1 even when another seat declares.
    Dealer 3, eldest 0: pass, pass, seat 2 bids 15, then three passes: seat 2 declares;
    after its trump seat 0 is to lead."""
    st = new_state("29", G5_HANDS)
    do(st, "0 pass", "1 pass", "2 bid 15", "3 pass", "0 pass", "1 pass")
    assert st.declarer == 2
    do(st, "2 trump S")
    assert st.phase == "play" and st.to_act == 0


def test_0_2_eldest_leads_first_trick_not_declarer_28():
    """docs/rules.md §0.2, §28.3: in 28 seat 3 declares (after 0: 14), seat 0 leads."""
    st = new_state("28", C_HANDS)
    do(st, "0 bid 14", "1 pass", "2 pass", "3 bid 15", "0 pass", "1 pass", "2 pass",
       "3 trump-card 7H")
    assert st.phase == "play" and st.to_act == 0


def test_0_2_eldest_follows_the_dealer():
    """docs/rules.md §0.2: with dealer 1 the eldest is seat 2: it calls first and, as declarer
    after three passes, it also leads."""
    st = new_state("29", G5_HANDS, dealer=1)
    assert st.to_act == 2
    do(st, "2 bid 15", "3 pass", "0 pass", "1 pass", "2 trump S")
    assert st.to_act == 2


# -- §0.3 ---------------------------------------------------------------------------------
def test_0_3_card_text_forms():
    """docs/rules.md §0.3: text form rank+suit, ranks 7 8 9 T J Q K A (T = ten), suits S H D C."""
    d = variant("29").deck
    assert d.suits == ("S", "H", "D", "C")
    assert sorted(d.text) == sorted(r + s for s in "SHDC" for r in "789TJQKA")
    for t in ("JS", "TH", "9D", "7C", "AC"):
        assert d.text[d.parse(t)] == t
    with pytest.raises(ValueError):
        d.parse("10H")
    with pytest.raises(ValueError):
        d.parse("6S")


STRENGTH = ["J", "9", "A", "T", "K", "Q", "8", "7"]


@pytest.mark.parametrize("i", range(7))
@pytest.mark.parametrize("stronger_first", [False, True])
def test_0_3_strength_order_j9atkq87(i, stronger_first):
    """docs/rules.md §0.3, §0.4: every suit ranks J 9 A T K Q 8 7. Seat 0 leads one spade and
    seat 1 follows with the next rank in that order; seats 2 and 3 (no spades, no hearts =
    trump) throw JD and JC, which never win (§0.4). The stronger spade wins."""
    strong, weak = STRENGTH[i] + "S", STRENGTH[i + 1] + "S"
    first, second = (strong, weak) if stronger_first else (weak, strong)
    rest = [c for c in (r + s for s in "SH" for r in STRENGTH) if c not in (first, second)]
    rows = [[first] + rest[:7], [second] + rest[7:], [r + "D" for r in STRENGTH],
            [r + "C" for r in STRENGTH]]
    st = new_state("29", rows)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump H", "0 play " + first,
       "1 play " + second, "2 play JD", "3 play JC")
    winner = st.tricks[-1][2]
    assert winner == (0 if stronger_first else 1)


# -- §0.4 ---------------------------------------------------------------------------------
def test_0_4_trick_winner():
    """docs/rules.md §0.4 (deal E, trump H open):
    T1 7S 8S JD 9S: no trump; highest spade 9S (seat 3) wins, JD never wins.
    T2 (seat 3) TS QS 7H 9D: 7H is the only trump and beats TS, QS: seat 1.
    T3 (seat 1) 9H 8D 7C JH: trump led, highest trump JH (seat 0) wins."""
    st = new_state("29", E_HANDS)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump H")
    assert trick(st, 0, "7S 8S JD 9S") == 3
    assert trick(st, 3, "TS QS 7H 9D") == 1
    assert trick(st, 1, "9H 8D 7C JH") == 0
    # points: T1 0+0+3+2 = 5 and T2 1+0+0+2 = 3 to side 1; T3 2+0+0+3 = 5 to side 0
    assert st.side_points == [5, 8]


# -- §0.5 ---------------------------------------------------------------------------------
def test_0_5_points_per_seat_include_last_trick_bonus():
    """docs/rules.md §0.5: a seat's points are the card points of the tricks it won plus the
    last-trick bonus. G5 in 29: s0 7+2 = 9, s1 0+5 = 5, s2 3+2+1 = 6, s3 4+5 = 9."""
    st = play_g5(g5_bid(15))
    r = st.result()
    assert r["points"] == [9, 5, 6, 9]
    assert st.side_points == [15, 14]
    assert [t["winner"] for t in r["tricks"]] == [w for _, _, w, _ in G5_TRICKS]


def test_0_5_at_least_target_makes():
    """docs/rules.md §0.5: points >= target makes (G5: 15 against a bid of 15)."""
    st = play_g5(g5_bid(15))
    assert st.target == 15 and st.made is True


def test_0_5_target_starts_as_winning_bid():
    """docs/rules.md §0.5: the target starts as the winning bid."""
    st = new_state("29", G5_HANDS)
    do(st, "0 bid 15", "1 bid 17", "2 pass", "3 pass", "0 pass")
    assert st.declarer == 1 and st.bid == 17 and st.target == 17


def test_0_5_every_deal_is_played_to_the_last_trick():
    """docs/rules.md §0.5: no early end. G5 with a bid of 16 by seat 0: after trick 7 side 1
    has 14 of 29, so side 0 can reach at most 15 < 16; the deal still goes on to trick 8."""
    st = g5_bid(16)
    for leader, cards, _, _ in G5_TRICKS[:7]:
        trick(st, leader, cards)
    assert st.side_points[1] == 14
    assert not st.is_terminal and st.phase == "play" and st.to_act == 3
    trick(st, 3, G5_TRICKS[7][1])
    assert st.is_terminal and len(st.tricks) == 8 and st.made is False


# -- §0.6 ---------------------------------------------------------------------------------
def test_0_6_fixed_partners_opposite():
    """docs/rules.md §0.6: seat s is on side s mod 2. In G5, seats 0 and 2 pool 9+6 = 15 and
    seats 1 and 3 pool 5+9 = 14; seat 0's made contract shows +1 on seats 0 and 2."""
    st = play_g5(g5_bid(15))
    assert st.side_points == [9 + 6, 5 + 9]
    assert st.result()["score_change"] == [1, 0, 1, 0]


def test_0_6_declarer_seat_3_scores_for_seats_1_and_3():
    """docs/rules.md §0.6: seat 3 is on side 1. G5 with seat 3 declaring 15: side 1 has 14,
    fails: -1 shown on seats 1 and 3."""
    st = new_state("29", G5_HANDS)
    do(st, "0 pass", "1 pass", "2 pass", "3 bid 15", "0 pass", "1 pass", "2 pass",
       "3 trump S")
    play_g5(st)
    assert st.made is False
    assert st.result()["score_change"] == [0, -1, 0, -1]


# -- §0.7 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["29", "28"])
def test_0_7_same_seed_same_deal(name):
    """docs/rules.md §0.7: same seed, same deal; hands are dealt in packets (4 before the
    auction, 4 more after trump)."""
    v = variant(name)
    a = State(v, dealer=2, seed="some seed")
    b = State(v, dealer=2, seed="some seed")
    assert a.hands == b.hands
    assert all(len(h) == 4 for h in a.hands)
    others = [State(v, dealer=2, seed=s).hands for s in range(5)]
    assert any(h != a.hands for h in others)
    # play both the same way: identical results, and 8 cards each once play starts
    rng = random.Random(1)
    while not a.is_terminal:
        act = rng.choice(a.legal_actions())
        a.apply(act)
        b.apply(act)
        if act.startswith("trump"):
            # second packet dealt; in 28 the declarer's face-down card is out of his hand
            want = [8, 8, 8, 8] if name == "29" else [7, 8, 8, 8]
            assert sorted(len(h) for h in a.hands) == want
    assert a.result() == b.result()


def _g5_record(seed):
    acts = ["bid 15", "pass", "pass", "pass", "trump S"]
    for _, cards, _, _ in G5_TRICKS:
        acts += plays(cards)
    return {"format": "taash-record/1", "variant": "29", "options": {}, "seed": seed,
            "deals": [{"dealer": 3, "hands": G5_HANDS, "widow": [], "actions": acts}]}


def test_0_7_record_with_hands_does_not_depend_on_seed():
    """docs/rules.md §0.7: records store the hands, so a replay never depends on the shuffle."""
    r0 = replay_json(replay(_g5_record(0)))
    r1 = replay_json(replay(_g5_record(987654)))
    assert r0["deals"] == r1["deals"]
    d = r0["deals"][0]
    assert d["points"] == [9, 5, 6, 9] and d["made"] is True and d["score_change"] == [1, 0, 1, 0]


def test_0_7_match_record_replays_the_same():
    """docs/rules.md §0.7: a match played from its seed and replayed from its record agree."""
    v = variant("29")
    m = Match(v, 21)
    rng = random.Random(2)
    for _ in range(2):
        st = m.new_deal()
        play_out(st, rng)
        m.finish_deal(st)
    rec = m.record()
    again = replay(rec)
    assert replay_json(again) == replay_json(m)
    # the same record without hands deals from the seed: the same again
    for d in rec["deals"]:
        del d["hands"]
    assert replay_json(replay(rec)) == replay_json(m)


# -- §0.8 ---------------------------------------------------------------------------------
def d29_open(trump="H") -> State:
    st = new_state("29", D29_HANDS)
    return do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", f"0 trump {trump}")


def test_0_8_no_declaration_outside_play():
    """docs/rules.md §0.8: declarations are made only in the play phase."""
    st = new_state("29", D29_HANDS)
    assert st.legal_actions() == ["pass"] + bids(15, 29)
    illegal(st, "declare royals")
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass")
    assert st.phase == "trump"
    illegal(st, "declare royals")


def test_0_8_leader_declares_then_acts_again():
    """docs/rules.md §0.8: the leader may declare before its card; the same seat then acts
    again, and the declaration is not offered twice. D29, trump H: T1 7S 7H TC JS won by
    seat 1 (only trump); T2 8H 9C 7C AH won by seat 0 (AH over 8H). Seat 0 (KH QH) leads
    trick 3 and may show royals."""
    st = d29_open()
    assert trick(st, 0, "7S 7H TC JS") == 1
    trick(st, 1, "8H 9C 7C AH")
    assert st.to_act == 0
    assert st.legal_actions()[0] == "declare royals"
    do(st, "0 declare royals")
    assert st.to_act == 0 and st.phase == "play" and not st.trick_cards
    assert "declare royals" not in st.legal_actions()
    illegal(st, "declare royals")
    do(st, "0 play QS")
    assert st.to_act == 1


def test_0_8_follower_declares_before_its_card():
    """docs/rules.md §0.8: a seat that is not leading may declare on its turn, before its card.
    G6B: seat 0 won trick 1; in trick 2 seat 2 declares royals, then plays 8S."""
    st = new_state("29", G6B_HANDS)
    do(st, "0 bid 20", "1 pass", "2 pass", "3 pass", "0 trump H")
    trick(st, 0, "JS 9S AS TS")
    do(st, "0 play KS", "1 play QS")
    assert st.legal_actions() == ["declare royals", "play 8S"]
    do(st, "2 declare royals", "2 play 8S")
    assert st.to_act == 3


def test_0_8_only_completed_tricks_count():
    """docs/rules.md §0.8: 'his side has won a trick' counts only completed tricks. G6B: in
    trick 1 seat 0 (seat 2's partner) is winning with JS, but the trick is not complete, so
    seat 2 (KH QH, trump H) may not declare yet."""
    st = new_state("29", G6B_HANDS)
    do(st, "0 bid 20", "1 pass", "2 pass", "3 pass", "0 trump H", "0 play JS", "1 play 9S")
    assert st.legal_actions() == plays("AS 8S")


def test_0_8_opponents_tricks_do_not_count():
    """docs/rules.md §0.8: only tricks won by the seat or its partner count. D29: seat 1 won
    trick 1; in trick 2 seat 0 (KH QH of trump) has no trick on its side: no royals."""
    st = d29_open()
    trick(st, 0, "7S 7H TC JS")
    do(st, "1 play 8H", "2 play 9C", "3 play 7C")
    assert st.legal_actions() == plays("AH TH KH QH")


# -- §0.9 ---------------------------------------------------------------------------------
def test_0_9_reaching_plus_6_ends_the_match_29():
    """docs/rules.md §0.9, §29.9: at 5 the side of seat 0 makes G5 (+1): 6 >= 6, match over,
    seats 0 and 2 win."""
    m = match_with("29", [5, 0])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [6, 0]
    assert m.over and m.winners == [0, 2]


def test_0_9_checked_after_every_deal():
    """docs/rules.md §0.9: a deal that leaves both sides below 6 does not end the match (5 and
    a failed 16 gives 4); the next deal is dealt by next(dealer)."""
    m = match_with("29", [5, 0])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [4, 0] and not m.over and m.winners == []
    assert m.new_deal().dealer == 0


def test_0_9_at_minus_6_28():
    """docs/rules.md §0.9, §28.11: in 28 a side at -6 (score <= -6) loses; the other side has the
    top total and wins. Deal A without exposure gives side 0 23 points: a bid of 24 fails,
    -5 - 1 = -6."""
    m = match_with("28", [-5, 2])
    st = m.new_deal(hands=A_HANDS, dealer=3)
    do(st, "0 bid 24", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")
    play_a_no_expose(st)
    m.finish_deal(st)
    assert m.scores == [-6, 2]
    assert m.over and m.winners == [1, 3]


def test_0_9_equal_top_totals_share_the_win():
    """docs/rules.md §0.9: every seat with the top total is a winner. (Contrived start: side 0
    at 5 and side 1 at 6; side 0 makes G5: 6 and 6, all four seats share the win.)"""
    m = match_with("29", [5, 6])
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    assert m.scores == [6, 6]
    assert m.over and sorted(m.winners) == [0, 1, 2, 3]


# -- §0.10 --------------------------------------------------------------------------------
def test_0_10_auction_order():
    """docs/rules.md §0.10: pass first, then bids by number."""
    st = new_state("29", G5_HANDS)
    assert st.legal_actions() == ["pass"] + bids(15, 29)
    do(st, "0 bid 22")
    assert st.legal_actions() == ["pass"] + bids(23, 29)


def test_0_10_trump_order():
    """docs/rules.md §0.10: trump actions by suit S H D C."""
    st = new_state("29", G5_HANDS)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass")
    assert st.legal_actions() == ["trump S", "trump H", "trump D", "trump C"]


def test_0_10_trump_card_order():
    """docs/rules.md §0.10: trump-card actions, cards in card order (suit S H D C, then
    strength). Deal A: seat 0's first packet 8H AS KS KH -> AS KS KH 8H."""
    st = new_state("28", A_HANDS)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass")
    assert st.legal_actions() == ["trump-card AS", "trump-card KS", "trump-card KH",
                                  "trump-card 8H"]


def test_0_10_cards_by_suit_then_strength():
    """docs/rules.md §0.10: cards by suit S H D C, then strength high to low. D29, seat 0 leads
    with 7S 8S QS AH TH KH QH KC: QS 8S 7S AH TH KH QH KC; seat 2's whole hand (void in
    spades, no trump): JD 9D AD TD JC 9C AC TC."""
    st = d29_open()
    assert st.legal_actions() == plays("QS 8S 7S AH TH KH QH KC")
    do(st, "0 play 7S", "1 play 7H")
    assert st.legal_actions() == plays("JD 9D AD TD JC 9C AC TC")


def test_0_10_declarations_before_cards():
    """docs/rules.md §0.10: declarations come before the cards."""
    st = d29_open()
    trick(st, 0, "7S 7H TC JS")
    trick(st, 1, "8H 9C 7C AH")
    assert st.legal_actions() == ["declare royals"] + plays("QS 8S TH KH QH KC")


def test_0_10_expose_before_cards():
    """docs/rules.md §0.10: `expose` comes after declarations and before the cards. 28, deal A:
    seat 1 (no spades) after AS: expose, then 9H AH 7H JD 9D AD TC KC."""
    st = new_state("28", A_HANDS)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump-card 8H", "0 play AS")
    assert st.legal_actions() == ["expose"] + plays("9H AH 7H JD 9D AD TC KC")


def test_0_10_declaration_then_cards_after_expose():
    """docs/rules.md §0.10 with §0.8, §28.10: 28, deal C, seat 0 declares 16 with 8H face down.
    T1 AS 9C 8S JS: seat 3 wins (JS). T2 seat 3 leads 9S, seat 0 7S; seat 1 (no spades,
    KH QH AH) exposes; trump is open, its side has a trick, it holds KH QH and has not
    played: declare pair, then it must play a trump (§28.7): AH KH QH."""
    st = new_state("28", C_HANDS)
    do(st, "0 bid 16", "1 pass", "2 pass", "3 pass", "0 trump-card 8H")
    assert trick(st, 0, "AS 9C 8S JS") == 3
    do(st, "3 play 9S", "0 play 7S")
    assert st.legal_actions() == ["expose"] + plays("AH KH QH QD 8D 7D JC")
    do(st, "1 expose")
    assert st.legal_actions() == ["declare pair"] + plays("AH KH QH")
