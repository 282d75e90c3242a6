"""Runners play the ladder's games: one interface, two ways (this module: in process).

- `InProcessRunner`: the bots are Python objects in this process (or in ``workers``
  processes), called as ``decide(observation, legal_actions)``. Fast: for tests and for
  large ladders.
- `ArenaRunner` (arena_runner.py): the games are played by a running arena (`taash
  arena serve`) over gRPC, between bots that dial in from their own processes; the
  ladder asks for each game with the arena's RunMatches call (admin token) and reads
  the record the arena wrote.

Both take a `GameSpec` (seed, bot per seat, deals) and return a `GameResult` (scores per
seat, deals played, the record). The built-in bots play the same game either way: the
random bot draws from its seed and the observation, the heuristic bot is deterministic.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from taash.interpreter import Match, load_variant
from taash.interpreter.playout import ERROR, NoAnswer, play, policy

from ..bots import registry
from ..children import die_with_parent
from ..errors import LadderError, StoreError, UnknownBotError
from ..store.arena import check_bot_name
from .ratings import GameResult
from .schedule import GameSpec


# -- in-process bots ------------------------------------------------------------------------
def parse_bot_spec(text: str) -> tuple[str, object]:
    """A registered bot name (`taash.arena.bots.registry`: ``heuristic``, ``random``, ...),
    ``NAME=package.module:factory`` or ``package.module:factory`` -> (name, its
    `BotEntry`). A factory ``f(variant)`` or ``f(variant, seed)`` returns an agent
    (`taash.interpreter.playout`). Raises LadderError."""
    try:
        entry = registry.resolve(text)
        check_bot_name(entry.name)
    except (UnknownBotError, StoreError) as e:
        raise LadderError(str(e)) from None
    return entry.name, entry


def bot_factory(spec):
    """The factory ``f(variant) -> agent`` of a bot: a `BotEntry`, or a spec or name
    (see `parse_bot_spec`). Raises LadderError if its module or attribute cannot be
    imported."""
    entry = spec if isinstance(spec, registry.BotEntry) else parse_bot_spec(spec)[1]
    try:
        entry.load()
    except UnknownBotError as e:
        raise LadderError(str(e)) from None
    return lambda v: entry.make(v, 0)


# The arena's default time control (docs/protocol.md, "Time"), for in-process bots too.
MOVE_MS, BANK_MS = 2000, 20000
TIMEOUT = "TIMEOUT"     # the fault kind of a decision past its time (as the arena's verdict)


class DecisionTimeout(BaseException):
    """Raised inside a bot's ``decide`` when its time is up (a BaseException, so that a
    bot's own ``except Exception`` does not swallow it)."""


class TimedAgent:
    """An in-process bot under the arena's time control (docs/protocol.md, "Time"): each
    decision may take ``move_ms`` plus what is left of the seat's ``bank_ms`` for the
    game; time past ``move_ms`` comes from the bank. A decision past its time is a fault
    of kind `TIMEOUT`: its answer (if any) is dropped, the default action is played and
    the seat's bank is spent. When the game runs on its process's main thread a bot that
    does not return is interrupted at its deadline (SIGALRM); elsewhere its late answer is
    dropped once it returns. A state agent (``decide_state``) for `taash.interpreter.playout`."""

    def __init__(self, agent, move_ms: int = MOVE_MS, bank_ms: int = BANK_MS):
        self.ask = policy(agent, "observation")
        self.move_ms, self.bank_ms = move_ms, bank_ms
        self.bank: dict[int, float] = {}
        self._armed = False

    def _ring(self, signum, frame):
        if self._armed:
            self._armed = False
            raise DecisionTimeout()

    def decide_state(self, state, seat):
        """The agent's answer, or a NoAnswer(`TIMEOUT`) past the deadline."""
        bank = self.bank.setdefault(seat, float(self.bank_ms))
        allowed = self.move_ms + bank
        alarm = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        t0 = time.perf_counter()
        answer = None
        try:
            if alarm:
                old = signal.signal(signal.SIGALRM, self._ring)
                self._armed = True
                signal.setitimer(signal.ITIMER_REAL, max(allowed, 1) / 1000)
            try:
                answer = self.ask(state, seat)
            finally:
                if alarm:
                    self._armed = False
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, old)
        except DecisionTimeout:
            answer = None
        used = (time.perf_counter() - t0) * 1000
        if answer is None or used > allowed:
            self.bank[seat] = 0.0
            return NoAnswer(TIMEOUT, detail=f"no answer within {allowed:.0f} ms")
        self.bank[seat] = max(0.0, bank - max(0.0, used - self.move_ms))
        return answer


def _error_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}".rstrip(": ")


def make_bot(factory, name: str, variant):
    """An agent of bot ``name`` from its ``factory`` (`bot_factory`). Raises LadderError
    naming the bot and what went wrong: the factory's own error when it raised, or that it
    gave no agent."""
    try:
        return factory(variant)
    except Exception as e:
        what = f"bot {name!r} could not be made for {variant.ref}"
        if isinstance(e, UnknownBotError):
            if e.__cause__ is None:     # it raised nothing: it gave no agent (BotEntry.make says so)
                raise LadderError(f"{what}: {e}") from None
            e = e.__cause__             # BotEntry.make names the factory's own error
        raise LadderError(f"{what}: its factory raised {_error_line(e)}") from None


