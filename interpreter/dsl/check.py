"""Checking a rule: names resolved (the registry `names`, the file's options, variables,
named expressions of ``define:``, a rule's own ``let`` names and quantifier variables),
arities and types checked, constants folded, from the parse tree to the typed tree ``T``.

Limits: quantifiers (``any``/``all``/``those``) nest at most ``MAX_QUANTIFIER_DEPTH`` deep,
and the named expressions used in one rule expand to at most ``MAX_EXPANSIONS`` parts. A
rule is checked to its end: every problem is reported, by position (``DSLError.errors``).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re

from lark import Token, Tree

from . import names
from .names import BOOL, CARD, CARDS, INT, LIST, NONE, RANK, SEAT, SEATS, SET, SIDE, SIDES, SUIT
from .parse import DefineError, DSLError, ParentError, parse
from .parse import position as _pos
from .parse import suggest as _suggest

# `none` (-1) may stand for a value of these types
_NONEABLE = {SUIT, SEAT, SIDE, CARD}
ERROR = "error"  # the type of a part that did not check: its problem is already reported


def _collecting(method):
    """Wrap ``Checker.value``/``stmt`` so that, while a rule is checked, a problem found in
    a part is recorded (in ``Checker.errors``) and the part becomes an ``error`` node, and
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


# the element type of each set type, for the quantifiers any/all/those and `for`
_ELEMENT = {CARDS: CARD, SEATS: SEAT, SIDES: SIDE}
_QUANTIFIERS = {"any_": "any", "all_": "all", "those": "those"}

# The registry by name (interpreter/dsl/names.py): one entry per name, function, assignable name.
NAMES = names.NAMES            # name -> names.Name, in every rule
HOOK_NAMES = names.HOOK_NAMES  # hook -> {name: names.Name}, only in that hook's rules
# what a hook's rule may not read because it decides it: the trick's winner is found by
# asking `counts_as_trump`, so that rule cannot ask who wins (it would never end)
_DECIDED_BY = {"play.counts_as_trump": frozenset({"trick_winner", "winning_card", "higher", "beats"})}
LVALUES = names.ASSIGNABLE     # name -> names.Assignable, assignable in effects
FUNCTIONS = names.FUNCTIONS    # name -> names.Function

# (partnership, name) -> why the name means nothing there, and what to write instead
NOT_WITH = {("individual", "defenders_side"): "each of the others is a side of his own; "
                                              "name them with opponents(declarer)"}

