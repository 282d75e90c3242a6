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
from taash.interpreter.dsl import SEAT, Compiler, DSLError, Lowerer
from taash.interpreter.dsl.pyast import parse
from taash.interpreter.errors import TaashError
from taash.interpreter.information import MAX_TRIES, resampler  # noqa: F401 (kernel/worlds.py reads them here)
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
                    variables=[(x.name, x.type, x.per) for x in v.variables], partnership=v.partnership,
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
        if "answered_by" in d:
            wanted.append((f"declare.{name}.answered_by", d["answered_by"], SEAT, extra))
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
    var_sizes: list          # the values each variable holds: 1, or one per seat or side
    expose_id: int           # the action id of `expose` (trump made public, asked in play)
    face_down: bool          # trump is a card laid face down (trump.mode hidden): the declarer's last card
    answers: list            # every answer's text (`cot yes`), in the order the rules' answered() reads
    questions: dict          # declaration name -> (action id, text) of its answers (a question), in legal order


def facts(v: Variant) -> Facts:
    """The facts of ``v``: when its flow changes by deal, of the one deal it is built for
    (`Variant.for_deal`: its tricks, cards and rules), so each deal size has its kernel."""
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
                 [(x.name, x.type) for x in v.variables], [x.size for x in v.variables], v.expose_action.id,
                 v.trump_mode == "hidden", _declarations.compiler_names(v.data)["answers"],
                 {decl.name: [(a.id, str(a)) for a in decl.answer_actions]
                  for decl in v.declarations if decl.answers})


# -- a State as numbers -------------------------------------------------------------------
SCALARS = ("to_act", "terminal", "dealer", "deal_number", "declarer", "target", "bid", "denomination",
           "high_bidder", "calls", "bids", "passes", "passed", "doubled", "holder", "challenger",
           "trump", "trump_exposed", "trump_card", "exposer", "exposure_trick", "partner",
           "partner_revealed", "called_card", "led", "in_trick", "tricks_done", "active", "made",
           "declared_keys", "aside_points", "last_winner", "taken_over", "exposed_card",
           "bids_total", "question_seat", "question_decl", "answers")


class Layout:
    """Where each fact lies in the kernel's state, one int64 array: ``at[name]`` its
    offset; arrays of facts per seat, side, card... follow the scalars."""

    def __init__(self, f: Facts):
        n = f.players
        self.at = {k: i for i, k in enumerate(SCALARS)}
        # each variable's first place after at["vars"] (one per seat or side follow it)
        self.var_at = [sum(f.var_sizes[:i]) for i in range(len(f.var_sizes))]
        size = len(SCALARS)
        for name, length in (("hands", n), ("counts", n * f.size if f.max_copies > 1 else 0),
                             ("side", n + 1), ("side_points", f.sides), ("seat_points", n),
                             ("side_tricks", f.sides), ("seat_tricks", n), ("seat_side_tricks", n * f.sides),
                             ("scores", f.nscores), ("trick_cards", n), ("trick_seats", n), ("trick_after", n),
                             ("out", n), ("next", n), ("declared", max(len(f.declarations), 1)),
                             ("vars", max(sum(f.var_sizes), 1)), ("seat_bids", n),
                             ("won_cards", n)):
            self.at[name] = size
            size += length
        self.size = size


def from_state(v: Variant, f: Facts, lay: Layout, s: State) -> list[int]:
    """The facts of ``s`` (a State of ``v``) at the kernel's places, as a list of ints.
    Raises Unsupported for a state the kernel does not take (not in the play phase)."""
    if s.phase not in ("play", "done"):
        raise Unsupported(f"the kernel plays from the play phase, not the {s.phase}")
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
              last_winner=s.tricks[-1][2] if s.tricks else -1, taken_over=int(s.taken_over is not None),
              exposed_card=s.exposed_card, bids_total=s.bids_total,
              question_seat=-1 if s.question is None else s.question[0],
              question_decl=-1 if s.question is None else f.declarations.index(s.question[1].name),
              answers=sum(1 << k for k, text in enumerate(f.answers) if text in s.answers))
    for k, x in sc.items():
        out[at[k]] = int(x)
    for seat, hand in enumerate(s.hands):
        out[at["hands"] + seat] = sum(1 << c for c in set(hand))
        if f.max_copies > 1:
            for c in hand:
                out[at["counts"] + seat * f.size + c] += 1
    for k in ("side", "side_points", "seat_points", "side_tricks", "scores", "seat_bids"):
        for i, x in enumerate(getattr(s, k)):
            out[at[k] + i] = int(x)
    for (_, cards, w), sd in zip(s.tricks, s.trick_sides):
        out[at["won_cards"] + w] |= sum(1 << c for c in set(cards))
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
        for j, y in enumerate(x if isinstance(x, tuple) else (x,)):
            if not isinstance(y, int):      # a bool is an int
                raise Unsupported(f"a variable holding {type(y).__name__}")
            out[at["vars"] + lay.var_at[i] + j] = int(y)
    return out


