"""The rules in plain words: a DSL rule's text (`rule_words`), a name (`name_words`), and
a variant's rule by its path in the file (`rule_of`). Each game mechanic writes its part
of the rulebook with these (rulebook.py assembles them); the words of the names and
functions are the registry's (taash.interpreter.dsl.names).
"""

from __future__ import annotations

import re

import yaml
from lark import Token

from .dsl import names
from .dsl import parser
from .errors import TaashError
from .loader import load_raw

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"J": "jack", "9": "nine", "A": "ace", "T": "ten", "K": "king", "Q": "queen",
              "8": "eight", "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three",
              "2": "two"}
# words of the keywords that are values; names and functions have theirs in taash.interpreter.dsl.names
# (a rule that is only `true` or `false` reads "always" or "never": `rule_words`)
KEYWORD_WORDS = {"true": "true", "false": "false", "none": "nobody"}
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


def literal_words(text: str) -> str:
    """A string literal of a rule in words: a suit, a rank, a card ("QS": "the queen of
    spades"), else the text itself (a declaration's name, a denomination)."""
    if text in SUIT_NAMES:
        return SUIT_NAMES[text]
    if text in RANK_NAMES:
        return RANK_NAMES[text]
    if len(text) == 2 and text[0] in RANK_NAMES and text[1] in SUIT_NAMES:
        return f"the {RANK_NAMES[text[0]]} of {SUIT_NAMES[text[1]]}"
    return text


def words(node, v=None) -> str:
    """Plain words for a parsed DSL expression or statement. ``v``: the variant the rule
    belongs to, or None; its players, direction and partnership name the seats around
    the dealer ("the dealer's left", `seat_words`).

    The words keep the tree's grouping: a part the DSL would need brackets around where
    it stands is bracketed in the words too ("(1 if the contract is made, else minus 1)
    if the target is more than 16, else 0"), and so is a compound argument of a
    function's words ("the points won by (A plus B)"), so that the words read back to
    the one tree they were made from (tests/rules/test_rulebook_words.py parses them back)."""
    return _Words(v).expr(node)


# how tightly a DSL node binds: the levels of grammar/rules.lark, loosest first (a
# quantifier ends with an open condition, so it stands where a conditional may)
_PREC = {"cond": 1, "any_": 1, "all_": 1, "those": 1, "otherwise": 2, "or_": 3, "and_": 4,
         "not_": 5, "compare": 6, "member": 6, "not_member": 6, "neg": 9, "index": 10}
ATOM = 11   # a name, a number, a literal, a call, a part in brackets
_HOLE = "\x00"   # stands for an argument in a function's words, to find where they go


def _prec(node) -> int:
    d = getattr(node, "data", None)
    if d == "binop":
        return 7 if str(node.children[1]) in "+-" else 8
    if d == "not_" and _words_not(node) is not None:
        return ATOM
    return _PREC.get(d, ATOM)


def _words_not(node) -> str | None:
    """The registry's words for ``not NAME`` ("the contract is not made"), if it has them."""
    ch = node.children[0]
    entry = _NAME_WORDS.get(str(ch.children[0])) if getattr(ch, "data", "") == "name" else None
    return entry.words_not if entry is not None and entry.words_not else None


def _template(node) -> str | None:
    """The words of a call (or an index) with each argument a hole, or None."""
    d = getattr(node, "data", "")
    if d == "index":
        return f"{_HOLE}0 of {_HOLE}1"
    if d == "call":
        f = names.FUNCTIONS.get(str(node.children[0]))
        n = len(node.children) - 1
        return f.words([f"{_HOLE}{i}" for i in range(n)]) if f is not None else None
    return None


def _listed(node) -> bool:
    """Whether a node's words are a function's list of several arguments ("the lowest of
    A, B"): its last argument would read as running on into any words after it ("the
    lowest of A, 2 plus X" as the lowest of A and 2 plus X), so such words are bracketed
    wherever other words follow or surround them."""
    t = _template(node)
    return t is not None and getattr(node, "data", "") == "call" and f"{_HOLE}0, {_HOLE}1" in t


