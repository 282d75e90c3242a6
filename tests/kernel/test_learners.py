"""The learners' vector and PettingZoo environments with the play on the compiled kernel
against the same environments on the Python engine: the same seeds and actions give, at
every step, the same observation bytes, masks, seats, rewards, episode ends and results,
on every variant the kernel compiles, a deal or a whole match an episode; a kernel-made
observation is unmoved by a re-deal of the cards its seat cannot see; an illegal action
gets the engine's error; an environment pickles mid-deal."""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import pytest

pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from taash.interpreter import State, load_variant  # noqa: E402
from taash.kernel import KernelFallback, told  # noqa: E402
from taash.learn.encoding import Encoding  # noqa: E402
from taash.learn.kernelplay import KernelPlay  # noqa: E402
from taash.learn.pettingzoo import TaashEnv  # noqa: E402
from taash.learn.vector import VectorEnv  # noqa: E402


from .test_differential import COMPILED, COPIES_COUNT, ROOT  # noqa: E402


def lockstep(name, kernel_cache, episode="deal", N=3, steps=400, seed=5, mode=True):
    """Step VectorEnv(kernel=mode) and VectorEnv(kernel=False) alike; compare everything at
    every step. Returns (steps a row was on the kernel, episodes ended, actions that were
    not plays made on the kernel, the most deals into a match a row went). With mode None
    (made in the background) the steps wait, once a kernel is being made, until it is."""
    fast = VectorEnv(name, num_envs=N, episode=episode, reward="margin", kernel=mode, kernel_cache=kernel_cache)
    slow = VectorEnv(name, num_envs=N, episode=episode, reward="margin", kernel=False)
    assert fast.kernel is not None and slow.kernel is None
    is_play = [a.kind == "play" for a in slow.v.actions]
    (a, ia), (b, ib) = fast.reset(seed=seed), slow.reset(seed=seed)
    rng = random.Random(seed)
    on = ends = calls = later = 0
    for t in range(steps):
        assert a["observation"].tobytes() == b["observation"].tobytes(), (name, t)
        assert a["action_mask"].tobytes() == b["action_mask"].tobytes(), (name, t)
        assert ia["seat"].tolist() == ib["seat"].tolist(), (name, t)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in b["action_mask"]])
        for i in range(N):
            if fast.kernel.on(i):
                on += 1
                calls += not is_play[acts[i]]
        a, ra, ta, ua, ia = fast.step(acts)
        b, rb, tb, ub, ib = slow.step(acts)
        for use in fast.kernel.uses.values():
            if use.warming is not None:
                use.warming.wait(600)
        assert ra.tobytes() == rb.tobytes() and ra.dtype == rb.dtype, (name, t)
        assert ta.tolist() == tb.tolist() and ua.tolist() == ub.tolist(), (name, t)
        assert ("result" in ia) == ("result" in ib), (name, t)
        if "result" in ib:
            assert ia["result"].tolist() == ib["result"].tolist(), (name, t)
        ends += int(tb.sum() + ub.sum())
        later = max(later, *(e.deal.deal_number for e in slow.envs))
    return on, ends, calls, later


@pytest.mark.parametrize("name, episode", [
    ("29", "deal"),                                   # trump exposed in play, the pair declared
    ("304", "match"),                                 # a face-down trump card; a match's deals
    ("house/29-hidden-trump", "deal"),
    ("tests/variants/mixed-copies.yaml", "deal"),     # copies of a card; no auction: a deal starts in play
])
def test_kernel_rows_are_the_engines(name, episode, kernel_cache):
    N, steps = 3, 400
    on, ends, _, later = lockstep(name, kernel_cache, episode, N, steps)
    # most steps of a deal are plays: the kernel made most rows (so the test is not empty)
    assert on > N * steps // 3
    assert ends >= N if episode == "deal" else later >= 2


def test_the_default_kernel_is_made_in_the_background(kernel_cache):
    """kernel=None: the rows play on the engine until the kernel made in the background
    is ready, then on it; the same bytes throughout."""
    N, steps = 3, 300
    on, ends, _, _ = lockstep("29", kernel_cache, N=N, steps=steps, mode=None)
    assert on > N * steps // 4 and ends >= N


def test_29_actions_not_plays_on_the_kernel(kernel_cache):
    """29's trump exposure and pair are made while a row is on the kernel: the engine
    catches up and a new base is taken, and the rows stay the engine's."""
    _, _, calls, _ = lockstep("29", kernel_cache, steps=900, N=4, seed=3)
    assert calls > 0


