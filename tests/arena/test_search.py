"""The search bot (arena/bots/search.py): legal answers on every shipped variant, its time
budget, determinism for a seed, the arena path (a State rebuilt from the observation
alone), and one match over the arena with `taash bot search` as a process."""

from __future__ import annotations

import json
import random
import time

import pytest

from taash.arena.bots.search import SearchBot
from taash.arena.sdk import GameInfo
from taash.interpreter import Match, State, load_variant, shipped_variants
from tests.helpers.states import later_deal_states, random_states, same_choices


@pytest.mark.parametrize("name", shipped_variants())
def test_only_legal_actions_in_process_and_by_observation(name):
    """Property: at random states (random play of random length) the bot answers a legal
    action, as a state agent and from the observation alone, with a tiny playout budget;
    and the rebuilt State gives the seat its very observation."""
    for v, st in random_states(name, 6, seed=len(name)):
        seat = st.to_act
        bot = SearchBot(v, seed=1, budget_ms=None, playouts=6)
        before = st.observation(seat)
        a = bot.decide_state(st, seat)
        assert a in st.legal_actions()
        assert st.observation(seat) == before                 # the state is unchanged
        obs = json.loads(json.dumps(before))                  # as the arena sends it
        b = bot.decide(obs, [str(x) for x in st.legal_actions()])
        assert isinstance(b, str) and b in st.legal_actions()
        assert State.from_observation(v, obs, random.Random(2)).observation(seat) == before


@pytest.mark.parametrize("name", shipped_variants())
def test_rebuild_later_in_a_match(name):
    """Property: after some deals of a match the State rebuilt from the observation still
    gives the seat its very observation, and the bot searches (it did not fall back to
    the default action). house/29-dealer-keeps carries a public match-scope variable
    (`kept`); before the rebuild carried it, every deal after the first failed there."""
    states = later_deal_states(name, 3, seed=len(name))
    for v, st in states:
        seat = st.to_act
        obs = json.loads(json.dumps(st.observation(seat)))
        assert State.from_observation(v, obs, random.Random(2)).observation(seat) == st.observation(seat)
        bot = SearchBot(v, seed=1, budget_ms=None, playouts=6)
        assert bot.decide(obs, [str(x) for x in st.legal_actions()]) in st.legal_actions()
        assert bot.stats.get("rebuilt", True) and bot.stats["playouts"] > 0


def test_the_dealer_keeps_variable_is_carried_into_the_rebuild():
    # a deal dealt again by the dealer whose side lost the one before (the file's rule):
    # kept is 1, and the rebuilt State starts from 1 too
    v = load_variant("house/29-dealer-keeps")
    for seed in range(20):
        m = Match(v, seed)
        st = m.new_deal()
        while not st.is_terminal:
            st.apply(st.legal_actions()[0])
        m.finish_deal(st)
        st = m.new_deal()
        if st.observation(0)["variables"]["kept"] == 1:
            break
    else:
        pytest.fail("no first deal of 20 was lost by the dealer's side")
    obs = json.loads(json.dumps(st.observation(st.to_act)))
    again = State.from_observation(v, obs, random.Random(0))
    assert again.vars[next(x.index for x in v.variables if x.name == "kept")] == 1
    assert again.observation(st.to_act) == st.observation(st.to_act)


@pytest.mark.parametrize("name", ["28", "304", "304-solo", "56", "house/28-seventh-card"])
def test_rebuild_never_reads_the_other_hands(name):
    """Two deals that give the seat the same observation (one resampled from the other:
    other hands, same history) rebuild to the same State: the arena path reads the
    observation only."""
    for v, st in random_states(name, 4, seed=7):
        seat = st.to_act
        other = st.resample(seat, random.Random(3))
        obs = st.observation(seat)
        assert other.observation(seat) == obs
        a = State.from_observation(v, json.loads(json.dumps(obs)), random.Random(5))
        b = State.from_observation(v, json.loads(json.dumps(other.observation(seat))), random.Random(5))
        assert a.dealt == b.dealt and a.widow == b.widow


