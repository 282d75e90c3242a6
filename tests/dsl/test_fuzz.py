"""Fuzzing the loader with hypothesis: variant files are untrusted input.

The only allowed outcome of `load_variant` is a Variant or a `VariantError` whose
problems are all located (line >= 1, column >= 1). A variant that loads must play a
whole deal of random legal actions without raising anything.

(a) mutations of the text of the shipped 29, 28, court-piece (no auction, 52 cards) and
    two house rules (one with the flow's declare step and a seat sitting out);
(b) DSL rules put into a file that extends 29: random token soup from the DSL's
    vocabulary, and random well-formed expressions (type-directed, so many of them load
    and are then played).
(c) targeted adversarial inputs (regressions for what the fuzzers found, resource bombs).

Every example runs under a wall-clock guard (SIGALRM) besides hypothesis' deadline, so a
hang fails instead of blocking the run. Examples are derandomized (same examples every
run); set TAASH_FUZZ_RANDOM=1 to explore, TAASH_FUZZ_SCALE=N to run N times as many.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import traceback
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from taash.interpreter import Match, RuleError, VariantError, load_variant
from taash.interpreter.dsl import FUNCTIONS, HOOK_NAMES, NAMES
from taash.interpreter.dsl.names import TABLE_SEAT_HOOKS
from taash.interpreter.variant import HOOKS

from tests.helpers import ROOT

VARIANTS = ROOT / "variants"
SCALE = max(1, int(os.environ.get("TAASH_FUZZ_SCALE", "1")))
EXAMPLE_SECONDS = 10          # hard wall-clock limit of one example
MAX_ACTIONS = 2000

FUZZ = settings(
    deadline=5000,            # ms: a slow example fails
    database=None,
    report_multiple_bugs=False,   # shrink one failure, not every distinct one (time)
    derandomize=not os.environ.get("TAASH_FUZZ_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large],
)


# -- helpers -------------------------------------------------------------------------------------

class ExampleTimeout(Exception):
    pass


@contextmanager
def time_guard(seconds=EXAMPLE_SECONDS):
    """Raise ExampleTimeout in the test if the block runs longer than ``seconds``."""
    def on_alarm(signum, frame):
        raise ExampleTimeout(f"example ran longer than {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


_TMP = tempfile.TemporaryDirectory(prefix="taash-fuzz-")


def write_tmp(text: str, name: str = "fuzz.yaml") -> Path:
    d = Path(tempfile.mkdtemp(dir=_TMP.name))
    p = d / name
    p.write_bytes(text.encode("utf-8", "surrogatepass"))
    return p


def play_one_deal(v, seed: int = 0) -> None:
    """One deal of random legal actions, then the match bookkeeping; raises on any crash."""
    m = Match(v, seed)
    s = m.new_deal()
    rng = random.Random(seed)
    for _ in range(MAX_ACTIONS):
        if s.is_terminal:
            break
        legal = s.legal_actions()
        assert legal, f"no legal action for seat {s.to_act} in phase {s.phase}"
        assert all(isinstance(a, str) for a in legal), legal
        s.apply(rng.choice(legal))
    else:
        raise AssertionError(f"the deal did not end within {MAX_ACTIONS} actions")
    s.result()
    m.finish_deal(s)
    m.summary()


def _note(msg: str) -> None:
    """hypothesis.note inside a hypothesis test; nothing elsewhere."""
    try:
        note(msg)
    except InvalidArgument:
        pass


def load_and_play(path: Path, text: str) -> tuple[object, list]:
    """Load ``path``; the outcome must be a Variant (then played) or a located
    VariantError. Returns (variant or None, problems)."""
    _note(f"--- file {path.name} ---\n{text}\n--- end ---")
    try:
        v = load_variant(path)
    except VariantError as e:
        assert e.problems, "VariantError without problems"
        for pr in e.problems:
            assert isinstance(pr.file, str) and pr.file
            assert isinstance(pr.line, int) and pr.line >= 1, pr
            assert isinstance(pr.column, int) and pr.column >= 1, pr
            assert isinstance(pr.message, str) and pr.message, pr
            pr.format()  # must not raise either
        return None, e.problems
    try:
        play_one_deal(v)
    except ExampleTimeout:
        raise
    except RuleError as e:   # a rule naming a seat for the table named none: a clear error
        assert e.hook in TABLE_SEAT_HOOKS and "named no seat" in str(e), e
    except Exception as e:
        raise AssertionError("a loaded variant crashed at play time:\n" + text + "\n"
                             + "".join(traceback.format_exception(e))) from e
    return v, []


# -- (a) mutating whole files --------------------------------------------------------------------

BASES = {name: (VARIANTS / name).read_text() for name in
         ("29.yaml", "28.yaml", "house/29-hidden-trump.yaml", "house/28-no-undertrump.yaml",
          "court-piece.yaml", "house/29-single-hand.yaml", "house/28-redeal.yaml")}
# each player for himself, a contract that changes hands (docs/authoring.md's worked example)
BASES["three-hand-alone.yaml"] = (ROOT / "docs" / "examples" / "three-hand-alone.yaml").read_text()
# the guide's worked example: a deck less named cards, points per suit and card, no trump,
# trump set by an effect in play
BASES["queen-hunt.yaml"] = (ROOT / "docs" / "examples" / "queen-hunt.yaml").read_text()
# a bid of one's own (the flow's `bids` step), trump fixed by the file: the shipped Call
# Break and the guide's worked example
BASES["call-break.yaml"] = (VARIANTS / "call-break.yaml").read_text()
BASES["exact-bid.yaml"] = (ROOT / "docs" / "examples" / "exact-bid.yaml").read_text()
# flow sizes that read the deal's number (a hand of 8 down to 1 and back), trump by a rule
BASES["judgement.yaml"] = (ROOT / "docs" / "examples" / "judgement.yaml").read_text()
# values per seat and per side, a declare step before the auction with `redeal`, trump by a rule
BASES["flow-constructs.yaml"] = (ROOT / "tests" / "variants" / "flow-constructs.yaml").read_text()
TOKEN_RE = re.compile(r'\s+|[A-Za-z_][A-Za-z0-9_\-]*|\d+|"[^"\n]*"|.', re.S)
YAML_TOKENS = [":", ": ", "- ", "-", "[", "]", "{", "}", ",", "|", "|-", ">", "#", "&a", "*a",
               "!!str", "!!float", "!!binary", "!foo", "~", "null", "true", "no", "4.0", "-1",
               "0", "1e3", "0x1f", "99999", "'", '"', "\t", "\n", "  ", "    ", "? ", "<<",
               "%YAML 1.1", "---", "...", "extends", "deal", "auction", "bids", "trump", "play", "fixed",
               "hidden", "open", "seat", "side", '"29"', '"28"', "house/29-hidden-trump",
               "\u00e9", "\u2028", "\x00", "\ufeff"]
DSL_WORDS = (sorted(NAMES) + sorted(FUNCTIONS)
             + sorted({n for names in HOOK_NAMES.values() for n in names})
             + ["when", "else", "otherwise", "if", "and", "or", "not", "in", "true", "false",
                "none", "for", "redeal"])
OPERATORS = ["==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "//", "%", "=", "+=", "-=",
             "(", ")", "[", "]", ",", ":", ";"]
NUMBERS = ["0", "1", "2", "4", "6", "15", "29", "100000"]
STRINGS = ['"S"', '"H"', '"J"', '"9"', '"K"', '"JS"', '"7C"', '"X"', '""', '"royals"', '"pair"']
ALL_TOKENS = YAML_TOKENS + DSL_WORDS + OPERATORS + NUMBERS + STRINGS

pos = st.integers(0, 10**6)
mutation = st.one_of(
    st.tuples(st.just("ins_char"), pos, st.sampled_from(":-[]{},|>#&*!%@`'\"\t\n 0123456789.x") | st.characters()),
    st.tuples(st.just("rep_char"), pos, st.sampled_from(":-[]{},|>#&*!'\"\t\n 019.x") | st.characters()),
    st.tuples(st.just("del_chars"), pos, st.integers(1, 40)),
    st.tuples(st.just("ins_tok"), pos, st.sampled_from(ALL_TOKENS)),
    st.tuples(st.just("rep_tok"), pos, st.sampled_from(ALL_TOKENS)),
    st.tuples(st.just("del_tok"), pos, st.integers(1, 3)),
    st.tuples(st.just("swap_lines"), pos, pos),
    st.tuples(st.just("dup_line"), pos, st.just(0)),
    st.tuples(st.just("truncate"), pos, st.just(0)),
)


def mutate(text: str, op) -> str:
    kind, a, b = op
    if kind in ("ins_char", "rep_char", "del_chars", "truncate"):
        i = a % (len(text) + 1)
        if kind == "ins_char":
            return text[:i] + b + text[i:]
        if kind == "rep_char":
            return text[:i] + b + text[i + 1:]
        if kind == "del_chars":
            return text[:i] + text[i + b:]
        return text[:i]
    if kind in ("ins_tok", "rep_tok", "del_tok"):
        toks = TOKEN_RE.findall(text)
        real = [k for k, t in enumerate(toks) if not t.isspace()] or [0]
        k = real[a % len(real)]
        if kind == "ins_tok":
            toks.insert(k, b)
        elif kind == "rep_tok":
            toks[k:k + 1] = [b]
        else:
            del toks[k:k + b]
        return "".join(toks)
    lines = text.split("\n")
    i = a % len(lines)
    if kind == "swap_lines":
        j = b % len(lines)
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(i, lines[i])
    return "\n".join(lines)


@pytest.mark.slow
@settings(FUZZ, max_examples=200 * SCALE)
@given(base=st.sampled_from(sorted(BASES)), ops=st.lists(mutation, min_size=1, max_size=6))
def test_mutated_variant_files(base, ops):
    text = BASES[base]
    for op in ops:
        text = mutate(text, op)
    with time_guard():
        load_and_play(write_tmp(text, Path(base).name), text)


def test_unmutated_bases_load_and_play():
    for name, text in BASES.items():
        v, problems = load_and_play(write_tmp(text, Path(name).name), text)
        assert v is not None, problems


# -- (b) DSL rules ----------------------------------------------------------------------------------

HEAD = 'extends: "29"\nname: fuzz\n'
# rule slot -> (YAML path, hook name the compiler sees)
SLOTS = {hook: (path, hook) for hook, (path, _, _) in HOOKS.items()}
SLOTS["declare.royals.when"] = (("declarations", "royals", "when"), "declare.royals.when")
SLOTS["declare.royals.effect"] = (("declarations", "royals", "effect"), "declare.royals.effect")
SLOT_KIND = {hook: kind for hook, (_, kind, _) in HOOKS.items()}
SLOT_KIND["declare.royals.when"] = "condition"
SLOT_KIND["declare.royals.effect"] = "effect"
# the declaration of the flow's declare step (sits_out allowed), in a file extending the
# single hand; and the contract of a flow without an auction, extending court-piece
SLOT_HEAD = {}
for _k in ("when", "effect"):
    SLOTS[f"declare.single.{_k}"] = (("declarations", "single", _k), f"declare.single.{_k}")
    SLOT_KIND[f"declare.single.{_k}"] = "condition" if _k == "when" else "effect"
    SLOT_HEAD[f"declare.single.{_k}"] = 'extends: "house/29-single-hand"\nname: fuzz\n'
# a declaration that may take over the contract, each player for himself (the example of
# docs/authoring.md, extended by its path)
for _k in ("when", "effect"):
    SLOTS[f"declare.alone.{_k}"] = (("declarations", "alone", _k), f"declare.alone.{_k}")
    SLOT_KIND[f"declare.alone.{_k}"] = "condition" if _k == "when" else "effect"
    SLOT_HEAD[f"declare.alone.{_k}"] = (f'extends: "{ROOT / "docs" / "examples" / "three-hand-alone.yaml"}"\n'
                                        'name: fuzz\n')
for _k, _kind in (("declarer", "seat"), ("target", "number")):
    SLOTS[f"cp.contract.{_k}"] = (("contract", _k), f"contract.{_k}")
    SLOT_KIND[f"cp.contract.{_k}"] = _kind
    SLOT_HEAD[f"cp.contract.{_k}"] = 'extends: "court-piece"\nname: fuzz\n'


def rule_file(path: tuple, rule: str, head: str = HEAD) -> tuple[str, int, int]:
    """A file extending 29 (or ``head``) whose rule at ``path`` is ``rule`` as a `|` block
    scalar. Returns (text, first line of the rule, last line of the rule)."""
    lines = head.rstrip("\n").split("\n")
    indent = 0
    for key in path[:-1]:
        lines.append(" " * indent + key + ":")
        indent += 2
    lines.append(" " * indent + path[-1] + ": |")
    first = len(lines) + 1
    for ln in rule.split("\n"):
        lines.append((" " * (indent + 2) + ln) if ln else "")
    return "\n".join(lines) + "\n", first, len(lines)


def check_dsl_locations(text: str, problems, slot_path, first: int, last: int, rule: str):
    """A problem in the rule itself must point inside the rule's lines of the file."""
    file_lines = text.split("\n")
    for pr in problems:
        if pr.message.startswith(".".join(slot_path) + ":") and rule.strip():
            assert first <= pr.line <= last, (pr, first, last)
            assert pr.column <= len(file_lines[pr.line - 1]) + 1, (pr, file_lines[pr.line - 1])


