"""The rules in plain words: a DSL rule's text (`rule_words`), a name (`name_words`), and
a variant's rule by its path in the file (`rule_of`). Each game mechanic writes its part
of the rulebook with these (rulebook.py assembles them); the words of the names and
functions are the registry's (taash.interpreter.dsl.names).
"""

from __future__ import annotations

import re

from lark import Token

from .dsl import names
from .dsl import parser

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"J": "jack", "9": "nine", "A": "ace", "T": "ten", "K": "king", "Q": "queen",
              "8": "eight", "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three",
              "2": "two"}
# words of the keywords that are values; names and functions have theirs in taash.interpreter.dsl.names
KEYWORD_WORDS = {"true": "always", "false": "never", "none": "nobody"}
_NAME_WORDS = {e.name: e for e in names.NAME_ENTRIES}
OPS = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
       ">=": "is at least"}


# words that begin with "the" and a plural noun ("the tricks won by ...", "the points won
# by ...", "the cards played to the trick"), not a possessive ("the declarer's side",
# "the defenders' side") nor a word ending in "ss"
_PLURAL = re.compile(r"the [a-z]*[^s\W]s(?=\s|$)")


def _agree(verb: str, subject: str) -> str:
    """``verb`` (a phrase of OPS, beginning with "is") agreeing with ``subject``'s words:
    "are" for a plural subject ("the tricks won by X are at least 7")."""
    return "are" + verb[2:] if _PLURAL.match(subject) else verb


def _lit(text: str) -> str:
    if text in SUIT_NAMES:
        return SUIT_NAMES[text]
    if text in RANK_NAMES:
        return RANK_NAMES[text]
    if len(text) == 2 and text[0] in RANK_NAMES and text[1] in SUIT_NAMES:
        return f"the {RANK_NAMES[text[0]]} of {SUIT_NAMES[text[1]]}"
    return text


def words(node) -> str:
    """Plain words for a parsed DSL expression or statement."""
    if isinstance(node, Token):
        return str(node)
    d, ch = node.data, node.children
    if d == "expr_rule" and len(ch) > 1:   # let NAME = ...; then the value
        return "\n".join(words(c) for c in ch)
    if d in ("expr_rule", "effect_rule"):
        return "; ".join(words(c) for c in ch)
    if d == "let_def":
        return f"let *{name_words(str(ch[0]))}* be {words(ch[1])}; then"
    if d in QUANTIFIER_WORDS:
        return QUANTIFIER_WORDS[d].format(x=str(ch[0]), set=words(ch[1]), cond=words(ch[2]))
    if d == "cases":
        return "\n".join(words(c) for c in ch)
    if d == "case":
        return f"- when {words(ch[0])}: {words(ch[1])}"
    if d == "default_case":
        return f"- otherwise: {words(ch[0])}"
    if d == "number":
        return str(ch[0])
    if d in ("true", "false", "none"):
        return KEYWORD_WORDS[d]
    if d == "string":
        return _lit(str(ch[0])[1:-1])
    if d == "name":
        return name_words(str(ch[0]))
    if d == "neg":
        inner = words(ch[0])
        return f"minus ({inner})" if getattr(ch[0], "data", "") in ("binop", "cond") else f"minus {inner}"
    if d == "not_":
        entry = _NAME_WORDS.get(str(ch[0].children[0])) if getattr(ch[0], "data", "") == "name" else None
        if entry is not None and entry.words_not:
            return entry.words_not
        return f"not ({words(ch[0])})"
    if d == "and_":
        return " and ".join(f"({words(c)})" if getattr(c, "data", "") == "or_" else words(c) for c in ch)
    if d == "or_":
        return " or ".join(f"({words(c)})" if getattr(c, "data", "") == "and_" else words(c) for c in ch)
    if d == "otherwise":
        return "; if none, ".join(words(c) for c in ch)
    if d == "cond":
        return f"{words(ch[0])} if {words(ch[1])}, else {words(ch[2])}"
    if d == "compare":
        if getattr(ch[2], "data", "") == "none" and str(ch[1]) in ("==", "!="):
            if str(ch[1]) == "!=":
                return f"{words(ch[0])} exists"
            return f"{words(ch[0])} is {NONE_WORDS.get(_type_of(ch[0]), 'nobody')}"
        if str(ch[1]) in RANK_OPS and any(_is_rank(c) for c in (ch[0], ch[2])):
            return f"{words(ch[0])} {RANK_OPS[str(ch[1])]} {words(ch[2])}"
        left = words(ch[0])
        return f"{left} {_agree(OPS[str(ch[1])], left)} {words(ch[2])}"
    if d == "member":
        return f"{words(ch[0])} is among {words(ch[1])}"
    if d == "not_member":
        return f"{words(ch[0])} is not among {words(ch[1])}"
    if d == "binop":
        op = {"+": "plus", "-": "minus", "*": "times", "//": "divided by", "%": "modulo"}[str(ch[1])]

        def part(c):
            return f"({words(c)})" if getattr(c, "data", "") in ("cond", "binop") else words(c)
        return f"{part(ch[0])} {op} {part(ch[2])}"
    if d == "index":   # a name of the engine (the score), or a variable kept per seat or side
        base = str(ch[0].children[0]) if getattr(ch[0], "data", "") == "name" else None
        if base is not None and base not in _NAME_WORDS:
            return f"`{base}` of {words(ch[1])}"
        return f"{words(ch[0])} of {words(ch[1])}"
    if d == "call":
        f = names.FUNCTIONS.get(str(ch[0]))
        a = [words(c) for c in ch[1:]]
        return f.words(a) if f is not None else f"{ch[0]}({', '.join(a)})"
    if d == "redeal_stmt":
        return names.ASSIGNABLE["redeal"].set_words("")
    if d == "assign":
        lv, op, e = ch
        target = words_lvalue(lv)
        entry = names.ASSIGNABLE.get(str(lv.children[0]))
        if getattr(e, "data", "") == "none" and entry is not None:  # `none` read by the type set
            val = NONE_WORDS.get(entry.type, "nobody")
        else:
            val = words(e)
        if entry is not None and entry.type == names.BOOL and val in ("always", "never"):
            return target if val == "always" else f"not: {target}"  # `sits_out[x] = true`
        if entry is not None and entry.set_words is not None and str(op) == "=":
            return entry.set_words(val)
        return {"=": f"{target} becomes {val}", "+=": f"{target} goes up by {val}",
                "-=": f"{target} goes down by {val}"}[str(op)]
    if d == "for_stmt":
        if getattr(ch[1], "data", "") == "name" and str(ch[1].children[0]) == "seats":
            return f"for each seat {ch[0]}: {words(ch[2])}"   # not "among every seat"
        return f"for each {ch[0]} among {words(ch[1])}: {words(ch[2])}"
    if d == "when_stmt":
        return f"when {words(ch[0])}: {words(ch[1])}"
    if d == "when_else":
        return f"when {words(ch[0])}: {words(ch[1])}; otherwise {words(ch[2])}"
    return " ".join(words(c) for c in ch)


