"""The errors of the engine, one root: catch ``TaashError`` for any of them.

- ``VariantError``: a variant file or option that cannot be loaded (``problems`` lists
  every located problem, ``FILE:LINE:COL``).
- ``ActionError``: an action the engine refuses, in two kinds:
  ``InvalidActionError`` (text that is no action of this variant, such as ``play 1X``)
  and ``IllegalActionError`` (an action of the variant, not legal now).
- ``RecordError``: a record that cannot be read or replayed.
- ``StateError``: an argument a State, a Match or a game loop refuses (a seat or dealer
  that is not one, hands that do not make up the deck, a card that is not of the deck, a
  call on a deal or match that is over, or not over yet).
- ``ResampleError`` (taash.interpreter.information): no consistent deal found, an engine bug.
- ``RebuildError`` (taash.interpreter.information): no deal fits an observation
  (`State.from_observation`).
- ``DSLError`` (taash.interpreter.dsl): a rule that does not compile; ``RegistryError``
  (taash.interpreter.dsl.names): the rules language's registry disagrees with the State,
  a programming error caught as the engine loads.

The arena's errors are under ``ArenaError`` (taash.arena.errors), itself a TaashError, and
the learners' ``PolicyError`` (taash.learn.policy) is one too.

Each is also a ``ValueError``, so code written against the earlier engine still catches it.
"""

from __future__ import annotations


class TaashError(Exception):
    """Root of every error the engine raises on bad input."""


class ActionError(TaashError, ValueError):
    """An action refused by ``State.apply``. ``action`` is what was given, ``legal`` the
    legal actions at that point (text forms, docs/rules.md §0.10 order)."""

    def __init__(self, action, legal, message):
        self.action, self.legal = action, [str(a) for a in legal]
        super().__init__(message)


class InvalidActionError(ActionError):
    """Text that is no action of this variant (docs/architecture.md, "Actions and notation")."""

    def __init__(self, action, legal, message=None):
        if message is None:
            message = f"{str(action)!r} is not an action of this variant"
            if legal:
                message += f"; legal now: {', '.join(map(str, legal))}"
        super().__init__(action, legal, message)


class IllegalActionError(ActionError):
    """An action of this variant that is not legal in the current state."""

    def __init__(self, action, legal, message=None):
        super().__init__(action, legal, message or
                         f"illegal action {str(action)!r}; legal: {', '.join(map(str, legal))}")


class StateError(TaashError, ValueError):
    """An argument the engine refuses for what it is, not for the rules of the game: a
    seat or dealer that is not one, hands that do not make up the deck, a card text that
    is not of the deck, ``default_action`` or ``new_deal`` when the deal or match is
    over, ``finish_deal`` before the deal is over."""