token = st.sampled_from(DSL_WORDS + OPERATORS + NUMBERS + STRINGS)


@pytest.mark.slow
@settings(FUZZ, max_examples=200 * SCALE)
@given(slot=st.sampled_from(sorted(SLOTS)), toks=st.lists(token, min_size=1, max_size=25),
       seps=st.lists(st.sampled_from([" ", " ", " ", "", "\n"]), min_size=25, max_size=25))
def test_dsl_token_soup(slot, toks, seps):
    rule = "".join(t + s for t, s in zip(toks, seps)).strip()
    path, _ = SLOTS[slot]
    text, first, last = rule_file(path, rule, SLOT_HEAD.get(slot, HEAD))
    with time_guard():
        v, problems = load_and_play(write_tmp(text), text)
    check_dsl_locations(text, problems, path, first, last, rule)


# A type-directed generator of well-formed expressions: most have the right type, a few
# deliberately do not, so both the checker and the engine get exercised.
TYPES = ["condition", "number", "suit", "seat", "side", "cards", "card", "rank", "list", "seats", "sides"]
PARAM_TYPES = [t for t in TYPES if t != "list"]   # the types a define's parameter may take
# an argument of each type, for a named expression with a parameter
ARGUMENT = {"condition": "leading", "number": "trick", "suit": "led", "seat": "dealer", "side": "my_side",
            "cards": "hand", "card": "winning_card", "rank": '"J"', "seats": "seats",
            "sides": "sides"}


