"""The play of the tricks (docs/rules.md §0.4): the ``play:`` rules (`HOOKS`), the `Play`
phase, the rank of the cards in a trick and its end, `apply_id`, the engine's apply of
an action id (a play of a card written out: the hot path), and the rulebook's words.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass, field

from .declarations import declare
from .dsl import BOOL, CARDS, SEAT
from .errors import IllegalActionError, InvalidActionError
from .mechanic import Mechanic
from .phase import Phase, table_seat
from .trump import never_trump
from .wording import rule_of

# hook -> (path in the file, expected kind, default rule text or None if required; "" an
# optional hook that does nothing when absent)
HOOKS = {
    "play.leader": (("play", "leader"), SEAT, "eldest"),
    "play.may_play": (("play", "may_play"), CARDS, None),
    "play.counts_as_trump": (("play", "counts_as_trump"), BOOL, "suit(card) == trump"),
    "play.may_expose": (("play", "may_expose"), BOOL, "false"),
    "play.after_trick": (("play", "after_trick"), "effect", ""),
    "play.after_card": (("play", "after_card"), "effect", ""),
}


def apply_id(s, i: int) -> None:
    """`State.apply_id` (docs/engine.md): apply the action of id ``i`` to the State
    ``s`` (see `State.legal_ids`). Raises IllegalActionError if it is not legal now,
    InvalidActionError if it is no action id of the variant (the state is then
    unchanged). A play is applied here, the hot path; any other action by its phase.
    Each variant's States apply plays by a function of their own, written out from
    this one and the rules (`Variant.play_step`), that comes here for the rest."""
    legal = s._legal
    if legal is None:
        legal = s.legal_ids()
    if i not in legal:
        acts = s.v.actions
        if type(i) is not int or not 0 <= i < len(acts):
            raise InvalidActionError(i, s.legal_actions())
        if s.to_act < 0:
            raise IllegalActionError(acts[i], [], f"the deal is over: no action is legal, not {str(acts[i])!r}")
        raise IllegalActionError(acts[i], s.legal_actions())
    v = s.v
    seat = s.to_act
    s._legal = s._legal_actions = None
    s.history.append((seat, v.actions[i]))
    if i >= v.deck.size:
        s.handler.apply(s, seat, v.actions[i])
        return
    # a play (ids of plays are card ids): the hot path, written here rather than in Play
    if v.plain_play:
        s.hands[seat].remove(i)
    else:
        Play.card_played(s, seat, i)
    cards = s.trick_cards
    if not cards:
        s.led = v.deck.suit_of[i]
    cards.append(i)
    s.trick_seats.append(seat)
    if v.after_card is not None:    # the card is in the trick; `me` is its player
        v.after_card(s, seat, None, None)
    if len(cards) < s._active:
        s.to_act = s._next[seat]
        # the next seat's legal plays now: the next apply reads them anyway (one
        # call of legal_ids less per play on the hot path)
        s._legal = s.handler.legal(s)
    else:
        Play.end_trick(s)


class Play(Phase):
    """The play of the tricks (docs/rules.md §0.4): the variant's ``play.may_play`` gives the
    cards that may be played; declarations (§0.8) and ``expose`` (§28.7, §29b.6: offered
    while trump is chosen and not public, when ``play.may_expose`` holds) come before the
    cards in the legal list; a question is answered at once by its answering seat.
    The legal list is one function per variant, those rules written into it
    (`taash.interpreter.dsl.Compiler.build_play_legal`; each variant has its own Play,
    whose ``legal`` is that function: ``Variant.phases``, made from ``compiled_legal``)."""

    name = "play"

    def enter(self, s):
        v = s.v
        if v.trump_mode == "bid":
            s.trump = s.denomination if s.denomination >= 0 else -1
            s.trump_exposed = True
        s.to_act = s.next_active(table_seat(s, "play.leader"))

    def legal(self, s):
        """The variant's generated function (a Play of the variant's own calls it directly)."""
        return s.v.play_legal(s)

    def apply(self, s, seat, a):
        kind = a.kind  # plays are applied by State.apply_id, the hot path
        if kind == "declare":
            declare(s, seat, a)
            decl, suit = a.code
            if decl.answers:
                s.question = (seat, decl)
                s.to_act = decl.answered_by(s, seat, suit, None)
        elif kind == "answer":
            s.answers.add(a.text)
            s.to_act = s.question[0]
            s.question = None
        else:  # expose: trump becomes public; a face-down trump card is shown and taken
            if s.trump_card >= 0:  # into the declarer's hand (§28.7)
                insort(s.hands[s.declarer], s.trump_card)
            self.expose(s, seat)

    @staticmethod
    def card_played(s, seat: int, card: int) -> None:
        """What playing ``card`` does besides leaving the hand, in a variant that is not
        `Variant.plain_play`: the face-down trump card is exposed as it is played (§28.8),
        the called card reveals the partner (§304.7), and whether trump was public is
        kept for ``play.counts_as_trump`` (``trick_after``)."""
        if card == s.trump_card and seat == s.declarer and not s.hands[seat]:
            Play.expose(s, seat)
        else:
            s.hands[seat].remove(card)
        if card == s.called_card and seat == s.partner:
            s.partner_revealed = True
        s.trick_after.append(s.trump_exposed)

    @staticmethod
    def expose(s, seat):
        s.exposed_card = s.trump_card
        s.trump_card = -1
        s.trump_exposed = True
        s.exposer = seat
        s.exposure_trick = s.tricks_done + 1

    @staticmethod
    def trick_keys(s) -> list[int]:
        """docs/rules.md §0.4: the rank of each card of the current trick as it stands:
        strength, +100 in the suit led, +200 when it counts as a trump (by
        ``play.counts_as_trump``, asked now)."""
        v = s.v
        cards, seats = s.trick_cards, s.trick_seats
        if v.plain_trump:  # the deck's table: the hot path
            return list(map(v.deck.trick_keys[s.trump][s.led].__getitem__, cards))
        deck = v.deck
        strength, suit_of, led, after = deck.strength, deck.suit_of, s.led, s.trick_after
        counts = v.counts_as_trump
        return [200 + strength[c] if counts(s, seats[i], c, after[i]) else
                100 + strength[c] if suit_of[c] == led else strength[c] for i, c in enumerate(cards)]

    @staticmethod
    def best(s) -> int:
        """Index in the current trick of the card that wins it as it stands: the highest
        key; of equal keys (identical cards) the first played."""
        keys = Play.trick_keys(s)
        return keys.index(max(keys))

    @staticmethod
    def key_now(s, seat: int, card: int, led: int) -> int:
        """The rank ``card`` would have in the current trick, led in suit ``led``, if
        ``seat`` played it now."""
        v = s.v
        deck = v.deck
        if v.plain_trump:
            return deck.trick_keys[s.trump][led][card]
        st = deck.strength[card]
        if v.counts_as_trump(s, seat, card, s.trump_exposed):
            return 200 + st
        return 100 + st if deck.suit_of[card] == led else st

    @staticmethod
    def end_trick(s):
        """docs/rules.md §0.4: the highest card counting as a trump wins, else the highest of
        the suit led; of identical cards the first played ranks higher."""
        v = s.v
        cards, seats = s.trick_cards, s.trick_seats
        deck = v.deck
        if v.plain_trump:  # Play.best with the deck's table: the hot path
            keys = list(map(deck.trick_keys[s.trump][s.led].__getitem__, cards))
            winner = seats[keys.index(max(keys))]
        else:
            winner = seats[Play.best(s)]
        pts = sum(map(deck.point_of.__getitem__, cards))
        done = s.tricks_done = s.tricks_done + 1
        last = done == v.tricks
        if last:
            pts += v.last_trick
        side = s.side[winner]
        s.side_points[side] += pts
        s.seat_points[winner] += pts
        s.side_tricks[side] += 1
        s.trick_sides.append(side)
        s.tricks.append((seats[0], tuple(cards), winner))
        if v.after_trick is not None:
            v.after_trick(s, winner, winner, seats[0])
        s.trick_cards = []
        s.trick_seats = []
        s.trick_after = []
        s.led = -1
        if last:
            s._score()
        else:
            s.to_act = winner


# flow step -> its words in the rulebook's Deal section
STEP_WORDS = {"play": lambda v, step: "play of the tricks"}


def words(v) -> list[tuple[str, str]]:
    """The rulebook's ``Play`` section of variant ``v``, as [(title, Markdown text)]."""
    pl = [f"The first leader: {rule_of(v, 'play', 'leader', default='eldest')}.",
          "A player may play:\n" + rule_of(v, "play", "may_play")]
    if never_trump(v):   # no trump is ever set: the rule of a trump card never holds
        pl.append("The trick goes to the highest card of the suit led.")
    else:
        pl += [f"A card counts as a trump when: "
               f"{rule_of(v, 'play', 'counts_as_trump', default='suit(card) == trump')}.",
               "The trick goes to the highest card counting as a trump, else to the highest card of "
               "the suit led."]
    if v.trump_mode in ("hidden", "secret"):
        pl.append(f"A player may ask for trump to be exposed when: {rule_of(v, 'play', 'may_expose', default='false')}.")
    if v.data["play"].get("after_card"):
        pl.append("After each card is played:\n" + rule_of(v, "play", "after_card", effect=True))
    if v.data["play"].get("after_trick"):
        pl.append("After each trick:\n" + rule_of(v, "play", "after_trick", effect=True))
    return [("Play", "\n".join(pl))]


