"""Smaller constructs of the rules language (docs/authoring.md): a rule or case that is
always false by an option's value is a warning, not an error; an unused named expression
is an error, as an unused named value in an effect is; a standing bid that makes the
lowest bid unreachable is a warning; `auction.all_pass: dealer` makes the dealer the
declarer at the lowest bid. Deal G5 (tests/helpers/rules.py: dealer 3, eldest 0)."""

from __future__ import annotations

import pytest

from taash.interpreter import State, VariantError, check_files, load_variant
from taash.interpreter.rulebook import render
from taash.interpreter.variant import check_warnings

from tests.engine.test_cli import taash
from tests.helpers import ROOT
from tests.helpers.rules import G5_HANDS, do


def write(tmp_path, body, name="x.yaml", base='"29"'):
    p = tmp_path / name
    p.write_text(f"extends: {base}\nname: x\n" + body)
    return p


def problems(path, options=None):
    with pytest.raises(VariantError) as e:
        load_variant(path, options)
    return [(q.line, q.column, q.message) for q in e.value.problems]


# -- never satisfied under one option value: a warning ---------------------------------------
STRICT = ("options:\n  strict: false\nauction:\n  may_double: strict and high_bidder != none\n"
          "play:\n  may_play: |\n    when strict and leading: not_in_suit(hand, trump) otherwise hand\n"
          "    else: in_suit(hand, led) otherwise hand\n")


def test_a_rule_false_by_an_options_value_loads_with_a_warning(tmp_path):
    p = write(tmp_path, STRICT)
    v = load_variant(p)                       # once a hard error: "can never be satisfied"
    assert v.may_double is None               # never asked, as a rule that is false
    assert [(w.line, w.column, w.message, w.warning) for w in v.warnings] == [
        (6, 15, "auction.may_double: this rule can never be satisfied with strict = false (it is always false)",
         True),
        (9, 10, "play.may_play: this case can never apply with strict = false (its condition is always false)",
         True)]
    assert check_files([p]) == []
    assert [w.message for w in check_warnings([p])] == [w.message for w in v.warnings]
    assert load_variant(p, {"strict": True}).warnings == ()
    r = taash("check", p)
    assert r.returncode == 0 and r.stdout.strip().splitlines()[-1] == f"{p}: ok (2 warnings)"


def test_the_warning_names_the_option_value_that_makes_it(tmp_path):
    p = write(tmp_path, STRICT.replace("strict: false", "strict: true"))
    assert load_variant(p).warnings == ()
    assert [w.message for w in check_warnings([p])] == [
        "with --set strict=false: auction.may_double: this rule can never be satisfied with strict = false "
        "(it is always false)",
        "with --set strict=false: play.may_play: this case can never apply with strict = false (its "
        "condition is always false)"]


def test_false_by_constants_alone_stays_an_error(tmp_path):
    p = write(tmp_path, "auction:\n  may_double: 1 == 2\n")
    assert problems(p) == [(4, 15, "auction.may_double: this rule can never be satisfied (it is always false)")]


# -- an unused named expression is an error -------------------------------------------------
def test_an_unused_define_is_an_error_at_its_key(tmp_path):
    p = write(tmp_path, 'define:\n  void: count(in_suit(hand, led)) == 0\n  "twice(n: number)": n * 2\n'
                        '  used: count(hand) > 0\n  by_used: used and leading\n'
                        'play:\n  may_play: hand if by_used else in_suit(hand, led) otherwise hand\n')
    assert problems(p) == [(4, 3, "define: 'void' is defined but never used: remove it, or use it in a rule"),
                           (5, 3, "define: 'twice' is defined but never used: remove it, or use it in a rule")]


def test_an_inherited_or_preset_define_is_not_reported(tmp_path):
    # 28-no-undertrump's `void` and `lower_trumps`, no longer used once may_play is replaced
    p = write(tmp_path, "play:\n  may_play: in_suit(hand, led) otherwise hand\n", base='"house/28-no-undertrump"')
    assert load_variant(p).name == "x"
    # used only in a preset's rule, which the default options leave out
    p = write(tmp_path, "options:\n  hard: false\ndefine:\n  void: count(in_suit(hand, led)) == 0\n"
                        "presets:\n  - when: hard\n    set:\n      auction:\n        may_pass: void\n", "y.yaml")
    assert load_variant(p).name == "x"
    assert load_variant(p, {"hard": True}).name == "x"


# -- a standing bid that makes the lowest bid unreachable -----------------------------------
@pytest.mark.parametrize("body, message", [
    ("auction:\n  standing_bid: 15\n",   # 29: min_bid 15
     "auction.standing_bid 15: the dealer holds it before any call and a bid must be above the high bid, so "
     "min_bid 15 is unreachable (no bid of 15 is ever offered); to let the dealer play at the lowest bid when "
     "all pass, write `all_pass: dealer` without a standing bid"),
    ("auction:\n  standing_bid: 17\n  may_equal: true\n",
     "auction.standing_bid 17: the dealer holds it before any call and a bid must be above the high bid (or "
     "equal it where may_equal holds), so min_bid 15 is unreachable (no bid of 15 to 16 is ever offered); to "
     "let the dealer play at the lowest bid when all pass, write `all_pass: dealer` without a standing bid"),
])
def test_a_standing_bid_over_the_lowest_bid_is_a_warning(tmp_path, body, message):
    p = write(tmp_path, body)
    [w] = check_warnings([p])
    assert (w.line, w.column, w.message, w.warning) == (4, 17, message, True)