def names_of(typ: str, hook: str) -> list[str]:
    out = [n for n, e in NAMES.items() if e.type == typ]
    out += [n for n, e in HOOK_NAMES.get(hook, {}).items() if e.type == typ]
    return out


LITERALS = {
    "condition": ["true", "false"],
    "number": ["0", "1", "3", "6", "15", "20", "29", "-1"],
    "suit": ['"S"', '"H"', '"D"', '"C"', "none"],
    "seat": ["none"],
    "side": [],
    "cards": [],
    "card": ['"JS"', '"7C"', '"KH"', "none"],
    "rank": ['"J"', '"9"', '"K"', '"Q"', '"7"'],
    "list": [],
    "seats": [],
    "sides": [],
}
# quantifiers bind a variable of the set's element type
ELEMENT = {"cards": "card", "seats": "seat", "sides": "side"}


@st.composite
def expr(draw, typ: str, hook: str, depth: int, bound: tuple = (), variables=None):
    """``bound``: (name, type) of the quantifier variables in scope; ``variables``: {type:
    names of the file's variables of that type}; both are leaves too."""
    if draw(st.integers(0, 19)) == 0:        # now and then, the wrong type on purpose
        typ = draw(st.sampled_from(TYPES))
    leaves = (names_of(typ, hook) + LITERALS.get(typ, []) + [n for n, t in bound if t == typ]
              + (variables or {}).get(typ, []))
    if typ == "number":
        leaves = leaves + [str(draw(st.integers(0, 40)))]
    if typ == "side" and not leaves:
        leaves = ["my_side"]
    if not leaves:
        leaves = {"cards": ["hand"], "list": ["score"], "seats": ["seats"], "sides": ["sides"]}.get(typ, ["none"])
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(leaves))
    sub = lambda t: draw(expr(t, hook, depth - 1, bound, variables))  # noqa: E731

    def quant(word: str, set_type: str) -> str:
        """any/all/those over a set; the body may use the variable (q + depth)."""
        var = f"q{depth}"
        body = draw(expr("condition", hook, depth - 1, bound + ((var, ELEMENT[set_type]),), variables))
        return f"{word}({var} in {sub(set_type)}: {body})"
    set_ops = ["union", "difference", "intersection"]
    c = draw(st.integers(0, 99))
    if typ == "condition":
        forms = [
            lambda: f"not {sub('condition')}",
            lambda: f"({sub('condition')} and {sub('condition')})",
            lambda: f"({sub('condition')} or {sub('condition')})",
            lambda: f"({sub('number')} {draw(st.sampled_from(['==', '!=', '<', '<=', '>', '>=']))} {sub('number')})",
            lambda: (lambda t: f"({sub(t)} {draw(st.sampled_from(['==', '!=']))} {sub(t)})")(
                draw(st.sampled_from(["suit", "seat", "side", "rank", "card"]))),
            lambda: f"holds({sub('rank')}, {sub('suit')})",
            lambda: f"same_side({sub('seat')}, {sub('seat')})",
            lambda: f"({sub('card')} in {sub('cards')})",
            lambda: f"({sub('number')} not in {sub('list')})",
            lambda: f"({sub('condition')} if {sub('condition')} else {sub('condition')})",
            lambda: "(declared(\"royals\") > 0)",
            lambda: quant(draw(st.sampled_from(["any", "all"])), draw(st.sampled_from(["cards", "seats", "sides"]))),
            lambda: f"beats({sub('card')}, {sub('card')})",
            lambda: f"({sub('seat')} in {sub('seats')})",
            lambda: f"({sub('side')} in {sub('sides')})",
            lambda: f"({sub('rank')} {draw(st.sampled_from(['<', '<=', '>', '>=']))} {sub('rank')})",
            lambda: f"sits_out({sub('seat')})",
        ]
    elif typ == "number":
        forms = [
            lambda: f"({sub('number')} {draw(st.sampled_from(['+', '-', '*', '//', '%']))} {sub('number')})",
            lambda: f"-{sub('number')}",
            lambda: f"count({sub('cards')})",
            lambda: f"points({sub('side')})",
            lambda: f"abs({sub('number')})",
            lambda: f"max({sub('number')}, {sub('number')})",
            lambda: f"min({sub('number')})",
            lambda: f"{draw(st.sampled_from(['max', 'min']))}(score)",
            lambda: f"score[{sub(draw(st.sampled_from(['side', 'seat', 'number'])))}]",
            lambda: 'declared("royals")',
            lambda: f"({sub('number')} if {sub('condition')} else {sub('number')})",
            lambda: f"count({sub('seats')})",
            lambda: f"count({sub('sides')})",
        ]
    elif typ == "cards":
        forms = [
            lambda: f"in_suit({sub('cards')}, {sub('suit')})",
            lambda: f"not_in_suit({sub('cards')}, {sub('suit')})",
            lambda: f"({sub('cards')} otherwise {sub('cards')})",
            lambda: f"({sub('cards')} if {sub('condition')} else {sub('cards')})",
            lambda: quant("those", "cards"),
            lambda: f"{draw(st.sampled_from(set_ops))}({sub('cards')}, {sub('cards')})",
            lambda: f"{draw(st.sampled_from(['above', 'below']))}({sub('cards')}, {sub('rank')})",
            lambda: f"cards_won({sub(draw(st.sampled_from(['seat', 'side'])))})",
        ]
    elif typ == "seats":
        forms = [lambda: f"{draw(st.sampled_from(['partners', 'opponents']))}({sub('seat')})",
                 lambda: quant("those", "seats"),
                 lambda: f"{draw(st.sampled_from(set_ops))}({sub('seats')}, {sub('seats')})"]
    elif typ == "sides":
        forms = [lambda: quant("those", "sides"),
                 lambda: f"{draw(st.sampled_from(set_ops))}({sub('sides')}, {sub('sides')})"]
    elif typ == "seat":
        forms = [lambda: f"{draw(st.sampled_from(['next', 'previous', 'partner_of']))}({sub('seat')})",
                 lambda: f"holder_of({sub('card')})",
                 lambda: f"({sub('seat')} if {sub('condition')} else {sub('seat')})"]
    elif typ == "suit":
        forms = [lambda: f"suit({sub('card')})",
                 lambda: f"({sub('suit')} if {sub('condition')} else {sub('suit')})"]
    elif typ == "side":
        forms = [lambda: f"side({sub('seat')})",
                 lambda: f"({sub('side')} if {sub('condition')} else {sub('side')})"]
    elif typ == "rank":
        forms = [lambda: f"rank({sub('card')})"]
    elif typ == "seat":
        forms = [lambda: f"({sub(typ)} if {sub('condition')} else {sub(typ)})",
                 lambda: f"partner_of({sub('seat')})"]
    else:  # card, list
        forms = [lambda: f"({sub(typ)} if {sub('condition')} else {sub(typ)})"]
    return forms[c % len(forms)]()