@pytest.mark.slow
@pytest.mark.parametrize("episode", ["deal", "match"])
@pytest.mark.parametrize("name", COMPILED)
def test_every_variant_kernel_rows_are_the_engines(name, episode, kernel_cache):
    on, ends, _, later = lockstep(name, kernel_cache, episode, N=3, steps=500, seed=11)
    assert on > 0 and (ends > 0 or later > 0)


@pytest.mark.parametrize("name", ["29", "304", "house/56-cot"])
def test_a_kernel_made_observation_is_unmoved_by_a_redeal(name, kernel_cache):
    """Row 0 plays a deal on the kernel from the start of play; at every step row 1 takes
    the same deal re-dealt for the seat to act (`State.resample`: the cards it cannot see
    moved) afresh: the seat's kernel-made vector and mask are the same bytes."""
    v = load_variant(name)
    enc = Encoding(v)
    kp = KernelPlay(enc, 2, kernel_cache, quiet=False)
    rng = random.Random(2)
    obs = np.zeros((2, enc.size), np.float32)
    mask = np.zeros((2, len(v.actions)), np.int8)
    seat = np.zeros(2, np.int64)
    checked = 0
    for deal in range(4):
        st = State(v, dealer=deal % v.players, seed=deal)
        while st.phase != "play":
            st.apply_id(rng.choice(st.legal_ids()))
        assert kp.enter(0, st)
        while True:
            r = st.resample(st.to_act, rng)
            assert kp.enter(1, r)
            kp.observe([0, 1], obs, mask, seat)
            assert obs[0].tobytes() == obs[1].tobytes() and mask[0].tobytes() == mask[1].tobytes()
            assert obs[0].tobytes() == enc.encode(st.observation(st.to_act)).tobytes()
            checked += 1
            a = rng.choice(np.flatnonzero(mask[0]).tolist())
            kp.play(0, a)
            st.apply_id(a)
            if st.is_terminal or st.phase != "play":
                break
            if kp.due([0]):                         # st is level with the kernel already
                kp.rebase(0, st)
    assert checked > 4 * v.tricks


def test_an_illegal_action_on_the_kernel_gets_the_engines_error(kernel_cache):
    fast = VectorEnv("29", num_envs=2, kernel=True, kernel_cache=kernel_cache)
    slow = VectorEnv("29", num_envs=2, kernel=False)
    (a, _), (b, _) = fast.reset(seed=4), slow.reset(seed=4)
    rng = random.Random(4)
    while not fast.kernel.on(1):                    # row 1 in play on the kernel
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in b["action_mask"]])
        a, *_ = fast.step(acts)
        b, *_ = slow.step(acts)
    for _ in range(3):                              # a few cards into the play
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in b["action_mask"]])
        a, *_ = fast.step(acts)
        b, *_ = slow.step(acts)
    good = np.flatnonzero(b["action_mask"][0])[0]
    bad = np.flatnonzero(b["action_mask"][1] == 0)[0]
    errors = []
    for envs in (fast, slow):
        with pytest.raises(ValueError, match="environment 1: .*not legal") as e:
            envs.step(np.array([good, bad]))
        errors.append(str(e.value))
    assert errors[0] == errors[1]
    # both go on alike: row 0 stepped, row 1 did not
    acts = np.array([slow.envs[0].deal.legal_ids()[0], np.flatnonzero(b["action_mask"][1])[0]])
    (a, ra, *_), (b, rb, *_) = fast.step(acts), slow.step(acts)
    assert a["observation"].tobytes() == b["observation"].tobytes() and ra.tobytes() == rb.tobytes()


def test_kernel_false_is_the_engine():
    assert VectorEnv("29", num_envs=2, kernel=False).kernel is None