def play_game(variant, factories: dict, spec: GameSpec, options=None, move_ms: int = MOVE_MS,
              bank_ms: int = BANK_MS) -> GameResult:
    """Play one game in this process through `taash.interpreter.playout.play`: ``factories``
    maps each bot name of ``spec.bots`` to a factory ``f(variant) -> agent``; one agent
    per name plays all its seats, as an observation agent (the same game as through the
    arena), under the arena's time control (`TimedAgent`: ``move_ms`` per decision plus
    a ``bank_ms`` bank per seat). A fault (an exception, an invalid or illegal answer, a
    decision past its time) gets ``state.default_action()`` (docs/protocol.md) and
    counts; a bot whose ``decide`` raises is named once per game in a log warning, one
    line. Raises LadderError when a factory fails (the bot's name and the error)."""
    bots = {}
    for name in dict.fromkeys(spec.bots):
        bots[name] = TimedAgent(make_bot(factories[name], name, variant), move_ms, bank_ms)
    m = Match(variant, spec.seed)
    faults = [0]
    told = set()

    def on_fault(f):
        faults[0] += 1
        name = spec.bots[f.seat]
        if f.kind in (ERROR, TIMEOUT) and (name, f.kind) not in told:
            told.add((name, f.kind))
            why = (f"its decide raised {_error_line(f.error)}" if f.kind == ERROR
                   else "it did not answer in time")
            logging.getLogger("taash.ladder").warning(
                "game %s: bot %s (seat %d): %s; the default action %s was played (counted as a fault)",
                spec.key, name, f.seat, why, f.default)

    play(m, [bots[b] for b in spec.bots], prefer="observation", max_deals=spec.deals, on_fault=on_fault)
    return GameResult(spec.key, tuple(spec.bots), m.seat_scores(), len(m.deals),
                      m.record(getattr(variant, "options", None)), faults=faults[0])


_WORKER: dict = {}


def _worker_init(variant_name, options, specs, limits=(MOVE_MS, BANK_MS)):
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C
    die_with_parent()   # a killed ladder leaves no idle workers behind
    _WORKER["v"] = load_variant(variant_name, options or None)
    _WORKER["f"] = {name: bot_factory(spec) for name, spec in specs.items()}
    _WORKER["o"] = options
    _WORKER["t"] = limits


def _worker_play(spec: GameSpec) -> GameResult:
    return play_game(_WORKER["v"], _WORKER["f"], spec, _WORKER["o"], *_WORKER["t"])


class InProcessRunner:
    """Games in this process (``workers`` 1) or in a pool of worker processes.
    ``bots`` maps a bot name to its spec: a registered name, ``package.module:factory``
    or a `BotEntry` (`parse_bot_spec`). ``move_ms``, ``bank_ms``: each decision's time
    and each seat's bank per game (`TimedAgent`; the arena's defaults)."""

    name = "in-process"

    def __init__(self, variant_name: str, bots: dict[str, str], options: dict | None = None,
                 move_ms: int = MOVE_MS, bank_ms: int = BANK_MS):
        self.variant_name, self.options = variant_name, dict(options or {})
        self.limits = (move_ms, bank_ms)
        self.specs = dict(bots)
        self.variant = load_variant(variant_name, self.options or None)
        self.factories = {name: bot_factory(spec) for name, spec in self.specs.items()}
        # each bot made once here, so that one that cannot be made stops the ladder before
        # its store holds anything (settings, round plans)
        for name in self.specs:
            make_bot(self.factories[name], name, self.variant)

    def bots(self) -> list[str]:
        """The bots this runner can seat."""
        return sorted(self.specs)

    def check(self, names) -> None:
        """Raise LadderError unless every bot in ``names`` can be seated."""
        missing = sorted(set(names) - set(self.specs))
        if missing:
            raise LadderError(f"bot {', '.join(missing)} is not among the in-process bots "
                              f"({', '.join(self.bots())}): add it to --bots")

    def results(self, specs: list[GameSpec], workers: int = 1):
        """Play ``specs``; yield a GameResult as each game ends (in any order)."""
        if workers <= 1 or len(specs) <= 1:
            for spec in specs:
                yield play_game(self.variant, self.factories, spec, self.options, *self.limits)
            return
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init,
                                   initargs=(self.variant_name, self.options, self.specs, self.limits))
        yield from drain(pool, _worker_play, specs, workers)


def drain(pool, fn, specs, workers):
    """Run ``fn`` over ``specs`` in ``pool`` with at most ``2 * workers`` queued; yield the
    results as they come; on an early exit (an error, Ctrl-C) cancel what is queued."""
    it = iter(specs)
    running = set()
    try:
        for spec in it:
            running.add(pool.submit(fn, spec))
            if len(running) >= 2 * workers:
                break
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                nxt = next(it, None)
                if nxt is not None:
                    running.add(pool.submit(fn, nxt))
                yield fut.result()
    finally:
        for fut in running:
            fut.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
