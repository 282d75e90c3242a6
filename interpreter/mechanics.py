"""The one list of the game mechanics (interpreter/mechanic.py says what each declares).

The variant's build and fields, the action table, the State, the observation, resampling
and rebuilding a deal, the variant file's schema and the rulebook read this list and no
mechanic by name; its order is theirs: the order in which the sections are
loaded and their rules compiled, in which a deal's fields start and its mechanics finish,
of the parts of an observation, and of the rulebook's sections. Adding a mechanic: write
its module and name it here (docs/architecture.md, "Adding a mechanic").
"""

from __future__ import annotations

from . import auction, bids, declarations, partner, play, scoring, trump, variables, widow

MECHANICS = (
    auction.MECHANIC,
    bids.MECHANIC,
    trump.MECHANIC,
    partner.MECHANIC,
    widow.MECHANIC,
    play.MECHANIC,
    declarations.MECHANIC,
    scoring.MECHANIC,
    variables.MECHANIC,
)
# action kind -> what an Action's ``arg`` holds (`Mechanic.action_kinds`), every mechanic's
ACTION_KINDS = {kind: arg for m in MECHANICS for kind, arg in m.action_kinds.items()}
