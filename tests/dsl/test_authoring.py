"""What a new author meets: every problem of a rule
reported, ordered by position; hints for the common mistakes; inherited problems at the
child's `extends:`. Lines and columns are counted by hand from the texts below (1-based).
"""

from __future__ import annotations

import textwrap

import pytest

from taash.interpreter import VariantError, check_files, load_variant
from taash.interpreter.dsl import BOOL, Compiler, DSLError
from taash.interpreter.loader import VARIANTS_DIR

HEAD = 'extends: "29"\nname: broken\n'   # lines 1 and 2


def problems_of(tmp_path, text: str, name="broken.yaml"):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(VariantError) as info:
        load_variant(p)
    return p, [(pr.line, pr.column, pr.message) for pr in info.value.problems]


def test_every_problem_of_one_condition_in_order(tmp_path):
    # line 4: `  may_bid: ` is 11 characters, so the rule starts at column 12:
    # hnd at 12 + 6 = 18, trmp at 12 + 19 = 31, the '=' at 12 + 41 = 53
    _, probs = problems_of(tmp_path, HEAD + 'auction:\n'
                           '  may_bid: count(hnd) > 2 and trmp == "S" or number = 3\n')
    assert [(ln, col) for ln, col, _ in probs] == [(4, 18), (4, 31), (4, 53)]
    assert probs[0][2] == "auction.may_bid: unknown name 'hnd' (did you mean 'hand'?)"
    assert probs[1][2] == "auction.may_bid: unknown name 'trmp' (did you mean 'trump', of type suit?)"
    assert probs[2][2].startswith("auction.may_bid: unexpected '=': to compare, write '=='")


def test_every_problem_of_an_effect_and_of_several_rules_by_position(tmp_path):
    # line 4 may_pass (the rule at column 13); after_trick's block is lines 7-9, at column 5:
    # bogus at 5 + 10 = 15, winer at 5 + 6 = 11, the '=' at 5 + 11 = 16
    _, probs = problems_of(tmp_path, HEAD + textwrap.dedent("""\
        auction:
          may_pass: lead == me
        play:
          after_trick: |
            target += bogus
            score[winer] += 1
            when trick = 3: target += 1
        """))
    assert [(ln, col) for ln, col, _ in probs] == [(4, 13), (7, 15), (8, 11), (9, 16)]
    # `lead` is closest in spelling to `led` (a suit); compared with a seat, a seat is meant
    assert probs[0][2] == "auction.may_pass: unknown name 'lead' (did you mean 'leader', of type seat?)"
    assert probs[1][2] == "play.after_trick: unknown name 'bogus'"
    assert probs[2][2] == "play.after_trick: unknown name 'winer' (did you mean 'winner'?)"
    assert "to compare, write '=='" in probs[3][2]


def test_a_problem_inside_a_part_is_reported_once():
    # `count(hnd)` is a problem; `count(hnd) + 1 > "S"` and the 'and' around it would be
    # problems only because of it: one problem, not three
    c = Compiler(load_variant("29").deck, 4, 8, 15, 28)
    with pytest.raises(DSLError) as info:
        c.add("auction.may_pass", 'count(hnd) + 1 > 2 and true', BOOL)
    assert [(e.line, e.column, e.message) for e in info.value.errors] == [
        (1, 7, "unknown name 'hnd' (did you mean 'hand'?)")]


def test_two_parse_errors_in_one_effect(tmp_path):
    # two statements each broken: `target += ;` (line 5, ';' at column 15) and
    # `score[me] 1` (line 6, '1' at column 15); the statement between them is fine
    _, probs = problems_of(tmp_path, HEAD + textwrap.dedent("""\
        play:
          after_trick: |
            target += ;
            target -= 1
            score[me] 1
        """))
    assert [(ln, col) for ln, col, _ in probs] == [(5, 15), (7, 15)]
    assert all(m.startswith("play.after_trick: unexpected ") for _, _, m in probs)


def test_a_misspelt_condition_gets_a_condition(tmp_path):
    # `exposed` is closest in spelling to `exposer` (a seat); a condition is wanted here
    _, probs = problems_of(tmp_path, HEAD + "auction:\n  may_pass: exposed\n")
    assert probs == [(4, 13, "auction.may_pass: unknown name 'exposed' (did you mean "
                             "'trump_exposed', of type condition?)")]


def test_unquoted_number_in_extends(tmp_path):
    _, probs = problems_of(tmp_path, "extends: 29\nname: broken\n")
    assert probs == [(1, 10, '`extends: 29`: YAML reads an unquoted number as a number, not a '
                             'name; write it in quotes: extends: "29"')]