def test_deterministic_for_a_seed_with_a_playout_budget():
    """Same seed, same observation, a playout budget: the same action, whatever the bot
    did before; the choice is a function of (seed, observation)."""
    for name in ("29", "304-solo"):
        for one, _ in same_choices(lambda v: SearchBot(v, seed=9, budget_ms=None, playouts=40), name, 4):
            assert one.stats["playouts"] == 40


def test_keeps_its_time_budget():
    """A 20 ms budget: every decision within 20 ms plus a generous margin (the figures
    are in bench/search.py); over the arena at most half of the decision's time."""
    v = load_variant("56")
    bot = SearchBot(v, seed=0, budget_ms=20)
    for _, st in random_states("56", 5, seed=2):
        t0 = time.perf_counter()
        bot.decide_state(st, st.to_act)
        assert (time.perf_counter() - t0) * 1000 < 20 + 60
        assert bot.stats["playouts"] >= 1
    game = GameInfo("g", "56", {}, v.data, [], [], {"move_ms": 30}, {"deadline_ms": 30})
    big = SearchBot(v, seed=0, budget_ms=5000)
    for _, st in random_states("56", 3, seed=4):
        t0 = time.perf_counter()
        a = big.decide(st.observation(st.to_act), [str(x) for x in st.legal_actions()], game)
        assert a in st.legal_actions()
        assert (time.perf_counter() - t0) * 1000 < 15 + 60


def test_one_match_over_the_arena(tmp_path):
    """`taash bot search` as a process plays a whole match of 28 through the arena with
    no fault, its decisions within half the deadline."""
    from tests.helpers.arena_util import two_clean_deals
    two_clean_deals(tmp_path, "28", {"s1": ["search", "--budget-ms", "20"], "h1": ["heuristic"]},
                    ["s1", "h1", "s1", "h1"])


@pytest.mark.parametrize("name", ["28", "56", "304-solo", "house/56-cot"])
def test_too_few_rollouts_to_tell_actions_apart_play_the_heuristic_action(name):
    """The heuristic's action is the prior: with 3 rollouts no other action is tried in
    two worlds, so the bot plays what the heuristic bot plays (arena/bots/heuristic.py)."""
    from taash.arena.bots.heuristic import heuristic_bot
    for v, st in random_states(name, 8, seed=5):
        seat = st.to_act
        h = heuristic_bot(v)
        bot = SearchBot(v, seed=2, budget_ms=None, playouts=3)
        legal = [str(x) for x in st.legal_actions()]
        want = h.decide(st.observation(seat), legal)
        got = bot.decide_state(st, seat)
        if bot.stats["arms"] > 1:
            assert str(got) == want
            assert bot.stats["prior"] == want


def test_leaves_the_heuristic_action_only_for_a_significant_lead():
    """With 400 rollouts the bot may play another action than the heuristic's, and then
    only when its mean lead over it in the same worlds exceeds PRIOR_Z standard errors
    (uniform worlds, ``call_eps`` 1: the rule of the prior alone)."""
    from taash.arena.bots.search import PRIOR_Z
    moved = 0
    for v, st in random_states("29", 12, seed=8):
        bot = SearchBot(v, seed=4, budget_ms=None, playouts=400, call_eps=1)
        a = bot.decide_state(st, st.to_act)
        if bot.stats["prior"] is not None and str(a) != bot.stats["prior"]:
            mean, se = bot.stats["lead"]
            assert mean > PRIOR_Z * se
            moved += 1
    assert moved >= 1


