"""The deck, seats and flow constructs of the rules language (docs/authoring.md): a deck of
the 52-card pack, a flow without an auction (`contract:`), `trump.chooser`, tricks deciding
a deal, the flow's `declare` step with `sits_out`, and a widow only set aside; through the
two files that use them, variants/court-piece.yaml and variants/house/29-single-hand.yaml,
and small fixtures.

Every deal is written out card by card; the expected values are worked out by hand in the
comments (Court Piece: A high, seven tricks of thirteen win, all thirteen score 2; 29:
docs/rules.md §29, points J3 9=2 A1 T1, last trick 1). Dealer 3, so seat 0 is the eldest.
"""

from __future__ import annotations

import random
import textwrap

import pytest

from taash.interpreter import Match, State, load_variant
from taash.interpreter.rulebook import render

from tests.helpers.rules import do, play_out

CP = "court-piece"
SH = "house/29-single-hand"
PACK = "A K Q J T 9 8 7 6 5 4 3 2".split()


def suit(s: str, ranks=PACK) -> list[str]:
    return [r + s for r in ranks]


def play_tricks(st: State, tricks):
    """Play tricks given as [(leader, "card card ...")] in playing order; returns winners."""
    out = []
    for leader, cards in tricks:
        assert st.to_act == leader, (leader, st.to_act)
        for c in cards.split():
            st.apply(f"play {c}")
        out.append(st.tricks[-1][2])
    return out


# == the 52-card deck, no auction, tricks decide (Court Piece) ==========================
def one_suit_each():
    # seat 0 all hearts, seat 1 all spades, seat 2 all diamonds, seat 3 all clubs
    return [suit("H"), suit("S"), suit("D"), suit("C")]


def test_court_piece_deck_is_the_52_card_pack_a_high():
    v = load_variant(CP)
    d = v.deck
    assert len(d.cards()) == 52 and v.tricks == 13 and v.cards_per_seat == 13
    assert d.ranks == tuple(PACK)
    # A high, 2 low: the ace of spades beats the king, the two is the weakest
    assert d.strength[d.parse("AS")] > d.strength[d.parse("KS")] > d.strength[d.parse("2S")]


def test_court_piece_eldest_names_trump_from_his_first_five_cards():
    st = State(load_variant(CP), dealer=3, hands=one_suit_each())
    # no auction: the first action is the trump caller's, seat 0 (the eldest), who holds
    # only the first packet of five
    assert st.phase == "trump" and st.to_act == 0 and st.declarer == 0 and st.target == 7
    assert st.hands[0] == [st.v.deck.parse(c) for c in "AH KH QH JH TH".split()]
    assert [str(a) for a in st.legal_actions()] == ["trump S", "trump H", "trump D", "trump C"]
    assert all(len(h) == 5 for h in st.hands)
    do(st, "0 trump H")
    assert all(len(h) == 13 for h in st.hands) and st.phase == "play" and st.to_act == 0
    # dealer 0: the eldest is seat 1, who declares and names trump
    st1 = State(load_variant(CP), dealer=0, hands=one_suit_each())
    assert st1.to_act == 1 and st1.declarer == 1


def test_court_piece_all_thirteen_tricks_score_two():
    st = State(load_variant(CP), dealer=3, hands=one_suit_each())
    do(st, "0 trump H")
    # seat 0 leads hearts: nobody else holds a heart or a trump, so seat 0 wins all 13
    play_out(st, random.Random(5))
    assert [w for *_x, w in st.tricks] == [0] * 13
    assert st.made is True and st.score_change() == [2, 0, 2, 0]


def test_court_piece_defenders_win_with_the_trump_the_caller_named():
    st = State(load_variant(CP), dealer=3, hands=one_suit_each())
    do(st, "0 trump S")   # seat 1 holds every spade
    # trick 1: seat 0 leads a heart, seat 1 (no heart) must play a spade, a trump: wins;
    # then seat 1 leads spades, nobody else has one: seat 1 wins all 13 tricks
    play_out(st, random.Random(2))
    assert [w for *_x, w in st.tricks] == [1] * 13
    # not made; the defenders won all thirteen: 2 for side 1
    assert st.made is False and st.score_change() == [0, 2, 0, 2]


