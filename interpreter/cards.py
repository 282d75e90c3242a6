"""Cards and decks (docs/rules.md §0.3).

A card is a small int: ``suit_index * len(ranks) + rank_index``, where ranks are listed
strongest first, so sorting card ids gives the canonical order of §0.10 (suits in the
deck's order, then strength high to low). Copies of a card in a double deck share one id
and one text form.
"""

from __future__ import annotations

from .errors import StateError

SUIT_LETTERS = ("S", "H", "D", "C")
RANK_LETTERS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")  # the 52-card pack
MAX_COPIES = 8  # copies of each card a deck may hold


class Deck:
    """The deck of a variant.

    suits: suit letters in display order (``S H D C``); ranks: rank letters, strongest
    first (``J 9 A T K Q 8 7``, or ``A K Q J T 9 8 7 6 5 4 3 2`` for a 52-card game; any ranks
    of RANK_LETTERS); copies: identical copies of each card (1..MAX_COPIES);
    points: rank -> card points (absent ranks score 0).
    """

    def __init__(self, suits, ranks, copies=1, points=None):
        self.suits = tuple(suits)
        self.ranks = tuple(ranks)
        self.copies = int(copies)
        self.points = {r: int(v) for r, v in (points or {}).items()}
        nr = len(self.ranks)
        self.size = len(self.suits) * nr  # distinct cards
        self.suit_index = {s: i for i, s in enumerate(self.suits)}
        self.rank_index = {r: i for i, r in enumerate(self.ranks)}
        self.text = [r + s for s in self.suits for r in self.ranks]
        self.card_index = {t: i for i, t in enumerate(self.text)}
        self.suit_of = [i // nr for i in range(self.size)]
        self.rank_of = [i % nr for i in range(self.size)]
        self.strength = [nr - (i % nr) for i in range(self.size)]  # higher is stronger
        self.point_of = [self.points.get(self.ranks[i % nr], 0) for i in range(self.size)]
        # trick_keys[trump][led][card]: the card's rank in a trick (§0.4) when every card
        # of the trump suit is a trump; trump -1 (no trump) is the last row
        ns = len(self.suits)
        self.trick_keys = [[[self.strength[c] + (200 if self.suit_of[c] == t else
                                                  100 if self.suit_of[c] == led else 0)
                             for c in range(self.size)] for led in range(ns)] for t in range(ns)]
        self.trick_keys.append([[self.strength[c] + (100 if self.suit_of[c] == led else 0)
                                 for c in range(self.size)] for led in range(ns)])
        # every card id, copies included, in canonical order (read only: see cards())
        self.all_cards = [c for c in range(self.size) for _ in range(self.copies)]
        # _CARD[rank][suit] -> card id, as the compiled rules use it
        self.card_table = [[s * nr + r for s in range(len(self.suits))] for r in range(nr)]

    def cards(self) -> list[int]:
        """Every card of the deck, copies included, in canonical order (a new list)."""
        return self.all_cards[:]

    def total_points(self) -> int:
        """Card points of the whole deck (copies included), without any trick bonus."""
        return sum(self.point_of) * self.copies

    def parse(self, text: str) -> int:
        """Card id of a text form like ``JH`` (a card id, an int, is itself). Raises
        StateError (a ValueError) for a card not in the deck."""
        if type(text) is int and 0 <= text < self.size:
            return text
        try:
            return self.card_index[text]
        except (KeyError, TypeError):   # not a card text (an unhashable value too)
            raise StateError(f"{text!r} is not a card of this deck") from None
