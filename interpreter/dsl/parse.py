"""Parsing a rule: the Lark grammar ``grammar/rules.lark``, its LALR parser, syntax errors
with their position, and the limits on a rule's size (``MAX_RULE_CHARS``) and nesting
(``MAX_DEPTH``, ``MAX_WIDTH``), so that checking and compiling never exhaust Python's
stack.

``DSLError`` is the error of every stage of the DSL (a rule that does not parse or does
not check); ``DefineError`` one inside a named expression of the file's ``define:`` map.
"""

from __future__ import annotations

import difflib
import functools
import re

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import TaashError
from ..loader import data_dir

GRAMMAR_PATH = data_dir("grammar") / "rules.lark"  # package data (loader.data_dir)
# the words that are never names: the ones the grammar's NAME excludes
KEYWORDS = tuple(re.search(r"^NAME: /\(\?!\(([a-z|]+)\)", GRAMMAR_PATH.read_text(encoding="utf-8"),
                           re.M).group(1).split("|"))

MAX_RULE_CHARS = 4000  # limits that keep every rule small enough to check and compile
MAX_DEPTH = 40
MAX_WIDTH = 40


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


class DefineError(DSLError):
    """A problem inside a named expression of the file's ``define:`` map: ``define`` is
    its name, ``line``/``column`` relative to its text (not to the rule that used it)."""

    def __init__(self, message: str, line: int, column: int, define: str):
        super().__init__(message, line, column)
        self.define = define


class ParentError(DSLError):
    """A problem inside the inherited rule that ``parent`` names: ``index`` 0 for the
    parent's rule, 1 for the grandparent's...; ``line``/``column`` relative to its text."""

    def __init__(self, message: str, line: int, column: int, index: int):
        super().__init__(message, line, column)
        self.index = index


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The Lark LALR parser of ``grammar/rules.lark`` (built once)."""
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), start=["expr_rule", "effect_rule"], parser="lalr",
                propagate_positions=True, maybe_placeholders=False)


def parse(text: str, start: str, collecting: list[DSLError] | None = None) -> Tree:
    """The parse tree of rule ``text`` from grammar rule ``start`` (``expr_rule`` or
    ``effect_rule``). Raises DSLError: the first problem by position, with every problem
    in ``errors``; a rule over ``MAX_RULE_CHARS`` characters, or nesting deeper than
    ``MAX_DEPTH`` or wider than ``MAX_WIDTH``, is refused. A ``=`` where a comparison may
    stand is read as ``==``: with ``collecting`` (the list a rule checked to its end
    gathers its problems in) its problem is appended there and the repaired tree returned,
    else it is raised."""
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
    if errors or (repaired and collecting is None):
        errors = sorted(errors + repaired, key=lambda e: (e.line, e.column))
        errors[0].errors = errors
        raise errors[0]
    if repaired:  # the caller goes on checking the repaired rule
        collecting.extend(repaired)
    # bound the nesting, so that checking and compiling never exhaust Python's stack
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DSLError(f"this rule nests more than {MAX_DEPTH} levels deep: split it, "
                           "or name a part first (`part = ...` in an effect)", *position(node))
        kids = [c for c in node.children if isinstance(c, Tree)]
        if len(kids) > MAX_WIDTH:
            raise DSLError(f"more than {MAX_WIDTH} parts in one expression", *position(node))
        stack.extend((c, depth + 1) for c in kids)
    return tree


def position(node) -> tuple[int, int]:
    """(line, column), 1-based, of a parse tree node or token: its own, else its first
    part's that has one, else (1, 1)."""
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.line, meta.column
    if isinstance(node, Token):
        return node.line or 1, node.column or 1
    for c in getattr(node, "children", []):
        p = position(c)
        if p != (1, 1):
            return p
    return 1, 1


def suggest(name: str, known) -> str:
    """`` (did you mean 'X'?)`` for the closest of ``known`` to ``name`` (difflib), or ""."""
    m = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean '{m[0]}'?)" if m else ""


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
