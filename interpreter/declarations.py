"""Declarations (docs/rules.md §0.8): what a variant declares (`Declaration`), the
``declarations:`` section checked (`load`), its rules compiled (`add_rules`) and built
(`build`), the flow's `declare` step (`Declare`), making one (`declare`), and the
rulebook's words (`words`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dsl import BOOL, SEAT
from .mechanic import Mechanic
from .phase import Phase, order_from, table_seat
from .wording import rule_words


@dataclass(eq=False)
class Declaration:
    """A declaration made in play (docs/rules.md §0.8).

    name; action: its text form (``declare NAME``, or a bare word such as ``cot``);
    per_suit: one action per suit (``declare marriage H``), each suit at most once;
    when/effect: compiled rules ``f(s, me, suit, None)``; answers: for a question, the
    answers (``cot yes``) and answered_by, the compiled rule of the answering seat;
    answer_actions: the Actions of the answers (made with the variant's action table).
    at: ``play`` (on one's turn in play) or ``flow`` (at the flow's ``declare`` step,
    each seat in turn, before the first lead).
    """
    name: str
    description: str
    action: str
    per_suit: bool
    when: object
    effect: object
    answers: tuple = ()
    answered_by: object = None
    answer_actions: tuple = ()
    at: str = "play"


def declare(s, seat: int, a) -> None:
    """Record the declaration of action ``a`` by ``seat`` (each, with its suit, once a
    deal) and run its effect; a declaration by the called partner reveals him (§304.7).
    An effect that sets ``declarer`` takes over the contract (`State._change_contract`)."""
    decl, suit = a.code
    s.declared[decl.name] = s.declared.get(decl.name, 0) + 1
    s.declared_keys.add(a.id)
    if seat == s.partner:
        s.partner_revealed = True
    before = s.declarer
    decl.effect(s, seat, suit, None)
    if s.declarer != before:  # the effect took over the contract (`declarer = ...`)
        s._change_contract(before, decl.name, seat)


class Declare(Phase):
    """The flow's ``declare`` step (docs/authoring.md, "Flow"): each seat in turn from the
    seat of the step's rule, once, makes one of the declarations with ``at: flow`` whose
    ``when`` holds, or passes (``pass`` first, docs/rules.md §0.10): with the step's
    ``may_pass`` rule, only when it holds or no declaration may be made. Each declaration once a
    deal. A seat that sits out by then is skipped; ``sits_out`` takes effect at the end
    of the step. A declaration whose effect says ``redeal`` ends the deal void at once:
    no more calls, nothing scored (the match's next deal is dealt as after any deal)."""

    name = "declare"

    def enter(self, s):
        v = s.v
        n = v.players
        s.declare_queue = tuple(order_from(table_seat(s, "flow.declare"), n))
        self.next(s)

    def next(self, s):
        q = s.declare_queue
        while q and s.out[q[0]]:
            q = q[1:]
        s.declare_queue = q[1:]
        if q:
            s.to_act = q[0]
        else:
            s._seat_out()
            s._next_step()

    def legal(self, s):
        me = s.to_act
        keys = s.declared_keys
        decls = [i for i, when, su in s.v.flow_declaration_checks if i not in keys and when(s, me, su, None)]
        may_pass = s.v.rules.get("flow.declare.may_pass")
        if decls and may_pass is not None and not may_pass(s, me, None, None):
            return decls   # the step's `may_pass` does not hold: he must declare
        return [s.v.pass_action.id] + decls

    def apply(self, s, seat, a):
        if a.kind == "declare":
            declare(s, seat, a)
            if s.voided:   # the effect's `redeal`: the deal ends here, nothing scored
                s._end_deal()
                return
        self.next(s)


def sections(data: dict) -> dict:
    """The file's ``declarations:`` (name -> spec), {} without."""
    return data.get("declarations", {}) or {}


def compiler_names(data: dict) -> dict:
    """What the rules compiler must know of the declarations (dsl.Compiler's keywords
    ``declarations``: their names, and ``answers``: the text of every answer action)."""
    decls = sections(data)
    return dict(declarations=list(decls),
                answers=[f"{d.get('action', f'declare {n}')} {a}" for n, d in decls.items()
                         for a in d.get("answers", [])])


def load(c) -> dict:
    """Check the ``declarations:`` section against the flow (``c``: a loader.Checks with
    ``declare_at``: the indexes of the flow's `declare` steps, and ``action_words``: the
    actions of one word, which a declaration's action may not be); record each problem
    in ``c``. The Declarations are made once their rules are compiled (`build`)."""
    decls = sections(c.data)
    actions_seen = {}
    for dname, d in decls.items():
        act = d.get("action", f"declare {dname}")
        if act in c.action_words or act in actions_seen:
            c.problem(("declarations", dname), f"declaration action {act!r} is already taken")
        actions_seen[act] = dname
        if "answers" in d and "answered_by" not in d:
            c.problem(("declarations", dname), "a declaration with answers needs answered_by (a seat)")
        if d.get("at") == "flow":
            if not c.declare_at:
                c.problem(("declarations", dname, "at"), "a declaration `at: flow` is made at the flow's "
                          "'declare' step: add one (e.g. `- declare: eldest` before play)")
            if "answers" in d:
                c.problem(("declarations", dname, "answers"), "a declaration `at: flow` cannot be a "
                                                              "question (answers are asked in play)")
    if c.declare_at and not any(d.get("at") == "flow" for d in decls.values()):
        c.problem(("flow", c.declare_at[0]), "a 'declare' step needs a declaration with `at: flow`")
    return {}


def add_rules(c, comp, add) -> None:
    """Compile the rules of the flow's `declare` step (its first seat, ``flow.declare``)
    and of each declaration (``declare.NAME.when``, ``.effect``, ``.answered_by``) with
    ``add(hook, path, kind, text, extra)`` (variant._load_variant's) on the compiler
    ``comp``; then check the declarations that take over the contract (`check_take_over`)."""
    flow = c.data["flow"]
    if c.declare_at:
        add("flow.declare", ("flow", c.declare_at[0], "declare"), SEAT, flow[c.declare_at[0]]["declare"])
        if "may_pass" in flow[c.declare_at[0]]:   # pass only when it holds (or nothing else is legal)
            add("flow.declare.may_pass", ("flow", c.declare_at[0], "may_pass"), BOOL,
                flow[c.declare_at[0]]["may_pass"], "declare.flow")
    for dname, d in sections(c.data).items():
        extra = (("declare.suit",) if d.get("per_suit") else ()) + (("declare.flow",) if d.get("at") == "flow" else ())
        add(f"declare.{dname}.when", ("declarations", dname, "when"), BOOL, d["when"], extra)
        add(f"declare.{dname}.effect", ("declarations", dname, "effect"), "effect",
            d.get("effect", "target += 0"), extra + ("declare.effect",))
        if "answered_by" in d:
            add(f"declare.{dname}.answered_by", ("declarations", dname, "answered_by"), SEAT,
                d["answered_by"], extra)
    check_take_over(c, comp.assigns, c.trump_mode)


def check_take_over(c, assigns: dict, trump_mode: str) -> None:
    """A declaration whose effect takes over the contract (assigns ``declarer``; ``assigns``:
    hook -> the engine's names its rule assigns) needs a declarer who holds nothing secret:
    no face-down or secretly named trump (``trump_mode`` hidden, secret) and no exchange
    with a widow only he sees; else the new declarer would learn them. Records each
    problem in ``c`` (a loader.Checks)."""
    secret = ("a trump only the declarer knows" if trump_mode in ("hidden", "secret")
              else "a widow only the declarer sees" if "exchange" in c.steps else "")
    if not secret:
        return
    for dname in sections(c.data):
        if "declarer" in assigns.get(f"declare.{dname}.effect", ()):
            c.problem(("declarations", dname, "effect"), f"a declaration cannot take over the contract "
                      f"(`declarer = ...`) in a game with {secret}: the new declarer would learn it")


def build(data: dict, rules: dict) -> list[Declaration]:
    """The Declarations of the file's ``declarations:``, with their compiled ``rules``
    (hook -> function)."""
    return [Declaration(n, d.get("description", ""), d.get("action", f"declare {n}"),
                        bool(d.get("per_suit")), rules[f"declare.{n}.when"],
                        rules[f"declare.{n}.effect"], tuple(d.get("answers", ())),
                        rules.get(f"declare.{n}.answered_by"), at=d.get("at", "play"))
            for n, d in sections(data).items()]


# flow step -> its words in the rulebook's Deal section (``declare`` a `declare: SEAT` step)
STEP_WORDS = {"declare": lambda v, step: f"each player in turn from {rule_words(step['declare'], v=v)} may make "
                                         "one declaration (see Declarations) or pass"
                                         + ("" if "may_pass" not in step else
                                            f" (he may pass only when {rule_words(step['may_pass'], v=v)}, "
                                            "or when he may make no declaration)")
                                         + "; a player who sits out by then does not call"}


def words(v) -> list[tuple[str, str]]:
    """The rulebook's ``Declarations`` section of variant ``v`` ([] without any), as
    [(title, Markdown text)]."""
    if not v.declarations:
        return []
    ds = []
    for decl in v.declarations:
        dd = v.data["declarations"][decl.name]
        what = f" ({dd['description']})" if dd.get("description") else ""
        form = f"`{decl.action}{' SUIT' if decl.per_suit else ''}`"
        when = ("at the declarations before play" if decl.at == "flow"
                else "on one's turn before one's card")
        ds.append(f"**{decl.name}**{what}, made as {form} {when}, "
                  f"at most once a deal{' for each suit' if decl.per_suit else ''}, when: "
                  f"{rule_words(dd['when'], v=v)}.")
        if dd.get("effect"):
            ds.append("Effect:\n" + rule_words(dd["effect"], True, v))
        if decl.answers:
            ds.append(f"Answered at once by {rule_words(dd['answered_by'], v=v)}: "
                      + " or ".join(f"`{decl.action} {a}`" for a in decl.answers) + ".")
    return [("Declarations", "\n\n".join(ds))]


# flow step -> its phase (one handler serves every deal)
PHASES = {"declare": Declare()}


def start(s, carried) -> None:
    """The declarations' fields as a deal starts: none made, no question open, no seat
    queued at the flow's `declare` step, the deal not void."""
    s.declare_queue = ()
    s.declared = {}
    s.declared_keys = set()
    s.answers = set()
    s.question = None
    s.voided = False


def view(s, seat, tricks) -> dict:
    """The declarations' part of ``seat``'s observation (public): those made, the
    answers given, and whether a declaration's `redeal` ended the deal void."""
    declared, answers = s.declared, s.answers
    return {"declared": sorted(declared) if declared else [],
            "answers": sorted(answers) if answers else [], "void": s.voided}


@dataclass(frozen=True, eq=False, kw_only=True)
class DeclarationsFields:
    """The declarations' fields of a Variant (`Mechanic.variant`): what the file declares
    (`build`), and their actions (`tables`)."""
    declarations: list = field(default_factory=list)   # Declaration, in the file's order
    declaration_actions: list = field(repr=False, default=None)  # (Action, Declaration, suit or None)
    flow_declaration_checks: list = field(repr=False, default=None)  # (id, when, suit) of `at: flow`
    declare_from: object = field(repr=False, default=None)  # the `declare` step's first seat rule


def declarations_table(v, act) -> dict:
    """Each declaration's actions (`Mechanic.tables`, slot 11: last): one, or one per
    suit, and its answers' (set on the Declaration as ``answer_actions``); the checks of
    those made at the flow's `declare` step (`Declare`; the play's are written into the
    variant's play_legal: dsl.Compiler.build_play_legal), and that step's first seat."""
    out = []
    for decl in v.declarations:
        if decl.per_suit:
            for i, su in enumerate(v.deck.suits):
                out.append((act(f"{decl.action} {su}", "declare", (decl.name, su), (decl, i)), decl, i))
        else:
            out.append((act(decl.action, "declare", (decl.name, None), (decl, None)), decl, None))
        decl.answer_actions = tuple(act(f"{decl.action} {ans}", "answer", (decl.name, ans), (decl, ans))
                                    for ans in decl.answers)
    return dict(declaration_actions=out,
                flow_declaration_checks=[(a.id, d.when, su) for a, d, su in out if d.at == "flow"],
                declare_from=v.rules.get("flow.declare"))


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'declarations': {'type': 'object',
                                 'propertyNames': {'pattern': '^[a-z][a-z0-9_-]*$'},
                                 'additionalProperties': {'type': 'object',
                                                          'additionalProperties': False,
                                                          'required': ['when'],
                                                          'properties': {'description': {'type': 'string'},
                                                                         'when': {'$ref': '#/$defs/rule'},
                                                                         'effect': {'$ref': '#/$defs/rule'},
                                                                         'per_suit': {'type': 'boolean'},
                                                                         'answers': {'type': 'array',
                                                                                     'minItems': 1,
                                                                                     'uniqueItems': True,
                                                                                     'items': {'type': 'string',
                                                                                               'pattern': '^[a-z][a-z0-9-]*$'}},
                                                                         'answered_by': {'$ref': '#/$defs/rule'},
                                                                         'action': {'type': 'string',
                                                                                    'pattern': '^[a-z][a-z0-9-]*$'},
                                                                         'at': {'enum': ['play',
                                                                                         'flow'],
                                                                                'description': 'play: '
                                                                                               'on '
                                                                                               "one's "
                                                                                               'turn '
                                                                                               'in '
                                                                                               'play '
                                                                                               '(default); '
                                                                                               'flow: '
                                                                                               'at '
                                                                                               'the '
                                                                                               "flow's "
                                                                                               "'declare' "
                                                                                               'step'}}}}},
 'step_objects': [{'type': 'object',
                   'additionalProperties': False,
                   'required': ['declare'],
                   'properties': {'declare': {'$ref': '#/$defs/rule',
                                              'description': 'the seat that calls first at this '
                                                             'step of declarations (each seat in '
                                                             'turn, once)'},
                                  'may_pass': {'$ref': '#/$defs/rule',
                                               'description': 'a condition: a seat may pass only '
                                                              'when it holds (or when he may make '
                                                              'no declaration); default true'}}}]}


MECHANIC = Mechanic(
    "declarations", schema=SCHEMA, load=load, variant=DeclarationsFields,
    tables=((11, declarations_table),),
    action_kinds={"declare": "(declaration name, suit letter or None)",
                  "answer": "(declaration name, answer word)"},
    compiler=lambda c, fields: compiler_names(c.data), add_rules=add_rules,
    built=lambda c, rules, sources, paths: dict(declarations=build(c.data, rules)),
    fields={"declare_queue": "=", "declared": "dict", "declared_keys": "set", "answers": "set",
            "question": "=", "voided": "="},
    start=start, phases=PHASES, view=view, step_words=STEP_WORDS, words=words)
