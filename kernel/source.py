"""The kernel's one view of the engine: what it reads of a `Variant` (its checked rules
as typed trees, its deck and fixed values) and of a `State` (its facts, as numbers).

Everything the kernel knows of `taash.interpreter` goes through this module, so that when
the engine's insides move only this file changes. The rules are not read from the file's
text: they are checked again by the engine's own checker (`taash.interpreter.dsl.Compiler`,
with the arguments the loader gives it, from the Variant), and each typed tree is lowered
by the engine's own `Lowerer` and compared with the source the Variant runs
(``Variant.sources``): a rule whose tree would differ is refused (`Unsupported`), never
guessed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from taash.interpreter import State, Variant
from taash.interpreter import declarations as _declarations
from taash.interpreter import trump as _trump
from taash.interpreter.dsl import Compiler, DSLError, Lowerer
from taash.interpreter.errors import TaashError
from taash.interpreter.phase import order_from
from taash.interpreter.variant import HOOKS


class Unsupported(TaashError):
    """A variant (or a state) the kernel cannot compile or take: ``str(e)`` says what, in
    words, for the one message the user sees; the Python engine plays it instead."""


@dataclass
class Rule:
    """One checked rule: its hook, typed tree (`taash.interpreter.dsl.T`), its ``let``
    statements (typed), and whether it is an effect. ``tree`` is None for an optional
    hook the file leaves out (it does nothing)."""
    hook: str
    tree: object
    lets: list
    effect: bool


# the hooks of the play of the tricks and of the deal's scoring, which the kernel runs
PLAY_HOOKS = ("play.may_play", "play.counts_as_trump", "play.may_expose", "play.after_trick",
              "play.after_card", "scoring.made", "scoring.effect")


def _rule_text(data: dict, path: tuple, default):
    node = data
    for k in path:
        node = node.get(k) if isinstance(node, dict) else None
    if node is None:
        return None if default in (None, "") else default
    return node


def _body_source(lowerer: Lowerer, tree, lets, effect: bool) -> str:
    """The Python source of a rule's body as `lower.compile_rules` makes it."""
    body = (lowerer.lower_stmts(tree.kids) + [ast.Return(ast.Constant(None))] if effect
            else lowerer.lower_stmts(lets) + [ast.Return(lowerer.lower(tree))])
    fdef = ast.FunctionDef("r", ast.arguments([], [ast.arg(p) for p in ("s", "me", "x", "y")], None, [], [], None, []),
                           body, [], None, None, type_params=[])
    ast.fix_missing_locations(fdef)
    return "\n".join(ast.unparse(fdef).splitlines()[1:])


def checked_rules(v: Variant) -> dict[str, Rule]:
    """The typed trees of ``v``'s play and scoring rules and of its declarations
    (``declare.NAME.when``/``.effect``), by hook, checked again by the engine's checker.
    Raises Unsupported when a tree's lowering differs from what ``v`` runs."""
    deck = v.deck
    comp = Compiler(deck, v.players, v.tricks, v.min_bid, v.max_bid, options=v.options,
                    score_unit=v.score_unit, defines=v.data.get("define", {}) or {},
                    denominations={den: -2 - i for i, den in enumerate(x for x in v.denominations
                                                                       if x not in deck.suits)},
                    variables=[(x.name, x.type) for x in v.variables], partnership=v.partnership,
                    not_assignable=() if v.trump_mode in _trump.PUBLIC_MODES else ("trump",),
                    **_declarations.compiler_names(v.data))
    wanted = []
    for hook in PLAY_HOOKS:
        path, kind, default = HOOKS[hook]
        wanted.append((hook, _rule_text(v.data, path, default), kind, None))
    for name, d in _declarations.sections(v.data).items():
        extra = (("declare.suit",) if d.get("per_suit") else ()) + (("declare.flow",) if d.get("at") == "flow" else ())
        wanted.append((f"declare.{name}.when", d["when"], "condition", extra))
        wanted.append((f"declare.{name}.effect", d.get("effect", "target += 0"), "effect",
                       extra + ("declare.effect",)))
    out = {}
    for hook, text, kind, extra in wanted:
        if text is None:
            out[hook] = Rule(hook, None, [], kind == "effect")
            continue
        try:
            comp.add(hook, text, kind, extra)
        except DSLError as e:   # the Variant loaded, so this is the kernel's misreading
            raise Unsupported(f"the kernel could not read the rule {hook} as the engine does ({e})") from None
        _, tree, effect, lets = comp.rules[-1]
        mine = _body_source(Lowerer(deck, v.players, v.tricks, v.min_bid, v.max_bid), tree, lets, effect)
        theirs = v.sources.get(hook)
        if theirs is None or "\n".join(theirs.rstrip("\n").splitlines()[1:]) != mine:
            raise Unsupported(f"the kernel's reading of the rule {hook} differs from the engine's")
        out[hook] = Rule(hook, tree, lets, effect)
    return out


