"""Declarations (docs/rules.md §0.8): what a variant declares (`Declaration`), the
flow's `declare` step (`Declare`) and making one (`declare`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .phase import Phase, order_from


@dataclass(eq=False)
class Declaration:
    """A declaration made in play (docs/rules.md §0.8).

    name; action: its text form (``declare NAME``, or a bare word such as ``cot``);
    per_suit: one action per suit (``declare marriage H``), each suit at most once;
    when/effect: compiled rules ``f(s, me, suit, None)``; answers: for a question, the
    answers (``cot yes``) and answered_by, the compiled rule of the answering seat;
    answer_actions: the Actions of the answers (made with the variant's action table).
    at: ``play`` (on one's turn in play) or ``flow`` (at the flow's ``declare`` step,
    each seat in turn, before the first lead).
    """
    name: str
    description: str
    action: str
    per_suit: bool
    when: object
    effect: object
    answers: tuple = ()
    answered_by: object = None
    answer_actions: tuple = ()
    at: str = "play"


def declare(s, seat: int, a) -> None:
    """Record the declaration of action ``a`` by ``seat`` (each, with its suit, once a
    deal) and run its effect; a declaration by the called partner reveals him (§304.7)."""
    decl, suit = a.code
    s.declared[decl.name] = s.declared.get(decl.name, 0) + 1
    s.declared_keys.add(a.id)
    if seat == s.partner:
        s.partner_revealed = True
    decl.effect(s, seat, suit, None)


class Declare(Phase):
    """The flow's ``declare`` step (docs/authoring.md, "Flow"): each seat in turn from the
    seat of the step's rule, once, makes one of the declarations with ``at: flow`` whose
    ``when`` holds, or passes (``pass`` first, docs/rules.md §0.10). Each declaration once a
    deal. A seat that sits out by then is skipped; ``sits_out`` takes effect at the end
    of the step."""

    name = "declare"

    def enter(self, s):
        v = s.v
        n = v.players
        s.declare_queue = tuple(order_from(v.declare_from(s, -1, None, None) % n, n))
        self.next(s)

    def next(self, s):
        q = s.declare_queue
        while q and s.out[q[0]]:
            q = q[1:]
        s.declare_queue = q[1:]
        if q:
            s.to_act = q[0]
        else:
            s._seat_out()
            s._next_step()

    def legal(self, s):
        me = s.to_act
        keys = s.declared_keys
        return [s.v.pass_action.id] + [i for i, when, su in s.v.flow_declaration_checks
                                       if i not in keys and when(s, me, su, None)]

    def apply(self, s, seat, a):
        if a.kind == "declare":
            declare(s, seat, a)
        self.next(s)

