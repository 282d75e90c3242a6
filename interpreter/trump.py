"""Choosing trump (docs/rules.md §0.4): a suit named openly or secretly, or a card laid
face down (§28.5, §29b.5), the contract's denomination, a suit a rule sets as each deal
starts (``mode: rule``, ``trump.suit``: `begin`), or no trump at the start of a deal
(``mode: none``, or no ``trump:`` section), or a suit the file fixes for every deal
(``mode: fixed`` with ``suit``), whose trump an effect of the rules may set
during play (``trump = ...``: `State.public_trump`). The ``trump:`` section checked
(`load`), its rules (`HOOKS`), the phase (`Trump`) and its rulebook words (`words`).

``trump.suit`` is the trump suit in both modes that name one: a suit letter with
``mode: fixed`` (`load` reads it), a rule giving a suit with ``mode: rule`` (the hook
``trump.suit``, compiled only then: `skipped_hooks`), as a packet's size in the flow is
a number or a rule; the mode says which, and changing the mode moves no key
(docs/authoring.md, "fixed").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dsl import SEAT, SUIT
from .mechanic import Mechanic
from .phase import Phase, table_seat
from .wording import SUIT_NAMES, rule_words

# hook -> (path in the file, expected kind, default rule text)
HOOKS = {"trump.chooser": (("trump", "chooser"), SEAT, "declarer"),
         "trump.suit": (("trump", "suit"), SUIT, "")}
# what the compiled code of a rule that sets trump holds (`trump = ...`: State.public_trump)
SETS_TRUMP = "s.public_trump ="
# the modes whose trump every seat knows once chosen: an effect may set trump only in these
PUBLIC_MODES = ("open", "bid", "none", "rule")


def check_set_in_play(c, sources: dict, paths: dict) -> None:
    """A rule that sets trump (``trump = ...``) needs a trump every seat knows
    (`PUBLIC_MODES`): with a card laid face down or a suit named secretly, a trump set
    openly would show what is hidden. ``sources``: hook -> compiled source; ``paths``:
    hook -> its path in the file. Records a problem in ``c`` (loader.Checks) per rule."""
    if c.trump_mode in PUBLIC_MODES:
        return
    for hook, src in sources.items():
        if SETS_TRUMP in src:
            c.problem(paths.get(hook, ("trump", "mode")),
                      f"this rule sets trump, which needs trump.mode open, bid or none (with "
                      f"'{c.trump_mode}' trump is hidden from the others)", value=True)


def load(c) -> dict:
    """Check the ``trump:`` section against the flow and the auction (``c``: a
    loader.Checks with ``steps``, ``trump_mode``, ``per_seat`` and ``denominations``
    set); record each problem in ``c`` and return the Variant's trump fields."""
    data, flow, steps, mode = c.data, c.data["flow"], c.steps, c.trump_mode
    section = data.get("trump") or {}
    if mode == "none" and "trump" in steps:
        c.problem(("flow", flow.index("trump")), "there is no trump to choose ("
                  + ("trump.mode 'none'" if section else "no `trump:` section")
                  + "): remove the 'trump' step, or give trump.mode open, hidden or secret")
    if mode == "rule" and "trump" in steps:
        c.problem(("flow", flow.index("trump")), "trump.mode 'rule' sets trump by trump.suit as "
                                                 "the deal starts: remove the 'trump' step")
    if mode == "rule" and "suit" not in section:
        c.problem(("trump", "mode"), "trump.mode 'rule' needs trump.suit: the rule of the trump "
                                     "suit, asked as each deal starts (e.g. `suit: '\"S\"'`)", value=True)
    if "suit" in section and mode not in ("rule", "fixed"):
        c.problem(("trump", "suit"), "trump.suit needs trump.mode 'fixed' (the trump of every deal) or "
                                     "'rule' (trump set by a rule as each deal starts)", value=True)
    if "chooser" in section and mode != "open":
        c.problem(("trump", "chooser"), "trump.chooser needs trump.mode 'open' (a trump hidden or "
                                        "secret is known to the declarer only)")
    if (not c.has_auction and "contract" not in data and "trump" in steps and mode != "none"
            and not (mode == "open" and "chooser" in section)):
        c.problem(("flow", flow.index("trump")), "no deal has a contract (no auction and no "
                  "`contract:`), so no declarer chooses trump: give trump.mode open with "
                  "trump.chooser, or give the `contract:`")
    if mode == "bid" and "trump" in steps:
        c.problem(("flow", flow.index("trump")), "trump.mode 'bid' takes trump from the contract: remove the "
                                                 "'trump' step")
    if mode == "bid" and not c.denominations:
        c.problem(("trump", "mode"), "trump.mode 'bid' needs auction.denominations", value=True)
    fixed = -1
    if mode == "fixed":
        if "trump" in steps:
            c.problem(("flow", flow.index("trump")), "trump.mode 'fixed' names trump in the file: "
                                                     "remove the 'trump' step")
        if "suit" not in section:
            c.problem(("trump", "mode"), "trump.mode 'fixed' needs trump.suit (the trump of every deal)",
                      value=True)
        elif section["suit"] not in c.deck.suits:
            c.problem(("trump", "suit"), f"{section['suit']} is not a suit of the deck", value=True)
        else:
            fixed = c.deck.suits.index(section["suit"])
    dealt_card = section.get("dealt_card", 0)
    if dealt_card and (mode != "hidden" or dealt_card > c.per_seat):
        c.problem(("trump", "dealt_card"), "trump.dealt_card needs trump.mode 'hidden' and a card "
                                           f"number 1..{c.per_seat}", value=True)
    return dict(trump_mode=mode, dealt_card=dealt_card, fixed_trump=fixed)


