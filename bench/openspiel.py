"""The learners' interfaces at speed: OpenSpiel's own random simulation of the taash games
beside its C++ hearts, and PettingZoo steps per second (docs/learning.md).

Usage: python bench/openspiel.py [--sims N] [--steps S] [--repeat R] [VARIANT...]

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

    import taash.learn.openspiel  # noqa: F401  (registers the taash games)
    from taash.learn.pettingzoo import env as pettingzoo_env
except ImportError as e:
    sys.exit(f"bench/openspiel.py needs the learn extra: pip install 'taash[learn]' ({e})")


def per_sim(game, sims: int) -> float:
    """CPU seconds per simulation of OpenSpiel's random_sim_test on ``game``."""
    t = time.process_time()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)
    return (time.process_time() - t) / sims


def pettingzoo_steps(variant: str, steps: int, seed: int = 0) -> float:
    """Steps per CPU second of the PettingZoo environment of ``variant`` under uniformly
    drawn legal actions."""
    e = pettingzoo_env(variant)
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("variants", nargs="*", default=["29", "56", "304"], metavar="VARIANT")
    p.add_argument("--sims", type=int, default=20, help="simulations a run (default 20)")
    p.add_argument("--steps", type=int, default=5000, help="PettingZoo steps a run (default 5000)")
    p.add_argument("--repeat", type=int, default=3, help="runs, best kept (default 3)")
    a = p.parse_args(argv)
    if min(a.sims, a.steps, a.repeat) < 1:
        p.error("--sims, --steps and --repeat must be at least 1")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
