"""The Variant: an immutable description of one game, built from a checked variant file.

`load_variant(name_or_path, options)` is the entry point; it raises `VariantError` with
located problems for any bad file or option (never anything else). The build reads in
order: the file (loader.py: YAML, schema, positions), its options and presets, the deck
and the flow, then each game mechanic's section (auction.py, trump.py, widow.py,
partner.py, declarations.py, scoring.py: each module's ``load``) and the variables
(variables.py), the rules compiled (dsl.Compiler, the hooks of every mechanic: `HOOKS`,
the declarations' and the variables' rules), the tables and the hot path's
functions, and last the frozen `Variant`. Nothing here imports the engine: the engine
plays a finished Variant (engine.state_class).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import hashlib
import itertools
import json
import re
import weakref
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace

import orjson

from .actions import Action
from .cards import MAX_COPIES, RANK_LETTERS, SUIT_LETTERS, Deck, card_parts
from .declarations import Declaration
from .dsl.check import define_signature
from .dsl.names import TABLE_SEAT_HOOKS
from .dsl.pyast import parse
from .dsl import NOT_CONSTANT, BOOL, INT, FUNCTIONS, HOOK_NAMES, NAMES, Compiler, DefineError, DSLError, ParentError
from .errors import InvalidActionError, StateError
from .loader import (BOUNDS, KEY, MAX_PROBLEMS, PARENT_RULES, VARIANTS_DIR, Bounds, Checks, Loc, Problem, VariantError, merge,
                     read_tree, by_position, inherited, load_raw, locate, resolve_name, schema_problems, show,
                     without_unknown_keys)
from .mechanics import ACTION_KINDS, MECHANICS
from .play import Play, apply_id
from .variables import Variable

# hook -> (path in the file, expected kind, default rule text or None if required; "" an
# optional hook that does nothing when absent): every mechanic's, in the order compiled
HOOKS = {hook: spec for m in MECHANICS for hook, spec in m.hooks.items()}
# hook -> the hook whose names its rule may also use (dsl.Compiler.add's extra)
EXTRA_NAMES = {hook: other for m in MECHANICS for hook, other in m.extra_names.items()}
# the steps between the auction (or the first deal) and play, in any order (a `declare`
# step may also come before the auction)
MIDDLE_STEPS = ("exchange", "trump", "call_partner", "doubling", "declare")


# the classes declaring each mechanic's Variant fields (`Mechanic.variant`), in the list's order
MECHANIC_FIELDS = tuple(m.variant for m in MECHANICS if m.variant is not None)


@dataclass(frozen=True, eq=False, kw_only=True)
class Variant(*MECHANIC_FIELDS):
    """A loaded variant: built once by `load_variant` and never changed after (frozen).

    Its fields are declared below, the engine's own, and in each mechanic's module, the
    mechanic's (`Mechanic.variant`: widow.py's declares ``widow_points_to``...),
    whose classes are its bases (`MECHANIC_FIELDS`, in the list's order).

    ``rules`` maps a hook name (see HOOKS) to its compiled function, ``sources`` to its
    generated Python source. The hot path's functions, made from the rules as the variant
    is built (dsl.Compiler): ``play_legal(state) -> list[int]``, the play phase's legal
    action ids (``build_play_legal``; ``play_legal_source`` its source);
    ``auction_legal(state) -> list[int]``, the auction's likewise when the flow has one
    (``build_auction_legal``; else None); ``play_step(state, i)``, the States' apply of
    an action id with a play written out (``build_play_step``; `play.apply_id` for the
    rest). The tables derived from the fields (the action table, ids, the deal's
    positions: `_tables`) are fields too, declared below, made by the build before it.

    A Variant pickles as what it was loaded from (a shipped name and options, or a
    file's merged data) and is built again on unpickling, once per process (`restore`);
    ``repr`` names it.
    """
    name: str
    title: str
    path: Path
    data: dict
    options: dict
    players: int
    direction: str
    deck: Deck
    flow: list
    tricks: int
    widow_size: int    # the cards the flow deals to the widow (its `widow: N` steps)
    last_trick: int
    total: int
    rules: dict = field(repr=False, default_factory=dict)
    sources: dict = field(repr=False, default_factory=dict)
    # hook -> its value, for the rules that are constants (folded by the compiler)
    constants: dict = field(repr=False, default_factory=dict)
    play_legal: object = field(repr=False, default=None)
    play_legal_source: str = field(repr=False, default="")
    auction_legal: object = field(repr=False, default=None)
    auction_legal_source: str | None = field(repr=False, default=None)
    play_step: object = field(repr=False, default=None)
    play_step_source: str = field(repr=False, default="")
    # warnings of the rules as loaded (loader.Problem, ``warning`` set): a rule or case that
    # is always false by an option's value (`taash check` prints them)
    warnings: tuple = field(repr=False, default=())
    # -- the tables derived from the fields (`_tables`; the mechanics' own: their
    # ``tables``), made by the build before the Variant, so that the rules compiled
    # against them (the legal-action and play-step functions) are built first; each is
    # read, never changed
    actions: tuple = field(repr=False, default=())          # every Action; ``a.id`` indexes it
    action_map: dict = field(repr=False, default=None)      # an Action's text -> the Action
    hidden_forms: dict = field(repr=False, default=None)    # Action -> the form other seats see
    action_json: dict = field(repr=False, default=None)     # Action -> its JSON text, to its seat
    public_action_json: dict = field(repr=False, default=None)  # ... and to the others
    card_actions: dict = field(repr=False, default=None)    # kind -> card id -> Action of that kind
    next_seat: list = field(repr=False, default=None)       # seat -> the next in turn
    deal_packets: list = field(repr=False, default=None)    # the packet sizes in the order dealt
    steps: list = field(repr=False, default=None)           # per flow step: (phase, None) or ("deal", k)
    deal_positions: list = field(repr=False, default=None)  # per seat from eldest: positions in the deck
    cards_per_seat: int = 0                                 # cards dealt to each seat (§0.7)
    # flow step -> its phase handler (`phase.Phase`): the mechanics', and a handler of the
    # variant's own where a mechanic's phase has a generated legal (`_phases`)
    phases: dict = field(repr=False, default=None)
    # a flow whose sizes read `deals` (docs/authoring.md, "A hand size that changes by
    # deal"): per deal of the match (0-based, up to match.max_deals), the values of those
    # sizes; the Variant of each such key (one per distinct flow, all built and checked
    # at load, shared by them all); the deal this one was built for (the first with its
    # sizes). None, None, 0 for a flow that is the same in every deal.
    deal_sizes: tuple | None = field(repr=False, default=None)
    deal_variants: dict | None = field(repr=False, default=None)
    deal_index: int = 0
    bids_up_to: int = 0     # a flow that changes by deal, `bids.max` a rule: the most tricks
    most_per_seat: int = 0  # a flow that changes by deal: the most cards dealt a seat in a deal

    def for_deal(self, n: int) -> "Variant":
        """The variant as deal ``n`` (0-based: the deals played before) of a match plays
        it: this one when the flow is the same in every deal, else the one built for that
        deal's sizes (its flow, cards per seat, tricks, widow and the rules compiled with
        them). Raises ValueError for a deal beyond ``match.max_deals``."""
        sizes = self.deal_sizes
        if sizes is None:
            return self
        if type(n) is not int or not 0 <= n < len(sizes):
            raise ValueError(f"{n!r} is not a deal of the match (the deals played before it: 0 to "
                             f"{len(sizes) - 1}, match.max_deals {len(sizes)})")
        return self.deal_variants[sizes[n]]

    @property
    def most_cards_per_seat(self) -> int:
        """The most cards a seat is dealt in any deal of a match (``cards_per_seat`` unless
        the flow changes by deal): what a fixed-size encoding of a hand makes room for."""
        return self.most_per_seat if self.deal_sizes else self.cards_per_seat

    @property
    def most_tricks(self) -> int:
        """The most tricks of any deal of a match (``tricks`` unless the flow changes by deal)."""
        return max(x.tricks for x in self.deal_variants.values()) if self.deal_sizes else self.tricks

    @property
    def most_widow_size(self) -> int:
        """The largest widow of any deal of a match (``widow_size`` unless the flow changes
        by deal)."""
        return max(x.widow_size for x in self.deal_variants.values()) if self.deal_sizes else self.widow_size

    def __repr__(self) -> str:
        return f"<Variant {self.name} {self.title!r} {self.players} players>"

    def __reduce__(self):
        # what it was loaded from: a shipped name and options, or a file's merged data
        # (its text as read, with what it extends); built again once per process (restore)
        # (a variant built for one deal of a flow that changes by deal: its deal too)
        ref, options = self.ref, tuple(sorted(self.options.items()))
        _LOADED.setdefault((ref, options, self.digest), self.for_deal(0))
        shipped = self.path.is_relative_to(VARIANTS_DIR)
        if self.deal_index:
            return (restore, (ref, options, self.digest, None if shipped else self.data, self.deal_index))
        return (restore, (ref, options, self.digest) + (() if shipped else (self.data,)))

    def variable_json(self, var: Variable, value):
        """A variable's value as JSON: a number, true/false, a seat or side number, a suit,
        rank or card text, or null for `none`; for a variable kept per seat or per side, a
        list of those, by seat or side."""
        if var.per:
            return [self._value_json(var, x) for x in value]
        return self._value_json(var, value)

    def _value_json(self, var: Variable, value):
        t = var.type
        if t in ("number", "condition"):
            return value
        if t == "suit":
            return self.deck.suits[value] if value >= 0 else self.denomination_name.get(value)
        if value < 0:
            return None
        return self.deck.ranks[value] if t == "rank" else self.deck.text[value] if t == "card" else value

    def variable_value(self, var: Variable, data):
        """The inverse of `variable_json`: a variable's value as the engine keeps it, from
        its JSON form (a number, true/false, a seat or side number, a suit, denomination,
        rank or card text, or null for `none`; a list of ``var.size`` of them for a variable
        kept per seat or per side, a tuple then). Raises ValueError for data that is no
        value of the variable's type."""
        if var.per:
            if not isinstance(data, list) or len(data) != var.size:
                raise ValueError(f"variable {var.name}: {data!r} is not a list of {var.size} values, "
                                 f"one per {var.per}")
            return tuple(self._value(var, x) for x in data)
        return self._value(var, data)

    def _value(self, var: Variable, data):
        t = var.type
        if t in ("number", "condition"):
            if not isinstance(data, int):
                raise ValueError(f"variable {var.name}: {data!r} is not a {t}")
            return data
        if data is None:
            return -1
        if t == "suit":
            if data in self.deck.suits:
                return self.deck.suits.index(data)
            if data in self.denomination_code:
                return self.denomination_code[data]
        elif t == "rank":
            if data in self.deck.ranks:
                return self.deck.ranks.index(data)
        elif t == "card":
            return self.deck.parse(data)
        elif t in ("seat", "side") and type(data) is int:
            if 0 <= data < (self.players if t == "seat" else self.sides):
                return data
        raise ValueError(f"variable {var.name}: {data!r} is not a {t} of this variant")

    def variables_json(self, values, public_only: bool = True, scope: str | None = None) -> dict:
        """{name: JSON value} of the variables (the public ones only, unless
        ``public_only`` is false; of one ``scope`` if given), in the file's order."""
        if not self.variables:
            return {}
        return {var.name: self.variable_json(var, values[var.index]) for var in self.variables
                if (var.public or not public_only) and (scope is None or var.scope == scope)}

    def check_seat(self, seat) -> None:
        """Raises StateError unless ``seat`` (an int) is a seat of this variant, 0..players-1."""
        if type(seat) is not int or not 0 <= seat < self.players:
            raise StateError(f"seat must be 0..{self.players - 1}, not {seat!r}")

    def action(self, text: str) -> Action:
        """The action whose text form is ``text``. Raises InvalidActionError for text
        that is no action of this variant."""
        try:
            return self.action_map[text]
        except (KeyError, TypeError):
            raise InvalidActionError(text, []) from None

    @property
    def ref(self) -> str:
        """How records and summaries name this variant: its shipped name (``29``,
        ``house/29-double``), or the absolute path of a file outside variants/."""
        try:
            return self.path.relative_to(VARIANTS_DIR).with_suffix("").as_posix()
        except ValueError:
            return str(self.path)

    @cached_property
    def digest(self) -> str:
        """sha256 of the variant as loaded (its merged file and option values), without its
        prose (the file's ``title`` and ``source``, every ``description``): a record
        carries it, so that a replay notices a change of the rules since, and not a
        change of wording (docs/records.md)."""
        blob = json.dumps({"data": _without_prose(self.data, top=True), "options": self.options},
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()



def _without_prose(value, top: bool = False):
    """``value`` (a variant file's merged data) without what only describes it: the
    top-level ``title`` and ``source`` and every ``description`` text."""
    if isinstance(value, dict):
        return {k: _without_prose(v) for k, v in value.items()
                if not (k == "description" and isinstance(v, str)) and not (top and k in ("title", "source"))}
    if isinstance(value, list):
        return [_without_prose(v) for v in value]
    return value


def _tables(fields: dict) -> dict:
    """The tables a Variant derives from its ``fields`` (the dataclass fields, by name),
    made before it exists so that the rules compiled against them (the legal-action and
    play-step functions) can be built first: the deal's steps and positions, then each
    mechanic's (`Mechanic.tables`, by slot and then the list's order) with the action
    table (``actions``, each Action's ``id`` its index; the plays first, so that a play's
    id is its card id), and the forms of the actions. Returns {attribute: value}."""
    v = SimpleNamespace(**fields)
    # turn order: the next seat of each seat (State._next while no seat sits out)
    v.next_seat = [(s + 1) % v.players for s in range(v.players)]
    # packet sizes in the order dealt (§0.7): each packet goes to every seat from eldest
    v.deal_packets = [k for step in v.flow if isinstance(step, dict) and "deal" in step
                      for k in step["deal"]]
    # packets per step of the flow: (phase name, None), or ("deal", cards per seat)
    v.steps = [(step, None) if isinstance(step, str) else ("declare", None) if "declare" in step
               else ("deal", sum(step["deal"])) if "deal" in step else ("skip", None)
               for step in v.flow]
    # the positions in the shuffled deck of the cards each seat is dealt, from eldest
    # (§0.7: each packet to every seat in turn), and of the widow: the rest
    pos, at = [[] for _ in range(v.players)], 0
    for k in v.deal_packets:
        for j in range(v.players):
            pos[j].extend(range(at, at + k))
            at += k
    v.deal_positions = pos
    v.cards_per_seat = at // v.players   # cards dealt to each seat (docs/rules.md §0.7)
    table: list[Action] = []  # the variant's actions, in a fixed order; a.id indexes it

    def act(t, kind, arg=None, code=None) -> Action:
        a = Action(t, kind, arg, code)
        a.id = len(table)
        table.append(a)
        return a

    for _, _, make in sorted((slot, i, make) for i, m in enumerate(MECHANICS)
                             for slot, make in m.tables):
        vars(v).update(make(v, act))
    v.actions = tuple(table)
    v.action_map = {str(a): a for a in table}
    # the actions that other seats see in another form (State.public_action): their kind
    v.hidden_forms = {a: a.kind for m in MECHANICS if m.hidden_actions is not None
                      for a in m.hidden_actions(v)}
    # each action's JSON text as its seat sees it and as the others do (the
    # observation's history, State.observation_json)
    v.action_json = {a: orjson.dumps(str(a)).decode() for a in table}
    v.public_action_json = {a: orjson.dumps(v.hidden_forms.get(a, str(a))).decode() for a in table}
    # kind -> the variant's action of that kind for each card id (resampling)
    v.card_actions = {kind: getattr(v, name) for m in MECHANICS for kind, name in m.card_actions.items()}
    return {k: x for k, x in vars(v).items() if k not in fields}


def _phases(legal: dict) -> dict:
    """Flow step -> phase handler for a variant: each mechanic's (`Mechanic.phases`), and
    where a mechanic names a generated legal for a step (`Mechanic.compiled_legal`: the
    play's ``play_legal``, the auction's ``auction_legal``; ``legal``: those of this
    variant, None when it has none) a copy of its handler whose ``legal`` is that
    function, called with no method in between (`Auction.legal` asks the rules one by
    one: the same list, a property test holds the two together)."""
    out = {}
    for m in MECHANICS:
        for step, handler in m.phases.items():
            fn = legal.get(m.compiled_legal.get(step))
            if fn is not None:
                handler = copy.copy(handler)
                handler.legal = fn
            out[step] = handler
    return out


def _option_problems(decl: dict, given: dict, fname: str):
    """Resolve option values: declared defaults, then ``given``. Returns (values, problems)."""
    values, choices, problems = {}, {}, []
    for k, spec in decl.items():
        if isinstance(spec, dict):
            values[k] = spec["default"]
            if "choices" in spec:
                choices[k] = spec["choices"]
        else:
            values[k] = spec
    for k, v in (given or {}).items():
        if k not in values:
            known = ", ".join(sorted(values)) or "none"
            problems.append(Problem(fname, 0, 0, f"unknown option {k!r} (this variant's options: {known})"))
            continue
        want = type(values[k])
        if (want is bool) != isinstance(v, bool) or not isinstance(v, (int, bool)):
            problems.append(Problem(fname, 0, 0, f"option {k!r} takes {'true or false' if want is bool else 'an integer'}, not {v!r}"))
            continue
        values[k] = v
    for k, ch in choices.items():
        if values[k] not in ch:
            problems.append(Problem(fname, 0, 0, f"option {k!r} must be one of {', '.join(map(str, ch))}, not {values[k]!r}"))
    return values, problems


# (ref, options as sorted pairs, digest) -> the Variant of that key in this process: the
# one pickled here, or the one built as a pickle was read (`restore`)
_LOADED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def restore(ref: str, options: tuple, digest: str, data: dict | None = None, deal: int = 0) -> Variant:
    """The Variant that a pickle names (`Variant.__reduce__`): ``ref`` (`Variant.ref`: a
    shipped name or a file's path) with ``options`` ((name, value) pairs) and ``digest``
    (`Variant.digest`); ``data``: for a file outside variants/, its merged data, from which
    it is built again (the file itself may be gone, or on another machine). One Variant
    per key and process: the one pickled in this process, or one built the first time
    (so unpickling many States compiles the rules once). Raises VariantError if a
    shipped variant no longer loads, or if its digest differs from the one pickled (its
    file changed since). ``deal``: for a flow that changes by deal, the deal (0-based)
    whose Variant it is (`Variant.for_deal`)."""
    key = (ref, tuple(options), digest)
    v = _LOADED.get(key)
    if v is None:
        if data is None:
            v = load_variant(ref, dict(options))
        else:
            v = _load_variant(Path(ref), dict(options), (data, {}))
        if v.digest != digest:
            raise VariantError([Problem(str(ref), 0, 0, "the variant file changed since this variant "
                                                        "was pickled (its sha256 differs)")])
        v = _LOADED.setdefault(key, v)
    return v.for_deal(deal)


def load_variant(name: str | Path, options: dict | None = None, bounds: Bounds = BOUNDS,
                 max_problems: int = MAX_PROBLEMS) -> Variant:
    """Load, check and compile a variant by shipped name (``29``) or path.

    options: values for the variant's ``options:`` (``--set KEY=VALUE``), each an int or
    bool. ``bounds``: the limits on reading each file (loader.Bounds: bytes, lines, YAML
    nodes, nesting). Raises VariantError (located problems, at most ``max_problems`` and
    then one counting the rest) for a bad file or option; a problem in what the file
    inherits is reported at its ``extends:`` (loader.inherited).
    """
    try:
        path = resolve_name(str(name))
    except FileNotFoundError as e:
        raise VariantError([Problem(str(name), 0, 0, str(e))]) from None
    try:
        return _load_variant(path, options, bounds=bounds)
    except VariantError as e:
        raise VariantError(inherited(e.problems, path), max_problems) from None


def _load_variant(path: Path, options: dict | None, raw=None, bounds: Bounds = BOUNDS, deal: int | None = None,
                  shared=None) -> Variant:
    """`load_variant` of ``path`` (``raw``: its data and locations, already read). With a
    flow that changes by deal, ``deal`` None loads the first deal's Variant and, checking
    each, every other deal's (`_deal_sizes`, `_by_deal`); ``deal`` (0-based) and
    ``shared`` (the first's ``deal_sizes`` and ``deal_variants``) load one of them."""
    data, locs = raw or load_raw(path, bounds=bounds)
    fname = str(path)
    problems = schema_problems(data, locs, fname)
    if problems:
        cleaned = without_unknown_keys(data) if raw is None else None
        if cleaned is not None:     # only unknown keys: check the rest too, to report all at once
            try:
                _load_variant(path, options, (cleaned, locs))
            except VariantError as e:
                problems += e.problems
        raise VariantError(problems)

    def at(*p) -> Loc:
        return locate(locs, p, fname)

    def problem(p, msg):
        loc = at(*p)
        problems.append(Problem(loc.file, loc.line, loc.column, msg))

    for k in data.get("options", {}) or {}:
        if (k in NAMES and k != "players") or k in FUNCTIONS:
            problem(("options", k), f"option '{k}' has the name of an engine value or function; choose another name")
    def engine_name(k) -> bool:
        return k in NAMES or k in FUNCTIONS or any(k in h for h in HOOK_NAMES.values())

    defined = {}
    for k in data.get("define", {}) or {}:  # named expressions (`define:`), some with parameters
        try:
            name, params = define_signature(k)
        except ValueError as e:
            problem(("define", k, KEY), f"define: {e}")
            continue
        if engine_name(name):
            problem(("define", k), f"'{name}' is a name of the engine; choose another name")
        elif name in (data.get("options", {}) or {}):
            problem(("define", k), f"'{name}' is already an option; choose another name")
        elif name in defined:
            problem(("define", k, KEY), f"'{name}' is defined twice (also as {defined[name]!r})")
        defined.setdefault(name, k)
        for prm, _ in params or ():
            if engine_name(prm) or prm in (data.get("options", {}) or {}):
                problem(("define", k, KEY), f"define: the parameter '{prm}' of '{name}' has the name of "
                                            f"{'an option' if not engine_name(prm) else 'the engine'}; "
                                            "choose another name")
    for k in data.get("define", {}) or {}:   # a parameter is not another named expression's name
        try:
            _, params = define_signature(k)
        except ValueError:
            continue
        for prm, _ in params or ():
            if prm in defined:
                problem(("define", k, KEY), f"define: the parameter '{prm}' is also a named expression; "
                                            "choose another name")
    if problems:
        raise VariantError(problems)
    opts, oprob = _option_problems(data.get("options", {}) or {}, options, fname)
    if oprob:
        raise VariantError(oprob)
    # the words of the presets' rules: a named expression one of them uses is not unused
    preset_words = set(re.findall(r"[a-z_][a-z0-9_]*", json.dumps(data.get("presets") or [])))

    data = _with_presets(data, locs, fname, opts)
    problems = schema_problems(data, locs, fname)
    if problems:
        raise VariantError(problems)
    data, kept, by_deal = _flow_sizes(data, locs, fname, opts, deal or 0)

    c = Checks(data, locs, fname, problems)
    c.options = opts
    # the actions of one word (`pass`, `done`...): a declaration's action is none of them
    c.action_words = frozenset(k for k, arg in ACTION_KINDS.items() if arg.startswith("None"))
    _load_deck(c)
    deal_sizes, most = shared[:3:2] if shared else (None, 0)
    if by_deal and deal is None:    # every deal's sizes against the deck
        deal_sizes, most = _deal_sizes(c, kept, by_deal)
    _load_flow(c)
    deck, players, flow, per_seat = c.deck, c.players, c.flow, c.per_seat
    dk = data["deck"]
    last_trick = dk.get("last_trick", 0)
    total = deck.total_points() + last_trick
    if "total" in dk and dk["total"] != total:
        where_changed(c, ("deck", "total"), DECK_KEYS, f"the deck's points add up to {deck.total_points()}"
                                     f"{f' + {last_trick} for the last trick = {total}' if last_trick else ''}"
                                     f", not {dk['total']}")
    mech_fields = {}
    for m in MECHANICS:  # each mechanic's section, in the list's order
        if m.load is not None:
            mech_fields.update(m.load(c))
    if not c.structural:
        _check_flow_order(c)
    if problems:
        raise VariantError(problems)

    compiler_names = {}
    for m in MECHANICS:
        if m.compiler is not None:
            compiler_names.update(m.compiler(c, mech_fields))
    comp = Compiler(deck, players, per_seat, options=opts, defines=data.get("define", {}) or {},
                    **compiler_names)
    bids_by_deal = bool(mech_fields.get("has_bids")) and not isinstance(data["bids"]["max"], int)
    if deal_sizes:  # a rule always false by this deal's tricks: a warning (`_by_deal` judges it)
        comp.deal_values = {"tricks": per_seat, **({"max_bid": comp.max_bid} if bids_by_deal else {})}
    comp.no_contract = not mech_fields.get("has_contract", True)
    names = {}

    def dsl_problem(p, e: DSLError, used_by=None):
        if isinstance(e, DefineError):  # located in the named expression's own text
            p, used_by = ("define", e.define), used_by
        label = ".".join(map(str, p))
        if isinstance(e, ParentError):  # in the inherited rule `parent` names, in its file
            p = (PARENT_RULES, label, e.index)
        loc = at(*p)
        if p in locs:
            line, col = loc.inner(e.line, e.column)
        else:
            line, col = loc.line, loc.column
        base = f"{label}: {e.message}"
        if any((q.file, q.line, q.column) == (loc.file, line, col) and q.message.startswith(base)
               for q in problems):
            return  # a named expression's problem, once however many rules use it
        where = f" (used in {'.'.join(map(str, used_by))})" if used_by and p[0] == "define" else ""
        problems.append(Problem(loc.file, line, col, base + where))

    paths = {}  # hook -> its path in the file

    def add(hook, p, kind, text, extra=None):
        paths[hook] = p
        try:
            names[hook] = comp.add(hook, text, kind, extra,
                                   (data.get(PARENT_RULES) or {}).get(".".join(map(str, p)), ()))
        except DSLError as err:
            for e in err.errors:  # every problem of the rule
                dsl_problem(p, e, p)

    try:
        comp.check_defines()
    except DefineError as err:
        for e in err.errors:  # every problem of every named expression
            dsl_problem(("define", e.define), e)

    skipped = set()
    for m in MECHANICS:
        if m.skipped_hooks is not None:
            skipped |= m.skipped_hooks(c)
    for hook, (p, kind, default) in HOOKS.items():
        if hook in skipped:
            continue
        node = data
        for k in p:
            node = node.get(k) if isinstance(node, dict) else None
        if node is None:
            if default is None:
                problem(p, f"{'.'.join(p)} is required")
                continue
            if default == "":
                continue  # an optional hook that does nothing
            node = default
        add(hook, p, kind, node, EXTRA_NAMES.get(hook))
    for m in MECHANICS:
        if m.add_rules is not None:
            m.add_rules(c, comp, add)
    # an unused named expression, as an unused named value; only in a file with no other
    # problem (a misspelt use, a rule that did not check, leaves one unused)
    for name, key in comp.define_keys.items() if not problems and deal is None else ():
        own = locs.get(("define", key, KEY))
        if name not in comp.used_defines and name not in preset_words and own is not None and own.file == fname:
            problem(("define", key, KEY), f"define: '{name}' is defined but never used: remove it, or use it "
                                          "in a rule")
    if problems:
        raise VariantError(problems)
    warnings = []
    for hook, e in comp.warnings:   # always false by an option's value: meant so, a warning
        p = paths.get(hook)
        if p is None:
            continue
        loc = at(*p)
        line, col = loc.inner(e.line, e.column) if p in locs else (loc.line, loc.column)
        warnings.append(Problem(loc.file, line, col, f"{'.'.join(map(str, p))}: {e.message}", warning=True))
    try:
        built = comp.build()
    except (SyntaxError, RecursionError, MemoryError, ValueError) as e:  # beyond the limits
        raise VariantError([Problem(fname, 1, 1, f"the rules are too complex to compile ({type(e).__name__})")]) from None
    rules = {hook: None for hook in HOOKS}
    rules["flow.declare"] = None
    rules.update({hook: built[fn].fn for hook, fn in names.items()})
    sources = {hook: built[fn].source for hook, fn in names.items()}
    constants = {hook: built[fn].const for hook, fn in names.items() if built[fn].const is not NOT_CONSTANT}
    for m in MECHANICS:
        if m.built is not None:
            mech_fields.update(m.built(c, rules, sources, paths))
    if problems:
        raise VariantError(problems)
    fields = dict(
        name=str(data["name"]), title=data.get("title", str(data["name"])), path=path, data=kept,
        options=opts, players=players, direction=data.get("direction", "clockwise"),
        deck=deck, flow=flow, tricks=per_seat, widow_size=c.widow, last_trick=last_trick, total=total,
        rules=rules, sources=sources, constants=constants, **mech_fields,
        bids_up_to=most if bids_by_deal else 0)
    t = SimpleNamespace(**fields, **_tables(fields))
    # the play phase's legal actions as one function (the hot path; Compiler.build_play_legal)
    checks = [(a.id, names[f"declare.{d.name}.when"], su) for a, d, su in t.declaration_actions
              if d.at == "play"]
    expose = None if t.may_expose is None else (t.expose_action.id, names["play.may_expose"])
    play_fn = comp.build_play_legal(names["play.may_play"], checks, expose,
                                    face_down=t.trump_mode == "hidden", dedupe=deck.max_copies > 1)
    auction_fn = None
    if t.has_auction:  # the auction's calls likewise (Compiler.build_auction_legal)
        def hook(h, present):
            return names[f"auction.{h}"] if present is not None else None
        auction_fn = comp.build_auction_legal(
            names["auction.may_pass"], names["auction.may_bid"], hook("may_equal", t.may_equal),
            hook("may_double", t.may_double), hook("may_redouble", t.may_redouble), t.bid_number_ids,
            t.pass_action.id, t.double_action.id, t.redouble_action.id)
    # apply_id with the play written out (the hot path; Compiler.build_play_step)
    step = comp.build_play_step(t.plain_play, apply_id, Play.card_played, Play.end_trick, t.actions,
                                t.plain_trump, per_seat, last_trick, t.after_trick, t.after_card)
    step.fn.__doc__ = apply_id.__doc__
    step.fn.__qualname__ = "play_step"
    phases = _phases({"play_legal": play_fn.fn, "auction_legal": auction_fn and auction_fn.fn})
    v = Variant(phases=phases, **fields, warnings=tuple(warnings), play_legal=play_fn.fn, play_legal_source=play_fn.source,
                auction_legal=auction_fn and auction_fn.fn,
                auction_legal_source=auction_fn and auction_fn.source,
                play_step=step.fn, play_step_source=step.source,
                deal_sizes=deal_sizes, deal_variants=shared[1] if shared else {} if deal_sizes else None,
                most_per_seat=most,
                deal_index=deal or 0, **{k: x for k, x in vars(t).items() if k not in fields})
    if deal_sizes and deal is None:
        _by_deal(v, kept, locs, bounds)
    return v


def _deal_sizes(c: Checks, kept: dict, by_deal: list) -> tuple:
    """The values of the flow's sizes that read ``deals`` (at the paths ``by_deal``, their
    texts in ``kept``'s flow) in each deal of the match, 0 to ``match.max_deals`` - 1, as
    a tuple per deal, and the most cards a seat is dealt in any of them; each deal's flow
    must deal exactly the deck. Raises VariantError,
    located at the first such size: a match without ``max_deals`` (no bound to check
    up to; docs/authoring.md, "A hand size that changes by deal"), a value that is not
    a number of 1 or more, or a deal that deals too many or too few cards (the first
    such deal, and how many more)."""
    first = locate(c.locs, by_deal[0], c.fname)
    where = ".".join(map(str, by_deal[0]))
    match = c.data.get("match") if isinstance(c.data.get("match"), dict) else {}
    if "max_deals" not in match:
        raise VariantError([Problem(first.file, first.line, first.column,
                                    f"{where}: a size that reads `deals` needs the match's length: write "
                                    "match.max_deals (every deal's sizes are checked against the deck)")])
    if match["max_deals"] > MAX_DEALS_BY_DEAL:
        loc = locate(c.locs, ("match", "max_deals"), c.fname)
        raise VariantError([Problem(loc.file, loc.line, loc.column,
                                    f"match.max_deals: a flow whose sizes read `deals` is checked deal by deal, "
                                    f"at most {MAX_DEALS_BY_DEAL} deals, not {match['max_deals']}")])
    texts = [_at_path(kept, p) for p in by_deal]
    out, wrong, deck_cards, most = [], [], len(c.deck.all_cards), 0
    for n in range(match["max_deals"]):
        values = []
        for p, text in zip(by_deal, texts):
            try:
                values.append(flow_size(text, c.options, n)[0])
            except (DSLError, ValueError) as e:
                loc = locate(c.locs, p, c.fname)
                msg = e.message if isinstance(e, DSLError) else str(e)
                if " in deal " not in msg:   # a size that reads `deals` fails in some deals only
                    msg = f"in deal {n + 1} (deals = {n}): {msg}"
                raise VariantError([Problem(loc.file, loc.line, loc.column,
                                            f"{'.'.join(map(str, p))}: {msg}")]) from None
        flow = _sized_flow(kept["flow"], by_deal, values)
        per_seat = sum(sum(s["deal"]) for s in flow if isinstance(s, dict) and "deal" in s)
        widow = sum(s["widow"] for s in flow if isinstance(s, dict) and "widow" in s)
        if per_seat * c.players + widow != deck_cards:
            wrong.append(f"in deal {n + 1} (deals = {n}) the flow deals {per_seat} cards to each of "
                         f"{c.players} players{f' and {widow} to the widow' if widow else ''} "
                         f"({per_seat * c.players + widow}), but the deck has {deck_cards}")
        out.append(tuple(values))
        most = max(most, per_seat)
    if wrong:
        more = f" (and {len(wrong) - 1} other deal{'s' if len(wrong) > 2 else ''})" if len(wrong) > 1 else ""
        raise VariantError([Problem(first.file, first.line, first.column, f"{where}: {wrong[0]}{more}")])
    return tuple(out), most


# the most deals a flow whose sizes read `deals` is checked for (match.max_deals)
MAX_DEALS_BY_DEAL = 100


def _at_path(data, p):
    for k in p:
        data = data[k]
    return data


def _sized_flow(flow: list, by_deal: list, values) -> list:
    """``flow`` with the size at each path of ``by_deal`` (("flow", i, key[, j])) set to
    its value in ``values``."""
    flow = copy.deepcopy(flow)
    for p, x in zip(by_deal, values):
        if len(p) == 4:
            flow[p[1]][p[2]][p[3]] = x
        else:
            flow[p[1]][p[2]] = x
    return flow


def _by_deal(first: Variant, kept: dict, locs: dict, bounds: Bounds) -> None:
    """Build the Variant of each distinct flow of ``first``'s deals (``deal_sizes``) into
    its ``deal_variants``, each loaded and checked as a file of its own would be (the
    rules compiled with its tricks and cards per seat). Raises VariantError with the
    problems of the first deal that does not load, saying which deal, or for a rule
    (or a case) always false by the deal's tricks in every deal; one false in some deals
    only is meant so, and is no warning either."""
    shared = (first.deal_sizes, first.deal_variants, first.most_per_seat)
    first.deal_variants[first.deal_sizes[0]] = first
    for n, key in enumerate(first.deal_sizes):
        if key in first.deal_variants:
            continue
        try:
            first.deal_variants[key] = _load_variant(first.path, first.options, (kept, locs), bounds, n, shared)
        except VariantError as e:
            raise VariantError([dataclasses.replace(p, message=f"in deal {n + 1} (deals = {n}): {p.message}")
                                for p in e.problems]) from None

    def by_the_deal(x: Variant) -> dict:   # (place, words before the deal's values) -> warning
        out = {}
        for p in x.warnings:
            head, sep, _ = p.message.partition(" in this deal (")
            if sep and not head.endswith(","):   # by the deal's values alone, no option
                out[(p.file, p.line, p.column, head)] = p
        return out
    always = set.intersection(*(set(by_the_deal(x)) for x in first.deal_variants.values()))
    if always:
        raise VariantError([Problem(f, line, col, f"{head} in any deal of the match (it is always false)")
                            for f, line, col, head in sorted(always)])
    for x in first.deal_variants.values():   # false in some deals only: meant so
        object.__setattr__(x, "warnings", tuple(p for p in x.warnings if p not in by_the_deal(x).values()))


def _with_presets(data: dict, locs: dict, fname: str, opts: dict) -> dict:
    """``data`` with its presets applied: each ``presets:`` entry's ``set`` merged in when
    its ``when``, a condition on the options ``opts`` only, holds; ``presets`` removed.
    ``locs`` gains the positions of what is merged. Raises VariantError (located) for a
    condition that is not a rule on options."""
    def at(*p) -> Loc:
        return locate(locs, p, fname)

    # presets: parts of the file that apply when a condition on the options holds
    for i, preset in enumerate(data.get("presets", []) or []):
        pc = Compiler(Deck(["S"], ["A"]), 0, 0, 0, 0, options=opts)
        pc.only_options = True
        try:
            fn = pc.add("preset", preset["when"], BOOL)
        except DSLError as err:
            loc = at("presets", i, "when")
            raise VariantError([Problem(loc.file, *loc.inner(e.line, e.column), f"presets.{i}.when: {e.message}")
                                for e in err.errors]) from None
        const = pc.consts[fn]
        if const is NOT_CONSTANT:
            loc = at("presets", i, "when")
            raise VariantError([Problem(loc.file, loc.line, loc.column,
                                        f"presets.{i}.when: a preset condition may use only options")])
        if const:
            setlocs = {k[3:]: v for k, v in locs.items() if k[:3] == ("presets", i, "set")}
            data = merge(data, preset["set"], locs, setlocs)
    data.pop("presets", None)
    return data


def _flow_sizes(data: dict, locs: dict, fname: str, opts: dict, deal: int = 0):
    """``data`` with each size of its flow written as a rule (a packet of ``deal:``, a
    ``widow:``) replaced by its value, a rule on the options ``opts`` and ``deals`` (the
    deals played before: ``deal``, 0 for the first) worked out now (docs/authoring.md,
    "Sizes that depend on the options", "A hand size that changes by deal"). Returns
    (that data, the data with the sizes that read ``deals`` kept as their text, their
    paths in the file in order). Raises VariantError (located) for a rule that reads
    other names or is not a number of 1 or more."""
    flow = data.get("flow")
    if not isinstance(flow, list):
        return data, data, []
    problems, steps, kept, by_deal = [], [], [], []
    for i, step in enumerate(flow):
        if not isinstance(step, dict) or not any(isinstance(step.get(k), (str, list)) for k in ("deal", "widow")):
            steps.append(step)
            kept.append(step)
            continue
        step, keep = dict(step), dict(step)
        for key in ("deal", "widow"):
            sizes = step.get(key)
            many = isinstance(sizes, list)
            out, texts = [], []
            for j, text in enumerate(sizes if many else [sizes]):
                if not isinstance(text, str):
                    out.append(text)
                    texts.append(text)
                    continue
                p = ("flow", i, key, j) if many else ("flow", i, key)
                try:
                    const, reads = flow_size(text, opts, deal)
                except DSLError as err:
                    loc = locate(locs, p, fname)
                    problems += [Problem(loc.file, *loc.inner(e.line, e.column), f"{'.'.join(map(str, p))}: {e.message}")
                                 for e in err.errors]
                    continue
                except ValueError as e:
                    loc = locate(locs, p, fname)
                    problems.append(Problem(loc.file, loc.line, loc.column, f"{'.'.join(map(str, p))}: {e}"))
                    continue
                out.append(const)
                texts.append(text if reads else const)
                if reads:
                    by_deal.append(p)
            if sizes is not None:
                step[key] = out if many else out[0] if out else sizes
                keep[key] = texts if many else texts[0] if texts else sizes
        steps.append(step)
        kept.append(keep)
    if problems:
        raise VariantError(problems)
    return {**data, "flow": steps}, {**data, "flow": kept}, by_deal


def flow_size(text: str, opts: dict, deal: int = 0) -> tuple[int, bool]:
    """The value of a flow's size written as a rule (``text``), on the options ``opts`` and
    ``deals`` = ``deal`` (the deals played before), and whether it reads ``deals``.
    Raises DSLError (a name that is neither, a rule that does not check) or ValueError
    (a value that is not a number of 1 or more)."""
    pc = Compiler(Deck(["S"], ["A"]), 0, 0, 0, 0, options=opts)
    pc.only_options, pc.flow_values = True, {"deals": deal}
    const = pc.consts[pc.add("flow.size", text, INT)]
    reads = bool(pc.flow_reads)
    if const is NOT_CONSTANT or type(const) is not int or const < 1:
        if const is NOT_CONSTANT:
            raise ValueError("a size may use only options and `deals`")
        raise ValueError(f"a size must be a number of 1 or more, not {const!r} in deal {deal + 1} (deals = {deal})"
                         if reads else f"a size must be a number of 1 or more from the options, not {const!r}")
    return const, reads


def _load_deck(c: Checks) -> None:
    """The deck (``c.deck``) and the number of players (``c.players``) of the file
    (docs/authoring.md, "The deck"). Each card of ``cards``, ``exclude`` and ``extra`` must
    be a card text of the deck's suits and ranks (``exclude``: a card the deck holds), and
    each key of ``points`` a rank of ``ranks``, a suit of ``suits`` or a card of the deck;
    each other is a problem at its place, left out of the Deck."""
    dk = c.data["deck"]
    suits, ranks = dk["suits"], dk["ranks"]

    def card_ok(where: tuple, t) -> bool:
        parts = card_parts(t)
        if parts is None:
            c.problem(where, f"{show(t)} is not a card: a rank (2-9, T, J, Q, K, A) then a suit "
                             "(S, H, D, C), such as QS or TH", value=True)
            return False
        r, su = parts
        if r not in ranks or su not in suits:
            what = f"rank {r}, which is not in deck.ranks" if r not in ranks else \
                f"suit {su}, which is not in deck.suits"
            c.problem(where, f"{t} is of {what} (the ranks' order there gives each card its strength)",
                      value=True)
            return False
        return True
    cards = [t for i, t in enumerate(dk.get("cards") or []) if card_ok(("deck", "cards", i), t)] \
        if "cards" in dk else None
    extra = [t for i, t in enumerate(dk.get("extra") or []) if card_ok(("deck", "extra", i), t)]
    held = set(cards) if cards is not None else {r + su for su in suits for r in ranks}
    exclude = []
    for i, t in enumerate(dk.get("exclude") or []):
        if card_ok(("deck", "exclude", i), t):
            if t not in held:
                c.problem(("deck", "exclude", i), f"{t} is excluded but is not in the deck "
                                                  f"({'deck.cards' if cards is not None else 'deck.suits x deck.ranks'}"
                                                  " does not hold it)", value=True)
            else:
                exclude.append(t)
    points = {}
    for k, val in (dk.get("points") or {}).items():
        where = ("deck", "points", k, KEY)  # at the key
        if not isinstance(k, str) or not (k in RANK_LETTERS or k in SUIT_LETTERS or card_parts(k)):
            c.problem(where, f"points given for {show(k)}, which is not a rank, a suit or a card "
                             "(e.g. A: 11, H: 1, QS: 13)", value=True)
        elif k in RANK_LETTERS and k not in ranks:
            c.problem(where, f"points given for rank {k}, which is not in deck.ranks", value=True)
        elif k in SUIT_LETTERS and k not in suits:
            c.problem(where, f"points given for suit {k}, which is not in deck.suits", value=True)
        else:
            points[k] = val
    c.deck = Deck(suits, ranks, dk.get("copies", 1), points, cards, exclude, extra)
    for k in points:
        if card_parts(k) and k not in c.deck.card_index:
            c.problem(("deck", "points", k, KEY), f"points given for the card {k}, which is not in the deck",
                      value=True)
    if c.deck.max_copies > MAX_COPIES:
        c.problem(("deck", "extra") if extra else ("deck", "cards"),
                  f"the deck holds {c.deck.max_copies} copies of a card: at most {MAX_COPIES}", value=True)
    if not c.deck.ids:
        c.problem(("deck",), "the deck holds no card")
    c.players = c.data["players"]


# the keys of the deck whose change can make an inherited total or flow wrong
DECK_KEYS = (("deck", "last_trick"), ("deck", "points"), ("deck", "ranks"), ("deck", "suits"),
             ("deck", "copies"), ("deck", "cards"), ("deck", "exclude"), ("deck", "extra"))


def where_changed(c: Checks, p: tuple, changed: tuple, message: str) -> None:
    """Record a problem of the value at ``p`` (``c``: a loader.Checks); when that value is
    inherited (written in a file the file extends) and the file itself writes one of the
    paths ``changed``, at the first of those (the change that broke it), naming where the
    inherited value is written; else at ``p``."""
    loc = c.at(*p)
    if loc.file != c.fname:
        for q in changed:
            mine = c.locs.get(q)
            if mine is not None and mine.file == c.fname:
                c.problem(q, f"{message} (with `{'.'.join(p)}` inherited from {loc.file}:{loc.line})",
                          value=p != ("flow",))
                return
    c.problem(p, message, value=p != ("flow",))


def _load_flow(c: Checks) -> None:
    """Check the flow's steps and the cards it deals (docs/authoring.md, "Flow"); sets the
    facts the mechanics read: ``c.flow``, ``c.steps`` (its named steps), ``c.per_seat``,
    ``c.widow`` (the cards dealt to the widow), ``c.declare_at``, ``c.has_auction``,
    ``c.trump_mode``."""
    data, players, deck = c.data, c.players, c.deck
    flow = c.flow = data["flow"]
    per_seat = c.per_seat = sum(sum(s["deal"]) for s in flow if isinstance(s, dict) and "deal" in s)
    in_widow = c.widow = sum(s["widow"] for s in flow if isinstance(s, dict) and "widow" in s)
    deck_cards = len(deck.all_cards)
    if per_seat * players + in_widow != deck_cards:
        where_changed(c, ("flow",), (("players",),) + DECK_KEYS, f"the flow deals {per_seat} cards to each of {players} players"
                             f"{f' and {in_widow} to the widow' if in_widow else ''} "
                             f"({per_seat * players + in_widow}), but the deck has {deck_cards}")
    trump_mode = c.trump_mode = (data.get("trump") or {}).get("mode", "none")  # no section: no trump
    steps = c.steps = [s for s in flow if isinstance(s, str)]
    declare_at = c.declare_at = [i for i, s in enumerate(flow) if isinstance(s, dict) and "declare" in s]
    has_auction = c.has_auction = "auction" in steps
    needed = ["play"] + (["auction"] if has_auction else []) + (["trump"] if trump_mode not in ("bid", "none", "fixed", "rule") else [])
    for step in needed:
        if steps.count(step) != 1:
            where = [i for i, s in enumerate(flow) if s == step]
            c.problem(("flow", where[1]) if len(where) > 1 else ("flow",),
                      f"the flow must have exactly one '{step}' step"
                      + (f" (trump.mode is '{trump_mode}'; a game without trump: trump.mode none)"
                         if step == "trump" and not steps.count(step) else ""))
    for step in ("exchange", "call_partner", "doubling"):
        if steps.count(step) > 1:
            c.problem(("flow", c.step_index(step, 1)), f"the flow may have at most one '{step}' step")
    if len(declare_at) > 1:
        c.problem(("flow", declare_at[1]), "the flow may have at most one 'declare' step")


def _check_flow_order(c: Checks) -> None:
    """The flow's order (docs/authoring.md, "Flow"): it deals first, holds play last, the
    middle steps but `declare` between the auction and play, a `declare` step anywhere
    before play (before the auction too), and deals every card before play. Each step
    out of place is reported at that step. Asked only of a flow whose structure has no
    problem."""
    flow, has_auction = c.flow, c.has_auction
    named = [(i, s if isinstance(s, str) else "declare") for i, s in enumerate(flow)
             if isinstance(s, str) or "declare" in s]
    pi = flow.index("play")
    ai = flow.index("auction") if has_auction else -1
    for i, name in named:
        if i > pi:
            c.problem(("flow", i), f"'{name}' comes after play: the flow must hold play last")
        elif has_auction and i < ai and name != "declare":
            c.problem(("flow", i), f"'{name}' comes before the auction: the flow must hold the "
                                   f"auction first and play last ({', '.join(MIDDLE_STEPS)} between "
                                   "them; a `declare` step may also come before the auction)")
    if isinstance(flow[0], str) or "declare" in flow[0]:
        c.problem(("flow", 0), "the flow must start by dealing cards")
    if any(isinstance(s, dict) and "deal" in s for s in flow[flow.index("play"):]):
        c.problem(("flow",), "every card must be dealt before play")


MAX_OPTION_COMBINATIONS = 64


def option_combinations(name) -> list[dict]:
    """Every combination of the finite options (true/false, or `choices`) of a variant that
    has presets or a flow size written as a rule, at most MAX_OPTION_COMBINATIONS; [] if
    it has neither."""
    try:
        data, _ = load_raw(resolve_name(str(name)))
    except (VariantError, FileNotFoundError):
        return []
    sized = any(isinstance(step, dict) and any(isinstance(x, str) for k in ("deal", "widow")
                                               for x in (step.get(k) if isinstance(step.get(k), list)
                                                         else [step.get(k)]))
                for step in data.get("flow") or [] if isinstance(data.get("flow"), list))
    if not (data.get("presets") or sized) or not isinstance(data.get("options"), dict):
        return []
    domains = {}
    for k, spec in data["options"].items():
        if isinstance(spec, dict) and isinstance(spec.get("choices"), list):
            domains[k] = spec["choices"]
        elif isinstance(spec, bool) or (isinstance(spec, dict) and isinstance(spec.get("default"), bool)):
            domains[k] = [False, True]
    combos = [dict(zip(domains, vals)) for vals in itertools.product(*domains.values())]
    return combos[:MAX_OPTION_COMBINATIONS]


def check_warnings(paths) -> list[Problem]:
    """Warnings (``Problem.warning``) of each file that loads: an inherited rule whose
    meaning the file's change changes (each mechanic's ``inherited_warnings``: a change
    of partnership or players), at the key the file changes (else its `extends:`)."""
    out = []
    for p in paths:
        try:
            v = load_variant(p)
            _, locs = load_raw(v.path)
            out += _table_seat_warnings(v, locs) + _standing_bid_warnings(v, locs) + _option_warnings(p, v)
            own, _ = read_tree(Path(v.path))
            parent = own.get("extends")
            if not isinstance(parent, str):
                continue
            pdata, _ = load_raw(resolve_name(parent, Path(v.path).parent))
        except (VariantError, FileNotFoundError, OSError):
            continue
        fname = str(Path(v.path).resolve())
        rules = {}
        for hook, path in rule_paths(v).items():
            loc = locs.get(path)
            if loc is None or loc.file == fname or v.sources.get(hook) is None:
                continue
            rules[hook] = (code_reads(v.sources[hook]), f"{loc.file}:{loc.line}")
        for m in MECHANICS:
            if m.inherited_warnings is None:
                continue
            for hook, message, key in m.inherited_warnings(rules, pdata, v):
                at = locs.get(key)
                if at is None or at.file != fname:
                    at = locs[("extends",)]
                out.append(Problem(at.file, at.line, at.column, message, warning=True))
    return out


def _option_warnings(path, v: Variant) -> list[Problem]:
    """The rules' warnings (`Variant.warnings`) with the options as given, then with each
    other value of the options that take a few (true/false, `choices`; at most
    MAX_OPTION_COMBINATIONS combinations), each of those named by its `--set`s; each once."""
    out, seen = [], set()
    for pr in v.warnings:
        seen.add((pr.file, pr.line, pr.column, pr.message))
        out.append(pr)
    domains = {}
    for k, spec in (v.data.get("options") or {}).items():
        if isinstance(spec, dict) and isinstance(spec.get("choices"), list):
            domains[k] = spec["choices"]
        elif isinstance(spec, bool) or (isinstance(spec, dict) and isinstance(spec.get("default"), bool)):
            domains[k] = [False, True]
    combos = [dict(zip(domains, vals)) for vals in itertools.product(*domains.values())]
    for combo in combos[:MAX_OPTION_COMBINATIONS]:
        try:
            w = load_variant(path, combo).warnings
        except VariantError:
            continue   # `taash check` reports it (check_files)
        sets = " ".join(f"--set {k}={str(x).lower() if isinstance(x, bool) else x}" for k, x in combo.items())
        for pr in w:
            key = (pr.file, pr.line, pr.column, pr.message)
            if key not in seen:
                seen.add(key)
                out.append(Problem(pr.file, pr.line, pr.column, f"with {sets}: {pr.message}", pr.origin,
                                   warning=True))
    return out


def _standing_bid_warnings(v: Variant, locs: dict) -> list[Problem]:
    """A warning at `auction.standing_bid` when it makes the lowest bids unreachable: the
    dealer holds it before any call and a bid must be above the high bid (or equal it,
    where `may_equal` holds), so `min_bid` and the bids up to the standing bid are never
    offered."""
    au = v.data.get("auction") or {}
    sb = au.get("standing_bid", 0)
    if not v.has_auction or not sb:
        return []
    top = sb - 1 if "may_equal" in au else sb
    if v.min_bid > top:
        return []
    loc = locs.get(("auction", "standing_bid"))
    if loc is None:
        return []
    unreachable = f"{v.min_bid}" if top == v.min_bid else f"{v.min_bid} to {min(top, v.max_bid)}"
    return [Problem(loc.file, loc.line, loc.column,
                    f"auction.standing_bid {sb}: the dealer holds it before any call and a bid must be above "
                    f"the high bid{' (or equal it where may_equal holds)' if 'may_equal' in au else ''}, so "
                    f"min_bid {v.min_bid} is unreachable (no bid of {unreachable} is ever offered); to let "
                    "the dealer play at the lowest bid when all pass, write `all_pass: dealer` without a "
                    "standing bid", warning=True)]


def _table_seat_warnings(v: Variant, locs: dict) -> list[Problem]:
    """A warning at each rule naming a seat for the table (dsl TABLE_SEAT_HOOKS) that names
    the holder of a card (``holder_of``) where that card may be in no hand when the rule
    is asked: in the widow, laid face down as trump, or not dealt yet; a deal where it is
    stops with a RuleError."""
    out = []
    for hook in TABLE_SEAT_HOOKS:
        src = v.sources.get(hook)
        if not src or "_holder" not in code_reads(src) or hook not in HOOKS:
            continue
        node = v.data
        for k in HOOKS[hook][0]:
            node = node.get(k) if isinstance(node, dict) else None
        if re.search(r"(!=|==)\s*none\b", str(node)):
            continue   # the rule says what to do when nobody holds the card
        steps = [s if isinstance(s, str) else "deal" if "deal" in s else "declare" if "declare" in s
                 else "widow" for s in v.flow]
        asked = {"play.leader": "play", "trump.chooser": "trump", "auction.first": "auction",
                 "auction.all_pass": "auction"}.get(hook)
        where = ["in the widow or set aside"] if v.widow_size else []
        if v.trump_mode == "hidden" and hook == "play.leader":
            where.append("laid face down as trump")
        at = steps.index(asked) if asked in steps else 0
        if "deal" in steps[at:]:
            where.append("not dealt yet")
        if not where:
            continue
        path = HOOKS[hook][0]
        loc = locs.get(path)
        if loc is None:
            continue
        out.append(Problem(loc.file, loc.line, loc.column,
                           f"{'.'.join(path)} names the holder of a card, which may be in no hand when it "
                           f"is asked ({', '.join(where)}): a deal where it is stops with an error; name "
                           "a seat for that case (`... if holder_of(CARD) != none else eldest`)",
                           warning=True))
    return out


def rule_paths(v: Variant) -> dict[str, tuple]:
    """Hook -> its path in the file, for every rule of ``v`` written in a file."""
    out = {hook: path for hook, (path, _, _) in HOOKS.items()}
    for d in v.declarations:
        for part in ("when", "effect", "answered_by"):
            out[f"declare.{d.name}.{part}"] = ("declarations", d.name, part)
    return out


def code_reads(source: str) -> frozenset[str]:
    """The State attributes and the helpers a rule's generated Python ``source`` names."""
    tree = parse(source)
    return frozenset({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
                     | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})


def check_files(paths) -> list[Problem]:
    """Load each file, and each combination of its options that switches presets; return
    every problem found (empty when all are valid)."""
    out = []
    for p in paths:
        try:
            load_variant(p)
        except VariantError as e:
            out.extend(e.problems)
            continue
        seen, found = set(), []
        for combo in option_combinations(p):
            try:
                load_variant(p, combo)
            except VariantError as e:
                sets = " ".join(f"--set {k}={str(v).lower() if isinstance(v, bool) else v}"
                                for k, v in combo.items())
                for pr in e.problems:
                    key = (pr.file, pr.line, pr.column, pr.message)
                    if key not in seen:
                        seen.add(key)
                        found.append(Problem(pr.file, pr.line, pr.column, f"with {sets}: {pr.message}",
                                             pr.origin))
        out.extend(by_position(found))
    return out