class Trump(Phase):
    """The declarer (or the seat of ``trump.chooser``, with open trump) chooses trump
    (docs/rules.md §0.4): names a suit (open trump), names one
    secretly (``secret``: nobody else knows it until it is exposed, and no card is laid
    aside; §29b.5), or lays a card of his hand face down (hidden trump; §28.5), or takes
    the dealt card that the variant names (``trump.dealt_card``) before it is dealt to him."""

    name = "trump"

    def enter(self, s):
        s.to_act = table_seat(s, "trump.chooser")

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


def skipped_hooks(c) -> set:
    """``trump.suit`` is compiled only with ``trump.mode: rule``."""
    return set() if c.trump_mode == "rule" else {"trump.suit"}


def begin(s) -> None:
    """With ``trump.mode: rule``, trump as the deal starts: the suit ``trump.suit`` yields
    (none, or a no-trump denomination: no trump), public (`State.public_trump`)."""
    rule = s.v.rules.get("trump.suit")
    if rule is not None and s.v.trump_mode == "rule":
        s.public_trump = rule(s, -1, None, None)


def _step_words(v, step) -> str:
    chooser = (v.data.get("trump") or {}).get("chooser")
    return f"{rule_words(chooser, v=v)} chooses trump" if chooser else "the declarer chooses trump"


# flow step -> its words in the rulebook's Deal section
STEP_WORDS = {"trump": _step_words}


def _rule_words(v) -> str:
    """The words of ``trump.mode: rule``: its rule, set as each deal starts."""
    suit = rule_words((v.data.get("trump") or {}).get("suit", "none"), v=v)
    said = f"trump is:\n{suit}\n\n" if "\n" in suit else f"trump is {suit}. "
    return (f"As each deal starts, before any card is dealt, {said}Every player knows it; with "
            "no trump each trick goes to the highest card of the suit led.")


def never_trump(v) -> bool:
    """Whether no card of variant ``v`` can ever count as a trump: no trump at the start
    of a deal (``mode: none``), none set in play (no effect assigns `trump`), and the
    default ``play.counts_as_trump`` (a card of the trump suit), which then never holds."""
    plain = str(v.data.get("play", {}).get("counts_as_trump", "suit(card) == trump")).strip()
    return (v.trump_mode == "none" and SETS_TRUMP not in "".join(s for s in v.sources.values() if s)
            and plain == "suit(card) == trump")


