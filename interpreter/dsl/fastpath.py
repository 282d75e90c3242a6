"""The engine's hot path, generated per variant: the play phase's legal actions
(`FastPath.build_play_legal`), the auction's legal calls (`FastPath.build_auction_legal`)
and the play of a card written out (`FastPath.build_play_step`).

Each is a fixed template of this module (never a variant's text) with the variant's rules
written into it rather than called: each rule's expression lowered again from its checked
tree, its parameters ``x``/``y`` replaced by the constants it is asked with (`_Params`).
The function is verified (`lower.verify`, with the template's own names and State fields)
and compiled with the rules' globals.
"""

from __future__ import annotations

import ast
import copy
import operator

from . import names
from .lower import TYPE_PARAMS, Compiled, Lowerer, verify
from .pyast import compile_tree, parse
from .runtime import answers, sorted_set

# the play template's own names and the State fields it reads (FastPath.build_play_legal)
_PLAY_NAMES = frozenset({"_cards", "_out", "_hand", "_answers", "_sorted_set"})
_PLAY_ATTRIBUTES = frozenset({"question", "to_act", "trump_card", "declarer", "hands",
                              "declared_keys", "trump", "trump_exposed"})


# the play step's own names and the State fields it reads or sets (FastPath.build_play_step)
_STEP_NAMES = frozenset({"i", "seat", "_legal", "_trick", "_apply_id", "_card_played", "_end_trick",
                         "_ACTIONS", "_SUIT_OF", "_seats", "_keys", "winner", "_points", "_done", "_side",
                         "_list", "_map", "_max", "_sum", "_tuple", "_after_trick", "_TRICK_KEYS", "_POINT_OF",
                         "_after_card"})
_STEP_NODES = (ast.Expr, ast.Tuple)
_STEP_ATTRIBUTES = frozenset({"_legal", "_legal_actions", "history", "append", "remove", "trick_cards",
                              "led", "trick_seats", "_active", "_next", "__getitem__", "index", "tricks_done",
                              "side", "side_points", "seat_points", "side_tricks", "trick_sides", "tricks",
                              "trick_after", "_score"})

# the auction template's own names and the State fields it reads (FastPath.build_auction_legal)
_AUCTION_NAMES = frozenset({"_out", "_high"})
_AUCTION_ATTRIBUTES = frozenset({"to_act", "bid", "high_bidder", "equal_bid", "doubled"})


