"""The rules DSL: parse with the Lark grammar in ``grammar/rules.lark``, check names,
arities and types, and compile each rule to a plain Python function.

Every name, function and assignable name comes from one registry, ``taash.interpreter.names``
(type, the State fields it reads, how its code is made, its rulebook words, its line in
docs/authoring.md). The pipeline: Lark parse tree -> typed tree (``T``: each node with its
type and, where constant, its folded value) -> Python ``ast`` -> ``compile()`` -> ``exec``.

Safety (docs/architecture.md, "The pipeline of a variant"): no text is parsed as Python. The ``ast``
handed to ``compile`` is built node by node from the typed tree: every identifier in it
is a parameter, a helper, a local the compiler named (``_v0``, ``_t1``) or an attribute
of a registry entry; every constant an ``int``, ``bool`` or ``str`` the compiler made (a
string only as the name of one of the variant's declarations or answers, checked, and
only ever data). ``verify`` checks that on the module before it is compiled. The code runs
with empty builtins and only the helpers of this module in its globals. The language has
no loops, no recursion and no user-defined functions (a named expression of ``define:`` is
expanded where it is used, and one defined in terms of itself is refused); the module's
only loops are the comprehensions of the quantifiers ``any``/``all``/``those``, each over
a finite list (of seats or cards), so every rule terminates; a rule is at most ``MAX_RULE_CHARS`` long and nests at most
``MAX_DEPTH`` levels, its quantifiers at most ``MAX_QUANTIFIER_DEPTH`` one inside another
(so that its work is bounded by a power of the deck's size that stays small).

A compiled rule is a function ``f(s, me, x, y)``: ``s`` the engine ``State`` (read
through the fields the registry names; only effects write, to the assignable names),
``me`` the seat the rule is evaluated for, ``x``/``y`` the hook's extra values (the bid
number in ``auction.may_bid``, the card and "played after the exposure" in
``play.counts_as_trump``, ``made`` in ``scoring.effect``).
"""

from __future__ import annotations

import ast
import copy
import operator
from bisect import bisect_left
import difflib
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import names
from .errors import TaashError
from .loader import data_dir
from .names import BOOL, CARD, CARDS, INT, LIST, NONE, RANK, SEAT, SEATS, SET, SIDE, SUIT  # noqa: F401 (types)

GRAMMAR_PATH = data_dir("grammar") / "rules.lark"  # package data (loader.data_dir)
# the words that are never names: the ones the grammar's NAME excludes
KEYWORDS = tuple(re.search(r"^NAME: /\(\?!\(([a-z|]+)\)", GRAMMAR_PATH.read_text(encoding="utf-8"),
                           re.M).group(1).split("|"))

# `none` (-1) may stand for a value of these types
_NONEABLE = {SUIT, SEAT, SIDE, CARD}


class DSLError(TaashError, ValueError):
    """A rule that does not parse or does not check. ``line``/``column`` are 1-based and
    relative to the rule's text."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column
        self.errors = [self]  # every problem found in the rule, by position (this one first)
        self.unknown = None   # an unknown name: (name, {known name: type}), for a typed hint

    def reword(self, message: str) -> None:
        self.message = message
        self.args = (message,)


ERROR = "error"  # the type of a part that did not check: its problem is already reported


def _collecting(method):
    """Wrap ``Compiler.value``/``stmt`` so that, while a rule is checked, a problem found in
    a part is recorded (in ``Compiler.errors``) and the part becomes an ``error`` node, and
    checking goes on with the rest of the rule. A problem raised by a part whose own parts
    already had one is a consequence of that one and is not reported again."""
    @functools.wraps(method)
    def wrapper(self, node, *args):
        errors = self.errors
        if errors is None:
            return method(self, node, *args)
        n = len(errors)
        try:
            return method(self, node, *args)
        except DSLError as e:
            if len(errors) == n:
                errors.append(e)
                self.failed[id(node)] = e
            return T("error", ERROR, info=e)
    return wrapper


class DefineError(DSLError):
    """A problem inside a named expression of the file's ``define:`` map: ``define`` is
    its name, ``line``/``column`` relative to its text (not to the rule that used it)."""

    def __init__(self, message: str, line: int, column: int, define: str):
        super().__init__(message, line, column)
        self.define = define


# the element type of each set type, for the quantifiers any/all/those (issue 11)
_ELEMENT = {CARDS: CARD, SEATS: SEAT}
_QUANTIFIERS = {"any_": "any", "all_": "all", "those": "those"}


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The Lark LALR parser of ``grammar/rules.lark`` (built once)."""
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), start=["expr_rule", "effect_rule"], parser="lalr",
                propagate_positions=True, maybe_placeholders=False)


# The registry by name (interpreter/names.py): one entry per name, function, assignable name.
NAMES = names.NAMES            # name -> names.Name, in every rule
HOOK_NAMES = names.HOOK_NAMES  # hook -> {name: names.Name}, only in that hook's rules
# what a hook's rule may not read because it decides it: the trick's winner is found by
# asking `counts_as_trump`, so that rule cannot ask who wins (it would never end)
_DECIDED_BY = {"play.counts_as_trump": frozenset({"trick_winner", "winning_card", "higher", "beats"})}
LVALUES = names.ASSIGNABLE     # name -> names.Assignable, assignable in effects
FUNCTIONS = names.FUNCTIONS    # name -> names.Function

_NC = object()  # "not a constant"
MAX_RULE_CHARS = 4000  # limits that keep every rule small enough to check and compile
MAX_DEPTH = 40
MAX_WIDTH = 40
# any/all/those inside the condition of another, at most this deep: each goes over up to a
# deck of cards, so the work of a rule grows as the deck's size to this power (8 deep made
# one deal of 28 take 42 s); the shipped variants nest one inside another at most
MAX_QUANTIFIER_DEPTH = 2
MAX_EXPANSIONS = 200  # uses of named expressions (define:) in one rule, nested ones included


class T:
    """A node of the typed tree. ``op`` says what it is (``const``, ``name``, ``local``,
    ``call``, ``call_list``, ``neg``, ``not``, ``and``, ``or``, ``otherwise``, ``cond``,
    ``compare``, ``binop``, ``index``, ``cases``, ``strength`` (of a rank), ``var``,
    quantifiers ``any``, ``all``, ``those``; statements ``set``, ``assign``, ``assign_var``,
    ``if``),
    ``type`` its DSL type (None for a statement), ``const`` its folded value or ``_NC``,
    ``kids`` its typed children, ``info`` its registry entry, operator or variable."""
    __slots__ = ("op", "type", "const", "kids", "info")

    def __init__(self, op: str, type_: str | None, const=_NC, kids=(), info=None):
        self.op, self.type, self.const, self.kids, self.info = op, type_, const, list(kids), info

    def __repr__(self):
        c = "" if self.const is _NC else f"={self.const!r}"
        return f"T({self.op}:{self.type}{c}{' ' + repr(self.kids) if self.kids else ''})"


@dataclass
class Compiled:
    """One compiled rule: its ``ast.FunctionDef``, the function, and its constant value
    (``_NC`` unless the whole rule is a constant). ``source`` is the Python source, for
    inspection only (made from the ast; never compiled)."""
    node: ast.FunctionDef
    fn: object
    const: object = None

    @property
    def source(self) -> str:
        return ast.unparse(self.node) + "\n"


_EMPTY = {CARDS: lambda: ast.List([], ast.Load()), SEATS: lambda: ast.List([], ast.Load()), BOOL: lambda: names.const(False),
          INT: lambda: names.const(0)}
_AUG = {"+=": ast.Add, "-=": ast.Sub}
_NODES = (ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign,
          ast.AugAssign, ast.If, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Call,
          ast.keyword, ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.IfExp, ast.NamedExpr,
          ast.List, ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
          ast.GeneratorExp, ast.ListComp, ast.comprehension, ast.Slice)  # quantifiers over a finite list


