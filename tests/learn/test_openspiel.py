"""Every shipped variant as an OpenSpiel game, judged by OpenSpiel's own random-simulation
test (with serialisation), its resample-from-infostate check, and its IS-MCTS bot."""

from __future__ import annotations

import multiprocessing
import pickle
import random
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from taash.interpreter import shipped_variants  # noqa: E402
from taash.learn import openspiel  # noqa: E402
from taash.learn.encoding import Encoding  # noqa: E402

QUICK = ["29", "304-solo", "56", "28", "court-piece", "house/29-bhoos"]


def test_every_shipped_variant_is_registered():
    names = set(pyspiel.registered_names())
    assert {"taash", "taash_29", "taash_304_solo", "taash_house_29_bhoos"} <= names
    assert {openspiel.game_name(n) for n in shipped_variants()} <= names


@pytest.mark.parametrize("name", QUICK)
def test_random_sim_test_passes(name):
    game = pyspiel.load_game(openspiel.game_name(name))
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", shipped_variants())
def test_random_sim_test_passes_every_variant(name):
    game = pyspiel.load_game(openspiel.game_name(name))
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_deal_is_chance_nodes_of_equal_chance():
    """The dealer first: 4 seats of 29 at 1/4 each, 6 of 56 at 1/6. Then 29: 32 cards, one
    copy each: the first card is any of 32 at 1/32. 56: 24 cards, two copies each (48):
    1/24 each; once one JS is placed, JS has 1/47 and the others 2/47."""
    game = pyspiel.load_game("taash_29")
    st = game.new_initial_state()
    assert st.is_chance_node()
    assert st.chance_outcomes() == [(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]
    assert st.action_to_string(pyspiel.PlayerId.CHANCE, 2) == "dealer 2"
    st.apply_action(2)
    out = st.chance_outcomes()
    assert [a for a, _ in out] == list(range(32)) and all(p == pytest.approx(1 / 32) for _, p in out)
    game = pyspiel.load_game("taash_56")
    st = game.new_initial_state()
    assert [p for _, p in st.chance_outcomes()] == pytest.approx([1 / 6] * 6)
    st.apply_action(5)
    js = st.chance_outcomes()[0][0]     # card id 0: the deck's first card
    assert st.action_to_string(pyspiel.PlayerId.CHANCE, js) == "deal JS"
    st.apply_action(js)
    probs = dict(st.chance_outcomes())
    assert probs[js] == pytest.approx(1 / 47)
    assert all(p == pytest.approx(2 / 47) for a, p in probs.items() if a != js)
    assert len(probs) == 24


def deal_out(st, rng):
    while st.is_chance_node():
        acts, probs = zip(*st.chance_outcomes())
        st.apply_action(rng.choices(acts, probs)[0])


def test_information_state_is_the_seats_observation():
    game = pyspiel.load_game("taash_29", {"dealer": 0})
    st = game.new_initial_state()
    assert st.information_state_string(2) == "dealing 0/32, dealer 0"
    deal_out(st, random.Random(3))
    eng = st._engine.state
    assert st.current_player() == eng.to_act == 1               # dealer 0: seat 1 calls first
    assert st.information_state_string(2) == eng.observation_json(2)
    assert '"history"' not in st.observation_string(2)
    enc = Encoding(eng.v)
    assert np.array_equal(np.array(st.information_state_tensor(2), np.float32), enc.encode(eng.observation(2)))
    assert st.legal_actions() == sorted(a.id for a in eng.legal_actions())


@pytest.mark.parametrize("name", ["29", "304-solo", "28", "house/29-bhoos"])
def test_resample_from_infostate_keeps_the_information_state(name):
    """OpenSpiel's ResampleInfostateTest (tests/basic_tests.cc), in Python: at every player
    node of a random deal, for every seat, the resampled state has the same information
    state string and tensor and the same player to act."""
    game = pyspiel.load_game(openspiel.game_name(name))
    rng = random.Random(5)
    st = game.new_initial_state()
    deal_out(st, rng)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    moved = 0
    while not st.is_terminal():
        for p in range(game.num_players()):
            other = st.resample_from_infostate(p, sampler)
            assert other.information_state_string(p) == st.information_state_string(p)
            assert other.information_state_tensor(p) == st.information_state_tensor(p)
            assert other.current_player() == st.current_player()
            moved += other._engine.state.dealt != st._engine.state.dealt
        st.apply_action(rng.choice(st.legal_actions()))
    assert moved > 0                                            # the hidden cards did move


def test_serialisation_round_trip():
    game = pyspiel.load_game("taash_304_solo")
    st = game.new_initial_state()
    rng = random.Random(2)
    deal_out(st, rng)
    for _ in range(7):
        st.apply_action(rng.choice(st.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, st)
    game2, st2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert st2.history() == st.history() and str(st2) == str(st)
    assert st2.information_state_string(0) == st.information_state_string(0)


def test_a_variant_file_is_a_game(tmp_path):
    f = tmp_path / "mine.yaml"
    f.write_text('extends: "29"\nname: mine\ntitle: Mine\nauction:\n  min_bid: 17\n', encoding="utf-8")
    game = pyspiel.load_game("taash", {"variant": str(f)})
    st = game.new_initial_state()
    deal_out(st, random.Random(1))
    names = [st.action_to_string(st.current_player(), a) for a in st.legal_actions()]
    assert "bid 17" in names and "bid 16" not in names
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_bad_parameters_are_refused():
    with pytest.raises(Exception, match="dealer must be a seat 0..3"):
        pyspiel.load_game("taash_29", {"dealer": 4})
    with pytest.raises(Exception, match="reward must be one of score, margin, match"):
        pyspiel.load_game("taash_29", {"reward": "win"})
    with pytest.raises(Exception, match="reward 'match' .* needs episode 'match'"):
        pyspiel.load_game("taash_29", {"reward": "match"})
    with pytest.raises(Exception, match="no-such-variant"):
        pyspiel.load_game("taash", {"variant": "no-such-variant"})


@pytest.mark.parametrize("name", ["29", "304-solo"])
def test_ismcts_bot_plays_a_deal(name):
    """OpenSpiel's IS-MCTS bot (open_spiel.python.algorithms.ismcts) at every seat plays
    a whole deal; its returns are the engine's score change for the deal."""
    game = pyspiel.load_game(openspiel.game_name(name))
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=20,
                           random_state=rs)
    st = game.new_initial_state()
    deal_out(st, random.Random(0))
    moves = 0
    while not st.is_terminal():
        a = bot.step(st)
        assert a in st.legal_actions()
        st.apply_action(int(a))
        moves += 1
    eng = st._engine.state
    assert eng.is_terminal and moves == len(eng.history)
    assert st.returns() == [float(x) for x in eng.score_change()]


def test_the_game_string_loads_the_same_game():
    # the found bound (max_utility 0, the default) is found again the same way; a given
    # bound is kept as given
    game = pyspiel.load_game("taash_304_solo")
    assert (game.min_utility(), game.max_utility()) == (-4.0, 4.0)
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) and again.max_utility() == 4.0
    mine = pyspiel.load_game("taash_304_solo(max_utility=7)")
    assert mine.max_utility() == 7.0 and pyspiel.load_game(str(mine)).max_utility() == 7.0


