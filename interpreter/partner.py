"""Partnerships, and calling a partner by a card (docs/rules.md §0.6, §304.5): the
``partnership:`` checked against the players and the flow (`load_partnership`, `load`),
the phase (`CallPartner`) and the rulebook's words.
"""

from __future__ import annotations

from .phase import Phase


def load_partnership(c) -> dict:
    """Check ``partnership:`` against the players (``c``: a loader.Checks with
    ``players``); record a problem in ``c`` and return the Variant's partnership field."""
    partnership = c.data.get("partnership", "fixed")
    if partnership == "fixed" and c.players % 2:
        c.problem(("players",), f"fixed partnerships need an even number of players, not {c.players}")
    return dict(partnership=partnership)


def load(c) -> dict:
    """Check a called partner against the flow (``c``: a loader.Checks with ``steps``):
    `partnership: called` and a 'call_partner' step go together."""
    flow, steps, partnership = c.data["flow"], c.steps, c.data.get("partnership", "fixed")
    if "call_partner" in steps and partnership != "called":
        c.problem(("flow", flow.index("call_partner")), "a 'call_partner' step needs `partnership: called`")
    if partnership == "called" and "call_partner" not in steps:
        c.problem(("partnership",), "`partnership: called` needs a 'call_partner' step in the flow")
    return {}


class CallPartner(Phase):
    """The declarer calls a card he does not hold; its holder is his secret partner
    (docs/rules.md §304.5)."""

    name = "call"

    def enter(self, s):
        s.to_act = s.declarer

    def legal(self, s):
        v = s.v
        own = set(s.hands[s.to_act])
        return [v.call_ids[c] for c in v.deck.ids if c not in own]

    def apply(self, s, seat, a):
        card = a.code
        s.called_card = card
        for t, cards in enumerate(s.dealt):
            if t != seat and card in cards:
                s.partner = t
                s.side[t] = s.side[seat]
                break
        s._next_step()


# partnership -> its words in the rulebook's Players section
PARTNERSHIP_WORDS = {"fixed": "two fixed sides: seat s plays on side s mod 2",
                     "called": "no fixed partnerships: the declarer calls a partner by a card",
                     "solo": "the declarer plays alone against the others, who form a side"}
# flow step -> its words in the rulebook's Deal section
STEP_WORDS = {"call_partner": lambda v, step: "the declarer calls a partner by naming a card"}


# flow step -> its phase (one handler serves every deal)
PHASES = {"call_partner": CallPartner()}