class Compiler:
    """Compile the rules of one variant into one Python module.

    ``deck``, ``players``, ``tricks`` (per deal), ``min_bid``, ``max_bid`` are the
    variant's fixed values (folded into the code); ``declarations`` and ``answers`` the
    names ``declared()``/``answered()`` accept; ``options`` the option values by name;
    ``denominations`` the no-trump denominations' suit values; ``score_unit`` ``side`` or
    ``seat``; ``defines`` the file's named expressions (name -> text, expanded where
    used, checked at each use; ``check_defines()`` checks them all); ``variables`` the
    variant's own variables, (name, type) in the order of ``State.vars``. Rules are added
    with ``add(hook, text, kind)`` (parse tree -> typed tree
    ``T``: types checked, constants folded, ``consts`` set) and built at once with
    ``build()`` (typed tree -> Python ``ast`` made from registry entries -> ``compile()``).
    Set ``only_options`` to accept options only (a preset's condition).
    Raises RegistryError (taash.interpreter.names) if the registry reads a field State lacks.
    """

    def __init__(self, deck, players: int, tricks: int, min_bid: int, max_bid: int,
                 declarations=(), options=None, answers=(), denominations=None,
                 score_unit: str = "side", defines=None, variables=()):
        names.check_engine_state()  # every State field the registry reads exists
        self.deck = deck
        self.players, self.tricks = players, tricks
        self.min_bid, self.max_bid = min_bid, max_bid
        self.declarations = list(declarations)
        self.answers = list(answers)
        self.denominations = dict(denominations or {})
        self.only_options = False
        self.score_unit = SIDE if score_unit == "side" else SEAT
        self.extra = {}
        self.decided = frozenset()
        self.hooks = set()
        self.locals = {}
        self.unread = {}
        self.options = dict(options or {})
        # the variant's own variables: name -> (index in State.vars, type)
        self.variables = {name: (i, typ) for i, (name, typ) in enumerate(variables)}
        self.rules: list[tuple[str, T, bool, list]] = []   # (function name, typed tree, effect?, lets)
        self.names: list[str] = []
        self.consts: dict[str, object] = {}
        self.errors: list[DSLError] | None = None  # while add() checks a rule
        self.failed: dict[int, DSLError] = {}     # id of a parse node -> its problem
        self._tmp = 0
        self.defines = {k: (str(v).lower() if isinstance(v, bool) else str(v))
                        for k, v in (defines or {}).items()}
        self._define_trees: dict[str, Tree] = {}
        self._expanding: list[str] = []   # the defines being expanded, outermost first
        self._q = 0                       # quantifier variables made for this rule
        self._in_quantifiers = 0          # conditions of any/all/those being compiled, one inside another
        self._expansions = 0              # named expressions expanded for this rule
        self._no_walrus = 0               # > 0 while lowering a comprehension's iterable

    # -- parsing ------------------------------------------------------------------
    def parse(self, text: str, start: str) -> Tree:
        if len(text) > MAX_RULE_CHARS:
            raise DSLError(f"this rule is {len(text)} characters long; at most {MAX_RULE_CHARS}")
        errors: list[DSLError] = []
        repaired: list[DSLError] = []
        last_end = [None]

        def on_error(e: UnexpectedInput) -> bool:
            # Lark's LALR recovery drops the offending token and goes on; as in yacc, an
            # error less than three tokens after the last one is a consequence of it, not
            # reported. A '=' where a comparison may stand is read as '==' and checking
            # goes on.
            start_, end = _span(e)
            if last_end[0] is None or _tokens(text[last_end[0]:start_]) >= 3:
                tok = getattr(e, "token", None)
                if isinstance(e, UnexpectedEOF) or (tok is not None and tok.type == "$END"):
                    line, column = _end_of(text)    # (Lark places the end at the last token)
                else:
                    line, column = getattr(e, "line", 1) or 1, getattr(e, "column", 1) or 1
                err = DSLError(_parse_message(e, text), line, column)
                if isinstance(e, UnexpectedToken) and tok.type != "$END" and str(tok) == "=" \
                        and "COMP_OP" in (e.accepts or e.expected):
                    e.interactive_parser.feed_token(Token.new_borrow_pos("COMP_OP", "==", tok))
                    repaired.append(err)
                    return True
                errors.append(err)
            last_end[0] = max(end, last_end[0] or 0)
            return True
        try:
            tree = parser().parse(text, start=start, on_error=on_error)
        except UnexpectedInput as e:
            on_error(e)
        if errors or (repaired and self.errors is None):
            errors = sorted(errors + repaired, key=lambda e: (e.line, e.column))
            errors[0].errors = errors
            raise errors[0]
        if repaired:  # add() goes on checking the repaired rule
            self.errors.extend(repaired)
        # bound the nesting, so that checking and compiling never exhaust Python's stack
        stack = [(tree, 1)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise DSLError(f"this rule nests more than {MAX_DEPTH} levels deep: split it, "
                               "or name a part first (`part = ...` in an effect)", *_pos(node))
            kids = [c for c in node.children if isinstance(c, Tree)]
            if len(kids) > MAX_WIDTH:
                raise DSLError(f"more than {MAX_WIDTH} parts in one expression", *_pos(node))
            stack.extend((c, depth + 1) for c in kids)
        return tree

    # -- public -------------------------------------------------------------------
    def add(self, hook: str, text: str, kind: str, extra_names: str | tuple | None = None) -> str:
        """Parse and check one rule. ``kind`` is the expected type: ``condition``,
        ``number``, ``cards``, ``seat`` or ``effect``. Returns the function's name.
        Raises DSLError."""
        if not isinstance(text, str):
            text = str(text).lower() if isinstance(text, bool) else str(text)
        self.extra = dict(HOOK_NAMES.get(hook, {}))
        self.decided = _DECIDED_BY.get(hook, frozenset())
        self.hooks = {hook}  # the hook and its extra groups of names (an Assignable's `hook`)
        for extra in ((extra_names,) if isinstance(extra_names, str) else extra_names or ()):
            self.extra.update(HOOK_NAMES.get(extra, {}))
            self.hooks.add(extra)
        self.locals: dict[str, tuple[str, str, object]] = {}   # name -> (variable, type, constant)
        self.unread: dict[str, tuple[int, int]] = {}  # named values not read yet: name -> position
        self._q = self._expansions = 0
        fname = f"r{len(self.names)}"
        lets = []
        self.errors = errors = []
        self.failed = {}
        try:
            if kind == "effect":
                tree = self.parse(text, "effect_rule")
                typed = T("effect", None, kids=[self.stmt(st, 1) for st in tree.children])
                const = _NC
                for name, pos in self.unread.items():  # a misspelt variable, most likely
                    errors.append(DSLError(f"'{name}' is named here but never used"
                                           f"{_suggest(name, self.variables)}; to keep a value, declare a "
                                           "variable under `variables:`", *pos))
                    break
            else:
                tree = self.parse(text, "expr_rule")
                *let_defs, inner = tree.children
                for d in let_defs:
                    try:
                        lets.append(self.let(d))
                    except DSLError as e:
                        errors.append(e)
                typed = self.value(inner, kind)
                const = typed.const
                try:
                    self.expect(inner, typed.type, kind, "this rule")
                except DSLError as e:
                    errors.append(e)
        finally:
            self.errors = None
        if errors:  # every problem of the rule, by position
            errors.sort(key=lambda e: (e.line, e.column))
            errors[0].errors = errors
            raise errors[0]
        if kind != "effect":
            if kind == BOOL and const is False and getattr(inner, "data", None) != "false" \
                    and not self.only_options:
                raise DSLError("this rule can never be satisfied (it is always false)",
                               *_pos(inner))
            if kind == CARDS and const is not _NC and not const:
                raise DSLError("this rule never allows a card", *_pos(inner))
            if kind == CARDS and any(map(_outside_hand, [typed] + lets)):
                # cards to play are cards of the hand: keep them to it
                typed = T("call", CARDS, _NC, [typed, T("name", CARDS, _NC, info=NAMES["hand"])],
                          FUNCTIONS["intersection"])
        self.rules.append((fname, typed, kind == "effect", lets))
        self.names.append(fname)
        self.consts[fname] = const
        return fname

    def build(self) -> dict[str, Compiled]:
        """Make the ast of every rule, check it, compile and exec the module once (empty
        builtins; only the helpers in its globals). Returns {function name: Compiled}."""
        defs = []
        for i, (fname, typed, effect, lets) in enumerate(self.rules):
            self._tmp = 0
            body = (self.lower_stmts(typed.kids) + [ast.Return(ast.Constant(None))]
                    if effect else self.lower_stmts(lets) + [ast.Return(self.lower(typed))])
            fdef = ast.FunctionDef(fname, _ARGS(), body, [], None, None, **_TYPE_PARAMS)
            fdef.lineno = fdef.end_lineno = i + 1  # a traceback names the rule's line
            defs.append(fdef)
        module = ast.Module(defs, [])
        ast.fix_missing_locations(module)
        verify(module)
        g = self.helpers()
        exec(compile(module, "<taash rules>", "exec"), g)  # made from the checked tree only
        self._globals = g
        self._trees = {fname: (typed, lets) for fname, typed, _, lets in self.rules}  # for _inline
        return {n: Compiled(defs[i], g[n], self.consts[n]) for i, n in enumerate(self.names)}

    def build_play_legal(self, may_play: str, checks, expose=None, face_down: bool = False,
                         dedupe: bool = False):
        """The play phase's legal actions (docs/rules.md §0.4, §0.8, §28.7) as one function
        ``f(state) -> list[int]`` of the seat to act, with the rules written into it rather
        than called: the hot path of ``engine.Play``. Called after ``build()``.

        ``may_play``: the function name of ``play.may_play``; ``checks``: (action id,
        function name of the declaration's ``when``, suit code or None), in the legal
        list's order; ``expose``: (action id, function name of ``play.may_expose``) or
        None when the rule is never true; ``face_down``: the declarer's face-down trump
        card is his only card at the last trick; ``dedupe``: a deck with copies (one id
        per card). The list: a question's answers; else the declarations whose ``when``
        holds and are not made yet, then expose, then the cards ``may_play`` gives (the
        hand when it gives none). Each rule's expression is lowered again from its
        checked tree, its parameters ``x``/``y`` replaced by the constants it is asked
        with; the frame is the fixed template below (no variant text)."""
        inline = self._inline
        body = _template("""
if s.question is not None:
    return _answers(s)
me = s.to_act""")
        hand_at = len(body)  # `_hand = s.hands[me]` goes here, once the rest reads _hand
        if face_down:
            body += _template("""
if s.trump_card >= 0 and me == s.declarer and not s.hands[me]:
    return [s.trump_card]""")

        stmts, cards = inline(may_play, None)
        body += stmts + _template("_cards = CARDS or s.hands[me]", CARDS=cards)
        if dedupe:
            body += _template("_cards = _sorted_set(_cards)")
        tests = []      # (lets, guard text of this module, its holes) in the list's order
        for i, fname, suit in checks:
            stmts, when = inline(fname, suit)
            tests.append((stmts, "ID not in s.declared_keys and WHEN", {"ID": names.const(i), "WHEN": when}))
        if expose is not None:
            stmts, when = inline(expose[1], None)
            tests.append((stmts, "s.trump >= 0 and not s.trump_exposed and WHEN",
                          {"ID": names.const(expose[0]), "WHEN": when}))
        cards_out = "return _cards" if dedupe else "return _cards[:]"
        if len(tests) == 1:     # the common case: no list to build when the test fails
            stmts, guard, holes = tests[0]
            body += stmts + _template(f"if {guard}:\n    return [ID] + _cards", **holes)
        elif tests:
            body += _template("_out = []")
            for stmts, guard, holes in tests:
                body += stmts + _template(f"if {guard}:\n    _out += [ID]", **holes)
            cards_out = "_out += _cards\nreturn _out"
        body += _template(cards_out)
        # the seat's hand is read once (nothing here changes it): one local for every read
        body = [_HandOnce().visit(st) for st in body]
        body[hand_at:hand_at] = _template("_hand = s.hands[me]")
        # for build_play_step: no question is pending after a play (a declaration asks
        # it, an answer ends it), so its test is left out there
        assert isinstance(body[0], ast.If) and body[0].test.left.attr == "question"
        self._play_legal_body = body[1:]
        return self._template_function("play_legal", body, _PLAY_NAMES, _PLAY_ATTRIBUTES,
                                       _answers=_answers, _sorted_set=_sorted_set)

    def build_play_step(self, plain_play: bool, apply_id, card_played, end_trick, actions,
                        plain_trump: bool = False, tricks: int = 0, last_trick: int = 0,
                        after_trick=None) -> Compiled:
        """``State.apply_id`` for a variant, ``f(s, i)``, with the play of a card written
        out and the next seat's legal plays made at once by `build_play_legal`'s body (its
        ``return X`` become ``s._legal = X``): the hot path of playouts and search, one
        call a play where the engine's method takes three (apply, the phase's legal, the
        legal list). Called after `build_play_legal`. Anything but a legal play whose legal
        list is made (another phase, an action not legal, no list yet) goes to the
        engine's ``apply_id`` (the same method on the State). ``plain_play``:
        `Variant.plain_play` (else ``card_played`` does what a play does besides leaving
        the hand). ``actions``: the variant's Actions by id. The end of a trick is
        ``end_trick(s)`` (`engine.Play.end_trick`), or with ``plain_trump``
        (`Variant.plain_trump`: the deck's table ranks the cards, docs/rules.md §0.4) written
        out as it does: ``tricks`` a deal, ``last_trick`` points for the last, the
        ``play.after_trick`` rule ``after_trick`` (or None); the next leader's legal plays
        are then made at once too. The template is this module's text; the rules' part
        is the checked body."""
        legal = []
        for st in self._play_legal_body:
            st = _LegalInto().visit(copy.deepcopy(st))
            legal += st if isinstance(st, list) else [st]
        remove = "s.hands[seat].remove(i)" if plain_play else "_card_played(s, seat, i)"
        body = _template(f"""
_legal = s._legal
if _legal is None or i not in _legal or i >= SIZE:
    return _apply_id(s, i)
seat = s.to_act
s._legal_actions = None
s.history.append((seat, _ACTIONS[i]))
{remove}
_trick = s.trick_cards
if not _trick:
    s.led = _SUIT_OF[i]
_trick.append(i)
s.trick_seats.append(seat)
if len(_trick) < s._active:
    s.to_act = s._next[seat]
    LEGAL""", SIZE=names.const(len(self.deck.suit_of)))
        body[-1].body[-1:] = legal
        helpers = {}
        if not plain_trump:
            body += _template("s._legal = None\n_end_trick(s)")
        else:   # engine.Play.end_trick with the deck's table
            body += _template("""
_seats = s.trick_seats
_keys = _list(_map(_TRICK_KEYS[s.trump][s.led].__getitem__, _trick))
winner = _seats[_keys.index(_max(_keys))]
_points = _sum(_map(_POINT_OF.__getitem__, _trick))
_done = s.tricks_done = s.tricks_done + 1
if _done == TRICKS:
    _points += LAST
_side = s.side[winner]
s.side_points[_side] += _points
s.seat_points[winner] += _points
s.side_tricks[_side] += 1
s.trick_sides.append(_side)
s.tricks.append((_seats[0], _tuple(_trick), winner))""", TRICKS=names.const(tricks), LAST=names.const(last_trick))
            if after_trick is not None:
                body += _template("_after_trick(s, winner, winner, _seats[0])")
            body += _template("""
s.trick_cards = []
s.trick_seats = []
s.trick_after = []
s.led = -1
if _done == TRICKS:
    s._legal = None
    s._score()
    return
s.to_act = winner
LEGAL""", TRICKS=names.const(tricks))
            body[-1:] = copy.deepcopy(legal)
            helpers = dict(_list=list, _map=map, _max=max, _sum=sum, _tuple=tuple, _after_trick=after_trick,
                           _TRICK_KEYS=self.deck.trick_keys, _POINT_OF=self.deck.point_of)
        return self._template_function("apply_id", body, _PLAY_NAMES | _STEP_NAMES,
                                       _PLAY_ATTRIBUTES | _STEP_ATTRIBUTES, params=("s", "i"),
                                       _answers=_answers, _sorted_set=_sorted_set, _apply_id=apply_id,
                                       _card_played=card_played, _end_trick=end_trick, _ACTIONS=tuple(actions),
                                       **helpers)

    def build_auction_legal(self, may_pass: str, may_bid: str, may_equal, may_double, may_redouble,
                            numbers, pass_id: int, double_id: int, redouble_id: int) -> Compiled:
        """The auction's legal calls (docs/rules.md §0.5, §0.10; `engine.Auction`) as one function
        ``f(state) -> list[int]`` of the seat to act, the rules written into it: the hot
        path of the auction, as `build_play_legal` is of play. Called after ``build()``.

        ``may_pass``, ``may_bid``: function names of the rules; ``may_equal``,
        ``may_double``, ``may_redouble``: function names, or None for a rule the file does
        not have or that is always false; ``numbers``: (bid number, [action ids of its
        bids]) in rising order; ``pass_id``, ``double_id``, ``redouble_id``: the calls'
        action ids. The list: pass when ``may_pass``
        holds; each number above the high bid (or equal to it, when ``may_equal`` holds
        for a seat not holding it and the last bid was not itself equal) for which
        ``may_bid`` holds, with ``number`` that constant, all of its bids; double,
        redouble; pass alone when nothing else is. One test per number, unrolled (the
        numbers are the file's, bounded); when ``may_bid`` says no more than "above the
        high bid" (`_above_high`) and no bid may equal it, one table lookup instead."""
        inline, const = self._inline, names.const
        stmts, when = inline(may_pass, None)
        body = _template("me = s.to_act") + stmts + _template("_out = [PASS] if WHEN else []",
                                                               PASS=const(pass_id), WHEN=when)
        body += _template("_high = s.bid")
        if may_equal is not None:
            body += self._guarded("s.high_bidder >= 0 and s.high_bidder != me and not s.equal_bid",
                                  inline(may_equal, None), "_high -= 1")
        bids = [(number, ids, inline(may_bid, number)) for number, ids in numbers]
        extra = {}
        if may_equal is None and all(_above_high(*rule, number) for number, _, rule in bids):
            # the rule says only "above the high bid", as the guard does: the bids above
            # each high bid are one list, looked up
            above = [tuple(i for number, ids, _ in bids if number > h for i in ids)
                     for h in range(max((number for number, _ in numbers), default=0) + 1)]
            body += _template("_out += _ABOVE[_high] if _high < TOP else []", TOP=const(len(above)))
            extra["_ABOVE"] = tuple(above)
        else:
            for number, ids, rule in bids:
                body += self._guarded("_high < NUMBER", rule, "_out += IDS", NUMBER=const(number),
                                      IDS=ast.List([const(i) for i in ids], ast.Load()))
        if may_double is not None:
            body += self._guarded("s.doubled == 0 and s.high_bidder >= 0", inline(may_double, None),
                                  "_out += [ID]", ID=const(double_id))
        if may_redouble is not None:
            body += self._guarded("s.doubled == 1", inline(may_redouble, None), "_out += [ID]",
                                  ID=const(redouble_id))
        body += _template("return _out or [PASS]", PASS=const(pass_id))
        return self._template_function("auction_legal", body, _AUCTION_NAMES | set(extra), _AUCTION_ATTRIBUTES,
                                       **extra)

    @staticmethod
    def _guarded(guard: str, rule, then: str, **holes) -> list[ast.stmt]:
        """``if guard:`` the rule's lets, then ``if`` its value ``: then``; ``rule``: an
        inlined rule, (lets, value) as `_inline` gives it (the lets asked only when the
        guard holds). ``guard``, ``then``: template text of this module, never a
        variant's."""
        stmts, when = rule
        test = _template(f"if {guard}:\n    STMTS\n    if WHEN:\n        {then}", WHEN=when, **holes)
        test[0].body[:1] = stmts
        return test

    def _inline(self, fname: str, x) -> tuple[list[ast.stmt], ast.expr]:
        """Rule ``fname`` lowered again from its checked tree: its lets' statements and its
        value, ``x``/``y`` replaced by the constants it is asked with (`_Params`)."""
        typed, lets = self._trees[fname]
        params = _Params(x, self._globals["_CARD"])
        return [params.visit(st) for st in self.lower_stmts(lets)], params.visit(self.lower(typed))

    def _template_function(self, name: str, body, more_names, more_attributes, params=("s",),
                           **helpers) -> Compiled:
        """``def name(s): body`` (or the names ``params``), verified (the template's names
        and State fields besides the registry's) and compiled with the rules' globals and
        ``helpers``."""
        fdef = ast.FunctionDef(name, ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
                               body, [], None, None, **_TYPE_PARAMS)
        fdef.lineno = fdef.end_lineno = 1
        module = ast.Module([fdef], [])
        ast.fix_missing_locations(module)
        verify(module, more_names, more_attributes, _STEP_NODES if name == "apply_id" else ())
        g = dict(self._globals, **helpers)
        exec(compile(module, f"<taash {name}>", "exec"), g)  # the template and the checked trees only
        return Compiled(fdef, g[name])

    def helpers(self) -> dict:
        """The globals of the compiled module: names.HELPERS and nothing else."""
        so = self.deck.suit_of

        def _not_in_suit(cards, suit):
            return [c for c in cards if so[c] != suit]

        def _only(cards, card):
            return [c for c in cards if c == card]

        g = {"__builtins__": {}, "len": len, "abs": abs, "max": max, "min": min,
             "_CARD": [row + [-1] for row in self.deck.card_table],
             "_SUIT_OF": self.deck.suit_of + [-1], "_RANK_OF": self.deck.rank_of + [-1],
             "_at": _at, "_played": _played,
             "_not_in_suit": _not_in_suit, "_only": _only, "_bisect": bisect_left}
        # in_suit's bounds by suit code; none (-1) and the no-trump codes (-2, ...) at the
        # end, read by negative index: 0..0, no card (names._in_suit_code)
        nranks, pad = len(self.deck.ranks), [0] * (1 - min(self.denominations.values(), default=-1))
        lo = g["_SUIT_LO"] = [i * nranks for i in range(len(self.deck.suits))] + pad
        hi = g["_SUIT_HI"] = [(i + 1) * nranks for i in range(len(self.deck.suits))] + pad
        g["_in_suit"] = _in_suit_of(lo, hi)
        g.update(self.seat_and_set_helpers())
        assert set(g) - {"__builtins__"} == set(names.HELPERS)
        return g

    def seat_and_set_helpers(self) -> dict:
        """The helpers of seats and sets (issue 11). Sets are sorted lists (card ids, seat
        numbers); each helper returns a new sorted list. A seat -1 (none) has no partner,
        partners or opponents."""
        n, cs, nr = self.players, self.deck.strength, len(self.deck.ranks)
        rs = [nr - r for r in range(nr)] + [0]   # a rank's strength; none (-1) is 0

        def _partner_of(side, seat):
            if seat < 0:
                return -1
            for k in range(1, n):
                t = (seat + k) % n
                if side[t] == side[seat]:
                    return t
            return -1

        def _partners(side, seat):
            return [t for t in range(n) if t != seat and side[t] == side[seat]] if seat >= 0 else []

        def _opponents(side, seat):
            return [t for t in range(n) if side[t] != side[seat]] if seat >= 0 else []

        def _above(cards, rank):
            return [c for c in cards if cs[c] > rs[rank]]

        def _below(cards, rank):
            return [c for c in cards if cs[c] < rs[rank]]

        def _union(a, b):
            return sorted(a + [c for c in b if c not in a])

        def _difference(a, b):
            return [c for c in a if c not in b]

        def _intersection(a, b):
            return [c for c in a if c in b]

        return {"any": any, "all": all, "sorted": sorted, "_SEATS": list(range(n)),
                "_NEXT": [(i + 1) % n for i in range(n)] + [-1],
                "_PREVIOUS": [(i - 1) % n for i in range(n)] + [-1],
                "_partner_of": _partner_of, "_partners": _partners, "_opponents": _opponents,
                "_above": _above, "_below": _below, "_union": _union,
                "_difference": _difference, "_intersection": _intersection, "_STRENGTH": rs}

    # -- checking: parse tree -> typed tree --------------------------------------------
    def expect(self, node, got: str, want: str, what: str):
        if got == ERROR:  # already reported; a misspelt name gets a hint of the wanted type
            e = self.failed.get(id(node))
            if e is not None and e.unknown is not None:
                _typed_hint(e, want)
            return
        if got == want or (got == NONE and want in _NONEABLE):
            return
        raise DSLError(f"{what} should be {_a(want)}, not {_a(got)}", *_pos(node))

    @_collecting
    def stmt(self, node: Tree, depth: int) -> T:
        if node.data == "assign":
            lv, op, expr = node.children
            name_tok = lv.children[0]
            name = str(name_tok)
            if name in self.variables:
                return self.assign_variable(lv, str(op), expr, name)
            if name not in LVALUES:
                if len(lv.children) != 1 or str(op) != "=":
                    allowed = ", ".join(sorted(LVALUES) + sorted(self.variables))
                    raise DSLError(f"cannot assign to '{name}' (assignable: {allowed}; declare a "
                                   f"variable under `variables:`, or write `{name} = ...` to name "
                                   "a value)", *_pos(lv))
                if name in NAMES or name in self.extra or name in FUNCTIONS or name in self.options:
                    raise DSLError(f"'{name}' is a name of the engine; choose another name", *_pos(lv))
                if depth != 1:
                    raise DSLError(f"name '{name}' at the top of the effect, not inside 'when'",
                                   *_pos(lv))
                val = self.value(expr)
                etyp = val.type
                if etyp in (CARDS, SEATS, LIST, NONE):
                    raise DSLError("a named value must be a number, condition, seat, side, suit or card",
                                   *_pos(expr))
                var = self.locals[name][0] if name in self.locals else f"_v{len(self.locals)}"
                if name in self.locals and self.locals[name][1] != etyp:
                    raise DSLError(f"'{name}' was {_a(self.locals[name][1])}, not {_a(etyp)}", *_pos(expr))
                if name not in self.locals:
                    self.unread[name] = _pos(lv)
                self.locals[name] = (var, etyp, _NC)
                return T("set", None, kids=[val], info=var)
            entry = LVALUES[name]
            if entry.hook and entry.hook not in self.hooks:
                raise DSLError(f"'{name}' can be assigned only {entry.hook_words}", *_pos(lv))
            if entry.index:
                if len(lv.children) != 2:
                    raise DSLError(f"'{name}' needs an index: {name}[side] or {name}[seat]", *_pos(lv))
                idx = self.value(lv.children[1])
                score = entry.index == "score"
                want = self.score_unit if score else entry.index
                if idx.type != want:
                    raise DSLError(f"index of '{name}' should be {_a(want)}, not {_a(idx.type)}"
                                   + (f" (this match keeps scores per {want})" if score else ""),
                                   *_pos(lv.children[1]))
            elif len(lv.children) != 1:
                raise DSLError(f"'{name}' cannot be indexed", *_pos(lv))
            else:
                idx = None
            val = self.value(expr)
            self.expect(expr, val.type, entry.type, f"the value assigned to '{name}'")
            return T("assign", None, kids=[idx, val], info=(entry, str(op)))
        if node.data in ("when_stmt", "when_else"):
            cond = self.value(node.children[0])
            self.expect(node.children[0], cond.type, BOOL, "the condition after 'when'")
            body = self.stmt(node.children[1], depth + 1)
            orelse = self.stmt(node.children[2], depth + 1) if node.data == "when_else" else None
            return T("if", None, kids=[cond, body, orelse])
        raise DSLError(f"unexpected statement {node.data}", *_pos(node))

    def assign_variable(self, lv, op: str, expr, name: str) -> T:
        """``NAME = v`` (``+=``, ``-=`` for a number) of a variable of the variant."""
        index, typ = self.variables[name]
        if len(lv.children) != 1:
            raise DSLError(f"'{name}' is a variable of one {typ}: it cannot be indexed", *_pos(lv))
        if op != "=" and typ != INT:
            raise DSLError(f"'{op}' changes a number; '{name}' is {_a(typ)}: write `{name} = ...`",
                           *_pos(lv))
        val = self.value(expr)
        self.expect(expr, val.type, typ, f"the value assigned to '{name}'")
        return T("assign_var", None, kids=[val], info=(index, op, typ))

    # -- issue 11: named parts (let, define) and quantifiers -----------------------------
    def fresh_name(self, tok, what: str) -> str:
        """A name the author introduces (``let``, a quantifier's variable): not a name of
        the engine, an option, a named expression or a name already in use here."""
        name = str(tok)
        if name in NAMES or name in FUNCTIONS or any(name in h for h in HOOK_NAMES.values()):
            raise DSLError(f"'{name}' is a name of the engine; choose another name for {what}",
                           *_pos(tok))
        if name in self.options or name in self.defines or name in self.variables:
            already = ("an option" if name in self.options else "defined" if name in self.defines
                       else "a variable of the file")
            raise DSLError(f"'{name}' is already {already}; choose another name for {what}", *_pos(tok))
        if name in self.locals:
            raise DSLError(f"'{name}' is already named in this rule; choose another name for {what}",
                           *_pos(tok))
        return name

    def let(self, node: Tree) -> T:
        """``let NAME = EXPR``: a name for a value, for the rest of the rule (computed once,
        before the rule's value). Returns the statement."""
        tok, expr = node.children
        name = self.fresh_name(tok, "a `let`")
        val = self.value(expr)
        if val.type == NONE:
            raise DSLError(f"'{name}' would always be none: name a value of some type", *_pos(expr))
        var = f"_v{len(self.locals)}"
        self.locals[name] = (var, val.type, val.const)
        return T("let", None, kids=[val], info=var)

    def define_tree(self, name: str) -> Tree:
        """The parse tree of named expression ``name`` (parsed once). Raises DefineError,
        with every problem of its text in ``errors``."""
        if name not in self._define_trees:
            try:
                tree = self.parse(self.defines[name], "expr_rule")
            except DSLError as e:
                found = [DefineError(x.message, x.line, x.column, name) for x in e.errors]
                found[0].errors = found
                raise found[0] from None
            if len(tree.children) > 1:
                raise DefineError("a named expression cannot hold `let`: define each part by name",
                                  *_pos(tree.children[0]), name)
            self._define_trees[name] = tree.children[0]
        return self._define_trees[name]

    def define(self, node, name: str) -> T:
        """A name of the file's ``define:`` map, expanded where it is used: its typed tree,
        checked in the rule's context (its hook's names), seeing no name of the rule's own
        (``let``, quantifier variables). Recursion is refused at the use that closes the
        cycle. Raises DefineError for a problem in its text."""
        if name in self._expanding:
            cycle = self._expanding[self._expanding.index(name):] + [name]
            raise DSLError(f"'{name}' is defined in terms of itself ({' -> '.join(cycle)}); "
                           "named expressions cannot be recursive", *_pos(node))
        self._expansions += 1
        if self._expansions > MAX_EXPANSIONS:
            raise DSLError(f"the named expressions used here expand to more than {MAX_EXPANSIONS} "
                           "parts: name a part once with `let`", *_pos(node))
        saved, collecting = self.locals, self.errors
        self.errors = None  # a problem inside is the named expression's: raised, located there
        try:
            tree = self.define_tree(name)
            self.locals = {}
            self._expanding.append(name)
            try:
                return self.value(tree)
            except DefineError:
                raise
            except DSLError as e:
                raise DefineError(e.message, e.line, e.column, name) from None
            finally:
                self._expanding.pop()
        finally:
            self.locals, self.errors = saved, collecting

    def check_defines(self) -> dict[str, str]:
        """Check every named expression on its own (with the names of every hook), so that
        one no rule uses is checked too, each to its end as a rule is. Returns {name: type}.
        Raises DefineError: the first problem, with every problem in ``errors`` (by named
        expression, then by position). A problem inside another named expression it uses is
        kept only if that one is checked later, so that each is reported once (and a cycle
        once, where it closes)."""
        self.extra = {k: v for h in HOOK_NAMES.values() for k, v in h.items()}
        out, problems, checked = {}, [], set()
        for name in self.defines:
            self.locals, self._expansions, self.failed = {}, 0, {}
            self.errors = errors = []
            self._expanding.append(name)
            try:
                out[name] = self.value(self.define_tree(name)).type
            except DSLError as e:
                errors.extend(e.errors)
            finally:
                self._expanding.pop()
                self.errors = None
            for e in sorted(errors, key=lambda e: (e.line, e.column)):
                if not isinstance(e, DefineError):  # in this one's own text
                    problems.append(DefineError(e.message, e.line, e.column, name))
                elif e.define not in checked:      # in one it uses, not checked yet
                    problems.append(e)
            checked.add(name)
        if problems:
            problems[0].errors = problems
            raise problems[0]
        return out

    def strength(self, t: T) -> T:
        """A rank as its strength in the deck's order (a number, higher is stronger; 0
        for none), so that ranks compare with ``<``, ``>``."""
        nr = len(self.deck.ranks)
        const = _NC if t.const is _NC else (nr - t.const if t.const >= 0 else 0)
        return T("strength", INT, const, [t])

    def quantifier(self, node: Tree) -> T:
        """``any(x in SET: cond)``, ``all(x in SET: cond)``, ``those(x in SET: cond)`` over a
        set of cards or seats (finite, so the rule terminates)."""
        tok, set_node, body_node = node.children
        op = _QUANTIFIERS[node.data]
        name = self.fresh_name(tok, "the variable of " + op)
        tset = self.value(set_node)
        if tset.type not in _ELEMENT:
            raise DSLError(f"{op}(...) goes over cards or seats, not {_a(tset.type)}", *_pos(set_node))
        if self._in_quantifiers >= MAX_QUANTIFIER_DEPTH:
            raise DSLError(f"{op}(...) inside {MAX_QUANTIFIER_DEPTH} others: any, all and those nest at most "
                           f"{MAX_QUANTIFIER_DEPTH} deep (each goes over up to a deck of cards, and each level "
                           "multiplies the work of the rule)", *_pos(node))
        self._q += 1
        qvar = f"_q{self._q}"
        self.locals[name] = (qvar, _ELEMENT[tset.type], _NC)
        self._in_quantifiers += 1
        try:
            body = self.value(body_node)
        finally:
            del self.locals[name]
            self._in_quantifiers -= 1
        self.expect(body_node, body.type, BOOL, f"the condition of {op}(...)")
        return T(op, tset.type if op == "those" else BOOL, _NC, [tset, body], qvar)

    @_collecting
    def value(self, node, want: str | None = None) -> T:
        """The typed tree of an expression node; ``want``, the rule's type, is passed to
        its cases. Raises DSLError."""
        if isinstance(node, Token):
            raise DSLError(f"unexpected '{node}'", node.line, node.column)
        d = node.data
        ch = node.children
        if d == "cases":
            return self.cases(node, want)
        if d == "number":
            return T("const", INT, int(ch[0]))
        if d == "true":
            return T("const", BOOL, True)
        if d == "false":
            return T("const", BOOL, False)
        if d == "none":
            return T("const", NONE, -1)
        if d == "string":
            return self.literal(node, str(ch[0])[1:-1])
        if d == "name":
            return self.name(node, str(ch[0]))
        if d == "call":
            return self.call(node)
        if d in _QUANTIFIERS:
            return self.quantifier(node)
        if d == "neg":
            a = self.value(ch[0])
            self.expect(ch[0], a.type, INT, "the operand of '-'")
            return T("neg", INT, -a.const if a.const is not _NC else _NC, [a])
        if d == "not_":
            a = self.value(ch[0])
            self.expect(ch[0], a.type, BOOL, "the operand of 'not'")
            return T("not", BOOL, (not a.const) if a.const is not _NC else _NC, [a])
        if d in ("and_", "or_"):
            parts = [self.value(c) for c in ch]
            for c, p in zip(ch, parts):
                self.expect(c, p.type, BOOL, f"each side of '{d[:-1]}'")
            consts = [p.const for p in parts]
            const = _NC
            if all(c is not _NC for c in consts):
                const = all(consts) if d == "and_" else any(consts)
            elif d == "and_" and any(c is False for c in consts):
                const = False
            elif d == "or_" and any(c is True for c in consts):
                const = True
            return T(d[:-1], BOOL, const, parts)
        if d == "otherwise":
            parts = [self.value(c) for c in ch]
            for c, p in zip(ch, parts):
                self.expect(c, p.type, CARDS, "each side of 'otherwise'")
            return T("otherwise", CARDS, _NC, parts)
        if d == "cond":
            a, c, b = ch
            ta, tc, tb = self.value(a), self.value(c), self.value(b)
            at, bt = ta.type, tb.type
            self.expect(c, tc.type, BOOL, "the condition after 'if'")
            typ = at if at != NONE else bt
            if at != bt and not (NONE in (at, bt) and typ in _NONEABLE | {NONE}):
                raise DSLError(f"both branches of 'if ... else' should have one type, "
                               f"not {at} and {bt}", *_pos(node))
            const = ta.const if tc.const is True else tb.const if tc.const is False else _NC
            return T("cond", typ, const, [tc, ta, tb])
        if d == "compare":
            a, op, b = ch
            ta, tb = self.value(a), self.value(b)
            at, bt = ta.type, tb.type
            op = str(op)
            if ERROR in (at, bt):  # a misspelt name on one side: hint a name of the other's type
                self.expect(a, at, bt, "")
                self.expect(b, bt, at, "")
                return T("error", ERROR)
            if op in ("==", "!="):
                if not (at == bt or NONE in (at, bt) and (at in _NONEABLE or bt in _NONEABLE)):
                    raise DSLError(f"cannot compare {_a(at)} with {_a(bt)}", *_pos(node))
                if at in (CARDS, LIST):
                    raise DSLError(f"cannot compare {at} with '{op}'", *_pos(node))
            elif at == bt == RANK:   # by strength: none ranks below every rank
                ta, tb = self.strength(ta), self.strength(tb)
            else:
                if at != INT or bt != INT:
                    raise DSLError(f"'{op}' compares numbers (or two ranks), not {_a(at)} and {_a(bt)}",
                                   *_pos(node))
            const = _NC
            if ta.const is not _NC and tb.const is not _NC:
                const = _COMPARE[op](ta.const, tb.const)
            return T("compare", BOOL, const, [ta, tb], op)
        if d in ("member", "not_member"):
            a, b = ch
            ta, tb = self.value(a), self.value(b)
            at, bt = ta.type, tb.type
            if not ((at == CARD and bt == CARDS) or (at == INT and bt == LIST)
                    or (at == SEAT and bt == SEATS)):
                raise DSLError(f"'in' needs a card and cards (a seat and seats, a number and a "
                               f"list), not {_a(at)} and {_a(bt)}", *_pos(node))
            return T("compare", BOOL, _NC, [ta, tb], "in" if d == "member" else "not in")
        if d == "binop":
            a, op, b = ch
            ta, tb = self.value(a), self.value(b)
            op = str(op)
            self.expect(a, ta.type, INT, f"the left side of '{op}'")
            self.expect(b, tb.type, INT, f"the right side of '{op}'")
            if op in ("//", "%") and tb.const == 0:
                raise DSLError("division by zero", *_pos(b))
            const = _NC
            if ta.const is not _NC and tb.const is not _NC:
                const = _ARITH[op](ta.const, tb.const)
            return T("binop", INT, const, [ta, tb], op)
        if d == "index":
            a, i = ch
            ta, ti = self.value(a), self.value(i)
            if ta.type != LIST:
                raise DSLError(f"only a list can be indexed, not {_a(ta.type)}", *_pos(node))
            if ti.type != self.score_unit:
                raise DSLError(f"an index of the score should be a {self.score_unit}, not {_a(ti.type)} "
                               f"(this match keeps scores per {self.score_unit})", *_pos(i))
            return T("index", INT, _NC, [ta, ti])
        raise DSLError(f"unsupported construct '{d}'", *_pos(node))

    def cases(self, node, want: str | None = None) -> T:
        """``when C: V ... else: V``. ``want`` is the rule's type when it is known: each
        case's value is checked against it, and each case of another type is a problem of
        its own. Without it (a named expression), the cases must agree with each other."""
        kids = []
        default = None
        typ = want
        for c in node.children:
            if c.data == "case":
                tc = self.value(c.children[0])
                try:
                    self.expect(c.children[0], tc.type, BOOL, "the condition after 'when'")
                except DSLError as e:
                    self.report(e)
                if tc.const is False:
                    self.report(DSLError("this case can never apply (its condition is always false)",
                                         *_pos(c.children[0])))
                vnode = c.children[1]
            else:
                vnode = c.children[0]
            tv = self.value(vnode)
            vt = tv.type
            if want is not None:
                if vt == ERROR or vt == want or (vt == NONE and want in _NONEABLE):
                    self.expect(vnode, vt, want, "")  # a misspelt name: a hint of the type
                else:
                    self.report(DSLError(f"every case should give {_a(want)}, not {_a(vt)}", *_pos(vnode)))
            elif vt == ERROR:
                pass
            elif typ is None or (typ == NONE and vt in _NONEABLE):
                typ = vt
            elif vt != typ and not (vt == NONE and typ in _NONEABLE):
                self.report(DSLError(f"every case should give one type: an earlier case gives {_a(typ)}, "
                                     f"this one {_a(vt)}", *_pos(vnode)))
            if c.data == "case":
                kids += [tc, tv]
            else:
                default = tv
        return T("cases", typ, _NC, kids, default)

    def report(self, e: DSLError) -> None:
        """A problem after which checking can go on: recorded while a rule is checked to its
        end, else raised."""
        if self.errors is None:
            raise e
        self.errors.append(e)

    def literal(self, node, text: str) -> T:
        deck = self.deck
        if text in deck.suit_index:
            return T("const", SUIT, deck.suit_index[text])
        if text in deck.rank_index:
            return T("const", RANK, deck.rank_index[text])
        if text in deck.card_index:
            return T("const", CARD, deck.card_index[text])
        if text in self.denominations:
            return T("const", SUIT, self.denominations[text])
        if text in self.declarations:
            return T("const", names.DECLARATION, self.declarations[self.declarations.index(text)])
        if text in self.answers:
            return T("const", names.ANSWER, self.answers[self.answers.index(text)])
        raise DSLError(f"\"{text}\" is not a suit, rank or card of this deck"
                       f" (suits {' '.join(deck.suits)}, ranks {' '.join(deck.ranks)})", *_pos(node))

    def option(self, name: str) -> T:
        v = self.options[name]
        return T("const", BOOL, v) if isinstance(v, bool) else T("const", INT, int(v))

    def name(self, node, name: str) -> T:
        if self.only_options:
            if name in self.options:
                return self.option(name)
            raise DSLError(f"'{name}' is not an option; a preset condition may use only options "
                           f"({', '.join(self.options) or 'none declared'})", *_pos(node))
        if name in self.locals:
            var, typ, const = self.locals[name]
            self.unread.pop(name, None)
            if const is not _NC:
                return T("const", typ, const)
            return T("local", typ, _NC, info=var)
        if name in self.variables:
            index, typ = self.variables[name]
            return T("var", typ, _NC, info=index)
        if name in self.defines:
            return self.define(node, name)
        entry = self.extra.get(name) or NAMES.get(name)
        if entry is not None:
            self.not_decided(node, name, entry.reads)
            if entry.const is not None:
                return T("const", entry.type, entry.const(self))
            return T("name", entry.type, _NC, info=entry)
        if name in self.options:
            return self.option(name)
        for hook, hook_names in HOOK_NAMES.items():
            if name in hook_names:
                raise DSLError(f"'{name}' is only available in {hook}", *_pos(node))
        if name in FUNCTIONS:
            raise DSLError(f"'{name}' is a function: write {name}(...)", *_pos(node))
        known = {n: e.type for n, e in NAMES.items()}
        known.update({n: e.type for n, e in self.extra.items()})
        known.update({n: BOOL if isinstance(v, bool) else INT for n, v in self.options.items()})
        known.update({n: None for n in self.defines})  # type known only once expanded
        known.update({n: t for n, (_, t, *_) in self.locals.items()})
        e = DSLError(f"unknown name '{name}'{_suggest(name, known)}", *_pos(node))
        e.unknown = (name, known)
        raise e

    def not_decided(self, node, name: str, reads) -> None:
        """Raise DSLError if ``name`` reads what this rule decides (``_DECIDED_BY``)."""
        if self.decided.intersection(reads):
            raise DSLError(f"'{name}' cannot be used here: who wins the trick depends on this rule",
                           *_pos(node))

    def call(self, node) -> T:
        fname = str(node.children[0])
        args = node.children[1:]
        if fname not in FUNCTIONS:
            raise DSLError(f"unknown function '{fname}'{_suggest(fname, FUNCTIONS)}", *_pos(node))
        f = FUNCTIONS[fname]
        self.not_decided(node, fname, f.reads)
        types, result = f.args, f.type
        named = (names.DECLARATION,), (names.ANSWER,)
        if types in named and len(args) == 1 and getattr(args[0], "data", "") == "string":
            text = str(args[0].children[0])[1:-1]
            known = self.declarations if types == named[0] else self.answers
            if text not in known:
                what = "declaration" if types == named[0] else "question and answer"
                raise DSLError(f"no {what} named \"{text}\" (this variant's: "
                               f"{', '.join(known) or 'none'}){_suggest(text, known)}", *_pos(args[0]))
            return T("call", result, _NC, [T("const", types[0], known[known.index(text)])], f)
        vals = [self.value(a) for a in args]
        consts = [v.const for v in vals]
        if types == (names.INTS,):
            if not vals:
                raise DSLError(f"{fname}() needs at least one argument", *_pos(node))
            if len(vals) == 1 and vals[0].type == LIST:
                return T("call_list", INT, _NC, vals, f)
            if len(vals) == 1:
                self.expect(args[0], vals[0].type, INT, f"the argument of {fname}()")
                return vals[0]
            for a, v in zip(args, vals):
                self.expect(a, v.type, INT, f"each argument of {fname}()")
        else:
            if len(vals) != len(types):
                raise DSLError(f"{fname}() takes {len(types)} argument{'s' if len(types) != 1 else ''}"
                               f" ({', '.join(types)}), not {len(vals)}", *_pos(node))
            set_type = None
            for i, (a, v, want) in enumerate(zip(args, vals, types)):
                if want == SET:
                    if v.type not in _ELEMENT or set_type not in (None, v.type):
                        raise DSLError(f"argument {i + 1} of {fname}() should be "
                                       f"{set_type or 'cards or seats'}, not {_a(v.type)}", *_pos(a))
                    set_type = v.type
                    continue
                if want == names.ANSWER:
                    if v.const not in self.answers:
                        raise DSLError(f"{fname}() takes a question and its answer as a string "
                                       f"({', '.join(self.answers) or 'no question defined'})", *_pos(a))
                    continue
                if want == names.DECLARATION:
                    if v.const not in self.declarations:
                        raise DSLError(f"{fname}() takes the name of a declaration of this variant "
                                       f"as a string ({', '.join(self.declarations) or 'none defined'})",
                                       *_pos(a))
                    continue
                self.expect(a, v.type, want, f"argument {i + 1} of {fname}()")
        if result == SET:
            result = set_type
        const = _NC
        if f.fold is not None and all(c is not _NC for c in consts):
            const = f.fold(self, *consts)
        return T("call", result, const, vals, f)

    # -- code generation: typed tree -> Python ast -----------------------------------------
    def tmp(self) -> str:
        self._tmp += 1
        return f"_t{self._tmp}"

    def lower(self, t: T) -> ast.expr:
        """The ast of a typed expression. A constant is its value; every other node is
        made from its registry entry or operator."""
        if t.const is not _NC:
            return names.const(t.const)
        op, k = t.op, t.kids
        if op == "name":
            return t.info.build(self)
        if op == "local":
            return names.var(t.info)
        if op == "var":
            return names.variable(t.info)
        if op == "call":
            return t.info.build(self, *[self.lower(a) for a in k])
        if op == "call_list":
            return t.info.build_list(self, self.lower(k[0]))
        if op == "neg":
            return ast.UnaryOp(ast.USub(), self.lower(k[0]))
        if op == "strength":
            return names.sub(names.var("_STRENGTH"), self.lower(k[0]))
        if op == "not":
            if k[0].op == "compare" and k[0].const is _NC:   # not (a < b) is a >= b
                a, b = k[0].kids
                return names.compare(self.lower(a), _NEGATED[k[0].info], self.lower(b))
            return ast.UnaryOp(ast.Not(), self.lower(k[0]))
        if op in ("and", "or"):
            neutral = op == "and"   # true parts of an 'and', false parts of an 'or', drop out
            keep = [a for a in k if a.const is not neutral]
            if len(keep) == 1:
                return self.lower(keep[0])
            return ast.BoolOp(ast.And() if op == "and" else ast.Or(), [self.lower(a) for a in keep])
        if op in ("any", "all", "those"):
            self._no_walrus += 1   # Python refuses `:=` in a comprehension's iterable
            try:
                iterable = self.lower(k[0])
            finally:
                self._no_walrus -= 1
            loop = [ast.comprehension(names.var(t.info, store=True), iterable, [], 0)]
            if op == "those":
                loop[0].ifs.append(self.lower(k[1]))
                return ast.ListComp(names.var(t.info), loop)
            return names.call(op, ast.GeneratorExp(self.lower(k[1]), loop))
        if op == "otherwise" and self._no_walrus:
            return ast.BoolOp(ast.Or(), [self.lower(a) for a in k])  # lists: the first non-empty
        if op == "otherwise":
            node = self.lower(k[-1])
            for a in reversed(k[:-1]):
                t_ = self.tmp()
                node = ast.IfExp(ast.NamedExpr(names.var(t_, store=True), self.lower(a)),
                                 names.var(t_), node)
            return node
        if op == "cond":
            c, a, b = k
            if c.const is not _NC:
                return self.lower(a if c.const else b)
            return ast.IfExp(self.lower(c), self.lower(a), self.lower(b))
        if op == "compare":
            return names.compare(self.lower(k[0]), t.info, self.lower(k[1]))
        if op == "binop":
            a, b = k
            if t.info in ("//", "%") and b.const is _NC and self._no_walrus:
                return ast.IfExp(self.lower(b), names.binop(self.lower(a), t.info, self.lower(b)),
                                 names.const(0))  # b is pure: computed twice
            if t.info in ("//", "%") and b.const is _NC:
                t_ = self.tmp()  # a rule never raises: x // 0 and x % 0 are 0
                return ast.IfExp(ast.NamedExpr(names.var(t_, store=True), self.lower(b)),
                                 names.binop(self.lower(a), t.info, names.var(t_)), names.const(0))
            return names.binop(self.lower(a), t.info, self.lower(b))
        if op == "index":
            return names.call("_at", self.lower(k[0]), self.lower(k[1]))
        if op == "cases":
            pairs = list(zip(k[::2], k[1::2]))
            node = None
            for i, (c, v) in enumerate(pairs):
                if c.const is True:   # the cases after it never apply
                    pairs, node = pairs[:i], self.lower(v)
                    break
            if node is None:
                node = self.lower(t.info) if t.info is not None else \
                    _EMPTY.get(t.type, lambda: names.const(-1))()
            for c, v in reversed(pairs):
                node = ast.IfExp(self.lower(c), self.lower(v), node)
            return node
        raise AssertionError(f"no code for {t!r}")

    def lower_stmts(self, stmts) -> list[ast.stmt]:
        out = []
        for t in stmts:
            out += self.lower_stmt(t)
        return out

    def lower_stmt(self, t: T) -> list[ast.stmt]:
        if t.op == "set":
            return [ast.Assign([names.var(t.info, store=True)], self.lower(t.kids[0]))]
        if t.op == "let":   # a let of a constant: every use was folded
            return [] if t.kids[0].const is not _NC else \
                [ast.Assign([names.var(t.info, store=True)], self.lower(t.kids[0]))]
        if t.op == "assign":
            entry, op = t.info
            idx, val = t.kids
            if idx is None:
                return [_assign(entry.target(self, None), op, self.lower(val))]
            t_ = self.tmp()   # an index out of range changes nothing
            return [ast.Assign([names.var(t_, store=True)], self.lower(idx)),
                    ast.If(ast.Compare(names.const(0), [ast.LtE(), ast.Lt()],
                                       [names.var(t_), entry.bound(self)]),
                           [_assign(entry.target(self, names.var(t_)), op, self.lower(val))], [])]
        if t.op == "assign_var":
            index, op, typ = t.info
            value = self.lower(t.kids[0])
            if op != "=":
                value = names.binop(names.variable(index), op[0], value)
            if typ == INT:  # kept within the bound (names.VARIABLE_LIMIT)
                lim = names.VARIABLE_LIMIT
                value = names.call("max", names.const(-lim), names.call("min", names.const(lim), value))
            return [ast.Assign([names.variable(index, store=True)], value)]
        if t.op == "if":
            c, body, orelse = t.kids
            if c.const is not _NC:
                chosen = body if c.const else orelse
                return self.lower_stmt(chosen) if chosen is not None else []
            return [ast.If(self.lower(c), self.lower_stmt(body),
                           self.lower_stmt(orelse) if orelse is not None else [])]
        raise AssertionError(f"no code for {t!r}")


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "//": lambda a, b: a // b, "%": lambda a, b: a % b}
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">", "in": "not in",
            "not in": "in"}
