"""Calling a partner by a card (docs/rules.md §304.5).
"""

from __future__ import annotations

from .phase import Phase


class CallPartner(Phase):
    """The declarer calls a card he does not hold; its holder is his secret partner
    (docs/rules.md §304.5)."""

    name = "call"

    def enter(self, s):
        s.to_act = s.declarer

    def legal(self, s):
        v = s.v
        own = set(s.hands[s.to_act])
        return [v.call_ids[c] for c in range(v.deck.size) if c not in own]

    def apply(self, s, seat, a):
        card = a.code
        s.called_card = card
        for t, cards in enumerate(s.dealt):
            if t != seat and card in cards:
                s.partner = t
                s.side[t] = s.side[seat]
                break
        s._next_step()