def test_a_standing_bid_below_the_lowest_bid_says_nothing(tmp_path):
    assert check_warnings([write(tmp_path, "auction:\n  standing_bid: 14\n")]) == []
    assert check_warnings([write(tmp_path, "auction:\n  standing_bid: 15\n  may_equal: true\n", "y.yaml")]) == []
    assert check_warnings([ROOT / "variants" / "304.yaml"]) == []     # standing 150, min_bid 155


# -- if all pass, the dealer plays at the lowest bid ---------------------------------------
def test_all_pass_the_dealer_plays_at_the_lowest_bid(tmp_path):
    # 29's may_pass makes the dealer bid when the others passed: here any seat may pass
    v = load_variant(write(tmp_path, "auction:\n  all_pass: dealer\n  may_pass: true\n"))
    st = State(v, dealer=3, hands=[list(h) for h in G5_HANDS])
    do(st, "0 pass", "1 pass", "2 pass", "3 pass")
    # 29's min_bid is 15: the dealer, seat 3, is the declarer at 15 and chooses trump
    assert (st.phase, st.to_act, st.declarer, st.bid, st.target) == ("trump", 3, 3, 15, 15)
    assert "If every player passes, the dealer is the declarer at the lowest bid, 15." in render(v)
    # no deal is thrown in, so the rulebook does not say one is (it once said both)
    assert "thrown in" not in render(v)
    plain = load_variant(write(tmp_path, "auction:\n  may_pass: true\n", "y.yaml"))
    thrown = State(plain, dealer=3, hands=[list(h) for h in G5_HANDS])
    do(thrown, "0 pass", "1 pass", "2 pass", "3 pass")
    assert thrown.is_terminal and thrown.declarer == -1       # without it: thrown in
    assert ("If the auction ends with no bid, the deal is thrown in: nothing is scored, and the next "
            "deal is dealt as after any other.") in render(plain)
    assert "If every player passes" not in render(plain)


def test_all_pass_dealer_with_a_standing_bid_or_denominations_is_refused(tmp_path):
    assert problems(write(tmp_path, "auction:\n  all_pass: dealer\n  standing_bid: 14\n")) == [
        (4, 13, "with a standing bid the dealer already holds a bid when all pass: remove `all_pass: dealer` "
                "(or the standing bid)")]


# -- if all pass, a seat the rules name plays at the lowest bid ------------------------------
def test_all_pass_a_seat_the_rule_names_plays_at_the_lowest_bid(tmp_path):
    """`all_pass: {seat: previous(dealer)}`: G5 dealt by seat 3, the four pass; the seat
    before the dealer, 2 (the dealer's right), is the declarer at 29's lowest bid, 15, and
    chooses trump. Dealt by seat 0, the seat before it is 3. The rulebook says so."""
    v = load_variant(write(tmp_path, "auction:\n  all_pass: {seat: previous(dealer)}\n  may_pass: true\n"))
    st = State(v, dealer=3, hands=[list(h) for h in G5_HANDS])
    do(st, "0 pass", "1 pass", "2 pass", "3 pass")
    assert (st.phase, st.to_act, st.declarer, st.bid, st.target) == ("trump", 2, 2, 15, 15)
    st = State(v, dealer=0, hands=[list(h) for h in G5_HANDS])
    do(st, "1 pass", "2 pass", "3 pass", "0 pass")
    assert (st.to_act, st.declarer, st.bid) == (3, 3, 15)
    assert "If every player passes, the declarer at the lowest bid, 15, is: the dealer's right." in render(v)
    assert "thrown in" not in render(v)


def test_all_pass_seat_is_checked_as_a_seat_for_the_table(tmp_path):
    """The rule names a seat (none is refused, as for `auction.first`); an unknown form of
    `all_pass` is one clear problem at it; a standing bid is refused with it too."""
    assert problems(write(tmp_path, "auction:\n  all_pass: {seat: none}\n")) == [
        (4, 20, "auction.all_pass.seat: this rule names no seat (it is always none); it must name a seat")]
    assert problems(write(tmp_path, "auction:\n  all_pass: {player: eldest}\n", "y.yaml")) == [
        (4, 13, 'auction.all_pass: {"player": "eldest"} is not one of throw_in, dealer, {seat: RULE} '
                "(what happens when every player passes)")]
    assert problems(write(tmp_path, "auction:\n  all_pass: {seat: eldest}\n  standing_bid: 14\n", "z.yaml")) == [
        (4, 13, "with a standing bid the dealer already holds a bid when all pass: remove `all_pass` "
                "(or the standing bid)")]


@pytest.mark.parametrize("key,rule,column", [
    ("auction:\n  all_pass: {seat: ", "me}", 20),      # 19 characters before `me`
    ("auction:\n  first: ", "me", 10),                 # 9
    ("play:\n  leader: ", "dealer if trump == none else me", 40),   # 10 + 29
])
def test_a_table_seat_read_from_me_is_refused_at_load(tmp_path, key, rule, column):
    """A rule that names a seat for the table is asked with `me` none, so `me` where its
    value is given names no seat: refused at load at that `me` (line 4), not found only
    when a deal needs it."""
    (prob,) = problems(write(tmp_path, key + rule + "\n"))
    assert prob[:2] == (4, column) and "`me` is none here" in prob[2] and "must name a seat" in prob[2]