def test_court_piece_seven_tricks_make_the_contract_six_do_not():
    h = [suit("H", "A K Q J T 9 8".split()) + suit("S", "7 6 5 4 3 2".split()),
         suit("S", "A K Q J T 9 8".split()) + suit("H", "7 6 5 4 3 2".split()),
         suit("D"), suit("C")]
    # dealt in order: the first five of seat 0 are AH..TH
    st = State(load_variant(CP), dealer=3, hands=h)
    do(st, "0 trump H")
    winners = play_tricks(st, [
        # tricks 1-6: seat 0 leads its top hearts, seat 1 must follow with a low heart
        (0, "AH 7H AD AC"), (0, "KH 6H KD KC"), (0, "QH 5H QD QC"),
        (0, "JH 4H JD JC"), (0, "TH 3H TD TC"), (0, "9H 2H 9D 9C"),
        # trick 7: seat 1 has no heart left; 8H is a trump: seat 0's seventh trick
        (0, "8H 8S 8D 8C"),
        # tricks 8-13: seat 0 leads a low spade, seat 1 follows higher and keeps the lead
        (0, "2S 9S 7D 7C"), (1, "TS 6D 6C 3S"), (1, "JS 5D 5C 4S"), (1, "QS 4D 4C 5S"),
        (1, "KS 3D 3C 6S"), (1, "AS 2D 2C 7S")])
    assert winners == [0] * 7 + [1] * 6
    assert st.side_tricks == [7, 6]
    # made (7 >= 7), not all thirteen: 1 for side 0
    assert st.made is True and st.score_change() == [1, 0, 1, 0]


def test_court_piece_match_to_seven():
    m = Match(load_variant(CP), seed=4)
    rng = random.Random(4)
    while not m.over:
        m.finish_deal(play_out(m.new_deal(), rng))
    assert m.ended_by == "rule" and max(m.scores) >= 7
    assert all(d.declarer == (d.dealer + 1) % 4 for d in m.deals)


def test_court_piece_rulebook_in_plain_words():
    text = render(load_variant(CP))
    assert "52 cards: A K Q J T 9 8 7 6 5 4 3 2 (strongest first)" in text
    assert "No card has points." in text and "Points:" not in text
    assert "There is no auction. The declarer: the eldest" in text and "His target: 7." in text
    assert "## Auction" not in text
    assert "the number of tricks won by the declarer's side is at least the target" in text


# == the single hand: a declaration before the first lead; the partner sits out ============
def single_hands():
    # seat 0 all spades, seat 1 all hearts, seat 2 all diamonds, seat 3 all clubs
    r = "J 9 A T K Q 8 7".split()
    return [suit("S", r), suit("H", r), suit("D", r), suit("C", r)]


def single_deal(hs=None, declare=True):
    st = State(load_variant(SH), dealer=3, hands=hs or single_hands())
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    # every card dealt, before the first lead: each seat in turn from the declarer
    assert st.phase == "declare" and st.to_act == 0 and all(len(h) == 8 for h in st.hands)
    assert [str(a) for a in st.legal_actions()] == ["pass", "declare single"]
    if declare:
        do(st, "0 declare single")
        # seat 2, the partner, now sits out: it is not asked; seats 1 and 3 may only pass
        assert st.to_act == 1 and [str(a) for a in st.legal_actions()] == ["pass"]
        do(st, "1 pass", "3 pass")
    else:
        do(st, "0 pass", "1 pass", "2 pass", "3 pass")
    return st


