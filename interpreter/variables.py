"""The variant's own names: its variables (``variables:`` of the file; docs/authoring.md)
and, in the rulebook, its named expressions (``define:``). What a `Variable` is, the
section checked (`check_variables`), the rules of their initial values compiled
(`add_variable_rules`) and the Variables built (`build_variables`), their values as a
deal starts (`start`: ``State.vars``), and the rulebook's words (`words`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .dsl import FUNCTIONS, HOOK_NAMES, KEYWORDS, LVALUES, NAMES
from .errors import StateError
from .loader import KEY
from .mechanic import Mechanic
from .wording import KEYWORD_WORDS, NONE_WORDS, name_words, rule_words


@dataclass(eq=False)
class Variable:
    """A variable of the variant's own (``variables:`` of the file; docs/authoring.md).

    name; type: a DSL type of ``names.VARIABLE_TYPES``; scope: ``deal`` (set to its
    initial value at the start of every deal) or ``match`` (set at the start of the match,
    then carried from deal to deal); public: shown in every seat's observation and in
    ``replay --json``, else seen by the rules alone; index: its place in ``State.vars``;
    initial: the compiled rule of its initial value ``f(s, -1, None, None)``; per: ``""``
    (one value), ``seat`` or ``side`` (a value for each: ``State.vars`` holds a tuple of
    ``size`` values, indexed by seat or side, each starting at the initial value).
    """
    name: str
    type: str
    scope: str
    public: bool
    description: str
    index: int
    initial: object = None
    per: str = ""
    size: int = 1


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


def build_variables(specs: dict, rules: dict, players: int, sides: int) -> tuple:
    """The Variables of ``specs`` (name -> spec, the file's order), each with its index in
    ``State.vars`` and its compiled initial rule from ``rules`` (hook -> function); one
    ``per: seat`` holds ``players`` values, one ``per: side`` ``sides``."""
    return tuple(Variable(k, spec["type"], spec["scope"], bool(spec.get("public")),
                          spec.get("description", ""), i, rules[f"variables.{k}.initial"],
                          spec.get("per", ""), {"seat": players, "side": sides}.get(spec.get("per"), 1))
                 for i, (k, spec) in enumerate(specs.items()))


_TYPE_WORDS = {"number": "a number", "condition": "true or false", "seat": "a seat",
               "side": "a side", "suit": "a suit", "rank": "a rank", "card": "a card"}


def initial_words(var, initial, v) -> str:
    """A variable's initial value in words: `none` as its type says it ("no card" for
    a card, "nobody" for a seat), else the rule's words."""
    if str(initial).strip() == "none":
        return NONE_WORDS.get(var.type, KEYWORD_WORDS["none"])
    return rule_words(initial, v=v, value=True)


def variables_words(v) -> str:
    """The Variables section: each variable, its type, scope, visibility and initial value."""
    out = ["Values the rules keep, changed only by effects:"]
    for var in v.variables:
        spec = v.data["variables"][var.name]
        scope = ("set at the start of every deal" if var.scope == "deal"
                 else "set at the start of the match and kept from deal to deal")
        seen = "shown to every player" if var.public else "seen by the rules only"
        what = f": {var.description}" if var.description else ""
        each = f"one for each {var.per}: `{var.name}[{var.per}]`, " if var.per else ""
        out.append(f"- `{var.name}` ({each}{_TYPE_WORDS[var.type]}, {seen}){what}; {scope}, "
                   f"{'each ' if var.per else ''}to {initial_words(var, spec['initial'], v)}.")
    return "\n".join(out)


def start(s, carried) -> None:
    """The variables at the deal's start (``s.vars``, and ``s.start_vars`` a copy): match
    scope carried (``carried``: the values after the previous deal, None at the start of
    the match, which then takes the initial rule), deal scope by its initial rule, in the
    file's order (an initial rule may read the variables before it). Raises StateError
    for ``carried`` of the wrong length."""
    vs = s.v.variables
    if carried is not None and len(carried) != len(vs):
        raise StateError(f"expected {len(vs)} variable values, got {len(carried)}")
    s.vars = [0] * len(vs)
    for var in vs:
        if var.scope == "match" and carried is not None:
            s.vars[var.index] = carried[var.index]
        elif var.per:
            s.vars[var.index] = (var.initial(s, -1, None, None),) * var.size
        else:
            s.vars[var.index] = var.initial(s, -1, None, None)
    s.start_vars = tuple(s.vars)


def load(c) -> dict:
    """Check the ``variables:`` section (``c``: a loader.Checks with ``options``, the
    option values); sets ``c.variable_specs`` (name -> spec)."""
    c.variable_specs = check_variables(c.data, c.options, lambda p, m: c.problem(p, m, value=True))
    return {}


