"""docs/rules.md §304s (Solo 304 with a widow) and golden case G9.

Deals are built by hand in tests/helpers/rules2.py (G9_HANDS with widow JC 7D,
SOLO_SLAM_HANDS); expected values are worked out from docs/rules.md in the comments there and
here. Three players, dealer 2 throughout, so seat 0 is the eldest.
"""

from __future__ import annotations

import json
import random

import pytest

from taash.interpreter import Match, State

from tests.helpers.rules import do, illegal, play_out
from tests.helpers.rules2 import (G9_HANDS, G9_LINE1, G9_LINE2, G9_WIDOW, SOLO_SLAM_HANDS,
                                  SOLO_SLAM_TRICKS, SOLO_SLAM_WIDOW, bids304, split_legal, state,
                                  trick_n, tricks_n, variant2)

SOLO = "304-solo"


def g9_state(scores=None):
    return state(SOLO, G9_HANDS, dealer=2, widow=G9_WIDOW, scores=scores)


def g9_auction(st=None):
    """Seat 0 bids 170, seats 1 and 2 pass: seat 0 declares at 170 (§304.4)."""
    st = st or g9_state()
    do(st, "0 bid 170", "1 pass", "2 pass")
    assert st.phase == "exchange" and st.declarer == 0 and st.bid == 170
    return st


def line1(st):
    do(st, "0 take JC", "0 take 7D", "0 discard TH", "0 discard 9S", "0 done", "0 trump S")
    return st


def line2(st):
    do(st, "0 take JC", "0 discard QH", "0 done", "0 trump S")
    return st


def seen(obs, card):
    """Whether a card text appears anywhere in an observation."""
    return f'"{card}"' in json.dumps(obs) or f' {card}"' in json.dumps(obs)


# -- §304s.1 ------------------------------------------------------------------------------
def test_304s_1_three_players_declarer_alone():
    """docs/rules.md §304s.1: three players; the declarer plays alone against the other two, who
    form a side and score 0 whatever happens (G9 line 2 failed: -1 for seat 0 only)."""
    v = variant2(SOLO)
    assert v.players == 3
    st = line2(g9_auction())
    assert st.side[1] == st.side[2] != st.side[0]
    tricks_n(st, G9_LINE2)
    assert st.made is False
    assert st.scores == [-1, 0, 0]
    assert st.result()["partner"] is None


def test_304s_1_defenders_know_each_other_from_the_start():
    """docs/rules.md §304s.1, §304.9: the defenders know each other from the start, so a
    defender counts the other defender's tricks: G9 line 2, seat 1 wins trick 7; in trick
    8 seat 2 (KC QC, no trick of its own) may show the club marriage: 170 + 20 = 190.
    Before any defender's trick it may not (trick 2)."""
    st = line2(g9_auction())
    tricks_n(st, G9_LINE2[:1])
    do(st, "0 play AS", "1 play 9D")
    assert split_legal(st.legal_actions())[0] == set()
    illegal(st, "declare marriage C")
    do(st, "2 play AD")
    tricks_n(st, G9_LINE2[2:7])
    assert st.tricks[-1][2] == 1
    do(st, "1 play 9H")
    decl, cards = split_legal(st.legal_actions())
    assert decl == {"declare marriage C"} and cards == ["play AH"]
    do(st, "2 declare marriage C")
    assert st.target == 190


# -- §304s.2 ------------------------------------------------------------------------------
def test_304s_2_deck_points_auction_as_304():
    """docs/rules.md §304s.2: deck and points as §304 (304 in all); the auction as §304.4: the
    dealer (seat 2) holds 150, bids 155..180, steps of 5, passes final."""
    v = variant2(SOLO)
    assert v.total == 304 and sum(v.deck.point_of[c] for c in v.deck.cards()) == 304
    st = g9_state()
    assert st.bid == 150 and st.to_act == 0
    assert st.legal_actions() == ["pass"] + bids304(155, 180)
    illegal(st, "bid 185")
    do(st, "0 pass", "1 bid 160")
    assert st.to_act == 2
    do(st, "2 bid 165")
    assert st.to_act == 1        # seat 0 passed: skipped
    do(st, "1 pass")
    assert st.phase == "exchange" and st.declarer == 2 and st.bid == 165