def words(v) -> list[tuple[str, str]]:
    """The rulebook's ``Trump`` section of variant ``v``, as [(title, Markdown text)]."""
    chooser = (v.data.get("trump") or {}).get("chooser")
    set_in_play = SETS_TRUMP in "".join(v.sources.values())
    tr = {"open": f"{rule_words(chooser, v=v).capitalize() if chooser else 'The declarer'} names trump openly.",
          "hidden": "The declarer lays one card face down as trump; nobody else sees it. "
                    "It is exposed when a player asks for it, and if never asked for, the "
                    "declarer plays it as his last card.",
          "bid": "Trump is the suit named by the contract; a contract that names no suit "
                 "is played without trump.",
          "secret": "The declarer names trump secretly: nobody else knows the suit until a "
                    "player asks for it to be exposed (no card is laid aside). A trump that is "
                    "never exposed stays secret.",
          "fixed": f"{SUIT_NAMES.get(v.deck.suits[v.fixed_trump], '').capitalize()} are trump in every deal."
                   if v.fixed_trump >= 0 else "",
          "rule": _rule_words(v) if v.trump_mode == "rule" else "",
          "none": "A deal starts without trump: each trick goes to the highest card of the suit led."
                  + (" The rules below may set trump during play; every player then knows it."
                     if set_in_play else "")}[v.trump_mode]
    if set_in_play and v.trump_mode == "rule":
        tr += " The rules below may set trump again during play; every player then knows it."
    if set_in_play and v.trump_mode not in ("none", "rule"):
        tr += " The rules below may set trump again during play; every player then knows it."
    if v.dealt_card:
        tr += f" He may instead take the {v.dealt_card}th card dealt to him face down as trump."
    return [("Trump", tr)]


# flow step -> its phase (one handler serves every deal)
PHASES = {"trump": Trump()}


def start(s, carried) -> None:
    """Trump's fields as a deal starts: no card face down, and no trump chosen but the
    file's own with ``mode: fixed`` (known to every seat)."""
    s.trump = s.v.fixed_trump
    s.trump_exposed = s.v.fixed_trump >= 0
    s.trump_card = -1
    s.exposer = -1
    s.exposure_trick = 0
    s.exposed_card = -1


def view(s, seat, tricks) -> dict:
    """Trump's part of ``seat``'s observation: the suit as ``seat`` knows it, and the
    face-down card to the declarer alone (shown to every seat once exposed)."""
    text = s.v.deck.text
    return {
        "trump": s.trump_text(seat),
        "trump_exposed": s.trump_exposed,
        "exposer": s.exposer if s.exposer >= 0 else None,
        "exposure_trick": s.exposure_trick or None,
        "trump_card": text[s.trump_card] if s.trump_card >= 0 and seat == s.declarer else None,
        "face_down": s.trump_card >= 0,
        "exposed_card": text[s.exposed_card] if s.exposed_card >= 0 else None,
    }


def alternatives(s, seat) -> list[dict]:
    """The other suits trump may be for ``seat`` while it is hidden from it (a face-down
    card not its own, a suit named secretly): every suit but the true one."""
    if s.trump >= 0 and s.trump_text(seat) is None:
        return [{"trump": x} for x in range(len(s.v.deck.suits)) if x != s.trump]
    return []


@dataclass(frozen=True, eq=False, kw_only=True)
class TrumpFields:
    """Trump's fields of a Variant (`Mechanic.variant`): what `load` reads, and the
    actions that choose trump (`tables`)."""
    trump_mode: str = "none"
    dealt_card: int = 0       # trump.dealt_card: the dealt card laid face down (1 the first), 0 none
    fixed_trump: int = -1     # trump.mode fixed: the suit (index) trump in every deal
    trump_text: list = field(repr=False, default=None)      # suit -> its `trump S` Action
    trump_ids: list = field(repr=False, default=None)
    trump_card_text: list = field(repr=False, default=None)  # card id -> `trump-card C`
    trump_card_ids: list = field(repr=False, default=None)
    dealt_card_text: object = field(repr=False, default=None)  # `trump-card seventh`, or None


