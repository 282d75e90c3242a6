"""Lowering: the checked typed tree (`check.T`) to a Python ``ast``, ``verify`` (the
whitelist of node kinds, names, attributes and constants the compiler makes) and
``compile()`` to plain functions.

Every node is made from its registry entry (`names`) or operator; no text is parsed as
Python. A compiled rule is a function ``f(s, me, x, y)`` (`names.PARAMS`), run with empty
builtins and only the helpers of `runtime` in its globals.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from . import names
from .check import NOT_CONSTANT, T
from .names import BOOL, CARDS, INT, SEATS, SIDES
from .pyast import compile_tree

_EMPTY = {CARDS: lambda: ast.List([], ast.Load()), SEATS: lambda: ast.List([], ast.Load()),
          SIDES: lambda: ast.List([], ast.Load()), BOOL: lambda: names.const(False),
          INT: lambda: names.const(0)}
_EMPTY_VALUE = {BOOL: False, INT: 0}   # a variable's value read at an index out of range; else none
_AUG = {"+=": ast.Add, "-=": ast.Sub}
_NODES = (ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign,
          ast.AugAssign, ast.If, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Call,
          ast.keyword, ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.IfExp, ast.NamedExpr,
          ast.List, ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
          ast.GeneratorExp, ast.ListComp, ast.comprehension, ast.Slice,  # quantifiers over a finite list
          ast.For)  # an effect's `for` over a set of seats (at most the players)
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">", "in": "not in",
            "not in": "in"}
TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
"""``FunctionDef``'s keyword for its type parameters, on the Pythons that have them."""


@dataclass
class Compiled:
    """One compiled rule: its ``ast.FunctionDef``, the function, and its constant value
    (``NOT_CONSTANT`` unless the whole rule is a constant). ``source`` is the Python source, for
    inspection only (made from the ast; never compiled)."""
    node: ast.FunctionDef
    fn: object
    const: object = None

    @property
    def source(self) -> str:
        return ast.unparse(self.node) + "\n"


class Lowerer:
    """Typed trees to ``ast``, for one variant. ``deck``, ``players``, ``tricks`` (per
    deal), ``min_bid``, ``max_bid``, ``sides`` (their number): the variant's fixed values, which the registry's
    ``build`` functions read (this object is their ``c``, with ``tmp()`` for a fresh
    temporary and ``_no_walrus``)."""

    def __init__(self, deck, players: int, tricks: int, min_bid: int, max_bid: int, sides: int = 2):
        self.deck = deck
        self.players, self.tricks, self.sides = players, tricks, sides
        self.min_bid, self.max_bid = min_bid, max_bid
        self._tmp = 0
        self._no_walrus = 0               # > 0 while lowering a comprehension's iterable

    def tmp(self) -> str:
        self._tmp += 1
        return f"_t{self._tmp}"

    def lower(self, t: T) -> ast.expr:
        """The ast of a typed expression. A constant is its value; every other node is
        made from its registry entry or operator."""
        if t.const is not NOT_CONSTANT:
            return names.const(t.const)
        op, k = t.op, t.kids
        if op == "name":
            return t.info.build(self)
        if op == "local":
            return names.var(t.info)
        if op == "var":
            return names.variable(t.info)
        if op == "var_at":   # out of range (an index that is none): the empty value
            return names.call("_var_at", names.variable(t.info), self.lower(k[0]),
                              names.const(_EMPTY_VALUE.get(t.type, -1)))
        if op == "call":
            return t.info.build(self, *[self.lower(a) for a in k])
        if op == "call_list":
            return t.info.build_list(self, self.lower(k[0]))
        if op == "neg":
            return ast.UnaryOp(ast.USub(), self.lower(k[0]))
        if op == "strength":
            return names.sub(names.var("_STRENGTH"), self.lower(k[0]))
        if op == "not":
            if k[0].op == "compare" and k[0].const is NOT_CONSTANT:   # not (a < b) is a >= b
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
            if c.const is not NOT_CONSTANT:
                return self.lower(a if c.const else b)
            return ast.IfExp(self.lower(c), self.lower(a), self.lower(b))
        if op == "compare":
            return names.compare(self.lower(k[0]), t.info, self.lower(k[1]))
        if op == "binop":
            a, b = k
            if t.info in ("//", "%") and b.const is NOT_CONSTANT and self._no_walrus:
                return ast.IfExp(self.lower(b), names.binop(self.lower(a), t.info, self.lower(b)),
                                 names.const(0))  # b is pure: computed twice
            if t.info in ("//", "%") and b.const is NOT_CONSTANT:
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
            return [] if t.kids[0].const is not NOT_CONSTANT else \
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
            value, idx = self.lower(t.kids[0]), t.kids[1]
            if idx is not None:   # one of a tuple per seat or side: a new tuple
                t_ = self.tmp()
                current = names.call("_var_at", names.variable(index), names.var(t_), names.const(0))
                pre = [ast.Assign([names.var(t_, store=True)], self.lower(idx))]
            else:
                current, pre = names.variable(index), []
            if op != "=":
                value = names.binop(current, op[0], value)
            if typ == INT:  # kept within the bound (names.VARIABLE_LIMIT)
                lim = names.VARIABLE_LIMIT
                value = names.call("max", names.const(-lim), names.call("min", names.const(lim), value))
            if idx is not None:   # an index out of range (none) changes nothing
                value = names.call("_var_set", names.variable(index), names.var(t_), value)
            return pre + [ast.Assign([names.variable(index, store=True)], value)]
        if t.op == "block":   # an inherited effect's statements (`parent`)
            return self.lower_stmts(t.kids)
        if t.op == "for":
            tset, body = t.kids
            stmts = self.lower_stmt(body)
            return [ast.For(names.var(t.info, store=True), self.lower(tset), stmts, [])] if stmts else []
        if t.op == "if":
            c, body, orelse = t.kids
            if c.const is not NOT_CONSTANT:
                chosen = body if c.const else orelse
                return self.lower_stmt(chosen) if chosen is not None else []
            return [ast.If(self.lower(c), self.lower_stmt(body),
                           self.lower_stmt(orelse) if orelse is not None else [])]
        raise AssertionError(f"no code for {t!r}")