class FastPath:
    """The generated hot-path functions of one variant, made after its rules are compiled
    (`lower.compile_rules`). ``lowerer``: the variant's `Lowerer` (its temporaries go on
    from the rules'); ``trees``: function name -> (typed tree, lets) of each checked rule;
    ``g``: the rules' globals (`runtime.helpers`, the rules' functions added); ``deck``:
    the variant's `Deck`."""

    def __init__(self, lowerer: Lowerer, trees: dict, g: dict, deck):
        self.lowerer = lowerer
        self.trees = trees
        self.globals = g
        self.deck = deck
        self.play_legal_body: list[ast.stmt] | None = None   # for build_play_step

    def build_play_legal(self, may_play: str, checks, expose=None, face_down: bool = False,
                         dedupe: bool = False):
        """The play phase's legal actions (docs/rules.md §0.4, §0.8, §28.7) as one function
        ``f(state) -> list[int]`` of the seat to act, with the rules written into it rather
        than called: the hot path of ``engine.Play``.

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
        inline = self.inline
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
        self.play_legal_body = body[1:]
        return self.template_function("play_legal", body, _PLAY_NAMES, _PLAY_ATTRIBUTES,
                                      _answers=answers, _sorted_set=sorted_set)

    def build_play_step(self, plain_play: bool, apply_id, card_played, end_trick, actions,
                        plain_trump: bool = False, tricks: int = 0, last_trick: int = 0,
                        after_trick=None, after_card=None) -> Compiled:
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
        are then made at once too. The ``play.after_card`` rule ``after_card`` (or None)
        is asked once the card is in the trick, before the next seat's legal plays. The template is this module's text; the rules' part
        is the checked body."""
        legal = []
        for st in self.play_legal_body:
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
{"_after_card(s, seat, None, None)" if after_card is not None else ""}
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
        return self.template_function("apply_id", body, _PLAY_NAMES | _STEP_NAMES,
                                      _PLAY_ATTRIBUTES | _STEP_ATTRIBUTES, params=("s", "i"),
                                      _answers=answers, _sorted_set=sorted_set, _apply_id=apply_id,
                                      _card_played=card_played, _end_trick=end_trick, _ACTIONS=tuple(actions),
                                      _after_card=after_card, **helpers)

    def build_auction_legal(self, may_pass: str, may_bid: str, may_equal, may_double, may_redouble,
                            numbers, pass_id: int, double_id: int, redouble_id: int) -> Compiled:
        """The auction's legal calls (docs/rules.md §0.5, §0.10; `engine.Auction`) as one function
        ``f(state) -> list[int]`` of the seat to act, the rules written into it: the hot
        path of the auction, as `build_play_legal` is of play.

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
        inline, const = self.inline, names.const
        stmts, when = inline(may_pass, None)
        body = _template("me = s.to_act") + stmts + _template("_out = [PASS] if WHEN else []",
                                                               PASS=const(pass_id), WHEN=when)
        body += _template("_high = s.bid")
        if may_equal is not None:
            body += _guarded("s.high_bidder >= 0 and s.high_bidder != me and not s.equal_bid",
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
                body += _guarded("_high < NUMBER", rule, "_out += IDS", NUMBER=const(number),
                                 IDS=ast.List([const(i) for i in ids], ast.Load()))
        if may_double is not None:
            body += _guarded("s.doubled == 0 and s.high_bidder >= 0", inline(may_double, None),
                             "_out += [ID]", ID=const(double_id))
        if may_redouble is not None:
            body += _guarded("s.doubled == 1", inline(may_redouble, None), "_out += [ID]",
                             ID=const(redouble_id))
        body += _template("return _out or [PASS]", PASS=const(pass_id))
        return self.template_function("auction_legal", body, _AUCTION_NAMES | set(extra), _AUCTION_ATTRIBUTES,
                                      **extra)

    def inline(self, fname: str, x) -> tuple[list[ast.stmt], ast.expr]:
        """Rule ``fname`` lowered again from its checked tree: its lets' statements and its
        value, ``x``/``y`` replaced by the constants it is asked with (`_Params`)."""
        typed, lets = self.trees[fname]
        params = _Params(x, self.globals["_CARD"])
        lowerer = self.lowerer
        return [params.visit(st) for st in lowerer.lower_stmts(lets)], params.visit(lowerer.lower(typed))

    def template_function(self, name: str, body, more_names, more_attributes, params=("s",),
                          **helpers) -> Compiled:
        """``def name(s): body`` (or the names ``params``), verified (the template's names
        and State fields besides the registry's) and compiled with the rules' globals and
        ``helpers``."""
        fdef = ast.FunctionDef(name, ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
                               body, [], None, None, **TYPE_PARAMS)
        fdef.lineno = fdef.end_lineno = 1
        module = ast.Module([fdef], [])
        ast.fix_missing_locations(module)
        verify(module, more_names, more_attributes, _STEP_NODES if name == "apply_id" else ())
        g = dict(self.globals, **helpers)
        exec(compile_tree(module, f"<taash {name}>"), g)  # the template and the checked trees only
        return Compiled(fdef, g[name])


def _guarded(guard: str, rule, then: str, **holes) -> list[ast.stmt]:
    """``if guard:`` the rule's lets, then ``if`` its value ``: then``; ``rule``: an
    inlined rule, (lets, value) as `FastPath.inline` gives it (the lets asked only when the
    guard holds). ``guard``, ``then``: template text of this module, never a
    variant's."""
    stmts, when = rule
    test = _template(f"if {guard}:\n    STMTS\n    if WHEN:\n        {then}", WHEN=when, **holes)
    test[0].body[:1] = stmts
    return test


class _LegalInto(ast.NodeTransformer):
    """``return X`` of the play template's body as ``s._legal = X`` then ``return``
    (`FastPath.build_play_step`)."""

    def visit_Return(self, n):
        return _template("s._legal = X\nreturn", X=n.value)


def _template(text: str, **holes: ast.expr) -> list[ast.stmt]:
    """Statements of an engine template (text of this module, never of a variant), each
    name in ``holes`` replaced by its ast."""
    class Fill(ast.NodeTransformer):
        def visit_Name(self, n):
            return copy.deepcopy(holes[n.id]) if n.id in holes else n
    return [Fill().visit(st) for st in parse(text.strip()).body]


def _above_high(stmts, when, number) -> bool:
    """Whether a rule inlined for bid ``number`` (its lets ``stmts``, its value ``when``)
    says no more than the auction template's guard ``s.bid < number``: true, or
    ``number > high_bid`` written either way round (`FastPath.build_auction_legal`)."""
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


# how `build_copy` copies a field of each copy kind (mechanic.COPY_KINDS), as an expression
# of ``self.FIELD``
_COPY_EXPR = {"=": "self.{0}", "list": "self.{0}[:]", "lists": "[x[:] for x in self.{0}]",
              "set": "self.{0}.copy()", "dict": "self.{0}.copy()"}


def build_copy(fields: dict[str, str]):
    """``copy(self)``: a new object of ``self``'s class with each of ``fields`` (name ->
    copy kind: "=" shared, "list" a shallow copy, "lists" a list of lists copied a level
    deeper, "set"/"dict" a copy) copied, one statement per field, as `dataclasses` makes
    ``__init__`` (about 2.5 times faster than a loop of getattr and setattr: `State.copy`
    is the search bots' hot path). Made as an ast from the declared field names only
    (each an identifier, checked) and verified before it is compiled. Raises ValueError
    for a name that is no identifier or an unknown copy kind."""
    body = [parse("new = _new(type(self))").body[0]]
    for name, kind in fields.items():
        if not name.isidentifier() or kind not in _COPY_EXPR:
            raise ValueError(f"bad field {name!r} copied as {kind!r}")
        value = parse(_COPY_EXPR[kind].format(name), mode="eval").body
        body.append(ast.Assign([ast.Attribute(ast.Name("new", ast.Load()), name, ast.Store())], value))
    body.append(ast.Return(ast.Name("new", ast.Load())))
    fdef = ast.FunctionDef("copy", ast.arguments([], [ast.arg("self")], None, [], [], None, []),
                           body, [], None, None, **TYPE_PARAMS)
    module = ast.Module([fdef], [])
    ast.fix_missing_locations(module)
    allowed = {"self", "new", "_new", "type", "x"}
    for n in ast.walk(module):
        if isinstance(n, ast.Name) and n.id not in allowed:
            raise AssertionError(f"the copy names {n.id!r}")
        if isinstance(n, ast.Attribute) and n.attr not in fields and n.attr != "copy":
            raise AssertionError(f"the copy reads attribute {n.attr!r}")
        if isinstance(n, (ast.Import, ast.ImportFrom, ast.Lambda, ast.While, ast.For)):
            raise AssertionError(f"the copy holds a {type(n).__name__}")
    g = {"_new": object.__new__, "type": type, "__builtins__": {}}
    exec(compile_tree(module, "<State.copy>"), g)  # the declared field names only
    return g["copy"]
