"""The variant's own variables (`variables:`), `next(seat)`/`previous(seat)` and the
next dealer (`match.next_dealer`).

Expected values are worked out by hand from docs/rules.md and the rules written here. The
deals are the hand-built ones of tests/helpers/rules.py (dealer 3, so seat 0 is the
eldest): G5 (docs/rules.md §G5: side 0 takes 15 points, side 1 14, in tricks of one suit) and
COURT below (side 0 takes every trick).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from taash.interpreter import Match, RecordError, State, VariantError, load_variant, replay, replay_json
from taash.interpreter.dsl import names
from taash.interpreter.rulebook import render

from tests.helpers import ROOT
from tests.helpers.props import Redealer, redeals
from tests.helpers.rules import G5_HANDS, do, hands, play_g5, play_tricks

HEAD = 'extends: "29"\nname: vars\n'   # lines 1 and 2 of the files below

# Seat 0 holds the J and 9 of every suit: leading them one by one, with every other seat
# following suit (each holds two cards of each suit), it wins all eight tricks: a court.
# Side 0 takes all 28 card points + 1 for the last trick (§29.2) = 29.
COURT_HANDS = hands(
    "JS 9S JH 9H JD 9D JC 9C",
    "AS TS AH TH AD TD AC TC",
    "KS QS KH QH KD QD KC QC",
    "8S 7S 8H 7H 8D 7D 8C 7C",
)
COURT_TRICKS = [(0, f"{r}{s} {a}{s} {b}{s} {c}{s}", 0, None)
                for s in "SHDC" for r, a, b, c in (("J", "A", "K", "8"), ("9", "T", "Q", "7"))]

# The same, with seat 1 (side 1, the side of dealer 3) holding the J and 9 of every suit.
COURT1_HANDS = [COURT_HANDS[1], COURT_HANDS[0], COURT_HANDS[2], COURT_HANDS[3]]
COURT1_TRICKS = [(0, "AS JS KS 8S", 1, None), (1, "9S QS 7S TS", 1, None)] + [
    (1, f"{r}{s} {b}{s} {c}{s} {a}{s}", 1, None)
    for s in "HDC" for r, a, b, c in (("J", "A", "K", "8"), ("9", "T", "Q", "7"))]


def write(tmp_path: Path, body: str, name: str = "vars.yaml") -> Path:
    p = tmp_path / name
    p.write_text(HEAD + textwrap.dedent(body))
    return p


def problem(path: Path):
    with pytest.raises(VariantError) as info:
        load_variant(path)
    return info.value.problems[0]


def g5_deal(m: Match, bid: int, dealer: int = 3) -> State:
    """Deal G5 in match ``m``: seat 0 bids ``bid``, the others pass, trump S, the eight
    tricks of §G5 (side 0 takes 15 points: bid 15 is made, bid 16 fails)."""
    st = m.new_deal(hands=G5_HANDS, dealer=dealer)
    do(st, f"0 bid {bid}", "1 pass", "2 pass", "3 pass", "0 trump S")
    play_g5(st)
    m.finish_deal(st)
    return st


def court_deal(m: Match, side: int = 0) -> State:
    """Dealer 3; the seat of ``side`` holding the J and 9 of every suit bids 15 (the
    other seats pass), names trump S and takes all eight tricks."""
    if side == 0:
        st = m.new_deal(hands=COURT_HANDS, dealer=3)
        do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
        play_tricks(st, COURT_TRICKS)
    else:
        st = m.new_deal(hands=COURT1_HANDS, dealer=3)
        do(st, "0 pass", "1 bid 15", "2 pass", "3 pass", "0 pass", "1 trump S")
        play_tricks(st, COURT1_TRICKS)
    m.finish_deal(st)
    return st


STAKE = """\
variables:
  stake:
    type: number
    scope: match
    initial: 1
    public: true
scoring:
  effect: |
    when made: score[declarer_side] += stake
    else: score[declarer_side] -= stake
    stake = 1 if made else stake + 1
