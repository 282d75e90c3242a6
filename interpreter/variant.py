"""The Variant: an immutable description of one game, built from a checked variant file.

`load_variant(name_or_path, options)` is the entry point; it raises `VariantError` with
located problems for any bad file (never anything else).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .cards import Deck
from .dsl import BOOL, CARDS, INT, SEAT, Compiler, DSLError
from .loader import (VARIANTS_DIR, Loc, Problem, VariantError, load_raw, locate, resolve_name,
                     schema_problems)

# hook -> (path in the file, expected kind, default rule text)
HOOKS = {
    "auction.may_pass": (("auction", "may_pass"), BOOL, None),
    "auction.may_bid": (("auction", "may_bid"), BOOL, None),
    "auction.ends": (("auction", "ends"), BOOL, None),
    "play.leader": (("play", "leader"), SEAT, "eldest"),
    "play.may_play": (("play", "may_play"), CARDS, None),
    "play.counts_as_trump": (("play", "counts_as_trump"), BOOL, "suit(card) == trump"),
    "play.may_expose": (("play", "may_expose"), BOOL, "false"),
    "scoring.made": (("scoring", "made"), BOOL, "points(declarer_side) >= target"),
    "scoring.effect": (("scoring", "effect"), "effect", None),
    "match.ends": (("match", "ends"), BOOL, None),
}


@dataclass(frozen=True)
class Declaration:
    """A declaration made in play (RULES.md §0.8): its name, the compiled condition
    ``when(s, me, None, None) -> bool`` and effect ``effect(s, me, None, None)``."""
    name: str
    description: str
    when: object
    effect: object


@dataclass
class Variant:
    """A loaded variant. Fields are read-only by convention; `rules` maps a hook name
    (see HOOKS) to its compiled function, `sources` to its generated Python source."""
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
    last_trick: int
    total: int
    min_bid: int
    max_bid: int
    bid_step: int
    trump_mode: str
    declarations: list[Declaration]
    score_unit: str
    score_start: int
    rules: dict = field(repr=False, default_factory=dict)
    sources: dict = field(repr=False, default_factory=dict)

    def __post_init__(self):
        n = self.players
        self.side_of = [s % 2 for s in range(n)]  # §0.6 fixed partnerships
        self.sides = 2
        self.bid_numbers = list(range(self.min_bid, self.max_bid + 1, self.bid_step))
        self.bid_text = {b: f"bid {b}" for b in self.bid_numbers}
        d = self.deck
        self.play_text = [f"play {t}" for t in d.text]
        self.trump_text = [f"trump {s}" for s in d.suits]
        self.trump_card_text = [f"trump-card {t}" for t in d.text]
        # text form -> (kind, argument): every action this variant can ever use
        amap = {"pass": ("pass", None), "expose": ("expose", None)}
        for b, t in self.bid_text.items():
            amap[t] = ("bid", b)
        for c, t in enumerate(self.play_text):
            amap[t] = ("play", c)
        for i, t in enumerate(self.trump_text):
            amap[t] = ("trump", i)
        for c, t in enumerate(self.trump_card_text):
            amap[t] = ("trump-card", c)
        for decl in self.declarations:
            amap[f"declare {decl.name}"] = ("declare", decl)
        self.action_map = amap

    @property
    def cards_per_seat(self) -> int:
        return sum(sum(step["deal"]) for step in self.flow if isinstance(step, dict))


def load_variant(name: str | Path, options: dict | None = None) -> Variant:
    """Load, check and compile a variant by shipped name (``29``) or path.

    options: values for the variant's ``options:`` (``--set KEY=VALUE``), each an int or
    bool. Raises VariantError (located problems) for a bad file or option.
    """
    try:
        path = resolve_name(str(name))
    except FileNotFoundError as e:
        raise VariantError([Problem(str(name), 1, 1, str(e))]) from None
    data, locs = load_raw(path)
    fname = str(path)
    problems = schema_problems(data, locs, fname)
    if problems:
        raise VariantError(problems)

    def at(*p) -> Loc:
        return locate(locs, p, fname)

    def problem(p, msg):
        loc = at(*p)
        problems.append(Problem(loc.file, loc.line, loc.column, msg))

    # options
    opts = dict(data.get("options", {}))
    for k, v in (options or {}).items():
        if k not in opts:
            known = ", ".join(sorted(opts)) or "none"
            raise VariantError([Problem(fname, 1, 1, f"unknown option {k!r} (this variant's options: {known})")])
        want = type(opts[k])
        if want is bool and not isinstance(v, bool) or want is int and (isinstance(v, bool) or not isinstance(v, int)):
            raise VariantError([Problem(fname, 1, 1, f"option {k!r} takes a {want.__name__}, not {v!r}")])
        opts[k] = v

    # deck
    dk = data["deck"]
    deck = Deck(dk["suits"], dk["ranks"], dk.get("copies", 1), dk.get("points", {}))
    for r in dk.get("points", {}):
        if r not in deck.ranks:
            problem(("deck", "points", r), f"points given for rank {r}, which is not in deck.ranks")
    players = data["players"]
    flow = data["flow"]
    per_seat = sum(sum(s["deal"]) for s in flow if isinstance(s, dict))
    deck_cards = deck.size * deck.copies
    if per_seat * players != deck_cards:
        problem(("flow",), f"the flow deals {per_seat} cards to each of {players} players "
                           f"({per_seat * players}), but the deck has {deck_cards}")
    for step in ("auction", "trump", "play"):
        if flow.count(step) != 1:
            problem(("flow",), f"the flow must have exactly one '{step}' step")
    if all(s in flow for s in ("auction", "trump", "play")):
        if not flow.index("auction") < flow.index("trump") < flow.index("play"):
            problem(("flow",), "the flow must hold auction, then trump, then play")
        if isinstance(flow[0], str):
            problem(("flow", 0), "the flow must start by dealing cards")
        if any(isinstance(s, dict) for s in flow[flow.index("play"):]):
            problem(("flow",), "every card must be dealt before play")
    last_trick = dk.get("last_trick", 0)
    total = deck.total_points() + last_trick
    if "total" in dk and dk["total"] != total:
        problem(("deck", "total"), f"the deck's points add up to {deck.total_points()}"
                                   f"{f' + {last_trick} for the last trick' if last_trick else ''}"
                                   f" = {total}, not {dk['total']}")
    au = data["auction"]
    min_bid, max_bid, step = au["min_bid"], au["max_bid"], au.get("step", 1)
    if min_bid > max_bid:
        problem(("auction", "min_bid"), f"min_bid {min_bid} is above max_bid {max_bid}: no bid is possible")
    tricks = per_seat
    decls_data = data.get("declarations", {}) or {}
    if problems:
        raise VariantError(problems)

    comp = Compiler(deck, players, tricks, min_bid, max_bid, declarations=list(decls_data), options=opts)
    names = {}

    def add(hook, p, kind, text):
        try:
            names[hook] = comp.add(hook, text, kind)
        except DSLError as e:
            loc = at(*p)
            if p in locs:
                line, col = loc.inner(e.line, e.column)
            else:
                line, col = loc.line, loc.column
            problems.append(Problem(loc.file, line, col, f"{'.'.join(p)}: {e.message}"))

    for hook, (p, kind, default) in HOOKS.items():
        node = data
        for k in p:
            node = node.get(k) if isinstance(node, dict) else None
        if node is None:
            if default is None:
                problem(p, f"{'.'.join(p)} is required")
                continue
            node = default
        add(hook, p, kind, node)
    for dname, d in decls_data.items():
        add(f"declare.{dname}.when", ("declarations", dname, "when"), BOOL, d["when"])
        add(f"declare.{dname}.effect", ("declarations", dname, "effect"), "effect", d["effect"])
    if problems:
        raise VariantError(problems)
    built = comp.build()
    rules = {hook: built[fn].fn for hook, fn in names.items()}
    sources = {hook: built[fn].source for hook, fn in names.items()}
    decls = [Declaration(n, d.get("description", ""), rules[f"declare.{n}.when"],
                         rules[f"declare.{n}.effect"]) for n, d in decls_data.items()]
    return Variant(
        name=str(data["name"]), title=data.get("title", str(data["name"])), path=path, data=data,
        options=opts, players=players, direction=data.get("direction", "clockwise"), deck=deck,
        flow=flow, tricks=tricks, last_trick=last_trick, total=total, min_bid=min_bid,
        max_bid=max_bid, bid_step=step, trump_mode=data["trump"]["mode"], declarations=decls,
        score_unit=data["match"].get("score", "side"), score_start=data["match"].get("start", 0),
        rules=rules, sources=sources)


def check_files(paths) -> list[Problem]:
    """Load each file; return every problem found (empty when all are valid)."""
    out = []
    for p in paths:
        try:
            load_variant(p)
        except VariantError as e:
            out.extend(e.problems)
    return out
