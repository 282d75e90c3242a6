"""Variables kept per seat and per side (`per: seat`, `per: side` under `variables:`;
docs/authoring.md "Values per seat and per side").

Expected values are worked out by hand from the rules written here on the hand-built deals
of tests/helpers/rules.py and tests/dsl/test_variables.py (dealer 3, so seat 0 is the
eldest): COURT (seat 0 holds the J and 9 of every suit and wins all eight tricks) and G5
(the trick winners are seats 0 1 3 2 0 1 3 2: two tricks each; side 0 takes 15 points).
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

from taash.interpreter import Match, load_variant, replay, replay_json
from taash.interpreter.rulebook import render

from tests.dsl.test_broken_files import check
from tests.dsl.test_variables import court_deal, g5_deal
from tests.helpers.props import Redealer, redeals
from tests.helpers.rules import G5_HANDS, do

HEAD = 'extends: "29"\nname: per-vars\n'   # lines 1 and 2 of the files below

# Lines: 3 variables:, 4 won:, 10 failed: (12 its per), 17 after_trick, 19 effect: |,
# 20-22 its statements.
TALLY = """\
variables:
  won:
    type: number
    per: seat
    scope: match
    initial: 0
    public: true
  failed:
    type: number
    per: side
    scope: match
    initial: 0
    public: true
play:
  after_trick: won[winner] += 1
scoring:
  effect: |
    when made: score[declarer_side] += 1
    else: score[declarer_side] -= 1
    when not made: failed[declarer_side] += 1