def assigned(v: Variant, rules: dict[str, Rule]) -> dict[str, set[str]]:
    """hook -> the engine's assignable names each effect assigns."""
    out = {}
    for hook, r in rules.items():
        names = set()
        stack = [r.tree] if r.tree is not None else []
        while stack:
            t = stack.pop()
            if t.op == "assign":
                names.add(t.info[0].name)
            stack.extend(k for k in t.kids if k is not None and hasattr(k, "op"))
        out[hook] = names
    return out


@dataclass
class Facts:
    """What the kernel builds from: the variant's fixed values and tables, read once."""
    digest: str
    name: str
    players: int
    tricks: int
    sides: int
    nscores: int
    last_trick: int
    trump_mode: str
    partnership: str
    has_contract: bool
    widow_points_to: str
    plain_play: bool
    suits: int
    ranks: int
    size: int                # card ids
    max_copies: int
    suit_of: list
    rank_of: list
    strength: list
    point_of: list
    card_table: list
    next_seat: list
    declarations: list       # names, in the order the rules' declared() counts them
    play_checks: list        # (action id, declaration name, suit or None) of play declarations, legal order
    has_answers: bool
    flow_after_play: bool    # a step of the flow after play (the kernel ends the deal with the play)
    variables: list          # (name, type)


def facts(v: Variant) -> Facts:
    if v.deal_sizes is not None:   # one kernel a variant (its digest): one number of tricks
        raise Unsupported("the number of cards dealt changes from deal to deal (a flow size reads "
                          "`deals`): the kernel is compiled for one number of tricks")
    d = v.deck
    names = list(_declarations.sections(v.data))
    play_checks = [(a.id, decl.name, su) for a, decl, su in v.declaration_actions if decl.at == "play"]
    steps = [name for name, _ in v.steps]
    return Facts(v.digest, v.name, v.players, v.tricks, v.sides, v.sides if v.score_unit == "side" else v.players,
                 v.last_trick, v.trump_mode, v.partnership, v.has_contract, v.widow_points_to, v.plain_play,
                 len(d.suits), len(d.ranks), d.size, d.max_copies, list(d.suit_of), list(d.rank_of),
                 list(d.strength), list(d.point_of), [list(r) for r in d.card_table], list(v.next_seat), names,
                 play_checks, any(decl.answers for decl in v.declarations),
                 "play" in steps and steps.index("play") != len(steps) - 1,
                 [(x.name, x.type) for x in v.variables])


# -- a State as numbers -------------------------------------------------------------------
SCALARS = ("to_act", "terminal", "dealer", "deal_number", "declarer", "target", "bid", "denomination",
           "high_bidder", "calls", "bids", "passes", "passed", "doubled", "holder", "challenger",
           "trump", "trump_exposed", "trump_card", "exposer", "exposure_trick", "partner",
           "partner_revealed", "called_card", "led", "in_trick", "tricks_done", "active", "made",
           "declared_keys", "aside_points", "last_winner", "taken_over")