# the words of ``trump.dealt_card``'s action: `trump-card seventh`
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh", "twelfth")


def suit_table(v, act) -> dict:
    """`trump S` of each suit (`Mechanic.tables`, slot 5)."""
    suits = [act(f"trump {su}", "trump", su, i) for i, su in enumerate(v.deck.suits)]
    return dict(trump_text=suits, trump_ids=[a.id for a in suits])


def card_table(v, act) -> dict:
    """`trump-card C` of each card id, a card laid face down (slot 6)."""
    text = v.deck.text
    cards = [act(f"trump-card {text[c]}", "trump-card", text[c], c) for c in range(v.deck.size)]
    return dict(trump_card_text=cards, trump_card_ids=[a.id for a in cards])


def dealt_card_table(v, act) -> dict:
    """`trump-card seventh`: the dealt card of ``trump.dealt_card`` laid face down (slot 10)."""
    if not v.dealt_card:
        return dict(dealt_card_text=None)
    word = ORDINALS[v.dealt_card - 1]
    return dict(dealt_card_text=act(f"trump-card {word}", "trump-card", word, None))


def hidden_actions(v) -> list:
    """The actions the other seats see by their kind only: a card laid face down, and a
    suit named secretly (trump.mode secret)."""
    return v.trump_card_text + (v.trump_text if v.trump_mode == "secret" else [])


def follow(r, k, t, a, hidden) -> None:
    """Trump's actions in resampling's model (`Mechanic.follow`): a card laid face down
    goes aside (seen by its seat; a hidden action's card is the one at its position in
    each proposal), the dealt card of ``trump.dealt_card`` never reaches the hand; a suit
    named secretly and still hidden from the seat is drawn anew, uniformly over the
    suits, in each proposal (§29b.5); an exposure shows the face-down card and returns
    it to its seat's hand (§28.7)."""
    kind = a.kind
    if kind == "trump-card":
        if isinstance(a.code, int):
            p = r.pop_card(r.hand[t], a.code)
        else:  # the dealt card of trump.dealt_card, laid face down as it is dealt
            p = r.offset[t] + r.v.dealt_card - 1
            r.skip.add(p)
        r.aside[t].append(p)
        if t == r.seat:
            r.seen[p] = True
        if hidden:
            r.origin[k] = p
    elif kind == "trump":
        if hidden and r.final.trump_text(r.seat) is None:
            suits = r.v.trump_text
            r.redraw[k] = lambda rng: suits[rng.randrange(len(suits))]
    elif kind == "expose":
        for s, aside in enumerate(r.aside):
            for p in aside:
                r.hand[s].append(p)
                r.seen[p] = True
            aside.clear()