@st.composite
def statement(draw, hook: str, depth: int):
    c = draw(st.integers(0, 9))
    e = lambda t, d=2: draw(expr(t, hook, d))  # noqa: E731
    if depth > 0 and c == 0:
        return f"when {e('condition')}: {draw(statement(hook, depth - 1))}"
    if depth > 0 and c == 1:
        return (f"when {e('condition')}: {draw(statement(hook, depth - 1))} "
                f"else: {draw(statement(hook, depth - 1))}")
    op = draw(st.sampled_from(["=", "+=", "-="]))
    if c == 2:  # allowed only at the flow's declare step: elsewhere a located error
        return f"sits_out[{e(draw(st.sampled_from(['seat', 'seat', 'number'])), 1)}] = {e('condition')}"
    if c == 4:  # trump set in play (29's trump is open); `+=` or a number: located errors
        return f"trump {draw(st.sampled_from(['=', '=', '+=']))} {e(draw(st.sampled_from(['suit', 'suit', 'number'])))}"
    if c % 2:
        return f"target {op} {e('number')}"
    idx = e(draw(st.sampled_from(["side", "side", "seat", "number"])), 1)
    return f"score[{idx}] {op} {e('number')}"


@st.composite
def rule_text(draw, slot: str):
    kind = SLOT_KIND[slot]
    hook = SLOTS[slot][1]
    if kind == "effect":
        stmts = draw(st.lists(statement(hook, 2), min_size=1, max_size=3))
        if draw(st.integers(0, 3)) == 0:   # an effect's `for` over a set of seats, or of sides
            seats = draw(st.sampled_from(["seats", "opponents(me)", "partners(declarer)", "trick_seats",
                                          "sides", "those(q in sides: q != my_side)"]))
            stmts[0] = f"for each_one in {seats}: {stmts[0]}"
        return draw(st.sampled_from([";\n", "; "])).join(stmts)
    lets, bound = [], ()
    for i in range(draw(st.integers(0, 2))):   # let NAME = ...; first
        typ = draw(st.sampled_from(TYPES))
        lets.append(f"let part{i} = {draw(expr(typ, hook, 2, bound))};\n")
        bound += ((f"part{i}", typ),)
    if draw(st.booleans()):
        return "".join(lets) + draw(expr(kind, hook, 3, bound))
    cases = draw(st.lists(st.tuples(expr("condition", hook, 2, bound), expr(kind, hook, 2, bound)),
                          min_size=1, max_size=3))
    lines = [f"when {c}: {x}" for c, x in cases]
    if draw(st.integers(0, 5)) == 0:   # the rule 29 writes here (or a located problem: none)
        lines.append("else: parent")
    elif draw(st.booleans()):
        lines.append(f"else: {draw(expr(kind, hook, 2, bound))}")
    return "".join(lets) + "\n".join(lines)


