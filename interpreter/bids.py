"""A bid of one's own (docs/authoring.md, "Each player bids his own tricks"): the flow's
``bids`` step, where each seat in turn from the eldest bids, once, the number of tricks
it will take, and every bid stands beside the others (no declarer, no contract: the
scoring reads each seat's bid with ``bid_of(seat)``). As in Call Break, Oh Hell and
Spades (pagat.com, "Call Break"; "Oh Hell"), where a rule often hooks the last bid:
the bids may not add up to the number of tricks.

The ``bids:`` section checked (`load`), its rules (`HOOKS`), its State fields
(`FIELDS`, set by `start`), the phase (`Bids`), its part of the observation (`view`) and
its rulebook words (`STEP_WORDS`, `words`): the parts of a game mechanic
(interpreter/mechanic.py), each of the shape that protocol names.

An action is ``bid N`` (docs/architecture.md, "Actions and notation"), listed by number
(docs/rules.md §0.10); the table holds ``bids.min`` to ``bids.max`` (to the number of
tricks when ``max`` is a rule). A seat's bid is public as it is made.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import SimpleNamespace

from .dsl import BOOL, INT
from .dsl.pyast import parse
from .errors import StateError
from .mechanic import Mechanic
from .phase import Phase
from .wording import rule_of

# hook -> (path in the file, expected kind, default rule text or None if required; "" an
# optional hook that does nothing when absent): compiled when the flow has a `bids` step
HOOKS = {
    "bids.max": (("bids", "max"), INT, None),
    "bids.may_bid": (("bids", "may_bid"), BOOL, ""),
}
# hook -> the hook whose names its rule may also use (`number`: the bid asked about)
EXTRA_NAMES = {"bids.may_bid": "auction.may_bid"}
# State fields -> how State.copy copies them: each seat's bid (-1 before it bids) and
# their total so far
FIELDS = {"seat_bids": "list", "bids_total": "="}


def skipped_hooks(c) -> set:
    """The hooks of this module a file checked by ``c`` (loader.Checks) does not compile:
    all of them without a ``bids`` step."""
    return set() if "bids" in c.steps else set(HOOKS)


def load(c) -> dict:
    """Check the ``bids:`` section against the flow (``c``: a loader.Checks with ``steps``,
    ``has_auction`` and ``per_seat`` set); record each problem in ``c`` and return the
    Variant's fields: ``has_bids`` and, with a ``bids`` step, the bid numbers of the
    action table (``min_bid``, ``max_bid``: ``bids.max`` when a number, else the number
    of tricks; ``bid_step`` 1). A ``bids`` step and an ``auction`` step in one flow are
    refused (both would offer ``bid N``)."""
    data, flow, steps = c.data, c.data["flow"], c.steps
    has = "bids" in steps
    section = data.get("bids")
    if not has:
        if section is not None:
            c.problem(("bids",), "the flow has no 'bids' step: remove `bids:`, or add the step")
        return dict(has_bids=False)
    if steps.count("bids") > 1:
        c.problem(("flow", c.step_index("bids", 1)), "the flow may have at most one 'bids' step")
    if c.has_auction:
        c.problem(("flow", c.step_index("bids")), "a flow has either an 'auction' step (rising bids "
                  "that make one declarer) or a 'bids' step (each player bids his own tricks), not both")
    if section is None:
        c.problem(("flow", c.step_index("bids")), "the 'bids' step needs a `bids:` section "
                  "(min, max, and may_bid if a bid is refused)")
        return dict(has_bids=True)
    lo, hi, tricks = section["min"], section["max"], c.per_seat
    top = tricks
    if lo > tricks:
        c.problem(("bids", "min"), f"bids.min {lo} is above the {tricks} tricks of a deal", value=True)
    if isinstance(hi, int) and not isinstance(hi, bool):
        if hi < lo:
            c.problem(("bids", "max"), f"bids.max {hi} is below bids.min {lo}: no bid is possible", value=True)
        elif hi > tricks:
            c.problem(("bids", "max"), f"bids.max {hi} is above the {tricks} tricks of a deal "
                                       "(write `tricks` for as many as there are)", value=True)
        else:
            top = hi
    return dict(has_bids=True, min_bid=lo, max_bid=max(top, lo), bid_step=1)


def built(c, rules: dict, sources: dict, paths: dict) -> dict:
    """After the rules are compiled (``rules``: hook -> compiled function; ``sources``:
    hook -> its Python source; ``paths``: hook -> its path in the file), refuse at its
    place a rule that leaves a seat no bid where that is decidable at load: a
    ``bids.max`` that reads nothing of the deal and is below ``min``, and a
    ``bids.may_bid`` that reads nothing of the deal but the bids so far (``calls``,
    ``bids``, ``bids_total``) and refuses every bid at some point the bids can reach
    (found by going over every count and total of bids the rule allows, from none; a
    rule always false refuses the first bid). Returns no Variant field."""
    if "bids" not in c.steps or not isinstance(c.data.get("bids"), dict):
        return {}
    lo = c.data["bids"]["min"]
    reads = {hook: _state_reads(sources.get(hook, "")) for hook in HOOKS}
    if rules.get("bids.max") is None or reads["bids.max"] or "me" in _names(sources.get("bids.max", "")):
        return {}       # the max depends on the deal or the seat: asked in play (Bids.legal)
    hi = rules["bids.max"](SimpleNamespace(), -1, None, None)
    if hi < lo:
        c.problem(("bids", "max"), f"bids.max is always {hi}, below bids.min {lo}: no bid is possible",
                  value=True)
        return {}
    may = rules.get("bids.may_bid")
    if may is None or not reads["bids.may_bid"] <= _BIDS_SO_FAR:
        return {}       # the rule reads the deal (a hand, the dealer...): asked in play
    hi = min(hi, c.per_seat)
    seen, todo = {(0, 0)}, [(0, 0)]
    while todo:
        k, total = todo.pop()
        if k == c.players:
            continue
        view = SimpleNamespace(calls=k, bids=k, bids_total=total)
        allowed = [b for b in range(lo, hi + 1) if may(view, -1, b, None)]
        if not allowed:
            c.problem(("bids", "may_bid"), f"after {k} bid{'s' if k != 1 else ''} adding up to {total}, "
                      f"bids.may_bid allows no bid from {lo} to {hi}: the next player could not bid",
                      value=True)
            return {}
        for b in allowed:
            if (k + 1, total + b) not in seen:
                seen.add((k + 1, total + b))
                todo.append((k + 1, total + b))
    return {}


def _state_reads(source: str) -> set:
    """The State attributes (``s.NAME``) a compiled rule's Python ``source`` reads."""
    return {n.attr for n in ast.walk(parse(source)) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "s"}


