"""Scoring: the deal's score (docs/rules.md §0.9: whether the contract is made, and the
variant's effect on the match score) and the match's rules (its end, the next dealer):
the ``scoring:`` and ``match:`` rules (`HOOKS`) and fields (`load`), scoring a finished
deal (`score`), and the rulebook's words (`words`). The match itself is engine.Match.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .dsl import BOOL, SEAT, names, parser
from .dsl.check import define_signature
from .dsl.pyast import parse
from .mechanic import Mechanic
from .wording import rule_of

# hook -> (path in the file, expected kind, default rule text or None if required; "" an
# optional hook that does nothing when absent)
HOOKS = {
    "scoring.made": (("scoring", "made"), BOOL, "points(declarer_side) >= target"),
    "scoring.effect": (("scoring", "effect"), "effect", None),
    "match.ends": (("match", "ends"), BOOL, None),
    "match.next_dealer": (("match", "next_dealer"), SEAT, ""),
}
# hook -> the names of another hook that its rule may also use (dsl.Compiler.add's extra):
# the next dealer is asked on the scored deal, with ``made``
EXTRA_NAMES = {"match.next_dealer": "scoring.effect"}


def load(c) -> dict:
    """The Variant's scoring fields from the ``match:`` section (``c``: a loader.Checks):
    ``score_unit`` (``side`` or ``seat``; ``seat`` by default when each player plays for
    himself), ``score_start``, ``max_deals``."""
    match = c.data["match"]
    default = "seat" if c.data.get("partnership") == "individual" else "side"
    return dict(score_unit=match.get("score", default), score_start=match.get("start", 0),
                max_deals=match.get("max_deals", 1000))


def lowest_wins(data: dict) -> bool:
    """Whether a variant's merged file ``data`` says the lowest score wins the match
    (``match.winner: lowest``; the default is ``highest``)."""
    return (data.get("match") or {}).get("winner", "highest") == "lowest"


# the State's counts that the DSL's functions read (dsl/names.py), by what they count:
# points(side) and seat_points(seat) card points; tricks_won(side) and seat_tricks(seat)
# tricks
_UNIT_OF = {"side_points": "points", "seat_points": "points", "side_tricks": "tricks", "tricks": "tricks"}


def target_unit(source: str | None) -> str | None:
    """What the contract's target counts, read from the compiled ``scoring.made`` rule
    (its generated Python ``source``): ``"points"`` when every comparison with the
    target compares card points (``points(declarer_side) >= target``), ``"tricks"`` when
    every one compares tricks (``tricks_won(declarer_side) >= target``), else None (no
    comparison with the target, or both kinds). A condition beside the comparison (304's
    slam: all the tricks) does not count: only the operands next to ``target``."""
    if not source:
        return None
    units = set()
    for node in ast.walk(parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for i, x in enumerate(operands):
            if not any(isinstance(n, ast.Attribute) and n.attr == "target" for n in ast.walk(x)):
                continue    # not an operand that reads the target (``target``, ``target - 1``)
            for other in operands[max(i - 1, 0):i] + operands[i + 1:i + 2]:
                units |= {_UNIT_OF[n.attr] for n in ast.walk(other)
                          if isinstance(n, ast.Attribute) and n.attr in _UNIT_OF}
    return units.pop() if len(units) == 1 else None


def made_units(v) -> frozenset[str]:
    """What the compiled ``scoring.made`` rule of variant ``v`` counts: ``"points"`` when it
    reads card points (``points(...)``, ``seat_points(...)``), ``"tricks"`` when it reads
    tricks (``tricks_won(...)``, ``seat_tricks(...)``); both, or neither (a rule of
    declarations or of the bid alone)."""
    source = v.sources.get("scoring.made")
    if not source:
        return frozenset()
    return frozenset(_UNIT_OF[n.attr] for n in ast.walk(parse(source))
                     if isinstance(n, ast.Attribute) and n.attr in _UNIT_OF)


def made_decided_by_names(v) -> bool:
    """Whether the ``scoring.made`` rule of variant ``v``, as the file writes it, reads
    no card points and no tricks itself but reads a named expression (``define:``) or a
    variable of the file (``pts(declarer) >= bid``): what it counts is then the file's
    own, not the card points or tricks the compiled rule may read inside them (so the
    replay does not print those as if they decided it)."""
    text = (v.data.get("scoring") or {}).get("made")
    if text is None or isinstance(text, bool):
        return False
    own = {define_signature(str(k))[0] for k in (v.data.get("define") or {})} | {x.name for x in v.variables}
    read, units = set(), set()
    for node in parser().parse(str(text), start="expr_rule").iter_subtrees():
        if node.data not in ("name", "call"):
            continue
        name = str(node.children[0])
        read.add(name)
        entry = names.FUNCTIONS.get(name) if node.data == "call" else NAME_ENTRIES.get(name)
        if entry is not None and name not in own:
            units |= {_UNIT_OF[r] for r in entry.reads if r in _UNIT_OF}
    return not units and bool(read & own)


def score(s) -> None:
    """Score the finished deal ``s`` (a State whose deal is over; the cards set aside
    already counted, as the mechanics before this one finish: widow.finish):
    ``scoring.made`` decides ``s.made`` and ``scoring.effect`` changes the scores. A deal
    thrown in (nobody bid) scores nothing; a deal without a contract (a declaration's
    ``declarer = none``, or a variant with neither an auction nor ``contract:``) is scored
    by ``scoring.effect`` alone, with ``me`` none and ``made`` false (``s.made`` stays
    None)."""
    v = s.v
    if s.declarer < 0:
        if s.taken_over is not None or not v.has_contract:  # played without a contract
            v.rules["scoring.effect"](s, -1, False, None)
        return
    made = bool(v.rules["scoring.made"](s, s.declarer, None, None))
    s.made = made
    v.rules["scoring.effect"](s, s.declarer, made, None)


def _reads_made(v) -> bool:
    """Whether a rule of ``v`` that is told whether the contract is made reads it
    (``made`` in ``scoring.effect``, ``match.next_dealer`` or a named expression)."""
    texts = [(v.data.get("scoring") or {}).get("effect"), (v.data.get("match") or {}).get("next_dealer"),
             *(v.data.get("define") or {}).values()]   # a named expression they use may read it
    return any("made" in _NAMES_IN.findall(str(text or "")) for text in texts)


# the names in a rule's text (a comment's or a string's words count too: `_reads_made` may
# say a rule reads ``made`` when it does not, never the reverse)
_NAMES_IN = re.compile(r"[a-z_][a-z0-9_]*")
NAME_ENTRIES = {e.name: e for e in names.NAME_ENTRIES}
def start(s, carried) -> None:
    """Nothing made or lost as a deal starts."""
    s.made = None


def words(v) -> list[tuple[str, str]]:
    """The rulebook's ``Scoring`` and ``Match`` sections of variant ``v``, as
    [(title, Markdown text)]."""
    made = rule_of(v, 'scoring', 'made')
    if made is None and _reads_made(v):    # the engine's rule when the file gives none
        made = rule_of(v, 'scoring', 'made', default=HOOKS["scoring.made"][2])
        sc = [f"The contract is made when {made} (the rule when a file states none).", "Then:\n"]
    elif made is None:    # no rule reads it: it says only how the records and replay count the deal
        made = rule_of(v, 'scoring', 'made', default=HOOKS["scoring.made"][2])
        sc = [f"No rule reads whether the contract is made; the records and the replay count it made when "
              f"{made} (the rule when a file states none).", "After the last trick:\n"]
    else:
        sc = [f"The contract is made:\n{made}" if "\n" in made else f"The contract is made when: {made}.",
              "Then:\n"]
    if not v.has_contract:
        sc = ["After the last trick:\n"]
    sc[-1] += rule_of(v, "scoring", "effect", effect=True)
    unit = "each side" if v.score_unit == "side" else "each player"
    return [("Scoring", "\n".join(sc)),
            ("Match", f"Scores are kept for {unit}, starting at {v.score_start}. The match ends "
                      f"when: {rule_of(v, 'match', 'ends')}. Every {'side' if v.score_unit == 'side' else 'player'}"
                      f" with the {'lowest' if lowest_wins(v.data) else 'top'} score wins.")]


@dataclass(frozen=True, eq=False, kw_only=True)
class ScoringFields:
    """Scoring's fields of a Variant (`Mechanic.variant`): the ``match:`` section (`load`)
    and what the compiled ``scoring.made`` rule counts (`target_unit`)."""
    score_unit: str
    score_start: int
    max_deals: int
    # what the contract's target counts: "points", "tricks" or None
    target_unit: str | None = None


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'scoring': {'type': 'object',
                            'additionalProperties': False,
                            'required': ['effect'],
                            'properties': {'made': {'$ref': '#/$defs/rule'},
                                           'effect': {'$ref': '#/$defs/rule'}}},
                'match': {'type': 'object',
                          'additionalProperties': False,
                          'required': ['ends'],
                          'properties': {'score': {'enum': ['side', 'seat']},
                                         'start': {'type': 'integer'},
                                         'ends': {'$ref': '#/$defs/rule'},
                                         'max_deals': {'type': 'integer',
                                                       'minimum': 1,
                                                       'maximum': 100000},
                                         'winner': {'enum': ['highest', 'lowest'],
                                                    'description': 'who wins when the match ends '
                                                                   'by its rule: the highest score '
                                                                   '(the default) or the lowest'},
                                         'next_dealer': {'$ref': '#/$defs/rule',
                                                         'description': 'the seat that deals next, '
                                                                        'decided from the deal '
                                                                        'just over (default: '
                                                                        'next(dealer))'}}}},
 'required': ['scoring', 'match']}


MECHANIC = Mechanic(
    "scoring", schema=SCHEMA, load=load, variant=ScoringFields,
    compiler=lambda c, fields: dict(score_unit=fields["score_unit"]),
    hooks=HOOKS, extra_names=EXTRA_NAMES,
    built=lambda c, rules, sources, paths: dict(target_unit=target_unit(sources.get("scoring.made"))),
    fields={"made": "="}, start=start, finish=score,
    view=lambda s, seat, tricks: {"score": s.seat_scores()}, words=words)
