"""A `declare:` step before the auction and a deal ended void by `redeal`
(docs/authoring.md, "A redeal"; variants/house/28-redeal.yaml).

Expected values are worked out by hand from the rules written here on the deal below
(dealer 3, so seat 0 is the eldest and the next dealer, as 29 and 28 pass the deal to
the next seat). The first four cards of each hand are its first packet.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest

from taash.interpreter import Match, load_variant, replay, replay_json

from tests.dsl.test_broken_files import check, write as broken_write
from tests.helpers import ROOT
from tests.helpers.props import Redealer, redeals
from tests.helpers.rules import do, hands

GUIDE = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
EXAMPLE = re.search(r"```yaml\n(extends: \"29\"\nname: redeal-example\n.*?)```", GUIDE, re.S).group(1)

# seat 0: 9S AH TD 7C first (no jack, and 9 A T: points); seat 1: JS 8H 7D KC first;
# seat 2: KS QH 9D AC first; seat 3: 8S 7H KD QC first (no point: K Q 8 7)
DEAL = hands(
    "9S AH TD 7C JH QS 8D 9C",
    "JS 8H 7D KC AS TH JD 8C",
    "KS QH 9D AC TS 9H AD JC",
    "8S 7H KD QC 7S KH QD TC",
)


def test_the_guides_example_a_player_without_a_jack_calls_for_a_redeal(tmp_path):
    """Seats 0 (9S AH TD 7C), 2 (KS QH 9D AC) and 3 (8S 7H KD QC) hold no jack in their
    first four and may call `no-jack`; seat 1 (JS 8H 7D KC) may only pass. Seat 0 passes,
    seat 2 calls: the deal ends there, void, nothing scored, and seat 0 deals next."""
    p = tmp_path / "redeal.yaml"
    p.write_text(EXAMPLE)
    v = load_variant(p)
    m = Match(v, seed=1)
    st = m.new_deal(hands=DEAL, dealer=3)
    assert st.phase == "declare" and st.to_act == 0
    assert [str(a) for a in st.legal_actions()] == ["pass", "no-jack"]   # pass first
    do(st, "0 pass")
    assert [str(a) for a in st.legal_actions()] == ["pass"]              # seat 1 holds JS
    do(st, "1 pass")
    assert [str(a) for a in st.legal_actions()] == ["pass", "no-jack"]   # KS QH 9D AC
    do(st, "2 no-jack")
    assert st.is_terminal and st.observation(1)["void"] is True
    assert st.observation(3)["declared"] == ["no_jack"]
    r = st.result()
    assert (r["void"], r["made"], r["declarer"], r["score_change"]) == (True, None, None, [0, 0, 0, 0])
    m.finish_deal(st)
    assert m.scores == [0, 0]
    nxt = m.new_deal()
    assert (nxt.dealer, nxt.observation(0)["void"]) == (0, False)        # the next seat deals


def test_28_redeal_a_pointless_first_four(tmp_path):
    """28-redeal: only seat 3 (8S 7H KD QC: no J, 9, A or T) may call `redeal`. Seats 0, 1, 2
    pass; seat 3 calls it: the deal is void, nothing scored; the record replays it, and
    `taash replay` says so."""
    v = load_variant("house/28-redeal")
    m = Match(v, seed=4)
    st = m.new_deal(hands=DEAL, dealer=3)
    for seat in (0, 1, 2):
        assert [str(a) for a in st.legal_actions()] == ["pass"]
        do(st, f"{seat} pass")
    assert [str(a) for a in st.legal_actions()] == ["pass", "redeal"]
    do(st, "3 redeal")
    assert st.is_terminal and st.result()["void"] is True
    m.finish_deal(st)
    st = m.new_deal()
    assert st.dealer == 0 and st.phase == "declare"
    rec = m.record()
    again = replay(rec)
    out = replay_json(again)
    assert out["deals"][0]["void"] is True and out["match"]["score"] == [0, 0, 0, 0]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    text = subprocess.run([sys.executable, "-m", "taash.arena.cli", "replay", str(path)],
                          capture_output=True, text=True, check=True).stdout
    assert "deal 1: dealer 3: void (seat 3 called redeal); nothing scored" in text


def test_a_deal_not_voided_plays_as_28(tmp_path):
    """Every seat passing the redeal goes on to 28's auction, from the eldest (seat 0)."""
    st = Match(load_variant("house/28-redeal"), seed=4).new_deal(hands=DEAL, dealer=3)
    do(st, "0 pass", "1 pass", "2 pass", "3 pass")
    assert (st.phase, st.to_act, "void" in st.result()) == ("auction", 0, False)


