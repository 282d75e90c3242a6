"""The widow: the declarer's exchange with it (docs/rules.md §0.5, §304s).
"""

from __future__ import annotations

from bisect import insort

from .phase import Phase


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

