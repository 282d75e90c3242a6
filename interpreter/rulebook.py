"""A variant as a readable rulebook (Markdown), in plain words generated from the file:
deck and points, deal, auction, trump, play, declarations, scoring, match end.

`rulebook(variant)` -> list of (section title, text); `render(...)` -> Markdown;
`diff(variant, base)` -> Markdown of the sections that differ. Each game mechanic writes
its own sections and the words of its flow steps (its ``words`` and ``STEP_WORDS``); this
module puts them in order around the generic ones (players, deck, deal, named
expressions, variables, options).
"""

from __future__ import annotations

from . import auction, bids, declarations, partner, play, scoring, trump, widow
from .variables import variables_words
from .variant import Variant
from .wording import RANK_NAMES, SUIT_NAMES, name_words, rule_of, rule_words  # noqa: F401 (rule_words: the API)

# flow step (a step's name, or the key of a `declare:` / `widow:` step) -> its words
STEP_WORDS = {**auction.STEP_WORDS, **trump.STEP_WORDS, **play.STEP_WORDS, **widow.STEP_WORDS,
              **partner.STEP_WORDS, **declarations.STEP_WORDS,
              **bids.STEP_WORDS}  # bids mechanic wiring
# the mechanics' sections, in the rulebook's order after Deal
MECHANIC_WORDS = (auction.words, bids.words,  # bids mechanic wiring
                  trump.words, play.words, declarations.words, scoring.words)


def card_words(text: str) -> str:
    """A card in words: ``QS`` -> "the queen of spades"."""
    return f"the {RANK_NAMES.get(text[0], text[0])} of {SUIT_NAMES.get(text[1], text[1])}"


def _points_words(key: str, value: int) -> str:
    """One entry of ``deck.points`` in words: a rank (``jack 3``), a suit (``every heart
    1``) or a card (``the queen of spades 13``)."""
    if len(key) == 2:
        return f"{card_words(key)} {value}"
    if key in SUIT_NAMES:
        return f"every {SUIT_NAMES[key][:-1]} {value}"
    return f"{RANK_NAMES.get(key, key)} {value}"


# the further copies of a card a deck holds, in words (a deck holds at most MAX_COPIES)
_MORE_COPIES = {1: "another copy", 2: "two more copies", 3: "three more copies", 4: "four more copies",
                5: "five more copies", 6: "six more copies", 7: "seven more copies"}


def _deck_words(d) -> str:
    """What a deck that is not every card of suits x ranks holds, in words ("" for one
    that is): the cards missing from the rectangle, and the cards held more often than
    ``copies`` (each with the number of its further copies)."""
    if d.whole:
        return ""
    missing = [d.text[c] for c in range(d.size) if not d.count[c]]
    more = [(d.text[c], d.count[c] - d.copies) for c in d.ids if d.count[c] > d.copies]
    out = []
    if len(missing) > len(d.ids):   # fewer cards held than left out: name those held
        out.append("only these: " + " ".join(d.text[c] for c in d.ids))
    elif missing:
        out.append("without " + ", ".join(map(card_words, missing)))
    if more:
        out.append("with " + ", ".join(f"{_MORE_COPIES.get(n, f'{n} more copies')} of {card_words(t)}"
                                       for t, n in more)
                   + ("" if d.copies > 1 else " (of identical cards the first played wins)"))
    return "; " + "; ".join(out)


