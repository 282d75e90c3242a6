"""The ismcts bot (arena/bots/ismcts.py): legal answers over whole deals of every shipped
variant, in process and from the observation alone; determinism for a seed with a
playout budget; decisions that read only the seat's information; a forced win worked out
by hand; its settings, its registry entry and its flags on `taash bot`."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from taash.arena.bots import registry
from taash.arena.bots.ismcts import ISMCTSBot, ismcts_bot
from taash.interpreter import Match, State, load_variant, shipped_variants
from taash.interpreter.playout import play
from tests.helpers.states import random_states, same_choices


@pytest.mark.parametrize("name", shipped_variants())
def test_only_legal_actions_over_a_whole_deal(name):
    """A whole deal of every shipped variant (house/ ones too) with ismcts in every seat:
    the seats of even number decide in process (``decide_state``), the others from the
    observation alone (``decide``, as the arena sends it); every answer is legal and the
    state a seat decides on is unchanged by its decision."""
    v = load_variant(name)
    bot = ISMCTSBot(v, seed=1, budget_ms=None, playouts=8)
    st = Match(v, seed=len(name)).new_deal()
    decisions = 0
    while not st.is_terminal:
        seat = st.to_act
        legal = st.legal_actions()
        before = st.observation(seat)
        if seat % 2 == 0:
            a = bot.decide_state(st, seat)
            assert a in legal
        else:
            a = bot.decide(json.loads(json.dumps(before)), [str(x) for x in legal])
            assert isinstance(a, str) and a in legal
        assert st.observation(seat) == before
        if len(legal) > 1:
            decisions += 1
            assert bot.stats["iterations"] == 8 or bot.stats.get("rebuilt") is False
        st.apply(a)
    assert decisions > 0


def test_deterministic_for_a_seed_with_a_playout_budget():
    """Same seed, same observation, a playout budget: the same action, whatever the bot
    did before; and two whole games with the same seeds are the same game."""
    for name in ("29", "56"):
        for one, two in same_choices(lambda v: ISMCTSBot(v, seed=9, budget_ms=None, playouts=60), name, 3):
            assert one.stats["visits"] == two.stats["visits"]
    v = load_variant("28")
    games = []
    for _ in range(2):
        bots = [ISMCTSBot(v, seed=s, budget_ms=None, playouts=10) for s in range(4)]
        m = play(Match(v, seed=5), bots, max_deals=2)
        games.append([[(t, str(a)) for t, a in d.history] for d in m.deals] + [m.scores])
    assert games[0] == games[1] and len(games[0]) == 3


@pytest.mark.parametrize("name", ["28", "29", "304", "56", "house/29-hidden-trump"])
def test_reads_only_its_information(name):
    """Re-deal the cards the seat cannot see (``state.resample(seat, rng)``): the seat's
    observation is the same, and so is the decision with a playout budget, in process
    and from the observation."""
    for v, st in random_states(name, 3, seed=17):
        seat = st.to_act
        other = st.resample(seat, random.Random(4))
        assert other.observation(seat) == st.observation(seat)
        bot = ISMCTSBot(v, seed=2, budget_ms=None, playouts=30)
        a = bot.decide_state(st, seat)
        visits = bot.stats["visits"]
        assert bot.decide_state(other, seat) == a and bot.stats["visits"] == visits
        legal = [str(x) for x in st.legal_actions()]
        assert bot.decide(st.observation(seat), legal) == bot.decide(other.observation(seat), legal)


# A deal of 29 (docs/rules.md §29) worked out by hand. Dealer 0; seat 1 bids 16, the others
# pass, seat 1 names spades: seats 1 and 3 must take 16 of the 29 points (J 3, 9 2, A 1,
# T 1 in each suit, 1 for the last trick). Every seat holds two cards of each suit, so
# every trick follows suit:
#   1: JS 7S 8S 9S, seat 1 wins 5    2: AS KS QS TS, seat 1 wins 2
#   3: 7H JH 8H 9H, seat 2 wins 5    4: AH TH KH QH, seat 2 wins 2
#   5: 7D AD 8D TD, seat 3 wins 2    6: QD JD 9D KD, seat 0 wins 5
# so seats 1 and 3 have 9 points. Trick 7: seat 0 leads AC, seat 1 plays TC, seat 2 9C;
# seat 3 holds JC and 7C. JC takes the trick's 7 points: 16, the contract is made
# whatever the last trick (KC, QC, 8C and 7C, wherever the others' clubs are). 7C leaves
# the trick (4 points) to seat 2's 9C; JC then wins the last trick, 3 + 1: 13, short.
HANDS_29 = ["9S TS 9H KH 8D JD AC KC", "JS AS 7H QH TD 9D TC QC",
            "7S KS JH AH 7D KD 9C 8C", "8S QS 8H TH AD QD JC 7C"]
PLAYS_29 = "JS 7S 8S 9S AS KS QS TS 7H JH 8H 9H AH TH KH QH 7D AD 8D TD QD JD 9D KD AC TC 9C"


def _forced_win():
    v = load_variant("29")
    st = State(v, dealer=0, hands=[h.split() for h in HANDS_29])
    for a in ["bid 16", "pass", "pass", "pass", "trump S"] + ["play " + c for c in PLAYS_29.split()]:
        st.apply(a)
    return v, st


def test_the_hand_worked_position_is_as_worked_out():
    """The position above: seat 3 to play JC or 7C; played out, JC makes the contract
    (+1 to seats 1 and 3) and 7C fails it (-1), as worked out by hand."""
    v, st = _forced_win()
    assert st.to_act == 3 and sorted(map(str, st.legal_actions())) == ["play 7C", "play JC"]
    pts = st.seat_points
    assert pts[1] + pts[3] == 9
    for card, change in (("JC", [0, 1, 0, 1]), ("7C", [0, -1, 0, -1])):
        s = st.copy()
        s.apply("play " + card)
        while not s.is_terminal:
            s.apply(s.legal_actions()[0])
        assert s.score_change() == change


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finds_the_forced_win(seed):
    """With a modest playout budget ismcts plays JC, in process and from the observation."""
    v, st = _forced_win()
    bot = ISMCTSBot(v, seed=seed, budget_ms=None, playouts=40)
    assert str(bot.decide_state(st, 3)) == "play JC"
    assert bot.stats["visits"]["play JC"] > bot.stats["visits"]["play 7C"]
    assert bot.decide(st.observation(3), [str(a) for a in st.legal_actions()]) == "play JC"


def test_settings_are_arguments():
    """The factory passes its settings on; a setting out of range, or no budget at all,
    is refused."""
    v = load_variant("28")
    bot = ismcts_bot(v, 3, budget_ms=None, playouts=8, exploration=1.5, greedy=0.5)
    assert (bot.budget_ms, bot.playouts, bot.exploration, bot.rollout.greedy) == (None, 8, 1.5, 0.5)
    for bad in ({"exploration": -1}, {"greedy": 1.5}, {"budget_ms": None}):
        with pytest.raises(ValueError):
            ISMCTSBot(v, 0, **bad)


def test_registered_with_its_flags():
    """`ismcts` is in the registry and `taash bot --help`; `taash bot ismcts` takes
    --exploration and the shared --budget-ms/--playouts/--greedy, but a search-only flag
    (--prior-z) is a usage error, and --exploration with search or heuristic too."""
    e = registry.get("ismcts")
    assert e.load() is ismcts_bot and e.arena
    assert "--exploration" in e.description

    def taash(*args):
        return subprocess.run([sys.executable, "-m", "taash.arena.cli", *args],
                              capture_output=True, text=True, timeout=60)
    r = taash("bot", "--help")
    assert r.returncode == 0 and "ismcts" in r.stdout and "--exploration" in r.stdout
    r = taash("bot", "ismcts", "--prior-z", "1", "--token", "t")
    assert r.returncode == 2
    assert r.stderr.strip() == "taash: error: --prior-z: settings of the search bot, not of 'ismcts'"
    r = taash("bot", "search", "--exploration", "1", "--token", "t")
    assert r.returncode == 2
    assert r.stderr.strip() == "taash: error: --exploration: settings of the ismcts bot, not of 'search'"
    r = taash("bot", "heuristic", "--exploration", "1", "--token", "t")
    assert r.returncode == 2
    assert r.stderr.strip() == "taash: error: --exploration: settings of the ismcts bot, not of 'heuristic'"
    r = taash("bot", "ismcts", "--exploration", "-1", "--token", "t")
    assert r.returncode == 2 and "argument --exploration: must be at least 0, not -1" in r.stderr


def test_the_tree_branches_on_the_lowest_bid_of_each_denomination():
    """56 (docs/rules.md §56.4): the eldest must open with a bid, 28 to 56, in one of six
    denominations (S H D C, NT, NOES); of its 174 bids (290 texts: a suit may also come first, §56.5) the
    tree branches on the six bids of 28 only. After his bid of 30 H the next seat, of
    the other side, may pass, double, or bid 31 and up: pass, double and the six bids
    of 31."""
    from taash.arena.bots.ismcts import children_of
    v = load_variant("56")
    st = Match(v, 1).new_deal()
    kids = sorted(str(v.actions[i]) for i in children_of(st.legal_ids(), v.actions).values())
    assert kids == sorted(f"bid 28 {d}" for d in ("S", "H", "D", "C", "NT", "NOES"))
    st.apply("bid 30 H")
    kids = sorted(str(v.actions[i]) for i in children_of(st.legal_ids(), v.actions).values())
    assert kids == sorted(["pass", "double"] + [f"bid 31 {d}" for d in ("S", "H", "D", "C", "NT", "NOES")])


def test_one_match_over_the_arena(tmp_path):
    """`taash bot ismcts --exploration 1` as a process plays two deals of 29 through the
    arena against `taash bot search`, with no fault and no verdict."""
    from tests.helpers.arena_util import two_clean_deals
    two_clean_deals(tmp_path, "29", {"i1": ["ismcts", "--budget-ms", "20", "--exploration", "1"],
                                     "s1": ["search", "--budget-ms", "20"]}, ["i1", "s1", "i1", "s1"])


@settings(max_examples=25, deadline=None)
@given(name=st_.sampled_from(["29", "56", "304-solo", "court-piece"]), seed=st_.integers(0, 10_000),
       playouts=st_.integers(1, 40), exploration=st_.floats(0, 3))
def test_every_iteration_visits_one_root_action(name, seed, playouts, exploration):
    """Property: at a random state, with any seed, playout budget and exploration
    constant, the answer is legal, and the root actions' visits add up to the iterations
    (each iteration goes down through exactly one of them), which are the budget."""
    [(v, state)] = random_states(name, 1, seed)
    bot = ISMCTSBot(v, seed=seed, budget_ms=None, playouts=playouts, exploration=exploration)
    a = bot.decide_state(state, state.to_act)
    assert a in state.legal_actions()
    assert bot.stats["iterations"] == playouts
    assert sum(bot.stats["visits"].values()) == playouts