ZERO, GENERAL = pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.GENERAL_SUM


@pytest.mark.parametrize("name, params, utility, bound", [
    ("29", {}, GENERAL, 1.0),                                          # §29.8: +-1
    ("29", {"reward": "margin"}, ZERO, 1.0),                           # +-1 against 0
    ("29", {"reward": "match", "episode": "match"}, ZERO, 1.0),
    ("56", {}, GENERAL, 16.0),                                         # §56.7: 4 x 4 tables
    ("56", {"reward": "margin"}, ZERO, 32.0),                          # 16 each way
    ("304", {"reward": "margin"}, ZERO, 8 / 3),                        # 4 - (4 + 0 + 0) / 3
    ("28", {"reward": "margin", "episode": "match"}, ZERO, 1.0 * 1000),  # a deal's, x max_deals
])
def test_the_game_type_and_bounds_tell_the_truth(name, params, utility, bound):
    game = pyspiel.load_game(openspiel.game_name(name), params)
    assert game.get_type().utility == utility
    assert game.max_utility() == pytest.approx(bound) and game.min_utility() == pytest.approx(-bound)
    if utility == ZERO:
        assert game.utility_sum() == 0.0


def finish(st, rng):
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(rng.choices(acts, probs)[0])
        else:
            st.apply_action(rng.choice(st.legal_actions()))
    return st


@pytest.mark.parametrize("name, params", [("28", {"reward": "margin", "episode": "match"}),
                                          ("304", {"reward": "match", "episode": "match"}),
                                          ("29", {"reward": "margin"})])