def _names(source: str) -> set:
    """The names a compiled rule's Python ``source`` uses (``me``: the seat asked for)."""
    return {n.id for n in ast.walk(parse(source)) if isinstance(n, ast.Name)}


# the State fields a `may_bid` rule may read and still be checked at load (check_built)
_BIDS_SO_FAR = frozenset(("calls", "bids", "bids_total"))


def start(s, carried) -> None:
    """The fields as a deal starts: no seat has bid."""
    s.seat_bids = [-1] * s.v.players
    s.bids_total = 0


class Bids(Phase):
    """Each seat in turn, from the eldest (a seat sitting out the deal is passed over),
    bids once a number of tricks from ``bids.min`` to ``bids.max`` (its rule asked for the
    seat, and never above the tricks of a deal) for which ``bids.may_bid`` holds; the bids
    stand side by side (``bid_of(seat)``), and after the last the flow goes on. Bids are
    listed by number (docs/rules.md §0.10). A seat left with no bid is a StateError naming
    the rules (a file whose rules can leave none is at fault: `taash check` refuses the
    cases decidable at load)."""

    name = "bids"

    def enter(self, s):
        s.to_act = s.next_active((s.dealer + 1) % s.v.players)

    def legal(self, s):
        v = s.v
        me = s.to_act
        top = min(v.max_bid, v.rules["bids.max"](s, me, None, None))
        may = v.rules.get("bids.may_bid")
        out = []
        for b, ids in v.bid_number_ids:
            if b > top:
                break
            if may is None or may(s, me, b, None):
                out += ids
        if not out:
            raise StateError(f"seat {me} has no legal bid: bids.max gives {top} and bids.may_bid refuses "
                             f"every bid from {v.min_bid} (bids so far: {s.seat_bids}); the variant's "
                             "rules must leave every seat a bid")
        return out

    def apply(self, s, seat, a):
        number = a.code[0]
        s.seat_bids[seat] = number
        s.bids_total += number
        s.calls += 1
        s.bids += 1
        nxt = s._next[seat]
        if s.seat_bids[nxt] >= 0:   # every seat that plays has bid
            s._next_step()
        else:
            s.to_act = nxt