def test_inherited_problem_two_levels_up_is_reported_at_the_childs_extends(tmp_path):
    # mid.yaml extends 29 and removes the king; top.yaml extends mid.yaml and is itself
    # fine: the problem (29.yaml's royals names "K") is reported at top.yaml line 1
    (tmp_path / "mid.yaml").write_text(HEAD.replace("broken", "mid") + textwrap.dedent("""\
        deck:
          ranks: [J, "9", A, T, Q, "8", "7"]
        flow: [{deal: [4]}, auction, trump, {deal: [3]}, play]
        """))
    top = tmp_path / "top.yaml"
    top.write_text("name: top\nextends: mid.yaml\n")
    probs = check_files([top])
    parent = (VARIANTS_DIR / "29.yaml").resolve()
    assert [(p.file, p.line, p.column) for p in probs] == [(str(top.resolve()), 2, 10)]
    assert probs[0].message.startswith(f"in {parent}:")
    assert probs[0].origin[0] == str(parent)


def test_who_me_is_is_documented_for_every_rule():
    """docs/authoring.md's "Who `me` is" table (taash.interpreter.dsl.names.ME) names every hook of
    the file format, declarations, and the `declare` step's `may_pass`; a new hook needs
    its line there."""
    from taash.interpreter.dsl.names import ME
    from taash.interpreter.variant import HOOKS
    assert set(ME) == set(HOOKS) | {"declarations", "flow.declare.may_pass"}


def test_me_in_counts_as_trump_is_the_cards_player(tmp_path):
    """The guide says `me` in `play.counts_as_trump` is the card's player. With a rule that
    makes only the eldest's (seat 0's) spades trumps, seat 1's ruff with the jack of spades is not a
    trump, and the highest heart wins (docs/rules.md §0.4); in 29 itself the ruff wins."""
    from taash.interpreter import State
    p = tmp_path / "me.yaml"
    p.write_text(HEAD + "play:\n  counts_as_trump: suit(card) == trump and me == eldest\n")
    # dealer 3, so seat 0 is eldest: he bids 15, the others pass, he names spades and leads
    # the seven of hearts; seat 1 has no heart and must ruff with his only spade, JS;
    # seat 2 plays JH, seat 3 (no heart) must play a spade, 7S
    hands = [["7H", "KS", "QC", "8C", "7C", "8D", "9D", "TD"],
             ["JS", "AC", "TC", "KC", "9C", "JC", "7D", "QD"],
             ["QH", "KH", "AH", "JH", "9H", "TH", "8H", "KD"],
             ["7S", "8S", "9S", "TS", "QS", "AS", "AD", "JD"]]
    actions = ["bid 15", "pass", "pass", "pass", "trump S", "play 7H", "play JS", "play JH", "play 7S"]
    winners = {}
    for name in (p, "29"):
        st = State(load_variant(name), dealer=3, hands=hands)
        for a in actions:
            st.apply(a)
        (leader, cards, winner), = st.tricks
        winners[str(name)] = winner
    # JS 3 + JH 3 points go to seat 2 with the rule, to seat 1 in 29
    assert winners == {str(p): 2, "29": 1}


@pytest.mark.parametrize("rule, may_pass", [
    ("same_side(me, dealer) and declarer_side == none and defenders_side == none", True),
    ("not same_side(me, dealer)", False),
])
def test_sides_during_a_solo_auction(tmp_path, rule, may_pass):
    """The guide: in a solo (or called) game every seat is on one side (side 1) until the
    auction ends, and the declarer's and defenders' sides are none. The eldest (seat 1)
    is then on the dealer's side; his first call may be a pass exactly when the rule holds."""
    from taash.interpreter import State
    p = tmp_path / "solo.yaml"
    p.write_text(f'extends: "304-solo"\nname: solo-sides\nauction:\n  may_pass: {rule}\n')
    st = State(load_variant(p), dealer=0, seed=3)
    assert ("pass" in st.legal_actions()) is may_pass


