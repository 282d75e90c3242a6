"""The globals of compiled rules: the helpers their code calls (``names.HELPERS``), made
for one variant's deck and number of seats, and the helpers of the engine templates of
the fast path (`fastpath`).

Cards, seats and sets are small ints and sorted lists of them at run time; ``none`` is -1.
"""

from __future__ import annotations

from bisect import bisect_left

from . import names


def helpers(deck, players: int, denominations: dict[str, int]) -> dict:
    """The globals of the compiled module: names.HELPERS and nothing else (empty
    builtins). ``deck``: the variant's `Deck`; ``denominations``: the no-trump
    denominations' suit codes (negative)."""
    so = deck.suit_of

    def _not_in_suit(cards, suit):
        return [c for c in cards if so[c] != suit]

    def _only(cards, card):
        return [c for c in cards if c == card]

    g = {"__builtins__": {}, "len": len, "abs": abs, "max": max, "min": min,
         "_CARD": [row + [-1] for row in deck.card_table],
         "_SUIT_OF": deck.suit_of + [-1], "_RANK_OF": deck.rank_of + [-1],
         "_at": _at, "_played": _played, "_won": _won, "_holder": _holder_of(players),
         "_cards_won": _cards_won, "_side_cards_won": _side_cards_won,
         "_var_at": _var_at, "_var_set": _var_set,
         "_not_in_suit": _not_in_suit, "_only": _only, "_bisect": bisect_left}
    # in_suit's bounds by suit code; none (-1) and the no-trump codes (-2, ...) at the
    # end, read by negative index: 0..0, no card (names._in_suit_code)
    nranks, pad = len(deck.ranks), [0] * (1 - min(denominations.values(), default=-1))
    lo = g["_SUIT_LO"] = [i * nranks for i in range(len(deck.suits))] + pad
    hi = g["_SUIT_HI"] = [(i + 1) * nranks for i in range(len(deck.suits))] + pad
    g["_in_suit"] = _in_suit_of(lo, hi)
    g.update(seat_and_set_helpers(deck, players))
    assert set(g) - {"__builtins__"} == set(names.HELPERS)
    return g


def seat_and_set_helpers(deck, players: int) -> dict:
    """The helpers of seats and sets. Sets are sorted lists (card ids, seat numbers); each
    helper returns a new sorted list. A seat -1 (none) has no partner, partners or
    opponents."""
    n, cs, nr = players, deck.strength, len(deck.ranks)
    rs = [nr - r for r in range(nr)] + [0]   # a rank's strength; none (-1) is 0

    def _partner_of(side, seat):
        if seat < 0:
            return -1
        for k in range(1, n):
            t = (seat + k) % n
            if side[t] == side[seat]:
                return t
        return -1

    def _partners(side, seat):
        return [t for t in range(n) if t != seat and side[t] == side[seat]] if seat >= 0 else []

    def _opponents(side, seat):
        return [t for t in range(n) if side[t] != side[seat]] if seat >= 0 else []

    def _above(cards, rank):
        return [c for c in cards if cs[c] > rs[rank]]

    def _below(cards, rank):
        return [c for c in cards if cs[c] < rs[rank]]

    def _union(a, b):
        return sorted(a + [c for c in b if c not in a])

    def _difference(a, b):
        return [c for c in a if c not in b]

    def _intersection(a, b):
        return [c for c in a if c in b]

    return {"any": any, "all": all, "sorted": sorted, "_SEATS": list(range(n)),
            "_NEXT": [(i + 1) % n for i in range(n)] + [-1],
            "_PREVIOUS": [(i - 1) % n for i in range(n)] + [-1],
            "_partner_of": _partner_of, "_partners": _partners, "_opponents": _opponents,
            "_above": _above, "_below": _below, "_union": _union,
            "_difference": _difference, "_intersection": _intersection, "_STRENGTH": rs}


def _in_suit_of(lo: list[int], hi: list[int]):
    """``in_suit(cards, suit)`` for this deck, as a function (where the inline form of
    names._in_suit_code may not stand). Card lists in rules are always sorted (hands are
    kept sorted; every function keeps the order), and the cards of a suit are the
    contiguous ids ``lo[suit] .. hi[suit]``, so the suit's cards are one slice; ``lo``
    and ``hi`` end with zeros for the negative codes (none, no-trump): no card."""

    def in_suit(cards, suit):
        return cards[bisect_left(cards, lo[suit]):bisect_left(cards, hi[suit])]
    return in_suit


def _at(lst, i):
    return lst[i] if 0 <= i < len(lst) else 0


def _holder_of(players: int):
    """``holder_of(card)`` for this number of seats: the first seat from the eldest (the
    seat after ``dealer``) whose hand (a sorted list of card ids) holds ``card``, or -1."""
    def holder(hands, dealer, card):
        for k in range(1, players + 1):
            seat = (dealer + k) % players
            h = hands[seat]
            i = bisect_left(h, card)
            if i < len(h) and h[i] == card:
                return seat
        return -1
    return holder


def _cards_won(tricks, seat):
    """The cards (sorted ids) of the completed ``tricks`` ((leader, cards, winner) each)
    ``seat`` won; none for -1."""
    return sorted([c for t in tricks if t[2] == seat for c in t[1]])


def _side_cards_won(tricks, side, sd):
    """The cards (sorted ids) of the completed ``tricks`` won by a seat on side ``sd``
    (``side``: each seat's side now); none for -1."""
    return sorted([c for t in tricks if side[t[2]] == sd for c in t[1]])
def _var_at(values, i, empty):
    """A variable kept per seat or per side (a tuple): its value at ``i``, ``empty`` for an
    index out of range (none)."""
    return values[i] if 0 <= i < len(values) else empty


def _var_set(values, i, x):
    """The tuple ``values`` with ``x`` at ``i``; ``values`` itself for an index out of range."""
    return values[:i] + (x,) + values[i + 1:] if 0 <= i < len(values) else values


def _won(tricks, seat):
    """The number of completed ``tricks`` ((leader, cards, winner) each) ``seat`` won."""
    return sum(1 for t in tricks if t[2] == seat)


def _played(seats, cards, seat):
    """The card ``seat`` played to the current trick (``seats``/``cards`` in play order),
    or -1."""
    for i, t in enumerate(seats):
        if t == seat:
            return cards[i]
    return -1


def answers(s) -> list[int]:
    """The answers of the question pending (the ids of its answer actions): the play
    template's ``_answers``."""
    return [a.id for a in s.question[1].answer_actions]


def sorted_set(cards: list[int]) -> list[int]:
    """The play template's ``_sorted_set``: the distinct cards, sorted (a deck with
    copies)."""
    return sorted(set(cards))