def view(s, seat, tricks) -> dict:
    """The bids in ``seat``'s observation (public: every seat sees each bid as it is
    made): ``{"bids": [bid or None per seat]}``, ``{"bids": None}`` for a variant without
    a ``bids`` step (every key of the observation is always there)."""
    if not s.v.has_bids:
        return {"bids": None}
    return {"bids": [b if b >= 0 else None for b in s.seat_bids]}


def result(s) -> dict:
    """The bids in the deal's result (`State.result`): each seat's, for a variant with a
    ``bids`` step; nothing for another (so its results and records keep their form)."""
    return view(s, -1, None) if s.v.has_bids else {}


def words(v) -> list[tuple[str, str]]:
    """The rulebook's ``Bids`` section of variant ``v``, as [(title, Markdown text)]."""
    if not v.has_bids:
        return []
    sec = v.data["bids"]
    hi = sec["max"]
    top = str(hi) if isinstance(hi, int) else rule_of(v, "bids", "max")
    out = ["From the eldest, each player in turn bids once the number of tricks he will take: "
           f"a number from {sec['min']} to {top}. Every bid stands; there is no declarer and no "
           "pass, and each player's bid is known to all as it is made."]
    if sec["min"] == 0:
        out.append("A bid of 0 is allowed: the scoring says what it is worth.")
    may = rule_of(v, "bids", "may_bid")
    if may is not None:
        out.append(f"A bid is allowed when: {may}.")
    return [("Bids", "\n".join(out))]


# flow step -> its words in the rulebook's Deal section
STEP_WORDS = {"bids": lambda v, step: "each player bids the tricks he will take"}

# flow step -> its phase (one handler serves every deal)
PHASES = {"bids": Bids()}


@dataclass(frozen=True, eq=False, kw_only=True)
class BidsFields:
    """The bids' field of a Variant (`Mechanic.variant`)."""
    has_bids: bool = False  # the flow has a `bids` step


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'bids': {'type': 'object',
                         'additionalProperties': False,
                         'required': ['min', 'max'],
                         'description': "the flow's `bids` step: each seat in turn from the eldest "
                                        'bids the number of tricks it will take, once; every bid '
                                        'stands',
                         'properties': {'min': {'type': 'integer',
                                                'minimum': 0,
                                                'description': 'the lowest bid (0: a bid of '
                                                               'nothing, whose meaning the scoring '
                                                               'gives)'},
                                        'max': {'$ref': '#/$defs/rule',
                                                'description': 'the highest bid: a number, or a '
                                                               'rule of the number type asked for '
                                                               'the seat to bid (e.g. `tricks`)'},
                                        'may_bid': {'$ref': '#/$defs/rule',
                                                    'description': 'whether `number` may be bid by '
                                                                   'the seat to bid (default: any '
                                                                   'bid from min to max)'}}}},
 'steps': ['bids']}


MECHANIC = Mechanic(
    "bids", schema=SCHEMA, load=load, variant=BidsFields, hooks=HOOKS, skipped_hooks=skipped_hooks,
    extra_names=EXTRA_NAMES, built=built, fields=FIELDS, start=start, phases=PHASES,
    view=view, result=result, step_words=STEP_WORDS, words=words)
