"""The one registry of the rules DSL: every name, hook-only name, assignable name and
function a rule may use, each as one entry.

An entry says, as data:
- ``type``: the DSL type of its value (``number``, ``condition``, ``seat``...);
- ``reads`` (``writes`` for an assignable name): the ``State`` attributes it reads, through
  the read-only view ``s`` a compiled rule gets, e.g. ``reads=("hands",)``;
- ``build``: how the compiler makes its Python ``ast`` node, from the parameters
  ``s, me, x, y`` of a compiled rule, the helpers of ``taash.interpreter.dsl.runtime`` and the
  variant's fixed values (an object ``c`` with ``players``, ``sides`` (their number),
  ``tricks``, ``min_bid``, ``max_bid``, and ``deck`` for a ``fold``);
- ``words``: its plain words in the rulebook (``taash rules``, interpreter/rulebook.py);
- ``doc``: its line in the tables of docs/authoring.md ("The rules language").

Checks: at import, each entry's ``build`` touches exactly the ``State`` attributes its
``reads``/``writes`` name (so the data cannot drift from the code); ``check_state(State)``
verifies every attribute named is a real attribute of ``State`` (``taash.interpreter.engine``
runs it on its ``State`` when it is imported), so renaming a State field fails at once with a
message naming the entry, not when a rule runs. This module imports nothing of the engine.

The tables of docs/authoring.md are made from these entries by ``taash.interpreter.dsl.guide``.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable

from ..errors import TaashError

# Types of values. Suits, seats, sides, ranks and cards are small ints at run time;
# `none` is -1 and compares equal only to itself.
INT, BOOL, SUIT, SEAT, SIDE, RANK, CARD, CARDS, LIST, NONE = (
    "number", "condition", "suit", "seat", "side", "rank", "card", "cards", "list", "none")
DECLARATION, ANSWER, INTS = "declaration", "answer", "int*"  # argument-only types
# A set of seats (a sorted list of seat numbers at run time), and the argument
# type "cards, seats or sides" (a function typed SET gives the type of its SET arguments)
SEATS, SET = "seats", "cards, seats or sides"
# a set of sides (a sorted list of side numbers at run time: `sides`, and the sets made of it)
SIDES = "sides"
# the argument type "a seat or a side" (a function of it is built by its ``build_side``
# for a side)
SEAT_OR_SIDE = "seat or side"
# the type of `parent`: the type of the rule it stands in
INHERITED = "the rule's"
# the rules that name a seat for the table (interpreter/phase.py asks them): they must
# name one
TABLE_SEAT_HOOKS = ("play.leader", "trump.chooser", "contract.declarer", "flow.declare", "auction.first",
                    "auction.all_pass")
# the rulebook's words for a suit that is `none` (interpreter/wording.py reads `none` by type)
NONE_SUIT_WORDS = "none (no suit)"


# -- ast builders: the only way entries make code ------------------------------------------
_LOAD, _STORE = ast.Load(), ast.Store()
_CMP = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE,
        "in": ast.In, "not in": ast.NotIn}
_BIN = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "//": ast.FloorDiv, "%": ast.Mod}


def var(name: str, store: bool = False) -> ast.Name:
    """A parameter (``s``, ``me``, ``x``, ``y``), a helper or a compiler-made local."""
    return ast.Name(name, _STORE if store else _LOAD)


def field(name: str, store: bool = False) -> ast.Attribute:
    """``s.name``: an attribute of the State."""
    return ast.Attribute(var("s"), name, _STORE if store else _LOAD)


def const(value) -> ast.Constant:
    """A literal the compiler made: an int, a bool or a str."""
    assert type(value) in (int, bool, str), value
    return ast.Constant(value)


def sub(value: ast.expr, index: ast.expr, store: bool = False) -> ast.Subscript:
    return ast.Subscript(value, index, _STORE if store else _LOAD)


def call(fn: str, *args: ast.expr, **kw: ast.expr) -> ast.Call:
    return ast.Call(var(fn), list(args), [ast.keyword(k, v) for k, v in kw.items()])


def method(obj: ast.expr, name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(obj, name, _LOAD), list(args), [])


def compare(a: ast.expr, op: str, b: ast.expr) -> ast.Compare:
    return ast.Compare(a, [_CMP[op]()], [b])


def binop(a: ast.expr, op: str, b: ast.expr) -> ast.BinOp:
    return ast.BinOp(a, _BIN[op](), b)


def ifexp(test: ast.expr, body: ast.expr, orelse: ast.expr) -> ast.IfExp:
    return ast.IfExp(test, body, orelse)


def _or_none(test: ast.expr, body: ast.expr) -> ast.IfExp:
    return ifexp(test, body, const(-1))


def _has_declarer() -> ast.Compare:
    return compare(field("declarer"), ">=", const(0))


# -- entries --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Name:
    """A name whose value the engine supplies. ``hook``: the one hook whose rules have it
    (``""``: every rule). ``const``: (c) -> the variant's fixed value, folded by the
    compiler. ``words_not``: the rulebook's words for ``not NAME``, if not "not (...)".
    ``outside_hand``: a set of cards that may hold cards not in ``me``'s hand (a rule
    giving cards to play that uses it is kept to the hand)."""
    name: str
    type: str
    reads: tuple[str, ...]
    build: Callable[[object], ast.expr]
    words: str
    doc: str
    hook: str = ""
    const: Callable[[object], int] | None = None
    words_not: str = ""
    outside_hand: bool = False


@dataclass(frozen=True)
class Assignable:
    """A name an effect may assign (``=``, ``+=``, ``-=``). ``index``: ``None``, ``seat``,
    or ``score`` (a side, or a seat when the match keeps scores per seat). ``target``:
    (c, index node) -> the assignment target; ``bound``: (c) -> the exclusive upper bound
    an index must be under (an index out of range changes nothing)."""
    name: str
    type: str
    writes: tuple[str, ...]
    index: str | None
    target: Callable[[object, ast.expr | None], ast.expr]
    bound: Callable[[object], ast.expr] | None
    words: Callable[[str | None], str]
    doc: str
    form: str
    hook: str = ""  # assignable only in rules that have this group of names ("": in any effect)
    hook_words: str = ""  # where, for the error message
    set_words: Callable[[str], str] | None = None  # the rulebook's words for `NAME = v`, if not "NAME becomes v"


@dataclass(frozen=True)
class Function:
    """A function. ``args``: argument types (``int*``: one or more numbers, or one list;
    ``declaration``/``answer``: a string naming one of the variant's). ``build``:
    (c, *argument nodes) -> node; ``build_list``: (c, list node) -> node, for ``int*``
    given one list. ``fold``: (c, *constant arguments) -> value, the call folded when
    every argument is a constant.
    ``words``: (argument words) -> words."""
    name: str
    args: tuple[str, ...]
    type: str
    reads: tuple[str, ...]
    build: Callable[..., ast.expr]
    words: Callable[[list[str]], str]
    doc: str
    build_list: Callable[[object, ast.expr], ast.expr] | None = None
    fold: Callable[..., object] | None = None
    only: tuple[str, ...] = ()  # the hooks whose rules may call it (): every rule)
    # for an argument of type SEAT_OR_SIDE given a side: (c, *argument nodes) -> node
    # (``build`` is then for a seat)
    build_side: Callable[..., ast.expr] | None = None
    outside_hand: bool = False  # cards that may not be in ``me``'s hand (Name.outside_hand)

    @property
    def signature(self) -> str:
        """The call as the guide shows it, e.g. ``in_suit(cards, suit)``."""
        shown = {DECLARATION: '"name"', ANSWER: '"question answer"', INTS: "number, ...",
                 SET: "set", SEAT_OR_SIDE: "seat or side"}
        return f"{self.name}({', '.join(shown.get(a, a) for a in self.args)})"


def _n(name, typ, reads, build, words, doc, **kw) -> Name:
    return Name(name, typ, tuple(reads), build, words, doc, **kw)


def _fixed(name, attr, words, doc) -> Name:
    return Name(name, INT, (), lambda c: const(getattr(c, attr)), words, doc,
                const=lambda c: getattr(c, attr))


def _hook(name, typ, hook, param, words, doc, **kw) -> Name:
    return Name(name, typ, (), lambda c: var(param), words, doc, hook=hook, **kw)


def _attr(name, typ, attr, words, doc) -> Name:
    return Name(name, typ, (attr,), lambda c: field(attr), words, doc)


NAME_ENTRIES: tuple[Name, ...] = (
    # seats and sides (docs/rules.md §0.1, §0.6)
    _fixed("players", "players", "the number of players", "number of seats"),
    _n("me", SEAT, (), lambda c: var("me"), "the player",
       "the seat the rule is asked for: in each rule, the seat the table \"Who `me` is\" "
       "below names (the player to act, the card's player, the declarer in scoring...)"),
    _attr("dealer", SEAT, "dealer", "the dealer", "the dealer"),
    _n("eldest", SEAT, ("dealer",),
       lambda c: binop(binop(field("dealer"), "+", const(1)), "%", const(c.players)),
       "the eldest (the player after the dealer)", "the seat after the dealer"),
    _attr("declarer", SEAT, "declarer", "the declarer", "the declarer (`none` before the "
          "auction ends)"),
    _n("my_side", SIDE, ("side",), lambda c: sub(field("side"), var("me")), "the player's side",
       "the side of `me` (`none` when `me` is). With `partnership: fixed` seat s is on side "
       "s mod 2 all along, and with `individual` (each player for himself) seat s is side s; "
       "with `called` or `solo` every seat is on side 1 until the auction "
       "ends, then the declarer is on side 0 (and a called partner joins him when revealed)"),
    _n("declarer_side", SIDE, ("side", "declarer"),
       lambda c: _or_none(_has_declarer(), sub(field("side"), field("declarer"))),
       "the declarer's side", "the declarer's side (`none` until the auction ends: in a solo "
       "or called auction no seat has a side of its own yet)"),
    _n("defenders_side", SIDE, ("side", "declarer"),
       lambda c: _or_none(_has_declarer(), binop(const(1), "-", sub(field("side"), field("declarer")))),
       "the defenders' side", "the side that is not the declarer's (`none` until the auction "
       "ends; not with `partnership: individual`, where the others are each a side: use "
       "`opponents(declarer)`)"),
    _attr("partner", SEAT, "partner", "the partner",
          "the declarer's called partner (`none` without one)"),
    _attr("partner_revealed", BOOL, "partner_revealed", "the partner is revealed",
          "whether the called partner is known to all"),
    _attr("called_card", CARD, "called_card", "the called card",
          "the card the declarer called his partner by"),
    # the auction (§0.5)
    _attr("high_bid", INT, "bid", "the high bid", "the high bid so far (also `bid`)"),
    _attr("bid", INT, "bid", "the bid", "the same as `high_bid`"),
    _attr("high_bidder", SEAT, "high_bidder", "the high bidder",
          "the seat that holds the high bid (`none` before any bid)"),
    _attr("calls", INT, "calls", "the number of calls so far",
          "calls made so far (at a `bids` step: the bids made so far)"),
    _attr("bids", INT, "bids", "the number of bids so far", "bids made so far"),
    _attr("passes", INT, "passes", "the number of passes in a row",
          "consecutive passes since the last bid, double or redouble"),
    _n("passed", INT, ("passed",), lambda c: call("len", field("passed")),
       "the number of players who have passed", "seats that have passed, with `final_pass`"),
    _attr("holder", SEAT, "holder", "the holder",
          "in a `duel` auction: the seat that holds the bid against the challenger (`none` "
          "before the first bid, and in a `round` auction)"),
    _attr("challenger", SEAT, "challenger", "the challenger",
          "in a `duel` auction: the seat that bids against the holder (`none` when there is "
          "none, and in a `round` auction)"),
    # a bid of one's own (the flow's `bids` step, interpreter/bids.py)
    _attr("bids_total", INT, "bids_total", "the total of the bids so far",
          "at a `bids` step: the sum of the bids made so far (0 before the first)"),
    _fixed("min_bid", "min_bid", "the lowest bid", "`auction.min_bid` of the file (`bids.min` with a `bids` step)"),
    _fixed("max_bid", "max_bid", "the highest bid", "`auction.max_bid` of the file (with a `bids` step: `bids.max` when it is a number, else `tricks`)"),
    _hook("number", INT, "auction.may_bid", "x", "the bid",
          "in `auction.may_bid` (and `bids.may_bid`): the bid asked about"),
    _n("doubled", BOOL, ("doubled",), lambda c: compare(field("doubled"), ">=", const(1)),
       "the contract is doubled", "whether the contract is doubled (or redoubled)"),
    _n("redoubled", BOOL, ("doubled",), lambda c: compare(field("doubled"), ">=", const(2)),
       "the contract is redoubled", "whether the contract is redoubled"),
    _attr("denomination", SUIT, "denomination", "the denomination of the contract",
          "the denomination of the contract: a suit, or one such as `\"NT\"` played "
          "without trump (`none` before any bid)"),
    # trump (§0.3)
    _attr("trump", SUIT, "trump", "trump", "the trump suit once chosen, also while it lies face down (`none` before, or "
          "without trump)"),
    _n("no_trump", BOOL, ("trump",), lambda c: compare(field("trump"), "<", const(0)),
       "there is no trump", "whether there is no trump suit"),
    _attr("trump_exposed", BOOL, "trump_exposed", "trump is exposed", "whether trump is public"),
    _n("trump_hidden", BOOL, ("trump_card",), lambda c: compare(field("trump_card"), ">=", const(0)),
       "a trump card lies face down", "whether a trump card lies face down"),
    _attr("exposer", SEAT, "exposer", "the player who asked for trump",
          "the seat that asked for trump to be exposed"),
    _attr("exposure_trick", INT, "exposure_trick", "the trick in which trump was exposed",
          "the trick (1-based) in which trump was exposed"),
    # play (§0.4, §0.8)
    _attr("led", SUIT, "led", "the suit led", "the suit led (`none` when leading)"),
    _n("leading", BOOL, ("led",), lambda c: compare(field("led"), "<", const(0)),
       "the player leads", "whether the player leads the trick"),
    _n("leader", SEAT, ("trick_seats",),
       lambda c: ifexp(field("trick_seats"), sub(field("trick_seats"), const(0)), var("me")),
       "the leader of the trick", "the seat that led the current trick"),
    _n("trick", INT, ("tricks_done",), lambda c: binop(field("tricks_done"), "+", const(1)),
       "the trick number", "the trick number (1-based)"),
    _fixed("tricks", "tricks", "the number of tricks", "tricks in a deal"),
    _n("trick_winner", SEAT, ("trick_winner",), lambda c: method(var("s"), "trick_winner"),
       "the player winning the trick so far",
       "the seat whose card wins the current trick as it stands, by `counts_as_trump` "
       "asked now (`none` when leading)"),
    _n("winning_card", CARD, ("winning_card",), lambda c: method(var("s"), "winning_card"),
       "the card winning the trick so far",
       "the card that wins the current trick as it stands (`none` when leading)"),
    _n("hand", CARDS, ("hands",), lambda c: sub(field("hands"), var("me")), "any card in hand",
       "the cards of `me`"),
    _n("my_side_tricks", INT, ("known_side_tricks",),
       lambda c: method(var("s"), "known_side_tricks", var("me")),
       "the number of tricks the player knows his side has won",
       "completed tricks won by seats `me` knows to be on its side"),
    _hook("card", CARD, "play.counts_as_trump", "x", "the card",
          "in `play.counts_as_trump`: the card asked about"),
    _hook("played_after_exposure", BOOL, "play.counts_as_trump", "y",
          "it was played after trump was exposed",
          "in `play.counts_as_trump`: whether the card was played after trump was exposed"),
    _hook("winner", SEAT, "play.after_trick", "x", "the winner of the trick",
          "in `play.after_trick`: the seat that won the trick"),
    _hook("declared_suit", SUIT, "declare.suit", "x", "the suit declared",
          "in a `per_suit` declaration's rules: its suit"),
    # contract, score and match (§0.9)
    _attr("target", INT, "target", "the target", "the target of the declarer's side"),
    _hook("made", BOOL, "scoring.effect", "x", "the contract is made",
          "in `scoring.effect` (and `match.next_dealer`, which has the names of "
          "`scoring.effect`): whether the contract was made (false when nobody bid)",
          words_not="the contract is not made"),
    _attr("score", LIST, "scores", "the score", "the match score, `score[side]` (or `score[seat]`)"),
    _attr("deals", INT, "deal_number", "the number of deals played before",
          "deals played before this one in the match"),
    _n("deals_played", INT, ("deal_number", "is_terminal"),
       lambda c: binop(field("deal_number"), "+", field("is_terminal")), "the number of deals played",
       "deals played in the match, this one included once it is over"),
    # -- a rule of a file that `extends:` another --
    Name("parent", INHERITED, (), lambda c: const(-1), "the inherited rule",
         "in a file that `extends:` another: the rule this one replaces there, at the same "
         "place (its value where the name stands, e.g. `else: parent`; in an effect, "
         "`parent` alone is a statement: the inherited effect). It reads that rule as written "
         "there, so a change of the parent's rule is followed"),
    # -- seats and the trick as data --
    _n("seats", SEATS, (), lambda c: var("_SEATS"), "every seat", "every seat"),
    _n("sides", SIDES, (), lambda c: ast.List([const(i) for i in range(c.sides)], _LOAD), "every side",
       "every side: 0 and 1, or with `partnership: individual` one per seat (seat s is side "
       "s), e.g. `for s in sides: score[s] += tricks_won(s)`"),
    _n("trick_cards", CARDS, ("trick_cards",), lambda c: call("sorted", field("trick_cards")),
       "the cards played to the trick",
       "the cards played to the current trick so far (none when leading); "
       "`played(seat)` gives who played which", outside_hand=True),
    _n("trick_seats", SEATS, ("trick_seats",), lambda c: call("sorted", field("trick_seats")),
       "the players who have played to the trick",
       "the seats that have played to the current trick so far"),
)

ASSIGNABLE_ENTRIES: tuple[Assignable, ...] = (
    Assignable("target", INT, ("target",), None, lambda c, i: field("target", store=True), None,
               lambda i: "the target", "change the target of the declarer's side: `target = v` "
               "sets it (`target = bid + 4`), `target += v` and `target -= v` move it",
               "target = v"),
    Assignable("score", INT, ("scores",), "score",
               lambda c, i: sub(field("scores"), i, store=True),
               lambda c: call("len", field("scores")), lambda i: f"the score of {i}",
               "change a score: `score[side]`, or `score[seat]` when the match keeps scores "
               "per seat", "score[side] -= v"),
    Assignable("side", SIDE, ("side",), SEAT, lambda c, i: sub(field("side"), i, store=True),
               lambda c: const(c.players), lambda i: f"the side of {i}",
               "move a seat to a side, e.g. `side[partner] = defenders_side`", "side[seat] = v"),
    # a declaration that takes over the contract (docs/authoring.md, "A contract that
    # changes hands"): the engine re-forms the sides after the effect (declarations.declare)
    Assignable("declarer", SEAT, ("declarer",), None, lambda c, i: field("declarer", store=True), None,
               lambda i: "the declarer",
               "take over the contract: `declarer = me` makes the declaring seat the declarer "
               "(set `target` too), `declarer = none` leaves the deal without a contract; only "
               "in a declaration's effect", "declarer = seat", hook="declare.effect",
               hook_words="in a declaration's effect",
               set_words=lambda v: ("the deal goes on without a contract" if v == "nobody" else
                                    f"{v} takes over the contract: he is the declarer from now on")),
    # trump set by the rules (docs/authoring.md, "No trump, or trump set in play"): public
    Assignable("trump", SUIT, ("public_trump",), None, lambda c, i: field("public_trump", store=True), None,
               lambda i: "trump", "set trump, e.g. `trump = suit(played(winner))` in "
               "`play.after_trick`: every seat then knows it; `trump = none` (or a no-trump "
               "denomination) leaves no trump. Only with `trump.mode` open, bid or none",
               "trump = suit",
               set_words=lambda v: ("there is no trump from then on" if v == NONE_SUIT_WORDS else
                                    f"trump becomes {v}")),
    # seats sitting out a deal (docs/authoring.md, "Flow"): set at the flow's `declare` step
    Assignable("sits_out", BOOL, ("out",), SEAT, lambda c, i: sub(field("out"), i, store=True),
               lambda c: const(c.players), lambda i: f"{i} sits out the deal",
               "make a seat sit out the deal (`true`): it plays no card, the tricks are of the "
               "others; only in the effect of a declaration made at the flow's `declare` step",
               "sits_out[seat] = true", hook="declare.flow",
               hook_words="in the effect of a declaration with `at: flow`"),
    # a deal ended void (docs/authoring.md, "A redeal"): the statement `redeal`, which the
    # checker makes `redeal = true`; the flow's `declare` step then ends the deal
    Assignable("redeal", BOOL, ("voided",), None, lambda c, i: field("voided", store=True), None,
               lambda i: "the deal is void", "end the deal void (the statement `redeal`): "
               "nothing is scored and the next dealer deals again; only in the effect of a "
               "declaration made at the flow's `declare` step", "redeal", hook="declare.flow",
               hook_words="in the effect of a declaration with `at: flow`",
               set_words=lambda v: "the deal is void: nothing is scored, and the next dealer deals"),
)


def _of_list(fn: str, a: ast.expr) -> ast.expr:
    """``fn(a) if a else 0``: max or min of a list, 0 for an empty one (faster than
    ``default=0``, a keyword argument)."""
    return ifexp(a, call(fn, copy.deepcopy(a)), const(0))


def _in_suit_code(c, cards: ast.expr, suit: ast.expr) -> ast.expr:
    """``in_suit(cards, suit)``: the suit's cards are one slice of the sorted list (ids
    ``suit * ranks ..``; see runtime._in_suit_of), made inline as
    ``(h := cards)[_bisect(h, _SUIT_LO[(u := suit)]):_bisect(h, _SUIT_HI[u])]`` (a
    suit that is none or a no-trump denomination has the bounds 0..0: no card); where
    an assignment expression may not stand (a quantifier's list), the helper."""
    if c._no_walrus:
        return call("_in_suit", cards, suit)
    h, u = c.tmp(), c.tmp()
    lo = call("_bisect", var(h), sub(var("_SUIT_LO"), ast.NamedExpr(var(u, store=True), suit)))
    hi = call("_bisect", var(h), sub(var("_SUIT_HI"), var(u)))
    return ast.Subscript(ast.NamedExpr(var(h, store=True), cards), ast.Slice(lo, hi), _LOAD)


def _extreme(word: str, a: list[str]) -> str:
    return f"the {word} score" if a == ["the score"] else f"the {word} of {', '.join(a)}"


def _of_sides(name, typ, helper, word, doc) -> Function:
    """A function of a seat read from the sides as they stand (``s.side``)."""
    return Function(name, (SEAT,), typ, ("side",), lambda c, a: call(helper, field("side"), a),
                    lambda a: f"the {word} of {a[0]}", doc)


FUNCTION_ENTRIES: tuple[Function, ...] = (
    Function("in_suit", (CARDS, SUIT), CARDS, (), lambda c, a, b: _in_suit_code(c, a, b),
             lambda a: f"{a[0]} of {a[1]}", "the cards of a suit"),
    Function("not_in_suit", (CARDS, SUIT), CARDS, (), lambda c, a, b: call("_not_in_suit", a, b),
             lambda a: f"{a[0]} not of {a[1]}", "the cards not of a suit"),
    Function("count", (SET,), INT, (), lambda c, a: call("len", a),
             lambda a: f"the number of {a[0].replace('any card in hand', 'cards in hand')}",
             "how many cards (or seats)"),
    Function("holds", (RANK, SUIT), BOOL, ("hands",),
             lambda c, r, su: compare(sub(sub(var("_CARD"), r), su), "in",
                                      sub(field("hands"), var("me"))),
             lambda a: f"the player holds the {a[0]} of {a[1]}",
             "whether `me` holds that card, e.g. `holds(\"K\", trump)`"),
    Function("suit", (CARD,), SUIT, (), lambda c, a: sub(var("_SUIT_OF"), a),
             lambda a: f"the suit of {a[0]}", "the suit of a card (`suit(none)` is `none`)",
             fold=lambda c, card: c.deck.suit_of[card] if card >= 0 else -1),
    Function("rank", (CARD,), RANK, (), lambda c, a: sub(var("_RANK_OF"), a),
             lambda a: f"the rank of {a[0]}",
             "the rank of a card (`rank(none)` ranks below every rank)",
             fold=lambda c, card: c.deck.rank_of[card] if card >= 0 else -1),
    Function("side", (SEAT,), SIDE, ("side",), lambda c, a: sub(field("side"), a),
             lambda a: f"the side of {a[0]}", "the side of a seat (`side(none)` is `none`)"),
    Function("same_side", (SEAT, SEAT), BOOL, ("side",),
             lambda c, a, b: compare(sub(field("side"), a), "==", sub(field("side"), b)),
             lambda a: f"{a[0]} and {a[1]} are on the same side",
             "whether two seats are partners"),
    Function("points", (SIDE,), INT, ("side_points",), lambda c, a: call("_at", field("side_points"), a),
             lambda a: f"the points won by {a[0]}",
             "card points the side has won (bonuses included; 0 for `none`)"),
    Function("tricks_won", (SIDE,), INT, ("side_tricks",),
             lambda c, a: call("_at", field("side_tricks"), a),
             lambda a: f"the number of tricks won by {a[0]}", "tricks won by the side"),
    Function("seat_tricks", (SEAT,), INT, ("tricks",), lambda c, a: call("_won", field("tricks"), a),
             lambda a: f"the number of tricks won by {a[0]}",
             "completed tricks won by one seat (0 for `none`): each player's own count, "
             "whatever the sides"),
    Function("bid_of", (SEAT,), INT, ("seat_bids",), lambda c, a: call("_at", field("seat_bids"), a),
             lambda a: f"the bid of {a[0]}",
             "the number of tricks a seat bid at the flow's `bids` step (-1 before it has bid; "
             "0 for `none`)"),
    Function("seat_points", (SEAT,), INT, ("seat_points",),
             lambda c, a: call("_at", field("seat_points"), a),
             lambda a: f"the points won by {a[0]}",
             "card points one seat has won (bonuses included; 0 for `none`)"),
    Function("declared", (DECLARATION,), INT, ("declared",),
             lambda c, a: method(field("declared"), "get", a, const(0)),
             lambda a: f"the number of times {a[0]} was declared",
             "how many times that declaration was made this deal"),
    Function("answered", (ANSWER,), BOOL, ("answers",),
             lambda c, a: compare(a, "in", field("answers")),
             lambda a: f"the answer was \"{a[0]}\"", "whether that answer was given this deal"),
    Function("only", (CARDS, CARD), CARDS, (), lambda c, a, b: call("_only", a, b),
             lambda a: f"{a[1]} if in hand" if a[0] == "any card in hand" else f"{a[1]} if among {a[0]}",
             "the copies of one card among the cards"),
    Function("sits_out", (SEAT,), BOOL, ("out",), lambda c, a: compare(call("_at", field("out"), a), "==", const(True)),
             lambda a: f"{a[0]} sits out the deal", "whether a seat sits out the deal"),
    Function("played", (SEAT,), CARD, ("trick_seats", "trick_cards"),
             lambda c, a: call("_played", field("trick_seats"), field("trick_cards"), a),
             lambda a: f"the card played by {a[0]}",
             "the card that seat played to the current trick: `none` for a seat that has not "
             "played to it yet (so for every seat when leading, and in `scoring`); in "
             "`play.after_trick` the trick just completed, every seat's card"),
    Function("higher", (CARDS, CARD), CARDS, ("higher",),
             lambda c, a, b: method(var("s"), "higher", var("me"), a, b),
             lambda a: f"{a[0]} that would beat {a[1]}",
             "the cards that, played now, would rank above a card in the current trick "
             "(docs/rules.md §0.4), e.g. `higher(in_suit(hand, trump), winning_card)`; all of "
             "them above `none`"),
    Function("abs", (INT,), INT, (), lambda c, a: call("abs", a), lambda a: f"the size of {a[0]}",
             "the absolute value of a number",
             fold=lambda c, v: abs(v)),
    Function("max", (INTS,), INT, (), lambda c, *a: call("max", *a),
             lambda a: _extreme("highest", a), "the highest of numbers, or of a list like `score`",
             build_list=lambda c, a: _of_list("max", a),
             fold=lambda c, *v: max(v)),
    Function("min", (INTS,), INT, (), lambda c, *a: call("min", *a),
             lambda a: _extreme("lowest", a), "the lowest of numbers, or of a list like `score`",
             build_list=lambda c, a: _of_list("min", a),
             fold=lambda c, *v: min(v)),
    # -- seats, the trick, card sets --
    Function("next", (SEAT,), SEAT, (), lambda c, a: sub(var("_NEXT"), a),
             lambda a: f"the player after {a[0]}",
             "the seat after a seat in turn order (`next(dealer)` is `eldest`; `next(none)` "
             "is `none`)", fold=lambda c, v: (v + 1) % c.players if v >= 0 else -1),
    Function("previous", (SEAT,), SEAT, (), lambda c, a: sub(var("_PREVIOUS"), a),
             lambda a: f"the player before {a[0]}",
             "the seat before a seat in turn order",
             fold=lambda c, v: (v - 1) % c.players if v >= 0 else -1),
    _of_sides("partner_of", SEAT, "_partner_of", "partner",
              "the first seat after a seat in turn order on its side, as the sides stand "
              "now (`none` if it has no partner)"),
    _of_sides("partners", SEATS, "_partners", "partners",
              "the other seats of a seat's side, as the sides stand now"),
    _of_sides("opponents", SEATS, "_opponents", "opponents",
              "the seats not on a seat's side, as the sides stand now"),
    Function("beats", (CARD, CARD), BOOL, ("beats",),
             lambda c, a, b: method(var("s"), "beats", var("me"), a, b),
             lambda a: f"{a[0]} beats {a[1]}",
             "whether the first card ranks above the second in the current trick, by the "
             "engine's own trick order (docs/rules.md §0.4, `counts_as_trump` asked now): a card "
             "of the trick as played, another as if `me` played it now; before the lead the "
             "second counts as led; of two identical cards neither beats the other; every "
             "card beats `none`, `none` beats nothing"),
    Function("above", (CARDS, RANK), CARDS, (), lambda c, a, r: call("_above", a, r),
             lambda a: f"{a[0]} ranking above {a[1]}",
             "the cards of a rank stronger than a rank, in the deck's order of strength, "
             "e.g. `above(in_suit(hand, trump), rank(winning_card))` (every card ranks above "
             "`rank(none)`)"),
    Function("below", (CARDS, RANK), CARDS, (), lambda c, a, r: call("_below", a, r),
             lambda a: f"{a[0]} ranking below {a[1]}",
             "the cards of a rank weaker than a rank, in the deck's order of strength"),
    Function("union", (SET, SET), SET, (), lambda c, a, b: call("_union", a, b),
             lambda a: f"{a[0]} together with {a[1]}",
             "the cards (or seats) of either set; a card held in both counts once"),
    Function("difference", (SET, SET), SET, (), lambda c, a, b: call("_difference", a, b),
             lambda a: f"{a[0]} except {a[1]}",
             "the cards (or seats) of the first set that are not in the second"),
    Function("cards_won", (SEAT_OR_SIDE,), CARDS, ("tricks",),
             lambda c, a: call("_cards_won", field("tricks"), a),
             lambda a: f"the cards won by {a[0]}",
             "the cards of the completed tricks a seat, or a side (as the sides stand now), has "
             "won, e.g. `count(those(c in cards_won(my_side): rank(c) == \"T\"))` (the tens it "
             "captured); not the widow's; none for `none`",
             build_side=lambda c, a: call("_side_cards_won", field("tricks"), field("side"), a),
             outside_hand=True),
    Function("holder_of", (CARD,), SEAT, ("hands", "dealer"),
             lambda c, a: call("_holder", field("hands"), field("dealer"), a),
             lambda a: f"the player who holds {a[0]}",
             "the seat whose hand holds a card (the first from the eldest in turn order, with "
             "copies), `none` when no hand does (in the widow, laid face down, not dealt yet, "
             "played); it reads every hand, so only the rules that name a seat for the table "
             "have it: `play.leader`, `trump.chooser`, `contract.declarer`, `auction.first`, "
             "`auction.all_pass`'s seat and a `declare` step's first seat, where a `none` "
             "stops the deal with an error (`taash check` refuses the rules it can see giving "
             "none)", only=TABLE_SEAT_HOOKS),
    Function("intersection", (SET, SET), SET, (), lambda c, a, b: call("_intersection", a, b),
             lambda a: f"{a[0]} that are also {a[1]}",
             "the cards (or seats) of the first set that are also in the second"),
)

# -- the variant's own variables -----------------------------------------------------------
# A variable declared under `variables:` is read and written as ``s.vars[index]``; its
# name belongs to the variant, like an option, so it has no entry of its own here.
VARIABLE_FIELD = "vars"
VARIABLE_TYPES = (INT, BOOL, SEAT, SIDE, SUIT, RANK, CARD)
VARIABLE_LIMIT = 10 ** 9
"""A number variable is kept within -VARIABLE_LIMIT..VARIABLE_LIMIT (an assignment beyond
is clamped), so that no rule can grow a number without bound across deals."""


def variable(index: int, store: bool = False) -> ast.Subscript:
    """``s.vars[index]``: the value of the variant's variable of that index."""
    return sub(field(VARIABLE_FIELD), const(index), store)


# -- views by name ---------------------------------------------------------------------------
NAMES: dict[str, Name] = {e.name: e for e in NAME_ENTRIES if not e.hook}
"""Names every rule may use: name -> entry."""
HOOK_NAMES: dict[str, dict[str, Name]] = {}
"""Names only some rules have: hook -> {name: entry}."""
for _e in NAME_ENTRIES:
    if _e.hook:
        HOOK_NAMES.setdefault(_e.hook, {})[_e.name] = _e
ASSIGNABLE: dict[str, Assignable] = {e.name: e for e in ASSIGNABLE_ENTRIES}
FUNCTIONS: dict[str, Function] = {e.name: e for e in FUNCTION_ENTRIES}
HELPERS = ("len", "abs", "max", "min", "_CARD", "_SUIT_OF", "_RANK_OF", "_at", "_played",
           "_in_suit", "_not_in_suit", "_only", "_bisect", "_SUIT_LO", "_SUIT_HI",
           # seats and sets
           "any", "all", "sorted", "_SEATS", "_NEXT", "_PREVIOUS", "_partner_of", "_partners",
           "_opponents", "_above", "_below", "_union", "_difference", "_intersection", "_STRENGTH",
           "_won", "_holder", "_cards_won", "_side_cards_won", "_var_at", "_var_set")
"""The globals an entry's code may name beside the parameters (taash.interpreter.dsl.runtime binds them)."""
# Who `me` is in each rule (docs/authoring.md, "Who `me` is"): by hook of
# taash.interpreter.variant.HOOKS, and for every declaration's rules; tests/dsl/test_authoring.py
# checks every hook is here.
ME = {
    "auction.may_pass": "the player to call",
    "auction.may_bid": "the player to call",
    "auction.may_equal": "the player to call",
    "auction.may_double": "the player to call",
    "auction.may_redouble": "the player to call",
    "auction.ends": "the player who has just called",
    "auction.first": "`none` (asked as the auction starts: name the seat, e.g. `eldest`)",
    "auction.all_pass": "`none` (`all_pass: {seat: RULE}`, asked when every player has passed: "
                        "name the seat, e.g. `previous(dealer)`)",
    "bids.max": "the player to bid",
    "bids.may_bid": "the player to bid",
    "play.leader": "`none` (asked before anyone plays: name the seat, e.g. `eldest`)",
    "play.may_play": "the player to play",
    "play.may_expose": "the player to play",
    "play.counts_as_trump": "the player of the card: who played it to the trick, or who "
                            "would play it (`higher(...)`)",
    "play.after_trick": "the seat that won the trick (also `winner`)",
    "play.after_card": "the player of the card just played (`played(me)` is the card)",
    "scoring.made": "the declarer",
    "scoring.effect": "the declarer",
    "match.ends": "`none` (the match is about every seat)",
    "match.next_dealer": "the declarer of the deal just finished",
    "contract.declarer": "`none` (asked as the deal starts: name the seat, e.g. `eldest`)",
    "contract.target": "the declarer the contract gives",
    "trump.chooser": "`none` (asked before trump is chosen: name the seat, e.g. `eldest`)",
    "flow.declare.may_pass": "the player to call at the flow's `declare` step",
    "trump.suit": "`none` (asked as the deal starts, before any card is dealt)",
    "declarations": "`when`: the player to act, who would declare; `effect` and "
                    "`answered_by`: the player who declared",
}

PARAMS = ("s", "me", "x", "y")


# -- checks ----------------------------------------------------------------------------------
class RegistryError(TaashError, RuntimeError):
    """The registry disagrees with itself or with ``State`` (a programming error; a
    TaashError, and a RuntimeError as before)."""


def state_fields(node: ast.AST) -> set[str]:
    """The attributes of ``s`` that an ast reads or writes."""
    return {n.attr for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "s"}


def _probe_args(e: Function) -> list[ast.expr]:
    return [var(f"_a{i}") for i in range(2 if e.args == (INTS,) else len(e.args))]


def _probe() -> SimpleNamespace:
    """A ``c`` of made-up fixed values, to build each entry's code for a look at it."""
    return SimpleNamespace(players=4, tricks=8, min_bid=1, max_bid=2, sides=2, _no_walrus=0,
                           tmp=iter(f"_t{i}" for i in range(1, 10 ** 6)).__next__)


def check_registry() -> frozenset[str]:
    """Each entry's code touches exactly the State attributes its data names, and names
    only parameters and helpers. Returns every attribute name the entries' code uses
    (State fields, and methods such as ``get``). Raises RegistryError."""
    c = _probe()
    bad = []
    seen: set[str] = set()
    for e in NAME_ENTRIES:
        if e.name in seen:
            bad.append(f"name '{e.name}' has two entries")
        seen.add(e.name)
    nodes = [(f"name '{e.name}'", e.reads, e.build(c)) for e in NAME_ENTRIES]
    nodes += [(f"assignable '{e.name}'", e.writes,
               ast.Tuple([e.target(c, var("_a0"))] + ([e.bound(c)] if e.bound else []), _LOAD))
              for e in ASSIGNABLE_ENTRIES]
    for e in FUNCTION_ENTRIES:
        node = e.build(c, *_probe_args(e))
        if e.build_list:
            node = ast.Tuple([node, e.build_list(c, var("_a0"))], _LOAD)
        nodes.append((f"function '{e.name}'", e.reads, node))
        if e.build_side:   # a side's form reads the sides too
            nodes.append((f"function '{e.name}' of a side", e.reads + ("side",),
                          e.build_side(c, *_probe_args(e))))
    nodes.append(("the variables", (VARIABLE_FIELD,), variable(0)))
    allowed = set(PARAMS) | set(HELPERS)
    attributes = set()
    for what, fields, node in nodes:
        attributes.update(n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute))
        used = state_fields(node)
        if used != set(fields):
            bad.append(f"{what} names State fields {sorted(fields)} but its code uses {sorted(used)}")
        strange = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                   and n.id not in allowed and not n.id.startswith(("_a", "_t"))}  # the probe's arguments, temporaries
        if strange:
            bad.append(f"{what} names {sorted(strange)}, which are neither parameters nor helpers")
    if bad:
        raise RegistryError("the DSL registry (interpreter/dsl/names.py) is inconsistent: " + "; ".join(bad))
    return frozenset(attributes)


