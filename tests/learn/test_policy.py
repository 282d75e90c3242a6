"""The policy adapter (taash.learn.policy) and the training script (taash.learn.train): a
policy file from a tiny training run seated in a ladder and over a real arena."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("grpc")

from taash.arena.bots import registry  # noqa: E402
from taash.arena.errors import UnknownBotError  # noqa: E402
from taash.interpreter import State, load_variant, replay  # noqa: E402
from taash.learn.policy import LinearPolicy, PolicyBot, PolicyError, from_file, read  # noqa: E402
from taash.learn.train import evaluate, learner_seats, train  # noqa: E402
from tests.helpers.arena_util import ROOT, Server, env  # noqa: E402
from tests.helpers.learn_util import ladder_against_random, train_by_command  # noqa: E402


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory):
    """A policy of 29 from a tiny training run, made by the command a user runs."""
    path = tmp_path_factory.mktemp("policy") / "p29.npz"
    summary = train_by_command("taash.learn.train", "--variant", "29", "--deals", "60", "--eval-deals", "4",
                               "--out", str(path))
    assert summary["trained"]["deals"] == 60 and summary["trained_policy"]["deals"] == 4
    return path


def test_the_file_holds_the_variant_and_the_weights(policy_file):
    v = load_variant("29")
    W, b, meta = read(policy_file)
    assert W.shape == (len(v.actions), LinearPolicy(v).encoding.size) and b.shape == (len(v.actions),)
    assert meta["variant"] == "29" and meta["digest"] == v.digest and meta["deals"] == 60
    assert W.any()                                       # training moved the weights


def test_the_bot_takes_the_highest_logit():
    """A bias of 1 on ``pass`` and 0 elsewhere: with every weight 0 the logits are the
    biases, so the bot passes whenever it may; the dealer after three passes may not pass
    (§29.4) and takes the first legal action in id order, the lowest bid, 15."""
    v = load_variant("29")
    pol = LinearPolicy(v)
    pol.b[v.action_map["pass"].id] = 1.0
    bot = PolicyBot(pol)
    st = State(v, dealer=0, seed=3)
    for _ in range(3):
        obs = st.observation(st.to_act)
        a = bot.decide(obs, obs["legal_actions"])
        assert a == "pass"
        st.apply(a)
    obs = st.observation(st.to_act)
    assert "pass" not in obs["legal_actions"]
    assert bot.decide(obs, obs["legal_actions"]) == "bid 15"


def test_probabilities_are_a_softmax_over_the_legal_actions():
    v = load_variant("29")
    pol = LinearPolicy(v)
    pol.b[:3] = [0.0, np.log(3.0), 0.0]
    p = pol.probabilities(np.zeros(pol.encoding.size, np.float32), [0, 1, 2])
    assert p.tolist() == pytest.approx([0.2, 0.6, 0.2])


def test_a_policy_of_another_variant_or_a_bad_file_is_refused(policy_file, tmp_path):
    with pytest.raises(PolicyError, match="a policy of variant '29', not of '28'"):
        LinearPolicy.load(policy_file, load_variant("28"))
    with pytest.raises(PolicyError, match="not of '28'"):
        from_file(str(policy_file))(load_variant("28"))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(PolicyError, match="not a taash policy file"):
        read(bad)
    with pytest.raises(PolicyError, match="no such policy file"):
        read(tmp_path / "missing.npz")


def test_the_registry_takes_a_maker_with_an_argument(policy_file):
    e = registry.resolve(f"taash.learn.policy:from_file@{policy_file}")
    assert e.name == "from_file"
    agent = e.make(load_variant("29"), 0)
    assert isinstance(agent, PolicyBot)
    with pytest.raises(UnknownBotError, match=r"from_file\('/no/such.npz'\) raised PolicyError: "
                                              r"/no/such.npz: no such policy file"):
        registry.resolve("p=taash.learn.policy:from_file@/no/such.npz").load()


def test_learner_seats():
    assert learner_seats(load_variant("29"), 1) == [1, 3]
    assert learner_seats(load_variant("56"), 0) == [0, 2, 4]
    assert learner_seats(load_variant("304-solo"), 4) == [1]


def test_same_seed_same_policy_and_figures():
    v = load_variant("304-solo")
    a = train(v, seconds=None, deals=30, seed=4)
    b = train(v, seconds=None, deals=30, seed=4)
    assert np.array_equal(a.W, b.W) and np.array_equal(a.b, b.b)
    assert evaluate(v, a, deals=5, seed=2) == evaluate(v, b, deals=5, seed=2)


def test_two_equal_sides_measure_zero(tmp_path):
    """Duplicate deals cancel the cards: the untrained policy against itself as a bot (both
    deterministic) measures exactly 0 on every deal."""
    v = load_variant("29")
    zero = LinearPolicy(v)
    zero.save(tmp_path / "zero.npz")
    f = evaluate(v, zero, deals=6, seed=1, against=f"z=taash.learn.policy:from_file@{tmp_path / 'zero.npz'}")
    assert f["mean"] == 0 and f["low"] == 0 and f["high"] == 0

def test_the_trained_policy_plays_in_a_ladder(policy_file, tmp_path):
    res = ladder_against_random(f"taash.learn.policy:from_file@{policy_file}", tmp_path / "data")
    assert res["deals"] == 8


def test_the_trained_policy_plays_over_the_arena(policy_file, tmp_path):
    s = Server(tmp_path / "data")
    try:
        s.bot(f"learned=taash.learn.policy:from_file@{policy_file}", "pol", s.token("pol"))
        s.bot("random", "r1", s.token("r1"))
        s.wait_connected(["pol", "r1"])
        out = s.taash("arena", "match", "29", "--bots", "pol,r1,pol,r1", "--seed", "3", "--max-deals", "2",
                      "--json", "--server", s.addr, "--data", str(s.data))
        assert out.returncode == 0, out.stderr
        [m] = json.loads(out.stdout)["matches"]
        assert m["error"] == "" and m["faults"] == 0 and m["deals"] == 2 and m["complete"] is False  # cut at 2
        # every action of seats 0 and 2 in the record is the policy's choice on that seat's view
        v = load_variant("29")
        bot = from_file(str(policy_file))(v)
        played = replay(json.loads(open(m["record"]).read()))
        seen = 0
        for done in played.deals:
            st = State(v, dealer=done.dealer, hands=done.dealt, widow=done.widow, scores=done.start_scores,
                       deal_number=done.deal_number)
            for seat, a in done.history:
                if seat in (0, 2):
                    obs = st.observation(seat)
                    assert bot.decide(obs, obs["legal_actions"]) == a
                    seen += 1
                st.apply(a)
        assert seen > 0
    finally:
        s.stop()


def test_without_the_learn_extra_the_bot_names_it():
    """A process where numpy cannot be imported: seating the policy bot is one error line
    naming the extra to install."""
    code = ("import sys; sys.modules['numpy'] = None\n"
            "from taash.arena.bots import registry\n"
            "try:\n"
            "    registry.resolve('p=taash.learn.policy:from_file@x.npz').load()\n"
            "except Exception as e:\n"
            "    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env(),
                         timeout=120)
    assert out.stdout.startswith("UnknownBotError cannot load bot 'p' from 'taash.learn.policy:from_file@x.npz'")
    # the module's own ImportError names the missing library and the extra
    assert out.stdout.rstrip().endswith(": taash.learn.policy needs the learn extra (numpy is not installed): "
                                        "pip install 'taash[learn]'")


def test_the_printed_measure_is_worded_for_any_partnership(tmp_path):
    """304-solo: three seats, each its own side; the measure is the policy's seats' mean
    against the other seats' mean, and the line says so (no 'other side' there is none)."""
    out = subprocess.run([sys.executable, "-m", "taash.learn.train", "--variant", "304-solo", "--deals", "4",
                          "--eval-deals", "2", "--out", str(tmp_path / "p.npz")],
                         capture_output=True, text=True, cwd=ROOT, env=env(), timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if "duplicate deals" in ln]
    assert len(lines) == 2
    for ln in lines:
        assert "a deal (the policy's seats' mean score change minus the other seats' mean), 95% interval" in ln
        assert "side" not in ln