class Layout:
    """Where each fact lies in the kernel's state, one int64 array: ``at[name]`` its
    offset; arrays of facts per seat, side, card... follow the scalars."""

    def __init__(self, f: Facts):
        n = f.players
        self.at = {k: i for i, k in enumerate(SCALARS)}
        size = len(SCALARS)
        for name, length in (("hands", n), ("counts", n * f.size if f.max_copies > 1 else 0),
                             ("side", n + 1), ("side_points", f.sides), ("seat_points", n),
                             ("side_tricks", f.sides), ("seat_tricks", n), ("seat_side_tricks", n * f.sides),
                             ("scores", f.nscores), ("trick_cards", n), ("trick_seats", n), ("trick_after", n),
                             ("out", n), ("next", n), ("declared", max(len(f.declarations), 1)),
                             ("vars", max(len(f.variables), 1))):
            self.at[name] = size
            size += length
        self.size = size


def from_state(v: Variant, f: Facts, lay: Layout, s: State) -> list[int]:
    """The facts of ``s`` (a State of ``v``) at the kernel's places, as a list of ints.
    Raises Unsupported for a state the kernel does not take (not in the play phase, or a
    question pending)."""
    if s.phase not in ("play", "done"):
        raise Unsupported(f"the kernel plays from the play phase, not the {s.phase}")
    if s.question is not None:
        raise Unsupported("a question pending")
    out = [0] * lay.size
    at = lay.at
    n = f.players
    sc = dict(to_act=s.to_act, terminal=int(s.is_terminal), dealer=s.dealer, deal_number=s.deal_number,
              declarer=s.declarer, target=s.target, bid=s.bid, denomination=s.denomination,
              high_bidder=s.high_bidder, calls=s.calls, bids=s.bids, passes=s.passes, passed=len(s.passed),
              doubled=s.doubled, holder=s.holder, challenger=s.challenger, trump=s.trump,
              trump_exposed=int(s.trump_exposed), trump_card=s.trump_card, exposer=s.exposer,
              exposure_trick=s.exposure_trick, partner=s.partner, partner_revealed=int(s.partner_revealed),
              called_card=s.called_card, led=s.led, in_trick=len(s.trick_cards), tricks_done=s.tricks_done,
              active=n - sum(map(bool, s.out)) if any(s.out) and not all(s.out) else n,
              made=-1 if s.made is None else int(s.made),
              declared_keys=sum(1 << k for k, (i, _, _) in enumerate(f.play_checks) if i in s.declared_keys),
              aside_points=sum(f.point_of[c] for c in (s.widow if v.widow_set_aside else s.set_aside)),
              last_winner=s.tricks[-1][2] if s.tricks else -1, taken_over=int(s.taken_over is not None))
    for k, x in sc.items():
        out[at[k]] = int(x)
    for seat, hand in enumerate(s.hands):
        out[at["hands"] + seat] = sum(1 << c for c in set(hand))
        if f.max_copies > 1:
            for c in hand:
                out[at["counts"] + seat * f.size + c] += 1
    for k in ("side", "side_points", "seat_points", "side_tricks", "scores"):
        for i, x in enumerate(getattr(s, k)):
            out[at[k] + i] = int(x)
    for (_, _, w), sd in zip(s.tricks, s.trick_sides):
        out[at["seat_tricks"] + w] += 1
        out[at["seat_side_tricks"] + w * f.sides + sd] += 1
    for i, (c, seat) in enumerate(zip(s.trick_cards, s.trick_seats)):
        out[at["trick_cards"] + i] = c
        out[at["trick_seats"] + i] = seat
    for i, x in enumerate(s.trick_after):
        out[at["trick_after"] + i] = int(x)
    for i, x in enumerate(s.out):
        out[at["out"] + i] = int(bool(x))
    if any(s.out) and not all(s.out):
        nxt = [next(t for t in order_from(seat + 1, n) if not s.out[t]) for seat in range(n)]
    else:
        nxt = f.next_seat
    for i, x in enumerate(nxt):
        out[at["next"] + i] = x
    for i, name in enumerate(f.declarations):
        out[at["declared"] + i] = s.declared.get(name, 0)
    for i, x in enumerate(s.vars):
        if isinstance(x, bool) or isinstance(x, int):
            out[at["vars"] + i] = int(x)
        else:
            raise Unsupported(f"a variable holding {type(x).__name__}")
    return out
