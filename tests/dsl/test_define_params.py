"""Named expressions with parameters (docs/authoring.md, "Named parts of rules"):
`define: {"name(a, b: type)": rule}` used as `name(x, y)`, each argument checked in the
caller's rule (its number, and the type of a typed parameter), expanded where the parameter
stands; never recursive; every misuse located. Deal G5 (tests/helpers/rules.py: dealer 3,
seat 0 bids 15 and names spades)."""

from __future__ import annotations

import pytest

from taash.interpreter import VariantError, load_variant
from taash.interpreter.dsl.check import define_signature
from taash.interpreter.rulebook import render

from tests.rules.test_rules_expr import card_plays, g5_play, variant_file


def problems(tmp_path, text):
    p = tmp_path / "x.yaml"
    p.write_text('extends: "29"\nname: x\n' + text)
    with pytest.raises(VariantError) as e:
        load_variant(p)
    return [(q.line, q.column, q.message) for q in e.value.problems]


def test_a_seat_parameter_and_a_number_parameter(tmp_path):
    """after(s, k): the seat k seats after s, for k 0..2. Declarer 0: after(declarer, 2) = 2,
    after(dealer, 1) = next(3) = 0, after(declarer, 0) = 0."""
    for call, seat in (("after(declarer, 2)", 2), ("after(dealer, 1)", 0), ("after(declarer, 0)", 0)):
        v = variant_file(tmp_path, 'define:\n  "after(s: seat, k: number)": |\n'
                                   '    next(next(s)) if k == 2 else next(s) if k == 1 else s\n'
                                   f'play:\n  leader: {call}\n')
        assert g5_play(v).to_act == seat, call


def test_an_untyped_parameter_is_checked_with_each_argument(tmp_path):
    """own_suit(c) = in_suit(hand, suit(c)) given cards, not a card: the problem is in the
    named expression's text, at `c`, naming the rule that used it."""
    assert problems(tmp_path, 'define:\n  own_suit(c): in_suit(hand, suit(c))\n'
                              'play:\n  may_play: own_suit(hand)\n') == [
        (4, 35, "define.own_suit(c): argument 1 of suit() should be a card, not cards (used in "
                "play.may_play)")]


def test_untyped_parameters_follow_each_use(tmp_path):
    """follow(su) = in_suit(hand, su) otherwise hand, used with `led` and with `trump`.
    Seat 0 leads JS (when leading: follow(trump): his spades JS QS). Seat 1 then follows
    suit: follow(led) = his spades 9S KS."""
    v = variant_file(tmp_path, 'define:\n  follow(su): in_suit(hand, su) otherwise hand\n'
                               'play:\n  may_play: |\n'
                               '    when leading: follow(trump)\n    else: follow(led)\n')
    st = g5_play(v)
    assert card_plays(st) == {"play JS", "play QS"}
    st.apply("play JS")
    assert card_plays(st) == {"play 9S", "play KS"}


def test_an_argument_reads_the_callers_names(tmp_path):
    """A `let` of the rule and a quantifier's variable are arguments like any value:
    in_hand(c) = c in hand; seat 0 leads a card c for which some card of his of the same
    suit is above it: spades (JS over QS? no: QS, below JS), hearts (AH over 7H: 7H),
    diamonds (9D over AD: AD), clubs (9C over TC, a nine being above a ten: TC)."""
    v = variant_file(tmp_path, 'define:\n  "stronger(a: card, b: card)": |\n'
                               '    suit(a) == suit(b) and rank(a) > rank(b)\n'
                               'play:\n  may_play: |\n'
                               '    let mine = hand;\n'
                               '    when leading: those(c in mine: any(d in hand: stronger(d, c)))\n'
                               '    else: in_suit(hand, led) otherwise hand\n')
    assert card_plays(g5_play(v)) == {"play QS", "play 7H", "play AD", "play TC"}


def test_misuses_are_located(tmp_path):
    got = problems(tmp_path, 'define:\n  "bonus(n: number)": "n * 2"\n  loop(n): "loop(n) + 1"\n'
                             '  twice(x): "x + x"\n  plain: "1"\n'
                             'scoring:\n  effect: |\n'
                             '    when made: score[declarer_side] += bonus(true)\n'
                             '    else: score[declarer_side] -= bonus(1, 2) + bonus + loop(1) + twice(hand) + plain(1)\n')
    assert got == [
        (5, 13, "define.loop(n): 'loop' is defined in terms of itself (loop -> loop); named expressions "
                "cannot be recursive (used in scoring.effect)"),
        (6, 14, "define.twice(x): the left side of '+' should be a number, not cards (used in scoring.effect)"),
        (10, 46, "scoring.effect: argument 1 of bonus() (n) should be a number, not a condition"),
        (11, 35, "scoring.effect: bonus() takes 1 argument (n), not 2"),
        (11, 49, "scoring.effect: 'bonus' takes 1 argument (n): write bonus(...)"),
        (11, 81, "scoring.effect: 'plain' is a named expression without parameters: write plain, not plain(...)"),
    ]


@pytest.mark.parametrize("key, message", [
    ('"bad(n: colour)"', "define: 'bad(n: colour)': 'colour' is not a type of a parameter (one of number, "
                         "condition, seat, side, suit, rank, card, cards, seats, sides)"),
    ("dup(a, a)", "define: 'dup(a, a)': the parameter 'a' is named twice"),
    ("g(count)", "define: the parameter 'count' of 'g' has the name of the engine; choose another name"),
    ("g()", "define: 'g()': a named expression without parameters is written without brackets: g"),
    ("g(x, plain)", "define: the parameter 'plain' is also a named expression; choose another name"),
])
def test_a_bad_key_is_located_at_the_key(tmp_path, key, message):
    assert problems(tmp_path, f'define:\n  plain: "1"\n  {key}: "1"\n') == [(5, 3, message)]


def test_signature():
    assert define_signature("bonus(n: number, s)") == ("bonus", (("n", "number"), ("s", None)))
    assert define_signature("void") == ("void", None)
    with pytest.raises(ValueError):
        define_signature("bonus(n")


def test_the_rulebook_names_the_parameters(tmp_path):
    v = variant_file(tmp_path, 'define:\n  "bonus(n: number)": "n * 2"\nscoring:\n  effect: |\n'
                               '    when made: score[declarer_side] += bonus(1)\n'
                               '    else: score[declarer_side] -= bonus(2)\n')
    text = render(v)
    assert "- *bonus(n: number)*: n times 2" in text