def known_deal(b) -> None:
    """What the seat of an observation knows of a card laid face down as trump and of a
    suit named secretly (`Mechanic.known_deal`; ``b``: an information.DealKnown). The
    face-down card, once known (exposed, or the seat's own), was dealt to its seat: in
    front (laid from the first packet) or at the dealt card's position of
    ``trump.dealt_card``; the seat's own, not exposed, is beyond its hand and plays. An
    exposed card laid by another seat, and a secret suit the seat now sees, replace the
    hidden actions in the history. The dealt card still face down and unknown keeps its
    position free."""
    v, obs, seat = b.v, b.obs, b.seat
    amap, parse = v.action_map, v.deck.parse
    exposed = parse(obs["exposed_card"]) if obs.get("exposed_card") else None
    owner, dealt = None, False
    for t, text in b.history:
        a = amap.get(text)
        if a is None:
            if text.startswith("trump-card"):   # another seat's, hidden
                owner, dealt = t, False
        elif a.kind == "trump-card":
            owner, dealt = t, a.code is None
    card = None
    if owner is not None:
        if exposed is not None:
            card = exposed
            if not dealt:       # the hidden action, now known: that card was laid
                b.history = [(t, v.trump_card_text[exposed] if a == "trump-card" else a) for t, a in b.history]
        elif owner == seat and obs.get("trump_card"):
            card = parse(obs["trump_card"])
    if obs.get("trump") and any(a == "trump" for _, a in b.history):
        # a suit named secretly (§29b.5), now known to the seat: that suit was named
        b.history = [(t, "trump " + obs["trump"] if a == "trump" else a) for t, a in b.history]
    if owner is None:
        return
    if card is None:
        if dealt:
            b.reserved.add((owner, v.dealt_card - 1))   # the face-down dealt card: unknown
        return
    if owner == seat and exposed is None:
        b.more.append(card)
    b.placed.append((owner, card, v.dealt_card - 1 if dealt else None))


def compiler(c, fields) -> dict:
    """A trump hidden from the others may not be set by a rule (`PUBLIC_MODES`)."""
    return dict(not_assignable=() if c.trump_mode in PUBLIC_MODES else ("trump",))


def built(c, rules, sources, paths) -> dict:
    """The compiled rules checked: only a public trump is set in play."""
    check_set_in_play(c, sources, paths)
    return {}


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'trump': {'type': 'object',
                          'additionalProperties': False,
                          'required': ['mode'],
                          'properties': {'mode': {'enum': ['open',
                                                           'hidden',
                                                           'bid',
                                                           'secret',
                                                           'none',
                                                           'fixed',
                                                           'rule'],
                                                  'description': 'open: a seat names trump; '
                                                                 'hidden: a card laid face down; '
                                                                 'secret: named secretly; bid: the '
                                                                 "contract's denomination; none: "
                                                                 'no trump at the start of a deal '
                                                                 '(an effect may set it during '
                                                                 'play); fixed: the suit given by '
                                                                 '`suit`, every deal; rule: '
                                                                 'trump.suit, a rule, sets it as '
                                                                 'each deal starts. Without a '
                                                                 'trump section: none'},
                                         'suit': {'$ref': '#/$defs/rule',
                                                  'description': 'with mode fixed: the trump suit '
                                                                 'of every deal (a suit letter); '
                                                                 'with mode rule: a rule giving '
                                                                 'the trump suit (or none) as each '
                                                                 'deal starts, before any card is '
                                                                 'dealt, known to every player'},
                                         'dealt_card': {'type': 'integer',
                                                        'minimum': 1,
                                                        'maximum': 12},
                                         'chooser': {'$ref': '#/$defs/rule',
                                                     'description': 'the seat that chooses trump '
                                                                    '(default: the declarer); only '
                                                                    'with mode open'}}}},
 'steps': ['trump']}


MECHANIC = Mechanic(
    "trump", schema=SCHEMA, load=load, compiler=compiler, hooks=HOOKS,
    skipped_hooks=skipped_hooks, built=built, variant=TrumpFields,
    tables=((5, suit_table), (6, card_table), (10, dealt_card_table)),
    card_actions={"trump-card": "trump_card_text"}, hidden_actions=hidden_actions,
    follow=dict.fromkeys(("trump-card", "trump", "expose"), follow), from_hand=("trump-card",), known_deal=known_deal,
    action_kinds={"trump": "the suit letter named as trump",
                  "trump-card": "the card text laid face down, or the ordinal (``seventh``) of the "
                                "dealt card"},
    fields={"trump": "=", "trump_exposed": "=", "trump_card": "=", "exposer": "=",
            "exposure_trick": "=", "exposed_card": "="},
    start=start, begin=begin, phases=PHASES, view=view, hidden_facts=("trump",), alternatives=alternatives,
    step_words=STEP_WORDS, words=words)