# -- the history before the play, for kernel/worlds.py ---------------------------------------
# what a rule of the auction or the trump choice may read of the State and still be blind
# to the cards: the calls so far and the contract (all public, set by the calls alone)
_PUBLIC_FACTS = frozenset(("bid", "bids", "calls", "passes", "passed", "side", "high_bidder", "holder",
                           "challenger", "declarer", "doubled", "dealer", "deal_number", "scores",
                           "denomination", "equal_bid", "target", "is_terminal", "players"))
_PURE_CALLS = frozenset(("len", "max", "min", "abs"))
# the trump modes whose choice is blind to the cards but for its own card or suit:
# a suit named openly or secretly, a card of the hand laid face down
_BLIND_TRUMP = frozenset(("none", "open", "fixed", "bid", "secret", "hidden"))


def rule_blind(text: str) -> bool:
    """Whether a rule's lowered Python source (``Variant.sources``) reads only public
    facts of the State (`_PUBLIC_FACTS`) and calls only pure builtins."""
    try:
        tree = parse(text)
    except SyntaxError:
        return False
    s_name = tree.body[0].args.args[0].arg if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
    if s_name is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == s_name:
            if node.attr not in _PUBLIC_FACTS:
                return False
        elif isinstance(node, ast.Name) and node.id == s_name:
            continue
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _PURE_CALLS):
                return False
    # every use of the State is an attribute read (a bare `s` passed on is not)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name) and child.id == s_name and not isinstance(node, ast.Attribute):
                return False
    return True


def deal_blind(v: Variant) -> str | None:
    """Why the history before the play phase of ``v``'s deals may depend on the cards
    dealt beyond what kernel/worlds.py patches (words), or None when it does not: its
    flow before the play is only dealing packets (which put the cards of fixed positions
    into the hands), the auction (`auction.Auction`: its legal calls and their effects
    read the rules and the calls, never a hand) and the trump choice of a blind mode
    (a suit named, openly or secretly, whose legal actions are every suit; or a card of
    the hand laid face down, legal for every card of the hand: its card and suit are
    what the proposal puts at its position), every rule those steps ask reading only
    the public facts of the calls (`rule_blind`), no variables (their rules are not
    checked here) and no dealt card taken as trump; the rules asked are those of the
    ``auction``, ``trump`` and ``contract`` sections and ``play.leader`` (the first lead).
    A partner call (`partner.CallPartner`, §304.5) is blind but for its own card: legal
    when the card is not in the declarer's hand, its holder (by the deal) the partner,
    joining the declarer's side; kernel/worlds.py checks and patches those. Then every proposal replays that
    history alike: the same seats to act, the same legal calls, the same State at the
    first lead but for the hands, the face-down card, the trump suit and the called
    partner."""
    steps = [name for name, _ in v.steps]
    if "play" not in steps:
        return "no play phase"
    before = steps[:steps.index("play")]
    other = sorted(set(before) - {"deal", "auction", "trump", "call_partner"})
    if other:
        return f"the steps {', '.join(other)} before the play"
    if v.trump_mode not in _BLIND_TRUMP:
        return f"trump chosen by mode {v.trump_mode!r}"
    if v.dealt_card:
        return "a dealt card taken as trump"
    if v.variables:
        return "variables"
    if v.widow_size:
        return "a widow"
    for hook, text in v.sources.items():
        if (hook.split(".")[0] in ("auction", "trump", "contract") or hook == "play.leader") and not rule_blind(text):
            return f"the rule {hook} reads more than the calls"
    return None