def test_auction_searches_the_lowest_bid_of_each_denomination():
    """56's opening call (docs/rules.md §56.4: the eldest must bid 28..56 in S, H, D, C, NT or
    NOES, two forms for a suit): the bot searches the six bids of 28 and, when the
    heuristic bids higher, its number in every denomination: 6 or 12 arms, not 114."""
    from taash.arena.bots.heuristic import heuristic_bot
    v = load_variant("56")
    for seed in range(4):
        st = Match(v, seed).new_deal()
        h = heuristic_bot(v).decide(st.observation(st.to_act), [str(x) for x in st.legal_actions()])
        bot = SearchBot(v, seed=1, budget_ms=None, playouts=30)
        bot.decide_state(st, st.to_act)
        assert bot.stats["arms"] == (6 if h.split()[1] == "28" else 12)


def test_a_bid_of_ones_own_searches_every_number():
    """Call Break's calls (docs/rules.md §CB.3: each player bids 1 to 8 tricks, the score
    reads the number): every one of the 8 bids is an arm, none cut as in an auction."""
    v = load_variant("call-break")
    st = Match(v, 0).new_deal()
    assert st.phase == "bids"
    bot = SearchBot(v, seed=1, budget_ms=None, playouts=24)
    assert bot.decide_state(st, st.to_act) in st.legal_actions()
    assert bot.stats["arms"] == 8


def test_a_hidden_trump_is_inferred_from_the_declarers_hand():
    """28 (docs/rules.md §28.5): the eldest bids 14, the others pass and it lays a trump card
    face down from its first four cards JH 9H AH 7S. To a defender the calls judged are
    the eldest's bid, the two other passes and the face-down card (history 0, 2, 3, 4; its
    own pass, 1, is not judged); to the eldest only the three passes. The model (the
    heuristic) names hearts, the longest suit, from those cards: a world in which the card
    laid is a heart and one in which it is 7S differ by one factor of CALL_EPS (the
    auction is the same in both)."""
    from taash.arena.bots.search import CALL_EPS
    v = load_variant("28")
    deck = [r + s for s in "SHDC" for r in ["J", "9", "A", "T", "K", "Q", "8", "7"]]
    eldest = State(v, dealer=0, hands=[deck[i::4] for i in range(4)]).to_act
    first = ["JH", "9H", "AH", "7S"]
    rest = [c for c in deck if c not in first]
    hands = [rest[8 * i:8 * i + 8] for i in range(3)]
    hands.insert(eldest, first + rest[24:28])
    bot = SearchBot(v, seed=0, budget_ms=None, playouts=10)
    like = {}
    defender = (eldest + 1) % 4
    for card in ("9H", "7S"):
        st = State(v, dealer=0, hands=hands)
        for a in ["bid 14", "pass", "pass", "pass", "trump-card " + card]:
            st.apply(a)
        assert bot._modelled_steps(st, defender) == [0, 2, 3, 4]
        assert bot._modelled_steps(st, eldest) == [1, 2, 3]
        like[card] = bot._likelihood(st, [0, 2, 3, 4])
    assert like["9H"] > 0
    assert like["7S"] == pytest.approx(like["9H"] * CALL_EPS)


def test_a_bid_is_inferred_from_the_bidders_hand():
    """29 (docs/rules.md §29.4): the eldest opens at 15, the minimum. A hand of the four
    top spades JS 9S AS TS is worth well over 15 to the model (the heuristic), which
    opens too; with 7H 8D 7C 8C it would pass: the world weighs CALL_EPS times less."""
    from taash.arena.bots.search import CALL_EPS
    v = load_variant("29")
    deck = [r + s for s in "SHDC" for r in ["J", "9", "A", "T", "K", "Q", "8", "7"]]
    eldest = State(v, dealer=0, hands=[deck[i::4] for i in range(4)]).to_act
    bot = SearchBot(v, seed=0, budget_ms=None, playouts=10)
    like = {}
    for name, first in (("strong", ["JS", "9S", "AS", "TS"]), ("weak", ["7H", "8D", "7C", "8C"])):
        rest = [c for c in deck if c not in first]
        hands = [rest[8 * i:8 * i + 8] for i in range(3)]
        hands.insert(eldest, first + rest[24:28])
        st = State(v, dealer=0, hands=hands)
        st.apply("bid 15")
        assert bot._modelled_steps(st, (eldest + 1) % 4) == [0]
        like[name] = bot._likelihood(st, [0])
    assert like == {"strong": 1.0, "weak": CALL_EPS}