def test_304s_2_all_three_pass_dealer_at_150():
    """docs/rules.md §304s.2: all three pass: the dealer (seat 2) is declarer at 150 and makes
    the exchange; after his trump the eldest (seat 0) leads."""
    st = g9_state()
    do(st, "0 pass", "1 pass", "2 pass")
    assert st.phase == "exchange" and st.declarer == 2 and st.bid == 150
    assert st.to_act == 2
    assert st.legal_actions() == ["take 7D", "take JC", "done"]
    do(st, "2 done", "2 trump D")
    assert st.phase == "play" and st.to_act == 0   # §304.6: the eldest leads


def test_304s_2_no_partner_call():
    """docs/rules.md §304s.2: no partner call: after trump the eldest leads at once; nothing is
    called."""
    st = line1(g9_auction())
    assert st.phase == "play" and st.to_act == 0
    assert st.called_card < 0 and st.partner < 0
    for s in range(3):
        assert st.observation(s)["called_card"] is None
    illegal(st, "call 8S")


def test_304s_2_play_follow_suit():
    """docs/rules.md §304s.2, §304.6: follow suit if able, otherwise any card: G9 line 1, JS led:
    seat 1 must play its only spade 8S; in trick 2 (AS) seat 1 has no spade: any card."""
    st = line1(g9_auction())
    do(st, "0 play JS")
    assert st.legal_actions() == ["play 8S"]
    do(st, "1 play 8S", "2 play 7S", "0 play AS")
    assert st.legal_actions() == ["play JH", "play 9H", "play JD", "play 9D", "play TD",
                                  "play KD", "play 9C", "play AC", "play TC"]


def test_304s_2_declarer_marriage_as_304():
    """docs/rules.md §304s.2, §304.9: marriage as §304: G9 line 1, seat 0 won trick 1 and holds
    KS QS (trump): 170 - 40 = 130."""
    st = line1(g9_auction())
    tricks_n(st, G9_LINE1[:1])
    decl, _ = split_legal(st.legal_actions())
    assert decl == {"declare marriage S", "declare slam"}
    do(st, "0 declare marriage S")
    assert st.target == 130


def test_304s_2_match_eleven_deals():
    """docs/rules.md §304s.2, §304.12: the match is 11 deals; the highest total wins. Ten random
    deals do not end it; before the 11th the scores are set to [1, 2, 2]; G9 line 1 made
    (+1 for seat 0): [2, 2, 2]: all three share the win."""
    m = Match(variant2(SOLO), 6)
    rng = random.Random(6)
    for i in range(10):
        st = m.new_deal()
        play_out(st, rng)
        m.finish_deal(st)
        assert not m.over, i
    m.scores = [1, 2, 2]
    st = m.new_deal(hands=[r.split() for r in G9_HANDS], widow=G9_WIDOW.split(), dealer=2)
    line1(g9_auction(st))
    tricks_n(st, G9_LINE1)
    m.finish_deal(st)
    assert m.scores == [2, 2, 2]
    assert m.over and m.winners == [0, 1, 2]


# -- §304s.3 ------------------------------------------------------------------------------
def test_304s_3_ten_each_in_packets_of_5_then_widow_of_2():
    """docs/rules.md §304s.3: 10 each (two packets of 5), then 2 face down to the widow, all
    before the auction."""
    v = variant2(SOLO)
    assert v.cards_per_seat == 10 and v.widow_size == 2
    assert [s for s in v.flow if isinstance(s, dict)] == [{"deal": [5, 5]}, {"widow": 2}]
    assert v.flow.index("auction") == 2
    st = State(v, dealer=0, seed=2)
    assert [len(h) for h in st.hands] == [10, 10, 10] and len(st.widow) == 2
    assert sorted([c for h in st.hands for c in h] + list(st.widow)) == sorted(v.deck.cards())


def test_304s_3_widow_hidden_from_everybody_in_the_auction():
    """docs/rules.md §304s.3: the widow is face down: in the auction no seat sees JC or 7D."""
    st = g9_state()
    for s in range(3):
        obs = st.observation(s)
        assert obs["widow"] is None
        assert sorted(obs["hand"]) == sorted(G9_HANDS[s].split())
        assert not seen(obs, "JC") and not seen(obs, "7D")