@st.composite
def slot_and_rule(draw):
    slot = draw(st.sampled_from(sorted(SLOTS)))
    return slot, draw(rule_text(slot))


@pytest.mark.slow
@settings(FUZZ, max_examples=400 * SCALE)
@given(sr=slot_and_rule())
def test_dsl_generated_rules(sr):
    slot, rule = sr
    path, _ = SLOTS[slot]
    text, first, last = rule_file(path, rule, SLOT_HEAD.get(slot, HEAD))
    with time_guard():
        v, problems = load_and_play(write_tmp(text), text)
    check_dsl_locations(text, problems, path, first, last, rule)


@st.composite
def defines_and_rule(draw):
    """A define: map of 1..3 named expressions (each may use any of them: cycles too) and
    a rule that uses them. Returns (slot, the file's text)."""
    n = draw(st.integers(1, 3))
    types = [draw(st.sampled_from(TYPES)) for _ in range(n)]
    # some with a parameter, typed or not, used with an argument of that type
    params = [draw(st.sampled_from([None] + PARAM_TYPES)) for _ in range(n)]
    typed = [draw(st.booleans()) for _ in range(n)]
    named = tuple((f"d{i}" if p is None else f"d{i}({ARGUMENT[p]})", typ)
                  for i, (typ, p) in enumerate(zip(types, params)))
    lines = [HEAD.rstrip("\n"), "define:"]
    for i, typ in enumerate(types):
        p = params[i]
        own = named + (((f"p{i}", p),) if p is not None else ())
        body = draw(expr(typ, "", 2, own))
        key = f"d{i}" if p is None else f'"d{i}(p{i}: {p})"' if typed[i] else f"d{i}(p{i})"
        lines += [f"  {key}: |", f"    {body}"]
    slot = draw(st.sampled_from(sorted(SLOTS)))
    if SLOT_KIND[slot] == "effect":
        return slot, "\n".join(lines) + "\n"   # the defines alone (checked all the same)
    rule = draw(expr(SLOT_KIND[slot], SLOTS[slot][1], 2, named))
    path = SLOTS[slot][0]
    for depth, key in enumerate(path[:-1]):
        lines.append("  " * depth + key + ":")
    lines += ["  " * (len(path) - 1) + path[-1] + ": |", "  " * len(path) + rule]
    return slot, "\n".join(lines) + "\n"


