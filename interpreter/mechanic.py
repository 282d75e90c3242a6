"""What a game mechanic declares to the engine: the `Mechanic` record.

A game mechanic (the auction, trump, partnerships, the widow, the play of the tricks,
declarations, scoring, the variant's variables) lives in a module of its own, which ends
with one ``MECHANIC = Mechanic(...)``; interpreter/mechanics.py lists them, and the
variant's build (variant.py), the State (engine.py), the rulebook (rulebook.py) and the
observation's parts loop over that one list, so none of them names a mechanic
(docs/architecture.md, "Adding a mechanic"). Every part is optional: a mechanic declares
only what it has. Each callable gets a loader.Checks ``c`` while the variant is built,
or a State ``s`` while a deal is played; none imports the engine (phase.py says how a
phase moves a deal on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

# how `State.copy` copies a field: "=" shared (immutable, or never changed after the deal
# starts), "list" a shallow copy, "lists" a list of lists copied one level deeper,
# "set"/"dict" a copy
COPY_KINDS = ("=", "list", "lists", "set", "dict")


@dataclass(frozen=True, eq=False)
class Mechanic:
    """One game mechanic, as the engine sees it.

    Loading a variant file (variant.py calls these in the order of the list):

    - ``load(c) -> dict``: check the mechanic's section against the flow (record each
      problem with ``c.problem``) and return its Variant fields (name -> value); it may
      set facts on ``c`` that the mechanics after it read (``c.denominations``);
    - ``compiler(c, fields) -> dict``: the keywords the rules compiler (dsl.Compiler)
      needs of it, from ``fields`` (every mechanic's Variant fields so far);
    - ``hooks``: its rules, hook -> (path in the file, expected kind, default rule text,
      None if required, "" an optional rule that does nothing when absent);
      ``skipped_hooks(c) -> set``: the hooks of ``hooks`` a file does not compile;
      ``extra_names``: hook -> the hook whose names its rule may also use;
    - ``add_rules(c, comp, add)``: its further rules, compiled with
      ``add(hook, path, kind, text, extra=None)`` (``comp``: the dsl.Compiler), and the
      checks that need them compiled;
    - ``built(c, rules, sources, paths) -> dict``: the Variant fields made from the
      compiled rules (hook -> function / generated source / path), and the checks of
      the generated code;
    - ``variant``: the class declaring its Variant fields, those ``load`` and ``built``
      return and those its ``tables`` make: a frozen, keyword-only dataclass (widow.py's
      `WidowFields`), one of the bases of `variant.Variant`;
    - ``tables``: ((slot, f), ...), ``f(v, act) -> dict`` the Variant fields it derives
      from the others (``v``: every field so far, the rules compiled) and its actions,
      each made by ``act(text, kind, arg=None, code=None) -> Action``. The action table
      is made by slot, then the list's order: a slot fixes where its actions' ids fall
      (0 the plays, so that a play's id is its card id; 1 pass, double, redouble; 2
      expose; 3 done; 4 the bids; 5 trump S; 6 trump-card C; 7 call C; 8 take C; 9
      discard C; 10 the dealt trump card; 11 the declarations), and a new mechanic's
      actions take a slot after those, so that no id of a shipped variant moves (a
      learner's action space and mask index actions by id: learn/encoding.py);
      ``card_actions``: action kind -> the Variant field of its action per card id (for
      resampling a hidden action: information.py); ``hidden_actions(v) -> [Action]``:
      its actions that the other seats see by their kind only (`State.public_action`);
      ``action_kinds``: the kinds of its actions, kind -> what an Action's ``arg`` holds
      ("None" for an action of one word: ``pass``, ``done``).

    Playing a deal (engine.py):

    - ``fields``: its State fields, name -> how `State.copy` copies it (`COPY_KINDS`);
    - ``start(s, carried)``: set those fields as a deal starts (``carried``: the values a
      deal carries from the one before, `State`'s ``variables``);
    - ``begin(s)``: run once every mechanic has started (and a contract given by the file
      is taken), before the first card is dealt: a rule asked as the deal starts, which
      may read every field (trump.py: ``trump.mode rule``);
    - ``phases``: flow step -> its `phase.Phase` handler; ``compiled_legal``: flow step ->
      the Variant attribute holding the generated ``legal`` of that phase for the variant
      (None when it has none);
    - ``finish(s)``: run as the deal ends, in the list's order, before the deal is over;
    - ``view(s, seat, tricks) -> dict``: its part of ``seat``'s observation, JSON-ready,
      in the observation's key order (``tricks``: the completed tricks as the observation
      shows them, made once by the engine);
    - ``result(s) -> dict``: its part of the deal's result (`State.result`, the records'
      form), in the list's order after the contract's denomination; nothing for a variant
      that does not use it, so that its results keep their form (bids.py's: each seat's
      bid). The parts written before it (the auction's, trump's, the partner's, the
      play's and scoring's keys) are interleaved in the records' key order, which every
      old record keeps byte for byte (tests/records), so they stay in `State.result`; a
      new mechanic adds its part here;
    - ``hidden_facts``: State fields that the rules may read and a seat may not see, and
      ``alternatives(s, seat) -> [{field: value}]``: the other values they may have for
      ``seat`` at ``s`` ([] when it sees them); resampling asks the rules with each
      (information.py);
    - ``known_deal(b)``: what the seat of an observation knows of the deal from this
      mechanic, for `State.from_observation`, added to ``b`` (information.DealKnown,
      whose docstring names its parts: the cards dealt beyond the hand and plays, those
      in the hand not dealt, the widow's seen, cards placed at a position, a card a seat
      holds, the history with the hidden actions the seat now knows);
    - resampling's model of the deal (information.Resampler ``r``, whose docstring names
      its parts: positions in hands, aside, in the widow, seen): ``follow``, action kind
      -> ``f(r, k, t, a, hidden)`` that moves the cards of an action ``a`` of that kind
      by seat ``t`` (the ``k``-th of the history, ``hidden`` from the resampled seat)
      before it is applied (one mechanic per kind, not always the kind's own: trump.py
      follows ``expose``);
      ``reveal(r, st)``, after each action, marks what the seat sees at ``st``;
      ``exclude(r)``, once, excludes cards from positions by the public facts (a called
      card's holder); ``from_hand``: its action kinds whose card leaves the actor's hand.

    The rulebook (rulebook.py): ``step_words``, flow step (a step's name, or the key of a
    `declare:` / `widow:` step) -> ``f(variant, step) -> str``, its words in the Deal
    section; ``players_words(v) -> str``, its words in the Players section (after the
    number of players); ``words(v) -> [(title, Markdown)]``, its own sections, in the
    list's order.
    ``schema``: its part of the variant file's JSON Schema (interpreter/schema.py joins
    the parts into grammar/variant.schema.json): ``properties``, the top-level sections
    of the file it reads, section -> its schema; ``required``, those a file must have;
    ``steps``, the names of its flow steps (``exchange``); ``step_objects``, the schemas
    of its flow steps written as objects (``widow: N``).
    """

    name: str
    schema: dict = field(default_factory=dict)
    load: Callable | None = None
    compiler: Callable | None = None
    hooks: dict = field(default_factory=dict)
    skipped_hooks: Callable | None = None
    extra_names: dict = field(default_factory=dict)
    add_rules: Callable | None = None
    built: Callable | None = None
    variant: type | None = None
    tables: tuple = ()
    card_actions: dict = field(default_factory=dict)
    hidden_actions: Callable | None = None
    action_kinds: dict = field(default_factory=dict)
    inherited_warnings: Callable | None = None
    fields: dict = field(default_factory=dict)
    start: Callable | None = None
    begin: Callable | None = None
    phases: dict = field(default_factory=dict)
    compiled_legal: dict = field(default_factory=dict)
    finish: Callable | None = None
    view: Callable | None = None
    result: Callable | None = None
    hidden_facts: tuple = ()
    alternatives: Callable | None = None
    known_deal: Callable | None = None
    follow: dict = field(default_factory=dict)
    reveal: Callable | None = None
    exclude: Callable | None = None
    from_hand: tuple = ()
    step_words: dict = field(default_factory=dict)
    players_words: Callable | None = None
    words: Callable | None = None

    def __post_init__(self):
        for name, kind in self.fields.items():
            if kind not in COPY_KINDS or not name.isidentifier():
                raise ValueError(f"mechanic {self.name}: field {name!r} copied as {kind!r}")
