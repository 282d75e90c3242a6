"""Broken variant files: each must raise VariantError whose first problem has the exact
file, line and column (1-based, worked out by hand from the text below) and a message.

Most files extend the shipped 29 and change one thing. Line numbers are given in the
comments next to each text; columns are counted from 1.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from taash.interpreter import VariantError, load_variant
from taash.interpreter.loader import VARIANTS_DIR, Problem

HEAD = 'extends: "29"\nname: broken\n'   # lines 1 and 2 of most files below


def write(tmp_path: Path, text: str, name: str = "broken.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def first_problem(path, options=None) -> Problem:
    with pytest.raises(VariantError) as info:
        load_variant(path, options)
    err = info.value
    assert err.problems, "VariantError without problems"
    return err.problems[0]


def check(path: Path, line: int, column: int, fragment: str, file: Path | None = None, options=None):
    pr = first_problem(path, options)
    want_file = str((file or path).resolve())
    assert (pr.file, pr.line, pr.column) == (want_file, line, column), pr.format(False)
    assert fragment in pr.message, pr.message
    return pr


# -- YAML level ------------------------------------------------------------------------

def test_yaml_syntax_error(tmp_path):
    # line 2: `name: broken: really`; the second ':' is column 13
    p = write(tmp_path, 'extends: "29"\nname: broken: really\n')
    check(p, 2, 13, "YAML: mapping values are not allowed here")


def test_each_yaml_anchor_and_alias_where_it_is(tmp_path):
    # from a fresh-eyes tester: the error was given once per use, at the anchor, never at
    # the alias. Line 3: `a: &a [x, y]`, line 4: `b: [*a, *a]`
    path = write(tmp_path, HEAD + "a: &a [x, y]\nb: [*a, *a]\n")
    with pytest.raises(VariantError) as info:
        load_variant(path)
    assert [(p.line, p.column, p.message.split(":")[0]) for p in info.value.problems] == [
        (3, 4, "YAML anchor &a"), (4, 5, "YAML alias *a"), (4, 9, "YAML alias *a")]
    # past twenty, one problem says there are more: line 4 holds 30 aliases `*a, `
    path = write(tmp_path, HEAD + "a: &a [x, y]\nb: [" + ", ".join(["*a"] * 30) + "]\n")
    with pytest.raises(VariantError) as info:
        load_variant(path)
    ps = info.value.problems
    assert len(ps) == 21 and ps[-1].message == "YAML: more anchors and aliases from here"
    assert (ps[-1].line, ps[-1].column) == (4, 5 + 4 * 19)     # the 20th alias


def test_duplicate_key(tmp_path):
    p = write(tmp_path, HEAD + textwrap.dedent("""\
        auction:
          min_bid: 15
          min_bid: 16
        """))
    # line 5: `  min_bid: 16`, the repeated key at column 3
    check(p, 5, 3, "duplicate key 'min_bid'")


# -- schema ------------------------------------------------------------------------------

COMPLETE_WITHOUT_MATCH = textwrap.dedent("""\
    # a whole game, without extends:, that lacks the match: section
    name: lonely
    players: 4
    deck:
      suits: [S, H, D, C]
      ranks: [J, "9", A, T, K, Q, "8", "7"]
      points: {J: 3, "9": 2, A: 1, T: 1}
      last_trick: 1
      total: 29
    flow: [{deal: [4]}, auction, trump, {deal: [4]}, play]
    auction:
      min_bid: 15
      max_bid: 29
      may_pass: "true"
      may_bid: number > high_bid
      ends: high_bid == max_bid or (bids > 0 and passes == players - 1)
    trump:
      mode: open
    play:
      may_play: hand
    scoring:
      effect: "when made: score[declarer_side] += 1"
    """)


def test_missing_required_key(tmp_path):
    # the root mapping starts at its first key, `name` on line 2 (line 1 is a comment)
    p = write(tmp_path, COMPLETE_WITHOUT_MATCH)
    pr = check(p, 2, 1, "'match' is required")
    assert pr.message.startswith("the file:")
    # control: with the section the same file loads
    ok = write(tmp_path, COMPLETE_WITHOUT_MATCH + "match:\n  ends: max(score) >= 6\n", "ok.yaml")
    assert load_variant(ok).name == "lonely"


def test_wrong_type(tmp_path):
    # line 3: `players: four`, the value at column 10
    p = write(tmp_path, HEAD + "players: four\n")
    check(p, 3, 10, 'players: "four" should be a whole number')


def test_unknown_nested_key(tmp_path):
    # line 4: `  may_plya: hand`; an unknown key is located at the key itself (column 3)
    p = write(tmp_path, HEAD + "play:\n  may_plya: hand\n")
    check(p, 4, 3, "unknown key 'may_plya'")


def test_each_unknown_key_where_it_is_and_the_rest_checked_too(tmp_path):
    # lines 3-7: auction: / min_bidd: 16 / max_bidd: 20 / scoring: / made: ... >=>= target
    p = write(tmp_path, HEAD + "auction:\n  min_bidd: 16\n  max_bidd: 20\nscoring:\n"
                              "  made: points(declarer_side) >=>= target\n")
    with pytest.raises(VariantError) as info:
        load_variant(p)
    got = [(pr.line, pr.column, pr.message.split(" (allowed")[0]) for pr in info.value.problems]
    assert got == [(4, 3, "auction.min_bidd: unknown key 'min_bidd'; did you mean 'min_bid'?"),
                   (5, 3, "auction.max_bidd: unknown key 'max_bidd'; did you mean 'max_bid'?"),
                   # `  made: points(declarer_side) >=>= target`: the second '>=' at column 33
                   (7, 33, "scoring.made: unexpected '>='; expected '(', a name, a number, a quoted string, "
                           "all, any")]


def test_bad_option(tmp_path):
    pr = first_problem("29", {"nope": 1})
    assert pr.file == str((VARIANTS_DIR / "29.yaml").resolve())
    # an option is not a place in the file: line 0, printed without a line of context
    assert (pr.line, pr.column) == (0, 0)
    assert "unknown option 'nope'" in pr.message
    assert pr.format() == f"{pr.file}: error: {pr.message}"


def test_an_item_written_twice_is_named_where_it_is_repeated(tmp_path):
    # from a fresh-eyes tester: the caret was at the list's '['. Line 4:
    # `  ranks: [J, "9", A, T, K, Q, "8", "7", "7"]`, the second "7" at column 41
    p = write(tmp_path, HEAD + 'deck:\n  ranks: [J, "9", A, T, K, Q, "8", "7", "7"]\n')
    pr = first_problem(p)
    assert (pr.line, pr.column) == (4, 41)
    assert pr.message == 'deck.ranks: "7" is written twice (item 8 and item 9)'


# -- DSL ------------------------------------------------------------------------------------

def test_a_rule_that_ends_too_early_is_marked_where_it_ends(tmp_path):
    # from a fresh-eyes tester: the caret was under the last word. Line 4:
    # `  may_bid: number > high_bid and`, whose last character is at column 32
    pr = first_problem(write(tmp_path, HEAD + "auction:\n  may_bid: number > high_bid and\n"))
    assert (pr.line, pr.column) == (4, 33)
    assert pr.message.startswith("auction.may_bid: unexpected end of the rule; expected '('")
    # a block: the rule's last line (6) is `      (`, its '(' at column 7
    pr = first_problem(write(tmp_path, HEAD + "auction:\n  may_bid: |\n    number > high_bid and\n      (\n"))
    assert (pr.line, pr.column) == (6, 8)


def test_quantifiers_nest_at_most_two_deep(tmp_path):
    # from a fresh-eyes tester: eight nested any(...) passed the check and made one deal
    # of 28 take 42 s. Line 5: `    any(a in hand: any(b in hand: any(c in hand: a == c)))`,
    # the third any at column 35
    def rule(text):
        return HEAD + f"auction:\n  may_bid: |\n    {text}\n"
    pr = first_problem(write(tmp_path, rule("any(a in hand: any(b in hand: any(c in hand: a == c)))")))
    assert (pr.line, pr.column) == (5, 35)
    assert pr.message.startswith("auction.may_bid: any(...) inside 2 others: any, all and those nest at most 2 deep")
    # two deep, and two side by side inside one, load
    load_variant(write(tmp_path, rule("any(a in hand: any(b in hand: a == b))"), "two.yaml"))
    load_variant(write(tmp_path, rule("any(a in hand: any(b in hand: a == b) and all(c in hand: c == a))"),
                       "side.yaml"))


def test_dsl_syntax_error_in_block_scalar(tmp_path):
    p = write(tmp_path, HEAD + textwrap.dedent("""\
        play:
          may_play: |
            when leading: hand
            else: in_suit(hand led) otherwise hand
        """))
    # line 6 is the rule's 2nd line, indented 4; in the rule `led` is at column 20
    # ("else: " 1-6, "in_suit(" 7-14, "hand" 15-18), so column 4 + 20 = 24 of the file
    check(p, 6, 24, "play.may_play: unexpected 'led'")


def test_dsl_unknown_name_with_suggestion(tmp_path):
    p = write(tmp_path, HEAD + "auction:\n  may_bid: number > high_bd\n")
    # line 4: the value starts at column 12; `high_bd` is at column 10 of the rule -> 21
    check(p, 4, 21, "unknown name 'high_bd' (did you mean 'high_bid'?)")


def test_dsl_error_in_double_quoted_scalar(tmp_path):
    p = write(tmp_path, HEAD + 'auction:\n  may_bid: "number > hgh_bid"\n')
    # line 4: the quote is at column 12, the rule starts at 13; `hgh_bid` at 13 + 9 = 22
    check(p, 4, 22, "unknown name 'hgh_bid' (did you mean 'high_bid'?)")


def test_dsl_error_on_second_line_of_plain_multiline_scalar(tmp_path):
    p = write(tmp_path, HEAD + textwrap.dedent("""\
        auction:
          may_bid: number > high_bid and
            hgh_bid > 0
        """))
    # `hgh_bid` is written on line 5, column 5
    check(p, 5, 5, "unknown name 'hgh_bid'")


def test_dsl_error_on_second_line_of_folded_scalar(tmp_path):
    p = write(tmp_path, HEAD + textwrap.dedent("""\
        auction:
          may_bid: >
            number > high_bid and
            hgh_bid > 0
        """))
    # `hgh_bid` is written on line 6, column 5
    check(p, 6, 5, "unknown name 'hgh_bid'")


def test_wrong_arity(tmp_path):
    p = write(tmp_path, HEAD + "play:\n  counts_as_trump: suit(card, trump) == trump\n")
    # line 4: `  counts_as_trump: ` is 19 characters; the call starts at column 20
    check(p, 4, 20, "suit() takes 1 argument (card), not 2")


def test_type_error_number_plus_condition(tmp_path):
    p = write(tmp_path, HEAD + "match:\n  ends: max(score) >= 6 + (bids > 0)\n")
    # line 4: the value starts at column 9; `bids > 0` is at column 20 of the rule -> 28
    check(p, 4, 28, "the right side of '+' should be a number, not a condition")


def test_type_error_cards_equals_number(tmp_path):
    p = write(tmp_path, HEAD + "auction:\n  may_pass: hand == 3\n")
    # line 4: the comparison starts with the value, column 13
    check(p, 4, 13, "cannot compare cards with a number")


def test_rule_never_satisfied(tmp_path):
    p = write(tmp_path, HEAD + "auction:\n  may_bid: number > 5 and 1 > 2\n")
    # line 4: the whole rule, from column 12
    check(p, 4, 12, "can never be satisfied")


def test_name_from_another_rule(tmp_path):
    p = write(tmp_path, HEAD + "play:\n  may_play: hand if number > 3 else hand\n")
    # line 4: the value starts at column 13; `number` at column 9 of the rule -> 21
    check(p, 4, 21, "'number' is only available in auction.may_bid")


def test_unknown_rank_literal(tmp_path):
    p = write(tmp_path, HEAD + textwrap.dedent("""\
        declarations:
          royals:
            when: holds("X", trump) and my_side_tricks > 0
        """))
    # line 5: the value starts at column 11; the string at column 7 of the rule -> 17
    check(p, 5, 17, '"X" is not a suit, rank or card of this deck')


def test_inherited_rule_broken_by_child_is_reported_at_extends_naming_the_parent(tmp_path):
    # without kings, 29's royals (variants/29.yaml line 45) names a rank that is gone
    p = write(tmp_path, HEAD + textwrap.dedent("""\
        deck:
          ranks: [J, "9", A, T, Q, "8", "7"]
        flow:
          - deal: [4]
          - auction
          - trump
          - deal: [3]
          - play
        """))
    # `    when: holds("K", trump) ...` (line 45 today; looked up in case 29.yaml moves):
    # the value at column 11, the string at 11 + 6 = 17
    parent = VARIANTS_DIR / "29.yaml"
    line = next(i for i, ln in enumerate(parent.read_text().splitlines(), 1)
                if ln.startswith('    when: holds("K", trump)'))
    # reported at the child's `extends: "29"` (line 1, the quoted value at column 10),
    # naming the parent's line and column; the context shows both lines
    pr = check(p, 1, 10, f'in {parent.resolve()}:{line}:17 (inherited through `extends:`): '
                         'declarations.royals.when: "K" is not a suit, rank or card of this deck')
    assert pr.origin == (str(parent.resolve()), line, 17)
    out = pr.format().splitlines()
    assert out[1:3] == ['    extends: "29"', "    " + " " * 9 + "^"]
    assert out[3] == "    " + parent.read_text().splitlines()[line - 1]
    assert out[4] == "    " + " " * 16 + "^"


# -- semantic checks ---------------------------------------------------------------------------

def test_deck_points_do_not_match_total(tmp_path):
    p = write(tmp_path, HEAD + "deck:\n  total: 30\n")
    # line 4: `  total: 30`, the value at column 10; 28 card points + 1 = 29
    check(p, 4, 10, "the deck's points add up to 28 + 1 for the last trick = 29, not 30")


def test_flow_deals_wrong_number_of_cards(tmp_path):
    p = write(tmp_path, HEAD + textwrap.dedent("""\
        flow:
          - deal: [4]
          - auction
          - trump
          - deal: [3]
          - play
        """))
    # the flow sequence starts at its first `-`, line 4 column 3
    check(p, 4, 3, "the flow deals 7 cards to each of 4 players (28), but the deck has 32")


def test_min_bid_above_max_bid(tmp_path):
    p = write(tmp_path, HEAD + "auction:\n  min_bid: 30\n")
    # line 4: the value at column 12; max_bid 29 comes from 29.yaml
    check(p, 4, 12, "min_bid 30 is above max_bid 29")


# -- extends -------------------------------------------------------------------------------------

def test_extends_cycle(tmp_path):
    a = write(tmp_path, "extends: b.yaml\nname: a\n", "a.yaml")
    b = write(tmp_path, "name: b\nextends: a.yaml\n", "b.yaml")
    # the cycle closes at b.yaml line 2, the value at column 10: reported at a.yaml's
    # `extends:` (line 1, column 10), naming b.yaml's place
    check(a, 1, 10, f"in {b.resolve()}:2:10 (inherited through `extends:`): "
                    "`extends:` makes a cycle: a.yaml -> b.yaml -> a.yaml")


def test_extends_unknown_variant(tmp_path):
    p = write(tmp_path, 'extends: "no-such-variant"\nname: broken\n')
    # line 1: the quoted value starts at column 10
    check(p, 1, 10, "no variant named 'no-such-variant'")


# -- Problem.format ---------------------------------------------------------------------------------

def test_problem_format_shows_line_and_caret(tmp_path):
    p = write(tmp_path, HEAD + "auction:\n  may_bid: number > high_bd\n")
    pr = first_problem(p)
    out = pr.format().splitlines()
    assert out[0] == f"{p.resolve()}:4:21: error: {pr.message}"
    assert out[1] == "    " + "  may_bid: number > high_bd"
    assert out[2] == "    " + " " * 20 + "^"
    assert len(out) == 3
    assert pr.format(False) == out[0]


# -- found by a new user --------------------------------------------------------------------

def test_mistake_inside_a_preset_is_found_by_check(tmp_path):
    from taash.interpreter import check_files
    p = write(tmp_path, HEAD + "options:\n  long: false\npresets:\n  - when: long\n    set:\n"
                              "      match: {endz: 1}\n")
    problems = check_files([p])
    assert len(problems) == 1
    pr = problems[0]
    # line 8: `      match: {endz: 1}`; the key endz at column 15
    assert (pr.line, pr.column) == (8, 15)
    assert pr.message.startswith("with --set long=true: match.endz: unknown key 'endz'")


def test_null_removing_a_required_section_points_at_the_null(tmp_path):
    p = write(tmp_path, HEAD + "auction: null\n")
    check(p, 3, 10, "'auction' is required")


def test_bad_key_name_points_at_the_key_in_the_child(tmp_path):
    p = write(tmp_path, HEAD + "deck:\n  points: {J: 3, Z: 1}\n")
    check(p, 4, 18, 'points given for "Z", which is not a rank, a suit or a card')


def test_unquoted_rank_gets_a_hint(tmp_path):
    p = write(tmp_path, HEAD + 'deck:\n  ranks: [J, 9, A, T, K, Q, "8", "7"]\n')
    check(p, 4, 14, '(write it in quotes: "9")')


def test_rule_given_as_a_mapping_gets_a_hint(tmp_path):
    p = write(tmp_path, HEAD + "play:\n  may_play:\n    when leading: hand\n")
    check(p, 5, 5, "put `|` after the colon")


def test_unknown_declaration_name_in_declared(tmp_path):
    p = write(tmp_path, HEAD + 'scoring:\n  made: declared("royal") > 0\n')
    check(p, 4, 18, 'no declaration named "royal" (this variant\'s: royals)')


def test_score_index_must_match_the_score_unit(tmp_path):
    p = write(tmp_path, 'extends: "304"\nname: x\nscoring:\n  effect: score[declarer_side] += 1\n')
    check(p, 4, 17, "index of 'score' should be a seat, not a side")


def test_a_widow_needs_an_exchange(tmp_path):
    p = write(tmp_path, 'extends: "304-solo"\nname: x\nflow: [{deal: [5, 5]}, {widow: 2}, auction, trump, play]\n')
    check(p, 3, 7, "a widow needs an 'exchange' step")


@pytest.mark.parametrize("rule", ["not " * 60 + "true", "1 + " * 60 + "1 > 0"])
def test_deeply_nested_rule_is_a_located_error(tmp_path, rule):
    p = write(tmp_path, HEAD + f"scoring:\n  made: {rule}\n")
    pr = first_problem(p)
    assert pr.line == 4 and "nests more than 40 levels" in pr.message


def test_option_with_an_engine_name(tmp_path):
    p = write(tmp_path, HEAD + "options:\n  trump: 3\n")
    check(p, 4, 10, "option 'trump' has the name of an engine value")


# -- seats, the trick, card sets, let and define ----------------------------------
# Each rule below is a `|` block starting on line 5 (after HEAD and two lines), indented
# 4 spaces: a column c of the rule's text is column c + 4 of the file.
def block(key: str, rule: str, section: str = "play") -> str:
    return HEAD + f"{section}:\n  {key}: |\n" + "".join(f"    {ln}\n" for ln in rule.split("\n"))


@pytest.mark.parametrize("rule, line, column, fragment", [
    # a quantifier goes over a set: `score` (col 10 of the rule) is a list
    ("any(s in score: true)", 5, 14, "any(...) goes over cards, seats or sides, not a list"),
    # its variable may not take an engine name: `me` at col 5
    ("any(me in seats: true)", 5, 9, "'me' is a name of the engine; choose another name"),
    # the condition of a quantifier is a condition: `s` (col 17) is a seat
    ("all(s in seats: s)", 5, 21, "the condition of all(...) should be a condition, not a seat"),
    # a misspelt function of seats gets the closest name: `oponents` at col 7
    ("count(oponents(me)) > 0", 5, 11, "unknown function 'oponents' (did you mean 'opponents'?)"),
    # beats() compares cards: `me` (col 7) is a seat
    ("beats(me, winning_card)", 5, 11, "argument 1 of beats() should be a card, not a seat"),
    # a union of cards and seats: `seats` at col 19
    ("count(union(hand, seats)) > 0", 5, 23, "argument 2 of union() should be cards, not seats"),
    # ranks compare with ranks only: the comparison starts at col 1
    ("rank(winning_card) > 3", 5, 5, "'>' compares numbers (or two ranks), not a rank and a number"),
    # a seat is named, never numbered: `1` (col 1) is a number
    ("1 in opponents(me)", 5, 5, "'in' needs a card and cards (a seat and seats"),
    # let without its `;`: the next part (`n`, line 2 col 1) is unexpected
    ("let n = count(hand)\nn > 0", 6, 5, "unexpected 'n'"),
    # a let may not take an engine name: `hand` at col 5
    ("let hand = 1;\nhand > 0", 5, 9, "'hand' is a name of the engine; choose another name for a `let`"),
])
def test_issue_11_construct_mistakes(tmp_path, rule, line, column, fragment):
    p = write(tmp_path, block("may_expose", rule))
    check(p, line, column, fragment)


def test_define_recursion_is_refused_where_it_closes(tmp_path):
    # line 4 `  a: b + 1`, line 5 `  b: a + 1`: expanding a reaches b, whose `a` (column
    # 6, where b's value starts) closes the cycle
    p = write(tmp_path, HEAD + "define:\n  a: b + 1\n  b: a + 1\nscoring:\n  made: a > 0\n")
    check(p, 5, 6, "define.b: 'a' is defined in terms of itself (a -> b -> a)")


def test_define_self_recursion(tmp_path):
    # line 4 `  a: a`, value at column 6
    p = write(tmp_path, HEAD + "define:\n  a: a\n")
    check(p, 4, 6, "define.a: 'a' is defined in terms of itself (a -> a)")


def test_define_type_error_is_located_in_the_define(tmp_path):
    # line 4 `  void: count(led) == 0`: the value starts at column 9, `led` at 15; no rule
    # uses it, it is checked all the same
    p = write(tmp_path, HEAD + "define:\n  void: count(led) == 0\n")
    check(p, 4, 15, "define.void: argument 1 of count() should be cards, seats or sides, not a suit")


def test_define_with_an_engine_name(tmp_path):
    p = write(tmp_path, HEAD + "define:\n  hand: 1\n")   # line 4, the value at column 9
    check(p, 4, 9, "'hand' is a name of the engine; choose another name")


def test_define_reading_a_hook_name_where_the_hook_lacks_it(tmp_path):
    # line 4 `  trumpish: suit(card) == trump`: value at column 13, `card` at 18; fine in
    # play.counts_as_trump, not in play.may_expose (line 6), which uses it
    p = write(tmp_path, HEAD + "define:\n  trumpish: suit(card) == trump\nplay:\n  may_expose: trumpish\n")
    pr = check(p, 4, 18, "define.trumpish: 'card' is only available in play.counts_as_trump")
    assert pr.message.endswith("(used in play.may_expose)")


def test_misspelt_defined_name_gets_a_hint(tmp_path):
    # line 6 `  may_expose: not leading and viod`: value at column 15, `viod` at 31
    p = write(tmp_path, HEAD + "define:\n  void: count(in_suit(hand, led)) == 0\n"
                               "play:\n  may_expose: not leading and viod\n")
    check(p, 6, 31, "unknown name 'viod' (did you mean 'void'?)")


def test_quantifier_in_a_plain_yaml_value_gets_a_hint(tmp_path):
    # line 4 `  may_expose: any(s in seats: true)`: YAML stops at the ': ' after `seats`
    # (column 29) and the hint says to write the rule as a block
    p = write(tmp_path, HEAD + "play:\n  may_expose: any(s in seats: true)\n")
    check(p, 4, 29, "put `|` after the key's colon")


def test_counts_as_trump_cannot_ask_who_wins_the_trick(tmp_path):
    """The trick's winner is found by asking counts_as_trump (docs/rules.md §0.4): a rule of it
    that reads the winner would never end (found by tests/dsl/test_fuzz.py)."""
    from taash.interpreter import VariantError, load_variant
    f = tmp_path / "v.yaml"
    f.write_text('extends: "29"\nname: t\nplay:\n  counts_as_trump: |\n    not ("J" < rank(winning_card))\n')
    with pytest.raises(VariantError) as e:
        load_variant(str(f))
    assert "v.yaml:5:21" in str(e.value) and "'winning_card' cannot be used here" in str(e.value)