NOT_CONSTANT = object()  # "not a constant"
_NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")
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
    ``if``, ``for``),
    ``type`` its DSL type (None for a statement), ``const`` its folded value or ``NOT_CONSTANT``,
    ``kids`` its typed children, ``info`` its registry entry, operator or variable."""
    __slots__ = ("op", "type", "const", "kids", "info")

    def __init__(self, op: str, type_: str | None, const=NOT_CONSTANT, kids=(), info=None):
        self.op, self.type, self.const, self.kids, self.info = op, type_, const, list(kids), info

    def __repr__(self):
        c = "" if self.const is NOT_CONSTANT else f"={self.const!r}"
        return f"T({self.op}:{self.type}{c}{' ' + repr(self.kids) if self.kids else ''})"




class Checker:
    """Check the rules of one variant, each to its typed tree.

    ``deck``, ``players``, ``tricks`` (per deal), ``min_bid``, ``max_bid`` are the
    variant's fixed values (folded into the code), ``sides`` their number (2, or one per seat
    with ``partnership: individual``); ``declarations`` and ``answers`` the
    names ``declared()``/``answered()`` accept; ``options`` the option values by name;
    ``denominations`` the no-trump denominations' suit values; ``score_unit`` ``side`` or
    ``seat``; ``defines`` the file's named expressions (name -> text, expanded where
    used, checked at each use; ``check_defines()`` checks them all); ``variables`` the
    variant's own variables, (name, type) in the order of ``State.vars``;
    ``partnership`` the file's (a name that means nothing with it is refused,
    ``NOT_WITH``); ``not_assignable`` the engine's assignable names this file may not
    assign (trump, with a trump hidden from the others), left out of the names an error
    lists as assignable. Set ``no_contract`` when no deal has a contract (`me` is then
    `none` in the declarer's rules, and a did-you-mean offers no name read from it). Rules are added
    with ``add(hook, text, kind)`` (parse tree -> typed tree ``T``: types checked,
    constants folded, ``consts`` set), kept in ``rules`` for the compiler
    (`taash.interpreter.dsl.compiler`). Set ``only_options`` to accept options only (a
    preset's condition), and with it ``flow_values`` (name -> number) for the other
    names a flow's size may read (``deals``: the deal it is worked out for), each read
    noted in ``flow_reads``. ``deal_values``: of a variant built for one deal of a flow
    that changes by deal, its fixed values that change with the deal (``tricks``), noted in
    ``option_reads`` as options are (a rule always false by them is a warning). The
    checker is the registry's ``c`` while it checks (its ``const`` and ``fold`` functions
    read the fixed values).
    """

    def __init__(self, deck, players: int, tricks: int, min_bid: int, max_bid: int,
                 declarations=(), options=None, answers=(), denominations=None,
                 score_unit: str = "side", defines=None, variables=(), partnership: str = "fixed",
                 not_assignable=frozenset()):
        self.deck = deck
        self.players, self.tricks = players, tricks
        self.min_bid, self.max_bid = min_bid, max_bid
        self.declarations = list(declarations)
        self.answers = list(answers)
        self.denominations = dict(denominations or {})
        self.only_options = False
        self.flow_values: dict[str, int] = {}   # with only_options: a flow size's names
        self.flow_reads: set[str] = set()
        # a flow that changes by deal: the fixed values of this deal that differ in others
        # (``tricks``...), read like options: a rule always false by them is a warning
        self.deal_values: dict[str, int] = {}
        self.score_unit = SIDE if score_unit == "side" else SEAT
        self.partnership = partnership
        self.no_contract = False   # no deal has a contract (no auction, no `contract:`)
        self.sides = players if partnership == "individual" else 2
        self.not_assignable = frozenset(not_assignable)
        self.extra = {}
        self.decided = frozenset()
        self.hooks = set()
        self.assigned: set[str] = set()
        self.assigns: dict[str, set[str]] = {}  # hook -> the engine's names its rule assigns
        self.locals = {}
        self.unread = {}
        self.options = dict(options or {})
        # the variant's own variables: name -> (index in State.vars, type)
        self.variables = {v[0]: (i, v[1]) for i, v in enumerate(variables)}
        # those kept per seat or per side: name -> "seat" / "side" (read and set as name[i])
        self.per = {v[0]: v[2] for v in variables if len(v) > 2 and v[2]}
        self.rules: list[tuple[str, T, bool, list]] = []   # (function name, typed tree, effect?, lets)
        self.names: list[str] = []
        self.consts: dict[str, object] = {}
        self.errors: list[DSLError] | None = None  # while add() checks a rule
        self.failed: dict[int, DSLError] = {}     # id of a parse node -> its problem
        # named expressions by name; a key `NAME(a, b: number)` gives parameters
        self.defines: dict[str, str] = {}
        self.define_keys: dict[str, str] = {}          # name -> its key in the file
        self.define_params: dict[str, tuple] = {}      # name -> ((parameter, type or None), ...)
        for k, v in (defines or {}).items():
            try:
                name, params = define_signature(k)
            except ValueError:
                continue   # reported at the key (variant.py)
            self.defines[name] = str(v).lower() if isinstance(v, bool) else str(v)
            self.define_keys[name] = k
            if params is not None:
                self.define_params[name] = params
        self._define_trees: dict[str, Tree] = {}
        self._expanding: list[str] = []   # the defines being expanded, outermost first
        self._q = 0                       # quantifier variables made for this rule
        self._in_quantifiers = 0          # conditions of any/all/those being checked, one inside another
        self._in_for = False              # the body of a `for` is being checked
        self._expansions = 0              # named expressions expanded for this rule
        self.parents: tuple = ()          # the inherited rules `parent` names, parent's first
        self._parent_depth = 0            # inherited rules being expanded, one inside another
        self._kind = None                 # the type of the rule being checked
        self._nv = 0                      # named values (`_vN`) made for this rule
        self.inline: dict[str, T] = {}    # an inherited rule's `let` names: name -> its typed tree
        self.option_reads: list[str] = []  # the options read by the rule being checked, in order
        # problems that are only warnings: (hook, DSLError) of a rule or case that is always
        # false by the value of an option (the meaning intended under that value)
        self.warnings: list[tuple[str, DSLError]] = []
        self.used_defines: set[str] = set()  # named expressions some rule uses
        self._checking_defines = False

    def parse(self, text: str, start: str) -> Tree:
        """`parse.parse`: while a rule is checked to its end, a repaired ``=`` is one of
        its problems and checking goes on. Raises DSLError."""
        return parse(text, start, self.errors)

    def add(self, hook: str, text: str, kind: str, extra_names: str | tuple | None = None,
            parents=()) -> str:
        """Parse and check one rule. ``kind`` is the expected type: ``condition``,
        ``number``, ``cards``, ``seat`` or ``effect``. ``parents``: the rules this one
        replaces in the variants the file extends (the parent's first), which ``parent``
        names. Returns the function's name. Raises DSLError (a problem inside an inherited
        rule is a ``ParentError``)."""
        self.parents, self._kind, self._parent_depth, self._nv, self.inline = tuple(parents), kind, 0, 0, {}
        self.option_reads, self._hook = [], hook
        if not isinstance(text, str):
            text = str(text).lower() if isinstance(text, bool) else str(text)
        self.extra = dict(HOOK_NAMES.get(hook, {}))
        self.decided = _DECIDED_BY.get(hook, frozenset())
        self.hooks = {hook}  # the hook and its extra groups of names (an Assignable's `hook`)
        for extra in ((extra_names,) if isinstance(extra_names, str) else extra_names or ()):
            self.extra.update(HOOK_NAMES.get(extra, {}))
            self.hooks.add(extra)
        self.locals: dict[str, tuple[str, str, object]] = {}   # name -> (variable, type, constant)
        self.assigned = set()  # the engine's names this rule assigns
        self.assigns[hook] = self.assigned
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
                const = NOT_CONSTANT
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
                if hook in names.TABLE_SEAT_HOOKS and not errors:
                    errors.extend(_no_seat(inner, typed, self.me_is_none()))
        finally:
            self.errors = None
        if errors:  # every problem of the rule, by position
            errors.sort(key=lambda e: (e.line, e.column))
            errors[0].errors = errors
            raise errors[0]
        if kind != "effect":
            if kind == BOOL and const is False and getattr(inner, "data", None) != "false" \
                    and not self.only_options:
                if not self.option_reads:
                    raise DSLError("this rule can never be satisfied (it is always false)", *_pos(inner))
                self.warnings.append((hook, DSLError(
                    f"this rule can never be satisfied {self.options_words(self.option_reads)} "
                    "(it is always false)", *_pos(inner))))
            if kind == CARDS and const is not NOT_CONSTANT and not const:
                raise DSLError("this rule never allows a card", *_pos(inner))
            if kind == CARDS and any(map(_outside_hand, [typed] + lets)):
                # cards to play are cards of the hand: keep them to it
                typed = T("call", CARDS, NOT_CONSTANT, [typed, T("name", CARDS, NOT_CONSTANT, info=NAMES["hand"])],
                          FUNCTIONS["intersection"])
        self.rules.append((fname, typed, kind == "effect", lets))
        self.names.append(fname)
        self.consts[fname] = const
        return fname

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
                allowed = ", ".join(sorted(k for k, e in LVALUES.items()
                                           if (not e.hook or e.hook in self.hooks) and k not in self.not_assignable)
                                    + sorted(self.variables))
                if len(lv.children) != 1 or str(op) != "=":
                    raise DSLError(f"cannot assign to '{name}' (assignable: {allowed}; declare a "
                                   f"variable under `variables:`, or write `{name} = ...` to name "
                                   "a value)", *_pos(lv))
                if name in NAMES or name in self.extra or name in FUNCTIONS or name in self.options:
                    what = "an option of the file" if name in self.options else "a name of the engine"
                    raise DSLError(f"'{name}' is {what}: it cannot be assigned (assignable here: "
                                   f"{allowed}); to name a value of your own, choose another name",
                                   *_pos(lv))
                if depth != 1:
                    raise DSLError(f"name '{name}' at the top of the effect, not inside 'when' or 'for'",
                                   *_pos(lv))
                val = self.value(expr)
                etyp = val.type
                if etyp in (CARDS, SEATS, SIDES, LIST, NONE):
                    raise DSLError("a named value must be a number, condition, seat, side, suit or card",
                                   *_pos(expr))
                var = self.locals[name][0] if name in self.locals else self.new_var()
                if name in self.locals and self.locals[name][1] != etyp:
                    raise DSLError(f"'{name}' was {_a(self.locals[name][1])}, not {_a(etyp)}", *_pos(expr))
                if name not in self.locals:
                    self.unread[name] = _pos(lv)
                self.locals[name] = (var, etyp, NOT_CONSTANT)
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
                                   + (f" (this match keeps scores per {want}{_side_hint(want, idx.type)})"
                                      if score else ""), *_pos(lv.children[1]))
            elif len(lv.children) != 1:
                raise DSLError(f"'{name}' cannot be indexed", *_pos(lv))
            else:
                idx = None
            if str(op) != "=" and entry.type != INT:
                raise DSLError(f"'{op}' changes a number; '{name}' is {_a(entry.type)}: write "
                               f"`{name} = ...`", *_pos(lv))
            val = self.value(expr)
            self.expect(expr, val.type, entry.type, f"the value assigned to '{name}'")
            self.assigned.add(name)
            return T("assign", None, kids=[idx, val], info=(entry, str(op)))
        if node.data == "for_stmt":
            return self.for_each(node, depth)
        if node.data == "name":
            if str(node.children[0]) == "parent":
                return self.parent_rule(node, effect=True)
            raise DSLError(f"'{node.children[0]}' alone is not a statement: a statement sets a value "
                           "(`NAME = ...`), or is `when`, `for` or `parent` (the inherited effect)",
                           *_pos(node))
        if node.data == "redeal_stmt":   # `redeal`: the assignable `redeal = true`
            entry = LVALUES["redeal"]
            if entry.hook not in self.hooks:
                raise DSLError(f"'redeal' ends a deal before play: only {entry.hook_words}", *_pos(node))
            self.assigned.add("redeal")
            return T("assign", None, kids=[None, T("const", BOOL, True)], info=(entry, "="))
        if node.data in ("when_stmt", "when_else"):
            cond = self.value(node.children[0])
            self.expect(node.children[0], cond.type, BOOL, "the condition after 'when'")
            body = self.stmt(node.children[1], depth + 1)
            orelse = self.stmt(node.children[2], depth + 1) if node.data == "when_else" else None
            return T("if", None, kids=[cond, body, orelse])
        raise DSLError(f"unexpected statement {node.data}", *_pos(node))

    def for_each(self, node: Tree, depth: int) -> T:
        """``for s in SEATS: STATEMENT`` (or ``for s in SIDES``): the statement once for each
        seat of a set of seats, or side of a set of sides (at most the players), in order;
        not inside another ``for``."""
        tok, set_node, body_node = node.children
        name = self.fresh_name(tok, "the variable of for")
        tset = self.value(set_node)
        if tset.type not in (SEATS, SIDES):
            raise DSLError(f"for goes over seats or sides (such as `seats`, `opponents(declarer)` or "
                           f"`sides`), not {_a(tset.type)}", *_pos(set_node))
        if self._in_for:
            raise DSLError("a `for` inside another `for`: go over the seats once", *_pos(node))
        self._q += 1
        qvar = f"_q{self._q}"
        self.locals[name] = (qvar, _ELEMENT[tset.type], NOT_CONSTANT)
        self._in_for = True
        try:
            body = self.stmt(body_node, depth + 1)
        finally:
            del self.locals[name]
            self._in_for = False
        return T("for", None, kids=[tset, body], info=qvar)

    def assign_variable(self, lv, op: str, expr, name: str) -> T:
        """``NAME = v`` (``+=``, ``-=`` for a number) of a variable of the variant."""
        index, typ = self.variables[name]
        per = self.per.get(name)
        idx = None
        if per:
            if len(lv.children) != 2:
                raise DSLError(f"'{name}' holds one {typ} per {per}: write {name}[{per}] = ...", *_pos(lv))
            idx = self.var_index(name, lv.children[1])
        elif len(lv.children) != 1:
            raise DSLError(f"'{name}' is a variable of one {typ}: it cannot be indexed", *_pos(lv))
        if op != "=" and typ != INT:
            raise DSLError(f"'{op}' changes a number; '{name}' is {_a(typ)}: write `{name} = ...`",
                           *_pos(lv))
        val = self.value(expr)
        self.expect(expr, val.type, typ, f"the value assigned to '{name}'")
        return T("assign_var", None, kids=[val, idx], info=(index, op, typ))

    def var_index(self, name: str, node) -> T:
        """The index of a variable kept per seat or per side (``name[i]``), typed: a seat
        for ``per: seat``, a side for ``per: side`` (one that is `none` when the rule
        runs reads the type's empty value, 0, false or none, and sets nothing)."""
        per = self.per[name]
        idx = self.value(node)
        if idx.type != per:
            raise DSLError(f"index of '{name}' should be {_a(per)} (it holds one value per {per}), "
                           f"not {_a(idx.type)}{_side_hint(per, idx.type)}", *_pos(node))
        return idx

    # -- named parts (let, define) and quantifiers ---------------------------------------
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
        if name in self.locals or name in self.inline:
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
        var = self.new_var()
        self.locals[name] = (var, val.type, val.const)
        return T("let", None, kids=[val], info=var)

    def new_var(self) -> str:
        """A name for a named value of this rule: ``_v0``, ``_v1``..."""
        self._nv += 1
        return f"_v{self._nv - 1}"

    def parent_rule(self, node, effect: bool = False) -> T:
        """``parent``: the rule this one replaces in the variant the file extends, checked
        here (this rule's hook and names) and expanded where it stands, seeing none of this
        rule's own names; in it, ``parent`` names the grandparent's. As a statement of an
        effect (``effect``), the inherited effect's statements. Raises DSLError (no such
        rule), ParentError (a problem in its text)."""
        k = self._parent_depth
        if self._expanding:
            raise DSLError("`parent` names the inherited rule: use it in the rule itself, not in a "
                           "named expression", *_pos(node))
        if k >= len(self.parents):
            raise DSLError("`parent` names the rule this one replaces in the variant the file "
                           "extends" + (", which has none at this place" if k == 0 else
                                        " (here, in the inherited rule: its parent has none)"),
                           *_pos(node))
        self._expansions += 1
        if self._expansions > MAX_EXPANSIONS:
            raise DSLError(f"the named expressions used here expand to more than {MAX_EXPANSIONS} "
                           "parts", *_pos(node))
        text = self.parents[k]
        text = str(text).lower() if isinstance(text, bool) else str(text)
        saved = self.locals, self.inline, self.errors, self.unread
        self.errors, self.locals, self.inline, self.unread = None, {}, {}, {}
        self._parent_depth += 1
        try:
            try:
                tree = parse(text, "effect_rule" if effect else "expr_rule")
            except DSLError as e:
                raise ParentError(e.message, e.line, e.column, k) from None
            if effect:
                return T("block", None, kids=[self.stmt(st, 1) for st in tree.children])
            *let_defs, inner = tree.children
            for d in let_defs:
                tok, expr = d.children
                name = self.fresh_name(tok, "a `let`")
                val = self.value(expr)
                self.inline[name] = val
            return self.value(inner, self._kind)
        except ParentError:
            raise
        except DSLError as e:
            raise ParentError(e.message, e.line, e.column, k) from None
        finally:
            self._parent_depth -= 1
            self.locals, self.inline, self.errors, self.unread = saved

    def define_tree(self, name: str) -> Tree:
        """The parse tree of named expression ``name`` (parsed once). Raises DefineError,
        with every problem of its text in ``errors``."""
        if name not in self._define_trees:
            try:
                tree = self.parse(self.defines[name], "expr_rule")
            except DSLError as e:
                found = [DefineError(x.message, x.line, x.column, self.define_keys[name]) for x in e.errors]
                found[0].errors = found
                raise found[0] from None
            if len(tree.children) > 1:
                raise DefineError("a named expression cannot hold `let`: define each part by name",
                                  *_pos(tree.children[0]), self.define_keys[name])
            self._define_trees[name] = tree.children[0]
        return self._define_trees[name]

    def define(self, node, name: str, args: dict | None = None) -> T:
        """A name of the file's ``define:`` map, expanded where it is used: its typed tree,
        checked in the rule's context (its hook's names), seeing no name of the rule's own
        (``let``, quantifier variables). Recursion is refused at the use that closes the
        cycle. ``args``: a parameterized one's arguments, parameter -> typed tree (checked
        in the caller's context, expanded where the parameter stands). Raises DefineError
        for a problem in its text."""
        if args is None and name in self.define_params:
            n = len(self.define_params[name])
            raise DSLError(f"'{name}' takes {n} argument{'s' if n != 1 else ''} "
                           f"({', '.join(p for p, _ in self.define_params[name])}): write {name}(...)",
                           *_pos(node))
        if not self._checking_defines:
            self.used_defines.add(name)
        if name in self._expanding:
            cycle = self._expanding[self._expanding.index(name):] + [name]
            raise DSLError(f"'{name}' is defined in terms of itself ({' -> '.join(cycle)}); "
                           "named expressions cannot be recursive", *_pos(node))
        self._expansions += 1
        if self._expansions > MAX_EXPANSIONS:
            raise DSLError(f"the named expressions used here expand to more than {MAX_EXPANSIONS} "
                           "parts: name a part once with `let`", *_pos(node))
        saved, collecting, inline = self.locals, self.errors, self.inline
        self.errors = None  # a problem inside is the named expression's: raised, located there
        try:
            tree = self.define_tree(name)
            self.locals, self.inline = {}, dict(args or {})
            self._expanding.append(name)
            try:
                return self.value(tree)
            except DefineError:
                raise
            except DSLError as e:
                raise DefineError(e.message, e.line, e.column, self.define_keys[name]) from None
            finally:
                self._expanding.pop()
        finally:
            self.locals, self.errors, self.inline = saved, collecting, inline

    def check_defines(self) -> dict[str, str]:
        """Check every named expression on its own (with the names of every hook), so that
        one no rule uses is checked too, each to its end as a rule is. Returns {name: type}.
        Raises DefineError: the first problem, with every problem in ``errors`` (by named
        expression, then by position). A problem inside another named expression it uses is
        kept only if that one is checked later, so that each is reported once (and a cycle
        once, where it closes)."""
        self.extra = {k: v for h in HOOK_NAMES.values() for k, v in h.items()}
        self.hooks = set()   # every rule's names and functions: checked again at each use
        self._checking_defines, self._hook = True, "define"
        try:
            return self._check_defines()
        finally:
            self._checking_defines = False

    def _check_defines(self) -> dict[str, str]:
        out, problems, checked = {}, [], set()
        for name in self.defines:
            params = self.define_params.get(name, ())
            if any(t is None for _, t in params):
                continue   # a parameter of no given type: checked at each use, with its argument
            self.locals, self._expansions, self.failed = {}, 0, {}
            self.inline = {p: T("local", t, NOT_CONSTANT, info="_p") for p, t in params}
            self.errors = errors = []
            self._expanding.append(name)
            try:
                out[name] = self.value(self.define_tree(name)).type
            except DSLError as e:
                errors.extend(e.errors)
            finally:
                self._expanding.pop()
                self.errors, self.inline = None, {}
            for e in sorted(errors, key=lambda e: (e.line, e.column)):
                if not isinstance(e, DefineError):  # in this one's own text
                    problems.append(DefineError(e.message, e.line, e.column, self.define_keys[name]))
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
        const = NOT_CONSTANT if t.const is NOT_CONSTANT else (nr - t.const if t.const >= 0 else 0)
        return T("strength", INT, const, [t])

    def quantifier(self, node: Tree) -> T:
        """``any(x in SET: cond)``, ``all(x in SET: cond)``, ``those(x in SET: cond)`` over a
        set of cards, seats or sides (finite, so the rule terminates)."""
        tok, set_node, body_node = node.children
        op = _QUANTIFIERS[node.data]
        name = self.fresh_name(tok, "the variable of " + op)
        tset = self.value(set_node)
        if tset.type not in _ELEMENT:
            raise DSLError(f"{op}(...) goes over cards, seats or sides, not {_a(tset.type)}", *_pos(set_node))
        if self._in_quantifiers >= MAX_QUANTIFIER_DEPTH:
            raise DSLError(f"{op}(...) inside {MAX_QUANTIFIER_DEPTH} others: any, all and those nest at most "
                           f"{MAX_QUANTIFIER_DEPTH} deep (each goes over up to a deck of cards, and each level "
                           "multiplies the work of the rule)", *_pos(node))
        self._q += 1
        qvar = f"_q{self._q}"
        self.locals[name] = (qvar, _ELEMENT[tset.type], NOT_CONSTANT)
        self._in_quantifiers += 1
        try:
            body = self.value(body_node)
        finally:
            del self.locals[name]
            self._in_quantifiers -= 1
        self.expect(body_node, body.type, BOOL, f"the condition of {op}(...)")
        return T(op, tset.type if op == "those" else BOOL, NOT_CONSTANT, [tset, body], qvar)

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
            return T("neg", INT, -a.const if a.const is not NOT_CONSTANT else NOT_CONSTANT, [a])
        if d == "not_":
            a = self.value(ch[0])
            self.expect(ch[0], a.type, BOOL, "the operand of 'not'")
            return T("not", BOOL, (not a.const) if a.const is not NOT_CONSTANT else NOT_CONSTANT, [a])
        if d in ("and_", "or_"):
            parts = [self.value(c) for c in ch]
            for c, p in zip(ch, parts):
                self.expect(c, p.type, BOOL, f"each side of '{d[:-1]}'")
            consts = [p.const for p in parts]
            const = NOT_CONSTANT
            if all(c is not NOT_CONSTANT for c in consts):
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
            return T("otherwise", CARDS, NOT_CONSTANT, parts)
        if d == "cond":
            a, c, b = ch
            ta, tc, tb = self.value(a), self.value(c), self.value(b)
            at, bt = ta.type, tb.type
            self.expect(c, tc.type, BOOL, "the condition after 'if'")
            typ = at if at != NONE else bt
            if at != bt and not (NONE in (at, bt) and typ in _NONEABLE | {NONE}):
                raise DSLError(f"both branches of 'if ... else' should have one type, "
                               f"not {at} and {bt}", *_pos(node))
            const = ta.const if tc.const is True else tb.const if tc.const is False else NOT_CONSTANT
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
            const = NOT_CONSTANT
            if ta.const is not NOT_CONSTANT and tb.const is not NOT_CONSTANT:
                const = _COMPARE[op](ta.const, tb.const)
            return T("compare", BOOL, const, [ta, tb], op)
        if d in ("member", "not_member"):
            a, b = ch
            ta, tb = self.value(a), self.value(b)
            at, bt = ta.type, tb.type
            if not ((at == CARD and bt == CARDS) or (at == INT and bt == LIST)
                    or (at == SEAT and bt == SEATS) or (at == SIDE and bt == SIDES)):
                raise DSLError(f"'in' needs a card and cards (a seat and seats, a side and sides, a "
                               f"number and a list), not {_a(at)} and {_a(bt)}", *_pos(node))
            return T("compare", BOOL, NOT_CONSTANT, [ta, tb], "in" if d == "member" else "not in")
        if d == "binop":
            a, op, b = ch
            ta, tb = self.value(a), self.value(b)
            op = str(op)
            self.expect(a, ta.type, INT, f"the left side of '{op}'")
            self.expect(b, tb.type, INT, f"the right side of '{op}'")
            if op in ("//", "%") and tb.const == 0:
                raise DSLError("division by zero", *_pos(b))
            const = NOT_CONSTANT
            if ta.const is not NOT_CONSTANT and tb.const is not NOT_CONSTANT:
                const = _ARITH[op](ta.const, tb.const)
            return T("binop", INT, const, [ta, tb], op)
        if d == "index":
            a, i = ch
            vname = str(a.children[0]) if getattr(a, "data", "") == "name" else ""
            if vname in self.per and vname not in self.locals:
                index, typ = self.variables[vname]
                return T("var_at", typ, NOT_CONSTANT, [self.var_index(vname, i)], info=index)
            ta, ti = self.value(a), self.value(i)
            if ta.type != LIST:
                raise DSLError(f"only a list can be indexed, not {_a(ta.type)}", *_pos(node))
            if ti.type != self.score_unit:
                raise DSLError(f"an index of the score should be a {self.score_unit}, not {_a(ti.type)} "
                               f"(this match keeps scores per {self.score_unit}"
                               f"{_side_hint(self.score_unit, ti.type)})", *_pos(i))
            return T("index", INT, NOT_CONSTANT, [ta, ti])
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
                reads = len(self.option_reads)
                tc = self.value(c.children[0])
                try:
                    self.expect(c.children[0], tc.type, BOOL, "the condition after 'when'")
                except DSLError as e:
                    self.report(e)
                if tc.const is False and len(self.option_reads) > reads:   # by an option's value
                    if not self._expanding and not self._parent_depth:   # (else placed in another text)
                        self.warnings.append((self._hook, DSLError(
                            f"this case can never apply {self.options_words(self.option_reads[reads:])} "
                            "(its condition is always false)", *_pos(c.children[0]))))
                elif tc.const is False:
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
        return T("cases", typ, NOT_CONSTANT, kids, default)

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
        if not deck.whole and text in deck.text:
            raise DSLError(f"\"{text}\" is not a card of this deck (its suit and rank are, but the "
                           "deck leaves the card out)", *_pos(node))
        raise DSLError(f"\"{text}\" is not a suit, rank or card of this deck"
                       f" (suits {' '.join(deck.suits)}, ranks {' '.join(deck.ranks)})", *_pos(node))

    def options_words(self, reads) -> str:
        """The options read, with their values: ``with double = false, stake = 2``; then
        the deal's values read (``deal_values``): ``in this deal (tricks = 8)``."""
        reads = list(dict.fromkeys(reads))
        said = ", ".join(f"{k} = {str(self.options[k]).lower()}" for k in reads if k not in self.deal_values)
        deal = ", ".join(f"{k} = {self.deal_values[k]}" for k in reads if k in self.deal_values)
        return ", ".join(filter(None, (said and f"with {said}", deal and f"in this deal ({deal})")))

    def option(self, name: str) -> T:
        self.option_reads.append(name)
        v = self.options[name]
        return T("const", BOOL, v) if isinstance(v, bool) else T("const", INT, int(v))

    def name(self, node, name: str) -> T:
        if self.only_options:
            if name in self.options:
                return self.option(name)
            if name in self.flow_values:
                self.flow_reads.add(name)
                return T("const", INT, self.flow_values[name])
            more = f"; a flow's size may also read {', '.join(self.flow_values)}" if self.flow_values else ""
            raise DSLError(f"'{name}' is not an option; a preset's condition or a flow's size may use only options "
                           f"({', '.join(self.options) or 'none declared'}){more}", *_pos(node))
        if name in self.inline:
            return self.inline[name]
        if name == "parent":
            return self.parent_rule(node)
        if name in self.locals:
            var, typ, const = self.locals[name]
            self.unread.pop(name, None)
            if const is not NOT_CONSTANT:
                return T("const", typ, const)
            return T("local", typ, NOT_CONSTANT, info=var)
        if name in self.variables:
            index, typ = self.variables[name]
            if name in self.per:
                raise DSLError(f"'{name}' holds one {typ} per {self.per[name]}: write "
                               f"{name}[{self.per[name]}]", *_pos(node))
            return T("var", typ, NOT_CONSTANT, info=index)
        if name in self.defines:
            return self.define(node, name)
        entry = self.extra.get(name) or NAMES.get(name)
        if entry is not None:
            self.not_decided(node, name, entry.reads)
            why = NOT_WITH.get((self.partnership, name))
            if why:
                raise DSLError(f"'{name}' means nothing with `partnership: {self.partnership}`: {why}",
                               *_pos(node))
            if entry.const is not None:
                if name in self.deal_values:
                    self.option_reads.append(name)
                return T("const", entry.type, entry.const(self))
            return T("name", entry.type, NOT_CONSTANT, info=entry)
        if name in self.options:
            return self.option(name)
        for hook, hook_names in HOOK_NAMES.items():
            if name in hook_names:
                raise DSLError(f"'{name}' is only available in {hook}", *_pos(node))
        if name in FUNCTIONS:
            raise DSLError(f"'{name}' is a function: write {name}(...)", *_pos(node))
        known = {n: e.type for n, e in NAMES.items() if not (n in names.READS_ME and self.me_is_none())}
        known.update({n: e.type for n, e in self.extra.items()})
        known.update({n: BOOL if isinstance(v, bool) else INT for n, v in self.options.items()})
        known.update({n: None for n in self.defines})  # type known only once expanded
        known.update({n: t for n, (_, t, *_) in self.locals.items()})
        e = DSLError(f"unknown name '{name}'{_suggest(name, known)}", *_pos(node))
        e.unknown = (name, known)
        raise e

    def me_is_none(self) -> bool:
        """Whether `me` is `none` in the rule being checked (names.ME): a rule asked for the
        table, or the declarer's in a variant without a contract (``no_contract``)."""
        return (names.ME.get(self._hook, "").startswith("`none`")
                or (self.no_contract and self._hook in names.ME_IS_DECLARER))

    def not_decided(self, node, name: str, reads) -> None:
        """Raise DSLError if ``name`` reads what this rule decides (``_DECIDED_BY``)."""
        if self.decided.intersection(reads):
            raise DSLError(f"'{name}' cannot be used here: who wins the trick depends on this rule",
                           *_pos(node))

    def define_call(self, node, name: str, args) -> T:
        """``NAME(a, ...)`` of a named expression with parameters: the arguments checked
        here (their number, and the type of each parameter given one), then the named
        expression expanded with each parameter standing for its argument."""
        params = self.define_params.get(name)
        if params is None:
            raise DSLError(f"'{name}' is a named expression without parameters: write {name}, "
                           f"not {name}(...)", *_pos(node))
        vals = [self.value(a) for a in args]
        if len(vals) != len(params):
            raise DSLError(f"{name}() takes {len(params)} argument{'s' if len(params) != 1 else ''} "
                           f"({', '.join(p for p, _ in params)}), not {len(vals)}", *_pos(node))
        bad = False
        for i, (a, v, (p, want)) in enumerate(zip(args, vals, params)):
            if v.type == ERROR:
                bad = True
            elif want is not None:
                try:
                    self.expect(a, v.type, want, f"argument {i + 1} of {name}() ({p})")
                except DSLError as e:
                    self.report(e)
                    bad = True
            elif v.type == NONE:
                self.report(DSLError(f"argument {i + 1} of {name}() ({p}) is none: give it a type "
                                     f"in the key ({p}: seat, say) or pass a value", *_pos(a)))
                bad = True
        if bad:
            return T("error", ERROR)
        return self.define(node, name, {p: v for (p, _), v in zip(params, vals)})

    def call(self, node) -> T:
        fname = str(node.children[0])
        args = node.children[1:]
        if fname in self.defines and fname not in self.locals and fname not in self.inline:
            return self.define_call(node, fname, args)
        if fname not in FUNCTIONS:
            raise DSLError(f"unknown function '{fname}'{_suggest(fname, FUNCTIONS)}", *_pos(node))
        f = FUNCTIONS[fname]
        self.not_decided(node, fname, f.reads)
        if f.only and self.hooks and not self.hooks.intersection(f.only):
            raise DSLError(f"{fname}() reads every hand: only the rules that name a seat for the table "
                           f"have it ({', '.join(f.only)})", *_pos(node))
        types, result = f.args, f.type
        named = (names.DECLARATION,), (names.ANSWER,)
        if types in named and len(args) == 1 and getattr(args[0], "data", "") == "string":
            text = str(args[0].children[0])[1:-1]
            known = self.declarations if types == named[0] else self.answers
            if text not in known:
                what = "declaration" if types == named[0] else "question and answer"
                raise DSLError(f"no {what} named \"{text}\" (this variant's: "
                               f"{', '.join(known) or 'none'}){_suggest(text, known)}", *_pos(args[0]))
            return T("call", result, NOT_CONSTANT, [T("const", types[0], known[known.index(text)])], f)
        vals = [self.value(a) for a in args]
        consts = [v.const for v in vals]
        if types == (names.INTS,):
            if not vals:
                raise DSLError(f"{fname}() needs at least one argument", *_pos(node))
            if len(vals) == 1 and vals[0].type == LIST:
                return T("call_list", INT, NOT_CONSTANT, vals, f)
            if len(vals) == 1:
                if vals[0].type == ERROR:   # a misspelt name: a number, or a list of them, is wanted
                    e = self.failed.get(id(args[0]))
                    if e is not None and e.unknown is not None:
                        _typed_hint(e, (INT, LIST))
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
                                       f"{set_type or 'cards, seats or sides'}, not {_a(v.type)}", *_pos(a))
                    set_type = v.type
                    continue
                if want == names.ANSWER:
                    if v.const not in self.answers:
                        raise DSLError(f"{fname}() takes a question and its answer as a string "
                                       f"({', '.join(self.answers) or 'no question defined'})", *_pos(a))
                    continue
                if want == names.SEAT_OR_SIDE:
                    if v.type == SIDE and f.build_side is not None:
                        f = dataclasses.replace(f, build=f.build_side)
                    elif v.type not in (SEAT, SIDE, NONE, ERROR):
                        raise DSLError(f"argument {i + 1} of {fname}() should be a seat or a side, "
                                       f"not {_a(v.type)}", *_pos(a))
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
        const = NOT_CONSTANT
        if f.fold is not None and all(c is not NOT_CONSTANT for c in consts):
            const = f.fold(self, *consts)
        return T("call", result, const, vals, f)


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "//": lambda a, b: a // b, "%": lambda a, b: a % b}


def _no_seat(node, typed: T, me_none: bool = False) -> list[DSLError]:
    """The problems of a rule that names a seat for the table (names.TABLE_SEAT_HOOKS)
    and can be seen, at load, to name none: a `none` where its value is given (a case,
    a branch of `if ... else`), a name read from `me` there when ``me_none`` (`me` is
    none in this rule: `me`, `partner`...), cases without `else`, or a value that is none
    by its constants alone (`next(none)`). A value read from the deal (the holder of a
    card, the partner of a seat) is found only at run time (phase.table_seat)."""
    if typed.const is not NOT_CONSTANT and typed.const == -1:
        return [DSLError("this rule names no seat (it is always none); it must name a seat", *_pos(node))]
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        d = getattr(n, "data", None)
        if d == "none":
            out.append(DSLError("`none` here names no seat; this rule must name a seat", *_pos(n)))
        elif d == "name" and me_none and str(n.children[0]) in names.READS_ME:
            out.append(DSLError(f"`{n.children[0]}` is none here (this rule is asked for the table, not "
                                "for a player), so it names no seat; this rule must name a seat (e.g. "
                                "`dealer`, `next(dealer)`, `holder_of(\"AS\")`)", *_pos(n)))
        elif d == "cond":
            stack += [n.children[0], n.children[2]]
        elif d == "cases":
            for c in n.children:
                stack.append(c.children[-1])
            if not any(getattr(c, "data", None) == "default_case" for c in n.children):
                out.append(DSLError("when no case applies this rule names no seat: end it with "
                                    "`else: SEAT`", *_pos(n)))
    return sorted(out, key=lambda e: (e.line, e.column))


def _outside_hand(t) -> bool:
    """Whether a typed tree reads a set of cards that may hold cards not in the hand."""
    stack = [t]
    while stack:
        n = stack.pop()
        if n.op in ("name", "call") and getattr(n.info, "outside_hand", False):
            return True
        stack.extend(k for k in n.kids if isinstance(k, T))
        if isinstance(n.info, T):
            stack.append(n.info)
    return False



def _side_hint(want: str, got: str) -> str:
    """What to write where a side is wanted and ``got`` stands: a seat's side, or a side
    named (a side has no number literal); "" otherwise."""
    if want != SIDE or got == ERROR:
        return ""
    if got == SEAT:
        return "; the side of a seat is side(SEAT)"
    return ("; a side is named, not numbered: my_side, declarer_side, side(SEAT), or each in turn "
            "with `for s in sides`")


def _a(typ: str) -> str:
    """A type as a message names one value of it: "a number", "an answer", but "cards",
    "seats", "none" (a set or nothing takes no article).

    >>> _a(CARDS), _a(INT), _a(names.ANSWER)
    ('cards', 'a number', 'an answer')
    """
    if typ in (CARDS, SEATS, SIDES, NONE, SET):
        return typ
    return ("an " if typ[0] in "aeiou" else "a ") + typ


def _typed_hint(e: DSLError, want: str | tuple) -> None:
    """Reword the unknown-name problem ``e`` to suggest the closest known name of type
    ``want`` (a type, or a tuple of the types that fit) (difflib), when one is close
    enough."""
    name, known = e.unknown
    wants = want if isinstance(want, tuple) else (want,)
    # (a named expression's type is known only once expanded: it may be of the type)
    typed = [n for n, t in known.items()
             if t is None or t in wants or (t == NONE and any(w in _NONEABLE for w in wants))]
    m = difflib.get_close_matches(name, typed, n=1)
    if m and known[m[0]] is None:
        e.reword(f"unknown name '{name}' (did you mean '{m[0]}'?)")
    elif m:
        e.reword(f"unknown name '{name}' (did you mean '{m[0]}', of type {known[m[0]]}?)")
    else:   # nothing of the wanted type is close: no name of another type is offered
        e.reword(f"unknown name '{name}'")
    e.unknown = None  # hinted once, at the innermost place that wants a type



# the types a parameter of a named expression may be given: `NAME(p: TYPE)`
PARAM_TYPES = (INT, BOOL, SEAT, SIDE, SUIT, RANK, CARD, CARDS, SEATS, SIDES)


def define_signature(key: str) -> tuple[str, tuple | None]:
    """A key of ``define:``: ``NAME`` -> (NAME, None); ``NAME(a, b: number)`` -> (NAME,
    (("a", None), ("b", "number"))), a parameter without a type taking its argument's.
    Raises ValueError saying what is wrong with the key.

    >>> define_signature("bonus(n: number, s)")
    ('bonus', (('n', 'number'), ('s', None)))
    """
    head, paren, rest = str(key).partition("(")
    head = head.strip()
    if not _NAME_RE.fullmatch(head):
        raise ValueError(f"{key!r}: a name of lowercase letters, digits and '_', starting with a letter "
                         "(with parameters: name(a, b: number))")
    if not paren:
        return head, None
    if not rest.endswith(")"):
        raise ValueError(f"{key!r}: the parameters end with ')': name(a, b: number)")
    inner = rest[:-1].strip()
    if not inner:
        raise ValueError(f"{key!r}: a named expression without parameters is written without "
                         f"brackets: {head}")
    params, seen = [], set()
    for part in inner.split(","):
        p, colon, typ = (x.strip() for x in part.partition(":"))
        if not _NAME_RE.fullmatch(p):
            raise ValueError(f"{key!r}: {p!r} is not a parameter name (lowercase letters, digits and '_')")
        if p in seen:
            raise ValueError(f"{key!r}: the parameter {p!r} is named twice")
        if colon and typ not in PARAM_TYPES:
            raise ValueError(f"{key!r}: {typ!r} is not a type of a parameter (one of "
                             f"{', '.join(PARAM_TYPES)})")
        seen.add(p)
        params.append((p, typ if colon else None))
    return head, tuple(params)