# -- §304s.4 ------------------------------------------------------------------------------
def test_304s_4_declarer_sees_the_widow_others_do_not():
    """docs/rules.md §304s.4: after the auction the declarer sees the widow; the others do not."""
    st = g9_auction()
    assert sorted(st.observation(0)["widow"]) == ["7D", "JC"]
    for s in (1, 2):
        obs = st.observation(s)
        assert obs["widow"] is None
        assert not seen(obs, "JC") and not seen(obs, "7D")


def test_304s_4_exchange_legal_actions():
    """docs/rules.md §304s.4, §0.10: take each wanted widow card (none, one or both), then as
    many discards, then done (legal once discards equal takes; no take after the first
    discard). Order: take, discard, done; cards by suit S H D C and strength."""
    st = g9_auction()
    hand = "JS 9S AS TS KS QS TH QH 8H 7H".split()   # seat 0 in §0.10 order
    assert st.legal_actions() == ["take 7D", "take JC", "done"]
    illegal(st, "discard TH")                          # nothing taken yet
    do(st, "0 take JC")
    assert st.legal_actions() == ["take 7D"] + [f"discard {c}" for c in hand + ["JC"]]
    illegal(st, "done")
    do(st, "0 take 7D")
    assert st.legal_actions() == [f"discard {c}" for c in hand + ["7D", "JC"]]
    illegal(st, "done")
    do(st, "0 discard TH")
    assert st.legal_actions() == [f"discard {c}" for c in hand if c != "TH"] + \
        ["discard 7D", "discard JC"]
    do(st, "0 discard 9S")
    assert st.legal_actions() == ["done"]
    do(st, "0 done")
    assert st.phase == "trump"
    assert st.legal_actions() == ["trump S", "trump H", "trump D", "trump C"]


def test_304s_4_no_take_after_first_discard():
    """docs/rules.md §304s.4: no take after the first discard: take JC, discard QH: only done."""
    st = g9_auction()
    do(st, "0 take JC", "0 discard QH")
    assert st.legal_actions() == ["done"]
    illegal(st, "take 7D")


def test_304s_4_take_none_sets_both_aside():
    """docs/rules.md §304s.4: taking none: `done` at once; both widow cards are set aside and
    count for the declarer (JC 30 + 7D 0)."""
    st = g9_auction()
    do(st, "0 done")
    assert st.phase == "trump"
    assert sorted(st.observation(0)["set_aside"]) == ["7D", "JC"]
    assert sorted(st.observation(0)["hand"]) == sorted(G9_HANDS[0].split())


def test_304s_4_card_just_taken_may_be_discarded():
    """docs/rules.md §304s.4: a card just taken may be discarded: take JC, discard JC, done: the
    hand is unchanged, JC and 7D are set aside."""
    st = g9_auction()
    do(st, "0 take JC", "0 discard JC", "0 done")
    assert sorted(st.observation(0)["set_aside"]) == ["7D", "JC"]
    assert sorted(st.observation(0)["hand"]) == sorted(G9_HANDS[0].split())


def test_304s_4_takes_and_discards_hidden_from_the_others():
    """docs/rules.md §304s.4: the discards and the widow cards stay hidden: the others see that
    the declarer took and discarded, not which cards; the declarer sees his own actions
    and, after `done`, his set-aside cards (9S TH); the others never see them."""
    st = g9_auction()
    do(st, "0 take JC", "0 take 7D", "0 discard TH", "0 discard 9S")
    assert st.observation(0)["history"][-4:] == [[0, "take JC"], [0, "take 7D"],
                                                 [0, "discard TH"], [0, "discard 9S"]]
    for s in (1, 2):
        assert st.observation(s)["history"][-4:] == [[0, "take"], [0, "take"],
                                                     [0, "discard"], [0, "discard"]]
    do(st, "0 done", "0 trump S")
    assert sorted(st.observation(0)["set_aside"]) == ["9S", "TH"]
    assert st.observation(0)["widow"] is None
    for s in (1, 2):
        obs = st.observation(s)
        assert obs["set_aside"] is None and obs["widow"] is None
        for c in ("JC", "7D", "TH", "9S"):
            assert not seen(obs, c), (s, c)
    assert len(st.observation(0)["hand"]) == 10


