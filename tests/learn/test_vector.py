"""The vectorised environment: each row is the PettingZoo environment of the same seed,
byte for byte, through autoresets; the same seed gives the same batch; 29's rewards are
its game points; bad actions are refused."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.vector import AutoresetMode  # noqa: E402

from taash.learn.pettingzoo import TaashEnv  # noqa: E402
from taash.learn.vector import VectorEnv  # noqa: E402


def draw(rng, mask_rows):
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask_rows])


@pytest.mark.parametrize("name, episode", [("29", "deal"), ("56", "deal"), ("28", "match")])
def test_each_row_is_the_pettingzoo_environment_of_its_seed(name, episode):
    """Sub-environment i of a batch reset with seed s is the PettingZoo environment reset
    with seed s*N+i and then reset without a seed after each episode: the same seat to
    act, observation and mask bytes, rewards per seat and episode ends, step by step over
    several episodes."""
    N, seed = 3, 7
    envs = VectorEnv(name, num_envs=N, reward="margin", episode=episode)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    refs = [TaashEnv(name, reward="margin", episode=episode) for _ in range(N)]
    for i, e in enumerate(refs):
        e.reset(seed=seed * N + i)
    obs, infos = envs.reset(seed=seed)
    rng = random.Random(1)
    ends = [0] * N
    for _ in range(600 if episode == "deal" else 900):
        for i, e in enumerate(refs):
            agent = e.agent_selection
            assert infos["seat"][i] == e.agent_seat[agent]
            want = e.observe(agent)
            assert obs["observation"][i].tobytes() == want["observation"].tobytes()
            assert obs["action_mask"][i].tobytes() == want["action_mask"].tobytes()
        actions = draw(rng, obs["action_mask"])
        obs, rewards, terms, truncs, infos = envs.step(actions)
        for i, e in enumerate(refs):
            e.step(int(actions[i]))
            assert rewards[i].tolist() == [e.rewards[a] for a in e.possible_agents]
            agent = e.possible_agents[0]
            assert (terms[i], truncs[i]) == (e.terminations[agent], e.truncations[agent])
            if terms[i] or truncs[i]:
                assert infos["result"][i] == e.infos[agent]["result"]
                assert sum(rewards[i]) == 0                    # margin: zero-sum
                ends[i] += 1
                e.reset()
    assert min(ends) >= 2                                      # every row went through an autoreset


def test_29_rewards_are_game_points_at_the_deals_end():
    """29 (score): when a deal ends the declarer's side gets +1 if it made its contract and
    -1 if not, the other side 0 (§29.8; 29 has no doubling); no reward before."""
    envs = VectorEnv("29", num_envs=4)
    obs, _ = envs.reset(seed=2)
    rng = random.Random(2)
    seen = 0
    while seen < 8:
        obs, rewards, terms, truncs, infos = envs.step(draw(rng, obs["action_mask"]))
        assert not truncs.any()
        for i in range(4):
            if not terms[i]:
                assert not rewards[i].any()
                continue
            seen += 1
            res = infos["result"][i]
            side = res["declarer"] % 2
            assert not res["doubled"]
            x = 1 if res["made"] else -1
            assert rewards[i].tolist() == [x if s % 2 == side else 0 for s in range(4)]
            assert obs["observation"][i][:9].tolist() == [1, 0, 0, 0, 0, 0, 0, 0, 0]   # a new deal: auction


def test_same_seed_same_batch_and_another_seed_another():
    def run(seed):
        envs = VectorEnv("29", num_envs=5)
        obs, _ = envs.reset(seed=seed)
        rng = random.Random(0)
        out = [obs["observation"].tobytes()]
        for _ in range(80):
            obs, rewards, *_ = envs.step(draw(rng, obs["action_mask"]))
            out += [obs["observation"].tobytes(), rewards.tobytes()]
        return out

    assert run(4) == run(4)
    assert run(4)[0] != run(5)[0]


def test_one_environment_is_the_pettingzoo_environment_of_the_seed():
    envs, e = VectorEnv("304", num_envs=1), TaashEnv("304")
    obs, _ = envs.reset(seed=9)
    e.reset(seed=9)
    assert e.deal.dealt == envs.envs[0].deal.dealt
    assert obs["observation"][0].tobytes() == e.observe(e.agent_selection)["observation"].tobytes()


def test_a_seed_for_each_environment():
    """``reset(seed=[...])``: row i is the PettingZoo environment reset with the i-th seed
    (None: one drawn); the same list gives the same batch."""
    envs = VectorEnv("29", num_envs=3, kernel=False)
    obs, _ = envs.reset(seed=[7, 100, 3])
    for i, s in enumerate((7, 100, 3)):
        e = TaashEnv("29", kernel=False)
        e.reset(seed=s)
        assert envs.envs[i].deal.dealt == e.deal.dealt
        assert obs["observation"][i].tobytes() == e.observe(e.agent_selection)["observation"].tobytes()
    again = VectorEnv("29", num_envs=3, kernel=False)
    assert again.reset(seed=[7, 100, 3])[0]["observation"].tobytes() == obs["observation"].tobytes()
    drawn, _ = envs.reset(seed=[7, None, 3])
    assert drawn["observation"][0].tobytes() == obs["observation"][0].tobytes()
    with pytest.raises(ValueError, match="a seed for each of the 3 environments, not 2"):
        envs.reset(seed=[1, 2])
    for wrong in ([1, 2, "x"], 1.5, [1, True, 2]):
        with pytest.raises(TypeError, match="a seed is a whole number"):
            envs.reset(seed=wrong)


def test_a_closed_batch_refuses_reset_and_step():
    from gymnasium.error import ClosedEnvironmentError
    envs = VectorEnv("29", num_envs=2, kernel=False)
    obs, _ = envs.reset(seed=1)
    envs.close()
    with pytest.raises(ClosedEnvironmentError, match="closed"):
        envs.step(np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]]))
    with pytest.raises(ClosedEnvironmentError, match="closed"):
        envs.reset(seed=1)


def test_bad_actions_and_sizes_are_refused():
    envs = VectorEnv("29", num_envs=2)
    obs, _ = envs.reset(seed=1)
    bad = np.flatnonzero(obs["action_mask"][1] == 0)[0]
    good = np.flatnonzero(obs["action_mask"][0])[0]
    with pytest.raises(ValueError, match="environment 1: .*not legal"):
        envs.step(np.array([good, bad]))
    # nothing stepped: row 0 is where a batch that never saw the refused step is
    other = VectorEnv("29", num_envs=2)
    other.reset(seed=1)
    right = np.array([good, np.flatnonzero(obs["action_mask"][1])[0]])
    (a, _, _, _, ia), (b, _, _, _, ib) = envs.step(right), other.step(right)
    assert a["observation"].tobytes() == b["observation"].tobytes() and ia["seat"].tolist() == ib["seat"].tolist()
    with pytest.raises(ValueError, match="one id for each of the 2 environments"):
        envs.step(np.array([good]))
    with pytest.raises(ValueError, match="num_envs must be at least 1"):
        VectorEnv("29", num_envs=0)
    for wrong in (True, 2.0, "4"):
        with pytest.raises(TypeError, match="num_envs is a whole number"):
            VectorEnv("29", num_envs=wrong)
    for wrong in ("no", "yes", 1, "wait"):
        with pytest.raises(ValueError, match="kernel is None .*, True or False"):
            VectorEnv("29", num_envs=2, kernel=wrong)
        with pytest.raises(ValueError, match="kernel is None .*, True or False"):
            TaashEnv("29", kernel=wrong)
    with pytest.raises(TypeError, match="kernel_cache is a directory's path"):
        VectorEnv("29", num_envs=2, kernel_cache=42)
    assert envs.action_space.shape == (2,) and envs.observation_space["observation"].shape == (2, 1159)


WITHOUT_NUMBA = """
import sys, warnings
sys.modules["numba"] = None         # as if the fast extra were not installed
import numpy as np
from taash.kernel import KernelFallback
from taash.learn.vector import VectorEnv
envs = VectorEnv("29", num_envs=2)
obs, _ = envs.reset(seed=1)
obs, *_ = envs.step(np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]]))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    forced = VectorEnv("29", num_envs=2, kernel=True)
    from taash.learn.pettingzoo import TaashEnv
    one = TaashEnv("29", kernel=True)
    one.reset(seed=1)
said = [str(w.message) for w in caught if issubclass(w.category, KernelFallback)]
where = [(w.filename, w.lineno) for w in caught if issubclass(w.category, KernelFallback)]
print(envs.kernel is None, forced.kernel is None, said)
print(where)
"""


def test_without_the_fast_extra_the_engine_plays():
    """kernel=None (the default) without numba: the engine, nothing said; kernel=True:
    the engine, and a KernelFallback warning naming the extra."""
    out = subprocess.run([sys.executable, "-c", WITHOUT_NUMBA], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    said, where = out.stdout.splitlines()
    assert said.startswith("True True [")
    assert "pip install 'taash[fast]'" in said and said.count("the Python engine plays it") == 2
    # each warning points at the user's line: the VectorEnv, the PettingZoo environment's reset
    assert where == "[('<string>', 12), ('<string>', 15)]"
