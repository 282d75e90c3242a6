"""An action as a person's table shows it: its words and its key, drawn from the
variant's own action table (`Variant.action`: each action's ``kind`` and ``arg``,
interpreter/actions.py), so that a suit-first bid (``bid S 31``) reads "bid 31 ♠" as
``bid 31 S`` does and a new action kind reads as its text until it gets words here.

`describe(variant, text)` (or `Words(variant).describe(text)`, which reads the action
table once) -> {"action", "kind", "words", "key", "number", "denom", "card"}:

- ``words``: plain text with suit symbols (♠ ♥ ♦ ♣) and 10 for T: "bid 31 ♠", "pass",
  "lay J♥ face down as trump", "declare marriage ♦";
- ``key``: the keys that pick the action, typed one after the other (docs/web.md,
  "Play a seat"): a bid is its number's digits and then its denomination's letter
  (``31s``; ``n`` for NT, ``o`` for NOES: `denom_keys`), pass
  ``p``, double ``x``, redouble ``z``, a trump suit its letter, a card (played, taken,
  discarded, called, laid face down) its rank and suit (``jh``, ``th`` for 10♥),
  expose ``e``, done ``f``, the seventh card ``v``, a declaration ``g`` with its
  name's place among the variant's declarations and its suit (``g2d``), an answer
  ``w`` with the answer word's first letter (``wy``). Within the legal actions of one
  decision no key is another's prefix (tests/arena/test_table_actions.py checks every
  shipped variant);
- ``number``, ``denom``: a bid's number and denomination (None otherwise); ``card``:
  the card an action names.

A text the variant does not know (a public ``trump-card`` without its card, or no
variant at hand) keeps its text as words and gets no key.
"""

from __future__ import annotations

import re

CARD = re.compile(r"^[2-9TJQKA][SHDC]$")
SUIT_SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
# the keys of the kinds that have one key of their own
KIND_KEY = {"pass": "p", "double": "x", "redouble": "z", "expose": "e", "done": "f"}
# words of the kinds without an argument
KIND_WORDS = {"pass": "pass", "double": "double", "redouble": "redouble", "expose": "expose the trump",
              "done": "done"}
# a public action text that hides its argument
PUBLIC_WORDS = {"trump-card": "a trump card laid face down"}


def card_words(card: str) -> str:
    """``"TH"`` -> ``"10♥"``."""
    rank, suit = card[:-1], card[-1]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOL.get(suit, suit)


def card_key(card: str) -> str:
    """``"TH"`` -> ``"th"``: the rank's letter or digit, then the suit's letter."""
    return card.lower()


def denom_words(d: str) -> str:
    return SUIT_SYMBOL.get(d, d)


def denom_keys(variant) -> dict[str, str]:
    """Each bid denomination of ``variant`` -> its letter: a suit's own; for a name (NT,
    NOES), in the action table's order, the first of its letters not taken yet
    (NT ``n``, then NOES ``o``)."""
    denoms = list(dict.fromkeys(a.arg[1] for a in variant.actions if a.kind == "bid" and a.arg[1]))
    keys = {d: d.lower() for d in denoms if d in SUIT_SYMBOL}
    for d in denoms:
        if d not in keys:
            free = [ch for ch in d.lower() if ch.isalpha() and ch not in keys.values()]
            keys[d] = free[0] if free else d.lower()
    return keys


class Words:
    """`describe` for one variant, with what it reads from the whole action table (the
    denominations' letters, the declarations' order) worked out once: a table folds
    every request with it (56: 290 legal actions a call)."""

    def __init__(self, variant):
        self.variant = variant
        self.denoms = denom_keys(variant) if variant is not None else {}
        self.declarations = declaration_names(variant) if variant is not None else []

    def describe(self, text: str) -> dict:
        return describe(self.variant, text, self)


def describe(variant, text: str, words: Words | None = None) -> dict:
    """The words and key of action ``text`` of ``variant`` (a loaded Variant, or None):
    see the module's docstring. ``words``: the variant's `Words` (else worked out here)."""
    out = {"action": text, "kind": text.partition(" ")[0], "words": PUBLIC_WORDS.get(text, text), "key": None,
           "number": None, "denom": None, "card": None}
    a = None
    if variant is not None:
        try:
            a = variant.action(text)
        except Exception:       # not in the action table: its text is its words
            a = None
    if a is None:
        return out
    if words is None:
        words = Words(variant)
    kind, arg = a.kind, a.arg
    out["kind"] = kind
    if kind in KIND_KEY:
        out["words"], out["key"] = KIND_WORDS[kind], KIND_KEY[kind]
    elif kind == "bid":
        number, denom = arg
        out["number"], out["denom"] = number, denom
        out["words"] = f"bid {number}" + (f" {denom_words(denom)}" if denom else "")
        out["key"] = str(number) + (words.denoms[denom] if denom else "")
    elif kind == "trump":
        out["words"], out["key"] = f"trump {denom_words(arg)}", arg.lower()
    elif kind in ("play", "take", "discard", "call-partner", "trump-card") and isinstance(arg, str) and CARD.match(arg):
        out["card"], out["key"] = arg, card_key(arg)
        out["words"] = {"play": "play {}", "take": "take {} from the widow", "discard": "put {} back",
                        "call-partner": "call {} (its holder is your partner)",
                        "trump-card": "lay {} face down as trump"}[kind].format(card_words(arg))
    elif kind == "trump-card":     # an ordinal of the dealt cards
        out["words"], out["key"] = f"the {arg} card dealt to you, face down, as trump", "v"
    elif kind == "declare":
        name, suit = arg
        names = words.declarations
        out["words"] = f"declare {name}" + (f" {denom_words(suit)}" if suit else "")
        out["key"] = f"g{names.index(name) + 1 if name in names else ''}" + (suit.lower() if suit else "")
    elif kind == "answer":
        name, word = arg
        out["words"], out["key"] = f"{word} ({name})", "w" + str(word)[:1].lower()
    return out


def declaration_names(variant) -> list[str]:
    """The names of ``variant``'s declarations, in its action table's order."""
    return list(dict.fromkeys(a.arg[0] for a in variant.actions if a.kind == "declare"))
