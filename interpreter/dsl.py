"""The rules DSL: parse with the Lark grammar in ``grammar/rules.lark``, check names,
arities and types, and compile each rule to a plain Python function.

Safety (DESIGN.md, "The pipeline of a variant"): the Python source handed to ``exec``
is generated here from the validated parse tree. Every identifier in it comes from the
tables below (``NAMES``, ``FUNCTIONS``), every literal is an ``int`` or ``bool`` made by
the compiler; no text of the variant file is copied into it. The generated code runs with
empty builtins and only the helpers of this module in its globals. The language has no
loops, no recursion and no user-defined functions, so every rule terminates.

A compiled rule is a function ``f(s, me, x, y)``: ``s`` the engine ``State``, ``me`` the
seat the rule is evaluated for, ``x``/``y`` the hook's extra values (the bid number in
``auction.may_bid``, the card and "played after the exposure" in
``play.counts_as_trump``, ``made`` in ``scoring.effect``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .errors import TaashError
from .loader import data_dir

GRAMMAR_PATH = data_dir("grammar") / "rules.lark"  # package data (loader.data_dir)

# Types of values. Suits, seats, sides, ranks and cards are small ints at run time;
# `none` is -1 and compares equal only to itself.
INT, BOOL, SUIT, SEAT, SIDE, RANK, CARD, CARDS, LIST, NONE = (
    "number", "condition", "suit", "seat", "side", "rank", "card", "cards", "list", "none")
_NONEABLE = {SUIT, SEAT, SIDE, CARD}
_INTLIKE = {INT}


class DSLError(TaashError, ValueError):
    """A rule that does not parse or does not check. ``line``/``column`` are 1-based and
    relative to the rule's text."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The Lark LALR parser of ``grammar/rules.lark`` (built once)."""
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), start=["expr_rule", "effect_rule"], parser="lalr",
                propagate_positions=True, maybe_placeholders=False)


# name -> (python expression, type). Expressions read the State `s`, the seat `me`,
# the hook values `x`, `y`, and the variant constants bound into the module globals.
NAMES: dict[str, tuple[str, str]] = {
    "players": ("_N", INT),
    "me": ("me", SEAT),
    "dealer": ("s.dealer", SEAT),
    "eldest": ("((s.dealer + 1) % _N)", SEAT),
    "declarer": ("s.declarer", SEAT),
    "declarer_side": ("(s.side[s.declarer] if s.declarer >= 0 else -1)", SIDE),
    "my_side": ("s.side[me]", SIDE),
    "high_bid": ("s.bid", INT),
    "high_bidder": ("s.high_bidder", SEAT),
    "bid": ("s.bid", INT),
    "calls": ("s.calls", INT),
    "bids": ("s.bids", INT),
    "passes": ("s.passes", INT),
    "min_bid": ("_MIN_BID", INT),
    "max_bid": ("_MAX_BID", INT),
    "trump": ("s.trump", SUIT),
    "trump_exposed": ("s.trump_exposed", BOOL),
    "trump_hidden": ("(s.trump_card >= 0)", BOOL),
    "exposer": ("s.exposer", SEAT),
    "exposure_trick": ("s.exposure_trick", INT),
    "led": ("s.led", SUIT),
    "leading": ("(s.led < 0)", BOOL),
    "leader": ("(s.trick_seats[0] if s.trick_seats else me)", SEAT),
    "trick": ("(s.tricks_done + 1)", INT),
    "tricks": ("_TRICKS", INT),
    "hand": ("s.hands[me]", CARDS),
    "my_side_tricks": ("s.known_side_tricks(me)", INT),
    "target": ("s.target", INT),
    "score": ("s.scores", LIST),
    "deals": ("s.deal_number", INT),
    "deals_played": ("(s.deal_number + (s.phase == 'done'))", INT),
    "doubled": ("(s.doubled >= 1)", BOOL),
    "redoubled": ("(s.doubled >= 2)", BOOL),
    "passed": ("len(s.passed)", INT),
    "partner": ("s.partner", SEAT),
    "partner_revealed": ("s.partner_revealed", BOOL),
    "called_card": ("s.called_card", CARD),
    "defenders_side": ("(1 - s.side[s.declarer] if s.declarer >= 0 else -1)", SIDE),
    "denomination": ("s.denomination", SUIT),
    "no_trump": ("(s.trump < 0)", BOOL),
}
# Values that exist only in some rules: hook -> {name: (expr, type)}.
HOOK_NAMES: dict[str, dict[str, tuple[str, str]]] = {
    "auction.may_bid": {"number": ("x", INT)},
    "play.after_trick": {"winner": ("x", SEAT)},
    "declare.suit": {"declared_suit": ("x", SUIT)},
    "play.counts_as_trump": {"card": ("x", CARD), "played_after_exposure": ("y", BOOL)},
    "scoring.effect": {"made": ("x", BOOL)},
}
# Names that may be assigned in effects: name -> (python lvalue, type, indexed?)
LVALUES: dict[str, tuple[str, str, bool]] = {
    "target": ("s.target", INT, False),
    "score": ("s.scores", INT, True),
    "side": ("s.side", SIDE, True),
}