_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


def _ARGS() -> ast.arguments:
    return ast.arguments([], [ast.arg(p) for p in names.PARAMS], None, [], [], None, [])


def _assign(target: ast.expr, op: str, value: ast.expr) -> ast.stmt:
    if op == "=":
        return ast.Assign([target], value)
    return ast.AugAssign(target, _AUG[op](), value)


def verify(module: ast.Module, more_names=frozenset(), more_attributes=frozenset(), more_nodes=()) -> None:
    """Check the generated module holds only what the compiler makes: the node kinds of
    expressions, assignments and ``if`` (no loop but the comprehensions of quantifiers,
    over a finite list; no lambda, import...), names that are parameters, helpers or
    compiler-made locals (``_vN``, ``_tN``, ``_qN``), attributes
    from the registry, and int/bool/str constants (and tuples of ints: a row of the card
    table, `_Params`); ``more_names``/``more_attributes``:
    those of an engine template (`Compiler.build_play_legal`), ``more_nodes`` its node
    kinds besides those of rules (the play step's tuple and expression statements).
    Raises AssertionError (a compiler bug)."""
    allowed = set(names.PARAMS) | set(names.HELPERS) | set(more_names)
    attributes = names.ATTRIBUTES | set(more_attributes)
    for n in ast.walk(module):
        if not isinstance(n, _NODES) and not isinstance(n, more_nodes):
            raise AssertionError(f"generated code holds a {type(n).__name__}")
        if isinstance(n, ast.Name) and n.id not in allowed and not (
                n.id[:2] in ("_v", "_t", "_q") and n.id[2:].isdigit()):
            raise AssertionError(f"generated code names {n.id!r}")
        if isinstance(n, ast.Attribute) and n.attr not in attributes:
            raise AssertionError(f"generated code reads attribute {n.attr!r}")
        if isinstance(n, ast.Constant) and type(n.value) not in (int, bool, str, type(None)) and not (
                type(n.value) is tuple and all(type(c) is int for c in n.value)):
            raise AssertionError(f"generated code holds a constant {n.value!r}")