def state_attributes(cls) -> set[str]:
    """Every attribute name an instance of ``cls`` has: its ``__slots__`` (all classes of
    its MRO), annotated and dataclass fields, and class attributes (methods, properties)."""
    out = set(dir(cls))
    for k in cls.__mro__:
        slots = k.__dict__.get("__slots__", ())
        out.update([slots] if isinstance(slots, str) else slots)
        out.update(k.__dict__.get("__annotations__", {}))
    out.update(getattr(cls, "__dataclass_fields__", {}))
    return out


def reads_by_entry() -> list[tuple[str, str]]:
    """(entry, State attribute) for every attribute an entry reads or writes."""
    out = [(f"name '{e.name}'", f) for e in NAME_ENTRIES for f in e.reads]
    out += [(f"assignable '{e.name}'", f) for e in ASSIGNABLE_ENTRIES for f in e.writes]
    out += [(f"function '{e.name}'", f) for e in FUNCTION_ENTRIES for f in e.reads]
    out += [(f"function '{e.name}' of a side", "side") for e in FUNCTION_ENTRIES if e.build_side]
    out.append(("the variables", VARIABLE_FIELD))
    return out


def check_state(cls) -> None:
    """Every State attribute an entry reads or writes is an attribute of ``cls``.
    Raises RegistryError naming each entry and the attribute it misses."""
    have = state_attributes(cls)
    missing = [f"{what} reads State.{f}" for what, f in reads_by_entry() if f not in have]
    if missing:
        raise RegistryError(f"{cls.__name__} has no attribute the DSL registry needs: "
                            + "; ".join(missing)
                            + " (a renamed State field? update interpreter/dsl/names.py)")


ATTRIBUTES: frozenset[str] = check_registry()
"""Every attribute name compiled code may use (checked at import)."""


def _reads_me(e: Name) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "me" for n in ast.walk(e.build(_probe())))


READS_ME: frozenset[str] = frozenset(e.name for e in NAME_ENTRIES if not e.hook and _reads_me(e))
"""The names whose value is read from `me` (`me`, `my_side`, `hand`...): `none`, or
nothing, in a rule where `me` is `none` (a did-you-mean does not offer them there)."""
ME_IS_DECLARER = ("scoring.made", "scoring.effect", "match.next_dealer", "contract.target")
"""The rules whose `me` is the declarer: `none` in a variant without a contract."""
