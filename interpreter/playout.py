"""One game loop: a match played with one agent per seat and one fault hook.

`taash simulate`, the ladder's in-process games and the arena server all play through
`steps`, so the sequence of a match is written here once:

    while the match is not over and the deal limit is not reached:
        start the next deal (from the match seed, or given hands)
        while the deal is not over:
            seat = whose turn; ask that seat's agent
            apply the answer; if there is none, or the engine refuses it (invalid text,
            an action not legal now), call the fault hook and apply state.default_action()
        finish the deal (match scores, next dealer, the match end)

>>> from taash.interpreter import Match, load_variant
>>> from taash.interpreter.playout import play
>>> first = lambda observation, legal: legal[0]          # an observation agent
>>> m = play(Match(load_variant("28"), seed=1), [first] * 4, max_deals=1)
>>> len(m.deals), m.deals[0].is_terminal
(1, True)

Agents (the contract of an in-process bot; the arena's bots see the same through gRPC):

- **Observation agent**: ``decide(observation, legal) -> action``, or a plain function of
  those two arguments. ``observation`` is ``state.observation(seat)`` (a JSON-ready dict:
  what the seat has seen), ``legal`` a fresh list of the legal `Action` objects (docs/rules.md
  §0.10 order; an Action *is* its text, so ``"play JH"`` is also an answer).
- **State agent** (for search): ``decide_state(state, seat) -> action``, given the
  `State` itself. It must use only what ``seat`` may see: ``state.observation(seat)``,
  ``state.legal_actions()``, ``state.copy()`` and ``state.resample(seat, rng)`` (a copy
  in which every card the seat cannot see is dealt again consistently with what it
  knows); it must not read other seats' hands, the widow or ``history`` directly, and
  must not change ``state`` (search on copies). Nothing enforces this in process: the
  ladder and the arena (which only ever sends observations) are where it is checked.
  It may answer an action id (an entry of ``state.legal_ids()``) instead of the action:
  the hot path, with no Action looked up.

An agent with both methods is a state agent unless the driver is asked for
``prefer="observation"`` (the ladder does: a game in process is then the same game as in
the arena, where only observations exist).

Faults: an agent that raises, answers text that is no action of the variant
(``INVALID``) or an action that is not legal now (``ILLEGAL``), or a remote seat that
settles a decision without an answer (a `NoAnswer` of its own kind, such as the arena's
``"TIMEOUT"``), gets ``state.default_action()`` applied for it, after one call of the
fault hook ``on_fault(Fault)``.

Why a generator: the arena is asyncio (asking a seat is awaiting a remote answer) and
simulate and the ladder are plain calls. `steps` is the sequence itself as a generator
that yields each decision point ``(state, seat)`` and is sent the answer; `Playout` is
the same as calls (``start``, then ``send`` per answer, each returning the next decision
point or None), for a driver that is called back when an answer comes (the arena
applies a bot's answer from the stream that brought it); the async driver `play_async`
is a loop over a `Playout` that only asks the agents, and the sync driver `play` gives
`steps` the agents to ask itself (``ask``: no switch of generator per decision). The
sequence is thus written once, needs neither threads nor asyncio here, and costs at most
one ``send`` per decision (about 0.1 µs). It also builds nothing a caller did not ask for: no observation for a
state agent, no record (``match.record()`` is the caller's), no event unless a hook is
given.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from . import information
from .actions import Action
from .engine import Match
from .errors import ActionError, InvalidActionError, StateError
from .variant import load_variant

# kinds of faults the loop finds itself (a remote seat's NoAnswer brings its own kind)
ERROR = "error"        # the agent raised an exception
INVALID = "invalid"    # its answer is no action of the variant (not even text, perhaps)
ILLEGAL = "illegal"    # its answer is an action of the variant, not legal now


class NoAnswer:
    """What a driver sends to `steps` for a seat that gave no answer: ``kind`` (`ERROR`
    for an exception, else the remote seat's own kind), ``error`` (the exception, or
    None), ``detail`` (free text for the hook)."""

    __slots__ = ("kind", "error", "detail")

    def __init__(self, kind: str, error: BaseException | None = None, detail: str = ""):
        self.kind, self.error, self.detail = kind, error, detail

    def __repr__(self) -> str:
        return f"NoAnswer({self.kind!r})"


@dataclass(frozen=True)
class Fault:
    """One fault, as the hook sees it: the ``state`` before the default action is
    applied (``state.to_act == seat``), the ``seat``, the ``kind`` (`ERROR`, `INVALID`,
    `ILLEGAL` or a remote seat's kind), the agent's ``answer`` (None if it gave none),
    the ``error`` (the agent's exception, or the engine's ActionError), and the
    ``default`` action that is applied next (``state.default_action()``)."""
    state: object
    seat: int
    kind: str
    answer: object
    error: BaseException | None
    default: object


def policy(agent, prefer: str = "state"):
    """The function ``f(state, seat) -> answer`` that asks ``agent`` (see the module's
    docstring). ``prefer``: "state" uses ``decide_state`` when the agent has one,
    "observation" uses ``decide`` when it has one. Raises TypeError for an object that
    is no agent."""
    if prefer not in ("state", "observation"):
        raise StateError(f"prefer must be 'state' or 'observation', not {prefer!r}")
    by_state = getattr(agent, "decide_state", None)
    by_obs = getattr(agent, "decide", None)
    if by_obs is None and by_state is None and callable(agent):
        by_obs = agent
    if by_state is not None and (prefer == "state" or by_obs is None):
        return by_state
    if by_obs is None:
        raise TypeError(f"{agent!r} is no agent: give decide(observation, legal), "
                        "decide_state(state, seat) or a function (observation, legal) -> action")

    def ask(state, seat, _decide=by_obs):
        return _decide(state.observation(seat), list(state.legal_actions()))
    return ask


def steps(match, *, max_deals: int | None = None, deals: list | None = None, on_fault=None,
          on_deal_start=None, on_action=None, on_deal_end=None, ask=None):
    """The sequence of a match, as a generator: yields ``(state, seat)`` at each decision
    and is sent the answer (an action, its text, its id, or a `NoAnswer`); returns the number of
    deals it played. Drivers: `play`, `play_async`. With ``ask`` (a list per seat of
    functions ``f(state, seat) -> answer``, as `policy` makes them) it asks them itself
    and yields nothing (an exception from one is a `NoAnswer` of kind `ERROR`): `play`'s
    way, with no switch of generator per decision.

    ``match``: an `interpreter.Match` (played on from where it is). ``max_deals``: stop
    once the match holds that many deals (None: until ``match.over``). ``deals``: per
    deal index an optional ``{"hands", "widow", "dealer"}`` as in a record (else the seed
    deals). Hooks, each optional and called synchronously: ``on_fault(Fault)``;
    ``on_deal_start(state)`` after a deal is dealt; ``on_action(state, seat, action,
    by_default)`` after each action is applied (``action`` is the engine's `Action`);
    ``on_deal_end(state)`` after ``match.finish_deal``. An exception from a hook or the
    engine ends the generator with that exception."""
    played = 0
    while not match.over and (max_deals is None or match.played < max_deals):
        spec = deals[match.played] if deals and match.played < len(deals) else None
        if spec:
            st = match.new_deal(hands=spec.get("hands"), widow=spec.get("widow"), dealer=spec.get("dealer"))
        else:
            st = match.new_deal()
        if on_deal_start is not None:
            on_deal_start(st)
        while st.to_act >= 0:
            seat = st.to_act
            if ask is None:
                answer = yield st, seat
            else:
                try:
                    answer = ask[seat](st, seat)
                except Exception as e:
                    answer = NoAnswer(ERROR, e)
            try:
                if type(answer) is int:         # an action id (a state agent's): the hot path
                    st.apply_id(answer)
                elif type(answer) is Action and st.v.actions[answer.id] is answer:
                    st.apply_id(answer.id)      # one of this variant's own
                else:
                    st.apply(answer)
                by_default = False
            except (ActionError, TypeError) as e:   # refused; the state is unchanged
                if isinstance(answer, NoAnswer):
                    kind, error, answer = answer.kind, answer.error, None
                elif isinstance(e, TypeError) and isinstance(answer, str):
                    raise                               # text that broke the engine: a bug
                else:
                    kind, error = (ILLEGAL if isinstance(e, ActionError) and not isinstance(e, InvalidActionError)
                                   else INVALID), e
                default = st.default_action()
                if on_fault is not None:
                    on_fault(Fault(st, seat, kind, answer, error, default))
                st.apply(default)
                by_default = True
            if on_action is not None:
                on_action(st, seat, st.history[-1][1], by_default)
        match.finish_deal(st)
        played += 1
        if on_deal_end is not None:
            on_deal_end(st)
    return played


class Playout:
    """`steps` as a synchronous step API: ``start()`` deals and returns the first
    decision point ``(state, seat)``; ``send(answer)`` applies an answer (an action, its
    text or a `NoAnswer`, as `steps` is sent) and returns the next decision point, or
    None once the match is played (or the deal limit reached): ``played`` is then the
    number of deals played. The keywords are those of `steps`; an exception from a hook
    or the engine comes out of ``start``/``send`` and ends the playout. For a driver that
    is called back when an answer arrives (the arena); `play_async` loops over it.

    >>> from taash.interpreter import Match, load_variant
    >>> p = Playout(Match(load_variant("28"), seed=1), max_deals=1)
    >>> at = p.start()
    >>> while at is not None:
    ...     state, seat = at
    ...     at = p.send(state.legal_actions()[0])
    >>> p.played
    1
    """

    __slots__ = ("_gen", "played")

    def __init__(self, match, **kw):
        self._gen = steps(match, **kw)
        self.played: int | None = None      # deals played, once over

    def start(self):
        """The first decision point ``(state, seat)``, or None if there is none."""
        return self.send(None)

    def send(self, answer):
        """Apply ``answer`` at the pending decision; the next decision point or None
        (also once over: nothing more is applied)."""
        if self.played is not None:
            return None
        try:
            return self._gen.send(answer)
        except StopIteration as e:
            self.played = e.value
            return None

    def close(self) -> None:
        """Abandon the match where it is (the match keeps the deals already finished)."""
        self._gen.close()


def play(match, agents, *, prefer: str = "state", **kw):
    """Play ``match`` on (see `steps` for the keywords) with ``agents[seat]`` in each
    seat; returns ``match``. Each agent is asked through `policy(agent, prefer)`; an
    exception it raises is a fault of kind `ERROR` (KeyboardInterrupt and SystemExit are
    not caught)."""
    if len(agents) != match.v.players:
        raise StateError(f"{match.v.players} seats need {match.v.players} agents, not {len(agents)}")
    ask = [policy(a, prefer) for a in agents]
    next(steps(match, ask=ask, **kw), None)     # asks the agents itself: yields nothing
    return match


async def play_async(match, decide, **kw):
    """Play ``match`` on (see `steps` for the keywords), asking ``await decide(state,
    seat)`` at each decision (a remote seat may answer a `NoAnswer` of its own kind);
    returns ``match``. An exception from ``decide`` is a fault of kind `ERROR`;
    cancellation (asyncio.CancelledError) ends the match where it is."""
    p = Playout(match, **kw)
    at = p.start()
    while at is not None:
        st, seat = at
        try:
            answer = await decide(st, seat)
        except Exception as e:
            answer = NoAnswer(ERROR, e)
        at = p.send(answer)
    return match


def resample_points(v, trick: int = 4, seed: int = 1, states: int = 5) -> list:
    """The (State, seat to act) pairs `bench_resample` resamples: ``states`` deals of
    variant ``v`` (Match seeds ``seed``, ``seed + 1``, ...) played at random (seeded) to
    the start of trick ``trick``; deals that end before it are skipped."""
    rng = random.Random(seed)
    points = []
    k = 0
    while len(points) < states:
        st = Match(v, seed + k).new_deal()
        k += 1
        while not st.is_terminal and st.tricks_done < trick - 1:
            st.apply(rng.choice(st.legal_actions()))
        if not st.is_terminal and st.phase == "play":
            points.append((st, st.to_act))
    return points


def bench_resample(variant, n: int = 1000, trick: int = 4, seed: int = 1, states: int = 5) -> dict:
    """resample() per second at the start of trick ``trick`` of ``states`` random deals
    (seeded): ``warm`` resamples each state ``n // states`` times for the seat to act (a
    search bot's use: the model is cached), ``cold`` builds the model anew for each call
    (``n // 10`` calls in all). ``variant``: a Variant or a name. Returns {"variant",
    "warm", "cold", "unseen"} (rates per second; unseen cards, mean over the states)."""
    v = load_variant(variant) if isinstance(variant, str) else variant
    points = resample_points(v, trick, seed, states)
    r = random.Random(seed)
    per = max(1, n // states)
    warm = cold = 0.0
    for st, seat in points:
        information.resample(st, seat, r)
        t0 = time.perf_counter()
        for _ in range(per):
            information.resample(st, seat, r)
        warm += time.perf_counter() - t0
    m = max(1, n // 10 // states)
    for st, seat in points:
        t0 = time.perf_counter()
        for _ in range(m):
            information.clear_cache()
            information.resample(st, seat, r)
        cold += time.perf_counter() - t0
    unseen = sum(len(information.resampler(st, seat).unseen) for st, seat in points) / len(points)
    return {"variant": v.name, "warm": round(per * len(points) / warm),
            "cold": round(m * len(points) / cold), "unseen": round(unseen, 1)}
