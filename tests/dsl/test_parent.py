"""`parent`: a rule of a file that `extends:` another reads the rule it replaces there
(docs/authoring.md, "Extending an inherited rule"): in a value rule where it stands, in an
effect as a statement; through a chain of files; each misuse a located problem; the
rulebook states the inherited rule."""

from __future__ import annotations

import pytest

from taash.interpreter import State, VariantError, load_variant
from taash.interpreter.rulebook import render

# 28 with one clause before its own `may_play`: no jack led to the first trick
NO_JACK = ('extends: "28"\nname: no-jack\nplay:\n  may_play: |\n'
           '    when leading and trick == 1:\n'
           '      those(c in hand: rank(c) != "J") otherwise hand\n'
           '    else: parent\n')
SUITS, RANKS = "SHDC", ["J", "9", "A", "T", "K", "Q", "8", "7"]


def write(tmp_path, text, name="x.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def problems(path):
    with pytest.raises(VariantError) as e:
        load_variant(path)
    return [(p.line, p.column, p.message) for p in e.value.problems]


def deal(v, seat1):
    """A deal of 28 (dealer 0, so seat 1 is the eldest) where seat 1 is dealt ``seat1``
    (8 cards, in the order dealt) and the other seats the rest of the deck in suit order:
    seat 2 the first 8 cards left (with SEAT1: 9S 7S and the hearts AH TH KH QH 8H 7H),
    seat 3 the next 8 (the diamonds), seat 0 the last (the clubs)."""
    rest = [r + s for s in SUITS for r in RANKS if r + s not in seat1]
    hands = [rest[16:24], list(seat1), rest[0:8], rest[8:16]]
    return State(v, dealer=0, hands=hands)


def to_play(st, trump_card):
    """Seat 1 bids 14, the others pass, seat 1 lays ``trump_card`` face down."""
    for a in ("bid 14", "pass", "pass", "pass", f"trump-card {trump_card}"):
        st.apply(a)
    assert st.phase == "play" and st.to_act == 1
    return st


SEAT1 = ["JS", "9H", "AS", "TS", "KS", "QS", "8S", "JH"]   # 9H laid down: hearts are trump


def test_the_added_clause_comes_first_and_the_parent_rule_holds_after(tmp_path):
    base = to_play(deal(load_variant("28"), SEAT1), "9H")
    house = to_play(deal(load_variant(write(tmp_path, NO_JACK)), SEAT1), "9H")
    # 28: the declarer leads before the exposure: no trump (hearts) while he holds another
    # suit; his hand is JS AS TS KS QS 8S JH (9H lies face down)
    assert base.legal_actions() == ["play JS", "play AS", "play TS", "play KS", "play QS", "play 8S"]
    # the house rule first: no jack to the first trick (JS and JH go)
    assert house.legal_actions() == ["play AS", "play TS", "play KS", "play QS", "play 8S"]
    # then 28's: seat 2 follows suit (the parent's `else`): it holds the spades 9S and 7S
    house.apply("play AS")
    assert house.to_act == 2 and house.legal_actions() == ["play 9S", "play 7S"]


def test_a_chain_reads_each_parent_in_turn(tmp_path):
    write(tmp_path, NO_JACK, "no-jack.yaml")
    p = write(tmp_path, 'extends: "no-jack.yaml"\nname: b\nplay:\n  may_play: |\n'
                        '    when trick == 1 and not leading and me == next(eldest): hand\n    else: parent\n'
                        'scoring:\n  effect: |\n    when made and bid >= 20: score[declarer_side] += 2\n'
                        '    else: parent\n')
    st = to_play(deal(load_variant(p), SEAT1), "9H")
    assert st.legal_actions() == ["play AS", "play TS", "play KS", "play QS", "play 8S"]  # no-jack's
    st.apply("play AS")
    # seat 2, by this file's own clause: any card, not only its spades (9S 7S)
    assert st.legal_actions() == ["play 9S", "play 7S", "play AH", "play TH", "play KH", "play QH",
                                  "play 8H", "play 7H"]
    st.apply("play 7H")
    # seat 3 (diamonds only) by 28's rule, through no-jack's `parent`: any card, and it may
    # ask for trump to be exposed
    assert st.legal_actions()[0] == "expose" and len(st.legal_actions()) == 9
    # the effect: made at 20 or more scores 2; else 28's effect (+1 made, -1 not)
    v = load_variant(p)
    for bid in (14, 20):
        st = deal(v, SEAT1)
        for a in (f"bid {bid}", "pass", "pass", "pass"):
            st.apply(a)
        while not st.is_terminal:
            st.apply(st.default_action())
        r = st.result()
        made = r["points"][1] + r["points"][3] >= bid
        unit = 2 if made and bid >= 20 else 1 if made else -1
        assert r["score_change"] == [0, unit, 0, unit]   # per seat: seats 1 and 3 are the declarer's side


def test_parent_in_a_file_that_extends_nothing_is_located(tmp_path):
    text = open(load_variant("28").path).read().replace(
        "    else: in_suit(hand, led) otherwise hand", "    else: parent")
    p = write(tmp_path, text)
    line = text.splitlines().index("    else: parent") + 1
    assert problems(p) == [(line, 11, "play.may_play: `parent` names the rule this one replaces in the "
                                      "variant the file extends, which has none at this place")]


def test_parent_where_the_parent_has_no_rule_is_located(tmp_path):
    p = write(tmp_path, 'extends: "28"\nname: x\nplay:\n  after_trick: "parent"\n')
    assert problems(p) == [(4, 17, "play.after_trick: `parent` names the rule this one replaces in the "
                                   "variant the file extends, which has none at this place")]


def test_parent_of_the_wrong_type_and_in_a_define_are_located(tmp_path):
    p = write(tmp_path, 'extends: "28"\nname: x\ndefine:\n  old: parent\nplay:\n  may_play: |\n'
                        '    when leading: hand\n    else: parent + 1\n')
    got = problems(p)
    assert (4, 8, "define.old: `parent` names the inherited rule: use it in the rule itself, not in a "
                  "named expression") in got
    assert (8, 11, "play.may_play: the left side of '+' should be a number, not cards") in got


def test_a_bare_name_is_not_a_statement(tmp_path):
    p = write(tmp_path, 'extends: "28"\nname: x\nscoring:\n  effect: "made"\n')
    assert problems(p) == [(4, 12, "scoring.effect: 'made' alone is not a statement: a statement sets a "
                                   "value (`NAME = ...`), or is `when`, `for` or `parent` (the inherited "
                                   "effect)")]


def test_a_problem_in_the_inherited_rule_is_at_the_extends_line_naming_its_place(tmp_path):
    parent = write(tmp_path, 'extends: "28"\nname: p\noptions:\n  strict: true\nplay:\n'
                             '  may_play: "in_suit(hand, led) otherwise hand if strict else hand"\n',
                   "p.yaml")
    # the child removes the option the parent's rule reads
    p = write(tmp_path, 'extends: "p.yaml"\nname: c\noptions: null\nplay:\n'
                        '  may_play: |\n    when leading: hand\n    else: parent\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    [pr] = e.value.problems
    assert (pr.file, pr.line, pr.column) == (str(p), 1, 10)
    assert pr.origin == (str(parent), 6, 51)
    assert pr.message == (f"in {parent}:6:51 (inherited through `extends:`): play.may_play: "
                          "unknown name 'strict' (did you mean 'trick'?)")


def test_a_file_may_not_write_parent_rules(tmp_path):
    p = write(tmp_path, 'extends: "28"\nname: x\nparent_rules: {}\n')
    assert problems(p) == [(3, 1, "`parent_rules` is made by `extends:` (the rules a file's `parent` "
                                  "names); a file does not write it")]


def test_shipped_variants_keep_their_data():
    # no shipped file names `parent`: their merged data (and so their digest) is unchanged
    from taash.interpreter import shipped_variants
    for name in shipped_variants():
        assert "parent_rules" not in load_variant(name).data


def test_the_rulebook_states_the_inherited_rule(tmp_path):
    text = render(load_variant(write(tmp_path, NO_JACK)))
    assert "- otherwise: the inherited rule" in text
    inherited = text.split("## Inherited rules", 1)[1]
    assert "- *play.may_play*:" in inherited
    assert "- otherwise: any card in hand of the suit led; if none, any card in hand" in inherited


def test_a_variant_with_parent_pickles(tmp_path):
    import pickle
    v = load_variant(write(tmp_path, NO_JACK))
    st = to_play(deal(v, SEAT1), "9H")
    back = pickle.loads(pickle.dumps(st))
    assert back.legal_actions() == st.legal_actions()