"""


# -- rules worked by hand ------------------------------------------------------------------

def test_a_match_variable_carries_a_stake_from_deal_to_deal(tmp_path):
    """The guide's example: a failed contract makes the next deal worth one more."""
    m = Match(load_variant(write(tmp_path, STAKE)), seed=1)
    st = g5_deal(m, 16)                      # fails (15 < 16): side 0 -1, stake 1 -> 2
    assert (st.made, m.scores, st.result()["variables"]) == (False, [-1, 0], {"stake": 2})
    st = g5_deal(m, 16)                      # fails again at stake 2: -1 - 2 = -3, stake 3
    assert (m.scores, st.observation(1)["variables"]) == ([-3, 0], {"stake": 3})
    st = g5_deal(m, 15)                      # made at stake 3: -3 + 3 = 0, stake back to 1
    assert (st.made, m.scores, st.result()["variables"]) == (True, [0, 0], {"stake": 1})
    assert m.new_deal().observation(0)["variables"] == {"stake": 1}


def test_a_deal_variable_starts_again_every_deal_and_is_set_in_play(tmp_path):
    """A deal variable set by `play.after_trick`: the seat that won the first trick (in
    G5, seat 0 wins trick 1 with JS). At the next deal it is `none` again."""
    p = write(tmp_path, """\
        variables:
          first:
            type: seat
            scope: deal
            initial: none
            public: true
        play:
          after_trick: |
            when first == none: first = winner
        """)
    m = Match(load_variant(p), seed=1)
    st = m.new_deal(hands=G5_HANDS, dealer=3)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    assert st.observation(2)["variables"] == {"first": None}
    do(st, "0 play JS", "1 play 9S", "2 play AS", "3 play TS")   # seat 0 wins (J highest)
    assert st.observation(2)["variables"] == {"first": 0}
    do(st, "0 play QS", "1 play KS", "2 play 8S", "3 play 7S")   # seat 1 wins: first stays 0
    assert st.vars == [0]
    m2 = Match(m.v, seed=1)
    assert m2.new_deal().vars == [-1]


def test_initial_rules_read_the_deal_and_earlier_variables(tmp_path):
    """`initial` is a rule: asked at the deal's start (dealer 3 here), in file order."""
    p = write(tmp_path, """\
        variables:
          opener:
            type: seat
            scope: deal
            initial: next(next(dealer))
          before:
            type: seat
            scope: deal
            initial: previous(opener)
          late:
            type: condition
            scope: deal
            initial: deals >= 1
          called:
            type: card
            scope: match
            initial: '"JS"'
            public: true
          trumps:
            type: suit
            scope: deal
            initial: suit(called)
            public: true
        """)
    v = load_variant(p)
    st = State(v, dealer=3, hands=G5_HANDS)
    assert st.vars == [1, 0, False, v.deck.parse("JS"), v.deck.suits.index("S")]
    assert st.observation(0)["variables"] == {"called": "JS", "trumps": "S"}
    st = State(v, dealer=3, hands=G5_HANDS, deal_number=1, variables=st.vars)
    assert st.vars[2] is True


def test_a_variable_value_from_its_json_form(tmp_path):
    """`Variant.variable_value` reads back what `variable_json` writes (the observation's
    `variables`), for each type, `none` included; anything else is a ValueError."""
    p = write(tmp_path, """\
        variables:
          n: {type: number, scope: match, initial: "3", public: true}
          c: {type: condition, scope: match, initial: "false", public: true}
          s: {type: seat, scope: match, initial: "none", public: true}
          d: {type: side, scope: match, initial: "none", public: true}
          u: {type: suit, scope: match, initial: "none", public: true}
          r: {type: rank, scope: match, initial: "rank(\\"9H\\")", public: true}
          k: {type: card, scope: match, initial: "none", public: true}
        """)
    v = load_variant(p)
    n, c, s, d, u, r, k = v.variables
    # 29: seats 0..3, sides 0 and 1, suits S H D C, ranks J 9 A T K Q 8 7 (§29)
    cases = [(n, -7), (c, True), (s, 3), (s, -1), (d, 1), (u, v.deck.suits.index("D")), (u, -1),
             (r, v.deck.ranks.index("9")), (k, v.deck.parse("QH")), (k, -1)]
    for var, value in cases:
        data = v.variable_json(var, value)
        assert v.variable_value(var, json.loads(json.dumps(data))) == value
    assert v.variable_json(k, v.deck.parse("QH")) == "QH" and v.variable_json(s, -1) is None
    for var, data in [(n, "3"), (c, None), (s, 4), (d, 2), (s, True), (u, "X"), (r, "2"), (k, "1H")]:
        with pytest.raises(ValueError):
            v.variable_value(var, data)


