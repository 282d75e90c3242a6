"""`cards_won(seat or side)`: the cards of the completed tricks a seat or a side has won,
a set of cards for count, those, any, all (docs/authoring.md, "Cards won"). Deal G5
(tests/helpers/rules.py): dealer 3, seat 0 bids 15 and names spades; its eight tricks,
winners and cards are worked out there by hand."""

from __future__ import annotations

import pytest

from taash.interpreter import VariantError, load_variant
from taash.interpreter.rulebook import render

from tests.helpers.rules import G5_TRICKS, play_tricks
from tests.rules.test_rules_expr import g5_play, variant_file

# tens: TS in trick 1 (won by seat 0), TH in 3 (seat 3), TD in 6 (seat 1), TC in 8 (seat 2)
TENS = 'count(those(c in cards_won({}): rank(c) == "T"))'


def test_tens_and_cards_captured_by_a_side_and_a_seat(tmp_path):
    """Side 0 (seats 0, 2) took TS and TC: 2 tens, so 2 * 10; seat 0 won tricks 1 and 5,
    8 cards: 28 for side 0. Seat 3 (the dealer) won tricks 3 (TH KH 9H AH) and 7 (8C 7C JC 9C): one
    jack, 1 for side 1. Scores are per side, shown per seat."""
    v = variant_file(tmp_path, 'scoring:\n  effect: |\n'
                               f'    score[declarer_side] += {TENS.format("declarer_side")} * 10 '
                               '+ count(cards_won(declarer))\n'
                               '    score[defenders_side] += count(those(c in cards_won(dealer): rank(c) == "J"))\n')
    st = play_tricks(g5_play(v), G5_TRICKS)
    assert st.is_terminal
    assert st.result()["score_change"] == [28, 1, 28, 1]


def test_during_play_the_cards_won_so_far(tmp_path):
    """After trick 1 (JS 9S AS TS to seat 0), seat 0 leads trick 2: a made-up may_play
    lets a player lead only a card of a suit his side has captured a card of, else any:
    seat 0's side has only spades: QS (his spade left). Seat 1's side has none: any card
    that follows suit (KS)."""
    v = variant_file(tmp_path, 'play:\n  may_play: |\n'
                               '    when leading: those(c in hand: any(w in cards_won(my_side): '
                               'suit(w) == suit(c))) otherwise hand\n'
                               '    else: in_suit(hand, led) otherwise hand\n')
    st = play_tricks(g5_play(v), G5_TRICKS[:1])
    assert st.to_act == 0 and [a for a in st.legal_actions() if a.startswith("play")] == ["play QS"]
    st.apply("play QS")
    assert [a for a in st.legal_actions() if a.startswith("play")] == ["play KS"]


def test_a_wrong_argument_is_located(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text('extends: "29"\nname: x\nscoring:\n  effect: |\n'
                 '    when made: score[declarer_side] += count(cards_won(trump))\n'
                 '    else: score[declarer_side] -= count(cards_won(me, me))\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert [(q.line, q.column, q.message) for q in e.value.problems] == [
        (5, 56, "scoring.effect: argument 1 of cards_won() should be a seat or a side, not a suit"),
        (6, 41, "scoring.effect: cards_won() takes 1 argument (seat or side), not 2"),
    ]


def test_the_rulebook_words(tmp_path):
    v = variant_file(tmp_path, 'scoring:\n  effect: |\n'
                               f'    score[declarer_side] += {TENS.format("declarer_side")}\n')
    assert ("the score of the declarer's side goes up by the number of (those c among the cards won "
            "by the declarer's side for which the rank of c is ten)") in render(v)
