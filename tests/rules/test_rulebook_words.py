"""The rulebook states each rule as the engine plays it (issue 42): the words of every
rule of every shipped variant, house rule and worked example (docs/examples), and of
random expressions, are parsed back by a grammar of the words, and the one tree they
read as must be the rule's own tree.

The grammar of the words (`WordsGrammar`) is a reader's: its phrases are the registry's
words of each name and function (taash.interpreter.dsl.names), with a hole where an
argument goes, and the operators' words ("if ..., else", "and", "or", "not (...)", "is at
least", "plus", "minus"...) at the DSL's levels of binding; brackets group. A reader
takes an argument at the left end of a function's words to end there ("(the player after
X) of Y" is bracketed when meant so) and one within them to be closed at both ends. The
words of a rule must parse to exactly one tree (no two readings) and that tree must be
the DSL tree (its `canonical` form: names as their words, seats around the dealer as
their distance from him, functions as their words with holes). Nested conditionals,
`and` within `or`, arithmetic, negation, calls within calls, `when`/`otherwise` and `for`
in effects are all checked this way.
"""

from __future__ import annotations

import itertools
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Lark, Token
from lark.exceptions import UnexpectedInput

from taash.interpreter import load_variant, shipped_variants
from taash.interpreter.dsl import names, parser
from taash.interpreter.loader import load_raw
from taash.interpreter.rulebook import render
from taash.interpreter.wording import (KEYWORD_WORDS, NONE_WORDS, RANK_NAMES, SUIT_NAMES, literal_words,
                                       name_words, rule_words, seat_offset, seat_words)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.yaml"))
HOLE = "\x00"
OPS = {"is": "==", "are": "==", "is not": "!=", "are not": "!=", "is less than": "<",
       "are less than": "<", "is at most": "<=", "are at most": "<=", "is more than": ">",
       "are more than": ">", "is at least": ">=", "are at least": ">=", "ranks below": "<",
       "ranks at most": "<=", "ranks above": ">", "ranks at least": ">="}
BINOPS = {"plus": "+", "minus": "-", "times": "*", "divided by": "//", "modulo": "%"}
NONE = ("none",)
MAX_ARGS = 3   # calls of a function of numbers (`max`, `min`) with up to this many


def template(f: names.Function, n: int) -> str:
    return f.words([f"{HOLE}{i}" for i in range(n)])


def arities(f: names.Function) -> range:
    return range(1, MAX_ARGS + 1) if f.args == (names.INTS,) else range(len(f.args), len(f.args) + 1)


# -- the DSL tree, canonical -------------------------------------------------------------
def canonical(node, v):
    """The tree of a parsed DSL rule as the words must give it back: nested tuples."""
    if isinstance(node, Token):
        return str(node)
    d, ch = node.data, node.children
    if v is not None and seat_offset(node) is not None:
        return ("seat", seat_offset(node) % v.players)
    if d == "expr_rule":
        *lets, body = ch
        return ("rule", tuple(canonical(x, v) for x in lets), canonical(body, v))
    if d == "let_def":
        return ("let", str(ch[0]), canonical(ch[1], v))
    if d == "cases":
        return ("cases", tuple(canonical(x, v) for x in ch))
    if d == "case":
        return ("case", canonical(ch[0], v), canonical(ch[1], v))
    if d == "default_case":
        return ("default", canonical(ch[0], v))
    if d == "number":
        return ("num", int(ch[0]))
    if d in ("true", "false"):
        return ("leaf", d)
    if d == "none":
        return NONE
    if d == "string":
        return ("leaf", literal_words(str(ch[0])[1:-1]))
    if d == "name":
        return ("leaf", name_words(str(ch[0]), v))
    if d in ("and_", "or_", "otherwise"):
        return (d, tuple(canonical(x, v) for x in ch))
    if d in ("not_", "neg"):
        return (d, canonical(ch[0], v))
    if d == "cond":
        return ("cond", *(canonical(x, v) for x in ch))
    if d in ("compare", "binop"):
        return (d, str(ch[1]), canonical(ch[0], v), canonical(ch[2], v))
    if d in ("member", "not_member"):
        return (d, canonical(ch[0], v), canonical(ch[1], v))
    if d == "index":
        return ("call", f"{HOLE}0 of {HOLE}1", (canonical(ch[0], v), canonical(ch[1], v)))
    if d == "call":
        f = names.FUNCTIONS[str(ch[0])]
        return ("call", template(f, len(ch) - 1), tuple(canonical(x, v) for x in ch[1:]))
    if d in ("any_", "all_", "those"):
        return (d, str(ch[0]), canonical(ch[1], v), canonical(ch[2], v))
    if d == "effect_rule":
        return ("effect", tuple(canonical(x, v) for x in ch))
    if d == "redeal_stmt":   # `redeal`: `redeal = true`
        return ("assign", "redeal", None, "=", ("leaf", "true"))
    if d == "assign":
        lv, op, e = ch
        index = canonical(lv.children[1], v) if len(lv.children) == 2 else None
        return ("assign", str(lv.children[0]), index, str(op), canonical(e, v))
    if d == "when_stmt":
        return ("when", canonical(ch[0], v), canonical(ch[1], v))
    if d == "when_else":
        return ("when_else", canonical(ch[0], v), canonical(ch[1], v), canonical(ch[2], v))
    if d == "for_stmt":
        return ("for", str(ch[0]), canonical(ch[1], v), canonical(ch[2], v))
    raise AssertionError(f"no canonical form for {d}")