def test_next_dealer_keeps_the_dealer_when_the_other_side_makes_its_contract(tmp_path):
    """The guide's example. Dealer 3 (side 1); seat 0 (side 0) declares."""
    p = write(tmp_path, """\
        match:
          next_dealer: |
            when made and not same_side(dealer, declarer): dealer
            else: next(dealer)
        """)
    v = load_variant(p)
    m = Match(v, seed=1)
    g5_deal(m, 15)             # made by the other side: seat 3 deals again
    assert m.dealer == 3
    g5_deal(m, 16)             # failed: the deal passes to next(3) = 0
    assert m.dealer == 0
    court_deal(m, side=1)      # seat 1, on the dealer's side, makes it: next(3) = 0
    assert m.dealer == 0
    court_deal(m, side=0)      # seat 0, not on dealer 3's side, makes it: 3 keeps it
    assert m.dealer == 3
    # the rule is shown in plain words in `taash rules`
    assert ("After each deal the next dealer is (the dealer's left when none is named):\n"
            "- when the contract is made and not (the dealer and the declarer are on the same "
            "side): the dealer\n- otherwise: the dealer's left\nIn order:") in render(v)


def test_shipped_dealer_keeps_variant(tmp_path):
    """house/29-dealer-keeps (Court Piece's dealing rule on 29), worked by hand from its
    file. Dealer 3 is on side 1; seat 0 (side 0) declares."""
    v = load_variant("house/29-dealer-keeps")
    m = Match(v, seed=1)
    st = g5_deal(m, 15)        # side 0 makes it: the dealer's side lost, no court: 3 keeps
    assert (st.result()["variables"], m.dealer) == ({"winners": 0, "kept": 1}, 3)
    st = g5_deal(m, 15)        # again: kept twice in a row
    assert (st.result()["variables"], m.dealer) == ({"winners": 0, "kept": 2}, 3)
    st = g5_deal(m, 16)        # side 0 fails: side 1, the dealer's, wins: next(3) = 0 deals
    assert (st.result()["variables"], m.dealer, m.scores) == ({"winners": 1, "kept": 0}, 0, [1, 0])
    st = court_deal(m)         # dealer 3 again; side 0 takes all 8 tricks: the partner deals
    assert st.side_tricks == [8, 0] and st.made
    assert (st.result()["variables"], m.dealer) == ({"winners": 0, "kept": 0}, 1)
    # every seat sees the public variables; a record holds the match one, and replays
    obs = [m.new_deal().observation(s)["variables"] for s in range(4)]
    assert obs == [{"winners": None, "kept": 0}] * 4
    rec = m.record()
    assert [d["variables"] for d in rec["deals"]] == [{"kept": 0}, {"kept": 1}, {"kept": 2}, {"kept": 0}]
    again = replay(json.loads(json.dumps(rec)))
    assert replay_json(again) == replay_json(m) and again.dealer == 1
    text = render(v)
    assert "- `kept` (a number, shown to every player): deals in a row the same dealer has " \
           "dealt again; set at the start of the match and kept from deal to deal, to 0." in text
    assert "- `kept` becomes 0 if " in text


def test_next_and_previous_wrap_around_the_table(tmp_path):
    """docs/rules.md §0.1: next(s) = (s + 1) mod n; previous is its inverse; none stays none."""
    p = write(tmp_path, """\
        variables:
          a: {type: seat, scope: deal, initial: next(dealer)}
          b: {type: seat, scope: deal, initial: previous(eldest)}
          c: {type: seat, scope: deal, initial: previous(next(next(dealer)))}
          d: {type: seat, scope: deal, initial: next(none)}
        """)
    v = load_variant(p)
    assert State(v, dealer=3, hands=G5_HANDS).vars == [0, 3, 0, -1]
    assert State(v, dealer=1, hands=G5_HANDS).vars == [2, 1, 2, -1]


