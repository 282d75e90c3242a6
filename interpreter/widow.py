"""The widow: the declarer's exchange with it (docs/rules.md §0.5, §304s), or a widow set
aside. The flow's widow checked (`load`), the phase (`Exchange`) and its rulebook words.
"""

from __future__ import annotations

from bisect import insort

from .phase import Phase


def load(c) -> dict:
    """Check the widow against the flow (``c``: a loader.Checks with ``steps``,
    ``widow``: the cards dealt to it, and ``set_aside``: a `widow:` step sets it aside);
    record each problem in ``c`` and return the Variant's widow fields."""
    flow, steps = c.data["flow"], c.steps
    if "exchange" in steps and not c.widow:
        c.problem(("flow", flow.index("exchange")), "an 'exchange' step needs a widow (a `widow: N` step)")
    if "exchange" in steps and c.set_aside:
        c.problem(("flow", flow.index("exchange")), "a widow with `set_aside: true` is not exchanged: "
                                                    "remove the 'exchange' step or set_aside")
    if c.widow and "exchange" not in steps and not c.set_aside:
        c.problem(("flow",), "a widow needs an 'exchange' step, where the declarer takes it (else its "
                             "points would count for nobody), or `set_aside: true` (its points then "
                             "count for the declarer)")
    return dict(widow_size=c.widow, widow_set_aside=c.set_aside)


class Exchange(Phase):
    """The declarer's exchange with the widow (docs/rules.md §0.5, §304s): take cards, put
    as many back, then ``done``; what is left of the widow and the discards are set
    aside and count for the declarer."""

    name = "exchange"

    def enter(self, s):
        s.widow_left = list(s.widow)
        s.to_act = s.declarer

    def legal(self, s):
        v = s.v
        out = []
        if not s.discarded:
            out.extend(v.take_ids[c] for c in sorted(set(s.widow_left)))
        if len(s.discarded) < len(s.taken):
            out.extend(v.discard_ids[c] for c in sorted(set(s.hands[s.to_act])))
        if len(s.discarded) == len(s.taken):
            out.append(v.done_action.id)
        return out

    def apply(self, s, seat, a):
        kind = a.kind
        if kind == "take":
            s.widow_left.remove(a.code)
            insort(s.hands[seat], a.code)
            s.taken.append(a.code)
        elif kind == "discard":
            s.hands[seat].remove(a.code)
            s.discarded.append(a.code)
        else:  # done
            s.set_aside = sorted(s.discarded + s.widow_left)
            s._next_step()


# flow step -> its words in the rulebook's Deal section (``widow`` a `widow: N` step)
STEP_WORDS = {"widow": lambda v, step: f"deal {step['widow']} cards face down to the widow"
                                       + (", which is set aside unseen: its points count for the declarer"
                                          if step.get("set_aside") else ""),
              "exchange": lambda v, step: "the declarer exchanges with the widow"}


# flow step -> its phase (one handler serves every deal)
PHASES = {"exchange": Exchange()}
