"""The single-agent environment (taash.learn.single) and a neural policy trained by
maskable PPO (taash.learn.ppo): a few seconds of training by the documented command, its
file, and the result seated in a ladder by its spec."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("sb3_contrib")
pytest.importorskip("grpc")
torch = pytest.importorskip("torch")

from taash.interpreter import State, load_variant  # noqa: E402
from taash.learn.policy import PolicyBot, PolicyError  # noqa: E402
from taash.learn.ppo import PPOPolicy, from_file, read  # noqa: E402
from taash.learn.single import SeatEnv  # noqa: E402
from tests.helpers.learn_util import ladder_against_random, train_by_command  # noqa: E402


def run_episode(e, rng, seed=None):
    obs, info = e.reset(seed=seed)
    seats, total, steps = info["seats"], 0.0, 0
    done = trunc = False
    while not (done or trunc):
        mask = e.action_masks()
        assert mask.any() and obs.shape == e.observation_space.shape
        obs, r, done, trunc, _ = e.step(int(rng.choice(np.flatnonzero(mask))))
        total += r
        steps += 1
    return seats, total, steps


def test_the_learner_holds_one_side_and_gets_its_margin():
    """29 with the margin reward: the learner's sides alternate (seats 0, 2; then 1, 3);
    its episode's reward is +1 or -1 when a contract is made or lost (§29.8: the
    declarer's side +-1, the other 0, so the margin is +-1), and the same seed replays the
    same episode for the same actions."""
    e = SeatEnv("29", against="random", reward="margin")
    rng = random.Random(0)
    seen = []
    for k in range(6):
        seats, total, steps = run_episode(e, rng, seed=11 if k == 0 else None)
        assert seats == ([0, 2] if k % 2 == 0 else [1, 3])
        st = e.aec.deal
        x = 1 if st.made else -1
        mine = st.declarer in seats
        assert total == (x if mine else -x)
        seen.append((total, steps, st.history))
    again = SeatEnv("29", against="random", reward="margin")
    rng = random.Random(0)
    for k in range(6):
        _, total, steps = run_episode(again, rng, seed=11 if k == 0 else None)
        assert (total, steps, again.aec.deal.history) == seen[k]


def test_an_illegal_action_is_refused():
    e = SeatEnv("29")
    e.reset(seed=2)
    bad = int(np.flatnonzero(~e.action_masks())[0])
    with pytest.raises(ValueError, match="not legal"):
        e.step(bad)


@pytest.fixture(scope="module")
def ppo_file(tmp_path_factory):
    """A PPO policy of 29 from a few seconds of training, made by the command a user runs."""
    path = tmp_path_factory.mktemp("ppo") / "ppo-29.pt"
    summary = train_by_command("taash.learn.ppo", "--variant", "29", "--steps", "512", "--n-steps", "256",
                               "--batch-size", "64", "--eval-deals", "4", "--out", str(path))
    assert summary["trained"]["steps"] == 512 and summary["trained_policy"]["deals"] == 4
    return path


def test_the_file_holds_the_variant_and_the_network(ppo_file):
    v = load_variant("29")
    state, meta = read(ppo_file)
    assert meta["variant"] == "29" and meta["digest"] == v.digest and meta["net"] == [128, 128]
    assert meta["features"] == 1159 and meta["actions"] == 185
    untrained = PPOPolicy.empty(v).policy.state_dict()
    assert set(state) == set(untrained)
    assert state["action_net.weight"].shape == (185, 128)


def test_the_bot_plays_a_legal_action_of_highest_probability(ppo_file):
    v = load_variant("29")
    pol = PPOPolicy.load(ppo_file, v)
    bot = from_file(str(ppo_file))(v)
    assert isinstance(bot, PolicyBot)
    st = State(v, dealer=0, seed=5)
    while not st.is_terminal:
        obs = st.observation(st.to_act)
        a = bot.decide(obs, obs["legal_actions"])
        assert a in obs["legal_actions"] and a == pol.best(obs, obs["legal_actions"])
        # the most probable legal action by the network's own distribution
        x = torch.as_tensor(pol.encoding.encode(obs))[None]
        mask = np.zeros(len(v.actions), bool)
        mask[[v.action_map[t].id for t in obs["legal_actions"]]] = True
        with torch.no_grad():
            dist = pol.policy.get_distribution(x, action_masks=mask[None])
            probs = dist.distribution.probs[0].numpy()
        assert v.action_map[a].id == int(np.argmax(np.where(mask, probs, -1)))
        st.apply(a)


def test_a_file_of_another_variant_or_not_a_policy_is_refused(ppo_file, tmp_path):
    with pytest.raises(PolicyError, match="a policy of variant '29', not of '28'"):
        from_file(str(ppo_file))(load_variant("28"))
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a torch file")
    with pytest.raises(PolicyError, match="not a taash PPO policy file"):
        read(bad)
    with pytest.raises(PolicyError, match="no such policy file"):
        read(tmp_path / "missing.pt")


def test_the_ppo_policy_plays_in_a_ladder(ppo_file, tmp_path):
    ladder_against_random(f"taash.learn.ppo:from_file@{ppo_file}", tmp_path / "data")