# the play template's own names and the State fields it reads (Compiler.build_play_legal)
_PLAY_NAMES = frozenset({"_cards", "_out", "_hand", "_answers", "_sorted_set"})
_PLAY_ATTRIBUTES = frozenset({"question", "to_act", "trump_card", "declarer", "hands",
                              "declared_keys", "trump", "trump_exposed"})


# the play step's own names and the State fields it reads or sets (Compiler.build_play_step)
_STEP_NAMES = frozenset({"i", "seat", "_legal", "_trick", "_apply_id", "_card_played", "_end_trick",
                         "_ACTIONS", "_SUIT_OF", "_seats", "_keys", "winner", "_points", "_done", "_side",
                         "_list", "_map", "_max", "_sum", "_tuple", "_after_trick", "_TRICK_KEYS", "_POINT_OF"})
_STEP_NODES = (ast.Expr, ast.Tuple)
_STEP_ATTRIBUTES = frozenset({"_legal", "_legal_actions", "history", "append", "remove", "trick_cards",
                              "led", "trick_seats", "_active", "_next", "__getitem__", "index", "tricks_done",
                              "side", "side_points", "seat_points", "side_tricks", "trick_sides", "tricks",
                              "trick_after", "_score"})


class _LegalInto(ast.NodeTransformer):
    """``return X`` of the play template's body as ``s._legal = X`` then ``return``
    (`Compiler.build_play_step`)."""

    def visit_Return(self, n):
        return _template("s._legal = X\nreturn", X=n.value)


