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


def test_the_search_bots_value_a_deal_by_the_lowest_score(tmp_path):
    """The eldest's +5 (the others 0, three players each for himself) is worth 5 - 0 = 5
    to him where the highest wins and -5 where the lowest does; to another seat
    0 - (5 + 0) / 2 = -2.5, and +2.5 with the lowest winning (the card points' tie-break
    left out: weight 0). The bot's own value (with the tie-break) turns over likewise:
    the same seed and default actions play the same deal in both matches."""
    from taash.arena.bots.search import SearchBot, deal_value
    values = {}
    for winner, sign in (("highest", 1), ("lowest", -1)):
        m, eldest = one_deal_match(tmp_path, winner)
        st, other = m.deals[0], (eldest + 1) % 3
        lowest = winner == "lowest"
        assert (deal_value(st, eldest, 0.0, lowest), deal_value(st, other, 0.0, lowest)) == (sign * 5, sign * -2.5)
        bot = SearchBot(m.v)
        values[winner] = [bot.value(st, s) for s in range(3)]
    assert values["lowest"] == [-x for x in values["highest"]] and values["highest"] != [0.0] * 3
