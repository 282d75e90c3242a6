"""The learners' interfaces at speed: OpenSpiel's own random simulation of the taash games
beside its C++ hearts and bridge, PettingZoo steps per second, and the vector environment's
steps per second (docs/learning.md).

Usage: python bench/openspiel.py [--sims N] [--steps S] [--repeat R] [--batches 1,16,64] [--vector-only] [VARIANT...]

For each variant (29, 56 and 304 by default) and for OpenSpiel's C++ ``hearts``, the time
of one simulation of ``pyspiel.random_sim_test(game, num_sims=N, serialize=False)``:
OpenSpiel's own test, which plays N whole episodes at random from the initial state
(every chance outcome and every action drawn) and checks the state's methods on the way
(legal actions, the information-state and observation strings and tensors at every node,
clones, returns). A taash episode is one deal: a chance node per card dealt (32 in 29,
then the auction and the play: about 40 decisions); a hearts episode is a deal of 52 cards,
the pass of three cards each and 52 plays. Each taash run is timed right after a hearts
run, the ratio printed as the median of the R pairs, per simulation (target of issue 43
for ``taash_29``: within 2 times hearts).

Then PettingZoo: ``taash.learn.pettingzoo.env(variant)`` stepped S times with a uniformly
drawn legal action (``reset`` with the next seed when a deal ends): steps per second, each
step being one seat's decision with its observation vector and mask made.

Then the references, once: OpenSpiel's C++ ``bridge`` per simulation (a deal, its auction
and its play card by card: ``use_double_dummy_result=false``; its default scores each deal
by a double-dummy solver instead, about 200 ms a simulation), and the floor of any Python game: ``floor``, a game written in Python that
does nothing but has the shape of the first variant's game (its players, actions, a chance
node for the dealer and one per card, as many decisions as that variant's random deals
have on average, a constant tensor of the encoding's size and constant strings as long as
its mean information-state string), run by the same ``random_sim_test``: the cost of
OpenSpiel's bridge between C++ and a Python game and of the test's own checks, which no
speed of the Python side can go below. Its ratio to hearts bounds the ratio of any taash
game.

Last, the vector environment (`taash.learn.vector.VectorEnv`) of each variant, at each
batch size of ``--batches``: S steps (summed over the batch; each one sub-environment's
decision), the actions drawn uniformly from each row's mask, steps per second, on the
Python engine (``kernel=False``) and with the play phase on the compiled kernel
(``kernel=True``, the ``fast`` extra; its compile or cache load before the clock starts),
side by side; and first, on the line ``pz``, the PettingZoo environment's steps the same
two ways (the table's PettingZoo column above is the engine's). ``--vector-only`` runs this
table alone.

Times are the process's CPU time (``time.process_time``; everything runs on one thread),
so that other processes of a shared machine weigh less on the figures; the best of R runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

try:
    import pyspiel

    import numpy as np

    import taash.learn.openspiel  # noqa: F401  (registers the taash games)
    from taash.learn.encoding import Encoding
    from taash.learn.pettingzoo import env as pettingzoo_env
    from taash.kernel import available as kernel_available
    from taash.kernel import kernel_for
    from taash.learn.vector import VectorEnv
except ImportError as e:
    sys.exit(f"bench/openspiel.py needs the learn extra: pip install 'taash[learn]' ({e})")


def per_sim(game, sims: int) -> float:
    """CPU seconds per simulation of OpenSpiel's random_sim_test on ``game``."""
    t = time.process_time()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)
    return (time.process_time() - t) / sims


def pettingzoo_steps(variant: str, steps: int, seed: int = 0, kernel: bool = False) -> float:
    """Steps per CPU second of the PettingZoo environment of ``variant`` under uniformly
    drawn legal actions; ``kernel``: the play phase on the compiled kernel."""
    e = pettingzoo_env(variant, kernel=kernel)
    if kernel:      # the kernel made (compiled or loaded from its cache) before the clock starts
        kernel_for(e.unwrapped.v)
    rng = random.Random(seed)
    episode = seed
    e.reset(seed=episode)
    t = time.process_time()
    for _ in range(steps):
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            action = None
        else:
            legal = obs["action_mask"].nonzero()[0]
            action = int(legal[rng.randrange(len(legal))])
        e.step(action)
        if not e.agents:
            episode += 1
            e.reset(seed=episode)
    return steps / (time.process_time() - t)