def rulebook(v: Variant) -> list[tuple[str, str]]:
    """The sections of the rulebook: [(title, Markdown text)]."""
    d = v.deck
    secs = []
    secs.append(("Players", f"{v.players} players; {partner.PARTNERSHIP_WORDS[v.partnership]}. Play goes "
                 f"{v.direction} (the turn passes from each seat to the next)."))
    pts = ", ".join(_points_words(k, p) for k, p in d.points.items() if p)
    unpointed = any(not d.point_of[c] for c in d.ids)
    copies = {1: "", 2: ", two copies of each card (of two identical cards the first played wins)"}.get(
        d.copies, f", {d.copies} copies of each card (of identical cards the first played wins)")
    deck = (f"{len(d.all_cards)} cards: {' '.join(d.ranks)} (strongest first) in "
            f"{', '.join(SUIT_NAMES.get(s, s) for s in d.suits)}{copies}{_deck_words(d)}.\n"
            + (f"Points: {pts}{'; other cards 0' if unpointed else ''}." if pts else "No card has points.")
            + (f" The last trick is worth {v.last_trick}." if v.last_trick else "")
            + (f" {v.total} points in all." if v.total else ""))
    if sum(map(bool, (any(k in d.ranks for k in d.points), any(k in d.suits for k in d.points),
                      any(len(k) == 2 for k in d.points)))) > 1:
        deck += (" A card's own value counts over its suit's, and a suit's over its rank's "
                 "(they do not add up).")
    secs.append(("Deck and points", deck))
    steps = []
    for st in v.flow:
        if isinstance(st, dict) and "deal" in st:
            packets = " then ".join(str(k) for k in st["deal"])
            steps.append(f"deal {sum(st['deal'])} cards to each player (packets of {packets}), "
                         "starting with the eldest")
        elif isinstance(st, dict):
            steps.append(STEP_WORDS["declare" if "declare" in st else "widow"](v, st))
        else:
            steps.append(STEP_WORDS[st](v, st))
    nd = rule_of(v, "match", "next_dealer")
    passes = ("The dealer passes to the next seat after each deal. In order:" if nd is None else
              f"After each deal the next dealer is (the next seat when none is named):\n{nd}\nIn order:"
              if "\n" in nd else f"After each deal the next dealer is {nd} (the next seat when none "
              "is named). In order:")
    secs.append(("Deal", f"{passes}\n"
                 + "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps))))
    for mechanic_words in MECHANIC_WORDS:
        secs += mechanic_words(v)
    if v.data.get("define"):
        secs.append(("Named expressions", "Used by name in the rules above.\n" + "\n".join(
            _define_item(name_words(k), rule_words(text)) for k, text in v.data["define"].items())))
    if v.variables:
        secs.append(("Variables", variables_words(v)))
    if v.options:
        secs.append(("Options", "Change one with `--set NAME=VALUE`.\n" + "\n".join(
            f"- `{k}`: {str(val).lower() if isinstance(val, bool) else val}" for k, val in v.options.items())))
    return secs


def _define_item(name: str, text: str) -> str:
    """One named expression as one item of the list: a rule of several lines (cases, a
    ``let``) indented under it, so that its lines stay its own."""
    if "\n" not in text:
        return f"- *{name}*: {text}"
    return f"- *{name}*:\n" + "\n".join(f"  {line}" if line.startswith("- ") else f"  - {line}"
                                        for line in text.splitlines())


def render(v: Variant) -> str:
    """The whole rulebook as Markdown."""
    head = f"# {v.title}\n\n" + (f"Source: {v.data['source']}.\n\n" if v.data.get("source") else "")
    return head + "\n\n".join(f"## {t}\n\n{body}" for t, body in rulebook(v)) + "\n"


def diff(v: Variant, base: Variant) -> str:
    """Markdown of the sections of ``v`` that differ from ``base``, each with the base's
    version quoted after it."""
    mine, theirs = dict(rulebook(v)), dict(rulebook(base))
    mine_name, their_name = v.title, base.title
    if mine_name == their_name:     # a copy that kept its title: named by file (or name) too
        mine_name, their_name = f"{v.title} ({v.ref})", f"{base.title} ({base.ref})"
    out = [f"# {mine_name}: how it differs from {their_name}\n"]
    same = True
    for title, body in rulebook(v):
        if theirs.get(title) != body:
            same = False
            out.append(f"## {title}\n\n{body}\n")
            if title in theirs:
                quoted = "\n".join(f"> {line}" for line in theirs[title].splitlines())
                out.append(f"Instead of ({base.title}):\n\n{quoted}\n")
    for title in theirs:
        if title not in mine:
            same = False
            quoted = "\n".join(f"> {line}" for line in theirs[title].splitlines())
            out.append(f"## {title}\n\nNone.\n\nInstead of ({base.title}):\n\n{quoted}\n")
    if same:
        out.append("No difference.\n")
    return "\n".join(out)