@pytest.mark.slow
@settings(FUZZ, max_examples=150 * SCALE)
@given(sr=defines_and_rule())
def test_dsl_generated_defines(sr):
    """Named expressions: load (or located problems) and play."""
    _, text = sr
    with time_guard():
        load_and_play(write_tmp(text), text)


# -- (c) targeted inputs: regressions of what the fuzzers found, resource bombs --------------------

# case -> (rule slot, rule, what the checker must say or None if the rule must load). A rule
# that loads must then play; one that is rejected must be rejected where it is written.
PLAY_TIME = {
    # a `none` branch where cards are expected: the checker must see that the branches of
    # the if/else (or the cases) do not give one type, else may_play returns nothing
    "none branch in may_play (if/else)": (("play", "may_play"), "hand if leading else none",
                                          "play.may_play: both branches"),
    "none branch in may_play (cases)": (("play", "may_play"), "when leading: hand\nelse: none",
                                        "play.may_play: every case should give cards, not none"),
    "none branch as the right side of 'in'": (("play", "counts_as_trump"),
                                              '"7C" in (hand if trump_hidden else none)',
                                              "play.counts_as_trump: both branches"),
    # scores are kept per side (2 entries): a seat or a number as index is a type error
    "score indexed by seat": (("scoring", "effect"), "when made: score[declarer] += 1",
                              "scoring.effect: index of 'score' should be a side, not a seat"),
    "score indexed by a number": (("scoring", "effect"), "score[5] += 1",
                                  "scoring.effect: index of 'score' should be a side, not a number"),
    "score indexed by seat in a declaration": (("declarations", "royals", "effect"), "score[me] += 1",
                                               "declarations.royals.effect: index of 'score' should be a side"),
    # max()/min() of a single number are well typed (the number itself): they load and must
    # play (they once compiled to Python's max(4), which needs an iterable)
    "min() of one number": (("scoring", "effect"), "target = -min(players)", None),
    "max() of one number": (("auction", "may_bid"), "number > max(high_bid)", None),
    # cards to play from outside the hand (the trick's cards) are kept to the
    # hand (they once made the engine remove a card the player did not hold)
    "trick_cards as the cards to play": (("play", "may_play"), "trick_cards", None),
    "a union with the trick's cards": (("play", "may_play"), "union(hand, trick_cards)", None),
    "trick_cards through a let": (("play", "may_play"), "let t = trick_cards;\nt otherwise hand", None),
    # `:=` is refused in a comprehension's iterable: 'otherwise' and '//' there are made
    # without it
    "otherwise and // in a quantifier's set": (
        ("play", "may_play"),
        "those(c in (in_suit(hand, led) otherwise hand if 4 // count(hand) > 0 else hand): true)", None),
    # a seat sits out only by a declaration of the flow's declare step
    "sits_out in a declaration made in play": (("declarations", "royals", "effect"), "sits_out[me] = true",
                                               "declarations.royals.effect: 'sits_out' can be assigned only"),
    "sits_out in scoring": (("scoring", "effect"), "sits_out[declarer] = true",
                            "scoring.effect: 'sits_out' can be assigned only"),
    # a leader that names no seat: a clear error as the deal reaches the lead (it was
    # once the last seat); one that can be seen to at load is refused there
    "partner_of none": (("play", "leader"), "partner_of(none)",
                        "RuleError: play.leader: the rule named no seat (none)"),
    "a leader of none": (("play", "leader"), "eldest if trick > 1 else none",
                         "play.leader: `none` here names no seat"),
    "holder_of in a player's rule": (("play", "may_play"), 'hand if holder_of("JS") == me else hand',
                                     "play.may_play: holder_of() reads every hand"),
    "holder_of as the leader": (("play", "leader"), 'holder_of("JS") if holder_of("JS") != none else eldest',
                                None),
    # `parent`: the rule 29 writes at the same place, in a value and as a statement
    "parent as the last case": (("play", "may_play"), "when leading: hand\nelse: parent", None),
    "parent in an expression": (("auction", "may_bid"), "parent and number < 25", None),
    "parent as a statement": (("scoring", "effect"), "when made and bid > 20: score[declarer_side] += 2\n"
                                                    "else: parent", None),
    "parent where 29 has no rule": (("play", "after_trick"), "parent",
                                    "play.after_trick: `parent` names the rule this one replaces"),
    # an effect's `for` over seats; a contract that changes hands in play, or ends
    "for over every seat": (("scoring", "effect"), "for s in seats: score[side(s)] += 1", None),
    "for over no seat": (("scoring", "effect"), "for s in partners(none): score[side(s)] += 1", None),
    "for over cards": (("scoring", "effect"), "for c in hand: target += 1",
                       "scoring.effect: for goes over seats or sides (such as `seats`, `opponents(declarer)` or `sides`), not cards"),
    "for inside for": (("scoring", "effect"), "for s in seats: for t in seats: target += 1",
                       "scoring.effect: a `for` inside another `for`"),
    "a named value inside for": (("scoring", "effect"), "for s in seats: x = 1",
                                 "scoring.effect: name 'x' at the top of the effect, not inside 'when' or 'for'"),
    "take over the contract in play": (("declarations", "royals", "effect"), "declarer = me\ntarget = tricks", None),
    "no contract in play": (("declarations", "royals", "effect"), "declarer = none", None),
    "declarer in scoring": (("scoring", "effect"), "declarer = none",
                            "scoring.effect: 'declarer' can be assigned only in a declaration's effect"),
}


