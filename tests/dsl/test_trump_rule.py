"""Trump set by a rule as each deal starts (`trump.mode: rule`, `trump.suit`;
docs/authoring.md "Trump set by a rule as each deal starts").

Expected values are worked out by hand from the rules written here: `deals_played` is
the number of deals before this one while it is played, so the guide's rotation gives
deals 1..5 spades, hearts, diamonds, clubs, spades.
"""

from __future__ import annotations

import random
import re

import pytest

from taash.interpreter import Match, load_variant

from tests.dsl.test_broken_files import check, write as broken_write
from tests.helpers import ROOT
from tests.helpers.rules import G5_HANDS, do

GUIDE = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
ROTATING = re.search(r"```yaml\n(extends: \"court-piece\"\nname: rotating-trump-example\n.*?)```",
                     GUIDE, re.S).group(1)
HEAD = 'extends: "29"\nname: t\n'
# 29 with spades always trump: no trump step (lines 3-7), trump.mode rule (8-10)
ALWAYS = HEAD + """\
flow:
  - deal: [4]
  - auction
  - deal: [4]
  - play
trump:
  mode: rule
  suit: '"S"'
"""


def play_out(st, rng) -> None:
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))


def test_the_guides_rotation_deal_by_deal(tmp_path):
    p = tmp_path / "rot.yaml"
    p.write_text(ROTATING)
    m = Match(load_variant(p), seed=3)
    rng = random.Random(3)
    seen = []
    for _ in range(5):
        st = m.new_deal()
        seen.append((st.observation(0)["trump"], st.observation(2)["trump"]))
        play_out(st, rng)
        assert st.result()["trump"] == seen[-1][0]
        m.finish_deal(st)
    assert seen == [("S", "S"), ("H", "H"), ("D", "D"), ("C", "C"), ("S", "S")]


def test_always_spades_is_known_in_the_auction_and_wins_the_trick(tmp_path):
    """G5 with spades always trump: every seat sees trump S before any bid. Trick 1 is
    JS 9S AS TS (spades led: seat 0's JS wins as in §G5)."""
    p = tmp_path / "t.yaml"
    p.write_text(ALWAYS)
    st = Match(load_variant(p), seed=1).new_deal(hands=G5_HANDS, dealer=3)
    assert st.phase == "auction"
    assert [st.observation(k)["trump"] for k in range(4)] == ["S"] * 4
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass")
    assert st.phase == "play" and st.trump == 0
    do(st, "0 play JS", "1 play 9S", "2 play AS", "3 play TS")
    assert st.tricks[0][2] == 0


def test_the_rule_reads_the_variables(tmp_path):
    """A match variable `turn` moved on by the scoring: trump is "H" while turn is 0, "C"
    after; a deal reads the value the deal before left."""
    p = tmp_path / "t.yaml"
    p.write_text(ALWAYS.replace("""  suit: '"S"'\n""", """  suit: |
    when turn == 0: "H"
    else: "C"
variables:
  turn: {type: number, scope: match, initial: 0}
scoring:
  effect: turn += 1
"""))
    m = Match(load_variant(p), seed=2)
    rng = random.Random(2)
    st = m.new_deal()
    assert st.observation(1)["trump"] == "H"
    play_out(st, rng)
    m.finish_deal(st)
    assert m.new_deal().observation(1)["trump"] == "C"


def test_the_rulebook_states_the_rule(tmp_path):
    from taash.interpreter.rulebook import render
    p = tmp_path / "t.yaml"
    p.write_text(ALWAYS)
    assert "As each deal starts, before any card is dealt, trump is spades." in render(load_variant(p))


BROKEN = {
    "a trump step with the rule": (
        ALWAYS.replace("  - auction\n", "  - auction\n  - trump\n"), 6, 5,
        "trump.mode 'rule' sets trump by trump.suit as the deal starts: remove the 'trump' step"),
    "no rule": (ALWAYS.replace("""  suit: '"S"'\n""", ""), 9, 9, "trump.mode 'rule' needs trump.suit"),
    "a rule without the mode": (
        ALWAYS.replace("mode: rule", "mode: open").replace("  - auction\n", "  - auction\n  - trump\n"),
        11, 9, "trump.suit needs trump.mode 'fixed' (the trump of every deal) or 'rule'"),
    "a rule of another type": (ALWAYS.replace("""'"S"'""", "dealer"), 10, 9,
                               "trump.suit: this rule should be a suit, not a seat"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_file(tmp_path, case):
    body, line, column, fragment = BROKEN[case]
    check(broken_write(tmp_path, body), line, column, fragment)