# flow step -> its phase (one handler serves every deal)
PHASES = {"play": Play()}


def start(s, carried) -> None:
    """The play's fields as a deal starts: no card led, no trick won, no point taken."""
    v = s.v
    s.led = -1
    s.trick_cards = []
    s.trick_seats = []
    s.trick_after = []
    s.tricks_done = 0
    s.tricks = []
    s.trick_sides = []
    s.side_tricks = [0] * v.sides
    s.side_points = [0] * v.sides
    s.seat_points = [0] * v.players


def view(s, seat, tricks) -> dict:
    """The play's part of ``seat``'s observation (all public): the trick as it stands, the
    completed ``tricks`` and the points taken (while the deal is played the tricks'; at
    its end with the cards set aside)."""
    text = s.v.deck.text
    return {
        "trick": [[t, text[c]] for t, c in zip(s.trick_seats, s.trick_cards)] if s.trick_seats else [],
        "tricks": tricks,
        "points": s.seat_points[:] if s.to_act >= 0 else s.trick_points(),
    }


@dataclass(frozen=True, eq=False, kw_only=True)
class PlayFields:
    """The play's fields of a Variant (`Mechanic.variant`): its actions and the rules of
    the hot path (`tables`)."""
    play_text: list = field(repr=False, default=None)   # card id -> its play (its id is the card's)
    expose_action: object = field(repr=False, default=None)
    may_expose: object = field(repr=False, default=None)  # None: never
    counts_as_trump: object = field(repr=False, default=None)
    after_trick: object = field(repr=False, default=None)
    after_card: object = field(repr=False, default=None)
    plain_trump: bool = False   # §0.4's trumps: no call of the rule
    plain_play: bool = False    # a play only leaves the hand