def test_304s_4_then_names_trump():
    """docs/rules.md §304s.4: then he names trump (after `done`, not before)."""
    st = g9_auction()
    illegal(st, "trump S")
    do(st, "0 done")
    assert st.phase == "trump" and st.to_act == 0
    do(st, "0 trump H")
    assert st.phase == "play" and st.trump == st.v.deck.suits.index("H")


# -- G9 -----------------------------------------------------------------------------------
def test_g9_take_both_discard_th_9s_175_made():
    """docs/rules.md §G G9: bid 170, widow JC 7D (30 points). The declarer takes both and
    discards TH and 9S (30): tricks 145 + 30 = 175, made, +1."""
    st = line1(g9_auction())
    tricks_n(st, G9_LINE1)
    r = st.result()
    assert r["points"] == [175, 129, 0]   # seat 1 won all four defenders' tricks
    assert st.side_points[st.side[0]] == 175
    assert r["made"] is True
    assert r["score_change"] == [1, 0, 0]


def test_g9_take_jc_discard_qh_162_failed():
    """docs/rules.md §G G9: he takes JC only and discards QH: the set-aside cards are 7D QH (2):
    tricks 160 + 2 = 162, failed, -1."""
    st = line2(g9_auction())
    assert sorted(st.observation(0)["set_aside"]) == ["7D", "QH"]
    tricks_n(st, G9_LINE2)
    r = st.result()
    assert r["points"] == [162, 142, 0]
    assert r["made"] is False
    assert r["score_change"] == [-1, 0, 0]


# -- §304s.5 ------------------------------------------------------------------------------
def test_304s_5_slam_all_ten_tricks_plus_4():
    """docs/rules.md §304s.5, §304.11: slam is all 10 tricks: SOLO_SLAM, seat 0 takes nothing
    from the widow (8C 7C set aside, 0), trump S, declares slam before trick 1 and wins all
    ten tricks (304 points): +4."""
    st = state(SOLO, SOLO_SLAM_HANDS, dealer=2, widow=SOLO_SLAM_WIDOW)
    do(st, "0 bid 155", "1 pass", "2 pass", "0 done", "0 trump S", "0 declare slam")
    tricks_n(st, SOLO_SLAM_TRICKS)
    assert len(st.tricks) == 10 and all(w == 0 for _, _, w in st.tricks)
    assert st.result()["points"] == [304, 0, 0]
    assert st.made is True
    assert st.scores == [4, 0, 0]


def test_304s_5_slam_declared_in_tricks_1_to_5_only():
    """docs/rules.md §304s.5: slam may be declared during tricks 1 to 5: SOLO_SLAM, seat 0 leads
    every trick: offered at trick 5, not at trick 6; never to a defender."""
    st = state(SOLO, SOLO_SLAM_HANDS, dealer=2, widow=SOLO_SLAM_WIDOW)
    do(st, "0 bid 155", "1 pass", "2 pass", "0 done", "0 trump S")
    for i in range(4):
        assert "declare slam" in st.legal_actions()
        if i == 0:
            do(st, "0 play JS")
            assert "declare slam" not in st.legal_actions()   # seat 1, a defender
            do(st, "1 play JD", "2 play KD")
        else:
            tricks_n(st, SOLO_SLAM_TRICKS[i:i + 1])
    assert len(st.tricks) == 4
    assert "declare slam" in st.legal_actions()   # trick 5
    tricks_n(st, SOLO_SLAM_TRICKS[4:5])
    decl, _ = split_legal(st.legal_actions())
    assert "declare slam" not in decl             # trick 6
    illegal(st, "declare slam")


def test_304s_5_slam_lost_minus_1_even_if_target_reached():
    """docs/rules.md §304s.5, §304.11: G9 line 1 (175 >= 170) with slam declared in trick 5: the
    declarer loses trick 7: -1."""
    st = line1(g9_auction())
    tricks_n(st, G9_LINE1[:4])
    do(st, "0 declare slam")
    tricks_n(st, G9_LINE1[4:])
    assert st.result()["points"][0] == 175
    assert st.made is False
    assert st.scores == [-1, 0, 0]
