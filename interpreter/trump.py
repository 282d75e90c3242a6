"""Choosing trump (docs/rules.md §0.4): a suit named openly or secretly, or a card laid
face down (§28.5, §29b.5).
"""

from __future__ import annotations

from .phase import Phase


class Trump(Phase):
    """The declarer (or the seat of ``trump.chooser``, with open trump) chooses trump
    (docs/rules.md §0.4): names a suit (open trump), names one
    secretly (``secret``: nobody else knows it until it is exposed, and no card is laid
    aside; §29b.5), or lays a card of his hand face down (hidden trump; §28.5), or takes
    the dealt card that the variant names (``trump.dealt_card``) before it is dealt to him."""

    name = "trump"

    def enter(self, s):
        s.to_act = s.v.rules["trump.chooser"](s, -1, None, None) % s.v.players

    def legal(self, s):
        v = s.v
        if v.trump_mode == "hidden":
            me = s.to_act
            out = [v.trump_card_ids[c] for c in sorted(set(s.hands[me]))]
            if v.dealt_card and s._dealt < v.dealt_card:
                out.append(v.dealt_card_text.id)
            return out
        return list(v.trump_ids)

    def apply(self, s, seat, a):
        if a.kind == "trump":
            s.trump, s.trump_exposed = a.code, s.v.trump_mode != "secret"
        else:
            card = a.code
            if card is None:  # the dealt card of trump.dealt_card, taken before it is dealt
                idx = s.v.dealt_card - 1
                card = s.dealt[seat][idx]
                s._skip = (seat, idx)
            else:
                s.hands[seat].remove(card)
            s.trump_card, s.trump = card, s.v.deck.suit_of[card]
        s._next_step()