# function -> (python template with {0},{1}.., argument types, result type)
# A type "int*" means one or more ints (or a single list).
FUNCTIONS: dict[str, tuple[str, tuple, str]] = {
    "in_suit": ("_in_suit({0}, {1})", (CARDS, SUIT), CARDS),
    "not_in_suit": ("_not_in_suit({0}, {1})", (CARDS, SUIT), CARDS),
    "count": ("len({0})", (CARDS,), INT),
    "holds": ("(_CARD[{0}][{1}] in s.hands[me])", (RANK, SUIT), BOOL),
    "suit": ("_SUIT_OF[{0}]", (CARD,), SUIT),
    "rank": ("_RANK_OF[{0}]", (CARD,), RANK),
    "side": ("s.side[{0}]", (SEAT,), SIDE),
    "same_side": ("(s.side[{0}] == s.side[{1}])", (SEAT, SEAT), BOOL),
    "points": ("s.side_points[{0}]", (SIDE,), INT),
    "abs": ("abs({0})", (INT,), INT),
    "max": ("max({args})", ("int*",), INT),
    "min": ("min({args})", ("int*",), INT),
    "declared": ("s.declared.get({0}, 0)", ("declaration",), INT),
    "answered": ("({0} in s.answers)", ("answer",), BOOL),
    "only": ("_only({0}, {1})", (CARDS, CARD), CARDS),
    "tricks_won": ("_at(s.side_tricks, {0})", (SIDE,), INT),
    "played": ("_played(s, {0})", (SEAT,), CARD),
}


@dataclass
class Compiled:
    """One compiled rule: its Python source (for inspection) and the function."""
    source: str
    fn: object
    const: object = None


_NC = object()  # "not a constant"
MAX_RULE_CHARS = 4000  # limits that keep every rule small enough to check and compile
MAX_DEPTH = 40
MAX_WIDTH = 40