def vector_steps(variant: str, num_envs: int, steps: int, seed: int = 0, kernel: bool = False) -> float:
    """Steps (one sub-environment's decision each) per CPU second of the vector
    environment of ``variant`` with ``num_envs`` sub-environments, under uniformly drawn
    legal actions; ``kernel``: the play phase on the compiled kernel."""
    envs = VectorEnv(variant, num_envs=num_envs, kernel=kernel)
    if kernel:      # the kernel made (compiled or loaded from its cache) before the clock starts
        kernel_for(envs.v)
    obs, _ = envs.reset(seed=seed)
    rng = random.Random(seed)
    done = 0
    t = time.process_time()
    while done < steps:
        actions = [rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]]
        obs, *_ = envs.step(actions)
        done += num_envs
    return done / (time.process_time() - t)


def floor_game(variant: str, deals: int = 20):
    """The ``floor`` game (module docstring) shaped as ``variant``'s: registered once, loaded."""
    import taash.learn.openspiel as tl
    game = pyspiel.load_game(tl.game_name(variant))
    v = game.shared.v
    rng = random.Random(0)
    decisions, length = 0, 0
    for _ in range(deals):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
            else:
                decisions += 1
                length += len(st.information_state_string(st.current_player()))
                st.apply_action(rng.choice(st.legal_actions()))
    shape = dict(players=v.players, actions=len(v.actions), cards=game.shared.cards,
                 decisions=round(decisions / deals), size=Encoding(v).size, text="x" * (length // decisions))
    if "floor" not in pyspiel.registered_names():
        _register_floor(shape)
    return pyspiel.load_game("floor"), shape


def _register_floor(shape: dict) -> None:
    n, actions, cards, decisions = shape["players"], shape["actions"], shape["cards"], shape["decisions"]
    names, text, end = [f"a{i}" for i in range(actions)], shape["text"], 1 + cards + decisions
    game_type = pyspiel.GameType(
        short_name="floor", long_name="floor: a Python game that does nothing, of a taash game's shape",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n, min_num_players=n, provides_information_state_string=True,
        provides_information_state_tensor=True, provides_observation_string=True,
        provides_observation_tensor=True, parameter_specification={})
    info = pyspiel.GameInfo(num_distinct_actions=actions, max_chance_outcomes=max(cards, n), num_players=n,
                            min_utility=-1.0, max_utility=1.0, utility_sum=None, max_game_length=end)

    class FloorState(pyspiel.State):
        def __init__(self, game):
            super().__init__(game)
            self.k = 0          # nodes passed: the dealer's, then a card's each, then decisions

        def current_player(self):
            k = self.k
            if k <= cards:
                return pyspiel.PlayerId.CHANCE
            return pyspiel.PlayerId.TERMINAL if k >= end else k % n

        def _legal_actions(self, player):
            return [0, 1, 2]

        def chance_outcomes(self):
            left = n if self.k == 0 else cards + 1 - self.k
            return [(c, 1 / left) for c in range(left)]

        def _apply_action(self, action):
            self.k += 1

        def _action_to_string(self, player, action):
            return names[action]

        def is_terminal(self):
            return self.k >= end

        def returns(self):
            return [0.0] * n

        def __str__(self):
            return str(self.k)

    class FloorObserver:
        def __init__(self):
            self.tensor = np.full(shape["size"], 0.5, np.float32)
            self.dict = {"observation": self.tensor}

        def set_from(self, state, player):
            pass

        def string_from(self, state, player):
            return text

    class FloorGame(pyspiel.Game):
        def __init__(self, params=None):
            super().__init__(game_type, info, params or {})

        def new_initial_state(self):
            return FloorState(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return FloorObserver()

    pyspiel.register_game(game_type, FloorGame)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("variants", nargs="*", default=["29", "56", "304"], metavar="VARIANT")
    p.add_argument("--sims", type=int, default=20, help="simulations a run (default 20)")
    p.add_argument("--steps", type=int, default=5000, help="PettingZoo steps a run (default 5000)")
    p.add_argument("--repeat", type=int, default=3, help="runs, best kept (default 3)")
    p.add_argument("--batches", default="1,16,64", help="the vector environment's batch sizes (default 1,16,64)")
    p.add_argument("--vector-only", action="store_true", help="the vector environment's table alone")
    a = p.parse_args(argv)
    try:
        batches = [int(x) for x in a.batches.split(",") if x.strip()]
    except ValueError:
        p.error(f"--batches: whole numbers separated by commas, not {a.batches!r}")
    if min(a.sims, a.steps, a.repeat, *batches) < 1:
        p.error("--sims, --steps, --repeat and each batch size must be at least 1")
    if a.vector_only:
        print(f"python {sys.version.split()[0]}; best of {a.repeat}; CPU time")
        vector_table(a.variants, batches, a.steps, a.repeat)
        return 0
    hearts = pyspiel.load_game("hearts")
    print(f"python {sys.version.split()[0]}; {a.sims} simulations a run, best of {a.repeat}; CPU time")
    print(f"{'game':<14}{'ms/sim':>10}{'hearts ms/sim':>15}{'ratio':>8}{'pettingzoo steps/s':>21}")
    for name in a.variants:
        game = pyspiel.load_game("taash_" + name.replace("/", "_").replace("-", "_"))
        own, ref, ratios = [], [], []
        for _ in range(a.repeat):
            h = per_sim(hearts, a.sims)
            g = per_sim(game, a.sims)
            own.append(g)
            ref.append(h)
            ratios.append(g / h)
        steps = max(pettingzoo_steps(name, a.steps, seed=r) for r in range(a.repeat))
        print(f"{'taash_' + name:<14}{min(own) * 1e3:>10.2f}{min(ref) * 1e3:>15.2f}"
              f"{statistics.median(ratios):>7.2f}x{steps:>21,.0f}")
    first = a.variants[0]
    bridge = pyspiel.load_game("bridge", {"use_double_dummy_result": False})     # played out, card by card
    floor, shape = floor_game(first)
    rows = []
    for game, label in ((bridge, "bridge (C++, played)"), (floor, f"floor ({first}'s shape)")):
        own, ratios = [], []
        for _ in range(a.repeat):
            h = per_sim(hearts, a.sims)
            g = per_sim(game, a.sims)
            own.append(g)
            ratios.append(g / h)
        rows.append((label, min(own), statistics.median(ratios)))
    print(f"references: the floor game has {shape['players']} players, {shape['cards'] + 1} chance nodes, "
          f"{shape['decisions']} decisions, tensors of {shape['size']} and strings of {len(shape['text'])}")
    for label, ms, ratio in rows:
        print(f"{label:<22}{ms * 1e3:>8.2f} ms/sim{ratio:>8.2f}x hearts")
    vector_table(a.variants, batches, a.steps, a.repeat)
    return 0


def vector_table(variants, batches, steps: int, repeat: int) -> None:
    """The vector environment's steps per second of each variant and batch size, on the
    engine and with the kernel (best of ``repeat`` runs of ``steps`` steps)."""
    fast = kernel_available()
    print(f"vector environment, {steps} steps a run; steps/s"
          + ("" if fast else " (no kernel: the fast extra is not installed)"))
    print(f"  {'variant':<10}{'N':>5}{'engine':>12}{'kernel':>12}{'ratio':>8}")
    for name in variants:
        slow = max(pettingzoo_steps(name, steps, seed=r) for r in range(repeat))
        if fast:
            quick = max(pettingzoo_steps(name, steps, seed=r, kernel=True) for r in range(repeat))
            print(f"  {name:<10}{'pz':>5}{slow:>12,.0f}{quick:>12,.0f}{quick / slow:>7.2f}x", flush=True)
        for num in batches:
            slow = max(vector_steps(name, num, steps, seed=r) for r in range(repeat))
            if fast:
                quick = max(vector_steps(name, num, steps, seed=r, kernel=True) for r in range(repeat))
                print(f"  {name:<10}{num:>5}{slow:>12,.0f}{quick:>12,.0f}{quick / slow:>7.2f}x", flush=True)
            else:
                print(f"  {name:<10}{num:>5}{slow:>12,.0f}{'-':>12}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
