"""The variant's own variables (``variables:`` of the file; docs/authoring.md): what a
`Variable` is, the section checked (`check_variables`), the rules of their initial values
compiled (`add_variable_rules`) and the Variables built (`build_variables`), and the
rulebook's words (`variables_words`). Their values live in ``State.vars``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .dsl import FUNCTIONS, HOOK_NAMES, KEYWORDS, LVALUES, NAMES
from .loader import KEY
from .wording import rule_words


@dataclass(eq=False)
class Variable:
    """A variable of the variant's own (``variables:`` of the file; docs/authoring.md).

    name; type: a DSL type of ``names.VARIABLE_TYPES``; scope: ``deal`` (set to its
    initial value at the start of every deal) or ``match`` (set at the start of the match,
    then carried from deal to deal); public: shown in every seat's observation and in
    ``replay --json``, else seen by the rules alone; index: its place in ``State.vars``;
    initial: the compiled rule of its initial value ``f(s, -1, None, None)``.
    """
    name: str
    type: str
    scope: str
    public: bool
    description: str
    index: int
    initial: object = None


def check_variables(data: dict, opts: dict, problem) -> dict:
    """The ``variables:`` of a file (name -> spec), each name checked against the names a
    rule already has (engine names, functions, assignable names, options, keywords);
    ``problem(path, message)`` records each clash."""
    out = data.get("variables", {}) or {}
    hook_names = {n for hn in HOOK_NAMES.values() for n in hn}
    for k in out:
        if k in KEYWORDS:
            problem(("variables", k, KEY), f"variable '{k}' is a keyword of the rules language; choose another name")
        elif k in NAMES or k in hook_names or k in FUNCTIONS or k in LVALUES:
            problem(("variables", k, KEY), f"variable '{k}' has the name of an engine value or function; "
                                      "choose another name")
        elif k in opts:
            problem(("variables", k, KEY), f"variable '{k}' has the name of an option; choose another name")
        elif k in (data.get("define") or {}):
            problem(("variables", k, KEY), f"variable '{k}' has the name of a named expression "
                                           "(`define:`); choose another name")
    return out


def add_variable_rules(comp, specs: dict, add) -> None:
    """Compile the initial value of each variable of ``specs`` (name -> spec, the file's
    order) with ``add(hook, path, kind, text)`` (variant._load_variant's) on the compiler
    ``comp``: an initial value reads only the variables declared before it (set by then)."""
    every_variable = comp.variables
    for k, (vname, spec) in enumerate(specs.items()):
        comp.variables = dict(list(every_variable.items())[:k])
        add(f"variables.{vname}.initial", ("variables", vname, "initial"), spec["type"], spec["initial"])
    comp.variables = every_variable


def build_variables(specs: dict, rules: dict) -> tuple:
    """The Variables of ``specs`` (name -> spec, the file's order), each with its index in
    ``State.vars`` and its compiled initial rule from ``rules`` (hook -> function)."""
    return tuple(Variable(k, spec["type"], spec["scope"], bool(spec.get("public")),
                          spec.get("description", ""), i, rules[f"variables.{k}.initial"])
                 for i, (k, spec) in enumerate(specs.items()))


_TYPE_WORDS = {"number": "a number", "condition": "true or false", "seat": "a seat",
               "side": "a side", "suit": "a suit", "rank": "a rank", "card": "a card"}


def variables_words(v) -> str:
    """The Variables section: each variable, its type, scope, visibility and initial value."""
    out = ["Values the rules keep, changed only by effects:"]
    for var in v.variables:
        spec = v.data["variables"][var.name]
        scope = ("set at the start of every deal" if var.scope == "deal"
                 else "set at the start of the match and kept from deal to deal")
        seen = "shown to every player" if var.public else "seen by the rules only"
        what = f": {var.description}" if var.description else ""
        out.append(f"- `{var.name}` ({_TYPE_WORDS[var.type]}, {seen}){what}; {scope}, to "
                   f"{rule_words(spec['initial'], v=v, value=True)}.")
    return "\n".join(out)