"""


def write(tmp_path: Path, body: str, name: str = "per.yaml") -> Path:
    p = tmp_path / name
    p.write_text(HEAD + textwrap.dedent(body))
    return p


def test_values_per_seat_and_per_side_carried_over_the_match(tmp_path):
    """COURT: seat 0 wins all 8 tricks and its contract (bid 15, 29 points): won
    [8,0,0,0], failed [0,0]. G5 at bid 16: two tricks each, side 0 fails (15 < 16): won
    [10,2,2,2], failed [1,0], scores 1 - 1 = 0 for side 0. COURT again: [18,2,2,2], side 0
    made again: score 1."""
    v = load_variant(write(tmp_path, TALLY))
    m = Match(v, seed=1)
    st = court_deal(m)
    assert st.made and st.observation(1)["variables"] == {"won": [8, 0, 0, 0], "failed": [0, 0]}
    st = g5_deal(m, 16)
    assert not st.made
    assert st.result()["variables"] == {"won": [10, 2, 2, 2], "failed": [1, 0]}
    assert m.scores == [0, 0]
    st = court_deal(m)
    assert st.result()["variables"] == {"won": [18, 2, 2, 2], "failed": [1, 0]}
    assert m.scores == [1, 0]
    # the record holds the match-scope values at each deal's start, and replays
    rec = m.record()
    assert [d["variables"] for d in rec["deals"]] == [
        {"won": [0, 0, 0, 0], "failed": [0, 0]},
        {"won": [8, 0, 0, 0], "failed": [0, 0]},
        {"won": [10, 2, 2, 2], "failed": [1, 0]}]
    again = replay(rec)
    assert again.scores == [1, 0]
    assert replay_json(again)["deals"][2]["variables"] == {"won": [18, 2, 2, 2], "failed": [1, 0]}


def test_a_copy_keeps_its_own_values(tmp_path):
    """A per-seat value is a tuple replaced on every change: a copy made after trick 1
    (seat 0 won it: [1,0,0,0]) keeps its values while the original plays trick 2 (seat 1
    wins it: [1,1,0,0])."""
    v = load_variant(write(tmp_path, TALLY))
    st = Match(v, seed=1).new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S",
       "0 play JS", "1 play 9S", "2 play AS", "3 play TS")
    cp = st.copy()
    do(st, "0 play QS", "1 play KS", "2 play 8S", "3 play 7S")
    assert (cp.vars[0], st.vars[0]) == ((1, 0, 0, 0), (1, 1, 0, 0))


def test_for_each_seat_and_an_index_that_is_none(tmp_path):
    """`for s in seats`: every seat's `tally` is set from its tricks at the deal's end
    (COURT: seat 0 takes all 8, so 9 1 1 1); at the next deal each is 0 again."""
    p = write(tmp_path, """\
        variables:
          tally:
            type: number
            per: seat
            scope: deal
            initial: 0
            public: true
        scoring:
          effect: |
            when made: score[declarer_side] += 1
            else: score[declarer_side] -= 1
            for s in seats: tally[s] = seat_tricks(s) + 1
        """)
    v = load_variant(p)
    m = Match(v, seed=1)
    st = court_deal(m)
    assert st.result()["variables"] == {"tally": [9, 1, 1, 1]}
    assert m.new_deal().observation(0)["variables"] == {"tally": [0, 0, 0, 0]}


def test_a_hidden_per_seat_value_stays_out_of_observations(tmp_path):
    v = load_variant(write(tmp_path, TALLY.replace("public: true", "public: false")))
    m = Match(v, seed=1)
    st = court_deal(m)
    assert st.observation(0)["variables"] == {}
    assert st.vars[0] == (8, 0, 0, 0)


def test_the_rulebook_says_one_value_per_seat(tmp_path):
    text = render(load_variant(write(tmp_path, TALLY)))
    assert "`won` (one for each seat: `won[seat]`, a number, shown to every player)" in text
    assert "`failed` (one for each side: `failed[side]`, a number" in text


def _redeal_changes(st, rng) -> tuple[int, int]:
    compared = changed = 0
    for me in range(st.v.players):
        for _assignment, _built, steps in redeals(st, Redealer(st, me), rng, 10):
            if steps is not None:
                compared += 1
                changed += any(a != b for _, a, b in steps)
    return compared, changed


def test_public_values_per_seat_keep_observations_invariant_under_a_redeal(tmp_path):
    """`won[winner]` counts what every seat has seen: re-dealing the cards a seat cannot see
    leaves its observation the same, deal after deal (match-scope values carried)."""
    v = load_variant(write(tmp_path, TALLY))
    rng = random.Random(3)
    total = 0
    for seed in range(6):
        m = Match(v, seed=seed)
        st = m.new_deal()
        chooser = random.Random(seed)
        while not st.is_terminal and len(st.tricks) < 3:
            st.apply(chooser.choice(st.legal_actions()))
        compared, changed = _redeal_changes(st, rng)
        assert changed == 0
        total += compared
    assert total > 10


# -- broken files: located errors ---------------------------------------------------------
BROKEN = {
    "read without an index": (
        TALLY.replace("won[winner] += 1", "won += 1"), 17, 16,
        "'won' holds one number per seat: write won[seat] = ..."),
    "read in a rule without an index": (
        TALLY + "match:\n  ends: failed > 2\n", 24, 9,
        "'failed' holds one number per side: write failed[side]"),
    "a side index on a per-seat value": (
        TALLY.replace("won[winner]", "won[side(winner)]"), 17, 20,
        "index of 'won' should be a seat (it holds one value per seat), not a side"),
    "a seat index on a per-side value": (
        TALLY.replace("failed[declarer_side]", "failed[declarer]"), 22, 27,
        "index of 'failed' should be a side (it holds one value per side), not a seat"),
    "a number index": (
        TALLY + "match:\n  ends: failed[1] > 2\n", 24, 16,
        "index of 'failed' should be a side (it holds one value per side), not a number"),
    "an unknown per": (
        TALLY.replace("per: side", "per: trick"), 12, 10, 'variables.failed.per: "trick" is not one of'),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_file(tmp_path, case):
    body, line, column, fragment = BROKEN[case]
    check(write(tmp_path, body), line, column, fragment)