# the auction template's own names and the State fields it reads (Compiler.build_auction_legal)
_AUCTION_NAMES = frozenset({"_out", "_high"})
_AUCTION_ATTRIBUTES = frozenset({"to_act", "bid", "high_bidder", "equal_bid", "doubled"})


def _template(text: str, **holes: ast.expr) -> list[ast.stmt]:
    """Statements of an engine template (text of this module, never of a variant), each
    name in ``holes`` replaced by its ast."""
    class Fill(ast.NodeTransformer):
        def visit_Name(self, n):
            return copy.deepcopy(holes[n.id]) if n.id in holes else n
    return [Fill().visit(st) for st in ast.parse(text.strip()).body]


def _above_high(stmts, when, number) -> bool:
    """Whether a rule inlined for bid ``number`` (its lets ``stmts``, its value ``when``)
    says no more than the auction template's guard ``s.bid < number``: true, or
    ``number > high_bid`` written either way round (`Compiler.build_auction_legal`)."""
    if stmts:
        return False
    if isinstance(when, ast.Constant):
        return when.value is True
    if not (isinstance(when, ast.Compare) and len(when.ops) == 1):
        return False
    a, op, b = when.left, when.ops[0], when.comparators[0]
    if isinstance(op, ast.Lt):
        a, b, op = b, a, ast.Gt()
    high = (lambda n: isinstance(n, ast.Attribute) and n.attr == "bid" and isinstance(n.value, ast.Name)
            and n.value.id == "s")
    return (isinstance(op, ast.Gt) and isinstance(a, ast.Constant) and type(a.value) is int
            and a.value == number and high(b))


