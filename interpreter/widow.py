"""The widow: the declarer's exchange with it (docs/rules.md §0.5, §304s), or a widow set
aside, and whom the points of its cards set aside count for (``points_to``: the declarer,
the winner of the last trick, or nobody). The flow's widow checked (`load`), the phase
(`Exchange`) and its rulebook words.
"""

from __future__ import annotations

from bisect import insort
from collections import Counter
from dataclasses import dataclass, field

from .mechanic import Mechanic
from .phase import Phase


def load(c) -> dict:
    """Check the widow against the flow (``c``: a loader.Checks with ``steps`` and
    ``widow``: the cards dealt to it); record each problem in ``c`` and return the
    Variant's widow fields (``widow_set_aside``: a `widow:` step sets it aside)."""
    flow, steps = c.data["flow"], c.steps
    set_aside = any(isinstance(s, dict) and s.get("set_aside") for s in flow)
    if "exchange" in steps and not c.widow:
        c.problem(("flow", flow.index("exchange")), "an 'exchange' step needs a widow (a `widow: N` step)")
    if "exchange" in steps and set_aside:
        c.problem(("flow", flow.index("exchange")), "a widow with `set_aside: true` is not exchanged: "
                                                    "remove the 'exchange' step or set_aside")
    if c.widow and "exchange" not in steps and not set_aside:
        c.problem(("flow",), "a widow needs an 'exchange' step, where the declarer takes it (else its "
                             "points would count for nobody), or `set_aside: true` (its points then "
                             "count as `points_to` says: the declarer by default)")
    points_to = next((s["points_to"] for s in flow if isinstance(s, dict) and "points_to" in s), "declarer")
    if (c.widow and set_aside and points_to == "declarer" and not c.has_auction
            and "contract" not in c.data):
        c.problem(("flow",), "no deal has a contract (no auction and no `contract:`): a widow set "
                             "aside cannot count for the declarer: give its step `points_to: "
                             "last_trick` or `points_to: nobody`")
    return dict(widow_set_aside=set_aside, widow_points_to=points_to)


@dataclass(frozen=True, eq=False, kw_only=True)
class WidowFields:
    """The widow's fields of a Variant (`Mechanic.variant`): what `load` reads, and the
    exchange's actions (`tables`)."""
    widow_set_aside: bool = False    # the widow is only set aside: no exchange (a kitty)
    widow_points_to: str = "declarer"  # whom its cards set aside count for (`points_to`)
    done_action: object = field(repr=False, default=None)   # `done`, the exchange's end
    take_text: list = field(repr=False, default=None)       # card id -> `take C`
    discard_text: list = field(repr=False, default=None)    # card id -> `discard C`
    take_ids: list = field(repr=False, default=None)        # their ids
    discard_ids: list = field(repr=False, default=None)


def done_table(v, act) -> dict:
    """The exchange's `done` (`Mechanic.tables`, slot 3)."""
    return dict(done_action=act("done", "done"))


def take_table(v, act) -> dict:
    """The exchange's `take C` of each card id (slot 8)."""
    text = v.deck.text
    take = [act(f"take {text[c]}", "take", text[c], c) for c in range(v.deck.size)]
    return dict(take_text=take, take_ids=[a.id for a in take])


def discard_table(v, act) -> dict:
    """The exchange's `discard C` of each card id (slot 9)."""
    text = v.deck.text
    discard = [act(f"discard {text[c]}", "discard", text[c], c) for c in range(v.deck.size)]
    return dict(discard_text=discard, discard_ids=[a.id for a in discard])


# the words of ``points_to``: whom the widow's cards set aside count for
POINTS_TO_WORDS = {"declarer": "the declarer", "last_trick": "the winner of the last trick",
                   "nobody": "nobody"}


def points_to(s) -> int:
    """The seat the points of the widow's cards set aside count for in the finished deal
    ``s`` (``Variant.widow_points_to``): the declarer, the winner of the last trick, or
    -1 (nobody; also a deal without a declarer, or without tricks, for those)."""
    to = s.v.widow_points_to
    if to == "declarer":
        return s.declarer
    if to == "last_trick" and s.tricks:
        return s.tricks[-1][2]
    return -1


class Exchange(Phase):
    """The declarer's exchange with the widow (docs/rules.md §0.5, §304s): take cards, put
    as many back, then ``done``; what is left of the widow and the discards are set
    aside and count as ``points_to`` says (the declarer by default)."""

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
                                       + (", which is set aside unseen: its points count for "
                                          + POINTS_TO_WORDS[v.widow_points_to] if step.get("set_aside") else ""),
              "exchange": lambda v, step: "the declarer exchanges with the widow"
                                          + ("" if v.widow_points_to == "declarer" else
                                             "; the points of the cards he sets aside count for "
                                             + POINTS_TO_WORDS[v.widow_points_to])}


