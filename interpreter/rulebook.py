"""A variant as a readable rulebook (Markdown), in plain words generated from the file:
deck and points, deal, auction, trump, play, declarations, scoring, match end.

`rulebook(variant)` -> list of (section title, text); `render(...)` -> Markdown;
`diff(variant, base)` -> Markdown of the sections that differ. Each game mechanic writes
its own sections, its words in the Players section and those of its flow steps
(`Mechanic.words`, ``players_words``, ``step_words``); this module puts them in the
order of the list of mechanics around the generic ones (players, deck, deal, options).
"""

from __future__ import annotations

from .loader import PARENT_RULES
from .mechanics import MECHANICS
from .variables import define_item
from .variant import Variant
from .wording import (RANK_NAMES, SUIT_NAMES, options_words, rule_of, rule_words,  # noqa: F401 (rule_words: the API)
                      seat_words)

# flow step (a step's name, or the key of a `declare:` / `widow:` step) -> its words
STEP_WORDS = {step: words for m in MECHANICS for step, words in m.step_words.items()}
# the mechanics' sections, in the rulebook's order after Deal
MECHANIC_WORDS = tuple(m.words for m in MECHANICS if m.words is not None)
# the mechanics' words in the Players section, after the number of players
PLAYERS_WORDS = tuple(m.players_words for m in MECHANICS if m.players_words is not None)


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
    players = "; ".join([f"{v.players} players"] + [words(v) for words in PLAYERS_WORDS])
    secs.append(("Players", f"{players}. Play goes {v.direction} (the turn passes from each seat "
                            "to the next)."))
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
    for st, written in zip(v.flow, v.data["flow"]):
        if isinstance(st, dict) and "deal" in st:
            packets = " then ".join(str(k) for k in st["deal"])
            steps.append(f"deal {sum(st['deal'])} cards to each player (packets of {packets}), "
                         "starting with the eldest")
        elif isinstance(st, dict):
            steps.append(STEP_WORDS["declare" if "declare" in st else "widow"](v, st))
        else:
            steps.append(STEP_WORDS[st](v, st))
        if written != st:   # a size that reads the deal's number: the first deal's
            steps[-1] += " (this in the first deal; the number of cards changes by deal: below)"
    nd = rule_of(v, "match", "next_dealer")
    nxt = seat_words(v, 1)   # Match.next_dealer: next(dealer) without a rule, or when it names none
    passes = (f"After each deal the deal passes to {nxt}. In order:" if nd is None else
              f"After each deal the next dealer is ({nxt} when none is named):\n{nd}\nIn order:"
              if "\n" in nd else f"After each deal the next dealer is {nd} ({nxt} when none "
              "is named). In order:")
    secs.append(("Deal", f"{passes}\n"
                 + "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps)) + _by_deal_words(v)))
    for mechanic_words in MECHANIC_WORDS:
        secs += mechanic_words(v)
    if v.data.get(PARENT_RULES):
        secs.append(("Inherited rules", "The rules above that read *the inherited rule* read, "
                     "where it stands, the rule they replace in the variant this one extends "
                     "(and, where that one reads it too, the rule it replaces in turn).\n" + "\n".join(
                         define_item(path + " (its inherited rule)" * i, rule_words(t, _is_effect(path)))
                         for path, chain in v.data[PARENT_RULES].items() for i, t in enumerate(chain))))
    if v.options:
        secs.append(("Options", options_words(v)))
    return secs


def _by_deal_words(v: Variant) -> str:
    """For a flow whose sizes read the deal's number (`Variant.deal_sizes`): each such
    size's rule in words, then the cards each player is dealt (and the widow's) in every
    deal of the match; else ""."""
    if v.deal_sizes is None:
        return ""
    lines = ["", "", "The number of cards changes from deal to deal:"]
    for i, st in enumerate(v.data["flow"]):
        for key in ("deal", "widow") if isinstance(st, dict) else ():
            sizes = st.get(key)
            many = isinstance(sizes, list)
            for j, text in enumerate(sizes if many else [sizes]):
                if isinstance(text, str):
                    what = (f"the cards each player is dealt{f' in packet {j + 1}' if len(sizes) > 1 else ''}"
                            if key == "deal" else "the cards dealt to the widow")
                    lines.append(f"- at step {i + 1}, {what}: {rule_words(text, False, v)}")
    deals = [v.for_deal(n) for n in range(len(v.deal_sizes))]
    lines.append(f"- by deal, from deal 1 to deal {len(deals)}: each player is dealt "
                 f"{', '.join(str(x.cards_per_seat) for x in deals)} cards (as many tricks)"
                 + (f"; the widow {', '.join(str(x.widow_size) for x in deals)}"
                    if any(x.widow_size for x in deals) else ""))
    return "\n".join(lines)


def _is_effect(path: str) -> bool:
    """Whether the rule at a dotted ``path`` of the file is an effect."""
    return path.endswith((".effect", ".after_trick", ".after_card"))


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