def test_played_is_none_until_a_seat_plays_and_whole_after_the_trick(tmp_path):
    """The guide: `played(seat)` is none for a seat that has not played to the trick; in
    `play.after_trick` every seat's card of the trick just completed. Here a player may
    play only hearts while the dealer (seat 3, last to play) has not played, and after a
    trick in which the dealer and the eldest both played, the target goes up by 1."""
    from taash.interpreter import State
    p = tmp_path / "played.yaml"
    p.write_text(HEAD + textwrap.dedent("""\
        play:
          may_play: |
            when played(dealer) == none: in_suit(hand, "H") otherwise hand
            else: hand
          after_trick: |
            when played(dealer) != none and played(eldest) != none: target += 1
        """))
    hands = [["7H", "KS", "QC", "8C", "7C", "8D", "9D", "TD"],
             ["JS", "AC", "TC", "KC", "9C", "JC", "7D", "QD"],
             ["QH", "KH", "AH", "JH", "9H", "TH", "8H", "KD"],
             ["7S", "8S", "9S", "TS", "QS", "AS", "AD", "JD"]]
    st = State(load_variant(p), dealer=3, hands=hands)
    for a in ["bid 15", "pass", "pass", "pass", "trump S"]:
        st.apply(a)
    # seat 0 leads: the dealer has not played, so hearts only (his one heart, 7H)
    assert st.legal_actions() == ["play 7H"]
    st.apply("play 7H")
    assert st.target == 15
    for a in ["play JS", "play JH", "play 7S"]:
        st.apply(a)
    assert st.target == 16   # after the trick, both cards were there


# -- cases are checked against the rule's own type ----------------------------------------

def test_a_case_of_the_wrong_type_is_blamed_not_the_right_one(tmp_path):
    # may_play gives cards: line 5 `    when leading: 3`, the `3` at 5 + 14 = 19; the `else:
    # hand` of line 6 is right
    _, probs = problems_of(tmp_path, HEAD + "play:\n  may_play: |\n    when leading: 3\n    else: hand\n")
    assert probs == [(5, 19, "play.may_play: every case should give cards, not a number")]


def test_a_case_of_a_seat_rule_is_checked_against_a_seat(tmp_path):
    # line 5 `    when true: 3`, the `3` at 5 + 11 = 16
    _, probs = problems_of(tmp_path, HEAD + "play:\n  leader: |\n    when true: 3\n    else: eldest\n")
    assert probs == [(5, 16, "play.leader: every case should give a seat, not a number")]


def test_every_case_of_the_wrong_type_is_a_problem(tmp_path):
    # lines 5-7 of may_play: `3` at 5 + 14 = 19, `trump` (a suit) at 5 + 6 = 11
    _, probs = problems_of(tmp_path, HEAD + "play:\n  may_play: |\n    when leading: 3\n"
                                            "    when trump_exposed: hand\n    else: trump\n")
    assert probs == [(5, 19, "play.may_play: every case should give cards, not a number"),
                     (7, 11, "play.may_play: every case should give cards, not a suit")]


def test_cases_of_a_named_expression_must_agree(tmp_path):
    # a named expression has no type of its own: the later case is blamed, not the first.
    # line 6 `    else: 3`, the `3` at 5 + 6 = 11
    _, probs = problems_of(tmp_path, HEAD + "define:\n  pick: |\n    when leading: hand\n    else: 3\n")
    assert probs == [(6, 11, "define.pick: every case should give one type: an earlier case "
                             "gives cards, this one a number")]


# -- named expressions are checked to their end, as rules are ------------------------------

def test_every_problem_of_a_named_expression(tmp_path):
    # line 4: `  void: ` is 8 characters, the value starts at column 9: the '=' at
    # 9 + 26 = 35, trump_exposd at 9 + 34 = 43, hgh_bid at 9 + 51 = 60
    _, probs = problems_of(tmp_path, HEAD + "define:\n  void: count(in_suit(hand, led)) = 0 and "
                                            "trump_exposd and hgh_bid > 3\n")
    assert [(ln, col) for ln, col, _ in probs] == [(4, 35), (4, 43), (4, 60)]
    assert probs[0][2].startswith("define.void: unexpected '=': to compare, write '=='")
    assert probs[1][2] == ("define.void: unknown name 'trump_exposd' (did you mean 'trump_exposed', "
                           "of type condition?)")
    assert probs[2][2] == "define.void: unknown name 'hgh_bid' (did you mean 'high_bid', of type number?)"


def test_every_named_expression_is_checked_and_each_problem_reported_once(tmp_path):
    # a and b make a cycle, closed at b's `a` (line 5, column 6), reported once; b's `zz`
    # (5 + 8 = 14) too; c uses b and has its own `yy` (line 6, 6 + 10 = 16)
    _, probs = problems_of(tmp_path, HEAD + "define:\n  a: b + 1\n  b: a + 1 + zz\n  c: b > 1 and yy\n")
    assert probs == [(5, 6, "define.b: 'a' is defined in terms of itself (a -> b -> a); named "
                            "expressions cannot be recursive"),
                     (5, 14, "define.b: unknown name 'zz'"),
                     (6, 16, "define.c: unknown name 'yy'")]
