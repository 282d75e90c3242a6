"""Every shipped variant as a PettingZoo AEC environment, judged by PettingZoo's own tests
(api_test, seed_test), and the rewards of a deal worked out from 29's scoring."""

from __future__ import annotations

import random
import warnings

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from taash.interpreter import shipped_variants  # noqa: E402
from taash.learn.pettingzoo import env  # noqa: E402


@pytest.mark.parametrize("name", shipped_variants())
def test_api_test_passes(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # its advice on Dict spaces, as for every masked env
        api_test(env(name), num_cycles=100)


@pytest.mark.parametrize("name", ["29", "304-solo", "56"])
def test_seed_test_passes(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: env(name), num_cycles=20)


def test_a_variant_file_is_an_environment(tmp_path):
    """A house rule file given by path (it extends a shipped variant)."""
    f = tmp_path / "mine.yaml"
    f.write_text('extends: "29"\nname: mine\ntitle: Mine\nauction:\n  min_bid: 17\n', encoding="utf-8")
    e = env(str(f))
    e.reset(seed=3)
    obs, *_ = e.last()
    legal = [e.unwrapped.v.actions[i].text for i in np.flatnonzero(obs["action_mask"])]
    assert "bid 17" in legal and "bid 16" not in legal


def play(e, choose):
    """Play the episode to its end; the rewards each agent got from last()."""
    got = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            got[agent] = reward
            e.step(None)
        else:
            e.step(choose(agent, obs, info))
    return got


def test_rewards_are_29s_game_points():
    """29: the declarer's side gets +1 for a contract made and -1 otherwise (§29.8); the
    other side 0. Seat 1 (eldest) bids 15, all pass; then each seat plays its first legal
    action (§0.10 order)."""
    e = env("29")
    e.reset(seed=11)
    st = e.unwrapped.deal
    first = {"bid 15", "pass"}

    def choose(agent, obs, info):
        legal = info["legal_actions"]
        if st.phase == "auction":
            pick = "bid 15" if "bid 15" in legal and st.bids == 0 else "pass"
            assert pick in first
            return e.unwrapped.v.action_map[pick].id
        return int(np.flatnonzero(obs["action_mask"])[0])

    got = play(e, choose)
    decl = st.declarer
    assert decl == (st.dealer + 1) % 4
    side = decl % 2
    made = st.made
    pts = st.side_points[side]
    assert made == (pts >= 15)
    expect = {f"seat_{s}": ((1 if made else -1) if s % 2 == side else 0) for s in range(4)}
    assert got == expect


def test_an_illegal_action_is_refused_and_changes_nothing():
    e = env("29")
    e.reset(seed=1)
    before = list(e.unwrapped.deal.history)
    obs, *_ = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        e.step(bad)
    with pytest.raises(ValueError, match="not legal"):
        e.step("bid 15")
    assert e.unwrapped.deal.history == before


def test_same_seed_same_deal():
    a, b = env("29"), env("29")
    a.reset(seed=42)
    b.reset(seed=42)
    assert a.unwrapped.deal.dealt == b.unwrapped.deal.dealt
    b.reset(seed=43)
    assert a.unwrapped.deal.dealt != b.unwrapped.deal.dealt


@pytest.mark.parametrize("name", ["29", "house/29-bhoos", "304"])
def test_each_agents_observation_is_unchanged_by_a_redeal(name):
    """At every step of an episode, each agent's observation (both arrays, as bytes) is
    the same when the cards its seat cannot see are dealt again (State.resample)."""
    e, twin = env(name), env(name)
    e.reset(seed=8)
    twin.reset(seed=8)
    rng = random.Random(8)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        for other in e.possible_agents:
            seat = e.unwrapped.agent_seat[other]
            twin.unwrapped.deal = e.unwrapped.deal.resample(seat, rng)
            a, b = e.observe(other), twin.observe(other)
            assert a["observation"].tobytes() == b["observation"].tobytes()
            assert a["action_mask"].tobytes() == b["action_mask"].tobytes()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
