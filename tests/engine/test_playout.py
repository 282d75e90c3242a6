"""The one game loop (interpreter/playout.py): matches it plays replay from their records
to the same result, the same seeds give the same match, and every fault (an agent that
raises, answers illegal or invalid text, a remote seat that gives no answer) calls the
one hook once and gets state.default_action() (docs/rules.md §0.10 order; docs/protocol.md)."""

from __future__ import annotations

import asyncio
import random

import pytest

from taash.interpreter import IllegalActionError, InvalidActionError, Match, State, load_variant, replay
from taash.interpreter.playout import ERROR, ILLEGAL, INVALID, NoAnswer, Playout, play, play_async, steps


class Seeded:
    """A state agent: uniform among the legal actions from its own generator."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def decide_state(self, state, seat):
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]


def first_legal(observation, legal):
    return legal[0]


def record_of(name, seed, max_deals, agents_seed=0):
    v = load_variant(name)
    m = play(Match(v, seed), [Seeded(f"{agents_seed}:{s}") for s in range(v.players)], max_deals=max_deals)
    return v, m, m.record()


@pytest.mark.parametrize("name", ["29", "28", "304-solo", "house/56-cot"])
def test_a_played_match_replays_to_the_same_result(name):
    v, m, rec = record_of(name, 5, 6)
    assert 1 <= len(rec["deals"]) <= 6
    again = replay(rec)
    assert again.seat_scores() == m.seat_scores()
    assert again.summary() == m.summary()
    assert [st.result() for st in again.deals] == [st.result() for st in m.deals]


def test_same_seeds_same_match_and_other_seeds_another():
    _, _, a = record_of("29", 3, 5)
    _, _, b = record_of("29", 3, 5)
    _, _, c = record_of("29", 3, 5, agents_seed=1)
    assert a == b
    assert [d["actions"] for d in a["deals"]] != [d["actions"] for d in c["deals"]]


def test_a_whole_match_stops_at_the_end_or_at_the_deal_limit():
    v = load_variant("28")
    m = play(Match(v, 2), [first_legal] * 4, max_deals=3)
    assert len(m.deals) == 3 or m.over
    m2 = play(Match(v, 2), [first_legal] * 4)
    assert m2.over and len(m2.deals) >= len(m.deals)
    # played on from where it stood: a limit already reached plays nothing more
    assert len(play(m, [first_legal] * 4, max_deals=3).deals) == len(m.deals)


class Faulty:
    """An observation agent that answers ``answer`` (or raises it, if an exception)."""

    def __init__(self, answer):
        self.answer = answer
        self.calls = 0

    def decide(self, observation, legal):
        self.calls += 1
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def faults_of(agent, n=8):
    """The first ``n`` actions of a 29 deal where every seat is ``agent``, and the faults."""
    v = load_variant("29")
    seen = []

    def hook(f):
        # at the hook the default has not been applied yet
        assert f.state.to_act == f.seat and f.default == f.state.default_action()
        seen.append((f.seat, f.kind, f.answer, f.default, len(f.state.history), type(f.error)))

    m = Match(v, 4)
    gen = steps(m, max_deals=1, on_fault=hook)
    st, seat = next(gen)
    for _ in range(n):
        try:
            answer = agent.decide(st.observation(seat), st.legal_actions())
        except Exception as e:
            answer = NoAnswer(ERROR, e)
        st, seat = gen.send(answer)
    return st, seen


@pytest.mark.parametrize("answer, kind, error", [
    (RuntimeError("boom"), ERROR, RuntimeError),
    ("play JH", ILLEGAL, IllegalActionError),   # an action of 29, not legal in the auction
    ("play 1X", INVALID, InvalidActionError),   # no action of 29 at all
    (load_variant("29").action_map["play JH"].id, ILLEGAL, IllegalActionError),  # its id
    (10 ** 6, INVALID, InvalidActionError),     # an id of no action
    (None, INVALID, (InvalidActionError, TypeError)),   # not even text
])
def test_each_fault_calls_the_hook_once_and_gets_the_default(answer, kind, error):
    st, seen = faults_of(Faulty(answer))
    d = st.dealer
    # docs/rules.md §29.4 and §0.10: eldest and the next two pass by default (pass comes first);
    # then the dealer may not pass: the lowest bid, 15; three passes end the auction; the
    # declarer (the dealer) names the first suit, S (§0.10: S H D C)
    expected = ["pass", "pass", "pass", "bid 15", "pass", "pass", "pass", "trump S"]
    assert [a for _, a in st.history] == expected
    assert [s for s, _ in st.history] == [(d + 1 + i) % 4 for i in range(8)]
    assert [x[:2] for x in seen] == [((d + 1 + i) % 4, kind) for i in range(8)]
    assert [x[3] for x in seen] == expected and [x[4] for x in seen] == list(range(8))
    for x in seen:
        assert issubclass(x[5], error)
        assert x[2] == (None if kind == ERROR else answer)   # no answer when it raised


def test_faults_in_play_keep_the_deal_legal_and_replayable():
    v = load_variant("304")
    raised = Faulty(ValueError("x"))
    kinds = []
    m = play(Match(v, 9), [raised, Seeded(1), Faulty("play 1X"), Seeded(2)], max_deals=2,
             on_fault=lambda f: kinds.append((f.seat, f.kind)))
    assert {k for _, k in kinds} == {ERROR, INVALID} and {s for s, _ in kinds} == {0, 2}
    rec = m.record()
    assert replay(rec).seat_scores() == m.seat_scores()
    # every action of seats 0 and 2 was the default action at its point
    for d, deal in zip(m.deals, rec["deals"]):
        st = Match(v, 9).new_deal(hands=deal["hands"], widow=deal["widow"], dealer=deal["dealer"])
        for a in deal["actions"]:
            if st.to_act in (0, 2):
                assert a == st.default_action()
            st.apply(a)
    assert len(kinds) == sum(1 for deal in m.deals for s, _ in deal.history if s in (0, 2))


def test_a_state_agent_needs_no_observation(monkeypatch):
    def no(self, seat):
        raise AssertionError("an observation was built")
    monkeypatch.setattr(State, "observation", no)
    v = load_variant("29")
    m = play(Match(v, 1), [Seeded(s) for s in range(4)], max_deals=2)
    assert len(m.deals) == 2


class Both:
    """An agent with both faces: which one the loop asks depends on ``prefer``."""

    def __init__(self):
        self.used = set()

    def decide(self, observation, legal):
        assert isinstance(observation, dict) and observation["seat"] in range(4)
        self.used.add("observation")
        return legal[0]

    def decide_state(self, state, seat):
        self.used.add("state")
        return state.legal_actions()[0]


def test_prefer_chooses_the_face_of_an_agent_with_both():
    v = load_variant("28")
    a, b = Both(), Both()
    ma = play(Match(v, 1), [a] * 4, max_deals=1)
    mb = play(Match(v, 1), [b] * 4, max_deals=1, prefer="observation")
    assert a.used == {"state"} and b.used == {"observation"}
    assert ma.record() == mb.record()


def test_hooks_see_each_deal_and_action_in_order():
    v = load_variant("28")
    log = []
    m = play(Match(v, 3), [first_legal] * 4, max_deals=2,
             on_deal_start=lambda st: log.append(("start", st.deal_number)),
             on_action=lambda st, s, a, dflt: log.append(("action", s, a, dflt)),
             on_deal_end=lambda st: log.append(("end", st.deal_number, st.is_terminal)))
    starts = [i for i, x in enumerate(log) if x[0] == "start"]
    assert [log[i] for i in starts] == [("start", 0), ("start", 1)]
    assert [x for x in log if x[0] == "end"] == [("end", 0, True), ("end", 1, True)]
    acts = [x for x in log if x[0] == "action"]
    assert [(s, a) for _, s, a, _ in acts] == [(s, a) for st in m.deals for s, a in st.history]
    assert not any(x[3] for x in acts)


def test_the_async_driver_plays_the_same_match_and_remote_seats_give_no_answer():
    v = load_variant("29")
    sync = play(Match(v, 7), [Seeded(s) for s in range(4)], max_deals=2)
    agents = [Seeded(s) for s in range(4)]
    kinds = []

    async def remote(st, seat):
        await asyncio.sleep(0)
        return agents[seat].decide_state(st, seat)

    m = asyncio.run(play_async(Match(v, 7), remote, max_deals=2, on_fault=kinds.append))
    assert m.record() == sync.record() and kinds == []

    async def timing_out(st, seat):
        return NoAnswer("TIMEOUT") if seat == 1 else st.legal_actions()[-1]

    m = asyncio.run(play_async(Match(v, 7), timing_out, max_deals=1,
                               on_fault=lambda f: kinds.append((f.seat, f.kind, f.answer))))
    ones = [a for s, a in m.deals[0].history if s == 1]
    assert kinds == [(1, "TIMEOUT", None)] * len(ones) and ones


def test_given_deals_are_dealt():
    v = load_variant("28")
    m0 = play(Match(v, 1), [first_legal] * 4, max_deals=1)
    rec = m0.record()["deals"][0]
    spec = {"hands": rec["hands"], "widow": rec["widow"], "dealer": (rec["dealer"] + 1) % 4}
    m = play(Match(v, 99), [first_legal] * 4, max_deals=1, deals=[spec])
    assert m.record()["deals"][0]["hands"] == rec["hands"] and m.deals[0].dealer == spec["dealer"]


def test_the_step_api_plays_the_same_match_as_the_loop_and_ends_with_the_deals_played():
    # Playout (the arena's driver: called back per answer) is the loop of `play`, as calls
    v = load_variant("29")
    _, _, rec = record_of("29", 4, 3)
    m = Match(v, 4)
    agents = [Seeded(f"0:{s}") for s in range(v.players)]
    p = Playout(m, max_deals=3)
    at, n = p.start(), 0
    while at is not None:
        st, seat = at
        at = p.send(agents[seat].decide_state(st, seat))
        n += 1
    assert m.record() == rec
    assert p.played == len(rec["deals"]) == 3
    assert n == sum(len(d["actions"]) for d in rec["deals"])
    assert p.send("pass") is None and p.played == 3       # over: nothing more is applied
    # a NoAnswer is a fault with the default applied, as in the loop
    kinds = []
    q = Playout(Match(v, 4), max_deals=1, on_fault=lambda f: kinds.append((f.kind, f.seat)))
    st, seat = q.start()
    st2, _ = q.send(NoAnswer("TIMEOUT"))
    assert kinds == [("TIMEOUT", seat)] and st2.history[-1][0] == seat
    # a match already at its deal limit has no decision at all
    assert Playout(m, max_deals=3).start() is None


@pytest.mark.parametrize("name", ["29", "304"])
def test_a_match_that_keeps_no_deals_plays_the_same_match(name):
    # keep_deals=False (taash simulate without --record): the same deals, scores and end,
    # counted in `played`; no State kept, so no record
    v = load_variant(name)
    kept = play(Match(v, 3), [Seeded(f"k:{s}") for s in range(v.players)], max_deals=7)
    light = Match(v, 3, keep_deals=False)
    ends = []
    play(light, [Seeded(f"k:{s}") for s in range(v.players)], max_deals=7,
         on_deal_end=lambda st: ends.append((st.dealer, st.scores, st.actions())))
    assert light.played == kept.played == len(kept.deals) == 7 and light.deals == []
    assert ends == [(st.dealer, st.scores, st.actions()) for st in kept.deals]
    assert light.scores == kept.scores and light.over == kept.over
    with pytest.raises(ValueError, match="kept no deals"):
        light.record()


def test_a_match_finishes_only_its_next_deal_and_once():
    # Match.finish_deal refuses a deal finished twice, another match's deal, or one that
    # did not start from the match's scores: the record would disagree with the match
    v = load_variant("29")
    m = Match(v, 2)
    st = m.new_deal()
    while not st.is_terminal:
        st.apply(st.default_action())
    m.finish_deal(st)
    with pytest.raises(ValueError, match="not this match's next deal"):
        m.finish_deal(st)
    other = State(v, dealer=3, seed=99, scores=[5, 5])
    while not other.is_terminal:
        other.apply(other.default_action())
    with pytest.raises(ValueError, match="not this match's next deal"):
        m.finish_deal(other)
    assert m.played == 1 and len(m.deals) == 1
    assert replay(m.record()).seat_scores() == m.seat_scores()


def test_after_the_end_no_action_and_no_seat_beyond_the_table():
    v = load_variant("29")
    st = State(v, dealer=0, seed=1)
    while not st.is_terminal:
        st.apply(st.default_action())
    with pytest.raises(IllegalActionError, match="the deal is over"):
        st.apply("pass")
    for seat in (4, -1, "0"):
        with pytest.raises(ValueError, match="seat must be 0..3"):
            st.observation(seat)