class _HandOnce(ast.NodeTransformer):
    """``s.hands[me]`` read as the local ``_hand`` (play's legal list: the hand does not
    change while it is made)."""

    def visit_Subscript(self, n):
        self.generic_visit(n)
        if (isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Attribute) and n.value.attr == "hands"
                and isinstance(n.value.value, ast.Name) and n.value.value.id == "s"
                and isinstance(n.slice, ast.Name) and n.slice.id == "me"):
            return ast.copy_location(ast.Name("_hand", ast.Load()), n)
        return n


class _Params(ast.NodeTransformer):
    """A rule's ast with its parameters ``x`` and ``y`` replaced by the constants it is
    asked with (``y`` is none wherever a rule is inlined), the cards of a constant rank
    (``_CARD[r]``, a row of the compiler's table ``card_table``) made a tuple constant,
    and a card of a constant rank and suit (``_CARD[r][s]``) that card's id."""

    def __init__(self, x, card_table):
        self.x = x
        self.card_table = card_table

    def visit_Name(self, n):
        if n.id == "x":
            return ast.Constant(self.x)
        if n.id == "y":
            return ast.Constant(None)
        return n

    _COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
                ast.Gt: operator.gt, ast.GtE: operator.ge}

    def visit_Compare(self, n):
        # two int constants (a parameter made one): the comparison's value
        self.generic_visit(n)
        parts = [n.left, *n.comparators]
        if len(n.ops) == 1 and type(n.ops[0]) in self._COMPARE and all(
                isinstance(p, ast.Constant) and type(p.value) is int for p in parts):
            return ast.copy_location(ast.Constant(self._COMPARE[type(n.ops[0])](parts[0].value, parts[1].value)), n)
        return n

    def visit_BoolOp(self, n):
        # leading constants decided as Python does: `False or x` is x, `True or x` is True
        # (and the converse for `and`); anything else is left as it is
        self.generic_visit(n)
        stop = isinstance(n.op, ast.Or)     # the constant that decides the whole
        values = list(n.values)
        while len(values) > 1 and isinstance(values[0], ast.Constant) and type(values[0].value) is bool:
            if values[0].value is stop:
                return ast.copy_location(ast.Constant(stop), n)
            values.pop(0)
        if len(values) == 1:
            return values[0]
        n.values = values
        return n

    def visit_UnaryOp(self, n):
        self.generic_visit(n)
        if isinstance(n.op, ast.Not) and isinstance(n.operand, ast.Constant) and type(n.operand.value) is bool:
            return ast.copy_location(ast.Constant(not n.operand.value), n)
        return n

    def visit_Subscript(self, n):
        # `_CARD[r]` of a constant rank: that row, a tuple constant; indexed by a constant
        # suit too: that card's id. An index out of range is left to fail where it is
        # asked, as before.
        self.generic_visit(n)
        if (isinstance(n.value, ast.Name) and n.value.id == "_CARD" and isinstance(n.slice, ast.Constant)
                and type(n.slice.value) is int and -len(self.card_table) <= n.slice.value < len(self.card_table)):
            return ast.copy_location(ast.Constant(tuple(self.card_table[n.slice.value])), n)
        row = n.value
        if (isinstance(row, ast.Constant) and type(row.value) is tuple and isinstance(n.slice, ast.Constant)
                and type(n.slice.value) is int and -len(row.value) <= n.slice.value < len(row.value)):
            return ast.copy_location(ast.Constant(row.value[n.slice.value]), n)
        return n


