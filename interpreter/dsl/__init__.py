"""The rules DSL: parse with the Lark grammar in ``grammar/rules.lark``, check names,
arities and types, and compile each rule to a plain Python function.

One module per stage:

- `parse`: the grammar, the parser, syntax errors with their position, the limits on a
  rule's size and nesting;
- `check`: names, arities and types, constants folded: parse tree -> typed tree (``T``:
  each node with its type and, where constant, its folded value);
- `lower`: typed tree -> Python ``ast`` -> ``verify`` -> ``compile()`` -> ``exec``;
- `fastpath`: the engine's hot path (the play phase's and the auction's legal actions,
  the play of a card) generated from the checked rules;
- `runtime`: the helpers in the compiled code's globals;
- `pyast`: Python's ``ast`` conversions (``ast.parse``, ``compile`` of a tree) under one
  lock, one thread at a time;
- `compiler`: ``Compiler``, the stages in order for one variant;
- `names`: the one registry of names, assignable names, functions and hook names (type,
  the State fields it reads, how its code is made, its rulebook words, its line in
  docs/authoring.md), from which the stages, the rulebook and `guide` (the tables of
  docs/authoring.md) come.

Safety (docs/architecture.md, "The pipeline of a variant"): no text is parsed as Python. The ``ast``
handed to ``compile`` is built node by node from the typed tree: every identifier in it
is a parameter, a helper, a local the compiler named (``_v0``, ``_t1``) or an attribute
of a registry entry; every constant an ``int``, ``bool`` or ``str`` the compiler made (a
string only as the name of one of the variant's declarations or answers, checked, and
only ever data). ``verify`` checks that on the module before it is compiled. The code runs
with empty builtins and only the helpers of `runtime` in its globals. The language has
no loops and no recursion: a named expression of ``define:`` (with or without parameters)
and ``parent`` (the inherited rule) are expanded where they are used, and one defined in
terms of itself is refused; the module's
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

from .check import (NOT_CONSTANT, ERROR, FUNCTIONS, HOOK_NAMES, LVALUES, MAX_EXPANSIONS, MAX_QUANTIFIER_DEPTH, NAMES,
                    Checker, T)
from .compiler import Compiler
from .fastpath import FastPath
from .lower import Compiled, Lowerer, verify
from .names import (ANSWER, BOOL, CARD, CARDS, DECLARATION, INT, LIST, NONE, RANK, SEAT, SEATS, SET, SIDE, SIDES, SUIT,
                    RegistryError, check_state)
from .parse import GRAMMAR_PATH, KEYWORDS, MAX_DEPTH, MAX_RULE_CHARS, MAX_WIDTH, DefineError, DSLError, ParentError, parser

__all__ = ["ANSWER", "BOOL", "CARD", "CARDS", "Checker", "Compiled", "Compiler", "DECLARATION", "DefineError",
           "DSLError", "ERROR", "FUNCTIONS", "FastPath", "GRAMMAR_PATH", "HOOK_NAMES", "INT", "KEYWORDS", "LIST",
           "LVALUES", "Lowerer", "MAX_DEPTH", "MAX_EXPANSIONS", "MAX_QUANTIFIER_DEPTH", "MAX_RULE_CHARS",
           "MAX_WIDTH", "NAMES", "NONE", "NOT_CONSTANT", "ParentError", "RANK", "RegistryError", "SEAT", "SEATS", "SET", "SIDE", "SIDES", "SUIT", "T",
           "check_state", "parser", "verify"]
