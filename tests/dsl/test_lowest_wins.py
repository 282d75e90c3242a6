"""`match.winner: lowest`: the lowest score wins the match (docs/authoring.md, "Scoring
and the match"). Base: docs/examples/queen-hunt.yaml (3 players, each for himself, no
auction)."""

from __future__ import annotations

from taash.interpreter import Match, load_variant
from taash.interpreter.rulebook import render

from tests.helpers import ROOT

QUEEN_HUNT = ROOT / "docs" / "examples" / "queen-hunt.yaml"


def one_deal_match(tmp_path, winner: str | None):
    """The eldest scores 5 in the one deal of the match; the others 0."""
    p = tmp_path / f"m-{winner}.yaml"
    p.write_text(f'extends: "{QUEEN_HUNT}"\nname: m\nscoring:\n  effect: "score[eldest] += 5"\n'
                 'match:\n  ends: deals_played >= 1\n' + (f"  winner: {winner}\n" if winner else ""))
    m = Match(load_variant(p), seed=4)
    st = m.new_deal()
    eldest = (st.dealer + 1) % 3
    while not st.is_terminal:
        st.apply(st.default_action())
    m.finish_deal(st)
    return m, eldest


def test_the_lowest_score_wins(tmp_path):
    m, eldest = one_deal_match(tmp_path, "lowest")
    assert m.over and m.ended_by == "rule"
    assert m.seat_scores()[eldest] == 5 and sum(m.seat_scores()) == 5
    assert m.winners == [s for s in range(3) if s != eldest]     # the two at 0
    hi, eldest_hi = one_deal_match(tmp_path, None)                   # the default: highest
    assert hi.winners == [eldest_hi]
    assert one_deal_match(tmp_path, "highest")[0].winners == [eldest_hi]


def test_the_rulebook_says_so(tmp_path):
    m, _ = one_deal_match(tmp_path, "lowest")
    assert "Every player with the lowest score wins." in render(m.v)