def test_single_hand_partner_sits_out_tricks_of_three():
    st = single_deal()
    assert st.out == [False, False, True, False] and st.phase == "play"
    # the single player leads; the turn skips seat 2: 0, 1, 3
    assert st.to_act == 0
    do(st, "0 play JS")
    assert st.to_act == 1
    do(st, "1 play 7H")
    assert st.to_act == 3
    do(st, "3 play 7C")
    assert len(st.tricks) == 1 and st.tricks[0] == (0, tuple(st.v.deck.parse(c) for c in ("JS", "7H", "7C")), 0)
    assert st.to_act == 0


def test_single_hand_all_eight_tricks_score_three():
    st = single_deal()
    play_out(st, random.Random(1))
    # seat 0 leads spades (trump) every trick and wins all eight
    assert [w for *_x, w in st.tricks] == [0] * 8
    assert all(len(cards) == 3 for _l, cards, _w in st.tricks)
    # seat 2 keeps its eight diamonds (7 points, counted for nobody); seat 0 won the
    # spades, hearts and clubs (7 points each) and the last trick (1): 22
    assert len(st.hands[2]) == 8 and st.seat_points == [22, 0, 0, 0]
    assert st.made is True and st.score_change() == [3, 0, 3, 0]


def test_single_hand_one_lost_trick_loses_three():
    r = "J 9 A T K Q 8".split()
    hs = [suit("S", r) + ["7H"], suit("H", r) + ["7S"], suit("D", "J 9 A T K Q 8 7".split()),
          suit("C", "J 9 A T K Q 8 7".split())]
    st = single_deal(hs)
    # seat 0 leads 7H; seat 1 follows with JH; seat 3 a club: seat 1 wins trick 1
    do(st, "0 play 7H", "1 play JH", "3 play 7C")
    assert st.tricks[-1][2] == 1
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    # one trick lost: the single hand fails, 3 off the declarer's side (points are
    # not what counts: 29's `made` now asks for all eight tricks)
    assert st.made is False and st.score_change() == [-3, 0, -3, 0]


def test_single_hand_not_declared_plays_29():
    st = single_deal(declare=False)
    assert st.out == [False] * 4 and st.to_act == 0   # the eldest leads (29.6)
    do(st, "0 play JS", "1 play 7H", "2 play 7D", "3 play 7C")
    assert len(st.tricks) == 1 and len(st.tricks[0][1]) == 4


def test_single_hand_rulebook_in_plain_words():
    text = render(load_variant(SH))
    assert "each player in turn from the declarer may make one declaration" in text
    assert "made as `declare single` at the declarations before play" in text
    assert "- (the partner of the player) sits out the deal" in text


def test_a_leader_who_sits_out_gives_the_lead_to_the_next_seat(tmp_path):
    v = fixture(tmp_path, """\
        extends: "house/29-single-hand"
        name: leader-out
        declarations:
          single:
            effect: sits_out[me] = true
        """)
    st = State(v, dealer=3, hands=single_hands())
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S", "0 declare single",
       "1 pass", "2 pass", "3 pass")
    # the leader rule names the declarer, seat 0, who sits out: seat 1 leads; tricks of 1, 2, 3
    assert st.out == [True, False, False, False] and st.to_act == 1
    do(st, "1 play JH", "2 play JD", "3 play JC")
    assert len(st.tricks) == 1 and st.to_act == 1


def test_every_seat_sitting_out_is_ignored(tmp_path):
    v = fixture(tmp_path, """\
        extends: "house/29-single-hand"
        name: all-out
        declarations:
          single:
            effect: |
              sits_out[dealer] = true; sits_out[partner_of(dealer)] = true
              sits_out[eldest] = true; sits_out[partner_of(eldest)] = true
        """)
    st = State(v, dealer=3, hands=single_hands())
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S", "0 declare single")
    # no seat is left to call or play: the rule is ignored, every seat plays (the guide's
    # guarantee); the step has ended, since every seat sat out when its turn came
    assert st.out == [False] * 4 and st.phase == "play" and st.to_act == 0
    play_out(st, random.Random(0))
    assert all(len(cards) == 4 for _l, cards, _w in st.tricks) and len(st.tricks) == 8