def _open(node) -> tuple[bool, bool]:
    """Whether a node's words begin (end) with an argument's words: "X of Y" is open at
    both ends, "the points won by X" at its end."""
    t = _template(node)
    if t is None:
        return False, False
    return t.startswith(_HOLE), bool(re.search(f"{_HOLE}[0-9]+$", t))


ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
            9: "ninth", 10: "tenth"}


def seat_words(v, k: int, eldest: bool = False) -> str:
    """The seat ``k`` places after the dealer in turn order, as players say it: the
    dealer, "the dealer's left" (the next in clockwise play; his right when play goes
    counter-clockwise), "the dealer's right", "the dealer's partner" (across the table
    with four players in fixed sides), "the player opposite the dealer", else "the
    third player after the dealer". ``eldest``: said of the name `eldest`."""
    n = v.players
    k %= n
    left, right = ("left", "right") if v.direction == "clockwise" else ("right", "left")
    if k == 0:
        return "the dealer"
    if k == 1:
        return f"the eldest (the dealer's {left})" if eldest else f"the dealer's {left}"
    if k == n - 1:
        return f"the dealer's {right}"
    if 2 * k == n:
        return ("the dealer's partner" if v.partnership == "fixed" and n == 4 else
                "the player opposite the dealer")
    return f"the {ORDINALS.get(k, f'{k}th')} player after the dealer"


def seat_offset(node) -> int | None:
    """k for a seat written as the dealer or eldest moved k seats on by `next` and back by
    `previous` (``next(next(dealer))``: 2), else None."""
    d = getattr(node, "data", "")
    if d == "name":
        return {"dealer": 0, "eldest": 1}.get(str(node.children[0]))
    if d == "call" and str(node.children[0]) in ("next", "previous") and len(node.children) == 2:
        k = seat_offset(node.children[1])
        return None if k is None else k + (1 if str(node.children[0]) == "next" else -1)
    return None


