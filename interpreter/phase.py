"""A phase of a deal: the handler of one step of a variant's flow (`Phase`), the end of
the deal (`DONE`), and the turn order. Each game mechanic's module holds its phases
(auction.py, widow.py, trump.py, partner.py, declarations.py, play.py); the State
(engine.py) runs them.

A phase works on a State through its fields and its flow methods (``s._next_step()``,
``s._end_deal()``, ``s._set_contract(declarer, target)``), so no mechanic imports the
engine.
"""

from __future__ import annotations

from .errors import RuleError, StateError


class Phase:
    """One phase of a deal (docs/architecture.md, "What is generic"): ``enter(s)`` sets who acts
    first, ``legal(s)`` lists the legal action ids of ``s.to_act`` (docs/rules.md §0.10
    order), ``apply(s, seat, action)`` plays one legal action and moves the deal on (the
    next phase through ``s._next_step()``). Handlers hold no state: one instance serves
    every deal."""

    name = ""

    def enter(self, s) -> None:
        raise NotImplementedError

    def legal(self, s) -> list[int]:
        raise NotImplementedError

    def apply(self, s, seat: int, a) -> None:
        raise NotImplementedError


class Done(Phase):
    """The deal is over: no seat acts."""

    name = "done"

    def enter(self, s):
        s.to_act = -1

    def legal(self, s):
        return []

    def apply(self, s, seat, a):
        raise StateError("the deal is over")


DONE = Done()


def order_from(start: int, n: int) -> list[int]:
    """The seats 0..n-1 in turn, starting from ``start``."""
    return [(start + i) % n for i in range(n)]


def table_seat(s, hook: str) -> int:
    """The seat the rule ``hook`` (of dsl.names.TABLE_SEAT_HOOKS) names for the table in State
    ``s``, asked with ``me`` none. Raises RuleError when it names none: never the last
    seat by a negative index."""
    seat = s.v.rules[hook](s, -1, None, None)
    if seat < 0:
        raise RuleError(hook, f"the rule named no seat (none) in deal {s.deal_number + 1}, dealer "
                              f"{s.dealer}; it must name one (e.g. `... else: eldest`)")
    return seat
