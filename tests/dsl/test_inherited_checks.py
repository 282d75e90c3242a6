"""`taash check`'s checks of what a file inherits and of names: an inherited rule whose
meaning a change of partnership makes doubtful (a warning naming the rule and its line),
a total or a flow an inherited value no longer matches (at the child's line that changed
it), suggestions only of the wanted type, and an engine name that cannot be assigned."""

from __future__ import annotations

import pytest

from taash.interpreter import VariantError, check_files, load_variant, shipped_variants
from taash.interpreter.variant import check_warnings

from tests.engine.test_cli import taash
from tests.helpers import ROOT

SOLO_28 = ('extends: "28"\nname: w\nplayers: 3\npartnership: solo\n'
           'deck:\n  suits: [S, H, D, C]\n  ranks: [J, "9", A, T, K, Q]\n'
           '  points: {J: 3, "9": 2, A: 1, T: 1}\n  total: 28\n')


def write(tmp_path, text, name="x.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_an_inherited_auction_rule_that_reads_the_sides_is_named(tmp_path):
    p = write(tmp_path, SOLO_28)
    assert check_files([p]) == []          # it loads: a warning, not an error
    ws = check_warnings([p])
    assert len(ws) == 1 and ws[0].warning
    w = ws[0]
    # at the file's `partnership: solo` (line 4, the value at column 14)
    assert (w.file, w.line, w.column) == (str(p), 4, 14)
    assert w.message.startswith(f"auction.may_bid (inherited from {ROOT / 'variants' / '28.yaml'}:32) "
                                "reads the sides, and this file changes the partnership from fixed to solo")
    assert "every seat is on one side" in w.message
    r = taash("check", p)
    assert r.returncode == 0
    assert r.stdout.strip() == f"{p}: ok (1 warning)"
    assert f"{p}:4:14: warning: auction.may_bid" in r.stderr


def test_a_rule_written_again_in_the_file_is_not_named(tmp_path):
    p = write(tmp_path, SOLO_28 + "auction:\n  may_bid: number > high_bid\n")
    assert check_warnings([p]) == []


def test_each_player_for_himself_names_every_inherited_rule_reading_the_sides(tmp_path):
    p = write(tmp_path, 'extends: "court-piece"\nname: x\npartnership: individual\nplayers: 4\n'
                        'scoring:\n  effect: "score[declarer_side] += 1 if made else 0"\n')
    ws = check_warnings([p])
    assert [w.message.split(" ")[0] for w in ws] == ["scoring.made"]
    assert "each player is now his own side" in ws[0].message


def test_no_shipped_variant_has_a_warning():
    assert check_warnings(shipped_variants()) == []


def test_a_total_an_inherited_value_no_longer_matches_is_at_the_childs_line(tmp_path):
    p = write(tmp_path, 'extends: "29"\nname: lt\ndeck:\n  last_trick: 0\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    (pr,) = e.value.problems
    assert (pr.file, pr.line, pr.column) == (str(p), 4, 15)
    # 29: J 3, 9 2, A 1, T 1 in four suits = 28, and no last-trick point now
    assert pr.message.startswith("the deck's points add up to 28, not 29 (with `deck.total` "
                                 f"inherited from {ROOT / 'variants' / '29.yaml'}:")


def test_a_flow_the_childs_players_no_longer_match_is_at_the_childs_line(tmp_path):
    p = write(tmp_path, 'extends: "29"\nname: pl\nplayers: 6\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    (pr,) = e.value.problems
    assert (pr.file, pr.line) == (str(p), 3)
    assert pr.message.startswith("the flow deals 8 cards to each of 6 players (48), but the deck has 32")


@pytest.mark.parametrize("rule, message", [
    # a seat is wanted: nothing of another type is offered (`x` was offered `players`)
    ("leader: x", "unknown name 'x'"),
    ("leader: eldst", "unknown name 'eldst' (did you mean 'eldest', of type seat?)"),
])
def test_suggestions_are_of_the_wanted_type(tmp_path, rule, message):
    p = write(tmp_path, f'extends: "29"\nname: x\nplay:\n  {rule}\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert e.value.problems[0].message == f"play.leader: {message}"


@pytest.mark.parametrize("parent, effect, message", [
    # 28's trump is hidden: `trump =` is refused there, so it is not offered; 29's is open
    ('"28"', "bid = 1", "'bid' is a name of the engine: it cannot be assigned (assignable here: score, "
                        "side, target); to name a value of your own, choose another name"),
    ('"29"', "bid = 1", "'bid' is a name of the engine: it cannot be assigned (assignable here: score, "
                        "side, target, trump); to name a value of your own, choose another name"),
    ('"29"', "declarer = me", "'declarer' can be assigned only in a declaration's effect"),
    # the worked example has no trump at the start: a rule may set it
    (str(ROOT / "docs" / "examples" / "queen-hunt.yaml"), "bid = 1",
     "'bid' is a name of the engine: it cannot be assigned (assignable here: score, side, target, "
     "trump); to name a value of your own, choose another name"),
])
def test_an_engine_name_says_it_cannot_be_assigned(tmp_path, parent, effect, message):
    p = write(tmp_path, f'extends: {parent}\nname: x\nscoring:\n  effect: "{effect}"\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert e.value.problems[0].message == f"scoring.effect: {message}"


def test_a_list_of_numbers_is_offered_where_min_wants_numbers(tmp_path):
    # min() takes numbers or one list of them: the match score `score` is such a list
    p = write(tmp_path, 'extends: "29"\nname: x\nmatch:\n  ends: "min(scor) <= -6"\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert e.value.problems[0].message == ("match.ends: unknown name 'scor' (did you mean 'score', "
                                           "of type list?)")