def _answers(s) -> list[int]:
    """The answers of the question pending (the ids of its answer actions)."""
    return [a.id for a in s.question[1].answer_actions]


def _sorted_set(cards: list[int]) -> list[int]:
    return sorted(set(cards))


def _in_suit_of(lo: list[int], hi: list[int]):
    """``in_suit(cards, suit)`` for this deck, as a function (where the inline form of
    names._in_suit_code may not stand). Card lists in rules are always sorted (hands are
    kept sorted; every function keeps the order), and the cards of a suit are the
    contiguous ids ``lo[suit] .. hi[suit]``, so the suit's cards are one slice; ``lo``
    and ``hi`` end with zeros for the negative codes (none, no-trump): no card."""

    def in_suit(cards, suit):
        return cards[bisect_left(cards, lo[suit]):bisect_left(cards, hi[suit])]
    return in_suit


def _outside_hand(t) -> bool:
    """Whether a typed tree reads a set of cards that may hold cards not in the hand."""
    stack = [t]
    while stack:
        n = stack.pop()
        if n.op == "name" and n.info.outside_hand:
            return True
        stack.extend(k for k in n.kids if isinstance(k, T))
        if isinstance(n.info, T):
            stack.append(n.info)
    return False


def _at(lst, i):
    return lst[i] if 0 <= i < len(lst) else 0