def pettingzoo_lockstep(name, kernel_cache, episode="deal", steps=900, seed=3):
    """TaashEnv(kernel=True) against TaashEnv(kernel=False): the agent to act, every
    observation asked (the agent to act's, and every seat's now and then: a seat not to act
    is the engine's, brought level), infos, rewards, cumulative rewards and ends, at every
    step. Returns the steps taken on the kernel."""
    fast = TaashEnv(name, episode=episode, kernel=True, kernel_cache=kernel_cache)
    slow = TaashEnv(name, episode=episode, kernel=False)
    fast.reset(seed=seed)
    slow.reset(seed=seed)
    rng = random.Random(seed)
    on = 0
    for t in range(steps):
        assert fast.agent_selection == slow.agent_selection, (name, t)
        for agent in ([slow.agent_selection] if t % 5 else slow.possible_agents):
            x, y = fast.observe(agent), slow.observe(agent)
            assert x["observation"].tobytes() == y["observation"].tobytes(), (name, t, agent)
            assert x["action_mask"].tobytes() == y["action_mask"].tobytes(), (name, t, agent)
        assert fast.last()[1:] == slow.last()[1:], (name, t)
        assert (fast.infos, fast.rewards, fast.terminations, fast.truncations) == \
            (slow.infos, slow.rewards, slow.terminations, slow.truncations), (name, t)
        agent = slow.agent_selection
        if slow.terminations[agent] or slow.truncations[agent]:
            fast.step(None)
            slow.step(None)
            if not slow.agents:
                fast.reset()
                slow.reset()
            continue
        on += fast.kernel_on()
        a = int(rng.choice(np.flatnonzero(slow.observe(agent)["action_mask"])))
        fast.step(a)
        slow.step(a)
    assert fast.deal.history == slow.deal.history
    return on


@pytest.mark.parametrize("name, episode", [("29", "deal"), ("304", "match"),
                                           ("tests/variants/mixed-copies.yaml", "deal")])
def test_pettingzoo_on_the_kernel_is_the_engines(name, episode, kernel_cache):
    assert pettingzoo_lockstep(name, kernel_cache, episode) > 900 // 3


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPILED)
def test_every_variant_pettingzoo_on_the_kernel_is_the_engines(name, kernel_cache):
    assert pettingzoo_lockstep(name, kernel_cache, "match", steps=500) > 0


def test_pettingzoo_on_the_kernel_pickles_mid_deal(kernel_cache):
    """Pickled in the middle of the play (on the kernel), the copy is the engine's State
    level with the kernel, and plays on alike."""
    e = TaashEnv("29", kernel=True, kernel_cache=kernel_cache)
    e.reset(seed=1)
    rng = random.Random(1)
    while not (e.kernel_on() and len(e.deal.trick_cards) == 2):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    copy = pickle.loads(pickle.dumps(e))
    assert copy.deal.history == e.deal.history and not copy.kernel_on()
    for _ in range(6):
        a = int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
        x, y = e.observe(e.agent_selection), copy.observe(copy.agent_selection)
        assert x["observation"].tobytes() == y["observation"].tobytes()
        e.step(a)
        copy.step(a)
    assert copy.kernel_on()         # taken again at the next step in play


def test_the_vector_environment_on_the_kernel_pickles_mid_deal(kernel_cache):
    """Pickled and deep-copied with rows in the middle of the play (on the kernel), the
    copies play on as the original and as the engine, on the kernel again."""
    fast = VectorEnv("29", num_envs=3, kernel=True, kernel_cache=kernel_cache)
    slow = VectorEnv("29", num_envs=3, kernel=False)
    (a, _), (b, _) = fast.reset(seed=2), slow.reset(seed=2)
    rng = random.Random(2)

    def step(envs_list):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in b["action_mask"]])
        return [x.step(acts)[0] for x in envs_list]

    while not all(fast.kernel.on(i) and fast.kernel.pending[i] for i in range(3)):
        a, b = step([fast, slow])
    copies = [pickle.loads(pickle.dumps(fast)), copy.deepcopy(fast)]
    assert all(c.kernel.on(i) for c in copies for i in range(3))
    for _ in range(40):
        outs = step([fast, slow, *copies])
        a, b = outs[0], outs[1]
        assert all(o["observation"].tobytes() == b["observation"].tobytes() for o in outs)
        assert all(o["action_mask"].tobytes() == b["action_mask"].tobytes() for o in outs)


def test_a_variant_the_kernel_cannot_compile_plays_on_the_engine(kernel_cache, tmp_path):
    """kernel=True on a file the kernel has no code for: said once (a KernelFallback
    warning, unless this process was told already), and every row on the engine."""
    path = tmp_path / "copies-count.yaml"
    path.write_text(COPIES_COUNT.format(base=ROOT / "tests" / "variants" / "mixed-copies.yaml"))
    v = load_variant(str(path))
    before = told(v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        on, ends, _, _ = lockstep(str(path), kernel_cache, steps=120)
    said = [w for w in caught if issubclass(w.category, KernelFallback)]
    assert on == 0 and ends > 0
    assert len(said) == (0 if before else 1)
    assert told(v) == "count() of cards in a deck with copies of a card"