# flow step -> its phase (one handler serves every deal)
PHASES = {"exchange": Exchange()}


def start(s, carried) -> None:
    """The widow's fields as a deal starts: nothing taken, discarded or set aside."""
    s.widow_left = []
    s.taken = []
    s.discarded = []
    s.set_aside = []


def finish(s) -> None:
    """The deal is over: the cards set aside (the widow only set aside, a kitty seen by
    nobody; or what the exchange left and discarded, §0.5, §304s.4) count for the seat
    `points_to` names, before the deal is scored."""
    v = s.v
    aside = s.widow if v.widow_set_aside else s.set_aside
    if aside:
        to = points_to(s)
        if to >= 0:
            pts = sum(v.deck.point_of[c] for c in aside)
            s.seat_points[to] += pts
            s.side_points[s.side[to]] += pts


def view(s, seat, tricks) -> dict:
    """The widow's part of ``seat``'s observation: to the declarer alone, the widow during
    the exchange and the cards he set aside."""
    text = s.v.deck.text
    is_decl = seat == s.declarer
    return {
        "widow": [text[c] for c in s.widow_left] if is_decl and s.handler.name == "exchange" else None,
        "set_aside": [text[c] for c in s.set_aside] if is_decl and s.set_aside else None,
    }


def known_deal(b) -> None:
    """What the seat of an observation knows of the deal from its own exchange
    (`Mechanic.known_deal`; ``b``: an information.DealKnown): the cards it was dealt
    beyond its hand and plays (those it discarded: ``b.more``), the cards of its hand it
    was not dealt (those it took: ``b.less``), and, as the declarer, the widow's cards it
    saw, in the widow's order (those it took, those left, those set aside that it did
    not discard: ``b.widow``)."""
    v, obs, seat = b.v, b.obs, b.seat
    amap, parse = v.action_map, v.deck.parse
    own = [amap.get(text) for t, text in b.history if t == seat]
    taken = [a.code for a in own if a is not None and a.kind == "take"]
    discarded = [a.code for a in own if a is not None and a.kind == "discard"]
    b.more += discarded
    b.less += taken
    if obs.get("declarer") == seat:
        b.widow += taken + [parse(c) for c in (obs.get("widow") or [])]
        if obs.get("set_aside"):
            b.widow += list((Counter(parse(c) for c in obs["set_aside"]) - Counter(discarded)).elements())


def follow(r, k, t, a, hidden) -> None:
    """The exchange in resampling's model (`Mechanic.follow`): a card taken goes from
    the widow to the hand, a card discarded leaves the hand; a hidden one is the card
    at its position in each proposal."""
    kind = a.kind
    if kind == "take":
        p = r.pop_card(r.in_widow, a.code)
        r.hand[t].append(p)
    elif kind == "discard":
        p = r.pop_card(r.hand[t], a.code)
    else:
        return
    if hidden:
        r.origin[k] = p


def reveal(r, st) -> None:
    """The widow shown to the seat as the declarer's exchange starts (§304s.4): its
    cards are seen (`Mechanic.reveal`)."""
    left = r.in_widow
    if st.declarer == r.seat and left and not all(r.seen[p] for p in left):
        if st.observation(r.seat).get("widow"):
            for p in left:
                r.seen[p] = True


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'steps': ['exchange'],
 'step_objects': [{'type': 'object',
                   'additionalProperties': False,
                   'required': ['widow'],
                   'properties': {'widow': {'type': ['integer', 'string'],
                                            'minimum': 1,
                                            'description': "the widow's size: a number, or a rule "
                                                           'on the options'},
                                  'set_aside': {'type': 'boolean',
                                                'description': 'the widow is only set aside, seen '
                                                               'by nobody, without an exchange; '
                                                               'its points count as points_to '
                                                               'says'},
                                  'points_to': {'enum': ['declarer', 'last_trick', 'nobody'],
                                                'description': "who the points of the widow's "
                                                               'cards set aside count for (with an '
                                                               'exchange: what is left of it and '
                                                               'the discards): the declarer '
                                                               '(default), the winner of the last '
                                                               'trick, or nobody'}}}]}


MECHANIC = Mechanic(
    "widow", load=load, schema=SCHEMA, variant=WidowFields,
    tables=((3, done_table), (8, take_table), (9, discard_table)),
    card_actions={"take": "take_text", "discard": "discard_text"},
    hidden_actions=lambda v: v.take_text + v.discard_text,
    follow=dict.fromkeys(("take", "discard"), follow), reveal=reveal, from_hand=("discard",),
    action_kinds={"take": "the card text taken from the widow", "discard": "the card text put back",
                  "done": "None (the exchange is over)"},
    fields={"widow_left": "list", "taken": "list", "discarded": "list", "set_aside": "list"},
    start=start, phases=PHASES, finish=finish, view=view, known_deal=known_deal, step_words=STEP_WORDS)