def plays_table(v, act) -> dict:
    """The plays, `play C` of each card id (`Mechanic.tables`, slot 0: first, so that a
    play's id is its card id), and the play's rules of the hot path."""
    text = v.deck.text
    r = v.rules
    # the default rule of §0.4 (every trump-suit card is a trump) runs without a call
    plain_trump = (v.data.get("play", {}).get("counts_as_trump", "suit(card) == trump")
                   .replace(" ", "") == "suit(card)==trump") if v.data else False
    return dict(
        play_text=[act(f"play {text[c]}", "play", text[c], c) for c in range(v.deck.size)],
        counts_as_trump=r.get("play.counts_as_trump"), after_trick=r.get("play.after_trick"),
        after_card=r.get("play.after_card"), plain_trump=plain_trump,
        # a card played only leaves the hand and joins the trick: no face-down trump
        # card, no called card, §0.4's trumps (engine.State.apply_id; else Play.card_played)
        plain_play=(plain_trump and v.trump_mode != "hidden"
                    and all(name != "call_partner" for name, _ in v.steps)))


def expose_table(v, act) -> dict:
    """`expose`, the face-down trump's exposure asked in play (slot 2), and its rule
    (None when always false: not asked)."""
    never = v.constants.get("play.may_expose") is False
    return dict(expose_action=act("expose", "expose"),
                may_expose=None if never else v.rules.get("play.may_expose"))


def follow(r, k, t, a, hidden) -> None:
    """A play in resampling's model (`Mechanic.follow`): the card leaves seat ``t``'s
    hand, or what it has aside (its trump card laid face down), and is seen."""
    if a.kind == "play":
        p = r.pop_card(r.hand[t], a.code)
        if p is None:
            p = r.pop_card(r.aside[t], a.code)
        r.seen[p] = True


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'play': {'type': 'object',
                         'additionalProperties': False,
                         'required': ['may_play'],
                         'properties': {'leader': {'$ref': '#/$defs/rule'},
                                        'may_play': {'$ref': '#/$defs/rule'},
                                        'counts_as_trump': {'$ref': '#/$defs/rule'},
                                        'may_expose': {'$ref': '#/$defs/rule'},
                                        'after_trick': {'$ref': '#/$defs/rule'},
                                        'after_card': {'$ref': '#/$defs/rule',
                                                       'description': 'an effect asked after each '
                                                                      'card is played (the card in '
                                                                      'the trick; me: its '
                                                                      'player)'}}}},
 'required': ['play'],
 'steps': ['play']}


MECHANIC = Mechanic(
    "play", schema=SCHEMA, hooks=HOOKS, variant=PlayFields,
    tables=((0, plays_table), (2, expose_table)), card_actions={"play": "play_text"},
    action_kinds={"play": "the card text played", "expose": "None"},
    follow={"play": follow}, from_hand=("play",),
    fields={"led": "=", "trick_cards": "list", "trick_seats": "list", "trick_after": "list",
            "tricks_done": "=", "tricks": "list", "trick_sides": "list", "side_tricks": "list",
            "side_points": "list", "seat_points": "list"},
    start=start, phases=PHASES, compiled_legal={"play": "play_legal"}, view=view,
    step_words=STEP_WORDS, words=words)
