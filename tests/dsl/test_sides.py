"""Going over the sides: the name `sides` (every side), in an effect's `for` and in the
quantifiers `any`, `all`, `those` (docs/authoring.md "Seats and sides").

Expected values are worked out by hand on the hand-built deals of tests/helpers/rules.py
(dealer 3): COURT (seat 0 wins all eight tricks and all 29 points of 29) and G5 (two
tricks each; side 0 takes 15 points, side 1 the other 14 of 29, the last trick's point
included).
"""

from __future__ import annotations

import textwrap

from taash.interpreter import Match, load_variant
from taash.interpreter.rulebook import render
from taash.interpreter.wording import rule_words

from tests.dsl.test_broken_files import check, first_problem
from tests.dsl.test_variables import court_deal, g5_deal

HEAD = 'extends: "29"\nname: sides\n'   # lines 1 and 2 of the files below

EACH_SIDE = """\
match:
  ends: deals_played >= 10
scoring:
  effect: |
    for s in sides: score[s] += 100 * tricks_won(s) + points(s)
    when count(those(s in sides: points(s) >= 15)) == 1 and all(s in sides: s in sides): score[declarer_side] += 1000
"""


def write(tmp_path, body: str, name: str = "sides.yaml"):
    p = tmp_path / name
    p.write_text(HEAD + textwrap.dedent(body))
    return p


def test_for_each_side_scores_both_sides(tmp_path):
    """G5: each side takes 4 tricks, side 0 15 points, side 1 14: [415, 414], and one side
    (side 0, the declarer's) has 15 points or more: +1000 to side 0. COURT: side 0 takes 8
    tricks and 29 points (+829, +1000), side 1 nothing."""
    v = load_variant(write(tmp_path, EACH_SIDE))
    m = Match(v, seed=1)
    g5_deal(m, 16)
    assert m.scores == [1415, 414]
    court_deal(m)
    assert m.scores == [1415 + 829 + 1000, 414]


def test_sides_are_one_per_seat_each_for_himself(tmp_path):
    """With `partnership: individual` seat s is side s: `sides` holds four sides, so
    `count(sides)` is 4 and a `for` over them runs four times: G5 gives each seat two
    tricks, so each side scores 4 * 10 + 2."""
    p = tmp_path / "solo.yaml"
    p.write_text(HEAD + textwrap.dedent("""\
        partnership: individual
        match:
          score: side
        scoring:
          effect: |
            for s in sides: score[s] += count(sides) * 10 + tricks_won(s)
        """))
    v = load_variant(p)
    assert v.sides == 4
    m = Match(v, seed=1)
    g5_deal(m, 16)
    assert m.scores == [42, 42, 42, 42]


def test_the_rulebook_says_for_each_side():
    assert rule_words("for s in sides: score[s] += tricks_won(s)", effect=True) == (
        "- for each side s: the score of s goes up by the number of tricks won by s")
    assert rule_words("any(s in sides: points(s) > 20)") == (
        "for some s among every side, the points won by s are more than 20")


def test_the_rulebook_prints_the_loop(tmp_path):
    book = render(load_variant(write(tmp_path, EACH_SIDE)))
    assert ("- for each side s: the score of s goes up by 100 times the number of tricks won by s "
            "plus the points won by s") in book


def test_a_side_is_not_a_seat(tmp_path):
    """The variable of a `for` over sides is a side: a seat function refuses it."""
    p = write(tmp_path, """\
        scoring:
          effect: |
            for s in sides: score[s] += seat_tricks(s)
        """)
    check(p, 5, 45, "argument 1 of seat_tricks() should be a seat, not a side")


def test_a_did_you_mean_offers_no_name_that_is_none_there(tmp_path):
    """`my_side` is read from `me`, the declarer in `scoring.effect`: offered for a
    misspelling in 29 (a contract every deal), not in Call Break (no auction, no
    contract: `me` is none there); `sides` is offered for `sids` in either."""
    body = "scoring:\n  effect: |\n    for s in seats: when my_sid == side(s): score[{}] += 1\n"
    p = tmp_path / "c29.yaml"
    p.write_text('extends: "29"\nname: x\n' + body.format("side(s)"))
    check(p, 5, 26, "scoring.effect: unknown name 'my_sid' (did you mean 'my_side', of type side?)")
    p = tmp_path / "cb.yaml"
    p.write_text('extends: "call-break"\nname: x\n' + body.format("s"))
    check(p, 5, 26, "scoring.effect: unknown name 'my_sid'")
    assert first_problem(p).message.endswith("unknown name 'my_sid'")   # nothing offered
    p.write_text('extends: "call-break"\nname: x\nscoring:\n  effect: |\n    for s in sids: score[s] += 1\n')
    check(p, 5, 14, "scoring.effect: unknown name 'sids' (did you mean 'sides'?)")


def test_a_number_or_a_seat_where_a_side_is_wanted_says_how_to_name_one(tmp_path):
    """`score[0]` (a side has no number literal) and `score[dealer]` (a seat) in 29, which
    keeps scores per side: each error says what to write instead."""
    p = write(tmp_path, "scoring:\n  effect: |\n    score[0] += 1\n")
    check(p, 5, 11, "scoring.effect: index of 'score' should be a side, not a number (this match keeps "
                    "scores per side; a side is named, not numbered: my_side, declarer_side, side(SEAT), "
                    "or each in turn with `for s in sides`)")
    p = write(tmp_path, "match:\n  ends: score[dealer] > 5\n", "m.yaml")
    check(p, 4, 15, "match.ends: an index of the score should be a side, not a seat (this match keeps "
                    "scores per side; the side of a seat is side(SEAT))")