def test_rollouts_ask_for_the_exposure_to_take_a_trick_with_points():
    """28 (docs/rules.md §28.5-28.7): the eldest bids 14 and lays 9H face down (hearts are
    trump); the next seat, void in spades and holding KH, may ask for the exposure. The
    rollout asks when the declarer leads JS (3 points, the declarer's side holds the
    trick), not when it leads 8S (no points, and two seats are still to play)."""
    from taash.arena.bots.search import Rollout
    v = load_variant("28")
    deck = [r + s for s in "SHDC" for r in ["J", "9", "A", "T", "K", "Q", "8", "7"]]
    eldest = State(v, dealer=0, hands=[deck[i::4] for i in range(4)]).to_act
    packets = [(["JH", "9H", "AH", "7S"], ["JS", "8S", "7D", "8D"]),
               (["KH", "QD", "JD", "9D"], ["AD", "TD", "KD", "QC"]),
               (["9S", "AS", "TS", "KS"], ["QS", "TH", "8H", "7H"]),
               (["QH", "JC", "9C", "AC"], ["TC", "KC", "8C", "7C"])]
    hands = [None] * 4
    for k, (a, b) in enumerate(packets):
        hands[(eldest + k) % 4] = a + b
    r = Rollout(v)
    for lead, want in (("JS", True), ("8S", False)):
        st = State(v, dealer=0, hands=hands)
        for a in ["bid 14", "pass", "pass", "pass", "trump-card 9H", "play " + lead]:
            st.apply(a)
        assert st.to_act == (eldest + 1) % 4 and "expose" in st.legal_actions()
        assert r.wants_exposure(st) is want


def test_rollouts_call_the_strongest_trump_not_held():
    """304 (docs/rules.md §304.4-304.5): all four pass, so the dealer (seat 0) is declarer at
    150; it names clubs and calls a partner. Holding JC and 9C (clubs rank J 9 A T K Q 8
    7), the rollout's declarer calls AC, the strongest club it lacks; holding JC alone,
    9C."""
    from taash.arena.bots.search import Rollout
    v = load_variant("304")
    deck = [r + s for s in "SHDC" for r in ["J", "9", "A", "T", "K", "Q", "8", "7"]]
    r = Rollout(v)
    for mine, want in ((["JC", "9C"], "call AC"), (["JC", "8C"], "call 9C")):
        rest = [c for c in deck if c not in mine]
        hands = [mine + rest[:6], rest[6:14], rest[14:22], rest[22:30]]
        st = State(v, dealer=0, hands=hands)
        for a in ["pass", "pass", "pass", "pass", "trump C"]:
            st.apply(a)
        assert st.to_act == 0 and "call AC" in st.legal_actions()
        assert str(v.actions[r.call(st, st.legal_ids())]) == want


def test_rollouts_declare_a_marriage_that_moves_the_target():
    """304 (docs/rules.md §304.9): wherever a seat may show a marriage the rollout shows it, and
    the declarer's target moves by 20 (40 in trump): down when shown by the declarer's
    side, up when shown by a defender. Never a slam (§304.10: a wager). (The rollouts'
    declarations are a setting, `declare`, off by default.)"""
    from taash.arena.bots.search import Rollout
    v = load_variant("304")
    r = Rollout(v, declare=True)
    seen = 0
    for v_, st in random_states("304", 400, 7):
        ids = st.legal_ids()
        marriage = [i for i in ids if v.actions[i].kind == "declare" and v.actions[i].arg[0] == "marriage"]
        if not marriage or st.phase != "play":
            continue
        seen += 1
        a = v.actions[marriage[0]]
        amount = 40 if v.deck.suits.index(a.arg[1]) == st.trump else 20
        ours = st.side[st.to_act] == st.side[st.declarer]
        before, n, at = st.target, len(st.history), st.copy()
        r.run(st, random.Random(seen))
        assert st.history[n][1] == a            # the first marriage legal, at once
        assert not any(str(x) == "declare slam" for _, x in st.history[n:])
        at.apply_id(a.id)
        assert at.target == before + (-amount if ours else amount)
    assert seen >= 3