@pytest.mark.parametrize("case", sorted(PLAY_TIME))
def test_loaded_rule_does_not_crash_at_play_time(case):
    path, rule, problem = PLAY_TIME[case]
    text, first, last = rule_file(path, rule)
    p = write_tmp(text)
    with time_guard():
        if problem is not None and problem.startswith("RuleError: "):   # loads, stops at play
            with pytest.raises(RuleError) as e:
                play_one_deal(load_variant(p))
            assert str(e.value).startswith(problem.removeprefix("RuleError: "))
            return
        if problem is not None:
            with pytest.raises(VariantError) as e:
                load_variant(p)
            found = [pr for pr in e.value.problems if pr.message.startswith(problem)]
            assert found, [pr.format() for pr in e.value.problems]
            assert all(first <= pr.line <= last for pr in found), (first, last, found)
            return
        v = load_variant(p)
        for seed in range(40):   # several deals, so that the rule runs in many positions
            play_one_deal(v, seed)


FLOAT_INTS = {
    # JSON Schema's "integer" accepts 4.0; the engine then uses it as an int
    "players: 4.0": 'players: 4.0\n',
    "auction.min_bid: 15.0": 'auction:\n  min_bid: 15.0\n',
    "auction.step: 1.0": 'auction:\n  step: 1.0\n',
    "flow deal: [4.0]": 'flow: [{deal: [4.0]}, auction, trump, {deal: [4]}, play]\n',
}


@pytest.mark.parametrize("case", sorted(FLOAT_INTS))
def test_integer_valued_floats(case):
    """4.0 passes JSON Schema's "integer", but a variant file's numbers are whole numbers:
    the loader rejects it, located at the number (line and column found in the text)."""
    text = HEAD + FLOAT_INTS[case]
    number = re.search(r"\d+\.0", FLOAT_INTS[case]).group(0)
    line_no, line = next((i, ln) for i, ln in enumerate(text.split("\n"), 1) if number in ln)
    with time_guard():
        v, problems = load_and_play(write_tmp(text), text)
    assert v is None, f"{case}: loaded"
    assert [(pr.line, pr.column) for pr in problems] == [(line_no, line.index(number) + 1)], problems
    assert "whole number" in problems[0].message, problems[0].message


BOMB_RUNNER = textwrap.dedent("""\
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    from taash.interpreter import VariantError, load_variant
    try:
        load_variant(sys.argv[1])
    except VariantError as e:
        print("VariantError", e.problems[0].line, e.problems[0].column)
    else:
        print("loaded")
    """)


def run_bounded(path: Path, timeout=5) -> str:
    """Load in a child process with 1 GiB of address space and a time limit; returns its
    one line: "VariantError LINE COLUMN" (the first problem) or "loaded"."""
    try:
        r = subprocess.run([sys.executable, "-c", BOMB_RUNNER, str(path)], cwd=ROOT,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"loading {path.name} took more than {timeout} s")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    return r.stdout.strip()