class _Words:
    """The words of one rule's tree (see `words`)."""

    def __init__(self, v):
        self.v = v

    def sub(self, node, need: int) -> str:
        """``node``'s words where the DSL needs a part binding at least ``need``."""
        out = self.expr(node)
        return f"({out})" if _prec(node) < need or _listed(node) else out

    def arg(self, node, left: bool, right: bool, delimited: bool = False) -> str:
        """An argument's words in a hole of a function's words, the hole at the left end
        of them, the right end, or within. A compound argument is bracketed; so is one
        whose words end with an argument of their own at the left end ("(the player
        after X) of Y": the reader takes "the player after X of Y" as "the player after
        (X of Y)"), and one open at either end within ("the player holds the (X of Y) of
        Z"), and a list of several arguments anywhere ("the size of (the lowest of A,
        B)"). ``delimited``: a hole between words no function's words use (a quantifier's
        "among ... for which"): only a compound argument is bracketed."""
        out = self.expr(node)
        lo, ro = _open(node)
        if _prec(node) < ATOM or (not delimited and (
                _listed(node) or (left and ro) or (not left and not right and (lo or ro)))):
            return f"({out})"
        return out

    def args(self, node, template: str, ch) -> list[str]:
        """The words of a call's arguments in the holes of ``template``. In a list of
        several ("the highest of A, B"), an argument open at either end is bracketed:
        "the lowest of A, (the highest of B, C)"."""
        out = []
        listed = len(ch) > 1 and f"{_HOLE}0, {_HOLE}1" in template
        for i, c in enumerate(ch):
            hole = f"{_HOLE}{i}"
            left, right = template.startswith(hole), template.endswith(hole)
            if listed:
                left = right = False
            out.append(self.arg(c, left, right))
        return out

    def expr(self, node) -> str:
        if isinstance(node, Token):
            return str(node)
        d, ch = node.data, node.children
        v = self.v
        if d == "expr_rule" and len(ch) > 1:   # let NAME = ...; then the value
            return "\n".join(self.expr(c) for c in ch)
        if d == "expr_rule":
            return self.expr(ch[0])
        if d == "effect_rule":
            return "\n".join("  " * depth + f"- {text}" for depth, text in self.lines(node))
        if d == "let_def":
            return f"let *{name_words(str(ch[0]))}* be {self.expr(ch[1])}; then"
        if d in QUANTIFIER_WORDS:
            return QUANTIFIER_WORDS[d].format(x=str(ch[0]), set=self.arg(ch[1], False, False, True),
                                              cond=self.expr(ch[2]))
        if d == "cases":
            return "\n".join(self.expr(c) for c in ch)
        if d == "case":
            return f"- when {self.expr(ch[0])}: {self.expr(ch[1])}"
        if d == "default_case":
            return f"- otherwise: {self.expr(ch[0])}"
        if d == "number":
            return str(ch[0])
        if d in ("true", "false", "none"):
            return KEYWORD_WORDS[d]
        if d == "string":
            return literal_words(str(ch[0])[1:-1])
        if v is not None and seat_offset(node) is not None and not (
                d == "name" and str(ch[0]) == "dealer"):
            return seat_words(v, seat_offset(node), eldest=d == "name")
        if d == "name":
            return name_words(str(ch[0]), v)
        if d == "neg":
            return f"minus {self.sub(ch[0], 9)}"
        if d == "not_":
            said = _words_not(node)
            return said if said is not None else f"not ({self.expr(ch[0])})"
        if d == "and_":
            return " and ".join(self.sub(c, 5) for c in ch)
        if d == "or_":   # "A or (B and C)": and within or bracketed, though it binds tighter
            return " or ".join(self.sub(c, 5) for c in ch)
        if d == "otherwise":
            return "; if none, ".join(self.sub(c, 3) for c in ch)
        if d == "cond":
            return f"{self.sub(ch[0], 2)} if {self.sub(ch[1], 2)}, else {self.sub(ch[2], 1)}"
        if d == "compare":
            left = self.sub(ch[0], 7)
            if getattr(ch[2], "data", "") == "none" and str(ch[1]) in ("==", "!="):
                if str(ch[1]) == "!=":
                    return f"{left} exists"
                return f"{left} is {NONE_WORDS.get(self.type_of(ch[0]), 'nobody')}"
            said = self.remainder(ch)
            if said is not None:
                return said
            right = self.sub(ch[2], 7)
            if str(ch[1]) in RANK_OPS and any(_is_rank(c) for c in (ch[0], ch[2])):
                return f"{left} {RANK_OPS[str(ch[1])]} {right}"
            return f"{left} {_agree(OPS[str(ch[1])], left)} {right}"
        if d == "member":
            return f"{self.sub(ch[0], 7)} is among {self.sub(ch[1], 7)}"
        if d == "not_member":
            return f"{self.sub(ch[0], 7)} is not among {self.sub(ch[1], 7)}"
        if d == "binop":
            op = {"+": "plus", "-": "minus", "*": "times", "//": "divided by", "%": "modulo"}[str(ch[1])]
            tight = _prec(node)
            return f"{self.sub(ch[0], tight)} {op} {self.sub(ch[2], tight + 1)}"
        if d == "index":   # a name of the engine (the score), or a variable kept per seat or side
            a = self.args(node, _template(node), ch)
            base = str(ch[0].children[0]) if getattr(ch[0], "data", "") == "name" else None
            if base is not None and base not in _NAME_WORDS:
                return f"`{base}` of {a[1]}"
            return f"{a[0]} of {a[1]}"
        if d == "call":
            f = names.FUNCTIONS.get(str(ch[0]))
            if f is None:
                return f"{ch[0]}({', '.join(self.expr(c) for c in ch[1:])})"
            return f.words(self.args(node, _template(node), ch[1:]))
        if d in ("assign", "when_stmt", "when_else", "for_stmt", "redeal_stmt"):
            return "\n".join("  " * depth + f"- {text}" for depth, text in self.lines(node))
        return " ".join(self.expr(c) for c in ch)

    def type_of(self, node) -> str | None:
        """The DSL type of a name, a call, or a variable of the variant (by name, or one
        value of a variable kept per seat or side: ``high``, ``bags[s]``); None when unknown."""
        d = getattr(node, "data", "")
        base = node.children[0] if d == "index" else node
        if d == "lvalue":   # NAME, or NAME [index]
            name = str(node.children[0])
        elif getattr(base, "data", "") == "name":
            name = str(base.children[0])
        else:
            return _type_of(node)
        for var in getattr(self.v, "variables", ()):
            if var.name == name:
                return var.type
        return _type_of(node)

    def remainder(self, ch) -> str | None:
        """``A % B == K`` (or ``!=``) with K a number, as said: "A is a multiple of B" (K is
        0), "A leaves K when divided by B"; None for another comparison. A and B are
        bracketed as the operands of "modulo" would be."""
        left, op, right = ch
        if not (getattr(left, "data", "") == "binop" and str(left.children[1]) == "%"
                and getattr(right, "data", "") == "number" and str(op) in ("==", "!=")):
            return None
        a, b, k = self.sub(left.children[0], 8), self.sub(left.children[2], 9), str(right.children[0])
        plural = bool(_PLURAL.match(a))
        if k == "0":
            return f"{a} {('are' if plural else 'is') + (' not' if str(op) == '!=' else '')} a multiple of {b}"
        verb = ("leave" if plural else "leaves") if str(op) == "==" else (
            "do not leave" if plural else "does not leave")
        return f"{a} {verb} {k} when divided by {b}"

    def lines(self, node) -> list[tuple[int, str]]:
        """An effect's statements as the items of a list: (depth, words). A statement
        under a `when` or a `for` is on the same line when it is one assignment, else
        in the items below, one level deeper; an `else` is the item "otherwise" after
        its `when`, at the same depth."""
        d, ch = node.data, node.children
        if d == "effect_rule":
            return [line for c in ch for line in self.lines(c)]
        if d == "assign":
            return [(0, self.assign(node))]
        if d == "redeal_stmt":
            return [(0, names.ASSIGNABLE["redeal"].words(None))]   # as `redeal = true`
        if d == "for_stmt":
            over = str(ch[1].children[0]) if getattr(ch[1], "data", "") == "name" else None
            if over in ("seats", "sides"):
                head = f"for each {over[:-1]} {ch[0]}"   # not "among every seat"
            else:
                head = f"for each {ch[0]} among {self.arg(ch[1], False, False, True)}"
            return self.block(head, ch[2])
        if d == "when_stmt":
            return self.block(f"when {self.expr(ch[0])}", ch[1])
        if d == "when_else":
            return self.block(f"when {self.expr(ch[0])}", ch[1]) + self.block("otherwise", ch[2])
        raise ValueError(f"not a statement: {d}")

    def block(self, head: str, body) -> list[tuple[int, str]]:
        """``head: body``: one assignment on the same line, else the body's items below."""
        if body.data == "assign":
            return [(0, f"{head}: {self.assign(body)}")]
        return [(0, f"{head}:")] + [(depth + 1, text) for depth, text in self.lines(body)]

    def assign(self, node) -> str:
        lv, op, e = node.children
        entry = names.ASSIGNABLE.get(str(lv.children[0]))
        if len(lv.children) == 2:
            form = entry.words(f"{_HOLE}0") if entry is not None else f"`{lv.children[0]}` of {_HOLE}0"
            index = self.arg(lv.children[1], form.startswith(_HOLE), form.endswith(_HOLE + "0"))
            target = form.replace(f"{_HOLE}0", index)
        else:
            target = entry.words(None) if entry is not None else name_words(str(lv.children[0]), self.v)
        if getattr(e, "data", "") == "none":  # `none` read by the type set (a variable's own)
            val = NONE_WORDS.get(entry.type if entry is not None else self.type_of(lv), "nobody")
        else:
            val = self.expr(e)
        if entry is not None and entry.type == names.BOOL and getattr(e, "data", "") in ("true", "false"):
            return target if e.data == "true" else f"not: {target}"  # `sits_out[x] = true`
        if entry is not None and entry.set_words is not None and str(op) == "=":
            if getattr(e, "data", "") != "none":   # the value where the words put it
                form = entry.set_words(f"{_HOLE}0")
                val = self.arg(e, form.startswith(_HOLE), form.endswith(f"{_HOLE}0"))
            return entry.set_words(val)
        return {"=": f"{target} becomes {val}", "+=": f"{target} goes up by {val}",
                "-=": f"{target} goes down by {val}"}[str(op)]