def test_hidden_variables_reach_no_observation_nor_replay_json(tmp_path):
    p = write(tmp_path, """\
        variables:
          seen: {type: number, scope: deal, initial: 0}
          shown: {type: number, scope: match, initial: 5, public: true}
        play:
          after_trick: |
            seen += 1
            shown += 1
        """)
    m = Match(load_variant(p), seed=3)
    st = g5_deal(m, 15)
    assert st.vars == [8, 13]
    assert st.result()["variables"] == {"shown": 13}
    assert all(st.observation(s)["variables"] == {"shown": 13} for s in range(4))
    assert m.record()["deals"][0]["variables"] == {"shown": 5}   # at the deal's start


def test_number_variables_are_clamped(tmp_path):
    p = write(tmp_path, """\
        variables:
          big: {type: number, scope: match, initial: 2}
        play:
          after_trick: big = big * big
        """)
    m = Match(load_variant(p), seed=1)
    st = g5_deal(m, 15)   # 2, 4, 16, 256, 65536, 2**32 (over the limit) -> 10**9, ...
    assert st.vars == [names.VARIABLE_LIMIT]


def test_schema_types_are_the_registry_types():
    schema = json.loads((ROOT / "grammar" / "variant.schema.json").read_text())
    spec = schema["properties"]["variables"]["additionalProperties"]["properties"]
    assert tuple(spec["type"]["enum"]) == names.VARIABLE_TYPES


# -- records ----------------------------------------------------------------------------------

def test_a_record_whose_variables_differ_is_refused(tmp_path):
    m = Match(load_variant(write(tmp_path, STAKE)), seed=1)
    g5_deal(m, 16)
    g5_deal(m, 15)
    rec = m.record()
    assert [d["variables"] for d in rec["deals"]] == [{"stake": 1}, {"stake": 2}]
    rec["deals"][1]["variables"] = {"stake": 3}
    with pytest.raises(RecordError, match=r"deal 2: the record has stake = 3 at the deal's start, "
                                          r"but the replay reaches 2"):
        replay(rec)
    rec["deals"][1]["variables"] = {"stakes": 2}
    with pytest.raises(RecordError, match="names a variable 'stakes'"):
        replay(rec)
    rec["deals"][1]["variables"] = [2]
    with pytest.raises(RecordError, match="'variables' must be an object"):
        replay(rec)
    del rec["deals"][1]["variables"]     # optional: a record without them replays
    assert replay_json(replay(rec)) == replay_json(m)


def test_a_variant_without_match_variables_writes_records_as_before():
    m = Match(load_variant("29"), seed=1)
    st = m.new_deal()
    rng = random.Random(1)
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
    m.finish_deal(st)
    assert set(m.record()["deals"][0]) == {"dealer", "hands", "widow", "actions"}
    assert "variables" not in st.result()


def test_replay_text_shows_public_variables(tmp_path):
    """`taash replay` (a real process) prints the public variables in each deal's line."""
    m = Match(load_variant("house/29-dealer-keeps"), seed=1)
    g5_deal(m, 15)
    g5_deal(m, 16)
    p = tmp_path / "rec.json"
    p.write_text(json.dumps(m.record()))
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "replay", str(p)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].endswith("score change [1, 0, 1, 0]; winners 0; kept 1"), lines[1]
    assert lines[2].endswith("score change [-1, 0, -1, 0]; winners 1; kept 0"), lines[2]


# -- re-deal invariance: a hidden and a public variable -----------------------------------------

# 28 (docs/rules.md §28.5): the trump suit lies face down. `trump_then` keeps it (hidden: the
# rules may know it, no player may); `first` is the winner of trick 1 (public: every
# player saw the trick).
INVARIANCE = """\
extends: "28"
name: vars-28
variables:
  trump_then: {type: suit, scope: deal, initial: none, public: PUBLIC}
  first: {type: seat, scope: deal, initial: none, public: true}
play:
  after_trick: |
    trump_then = trump
    when first == none: first = winner
"""


def _points_after_trick_1(v, seeds):
    """States of 28 after trick 1 with trump still face down, for each seed."""
    for seed in seeds:
        st = Match(v, seed).new_deal()
        rng = random.Random(seed)
        while not st.is_terminal and len(st.tricks) < 1:
            legal = [a for a in st.legal_actions() if a != "expose"]
            st.apply(rng.choice(legal))
        if st.trump_card >= 0 and st.tricks:
            yield st