def test_a_void_deal_keeps_observations_invariant_under_a_redeal():
    """Re-dealing the cards a seat cannot see leaves its observation the same through the
    declare step before the auction and the void."""
    v = load_variant("house/28-redeal")
    rng = random.Random(7)
    compared = 0
    for seed in range(40):
        st = Match(v, seed=seed).new_deal()
        while st.phase == "declare" and not st.is_terminal:
            legal = st.legal_actions()
            st.apply(legal[-1])          # call the redeal when one may
        for me in range(4):
            for _a, _b, steps in redeals(st, Redealer(st, me), rng, 5):
                if steps is not None:
                    compared += 1
                    assert all(a == b for _, a, b in steps)
    assert compared > 20


BROKEN = {
    "redeal in the scoring": (
        'extends: "29"\nname: x\nscoring:\n  effect: redeal\n', 4, 11,
        "'redeal' ends a deal before play: only in the effect of a declaration with `at: flow`"),
    "redeal in a declaration made in play": (
        'extends: "29"\nname: x\ndeclarations:\n  quit:\n    when: "true"\n    effect: redeal\n', 6, 13,
        "'redeal' ends a deal before play: only in the effect of a declaration with `at: flow`"),
    "redeal as a name": (
        'extends: "29"\nname: x\nvariables:\n  redeal: {type: number, scope: deal, initial: 0}\n', 4, 3,
        "variable 'redeal' is a keyword of the rules language"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_file(tmp_path, case):
    body, line, column, fragment = BROKEN[case]
    check(broken_write(tmp_path, body), line, column, fragment)


def test_the_heuristic_calls_a_redeal_with_a_weak_hand_only(tmp_path):
    """The heuristic bot calls `redeal` with a hand weaker than an average one of four
    cards. 28's points: J 3, 9 2, A 1, T 1 (28 in 32 cards): an average four hold 3.5.
    Seat 3's 8S 7H KD QC hold 0 (under 1.75), and each has at least four cards of its
    suit above it unseen, a chance of 0.05 to win a trick: 0.2 likely tricks, under its
    share 4 / 4 = 1: weak, it calls. In a file where anyone may call, seat 2's KS QH 9D
    AC hold 2 + 1 = 3 points (at least 1.75): not weak, it passes; seat 3 still calls."""
    from taash.arena.bots.heuristic import HeuristicBot

    def choice(v, seat, st):
        obs = st.observation(seat)
        return HeuristicBot(v.data).decide(obs, obs["legal_actions"])

    v = load_variant("house/28-redeal")
    st = Match(v, seed=4).new_deal(hands=DEAL, dealer=3)
    do(st, "0 pass", "1 pass", "2 pass")
    assert choice(v, 3, st) == "redeal"
    p = tmp_path / "anyone.yaml"
    p.write_text('extends: "house/28-redeal"\nname: anyone-redeals\ndeclarations:\n  redeal:\n'
                 '    at: flow\n    action: redeal\n    when: "true"\n    effect: redeal\n')
    v = load_variant(p)
    st = Match(v, seed=4).new_deal(hands=DEAL, dealer=3)
    do(st, "0 pass", "1 pass")
    assert [str(a) for a in st.legal_actions()] == ["pass", "redeal"]
    assert choice(v, 2, st) == "pass"
    do(st, "2 pass")
    assert choice(v, 3, st) == "redeal"