# quantifiers over seats or cards, and ranks compared in the order of strength
QUANTIFIER_WORDS = {"any_": "for some {x} among {set}, {cond}",
                    "all_": "for every {x} among {set}, {cond}",
                    "those": "those {x} among {set} for which {cond}"}
RANK_OPS = {"<": "ranks below", "<=": "ranks at most", ">": "ranks above", ">=": "ranks at least"}


# `X == none` by the type of X: a seat is nobody, a card no card, a suit none (no suit led, no trump)
NONE_WORDS = {names.SUIT: names.NONE_SUIT_WORDS, names.CARD: "no card", names.SIDE: "no side",
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


def name_words(name: str, v=None) -> str:
    """Words for a name: the registry's; a variable of variant ``v`` as a name in code
    font (`` `won_by` ``: not words to read, "won by"); else (an option, a named value) the
    name itself, its ``_`` as spaces."""
    entry = _NAME_WORDS.get(name)
    if entry is not None:
        return entry.words
    if v is not None and any(x.name == name for x in getattr(v, "variables", ())):
        return f"`{name}`"
    return name.replace("_", " ")


def rule_words(text, effect: bool = False, v=None, value: bool = False) -> str:
    """Plain words for one rule's text (a value rule, or an effect when ``effect``: a
    Markdown list, one item a statement). ``v``: the variant, to name the seats around
    the dealer (`words`). A rule that is only `true` or `false` reads "always" or "never"
    (it follows "when:"), unless it is a ``value`` (a variable's initial value)."""
    if isinstance(text, bool):
        text = "true" if text else "false"
    tree = parser().parse(str(text), start="effect_rule" if effect else "expr_rule")
    if (not effect and not value and len(tree.children) == 1
            and getattr(tree.children[0], "data", "") in ("true", "false")):
        return "always" if tree.children[0].data == "true" else "never"
    return words(tree, v)


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
    return rule_words(node, effect, v)


def options_words(v) -> str:
    """The Options section of variant ``v``: each option with its value in this rulebook,
    its choices or its default, and its description; then each preset of the file (a part
    of it that applies when a condition on the options holds, docs/authoring.md), its
    condition in words and what it sets as the file writes it."""
    specs = v.data.get("options") or {}
    out = ["Change one with `--set NAME=VALUE`; this rulebook is for the values shown."]
    for k, val in v.options.items():
        spec = specs.get(k)
        spec = spec if isinstance(spec, dict) else {"default": spec}
        shown = _option_value(val)
        facts = []
        if spec.get("choices"):
            facts.append("one of " + ", ".join(map(_option_value, spec["choices"])))
        elif isinstance(val, bool):
            facts.append("true or false")
        if spec.get("default") != val:
            facts.append(f"by default {_option_value(spec.get('default'))}")
        what = f": {spec['description']}" if spec.get("description") else ""
        out.append(f"- `{k}`: {shown}" + (f" ({'; '.join(facts)})" if facts else "") + what)
    presets = _presets(v)
    if presets:
        out.append("Presets: the parts of the file that apply when a condition on the options holds "
                   "(each over the file and the presets before it):")
        for p in presets:
            out.append(f"- when {rule_words(p['when'], v=v)}: `{_flow_yaml(p.get('set'))}`")
    return "\n".join(out)


def _option_value(val) -> str:
    return str(val).lower() if isinstance(val, bool) else str(val)


def _flow_yaml(data) -> str:
    """A YAML value on one line, in flow style (``{players: 4, deck: {ranks: [J, '9']}}``)."""
    return yaml.safe_dump(data, default_flow_style=True, width=10 ** 6, sort_keys=False).strip()


def _presets(v) -> list[dict]:
    """The ``presets:`` of ``v``'s file (and of the files it extends): the Variant keeps the
    file with its presets applied, so they are read from the file again; [] for a variant
    whose file is gone (one restored from a record's data)."""
    try:
        data, _ = load_raw(v.path)
    except (OSError, TaashError):
        return []
    return list(data.get("presets") or [])