DOUBLING_AFTER_DECLARE = """\
    extends: "house/29-single-hand"
    name: doubling-after-declare
    flow:
      - deal: [4]
      - auction
      - trump
      - deal: [4]
      - declare: declarer
      - doubling
      - play
    declarations:
      single:
        effect: |
          sits_out[partner_of(me)] = true
          sits_out[dealer] = true
    """


def test_seats_that_sit_out_take_no_part_in_a_later_doubling(tmp_path):
    v = fixture(tmp_path, DOUBLING_AFTER_DECLARE)
    st = State(v, dealer=3, hands=single_hands())
    # 0 declares; his partner 2 and the dealer 3 sit out; 1 passes at the declare step
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S", "0 declare single", "1 pass")
    assert st.out == [False, False, True, True]
    # doubling (docs/rules.md §H): defenders from next(declarer) = 1, then 3 (out): only 1;
    # after his double the contractors from 2 (out), then 0: only 0 may redouble
    assert st.phase == "doubling" and st.to_act == 1
    do(st, "1 double")
    assert st.phase == "doubling" and st.to_act == 0
    do(st, "0 redouble")
    # play: tricks of two, seat 0 (the declarer, single) leads
    assert st.phase == "play" and st.to_act == 0 and st.doubled == 2
    do(st, "0 play JS", "1 play JH")
    assert st.tricks[-1] == (0, (st.v.deck.parse("JS"), st.v.deck.parse("JH")), 0)


def test_a_pass_of_the_only_defender_left_ends_the_doubling(tmp_path):
    st = State(fixture(tmp_path, DOUBLING_AFTER_DECLARE), dealer=3, hands=single_hands())
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S", "0 declare single", "1 pass",
       "1 pass")
    # seat 3, the other defender, sits out: nobody else is asked
    assert st.phase == "play" and st.to_act == 0 and st.doubled == 0


# == fixtures: trump.chooser, a kitty set aside ============================================
def fixture(tmp_path, text):
    p = tmp_path / "fixture.yaml"
    p.write_text(textwrap.dedent(text))
    return load_variant(p)


def test_trump_chooser_names_another_seat(tmp_path):
    v = fixture(tmp_path, """\
        extends: "29"
        name: chooser
        trump:
          mode: open
          chooser: partner_of(declarer)
        """)
    st = State(v, dealer=3, hands=single_hands())
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass")
    # the declarer is seat 0; his partner, seat 2, chooses trump from its first four cards
    assert st.phase == "trump" and st.to_act == 2 and len(st.hands[2]) == 4
    do(st, "2 trump D")
    assert st.trump == v.deck.suit_index["D"] and st.trump_exposed and st.declarer == 0
    assert "The partner of the declarer chooses trump" in render(v) or \
        "the partner of the declarer chooses trump" in render(v)


def test_kitty_set_aside_counts_for_the_declarer_and_is_seen_by_nobody(tmp_path):
    v = fixture(tmp_path, """\
        extends: "29"
        name: kitty
        flow:
          - deal: [4]
          - widow: 4
            set_aside: true
          - auction
          - trump
          - deal: [3]
          - play
        """)
    assert v.widow_size == 4 and v.cards_per_seat == 7 and v.tricks == 7
    rng = random.Random(3)
    for seed in range(40):
        st = Match(v, seed=seed).new_deal()
        while not st.is_terminal:
            for s in range(4):
                ob = st.observation(s)
                assert ob["widow"] is None and ob["set_aside"] is None
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))])
        if st.declarer >= 0:
            break
    assert st.declarer >= 0 and "exchange" not in [a.kind for _s, a in st.history]
    po = v.deck.point_of
    kitty = sum(po[c] for c in st.widow)
    won = sum(po[c] for _l, cs, w in st.tricks for c in cs if st.side[w] == st.side[st.declarer])
    last = v.last_trick if st.side[st.tricks[-1][2]] == st.side[st.declarer] else 0
    assert st.side_points[st.side[st.declarer]] == won + last + kitty
    assert sum(st.side_points) == v.total