# -- the grammar of the words -------------------------------------------------------------
def lit(text: str) -> str:
    return json.dumps(text)


def edges(t: str) -> tuple[bool, bool]:
    """Whether a function's words begin (end) with a hole."""
    return t.startswith(HOLE), bool(re.search(f"{HOLE}[0-9]+$", t))


# the kind of atom a function's words make, by their open ends: closed, open at the left, at
# the right, at both; a rule with no alternative matches nothing (a character no words have)
EDGE_KIND = {(False, False): "c", (True, False): "lo", (False, True): "ro", (True, True): "lro"}
NOTHING = '"\\x01"'


class WordsGrammar:
    """A Lark (Earley, every reading kept) grammar of the words of rules: ``names`` the
    variant's own names (options, named expressions, variables, locals, bound names),
    ``strings`` its string literals, ``v`` the variant (seats around the dealer) or None."""

    def __init__(self, own: set[str], strings: set[str], v=None):
        self.leaves: dict[str, object] = {}   # alias -> canonical
        self.templates: dict[str, str] = {}   # alias -> template
        leaf_words: dict[str, object] = {}
        for e in names.NAME_ENTRIES:
            leaf_words[e.words] = ("leaf", e.words)
        for n in own:   # a variable of the variant in code font (`won_by`)
            leaf_words[name_words(n, v)] = ("leaf", name_words(n, v))
        for s in strings:
            leaf_words[literal_words(s)] = ("leaf", literal_words(s))
        for w in (*SUIT_NAMES.values(), *RANK_NAMES.values()):
            leaf_words[w] = ("leaf", w)
        for r in RANK_NAMES.values():
            for s in SUIT_NAMES.values():
                leaf_words[f"the {r} of {s}"] = ("leaf", f"the {r} of {s}")
        leaf_words["true"], leaf_words["false"] = ("leaf", "true"), ("leaf", "false")
        for w in (KEYWORD_WORDS["none"], *NONE_WORDS.values(), names.NONE_SUIT_WORDS):
            leaf_words[w] = NONE
        leaf_words["cards in hand"] = ("leaf", "any card in hand")   # `count(hand)`'s words
        if v is not None:   # the seats around the dealer (the dealer among them)
            leaf_words.pop("the dealer", None)
            leaf_words.pop(name_words("eldest"), None)
            for k in range(v.players):
                leaf_words[seat_words(v, k)] = ("seat", k)
            leaf_words[seat_words(v, 1, eldest=True)] = ("seat", 1)
        for e in names.NAME_ENTRIES:
            if e.words_not:
                leaf_words[e.words_not] = ("not_", ("leaf", e.words))
        self.own = sorted(own)
        self.v = v
        atoms = {"c": [], "lo": [], "ro": [], "lro": []}
        for i, (w, form) in enumerate(sorted(leaf_words.items())):
            self.leaves[f"l{i}"] = form
            atoms["c"].append(f"{lit(w)} -> l{i}")
        seen = {}   # a function's words in the grammar -> its words with holes
        for f in names.FUNCTION_ENTRIES:
            for n in arities(f):
                t = template(f, n)
                seen.setdefault(self.alternative(t, f.args * n if f.args == (names.INTS,) else f.args), t)
        seen.setdefault(f"list_leaf {lit('of')} atom", f"{HOLE}0 of {HOLE}1")   # an index: `score[side]`
        for j, (alt, t) in enumerate(seen.items()):
            self.templates[f"t{j}"] = t
            atoms[EDGE_KIND[edges(t)]].append(f"{alt} -> t{j}")
        # a set of cards or seats where a function's words begin with one ("X of trump"):
        # the registry's sets, the file's own names, a part in brackets
        sets = [f"{lit(e.words)} -> l_{e.name}" for e in names.NAME_ENTRIES
                if e.type in (names.CARDS, names.SEATS, names.SIDES) and e.words in leaf_words]
        sets.append(f'{lit("cards in hand")} -> l_hand')   # `count(hand)`'s words
        for e in names.NAME_ENTRIES:
            self.leaves[f"l_{e.name}"] = ("leaf", e.words)
        lists = [f"{lit(e.words)} -> l_{e.name}" for e in names.NAME_ENTRIES if e.type == names.LIST]
        # the words a function gives a special argument: `max(score)`, `only(hand, c)`
        f_max, f_min, f_only = names.FUNCTIONS["max"], names.FUNCTIONS["min"], names.FUNCTIONS["only"]
        specials = [(f_max, '"the highest score"'), (f_min, '"the lowest score"')]
        for k, (f, words) in enumerate(specials):
            self.templates[f"x{k}"] = template(f, 1)
            atoms["c"].append(f"{words} -> x{k}")
        self.templates["y0"] = template(f_only, 2)
        atoms["lo"].append('atom_rc "if in hand" -> y0')
        own_rule = " | ".join(f"{lit(name_words(n, v))} -> o{i}" for i, n in enumerate(self.own)) or NOTHING
        cmp_rule = " | ".join(f"{lit(w)} -> op{i}" for i, w in enumerate(OPS))
        alts = {k: " | ".join(a) or NOTHING for k, a in atoms.items()}
        grammar = rf"""
            expr: cond_e
            ?cond_e: alt_e
                | alt_e "if" alt_e ", else" cond_e                -> cond
                | "for some" VAR "among" atom "," cond_e          -> any_
                | "for every" VAR "among" atom "," cond_e         -> all_
                | "those" VAR "among" atom "for which" cond_e     -> those
            ?alt_e: or_e | or_e ("; if none," or_e)+              -> otherwise
            ?or_e: and_e | not_e ("or" not_e)+                    -> or_
            ?and_e: not_e | not_e ("and" not_e)+                  -> and_
            ?not_e: cmp_e | "not" "(" cond_e ")"                  -> not_
            ?cmp_e: sum_e
                | sum_e cmpop sum_e                               -> compare
                | sum_e "exists"                                  -> exists
                | prod_e ("is" | "are") "a multiple of" unary_e   -> multiple
                | prod_e ("is" | "are") "not a multiple of" unary_e -> not_multiple
                | prod_e ("leaves" | "leave") INT "when divided by" unary_e -> leaves
                | prod_e ("does" | "do") "not leave" INT "when divided by" unary_e -> not_leaves
                | sum_e "is among" sum_e                          -> member
                | sum_e "is not among" sum_e                      -> not_member
            cmpop: {cmp_rule}
            ?sum_e: prod_e | sum_e addop prod_e                   -> binop
            ?prod_e: unary_e | prod_e mulop unary_e               -> binop
            addop: "plus" -> b0 | "minus" -> b1
            mulop: "times" -> b2 | "divided by" -> b3 | "modulo" -> b4
            ?unary_e: atom | "minus" unary_e                      -> neg
            ?atom: atom_c | atom_lo | atom_ro | atom_lro
            ?atom_rc: atom_c | atom_lo
            atom_c: {alts["c"]} | INT -> num | "(" cond_e ")" -> group
            atom_lo: {alts["lo"]}
            atom_ro: {alts["ro"]}
            atom_lro: {alts["lro"]}
            ?atom_set: {" | ".join(sets)} | own_leaf | "(" cond_e ")" -> group
            list_leaf: {" | ".join(lists)}
            own_leaf: {own_rule}

            let_line: "let *" LETNAME "* be" cond_e "; then"
            case_line: "- when" cond_e ":" cond_e                 -> case
                | "- otherwise:" cond_e                           -> default
            line: "when" cond_e ":" assign?                       -> when
                | "otherwise:" assign?                            -> otherwise_
                | "for each seat" VAR ":" assign?                 -> for_seats
                | "for each side" VAR ":" assign?                 -> for_sides
                | "for each" VAR "among" atom ":" assign?         -> for_
                | assign
            assign: target "becomes" cond_e                       -> set
                | target "goes up by" cond_e                      -> add
                | target "goes down by" cond_e                    -> sub
                | "the deal goes on without a contract"           -> no_declarer
                | atom_rc "takes over the contract: he is the declarer from now on" -> declarer
                | "there is no trump from then on"                -> no_trump
                | atom_rc "sits out the deal"                     -> sits_out
                | "not:" atom_rc "sits out the deal"              -> sits_in
                | "the deal is void"                              -> redeal
            target: "the target" -> tg_target | "the score of" atom -> tg_score
                | "the side of" atom -> tg_side | "trump" -> tg_trump | own_leaf -> tg_own
            VAR: /[a-z_][a-z0-9_]*/
            LETNAME: /[a-z_][a-z0-9_ ]*[a-z0-9_]|[a-z_]/
            INT: /[0-9]+/
            %ignore " "
        """
        self.lark = Lark(grammar, parser="earley", lexer="dynamic", ambiguity="explicit",
                         start=["expr", "let_line", "case_line", "line"])

    def alternative(self, t: str, types: tuple) -> str:
        """A function's words as a sequence of the grammar: its words, and a hole for each
        argument (of ``types``), of the kind of atom a reader takes there: at the left end
        one that ends closed, and a set of cards or seats where the function takes one
        ("X of trump": X a set of cards, not "the partner of the player"); at the right
        end any; within, one closed at both ends. In a list of several ("the lowest of A,
        B") each is closed, but the last runs on as far as the words allow, as a reader
        takes "the lowest of A, 2 plus X" (the lowest of A and 2 plus X): words where the
        list is followed by more read two ways unless the list is bracketed."""
        parts = re.split(f"{HOLE}([0-9]+)", t)
        listed = f"{HOLE}0, {HOLE}1" in t
        out = []
        for i, part in enumerate(parts):
            if i % 2 == 0:
                if part.strip():
                    out.append(lit(part.strip()))
                continue
            hole = f"{HOLE}{part}"
            left, right = t.startswith(hole), t.endswith(hole)
            if left and not listed and types[int(part)] in (names.CARDS, names.SET):
                out.append("atom_set")
            else:
                last = listed and right
                out.append("cond_e" if last else "atom_c" if listed or not (left or right)
                           else "atom_rc" if left else "atom")
        return " ".join(out)

    # -- every reading of a parse, as canonical trees --
    def forms(self, t) -> set:
        if isinstance(t, Token):
            return {str(t)}
        d = t.data
        if d == "_ambig":
            return set().union(*(self.forms(c) for c in t.children))
        kids = [self.forms(c) for c in t.children]
        return {self.build(d, combo) for combo in itertools.product(*kids)}

    def build(self, d: str, k: tuple):
        if d in self.leaves:
            return self.leaves[d]
        if d in ("x0", "x1"):   # "the highest score": max(score)
            return ("call", self.templates[d], (("leaf", name_words("score")),))
        if d == "y0":   # "X if in hand": only(hand, X)
            return ("call", self.templates[d], (("leaf", name_words("hand")), k[0]))
        if d in self.templates:
            return ("call", self.templates[d], k)
        if d[0] == "o" and d[1:].isdigit():
            return ("leaf", name_words(self.own[int(d[1:])], self.v))
        if d[:2] == "op" and d[2:].isdigit():
            return list(OPS.values())[int(d[2:])]
        if d[0] == "b" and d[1:].isdigit():
            return list(BINOPS.values())[int(d[1:])]
        if d in ("expr", "group", "atom_c", "atom_lo", "atom_ro", "atom_lro", "cmpop", "addop", "mulop",
                 "own_leaf", "list_leaf"):
            return k[0]
        if d == "num":
            return ("num", int(k[0]))
        if d in ("and_", "or_", "otherwise"):
            return (d, k)
        if d in ("not_", "neg"):
            return (d, k[0])
        if d == "cond":
            return ("cond", *k)
        if d in ("compare", "binop"):
            return (d, k[1], k[0], k[2])
        if d == "exists":
            return ("compare", "!=", k[0], NONE)
        if d in ("multiple", "not_multiple"):   # A % B == 0
            return ("compare", "==" if d == "multiple" else "!=", ("binop", "%", k[0], k[1]), ("num", 0))
        if d in ("leaves", "not_leaves"):       # A % B == K
            return ("compare", "==" if d == "leaves" else "!=", ("binop", "%", k[0], k[2]), ("num", int(k[1])))
        if d in ("member", "not_member"):
            return (d, k[0], k[1])
        if d in ("any_", "all_", "those"):
            return (d, *k)
        if d == "let_line":
            return ("let", k[0].replace(" ", "_"), k[1])
        if d in ("case", "default"):
            return (d, *k)
        if d in ("set", "add", "sub"):
            return ("assign", *k[0], {"set": "=", "add": "+=", "sub": "-="}[d], k[1])
        if d == "no_declarer":
            return ("assign", "declarer", None, "=", NONE)
        if d == "declarer":
            return ("assign", "declarer", None, "=", k[0])
        if d == "no_trump":
            return ("assign", "trump", None, "=", NONE)
        if d in ("sits_out", "sits_in"):
            return ("assign", "sits_out", k[0], "=", ("leaf", "true" if d == "sits_out" else "false"))
        if d == "redeal":
            return ("assign", "redeal", None, "=", ("leaf", "true"))
        if d.startswith("tg_"):
            return {"tg_target": ("target", None), "tg_score": ("score", k[0] if k else None),
                    "tg_side": ("side", k[0] if k else None), "tg_trump": ("trump", None),
                    "tg_own": (k[0][1].strip("`").replace(" ", "_") if k else None, None)}[d]
        if d in ("when", "otherwise_", "for_seats", "for_sides", "for_", "line"):
            return (d, *k)
        raise AssertionError(f"no form for {d}")

    def read(self, text: str, start: str = "expr"):
        """The one tree ``text`` reads as; fails the test on none or on two."""
        found = self.forms(self.lark.parse(text, start=start))
        assert len(found) == 1, f"{text!r} reads {len(found)} ways: {sorted(map(str, found))[:4]}"
        return found.pop()

    # -- whole rules --
    def read_rule(self, text: str, effect: bool):
        if effect:
            return self.read_effect(text)
        if text in ("always", "never"):
            return ("rule", (), ("leaf", "true" if text == "always" else "false"))
        lines = text.split("\n")
        lets = []
        while lines and lines[0].startswith("let *"):
            lets.append(self.read(lines.pop(0), "let_line"))
        if lines and lines[0].startswith("- "):
            return ("rule", tuple(lets), ("cases", tuple(self.read(x, "case_line") for x in lines)))
        assert len(lines) == 1, text
        return ("rule", tuple(lets), self.read(lines[0]))

    def read_effect(self, text: str):
        items = []
        for line in text.split("\n"):
            m = re.fullmatch(r"((?:  )*)- (.*)", line)
            assert m, f"not an item of a list: {line!r}"
            items.append((len(m.group(1)) // 2, self.read(m.group(2), "line")))
        stmts, i = self.statements(items, 0, 0)
        assert i == len(items), text
        return ("effect", tuple(stmts))

    def statements(self, items, i: int, depth: int):
        out = []
        while i < len(items) and items[i][0] == depth:
            line = items[i][1]
            kind = line[0] if isinstance(line[0], str) and line[0] in (
                "when", "otherwise_", "for_seats", "for_sides", "for_", "line") else "assign"
            if kind == "line":
                line, kind = line[1], "assign"
            if kind == "assign":
                out.append(line)
                i += 1
                continue
            body, i = self.body(line, items, i, depth)
            if kind == "when":
                if i < len(items) and items[i][0] == depth and items[i][1][0] == "otherwise_":
                    other, i = self.body(items[i][1], items, i, depth)
                    out.append(("when_else", line[1], body, other))
                else:
                    out.append(("when", line[1], body))
            elif kind == "for_seats":
                out.append(("for", line[1], ("leaf", "every seat"), body))
            elif kind == "for_sides":
                out.append(("for", line[1], ("leaf", "every side"), body))
            elif kind == "for_":
                out.append(("for", line[1], line[2], body))
            else:
                raise AssertionError("an 'otherwise' with no 'when' before it")
        return out, i

    def body(self, line, items, i: int, depth: int):
        """The statement a `when`/`otherwise`/`for` line governs: on the line, or the one
        statement of the items below it."""
        inline = line[-1] if isinstance(line[-1], tuple) and line[-1][:1] == ("assign",) else None
        if inline is not None:
            return inline, i + 1
        below, j = self.statements(items, i + 1, depth + 1)
        assert len(below) == 1, f"{len(below)} statements under one line"
        return below[0], j


# -- every rule of a file ------------------------------------------------------------------
EFFECT_PATHS = {("scoring", "effect"), ("play", "after_trick"), ("play", "after_card")}
RULE_PATHS = [("auction", k) for k in ("may_pass", "may_bid", "ends", "may_equal", "may_double",
                                       "may_redouble")] + [
    ("contract", "declarer"), ("contract", "target"), ("play", "leader"), ("play", "may_play"),
    ("play", "counts_as_trump"), ("play", "may_expose"), ("play", "after_trick"), ("play", "after_card"),
    ("auction", "first"), ("auction", "all_pass", "seat"),
    ("scoring", "made"), ("scoring", "effect"), ("match", "ends"), ("match", "next_dealer"),
    ("trump", "chooser")]


def rules_of(v) -> list[tuple[str, str, bool]]:
    """Every rule text of ``v``: (where, text, is an effect)."""
    d = v.data
    out = []
    for path in RULE_PATHS:
        node = d
        for k in path:
            node = node.get(k) if isinstance(node, dict) else None
        if node is not None:
            out.append((".".join(path), node, path in EFFECT_PATHS))
    for name, dd in (d.get("declarations") or {}).items():
        for k in ("when", "effect", "answered_by"):
            if dd.get(k) is not None:
                out.append((f"declarations.{name}.{k}", dd[k], k == "effect"))
    for name, text in (d.get("define") or {}).items():
        out.append((f"define.{name}", text, False))
    for i, step in enumerate(d["flow"]):
        if isinstance(step, dict) and "declare" in step:
            out.append(("flow.declare", step["declare"], False))
        for key in ("deal", "widow") if isinstance(step, dict) else ():   # a size by deal
            sizes = step.get(key)
            for j, text in enumerate(sizes if isinstance(sizes, list) else [sizes]):
                if isinstance(text, str):
                    out.append((f"flow.{i}.{key}.{j}", text, False))
    # the presets: the Variant keeps its file with them applied, so they are read again
    for i, preset in enumerate(load_raw(v.path)[0].get("presets") or []):
        out.append((f"presets.{i}.when", preset["when"], False))
    return out


def tree_of(text, effect: bool):
    text = ("true" if text else "false") if isinstance(text, bool) else str(text)
    return parser().parse(text, start="effect_rule" if effect else "expr_rule")


def names_and_strings(trees) -> tuple[set[str], set[str]]:
    own, strings = set(), set()
    registry = set(names.NAMES) | {n for h in names.HOOK_NAMES.values() for n in h}
    for t in trees:
        for tok in t.scan_values(lambda x: isinstance(x, Token)):
            if tok.type == "NAME" and tok not in registry and tok not in names.FUNCTIONS \
                    and tok not in names.ASSIGNABLE:
                own.add(str(tok))
            elif tok.type == "STRING":
                strings.add(str(tok)[1:-1])
    return own, strings


@lru_cache(maxsize=None)
def variant(name: str):
    return load_variant(name)


@lru_cache(maxsize=None)
def grammar_for(own: frozenset, strings: frozenset, name: str | None = None) -> WordsGrammar:
    """The grammar of the words with these names and strings, around the dealer of the
    variant ``name`` (None: seats by `next`/`previous`)."""
    return WordsGrammar(set(own), set(strings), None if name is None else variant(name))


SOURCES = [*shipped_variants(), *(str(p) for p in EXAMPLES)]


@pytest.mark.parametrize("name", SOURCES)
def test_every_rule_reads_back_as_the_engine_plays_it(name):
    v = variant(name)
    rules = rules_of(v)
    trees = [tree_of(text, effect) for _, text, effect in rules]
    own, strings = names_and_strings(trees)
    g = grammar_for(frozenset(own), frozenset(strings), name)
    book = render(v)
    for (where, text, effect), tree in zip(rules, trees):
        said = rule_words(text, effect, v)
        assert g.read_rule(said, effect) == canonical(tree, v), f"{name} {where}: {said!r}"
        # the rulebook prints the rule in these words (a list: each line of them)
        assert all(line.strip() in book for line in said.split("\n")), f"{name} {where}: not printed"


def test_the_words_of_issue_42_read_back_as_they_were_written():
    """The worked cases: the nested conditional of issue 42 in either grouping, `and`
    within `or`, arithmetic, seats around the dealer."""
    g = grammar_for(frozenset(), frozenset())
    for text in ("(1 if made else -1) if target > 16 else 0", "1 if made else -1 if target > 16 else 0",
                 "made or bid > 20 and doubled", "(made or bid > 20) and doubled",
                 "(bid - 1) * 2 - (3 - tricks) // -2", "points(declarer_side) + 1 >= target",
                 "min(target, max(16, target - 4))", "count(in_suit(hand, led)) == 0",
                 # a list of arguments followed by more words (issue 42's second round: bridge)
                 "100 + 200 * min(bid - 1, 2) + 300 * max(bid - 3, 0)", "max(bid, 2) > target",
                 "abs(min(bid, 3)) + 1", "min(bid, 3) if made else 0"):
        tree = tree_of(text, False)
        assert g.read_rule(rule_words(text), False) == canonical(tree, None), text
    v = variant("29")
    g29 = grammar_for(frozenset(), frozenset(), "29")
    for text in ("next(next(dealer))", "previous(dealer) == declarer", "next(eldest) == partner_of(dealer)"):
        assert g29.read_rule(rule_words(text, v=v), False) == canonical(tree_of(text, False), v), text


def test_the_words_of_a_loop_over_the_sides_read_back():
    """`for s in sides` ("for each side s") and the quantifiers over `sides`."""
    g = grammar_for(frozenset({"s", "unit"}), frozenset())
    for text in ("for s in sides: score[s] += tricks_won(s)",
                 "for s in sides: when points(s) > 20: score[s] += 1 else: unit = 2",
                 "for s in those(s in sides: s != declarer_side): score[s] -= 1"):
        assert g.read_rule(rule_words(text, effect=True), True) == canonical(tree_of(text, True), None), text
    for text in ("any(s in sides: points(s) > 20)", "count(those(s in sides: tricks_won(s) >= 7)) == 1"):
        assert g.read_rule(rule_words(text), False) == canonical(tree_of(text, False), None), text


def test_a_remainder_and_a_variable_read_as_said():
    """`A % B == K` reads "A is a multiple of B" (K 0) or "A leaves K when divided by B",
    not "A modulo B is K"; a variable of the file is a name in code font (`winners`), not
    words ("winners", "won by"); each reads back to its rule."""
    g = grammar_for(frozenset(), frozenset())
    for text, said in (("deals_played % 4 == 0", "the number of deals played is a multiple of 4"),
                       ("deals_played % 4 == 1", "the number of deals played leaves 1 when divided by 4"),
                       ("(trick + 1) % 2 != 0", "(the trick number plus 1) is not a multiple of 2"),
                       ("count(hand) % 3 != 2", "the number of cards in hand does not leave 2 when divided by 3"),
                       ("deals % 4 > 1", "the number of deals played before modulo 4 is more than 1")):
        assert rule_words(text) == said
        assert g.read_rule(said, False) == canonical(tree_of(text, False), None), text
    name = "house/29-dealer-keeps"
    v = variant(name)
    text = "dealer if winners != side(dealer) else next(dealer)"
    said = rule_words(text, v=v)
    assert said == "the dealer if `winners` is not the side of the dealer, else the dealer's left"
    g = grammar_for(frozenset({"winners"}), frozenset(), name)
    assert g.read_rule(said, False) == canonical(tree_of(text, False), v)
    assert rule_words("kept = kept + 1", effect=True, v=v) == "- `kept` becomes `kept` plus 1"


def test_the_words_printed_before_do_not_read_as_the_rule():
    """The words of issue 42 as they were printed ("1 if the contract is made, else minus 1
    if the target is more than 16, else 0" for `(1 if made else -1) if target > 16 else
    0`) read as the other grouping; 28's "the lowest of the target, the highest of 16, the
    target minus 4" (`min(target, max(16, target - 4))`) reads three ways (the last item of
    a list runs on), so as no one rule."""
    g = grammar_for(frozenset(), frozenset())
    first = canonical(tree_of("(1 if made else -1) if target > 16 else 0", False), None)
    other = canonical(tree_of("1 if made else (-1 if target > 16 else 0)", False), None)
    old = "1 if the contract is made, else minus 1 if the target is more than 16, else 0"
    assert g.read_rule(old, False) == other != first
    with pytest.raises(AssertionError, match="reads 3 ways"):
        g.read("the lowest of the target, the highest of 16, the target minus 4")


def test_a_list_of_arguments_followed_by_more_words_is_bracketed():
    """`100 + 200 * min(bid - 1, 2) + 300 * max(bid - 3, 0)` (a bridge penalty) was said
    "100 plus 200 times the lowest of (the bid minus 1), 2 plus 300 times ...", which reads
    as well as the lowest of (bid - 1) and (2 plus 300 times ...): the reader finds both
    readings (and a third). Now the call is bracketed where it is an operand: one reading."""
    g = grammar_for(frozenset(), frozenset())
    text = "100 + 200 * min(bid - 1, 2) + 300 * max(bid - 3, 0)"
    said = rule_words(text)
    assert said == ("100 plus 200 times (the lowest of (the bid minus 1), 2) plus 300 times "
                    "(the highest of (the bid minus 3), 0)")
    assert g.read_rule(said, False) == canonical(tree_of(text, False), None)
    old = ("100 plus 200 times the lowest of (the bid minus 1), 2 plus 300 times the highest of "
           "(the bid minus 3), 0")
    with pytest.raises(AssertionError, match="reads 3 ways"):
        g.read(old)
    # the whole value, or an item of another list already bracketed, is as before (28's target)
    assert rule_words("min(target, max(16, target - 4))") == \
        "the lowest of the target, (the highest of 16, (the target minus 4))"


# -- random expressions --------------------------------------------------------------------
LEAVES = ["made", "doubled", "leading", "bid", "target", "tricks", "trick", "declarer", "dealer",
          "eldest", "hand", "trump", "led", "declarer_side", "3", "0", "true", "false", "none"]
CALLS = [("points", 1), ("next", 1), ("previous", 1), ("count", 1), ("max", 2), ("min", 3),
         ("seat_tricks", 1), ("suit", 1), ("partner_of", 1), ("same_side", 2), ("abs", 1),
         ("beats", 2), ("played", 1)]
SET_CALLS = ["in_suit", "union", "higher", "difference", "above"]   # their first argument is a set
SETS = ["hand", "trick_cards", "seats", "trick_seats", "sides"]


def expressions():
    """DSL text of random expressions, every compound part in brackets (the parser drops
    them: the tree is what the nesting makes)."""
    leaf = st.sampled_from(LEAVES)

    def extend(inner):
        two = st.tuples(inner, inner)
        # a set where a function's words begin with one: a set, a set of a suit, or a
        # conditional (bracketed in the words); "X of trump" with X no set reads as nothing
        a_set = st.one_of(st.sampled_from(SETS),
                          st.tuples(st.sampled_from(SETS), inner).map(lambda t: f"in_suit({t[0]}, {t[1]})"),
                          st.tuples(inner, inner, inner).map(lambda t: f"({t[0]}) if ({t[1]}) else ({t[2]})"))
        return st.one_of(
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]}) if ({t[1]}) else ({t[2]})"),
            two.map(lambda t: f"({t[0]}) and ({t[1]})"), two.map(lambda t: f"({t[0]}) or ({t[1]})"),
            inner.map(lambda a: f"not ({a})"), inner.map(lambda a: f"-({a})"),
            st.tuples(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), inner, inner).map(
                lambda t: f"({t[1]}) {t[0]} ({t[2]})"),
            st.tuples(st.sampled_from(["+", "-", "*", "//", "%"]), inner, inner).map(
                lambda t: f"({t[1]}) {t[0]} ({t[2]})"),
            two.map(lambda t: f"({t[0]}) otherwise ({t[1]})"),
            two.map(lambda t: f"({t[0]}) in ({t[1]})"),
            st.tuples(st.sampled_from(CALLS), st.lists(inner, min_size=3, max_size=3)).map(
                lambda t: f"{t[0][0]}({', '.join(t[1][:t[0][1]])})"),
            st.tuples(st.sampled_from(SET_CALLS), a_set, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            two.map(lambda t: f"any(s in ({t[0]}): {t[1]})"),
            two.map(lambda t: f"those(c in ({t[0]}): {t[1]})"),
            inner.map(lambda a: f"score[{a}]"))
    return st.recursive(leaf, extend, max_leaves=8)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions(), st.booleans())