def compile_rules(lowerer: Lowerer, rules, consts: dict[str, object], g: dict) -> dict[str, Compiled]:
    """Make the ast of every rule (``rules``: (function name, typed tree, effect?, lets),
    as `check.Checker.add` records them), verify it, compile and exec the module once in
    the globals ``g`` (`runtime.helpers`; the functions are added to it). ``consts``:
    function name -> the rule's constant value. Returns {function name: Compiled}."""
    defs = []
    for i, (fname, typed, effect, lets) in enumerate(rules):
        lowerer._tmp = 0
        body = (lowerer.lower_stmts(typed.kids) + [ast.Return(ast.Constant(None))]
                if effect else lowerer.lower_stmts(lets) + [ast.Return(lowerer.lower(typed))])
        fdef = ast.FunctionDef(fname, _ARGS(), body, [], None, None, **TYPE_PARAMS)
        fdef.lineno = fdef.end_lineno = i + 1  # a traceback names the rule's line
        defs.append(fdef)
    module = ast.Module(defs, [])
    ast.fix_missing_locations(module)
    verify(module)
    exec(compile_tree(module, "<taash rules>"), g)  # made from the checked tree only
    return {fdef.name: Compiled(fdef, g[fdef.name], consts[fdef.name]) for fdef in defs}


def _ARGS() -> ast.arguments:
    return ast.arguments([], [ast.arg(p) for p in names.PARAMS], None, [], [], None, [])


def _assign(target: ast.expr, op: str, value: ast.expr) -> ast.stmt:
    if op == "=":
        return ast.Assign([target], value)
    return ast.AugAssign(target, _AUG[op](), value)


def verify(module: ast.Module, more_names=frozenset(), more_attributes=frozenset(), more_nodes=()) -> None:
    """Check the generated module holds only what the compiler makes: the node kinds of
    expressions, assignments and ``if`` (no loop but the comprehensions of quantifiers and
    an effect's ``for``, each over a finite list; no lambda, import...), names that are parameters, helpers or
    compiler-made locals (``_vN``, ``_tN``, ``_qN``), attributes
    from the registry, and int/bool/str constants (and tuples of ints: a row of the card
    table, `fastpath._Params`); ``more_names``/``more_attributes``:
    those of an engine template (`fastpath.FastPath.build_play_legal`), ``more_nodes`` its node
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