def _played(seats, cards, seat):
    """The card ``seat`` played to the current trick (``seats``/``cards`` in play order),
    or -1."""
    for i, t in enumerate(seats):
        if t == seat:
            return cards[i]
    return -1


def _pos(node) -> tuple[int, int]:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.line, meta.column
    if isinstance(node, Token):
        return node.line or 1, node.column or 1
    for c in getattr(node, "children", []):
        p = _pos(c)
        if p != (1, 1):
            return p
    return 1, 1


def _a(typ: str) -> str:
    """A type as a message names one value of it: "a number", "an answer", but "cards",
    "seats", "none" (a set or nothing takes no article).

    >>> _a(CARDS), _a(INT), _a(names.ANSWER)
    ('cards', 'a number', 'an answer')
    """
    if typ in (CARDS, SEATS, NONE, SET):
        return typ
    return ("an " if typ[0] in "aeiou" else "a ") + typ


def _typed_hint(e: DSLError, want: str) -> None:
    """Reword the unknown-name problem ``e`` to suggest the closest known name of type
    ``want`` (difflib), when one is close enough."""
    name, known = e.unknown
    typed = [n for n, t in known.items() if t == want or (t == NONE and want in _NONEABLE)]
    m = difflib.get_close_matches(name, typed, n=1)
    if m:
        e.reword(f"unknown name '{name}' (did you mean '{m[0]}', of type {want}?)")
    e.unknown = None  # hinted once, at the innermost place that wants a type


_TOKEN = re.compile(r'#[^\n]*|"[^"\n]*"|[a-z_][a-z0-9_]*|[0-9]+|==|!=|<=|>=|\+=|-=|//|\S')


def _tokens(text: str, most: int = 3) -> int:
    """About how many tokens ``text`` holds (comments aside), counted up to ``most``: a
    plain scan, not the lexer, so that a long broken rule is checked quickly."""
    n = 0
    for m in _TOKEN.finditer(text):
        if not m.group().startswith("#"):
            n += 1
            if n >= most:
                break
    return n


def _end_of(text: str) -> tuple[int, int]:
    """(line, column), 1-based, just after the last character of ``text`` that is not
    white space: where a rule that ends too early ends."""
    off = len(text.rstrip())
    return text.count("\n", 0, off) + 1, off - (text.rfind("\n", 0, off) + 1) + 1


def _span(e: UnexpectedInput) -> tuple[int, int]:
    """(start, end) character offsets of what a parse error is about."""
    tok = getattr(e, "token", None)
    if tok is not None and getattr(tok, "start_pos", None) is not None:
        return tok.start_pos, tok.end_pos if tok.end_pos is not None else tok.start_pos
    pos = getattr(e, "pos_in_stream", None) or 0
    return pos, pos + 1


def _suggest(name: str, known) -> str:
    m = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean '{m[0]}'?)" if m else ""


_TOKEN_WORDS = {"NAME": "a name", "INT": "a number", "STRING": "a quoted string",
                "LPAR": "'('", "RPAR": "')'", "COLON": "':'", "SEMICOLON": "';'",
                "COMMA": "','", "LSQB": "'['", "RSQB": "']'", "$END": "the end of the rule"}


def _parse_message(e: UnexpectedInput, text: str) -> str:
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "?"
        return f"unexpected character {ch!r}"
    if isinstance(e, UnexpectedEOF):
        return "the rule ends too early"
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if str(tok) == "=" and tok.type != "$END":
            return ("unexpected '=': to compare, write '=='; '=' only sets a value, at the "
                    "start of a statement of an effect")
        got = "end of the rule" if tok.type == "$END" else repr(str(tok))
        exp = sorted({_TOKEN_WORDS.get(t, t.lower().strip("_")) for t in e.expected})
        exp = [x for x in exp if not x.startswith("__")]
        more = f"; expected {', '.join(exp[:6])}" if exp else ""
        return f"unexpected {got}{more}"
    return str(e).splitlines()[0]
