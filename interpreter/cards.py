"""Cards and decks (docs/rules.md §0.3).

A card is a small int: ``suit_index * len(ranks) + rank_index``, where ranks are listed
strongest first, so sorting card ids gives the canonical order of §0.10 (suits in the
deck's order, then strength high to low). The ids cover every suit and rank of the deck
(the rectangle ``suits`` x ``ranks``) even when the deck holds only some of those cards
(a deck written card by card, or less named cards): an id the deck does not hold is never
dealt, and its text is not a card of the deck (`Deck.parse`). Copies of a card (a double
deck, or a card written twice) share one id and one text form; ``Deck.count`` says how many
the deck holds.
"""

from __future__ import annotations

from .errors import StateError

SUIT_LETTERS = ("S", "H", "D", "C")
RANK_LETTERS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")  # the 52-card pack
MAX_COPIES = 8  # copies of each card a deck may hold


def card_parts(text) -> tuple[str, str] | None:
    """(rank, suit) of a card text of the 52-card pack (``QS`` -> ("Q", "S")), or None
    for text that is not one."""
    if isinstance(text, str) and len(text) == 2 and text[0] in RANK_LETTERS and text[1] in SUIT_LETTERS:
        return text[0], text[1]
    return None


class Deck:
    """The deck of a variant.

    suits: suit letters in display order (``S H D C``); ranks: rank letters, strongest
    first (``J 9 A T K Q 8 7``, or ``A K Q J T 9 8 7 6 5 4 3 2`` for a 52-card game; any ranks
    of RANK_LETTERS); copies: identical copies of each card (1..MAX_COPIES).

    Which cards: by default every card of ``suits`` x ``ranks``; ``cards``, a list of card
    texts, gives them one by one instead (a card written twice is held twice). Either is
    taken ``copies`` times; then every copy of each card of ``exclude`` is removed, and each
    card of ``extra`` is added once (a card the deck holds gains a copy). Every card named
    must be of ``suits`` and ``ranks`` (its rank's place there gives its strength); the
    variant's loading checks that, with the file's positions, before a Deck is made (a
    card that is not is left out here).

    points: card points by key, each a rank (``"A": 11``: every card of the rank), a suit
    (``"H": 1``: every card of the suit) or a card (``"QS": 13``). The most particular key
    counts, not their sum: a card's own value, else its suit's, else its rank's, else 0
    (so ``QS: 13`` with ``Q: 2`` makes the queen of spades worth 13, as it is written).
    """

    def __init__(self, suits, ranks, copies=1, points=None, cards=None, exclude=(), extra=()):
        self.suits = tuple(suits)
        self.ranks = tuple(ranks)
        self.copies = int(copies)
        self.points = {str(k): int(v) for k, v in (points or {}).items()}
        nr = len(self.ranks)
        self.size = len(self.suits) * nr  # distinct card ids (the rectangle suits x ranks)
        self.suit_index = {s: i for i, s in enumerate(self.suits)}
        self.rank_index = {r: i for i, r in enumerate(self.ranks)}
        self.text = [r + s for s in self.suits for r in self.ranks]
        every = {t: i for i, t in enumerate(self.text)}
        # count[card id]: the copies the deck holds (0: a card of the rectangle left out)
        count = [0] * self.size
        for t in (self.text if cards is None else cards):
            if t in every:
                count[every[t]] += 1
        count = [k * self.copies for k in count]
        for t in exclude:
            if t in every:
                count[every[t]] = 0
        for t in extra:
            if t in every:
                count[every[t]] += 1
        self.count = count
        self.ids = [c for c in range(self.size) if count[c]]  # the distinct cards held
        self.max_copies = max(count, default=0)
        self.whole = all(k == self.copies for k in count)  # every card of the rectangle, `copies` times
        self.card_index = {self.text[c]: c for c in self.ids}
        self.suit_of = [i // nr for i in range(self.size)]
        self.rank_of = [i % nr for i in range(self.size)]
        self.strength = [nr - (i % nr) for i in range(self.size)]  # higher is stronger
        pts = self.points

        def value(c):
            t = self.text[c]
            return pts.get(t, pts.get(t[1], pts.get(t[0], 0)))
        self.point_of = [value(c) for c in range(self.size)]
        # trick_keys[trump][led][card]: the card's rank in a trick (§0.4) when every card
        # of the trump suit is a trump; trump -1 (no trump) is the last row
        ns = len(self.suits)
        self.trick_keys = [[[self.strength[c] + (200 if self.suit_of[c] == t else
                                                  100 if self.suit_of[c] == led else 0)
                             for c in range(self.size)] for led in range(ns)] for t in range(ns)]
        self.trick_keys.append([[self.strength[c] + (100 if self.suit_of[c] == led else 0)
                                 for c in range(self.size)] for led in range(ns)])
        # every card id, copies included, in canonical order (read only: see cards())
        self.all_cards = [c for c in range(self.size) for _ in range(count[c])]
        # _CARD[rank][suit] -> card id, as the compiled rules use it
        self.card_table = [[s * nr + r for s in range(len(self.suits))] for r in range(nr)]

    def cards(self) -> list[int]:
        """Every card of the deck, copies included, in canonical order (a new list)."""
        return self.all_cards[:]

    def total_points(self) -> int:
        """Card points of the whole deck (copies included), without any trick bonus."""
        po = self.point_of
        return sum(po[c] for c in self.all_cards)

    def parse(self, text: str) -> int:
        """Card id of a text form like ``JH`` (a card id, an int, is itself). Raises
        StateError (a ValueError) for a card not in the deck."""
        if type(text) is int and 0 <= text < self.size and self.count[text]:
            return text
        try:
            return self.card_index[text]
        except (KeyError, TypeError):   # not a card text (an unhashable value too)
            raise StateError(f"{text!r} is not a card of this deck") from None