def test_random_sim_test_passes_for_rewards_and_matches(name, params):
    game = pyspiel.load_game(openspiel.game_name(name), params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_a_match_is_deals_one_after_another():
    """28 as a whole match, margin rewards: the second deal's dealer follows the first's
    (§0.2: next(dealer)), the match score is carried into the next deal's observation, and
    the return is the sum of the deals' margins, +-(side's points - other side's)."""
    game = pyspiel.load_game("taash_28", {"reward": "margin", "episode": "match", "dealer": 1})
    rng = random.Random(4)
    st = game.new_initial_state()
    deal_out(st, rng)
    first = st._engine.state
    assert first.dealer == 1
    while st._engine.state is first:
        st.apply_action(rng.choice(st.legal_actions()))
    assert st.is_chance_node() and not st.is_terminal()
    assert st._engine.dealer == 2
    deal_out(st, rng)
    second = st._engine.state
    assert second.dealer == 2 and second.seat_scores() == first.seat_scores()
    assert second.deal_number == 1
    finish(st, rng)
    m = st._engine.match
    final = m.seat_scores()              # each side's points, starting from 0
    assert st.returns() == [float(final[s] - final[1 - s % 2]) for s in range(4)]
    assert sum(st.returns()) == 0


def test_resample_keeps_the_information_state_over_a_match():
    """In the second deal of a match, the resampled state has the same information state
    (the seat's view of the first deal, then of the current one) and the same past."""
    game = pyspiel.load_game("taash_28", {"episode": "match", "reward": "margin"})
    rng = random.Random(6)
    st = game.new_initial_state()
    deal_out(st, rng)
    first = st._engine.state
    while st._engine.state is first:
        st.apply_action(rng.choice(st.legal_actions()))
    deal_out(st, rng)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(6):
        for p in range(4):
            other = st.resample_from_infostate(p, sampler)
            assert other.information_state_string(p) == st.information_state_string(p)
            assert other.information_state_tensor(p) == st.information_state_tensor(p)
            assert other._engine.past[0].dealt == first.dealt
        st.apply_action(rng.choice(st.legal_actions()))
    assert st.information_state_string(0).startswith("[")


def returns_of(game, seed):
    """A worker's random episode of a pickled game: its returns."""
    return finish(game.new_initial_state(), random.Random(seed)).returns()


def test_games_and_states_pickle_and_go_through_a_pool():
    game = pyspiel.load_game("taash_304_solo", {"reward": "margin"})
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.get_type().utility == ZERO
    st = game.new_initial_state()
    deal_out(st, random.Random(1))
    st2 = pickle.loads(pickle.dumps(st))
    assert st2.history() == st.history() and str(st2) == str(st)
    expect = [returns_of(game, s) for s in (1, 2)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert pool.starmap(returns_of, [(game, 1), (again, 2)]) == expect


def test_a_match_whose_hand_size_changes_by_deal():
    """docs/examples/judgement.yaml as a whole match: OpenSpiel's own random simulation
    (with serialisation) over the 15 deals of 8 cards down to 1 and back, each dealt by
    chance nodes, one observation size throughout."""
    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "judgement.yaml"
    game = pyspiel.load_game("taash", {"variant": str(path), "episode": "match"})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_a_clone_and_its_source_go_their_own_ways():
    """A clone shares the engine until one of the two applies an action: then each keeps
    its own deal, and each node's strings and tensors are its own (made again, not the
    other's). Checked against states built afresh by replaying each history."""
    game = pyspiel.load_game("taash_29", {"dealer": 0})
    rng = random.Random(6)
    st = game.new_initial_state()
    deal_out(st, rng)
    for _ in range(12):                                   # into the play
        st.apply_action(rng.choice(st.legal_actions()))
    before = (st.information_state_string(1), st.information_state_tensor(1), st.observation_string(1))
    twin = st.clone()
    a, b = st.legal_actions()[:2]
    twin.apply_action(b)
    st.apply_action(a)
    for state, last in ((st, a), (twin, b)):
        fresh = game.new_initial_state()
        for x in state.history():
            fresh.apply_action(x)
        assert state.history()[-1] == last
        for p in range(4):
            assert state.information_state_string(p) == fresh.information_state_string(p)
            assert state.information_state_tensor(p) == fresh.information_state_tensor(p)
            assert state.observation_string(p) == fresh.observation_string(p)
        assert str(state) == str(fresh)
    assert st.information_state_string(1) != before[0] and twin.information_state_string(1) != before[0]
    again = twin.clone()                                  # a clone of a node whose strings were made
    assert again.information_state_tensor(1) == twin.information_state_tensor(1)
    assert game.new_initial_state().information_state_string(0) == "dealing 0/32, dealer 0"