def _redeal_changes(st, rng) -> tuple[int, int]:
    """(re-deals compared, re-deals that changed a seat's observation) over the seats
    other than the declarer (who alone sees the face-down card)."""
    compared = changed = 0
    for me in range(st.v.players):
        if me == st.declarer:
            continue
        for _assignment, _built, steps in redeals(st, Redealer(st, me), rng, 10):
            if steps is not None:
                compared += 1
                changed += any(a != b for _, a, b in steps)
    return compared, changed


def test_a_hidden_variable_keeps_observations_invariant_and_a_public_one_would_not(tmp_path):
    hidden = tmp_path / "hidden.yaml"
    hidden.write_text(INVARIANCE.replace("PUBLIC", "false"))
    shown = tmp_path / "shown.yaml"
    shown.write_text(INVARIANCE.replace("PUBLIC", "true"))
    rng = random.Random(5)
    v = load_variant(hidden)
    total = 0
    for st in _points_after_trick_1(v, range(12)):
        assert st.vars[1] == st.tricks[0][2]           # the public one is set
        compared, changed = _redeal_changes(st, rng)
        assert changed == 0
        total += compared
    assert total > 20
    # the negative control: the face-down suit made public leaks, and the check sees it
    v = load_variant(shown)
    leaked = sum(_redeal_changes(st, rng)[1] for st in _points_after_trick_1(v, range(12)))
    assert leaked > 0


# -- broken files: located errors ----------------------------------------------------------------
# case -> (file after HEAD, line, column, what the message says). Lines of STAKE: 3
# `variables:`, 4 `  stake:`, 7 `    initial: 1`, 10 `  effect: |`, 13 its last statement.
BROKEN = {
    "an undeclared variable assigned (a misspelt name)": (
        STAKE.replace("stake = 1 if", "stakes = 1 if"), 13, 5,
        "scoring.effect: 'stakes' is named here but never used (did you mean 'stake'?); "
        "to keep a value, declare a variable under `variables:`"),
    "an undeclared variable added to": (
        STAKE.replace("stake = 1 if made else stake + 1", "pot += 1"), 13, 5,
        "scoring.effect: cannot assign to 'pot' (assignable: score, side, target, trump, stake; "
        "declare a variable under `variables:`"),
    "a value of the wrong type": (
        STAKE.replace("stake = 1 if made else stake + 1", "stake = made"), 13, 13,
        "scoring.effect: the value assigned to 'stake' should be a number, not a condition"),
    "'+=' on a seat": (
        "variables:\n  who: {type: seat, scope: deal, initial: none}\nplay:\n  after_trick: who += 1\n",
        6, 16, "'+=' changes a number; 'who' is a seat: write `who = ...`"),
    "an assignment outside an effect": (
        STAKE + "match:\n  ends: stake = 3\n", 15, 15,
        "unexpected '=': to compare, write '=='; '=' only sets a value, at the start of a "
        "statement of an effect"),
    "an initial value of the wrong type": (
        STAKE.replace("initial: 1", "initial: dealer"), 7, 14,
        "variables.stake.initial: this rule should be a number, not a seat"),
    "an initial value reading a later variable": (
        "variables:\n  a: {type: number, scope: deal, initial: b + 1}\n"
        "  b: {type: number, scope: deal, initial: 0}\n", 4, 43,
        "variables.a.initial: unknown name 'b'"),
    "a variable named like an engine name": (
        STAKE.replace("  stake:\n", "  dealer:\n"), 4, 3,
        "variable 'dealer' has the name of an engine value or function; choose another name"),
    "a variable named like a keyword": (
        STAKE.replace("  stake:\n", "  none:\n"), 4, 3,
        "variable 'none' is a keyword of the rules language"),
    "a variable named like a named expression": (
        "define:\n  stake: 1\n" + STAKE, 6, 3,
        "variable 'stake' has the name of a named expression (`define:`)"),
    "a variable of an unknown type": (STAKE.replace("type: number", "type: int"), 5, 11,
                                      'variables.stake.type: "int" is not one of "number", "condition"'),
    "a next dealer that is not a seat": (
        "match:\n  next_dealer: made\n", 4, 16,
        "match.next_dealer: this rule should be a seat, not a condition"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_file(tmp_path, case):
    body, line, column, fragment = BROKEN[case]
    pr = problem(write(tmp_path, body))
    assert (pr.line, pr.column) == (line, column), pr.format(False)
    assert fragment in pr.message, pr.message
