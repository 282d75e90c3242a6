"""Partnerships, and calling a partner by a card (docs/rules.md §0.6, §304.5): the
``partnership:`` checked against the players and the flow (`load_partnership`, `load`),
the phase (`CallPartner`) and the rulebook's words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .mechanic import Mechanic
from .phase import Phase


def load(c) -> dict:
    """Check ``partnership:`` against the players and a called partner against the flow
    (``c``: a loader.Checks with ``players`` and ``steps``): `partnership: called` and a
    'call_partner' step go together. Records each problem in ``c`` and returns the
    Variant's partnership field."""
    flow, steps, partnership = c.data["flow"], c.steps, c.data.get("partnership", "fixed")
    if partnership == "fixed" and c.players % 2:
        c.problem(("players",), f"fixed partnerships need an even number of players, not {c.players}")
    if "call_partner" in steps and partnership != "called":
        c.problem(("flow", flow.index("call_partner")), "a 'call_partner' step needs `partnership: called`")
    if partnership == "called" and "call_partner" not in steps:
        c.problem(("partnership",), "`partnership: called` needs a 'call_partner' step in the flow")
    return dict(partnership=partnership)


# partnerships whose sides are the variant's own from the deal's start to its end (the
# State's ``side`` starts as ``Variant.side_of``): fixed sides (seat s on side s mod 2),
# and each player for himself (seat s is side s, docs/authoring.md "Each player for himself")
FIXED_SIDES = ("fixed", "individual")


# what a compiled rule reads when it reads the sides: State fields and runtime helpers
SIDE_READS = frozenset({"side", "side_points", "side_tricks", "known_side_tricks", "trick_sides",
                        "partner", "partner_revealed", "_partner_of", "_partners", "_opponents"})
# rules asked before the contract is made, when a called or solo partnership has no sides yet
BEFORE_CONTRACT = ("auction.", "contract.")


def inherited_rule_warnings(rules: dict, before: tuple, after: tuple) -> list[tuple[str, str]]:
    """The inherited rules whose meaning a change of partnership or of the number of
    players changes: ``rules`` hook -> (the names its compiled code reads, where it is
    written, "FILE:LINE") for each rule a file inherits; ``before``/``after`` the
    (partnership, players) of the parent and of the file. A rule reading the sides
    (`SIDE_READS`) is named when each player now plays for himself (or no longer does); a
    rule asked before the contract is made when the partnership changes otherwise (a called
    or solo auction has every seat on one side); and, in a called or solo partnership whose
    players change in number, a rule counting a side's points or tricks (the declarer's
    opponents are more or fewer). Fixed sides mean the same with any even number of
    players. Returns [(hook, message)]."""
    if before == after:
        return []
    (was, n0), (now, n1) = before, after
    change = (f"this file changes the partnership from {was} to {now}" if was != now else
              f"this file changes the players from {n0} to {n1}")
    out = []
    for hook, (reads, where) in rules.items():
        if not reads & SIDE_READS:
            continue
        if "individual" in (was, now) and was != now:
            why = ("each player is now his own side" if now == "individual" else
                   "each player was his own side there")
        elif was != now and hook.startswith(BEFORE_CONTRACT):
            why = ("it is asked before the contract is made, when "
                   + ("every seat is on one side" if now in ("called", "solo") else "the sides are fixed"))
        elif was == now and now in ("called", "solo") and reads & {"side_points", "side_tricks"}:
            why = f"the declarer's opponents are now {n1 - 1 if now == 'solo' else 'more or fewer'} players"
        else:
            continue
        out.append((hook, f"{hook} (inherited from {where}) reads the sides, and {change}: {why}, "
                          "so the rule may no longer mean what it did; write it in this file to keep "
                          "or change it"))
    return out


def inherited_warnings(rules: dict, parent: dict, v) -> list[tuple[str, str, tuple]]:
    """`inherited_rule_warnings` of a variant ``v`` whose file extends one with the merged
    data ``parent``: [(hook, message, the path of the key the file changed)]."""
    before = (parent.get("partnership", "fixed"), parent.get("players"))
    key = ("partnership",) if before[0] != v.partnership else ("players",)
    return [(hook, message, key)
            for hook, message in inherited_rule_warnings(rules, before, (v.partnership, v.players))]


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
                     # CallPartner.apply: the holder joins the declarer's side at the call;
                     # Play.card_played and declarations.declare reveal him; a trick counts
                     # for the side its winner is on when it is won (Play.end_trick)
                     "called": "no fixed partnerships: the declarer calls a partner by naming a card he "
                               "does not hold, and its holder is his partner for the deal (with no "
                               "other holder he plays alone). Only the partner knows it until he plays "
                               "the called card (or makes a declaration). A trick counts for the side "
                               "its winner is on when it is won: the partner's for the declarer's "
                               "side, those won before he is known too",
                     "solo": "the declarer plays alone against the others, who form a side",
                     "individual": "no partnerships: each player plays for himself, a side of his "
                                   "own (so the declarer's side is the declarer alone, and the "
                                   "player's side the player), and the tricks, points and scores "
                                   "are each player's own"}
