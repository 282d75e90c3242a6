"""A `declare` step's `may_pass` (docs/authoring.md, "Declarations before the first
lead"): a seat may pass only when it holds, or when he may make no declaration (the legal
actions are never empty). Deal G5 (tests/helpers/rules.py): dealer 3, eldest 0; seat 0
bids 15 and names spades."""

from __future__ import annotations

from taash.interpreter import State, load_variant
from taash.interpreter.rulebook import render

from tests.helpers.rules import G5_HANDS, do

ALONE = '''extends: "29"
name: alone
flow:
  - deal: [4]
  - auction
  - trump
  - deal: [4]
  - declare: eldest{may_pass}
  - play
declarations:
  alone:
    at: flow
    when: me == declarer
    effect: |
      sits_out[partner_of(me)] = true
      target += 4
'''


def at_the_step(tmp_path, may_pass: str) -> State:
    p = tmp_path / "alone.yaml"
    p.write_text(ALONE.format(may_pass=may_pass))
    st = State(load_variant(p), dealer=3, hands=[list(h) for h in G5_HANDS])
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    assert st.phase == "declare" and st.to_act == 0
    return st


def test_the_declarer_must_declare_when_he_may_not_pass(tmp_path):
    st = at_the_step(tmp_path, "\n    may_pass: me != declarer")
    assert st.legal_actions() == ["declare alone"]       # seat 0, the declarer: no pass
    st.apply("declare alone")
    assert st.to_act == 1 and st.legal_actions() == ["pass"]   # may pass (and may not declare)
    st.apply("pass")
    # seat 2 sits out (the declarer's partner); seat 3 may pass
    assert st.to_act == 3 and st.legal_actions() == ["pass"]


def test_a_seat_that_may_not_pass_and_may_not_declare_passes(tmp_path):
    st = at_the_step(tmp_path, "\n    may_pass: false")
    assert st.legal_actions() == ["declare alone"]
    st.apply("declare alone")
    assert st.legal_actions() == ["pass"]        # seat 1: no declaration holds, so pass


def test_without_may_pass_pass_is_offered(tmp_path):
    st = at_the_step(tmp_path, "")
    assert st.legal_actions() == ["pass", "declare alone"]


def test_the_rulebook_says_when_a_seat_may_pass(tmp_path):
    st = at_the_step(tmp_path, "\n    may_pass: me != declarer")
    assert ("may make one declaration (see Declarations) or pass (he may pass only when the player "
            "is not the declarer, or when he may make no declaration)") in render(st.v)