class Compiler:
    """Compile the rules of one variant into one Python module.

    ``constants`` gives the variant's fixed values (players, ranks, suits, cards); rules
    are added with ``add(hook, text, kind)`` and built at once with ``build()``.
    """

    def __init__(self, deck, players: int, tricks: int, min_bid: int, max_bid: int,
                 declarations=(), options=None, answers=(), denominations=None,
                 score_unit: str = "side"):
        self.deck = deck
        self.players, self.tricks = players, tricks
        self.min_bid, self.max_bid = min_bid, max_bid
        self.declarations = list(declarations)
        self.answers = list(answers)
        self.denominations = dict(denominations or {})
        self.only_options = False
        self.score_unit = SIDE if score_unit == "side" else SEAT
        self.extra = {}
        self.locals = {}
        self.options = dict(options or {})
        self.funcs: list[str] = []
        self.names: list[str] = []
        self.consts: dict[str, object] = {}
        self._tmp = 0

    # -- parsing ------------------------------------------------------------------
    def parse(self, text: str, start: str) -> Tree:
        if len(text) > MAX_RULE_CHARS:
            raise DSLError(f"this rule is {len(text)} characters long; at most {MAX_RULE_CHARS}")
        try:
            tree = parser().parse(text, start=start)
        except UnexpectedInput as e:
            raise DSLError(_parse_message(e, text), getattr(e, "line", 1) or 1,
                           getattr(e, "column", 1) or 1) from None
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
    def add(self, hook: str, text: str, kind: str, extra_names: str | None = None) -> str:
        """Parse and check one rule. ``kind`` is the expected type: ``condition``,
        ``number``, ``cards``, ``seat`` or ``effect``. Returns the function's name.
        Raises DSLError."""
        if not isinstance(text, str):
            text = str(text).lower() if isinstance(text, bool) else str(text)
        self.hook = hook
        self.extra = dict(HOOK_NAMES.get(hook, {}))
        if extra_names:
            self.extra.update(HOOK_NAMES.get(extra_names, {}))
        self.locals: dict[str, tuple[str, str]] = {}
        fname = f"r{len(self.names)}"
        if kind == "effect":
            tree = self.parse(text, "effect_rule")
            body = [self.stmt(st, 1) for st in tree.children]
            src = f"def {fname}(s, me, x, y):\n" + "".join(body) + "    return None\n"
            const = _NC
        else:
            tree = self.parse(text, "expr_rule")
            inner = tree.children[0]
            code, typ, const = self.value(inner)
            self.expect(inner, typ, kind, "this rule")
            if kind == BOOL and const is False and getattr(inner, "data", None) != "false" \
                    and not self.only_options:
                raise DSLError("this rule can never be satisfied (it is always false)",
                               *_pos(inner))
            if kind == CARDS and const is not _NC and not const:
                raise DSLError("this rule never allows a card", *_pos(inner))
            src = f"def {fname}(s, me, x, y):\n    return {code}\n"
        self.funcs.append(src)
        self.names.append(fname)
        self.consts[fname] = const
        return fname

    def build(self) -> dict[str, Compiled]:
        """exec the generated module once; returns {function name: Compiled}."""
        g = {"__builtins__": {}, "len": len, "abs": abs, "max": max, "min": min,
             "_N": self.players, "_TRICKS": self.tricks, "_MIN_BID": self.min_bid,
             "_MAX_BID": self.max_bid, "_CARD": [row + [-1] for row in self.deck.card_table],
             "_SUIT_OF": self.deck.suit_of + [-1], "_RANK_OF": self.deck.rank_of + [-1],
             "_at": _at, "_played": _played}
        so = self.deck.suit_of
        g["_in_suit"] = _in_suit_of(len(self.deck.ranks), len(self.deck.suits))
        g["_not_in_suit"] = lambda cards, suit: [c for c in cards if so[c] != suit]
        g["_only"] = lambda cards, card: [c for c in cards if c == card]
        src = "\n".join(self.funcs)
        exec(compile(src, "<taash rules>", "exec"), g)  # generated from the checked tree only
        return {n: Compiled(self.funcs[i], g[n], self.consts[n]) for i, n in enumerate(self.names)}

    # -- checking and code generation -----------------------------------------------
    def expect(self, node, got: str, want: str, what: str):
        if got == want or (got == NONE and want in _NONEABLE):
            return
        raise DSLError(f"{what} should be a {want}, not a {got}", *_pos(node))

    def tmp(self) -> str:
        self._tmp += 1
        return f"_t{self._tmp}"

    def stmt(self, node: Tree, depth: int) -> str:
        ind = "    " * depth
        if node.data == "assign":
            lv, op, expr = node.children
            name_tok = lv.children[0]
            name = str(name_tok)
            if name not in LVALUES:
                if len(lv.children) != 1 or str(op) != "=":
                    allowed = ", ".join(sorted(LVALUES))
                    raise DSLError(f"cannot assign to '{name}' (assignable: {allowed}; "
                                   f"or write `{name} = ...` to name a value)", *_pos(lv))
                if name in NAMES or name in self.extra or name in FUNCTIONS or name in self.options:
                    raise DSLError(f"'{name}' is a name of the engine; choose another name", *_pos(lv))
                if depth != 1:
                    raise DSLError(f"name '{name}' at the top of the effect, not inside 'when'",
                                   *_pos(lv))
                code, etyp, _ = self.value(expr)
                if etyp in (CARDS, LIST, NONE):
                    raise DSLError("a named value must be a number, condition, seat, side, suit or card",
                                   *_pos(expr))
                var = self.locals[name][0] if name in self.locals else f"_v{len(self.locals)}"
                if name in self.locals and self.locals[name][1] != etyp:
                    raise DSLError(f"'{name}' was a {self.locals[name][1]}, not a {etyp}", *_pos(expr))
                self.locals[name] = (var, etyp)
                return f"{ind}{var} = {code}\n"
            target, typ, indexed = LVALUES[name]
            if indexed:
                if len(lv.children) != 2:
                    raise DSLError(f"'{name}' needs an index: {name}[side] or {name}[seat]", *_pos(lv))
                icode, ityp, _ = self.value(lv.children[1])
                want = self.score_unit if name == "score" else SEAT
                if ityp != want:
                    raise DSLError(f"index of '{name}' should be a {want}, not a {ityp}"
                                   + (f" (this match keeps scores per {want})" if name == "score" else ""),
                                   *_pos(lv.children[1]))
                t = self.tmp()
                ccode, ctyp, _ = self.value(expr)
                self.expect(expr, ctyp, typ, f"the value assigned to '{name}'")
                bound = "_N" if name == "side" else f"len({target})"
                return (f"{ind}{t} = {icode}\n{ind}if 0 <= {t} < {bound}:\n"
                        f"{ind}    {target}[{t}] {str(op)} {ccode}\n")
            elif len(lv.children) != 1:
                raise DSLError(f"'{name}' cannot be indexed", *_pos(lv))
            code, etyp, _ = self.value(expr)
            self.expect(expr, etyp, typ, f"the value assigned to '{name}'")
            return f"{ind}{target} {str(op)} {code}\n"
        if node.data in ("when_stmt", "when_else"):
            ccode, ctyp, _ = self.value(node.children[0])
            self.expect(node.children[0], ctyp, BOOL, "the condition after 'when'")
            out = f"{ind}if {ccode}:\n" + self.stmt(node.children[1], depth + 1)
            if node.data == "when_else":
                out += f"{ind}else:\n" + self.stmt(node.children[2], depth + 1)
            return out
        raise DSLError(f"unexpected statement {node.data}", *_pos(node))

    def value(self, node) -> tuple[str, str, object]:
        """Return (python code, type, constant value or _NC) of an expression node."""
        if isinstance(node, Token):
            raise DSLError(f"unexpected '{node}'", node.line, node.column)
        d = node.data
        ch = node.children
        if d == "cases":
            return self.cases(node)
        if d == "number":
            v = int(ch[0])
            return repr(v), INT, v
        if d == "true":
            return "True", BOOL, True
        if d == "false":
            return "False", BOOL, False
        if d == "none":
            return "-1", NONE, -1
        if d == "string":
            return self.literal(node, str(ch[0])[1:-1])
        if d == "name":
            return self.name(node, str(ch[0]))
        if d == "call":
            return self.call(node)
        if d == "neg":
            code, typ, c = self.value(ch[0])
            self.expect(ch[0], typ, INT, "the operand of '-'")
            return f"(-{code})", INT, (-c if c is not _NC else _NC)
        if d == "not_":
            code, typ, c = self.value(ch[0])
            self.expect(ch[0], typ, BOOL, "the operand of 'not'")
            return f"(not {code})", BOOL, (not c if c is not _NC else _NC)
        if d in ("and_", "or_"):
            parts = [self.value(c) for c in ch]
            for c, (_, t, _) in zip(ch, parts):
                self.expect(c, t, BOOL, f"each side of '{d[:-1]}'")
            op = " and " if d == "and_" else " or "
            consts = [p[2] for p in parts]
            const = _NC
            if all(c is not _NC for c in consts):
                const = all(consts) if d == "and_" else any(consts)
            elif d == "and_" and any(c is False for c in consts):
                const = False
            elif d == "or_" and any(c is True for c in consts):
                const = True
            return "(" + op.join(p[0] for p in parts) + ")", BOOL, const
        if d == "otherwise":
            parts = [self.value(c) for c in ch]
            for c, (_, t, _) in zip(ch, parts):
                self.expect(c, t, CARDS, "each side of 'otherwise'")
            code = parts[-1][0]
            for p in reversed(parts[:-1]):
                t = self.tmp()
                code = f"({t} if ({t} := {p[0]}) else {code})"
            return code, CARDS, _NC
        if d == "cond":
            a, c, b = ch
            ac, at, aconst = self.value(a)
            cc, ct, cconst = self.value(c)
            bc, bt, bconst = self.value(b)
            self.expect(c, ct, BOOL, "the condition after 'if'")
            typ = at if at != NONE else bt
            if at != bt and not (NONE in (at, bt) and typ in _NONEABLE | {NONE}):
                raise DSLError(f"both branches of 'if ... else' should have one type, "
                               f"not {at} and {bt}", *_pos(node))
            const = _NC
            if cconst is True:
                const = aconst
            elif cconst is False:
                const = bconst
            return f"({ac} if {cc} else {bc})", typ, const
        if d == "compare":
            a, op, b = ch
            ac, at, aconst = self.value(a)
            bc, bt, bconst = self.value(b)
            op = str(op)
            if op in ("==", "!="):
                if not (at == bt or NONE in (at, bt) and (at in _NONEABLE or bt in _NONEABLE)):
                    raise DSLError(f"cannot compare a {at} with a {bt}", *_pos(node))
                if at in (CARDS, LIST):
                    raise DSLError(f"cannot compare {at} with '{op}'", *_pos(node))
            else:
                if at != INT or bt != INT:
                    raise DSLError(f"'{op}' compares numbers, not a {at} and a {bt}", *_pos(node))
            const = _NC
            if aconst is not _NC and bconst is not _NC:
                const = {"==": aconst == bconst, "!=": aconst != bconst, "<": aconst < bconst,
                         "<=": aconst <= bconst, ">": aconst > bconst, ">=": aconst >= bconst}[op]
            return f"({ac} {op} {bc})", BOOL, const
        if d in ("member", "not_member"):
            a, b = ch
            ac, at, _ = self.value(a)
            bc, bt, _ = self.value(b)
            if not ((at == CARD and bt == CARDS) or (at == INT and bt == LIST)):
                raise DSLError(f"'in' needs a card and cards (or a number and a list), "
                               f"not a {at} and {bt}", *_pos(node))
            op = "in" if d == "member" else "not in"
            return f"({ac} {op} {bc})", BOOL, _NC
        if d == "binop":
            a, op, b = ch
            ac, at, aconst = self.value(a)
            bc, bt, bconst = self.value(b)
            op = str(op)
            self.expect(a, at, INT, f"the left side of '{op}'")
            self.expect(b, bt, INT, f"the right side of '{op}'")
            if op in ("//", "%"):
                if bconst == 0:
                    raise DSLError("division by zero", *_pos(b))
                t = self.tmp()  # a rule never raises: x // 0 and x % 0 are 0
                return (f"(({ac} {op} {t}) if ({t} := {bc}) else 0)", INT,
                        _NC if aconst is _NC or bconst is _NC else
                        (aconst // bconst if op == "//" else aconst % bconst) if bconst else 0)
            const = _NC
            if aconst is not _NC and bconst is not _NC and not (op in ("//", "%") and bconst == 0):
                const = {"+": aconst + bconst, "-": aconst - bconst, "*": aconst * bconst,
                         "//": aconst // (bconst or 1), "%": aconst % (bconst or 1)}[op]
            return f"({ac} {op} {bc})", INT, const
        if d == "index":
            a, i = ch
            ac, at, _ = self.value(a)
            ic, it, _ = self.value(i)
            if at != LIST:
                raise DSLError(f"only a list can be indexed, not a {at}", *_pos(node))
            if it != self.score_unit:
                raise DSLError(f"an index of the score should be a {self.score_unit}, not a {it} "
                               f"(this match keeps scores per {self.score_unit})", *_pos(i))
            return f"_at({ac}, {ic})", INT, _NC
        raise DSLError(f"unsupported construct '{d}'", *_pos(node))

    def cases(self, node):
        parts = []
        default = None
        typ = None
        for c in node.children:
            if c.data == "case":
                cc, ct, cconst = self.value(c.children[0])
                self.expect(c.children[0], ct, BOOL, "the condition after 'when'")
                if cconst is False:
                    raise DSLError("this case can never apply (its condition is always false)",
                                   *_pos(c.children[0]))
                vc, vt, _ = self.value(c.children[1])
                if typ is None or typ == NONE:
                    if typ == NONE and vt not in _NONEABLE | {NONE}:
                        raise DSLError(f"every case should give one type, not none and a {vt}",
                                       *_pos(c.children[1]))
                    typ = vt
                elif vt != typ and not (vt == NONE and typ in _NONEABLE):
                    raise DSLError(f"every case should give a {typ}, not a {vt}", *_pos(c.children[1]))
                parts.append((cc, vc))
            else:
                vc, vt, _ = self.value(c.children[0])
                if typ is not None and vt != typ and not (
                        (vt == NONE and typ in _NONEABLE) or (typ == NONE and vt in _NONEABLE)):
                    raise DSLError(f"every case should give a {typ}, not a {vt}", *_pos(c.children[0]))
                typ = vt if typ in (None, NONE) else typ
                default = vc
        if default is None:
            empty = {CARDS: "[]", BOOL: "False", INT: "0"}.get(typ, "-1")
            default = empty
        code = default
        for cc, vc in reversed(parts):
            code = f"({vc} if {cc} else {code})"
        return code, typ, _NC

    def literal(self, node, text: str):
        deck = self.deck
        if text in deck.suit_index:
            v = deck.suit_index[text]
            return repr(v), SUIT, v
        if text in deck.rank_index:
            v = deck.rank_index[text]
            return repr(v), RANK, v
        if text in deck.card_index:
            v = deck.card_index[text]
            return repr(v), CARD, v
        if text in self.denominations:
            v = self.denominations[text]
            return repr(v), SUIT, v
        if text in self.declarations:
            return repr(text), "declaration", text
        if text in self.answers:
            return repr(text), "answer", text
        raise DSLError(f"\"{text}\" is not a suit, rank or card of this deck"
                       f" (suits {' '.join(deck.suits)}, ranks {' '.join(deck.ranks)})", *_pos(node))

    def name(self, node, name: str):
        if self.only_options:
            if name in self.options:
                v = self.options[name]
                return repr(v), (BOOL if isinstance(v, bool) else INT), v
            raise DSLError(f"'{name}' is not an option; a preset condition may use only options "
                           f"({', '.join(self.options) or 'none declared'})", *_pos(node))
        if name in self.locals:
            code, typ = self.locals[name]
            return code, typ, _NC
        extra = self.extra
        if name in extra:
            code, typ = extra[name]
            return code, typ, _NC
        if name in NAMES:
            code, typ = NAMES[name]
            if name == "players":
                return code, typ, self.players
            if name == "min_bid":
                return code, typ, self.min_bid
            if name == "max_bid":
                return code, typ, self.max_bid
            if name == "tricks":
                return code, typ, self.tricks
            return code, typ, _NC
        if name in self.options:
            v = self.options[name]
            if isinstance(v, bool):
                return repr(v), BOOL, v
            return repr(int(v)), INT, int(v)
        for hook, names in HOOK_NAMES.items():
            if name in names:
                raise DSLError(f"'{name}' is only available in {hook}", *_pos(node))
        if name in FUNCTIONS:
            raise DSLError(f"'{name}' is a function: write {name}(...)", *_pos(node))
        raise DSLError(f"unknown name '{name}'{_suggest(name, list(NAMES) + list(extra) + list(self.options))}",
                       *_pos(node))

    def call(self, node):
        fname = str(node.children[0])
        args = node.children[1:]
        if fname not in FUNCTIONS:
            raise DSLError(f"unknown function '{fname}'{_suggest(fname, FUNCTIONS)}", *_pos(node))
        template, types, result = FUNCTIONS[fname]
        if types in (("declaration",), ("answer",)) and len(args) == 1 \
                and getattr(args[0], "data", "") == "string":
            text = str(args[0].children[0])[1:-1]
            known = self.declarations if types == ("declaration",) else self.answers
            if text not in known:
                what = "declaration" if types == ("declaration",) else "question and answer"
                raise DSLError(f"no {what} named \"{text}\" (this variant's: "
                               f"{', '.join(known) or 'none'}){_suggest(text, known)}", *_pos(args[0]))
            return template.format(repr(text)), result, _NC
        vals = [self.value(a) for a in args]
        if types == ("int*",):
            if not vals:
                raise DSLError(f"{fname}() needs at least one argument", *_pos(node))
            if len(vals) == 1 and vals[0][1] == LIST:
                return f"({vals[0][0]} and {fname}({vals[0][0]}) or 0)", INT, _NC
            if len(vals) == 1:
                self.expect(args[0], vals[0][1], INT, f"the argument of {fname}()")
                return vals[0][0], INT, vals[0][2]
            for a, (_, t, _) in zip(args, vals):
                self.expect(a, t, INT, f"each argument of {fname}()")
            consts = [v[2] for v in vals]
            const = _NC
            if all(c is not _NC for c in consts):
                const = max(consts) if fname == "max" else min(consts)
            return template.format(args=", ".join(v[0] for v in vals)), INT, const
        if len(vals) != len(types):
            raise DSLError(f"{fname}() takes {len(types)} argument{'s' if len(types) != 1 else ''}"
                           f" ({', '.join(types)}), not {len(vals)}", *_pos(node))
        for i, (a, (_, t, _), want) in enumerate(zip(args, vals, types)):
            if want == "answer":
                if vals[i][2] not in self.answers:
                    raise DSLError(f"{fname}() takes a question and its answer as a string "
                                   f"({', '.join(self.answers) or 'no question defined'})", *_pos(a))
                continue
            if want == "declaration":
                if vals[i][2] not in self.declarations:
                    raise DSLError(f"{fname}() takes the name of a declaration of this variant "
                                   f"as a string ({', '.join(self.declarations) or 'none defined'})",
                                   *_pos(a))
                continue
            self.expect(a, t, want, f"argument {i + 1} of {fname}()")
        return template.format(*[v[0] for v in vals]), result, _NC


def _in_suit_of(nranks: int, nsuits: int):
    """``in_suit(cards, suit)`` for this deck. Card lists in rules are always sorted
    (hands are kept sorted; every function keeps the order), and the cards of a suit are
    the contiguous ids ``suit * nranks ..``, so the suit's cards are one slice."""
    from bisect import bisect_left
    bounds = [i * nranks for i in range(nsuits + 1)]

    def in_suit(cards, suit):
        if suit < 0:
            return []
        return cards[bisect_left(cards, bounds[suit]):bisect_left(cards, bounds[suit + 1])]
    return in_suit


def _at(lst, i):
    return lst[i] if 0 <= i < len(lst) else 0


def _played(s, seat):
    """The card ``seat`` played to the current trick, or -1."""
    for i, t in enumerate(s.trick_seats):
        if t == seat:
            return s.trick_cards[i]
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


def _suggest(name: str, known) -> str:
    import difflib
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
        got = "end of the rule" if tok.type == "$END" else repr(str(tok))
        exp = sorted({_TOKEN_WORDS.get(t, t.lower().strip("_")) for t in e.expected})
        exp = [x for x in exp if not x.startswith("__")]
        more = f"; expected {', '.join(exp[:6])}" if exp else ""
        return f"unexpected {got}{more}"
    return str(e).splitlines()[0]