# flow step -> its words in the rulebook's Deal section
STEP_WORDS = {"call_partner": lambda v, step: "the declarer calls a partner by naming a card"}


# flow step -> its phase (one handler serves every deal)
PHASES = {"call_partner": CallPartner()}


def start(s, carried) -> None:
    """The sides as a deal starts: seat -> side, with one more entry, -1, so that
    side[none] is none (fixed partnerships and each player for himself: the variant's
    sides all along; called and solo: every seat on side 1 until the contract is made);
    no partner called."""
    v = s.v
    s.side = list(v.side_of) + [-1] if v.partnership in FIXED_SIDES else [1] * v.players + [-1]
    s.partner = -1
    s.partner_revealed = False
    s.called_card = -1


def view(s, seat, tricks) -> dict:
    """The partner's part of ``seat``'s observation: the called card (public), and the
    partner once revealed, or to the partner himself."""
    return {
        "called_card": s.v.deck.text[s.called_card] if s.called_card >= 0 else None,
        "partner": s.partner if s.partner >= 0 and (s.partner_revealed or seat == s.partner) else None,
    }


def alternatives(s, seat) -> list[dict]:
    """The other seats the called partner may be for ``seat`` while he is not revealed to
    it (§304.5): each seat but the declarer, the partner and ``seat`` itself, with the
    sides that would then be."""
    v = s.v
    if not (v.partnership == "called" and s.partner >= 0 and not s.partner_revealed
            and seat != s.partner and s.declarer >= 0):
        return []
    d, p = s.declarer, s.partner
    other = next((s.side[t] for t in range(v.players) if t not in (d, p)), None)
    out = []
    for q in range(v.players):
        if q not in (d, p, seat) and other is not None:
            side = list(s.side)
            side[p], side[q] = other, s.side[d]
            out.append({"side": side, "partner": q})
    return out


@dataclass(frozen=True, eq=False, kw_only=True)
class PartnerFields:
    """The partnerships' fields of a Variant (`Mechanic.variant`): what `load` reads, the
    sides (`sides_table`) and the calls of a partner's card (`call_table`)."""
    partnership: str = "fixed"
    side_of: list = field(repr=False, default=None)   # seat -> its side (§0.6; each his own)
    sides: int = 0                                    # the number of sides
    call_text: list = field(repr=False, default=None)  # card id -> `call C`
    call_ids: list = field(repr=False, default=None)


def sides_table(v, act) -> dict:
    """Each seat's side (`Mechanic.tables`, slot 0; no action): fixed partnerships (§0.6)
    seat s on side s mod 2, each player for himself seat s on side s."""
    if v.partnership == "individual":
        return dict(side_of=list(range(v.players)), sides=v.players)
    return dict(side_of=[s % 2 for s in range(v.players)], sides=2)


def call_table(v, act) -> dict:
    """`call C` of each card id, the call of a partner by a card (slot 7)."""
    text = v.deck.text
    calls = [act(f"call {text[c]}", "call-partner", text[c], c) for c in range(v.deck.size)]
    return dict(call_text=calls, call_ids=[a.id for a in calls])


def exclude(r) -> None:
    """The holder of a called card, once known to the seat (§304.7): in a deck of one
    copy of each card, no other seat's position holds it (`Mechanic.exclude`)."""
    obs = r.target
    called, partner = obs.get("called_card"), obs.get("partner")
    if r.v.deck.max_copies == 1 and called is not None and partner is not None:
        c = r.v.deck.parse(called)
        lo, hi = r.offset[partner], r.offset[partner + 1]
        for q in r.unseen:
            if not lo <= q < hi:
                r.excluded[q].add(c)


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'partnership': {'enum': ['fixed', 'called', 'solo', 'individual'],
                                'description': 'fixed: seat s on side s mod 2; called: the '
                                               'declarer calls a partner by a card; solo: the '
                                               'declarer alone against the rest; individual: each '
                                               'player plays for himself (every seat its own '
                                               'side)'}},
 'steps': ['call_partner']}


def known_deal(b) -> None:
    """A called card's holder, once the partner is known to the seat (§304.7): he holds
    it, or played it (`Mechanic.known_deal`; ``b``: an information.DealKnown)."""
    partner, called = b.obs.get("partner"), b.obs.get("called_card")
    if partner is not None and called and partner != b.seat:
        b.held.append((partner, b.v.deck.parse(called)))


MECHANIC = Mechanic(
    "partner", schema=SCHEMA, load=load,
    compiler=lambda c, fields: dict(partnership=fields["partnership"]),
    variant=PartnerFields, tables=((0, sides_table), (7, call_table)),
    card_actions={"call-partner": "call_text"}, exclude=exclude, known_deal=known_deal,
    action_kinds={"call-partner": "the card text called (docs/rules.md §304.5)"},
    fields={"side": "list", "partner": "=", "partner_revealed": "=", "called_card": "="},
    start=start, phases=PHASES, view=view, hidden_facts=("side", "partner"),
    alternatives=alternatives,
    inherited_warnings=inherited_warnings, step_words=STEP_WORDS, players_words=lambda v: PARTNERSHIP_WORDS[v.partnership])