# quantifiers over seats or cards, and ranks compared in the order of strength
QUANTIFIER_WORDS = {"any_": "for some {x} among {set}, {cond}",
                    "all_": "for every {x} among {set}, {cond}",
                    "those": "those {x} among {set} for which {cond}"}
RANK_OPS = {"<": "ranks below", "<=": "ranks at most", ">": "ranks above", ">=": "ranks at least"}


# `X == none` by the type of X: a seat is nobody, a suit none (no suit led, no trump)
NONE_WORDS = {names.SUIT: names.NONE_SUIT_WORDS, names.CARD: "none (no card)", names.SIDE: "no side",
              names.RANK: "none (no rank)"}


def _type_of(node) -> str | None:
    """The DSL type of a parsed name or call, from the registry (None when unknown: an
    option, a named expression, a variable)."""
    d = getattr(node, "data", "")
    if d == "name":
        entry = _NAME_WORDS.get(str(node.children[0]))
        return entry.type if entry is not None else None
    if d == "call":
        f = names.FUNCTIONS.get(str(node.children[0]))
        return f.type if f is not None else None
    return None


def _is_rank(node) -> bool:
    """A rank literal (only ranks are ordered among strings) or a ``rank(...)`` call."""
    d = getattr(node, "data", "")
    return d == "string" or (d == "call" and str(node.children[0]) == "rank")


def name_words(name: str) -> str:
    """Words for a name: the registry's, else (an option, a named value) the name itself."""
    entry = _NAME_WORDS.get(name)
    return entry.words if entry is not None else name.replace("_", " ")


def words_lvalue(lv) -> str:
    name = str(lv.children[0])
    entry = names.ASSIGNABLE.get(name)
    if len(lv.children) == 2:
        index = words(lv.children[1])
        return entry.words(index) if entry is not None else f"`{name}` of {index}"
    return entry.words(None) if entry is not None else name_words(name)


def rule_words(text, effect: bool = False) -> str:
    """Plain words for one rule's text (a value rule, or an effect when ``effect``)."""
    if isinstance(text, bool):
        return "always" if text else "never"
    tree = parser().parse(str(text), start="effect_rule" if effect else "expr_rule")
    out = words(tree)
    if effect:
        return "\n".join(f"- {part.strip()}" for part in out.split("; ") if part.strip())
    return out


def rule_of(v, *path, effect=False, default=None):
    """Plain words for the rule of variant ``v`` at ``path`` in its file (``default``, a
    rule's text, when the file has none), or None when it has none and no default."""
    node = v.data
    for k in path:
        node = node.get(k) if isinstance(node, dict) else None
    if node is None:
        node = default
    if node is None:
        return None
    return rule_words(node, effect)