def test_random_expressions_read_back_as_their_tree(text, around_dealer):
    v = variant("29") if around_dealer else None
    tree = tree_of(text, False)
    g = grammar_for(frozenset({"s", "c"}), frozenset(), "29" if around_dealer else None)
    assert g.read_rule(rule_words(text, v=v), False) == canonical(tree, v), text


def statements():
    value = expressions()
    assign = st.tuples(st.sampled_from(["target", "score[declarer_side]", "score[next(s)]", "unit"]),
                       st.sampled_from(["=", "+=", "-="]), value).map(lambda t: f"{t[0]} {t[1]} {t[2]}")

    def extend(inner):
        return st.one_of(
            st.tuples(value, inner).map(lambda t: f"when {t[0]}: {t[1]}"),
            st.tuples(value, inner, inner).map(lambda t: f"when {t[0]}: {t[1]} else: {t[2]}"),
            inner.map(lambda s: f"for s in seats: {s}"),
            inner.map(lambda s: f"for s in sides: {s}"))
    return st.lists(st.recursive(assign, extend, max_leaves=4), min_size=1, max_size=3).map("\n".join)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements())
def test_random_effects_read_back_as_their_tree(text):
    tree = tree_of(text, True)
    g = grammar_for(frozenset({"s", "c", "unit"}), frozenset(), None)
    assert g.read_rule(rule_words(text, effect=True), True) == canonical(tree, None), text