def test_settings_are_arguments():
    """The factory passes its settings to SearchBot; a setting out of range is refused;
    `prior_z` 0 searches with no prior."""
    from taash.arena.bots.search import SearchBot, search_bot
    v = load_variant("28")
    bot = search_bot(v, 3, budget_ms=None, playouts=8, prior_z=0, call_eps=1, greedy=0.5, declare=True)
    assert (bot.budget_ms, bot.playouts, bot.prior_z, bot.call_eps) == (None, 8, 0, 1)
    assert bot.rollout.greedy == 0.5
    assert [str(v.actions[i]) for i in bot.rollout.helpful] == ["declare pair"]   # 28's pair (docs/rules.md §28.10)
    assert search_bot(v).rollout.helpful == frozenset()
    for bad in ({"prior_z": -1}, {"call_eps": 1.5}, {"greedy": -0.1}):
        with pytest.raises(ValueError):
            SearchBot(v, 0, **bad)
    st = next(st for _, st in random_states("28", 50, 1) if len(st.legal_ids()) > 1)
    bot.decide_state(st.copy(), st.to_act)
    assert bot.stats["prior"] is None and bot.stats["playouts"] == 8


def test_taash_bot_takes_the_search_settings_for_the_search_bot_only():
    """`taash bot heuristic --playouts 5`: a usage error (exit 2, one line) before any
    connection; a bad value is argparse's error."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "bot", "heuristic", "--playouts", "5",
                        "--token", "t"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip() == "taash: error: --playouts: settings of the search bot, not of 'heuristic'"
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "bot", "search", "--call-eps", "2",
                        "--token", "t"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "argument --call-eps: must be from 0 to 1, not 2" in r.stderr


def _first_lead_29(eldest_cards):
    """29 (docs/rules.md §29.4-29.6), dealer 0: the eldest (seat 1) holds ``eldest_cards``
    (its first four, then its second four), bids 15, the others pass, it names hearts;
    the State at its first lead, the other 24 cards dealt in deck order."""
    v = load_variant("29")
    deck = [r + s for s in "SHDC" for r in ["J", "9", "A", "T", "K", "Q", "8", "7"]]
    rest = [c for c in deck if c not in eldest_cards]
    hands = [rest[0:8], list(eldest_cards), rest[8:16], rest[16:24]]
    st = State(v, dealer=0, hands=hands)
    for a in ["bid 15", "pass", "pass", "pass", "trump H"]:
        st.apply(a)
    assert st.phase == "play" and st.to_act == 1
    return v, st


def test_a_rollout_leader_cashes_a_card_no_other_hand_beats():
    """The rollout's leader plays, of its cards that no card of another hand outranks in
    their suit (hearts, the trump, left aside), the one of most points: holding JS and
    9S, both unbeatable (the jack is the top spade, and the seat holds it), it leads JS (3
    points, §29.2). Holding 9S and AS with JS in another hand, both are beaten, and so are
    its 7s and 8s of diamonds and clubs: no such card (-1), the lead is left to chance."""
    from taash.arena.bots.search import Rollout
    v, st = _first_lead_29(["JS", "9S", "7H", "8H", "7D", "8D", "7C", "8C"])
    roll = Rollout(v)
    cards = [i for i in st.legal_ids() if i < v.deck.size]
    assert v.deck.text[roll._boss(st, cards)] == "JS"
    v, st = _first_lead_29(["AS", "9S", "7H", "8H", "7D", "8D", "7C", "8C"])
    cards = [i for i in st.legal_ids() if i < v.deck.size]
    assert roll._boss(st, cards) == -1
