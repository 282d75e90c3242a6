"""The arena's errors: one root, `ArenaError`, under the engine's `TaashError`.
(The search bots' `RebuildError`, no deal fits an observation, is the engine's:
`taash.interpreter.information.RebuildError`, raised by `State.from_observation`.)

Every exception that arena/ raises on purpose is an `ArenaError`; the ones that callers
catch by a standard base keep it too (`UnknownBotError` is a LookupError, the HTTP
translation's errors are ValueErrors). The errors shared by several concerns are here;
the others live beside the code that raises them, under this root:

    ArenaError
      StoreError             a data directory or database that cannot be used (arena/store/)
        NoLadder             no ladder database where one is read
      UnknownBotError        (LookupError) a bot name or factory spec (arena/bots/registry.py)
      UsageError             a command-line argument that cannot be used (exit 2)
      LadderError            a ladder that cannot be played (arena/ladder/runners.py)
      SimulationError        (ValueError) a simulation asked wrongly (arena/simulation.py)
      AuthError              the arena refused a bot's token (arena/sdk.py)
      BridgeError, BridgeTimeout, RequestError, AnswerError, Unsupported (arena/http/)
      Behind, BadRecord, JobError ...
"""

from __future__ import annotations

from taash.interpreter.errors import TaashError


class ArenaError(TaashError):
    """Root of every error that arena/ raises."""


class StoreError(ArenaError):
    """The data directory or database cannot be used (the message says why, in one line)."""


class NoLadder(StoreError):
    """A command that only reads a ladder was pointed at a SQLite file that does not exist
    (nothing is created for it)."""


class UnknownBotError(ArenaError, LookupError):
    """A bot name that is not registered, or a factory spec that cannot be loaded; the
    message (one line) lists the registered names."""


class UsageError(ArenaError):
    """A usage error of the command line: printed as `taash: error: ...`, exit 2; with
    ``located`` the message is located problems (``file:line:col: error: ...``, as
    `taash check` prints them), printed as they are."""

    def __init__(self, message: str, located: bool = False):
        super().__init__(message)
        self.located = located


class SimulationError(ArenaError, ValueError):
    """A simulation that cannot be played as asked (a wrong number of bots)."""


class LadderError(ArenaError):
    """A problem of a ladder or a simulation the user can act on (a bad argument, a
    missing bot, an unreachable arena, a conflicting ladder); the message says what and
    how to fix it."""