def define_item(name: str, text: str) -> str:
    """One named expression as one item of the list: a rule of several lines (cases, a
    ``let``) indented under it, so that its lines stay its own."""
    if "\n" not in text:
        return f"- *{name}*: {text}"
    return f"- *{name}*:\n" + "\n".join(f"  {line}" if line.startswith("- ") else f"  - {line}"
                                        for line in text.splitlines())


def words(v) -> list[tuple[str, str]]:
    """The rulebook's ``Named expressions`` and ``Variables`` sections of ``v`` (each only
    when the file has some)."""
    secs = []
    if v.data.get("define"):
        secs.append(("Named expressions", "Used by name in the rules above.\n" + "\n".join(
            define_item(name_words(k), rule_words(text, v=v)) for k, text in v.data["define"].items())))
    if v.variables:
        secs.append(("Variables", variables_words(v)))
    return secs


@dataclass(frozen=True, eq=False, kw_only=True)
class VariablesFields:
    """The variables' field of a Variant (`Mechanic.variant`)."""
    variables: tuple = ()   # Variable, in the file's order


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'variables': {'type': 'object',
                              'description': "the variant's own variables: read by every rule, "
                                             'assigned by effects (docs/authoring.md)',
                              'maxProperties': 64,
                              'propertyNames': {'pattern': '^[a-z][a-z0-9_]*$'},
                              'additionalProperties': {'type': 'object',
                                                       'additionalProperties': False,
                                                       'required': ['type', 'scope', 'initial'],
                                                       'properties': {'type': {'enum': ['number',
                                                                                        'condition',
                                                                                        'seat',
                                                                                        'side',
                                                                                        'suit',
                                                                                        'rank',
                                                                                        'card']},
                                                                      'scope': {'enum': ['deal',
                                                                                         'match'],
                                                                                'description': 'deal: '
                                                                                               'set '
                                                                                               'to '
                                                                                               'its '
                                                                                               'initial '
                                                                                               'value '
                                                                                               'at '
                                                                                               'the '
                                                                                               'start '
                                                                                               'of '
                                                                                               'every '
                                                                                               'deal; '
                                                                                               'match: '
                                                                                               'set '
                                                                                               'at '
                                                                                               'the '
                                                                                               'start '
                                                                                               'of '
                                                                                               'the '
                                                                                               'match '
                                                                                               'and '
                                                                                               'carried '
                                                                                               'from '
                                                                                               'deal '
                                                                                               'to '
                                                                                               'deal'},
                                                                      'initial': {'$ref': '#/$defs/rule'},
                                                                      'public': {'type': 'boolean',
                                                                                 'description': 'shown '
                                                                                                'in '
                                                                                                'every '
                                                                                                "seat's "
                                                                                                'observation '
                                                                                                'and '
                                                                                                'in '
                                                                                                'replay '
                                                                                                '--json '
                                                                                                '(default '
                                                                                                'false: '
                                                                                                'seen '
                                                                                                'by '
                                                                                                'the '
                                                                                                'rules '
                                                                                                'only)'},
                                                                      'per': {'enum': ['seat',
                                                                                       'side'],
                                                                              'description': 'one '
                                                                                             'value '
                                                                                             'for '
                                                                                             'each '
                                                                                             'seat '
                                                                                             'or '
                                                                                             'each '
                                                                                             'side, '
                                                                                             'read '
                                                                                             'and '
                                                                                             'set '
                                                                                             'with '
                                                                                             'an '
                                                                                             'index: '
                                                                                             'name[seat] '
                                                                                             'or '
                                                                                             'name[side] '
                                                                                             '(default: '
                                                                                             'one '
                                                                                             'value)'},
                                                                      'description': {'type': 'string'}}}},
                'define': {'type': 'object',
                           'description': 'named expressions: name -> a rule, usable by name in '
                                          'any rule, or name(a, b: type) -> a rule of its '
                                          'parameters, usable as name(x, y) (docs/authoring.md)',
                           'propertyNames': {'pattern': '^[a-z_][a-z0-9_]*\\s*(\\(.*\\))?$'},
                           'additionalProperties': {'$ref': '#/$defs/rule'}}}}


MECHANIC = Mechanic(
    "variables", schema=SCHEMA, load=load, variant=VariablesFields,
    compiler=lambda c, fields: dict(variables=[(k, spec["type"], spec.get("per", ""))
                                               for k, spec in c.variable_specs.items()]),
    add_rules=lambda c, comp, add: add_variable_rules(comp, c.variable_specs, add),
    built=lambda c, rules, sources, paths: dict(variables=build_variables(
        c.variable_specs, rules, c.players,
        c.players if c.data.get("partnership") == "individual" else 2)),
    fields={"vars": "list", "start_vars": "="}, start=start,
    view=lambda s, seat, tricks: {"variables": s.v.variables_json(s.vars)}, words=words)
