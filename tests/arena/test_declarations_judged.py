"""The shipped bots judge an optional declaration that commits the player (here, to take
every trick alone: docs/examples/three-hand-alone.yaml, the worked example of
docs/authoring.md): they decline it with an ordinary hand and make it with a hand that
surely wins every trick. (Before, the heuristic declared it whenever offered.)"""

from __future__ import annotations

from taash.interpreter import Match, State, load_variant
from taash.arena.bots import registry
from taash.arena.bots.heuristic import COMMITS
from taash.arena.bots.search import SearchBot

from tests.helpers import ROOT

EXAMPLE = ROOT / "docs" / "examples" / "three-hand-alone.yaml"
# dealer 0: seat 2 holds every heart and AS KS; with hearts trump each of his cards wins
HANDS = [["TD", "9D", "AC", "KC", "QC", "JC", "TC", "9C"],
         ["QS", "JS", "TS", "9S", "AD", "KD", "QD", "JD"],
         ["AH", "KH", "QH", "JH", "TH", "9H", "AS", "KS"]]


def _declares(v, bots, deals):
    """(declaration steps offered, declarations made) over ``deals`` deals."""
    offered = made = 0
    for seed in range(deals):
        st = Match(v, seed).new_deal()
        while not st.is_terminal:
            seat, legal = st.to_act, st.legal_actions()
            bot = bots[seat]
            a = (bot.decide_state(st, seat) if hasattr(bot, "decide_state")
                 else bot.decide(st.observation(seat), list(legal)))
            offered += "declare alone" in legal
            made += a == "declare alone"
            st.apply(a)
    return offered, made


def _at_the_lone_hand(v):
    st = State(v, dealer=0, hands=HANDS)
    st.apply("trump H")
    st.apply("pass")                      # seat 1, the eldest
    assert st.to_act == 2 and "declare alone" in st.legal_actions()
    return st


def test_the_example_s_declaration_commits_the_player():
    text = EXAMPLE.read_text()
    assert COMMITS.search("declarer = me\ntarget = tricks")
    assert "declarer = me" in text
    # a marriage-like change of the target is no commitment (28's)
    assert not COMMITS.search("when same_side(me, declarer): target = min(target, max(16, target - 4))")
    assert not COMMITS.search("target -= 4")


def test_the_heuristic_declines_with_ordinary_hands():
    v = load_variant(EXAMPLE)
    bots = [registry.make("heuristic", v, seed=s) for s in range(3)]
    offered, made = _declares(v, bots, 40)
    assert offered == 3 * 40      # every seat is offered it once a deal (nobody took it)
    assert made <= offered // 10


def test_the_heuristic_declares_with_a_hand_that_surely_wins():
    v = load_variant(EXAMPLE)
    st = _at_the_lone_hand(v)
    bot = registry.make("heuristic", v, seed=0)
    assert bot.decide(st.observation(2), list(st.legal_actions())) == "declare alone"
    # seat 1 (QS JS TS 9S AD KD QD JD, no heart) passed; so would seat 0
    st.apply("pass")
    assert bot.decide(st.observation(0), list(st.legal_actions())) == "pass"


def test_search_weighs_the_declaration_like_any_action():
    v = load_variant(EXAMPLE)
    bots = [SearchBot(v, seed=s, budget_ms=None, playouts=40) for s in range(3)]
    offered, made = _declares(v, bots, 5)
    assert offered == 15 and made <= 2
    st = _at_the_lone_hand(v)
    assert bots[2].decide_state(st, 2) == "declare alone"