def test_yaml_alias_bomb_is_rejected_quickly():
    lines = [HEAD.rstrip("\n"), "description: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines.append("notes:")
    for i in range(1, 9):
        lines.append(f"  - &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    # 10**9 leaves once expanded; rejected at the first anchor, &a0: line 3, column 14
    assert run_bounded(write_tmp("\n".join(lines) + "\n")) == "VariantError 3 14"


def test_huge_max_bid_is_rejected_quickly():
    # 10**9 bids to build an action for: rejected at the number, line 4 ("  max_bid: "), column 12
    assert run_bounded(write_tmp(HEAD + "auction:\n  max_bid: 1000000000\n")) == "VariantError 4 12"


def test_define_expansion_bomb_is_rejected_quickly():
    # d_k = d_(k-1) + d_(k-1): 2**39 uses of d0 once expanded. Expanding d8 crosses 200
    # uses; the limit is met inside d1 (line 5: `  d1: d0 + d0`, its first d0 at column 7)
    lines = [HEAD.rstrip("\n"), "define:", "  d0: count(hand)"]
    lines += [f"  d{i}: d{i - 1} + d{i - 1}" for i in range(1, 40)]
    lines += ["scoring:", "  made: d39 > 0"]
    assert run_bounded(write_tmp("\n".join(lines) + "\n")) == "VariantError 5 7"


# -- (d) the variant's own variables and the next dealer ------------------------------------------
# Files that declare variables of random types, scopes and visibility, initial values, effects
# that assign them (now and then with the wrong type) and rules that read them, in every slot
# and in `match.next_dealer`. A file that loads plays a short match, whose record must replay
# to the same result (match-scope variables carried, checked against the record).
VAR_TYPES = ["number", "condition", "seat", "side", "suit", "rank", "card"]


@st.composite
def variables_file(draw):
    n = draw(st.integers(1, 4))
    decls = [(f"v{i}", draw(st.sampled_from(VAR_TYPES)), draw(st.sampled_from(["deal", "match"])),
              draw(st.booleans())) for i in range(n)]
    lines = [HEAD.rstrip("\n"), "variables:"]
    for i, (name, typ, scope, public) in enumerate(decls):
        known = {}
        for nm, t, _, _ in decls[:i]:
            known.setdefault(t, []).append(nm)
        initial = draw(expr(typ, "", 1, variables=known)).replace("'", "''")
        lines += [f"  {name}:", f"    type: {typ}", f"    scope: {scope}", f"    initial: '{initial}'",
                  f"    public: {str(public).lower()}"]
    known = {}
    for nm, t, _, _ in decls:
        known.setdefault(t, []).append(nm)
    stmts = []
    for _ in range(draw(st.integers(1, 3))):
        name, typ, _, _ = draw(st.sampled_from(decls))
        op = "=" if typ != "number" else draw(st.sampled_from(["=", "+=", "-="]))
        stmts.append(f"{name} {op} {draw(expr(typ, 'play.after_trick', 2, variables=known))}")
    lines += ["play:", "  after_trick: |"] + [f"    {s}" for s in stmts]
    lines += ["scoring:", "  effect: |", "    when made: score[declarer_side] += 1",
              "    else: score[declarer_side] -= 1"]
    name, typ, _, _ = draw(st.sampled_from(decls))
    lines.append(f"    {name} {'+=' if typ == 'number' else '='} {draw(expr(typ, 'scoring.effect', 2, variables=known))}")
    lines += ["match:", "  max_deals: 4", "  next_dealer: |",
              f"    {draw(expr('seat', 'match.next_dealer', 2, variables=known))}",
              "  ends: |", f"    {draw(expr('condition', 'match.ends', 2, variables=known))}"]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@settings(FUZZ, max_examples=150 * SCALE)
@given(text=variables_file())
def test_variables_files(text):
    from taash.interpreter import replay, replay_json
    with time_guard():
        v, problems = load_and_play(write_tmp(text), text)
        event("loaded" if v is not None else "rejected")
        if v is None:
            return
        m = Match(v, 1)
        rng = random.Random(1)
        while not m.over:
            s = m.new_deal()
            while not s.is_terminal:
                s.apply(rng.choice(s.legal_actions()))
            assert len(s.vars) == len(v.variables)
            assert set(s.observation(0)["variables"]) == {x.name for x in v.variables if x.public}
            m.finish_deal(s)
            assert 0 <= m.dealer < v.players
        again = replay(m.record())
        assert replay_json(again) == replay_json(m)


# -- (d) decks: cards one by one, less named cards, extra cards, points per rank, suit, card -----
# Every combination must load (then play a deal) or be refused with located problems; the
# flow deals whatever the deck holds when it divides among the three players.
DECK_HEAD = f"extends: {ROOT / 'docs' / 'examples' / 'queen-hunt.yaml'}\nname: fuzz-deck\n"
VALID_CARDS = [r + s for s in "SHDC" for r in "AKQJT987"]
CARD_TEXTS = VALID_CARDS * 4 + ["6S", "2H", "XY", "10H", "Q", "S", '""']   # mostly cards
POINT_KEYS = ["A", "K", "Q", "7", "S", "H", "C", "QS", "7C", "AH"] * 3 + ["2", "6S", "Z", "10"]


@st.composite
def deck_file(draw):
    from collections import Counter
    lines = [DECK_HEAD.rstrip("\n"), "deck:", "  total: null"]
    held = Counter(VALID_CARDS)
    if draw(st.booleans()):
        cards = draw(st.lists(st.sampled_from(CARD_TEXTS), min_size=3, max_size=40))
        lines.append(f"  cards: [{', '.join(cards)}]")
        held = Counter(c for c in cards if c in VALID_CARDS)
    exclude = draw(st.lists(st.sampled_from(CARD_TEXTS), max_size=6, unique=draw(st.booleans())))
    lines.append(f"  exclude: [{', '.join(exclude)}]")
    for c in set(exclude):
        held.pop(c, None)
    extra = draw(st.lists(st.sampled_from(CARD_TEXTS), max_size=6))
    if extra:
        lines.append(f"  extra: [{', '.join(extra)}]")
    held.update(c for c in extra if c in VALID_CARDS)
    points = draw(st.dictionaries(st.sampled_from(POINT_KEYS), st.integers(0, 20), max_size=6))
    points.update({k: "null" for k in ("QS", "H") if k not in points})   # the base's points removed
    lines.append("  points: {" + ", ".join(f'"{k}": {x}' for k, x in points.items()) + "}")
    size = sum(held.values())
    deal = [size // 3] if size % 3 == 0 and size else [max(1, size // 3)]
    widow = [] if size % 3 == 0 or size < 3 else [f"  - widow: {size % 3}", "    set_aside: true"]
    if widow and draw(st.booleans()):   # whom its points count for (a wrong word: located)
        widow.append(f"    points_to: {draw(st.sampled_from(['declarer', 'last_trick', 'nobody', 'winner']))}")
    if draw(st.integers(0, 9)) == 9:
        deal, widow = [draw(st.integers(1, 12))], []   # a deal that may not divide the deck
    lines += ["flow:", f"  - deal: {deal}"] + widow + ["  - play"]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@settings(FUZZ, max_examples=150 * SCALE)
@given(text=deck_file())
def test_deck_files(text):
    with time_guard():
        v, problems = load_and_play(write_tmp(text, "deck.yaml"), text)
        event("loaded" if v is not None else "rejected")
        if v is not None:
            assert len(v.deck.all_cards) == v.players * v.tricks + v.widow_size
            assert v.total == v.deck.total_points() + v.last_trick
