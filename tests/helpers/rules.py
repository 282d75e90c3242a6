"""Shared helpers and hand-built deals for the rule tests (tests/rules/test_rules_*.py,
tests/rules/test_house_29.py).

Every deal below is written out card by card so the tests control who holds what. A
seat's list is in the order dealt (docs/rules.md §0.7): the first four cards are the first
packet (held during the auction; the hidden trump card of §28.5 comes from them), the
last four the second packet. All deals use dealer 3, so seat 0 is the eldest (§0.2): it
calls first and leads trick 1.

Expected values in the tests are worked out by hand from docs/rules.md; the trick-by-trick
comments next to each deal give the reasoning (points: J3 9=2 A1 T1, strength
J 9 A T K Q 8 7, §0.3, §29.2).
"""

from __future__ import annotations

import random

import pytest

from taash.interpreter import IllegalActionError, InvalidActionError, Match, State, load_variant

_VARIANTS: dict = {}


def variant(name: str):
    """load_variant, cached per name (a Variant is read-only)."""
    if name not in _VARIANTS:
        _VARIANTS[name] = load_variant(name)
    return _VARIANTS[name]


def hands(*rows: str) -> list[list[str]]:
    """Four whitespace-separated card lists -> the `hands` argument of State."""
    assert len(rows) == 4
    out = [r.split() for r in rows]
    assert all(len(h) == 8 for h in out), out
    return out


def new_state(name: str, rows, dealer: int = 3, scores=None) -> State:
    """A deal of variant `name` with the given hands (a list of lists or of strings)."""
    hs = [r.split() if isinstance(r, str) else list(r) for r in rows]
    return State(variant(name), dealer=dealer, hands=hs, scores=scores)


def do(st: State, *steps: str) -> State:
    """Apply steps written "SEAT ACTION" (e.g. "0 bid 15", "2 play JS"), checking that
    SEAT is the seat to act before each one."""
    for step in steps:
        seat, action = step.split(" ", 1)
        assert st.to_act == int(seat), f"expected seat {seat} to act for {action!r}, not {st.to_act}"
        st.apply(action)
    return st


def trick(st: State, leader: int, cards: str) -> int:
    """Play one whole trick: `cards` in playing order from `leader` (turn order
    next(s) = s+1, §0.1). Returns the winner the engine recorded."""
    n = len(st.tricks)
    for i, c in enumerate(cards.split()):
        seat = (leader + i) % 4
        assert st.to_act == seat, f"expected seat {seat} to play {c}, not {st.to_act}"
        st.apply("play " + c)
    assert len(st.tricks) == n + 1
    return st.tricks[-1][2]


def plays(cards: str) -> list[str]:
    """'JS 9S' -> ['play JS', 'play 9S']."""
    return ["play " + c for c in cards.split()]


def bids(lo: int, hi: int) -> list[str]:
    return [f"bid {b}" for b in range(lo, hi + 1)]


def illegal(st: State, action: str, error=None) -> None:
    """`action` must be refused and leave the state unchanged: with IllegalActionError if
    it is an action of the variant (not legal now), else InvalidActionError."""
    if error is None:
        error = IllegalActionError if action in st.v.action_map else InvalidActionError
    before = (st.to_act, st.phase, list(st.legal_actions()), len(st.history))
    with pytest.raises(error) as e:
        st.apply(action)
    assert e.value.legal == before[2]
    assert (st.to_act, st.phase, list(st.legal_actions()), len(st.history)) == before


def card_ids(st: State, cards: str) -> list[int]:
    return sorted(st.v.deck.parse(c) for c in cards.split())


def hand_of(st: State, seat: int) -> set[str]:
    return {st.v.deck.text[c] for c in st.hands[seat]}


def play_out(st: State, rng: random.Random, max_steps: int = 500) -> State:
    """Play random legal actions to the end of the deal."""
    for _ in range(max_steps):
        if st.is_terminal:
            return st
        st.apply(rng.choice(st.legal_actions()))
    raise AssertionError("deal did not end")


def match_with(name: str, scores, seed: int = 0) -> Match:
    m = Match(variant(name), seed)
    m.scores = list(scores)
    return m


# ---------------------------------------------------------------------------------------
# G5 (docs/rules.md §G): every seat holds two cards of each suit and every trick is four
# cards of one suit, so everybody follows and trump never matters. Side 0 (seats 0, 2)
# takes JS 9S AS TS (7), JH 7H 8H QH (3), 9D KD 8D 7D (2) and the last trick
# AC TC KC QC (2 + 1): 15; side 1 takes the rest: 14.
G5_HANDS = hands(
    "JS QS 7H AH 9D AD TC 9C",
    "9S KS 8H TH KD JD KC 8C",
    "AS 8S JH KH 8D TD AC 7C",
    "TS 7S QH 9H 7D QD QC JC",
)
# (leader, cards in playing order, winner by §0.3/§0.4, card points)
G5_TRICKS = [
    (0, "JS 9S AS TS", 0, 7),   # J highest
    (0, "QS KS 8S 7S", 1, 0),   # K over Q 8 7
    (1, "TH KH 9H AH", 3, 4),   # 9 over A T K
    (3, "QH 7H 8H JH", 2, 3),   # J
    (2, "8D 7D 9D KD", 0, 2),   # 9 over K 8 7
    (0, "AD JD TD QD", 1, 5),   # J
    (1, "8C 7C JC 9C", 3, 5),   # J
    (3, "QC TC KC AC", 2, 2),   # A over T K Q; last trick: +1 in 29
]
# Per seat, with the last-trick point (29): s0 7+2=9, s1 0+5=5, s2 3+2+1=6, s3 4+5=9.


def play_tricks(st: State, tricks) -> State:
    """Play (leader, cards, winner, points) tricks, checking each hand-worked winner
    (None: not checked here)."""
    for leader, cards, winner, _ in tricks:
        got = trick(st, leader, cards)
        if winner is not None:
            assert got == winner, f"trick {cards}: expected seat {winner} to win, not {got}"
    return st


def play_g5(st: State) -> State:
    """Trump S is safe in G5: the spade K and Q are split (s1 KS, s0 QS), no royals."""
    return play_tricks(st, G5_TRICKS)


# ---------------------------------------------------------------------------------------
# G6 first half: bid 15 by seat 0, trump H; seat 1 (the other side) holds KH QH and shows
# royals after winning trick 1: target 19. Side 0 takes 18, side 1 11.
G6A_HANDS = hands(
    "9D QD JS KS JH TH KC TC",
    "JD KD 9S QS KH QH AC QC",
    "AD 8D AS 8S 9H 8H JC 7C",
    "TD 7D TS 7S AH 7H 8C 9C",
)
G6A_TRICKS = [
    (0, "9D JD AD TD", 1, 7),   # JD; seat 1 declares royals at its lead of trick 2
    (1, "KD 8D 7D QD", 1, 0),
    (1, "9S AS TS JS", 0, 7),
    (0, "KS QS 8S 7S", 0, 0),
    (0, "JH KH 9H AH", 0, 6),
    (0, "TH QH 8H 7H", 0, 1),   # T over Q 8 7
    (0, "KC AC JC 8C", 2, 4),
    (2, "7C 9C TC QC", 3, 3),   # + last trick 1
]
# Side 0: 7+0+6+1+4 = 18; side 1: 7+0+3+1 = 11 (29 in all).

# G6 second half: bid 20 by seat 0, trump H; seat 2 (declarer's partner) holds KH QH and
# shows royals in trick 2 (its partner won trick 1): target 16. Side 0 takes exactly 16.
G6B_HANDS = hands(
    "JS KS AH 7H AD 8D AC 9C",
    "9S QS JH TH 9D QD TC 8C",
    "AS 8S KH QH JD KD KC 7C",
    "TS 7S 9H 8H TD 7D QC JC",
)
G6B_TRICKS = [
    (0, "JS 9S AS TS", 0, 7),
    (0, "KS QS 8S 7S", 0, 0),   # seat 2 declares royals before its 8S
    (0, "AD 9D JD TD", 2, 7),
    (2, "KD 7D 8D QD", 2, 0),
    (2, "KH 9H AH JH", 1, 6),
    (1, "TH QH 8H 7H", 1, 1),
    (1, "TC KC QC AC", 0, 2),   # A over T K Q
    (0, "9C 8C 7C JC", 3, 5),   # + last trick 1
]
# Side 0: 7+0+7+0+2 = 16; side 1: 6+1+5+1 = 13.

# ---------------------------------------------------------------------------------------
# D29: seat 0 holds KH QH (royals when trump is H), seat 1 is void in spades but holds
# hearts, seat 2 holds only diamonds and clubs, seat 3 holds five spades.
D29_HANDS = hands(
    "7S 8S QS AH TH KH QH KC",
    "JH 9H 8H 7H KD QD 8D 7D",
    "JD 9D AD TD JC 9C AC TC",
    "JS 9S AS TS KS QC 8C 7C",
)

# Deal E: §0.4 / §29.6 with trump H. Seat 1 has a single spade, seat 2 only diamonds.
E_HANDS = hands(
    "7S QS KS AS JH AH TH KH",
    "8S 7H 9H QH 8H JC 9C AC",
    "JD 9D AD TD KD QD 8D 7D",
    "9S TS JS TC KC QC 8C 7C",
)

# All-J9: seat 0 holds every J and 9 and leads all eight tricks; seat 2 holds every K
# and Q (royals for any trump); everybody follows suit. Side 0 takes all 29 points.
J9_HANDS = hands(
    "JS 9S JH 9H JD 9D JC 9C",
    "AS TS AH TH AD TD AC TC",
    "KS QS KH QH KD QD KC QC",
    "8S 7S 8H 7H 8D 7D 8C 7C",
)
J9_TRICKS = [
    (0, "JS AS KS 8S"), (0, "9S TS QS 7S"), (0, "JH AH KH 8H"), (0, "9H TH QH 7H"),
    (0, "JD AD KD 8D"), (0, "9D TD QD 7D"), (0, "JC AC KC 8C"), (0, "9C TC QC 7C"),
]

# ---------------------------------------------------------------------------------------
# Hidden-trump deals (28, and house/29-hidden-trump).
#
# Deal A: seat 0 declares and lays 8H face down (first packet 8H AS KS KH). Seats 1 and 3
# have no spades but hold hearts; seat 2 holds five spades; seat 0 has no diamonds.
A_HANDS = hands(
    "8H AS KS KH QS JC 9C AC",
    "9H 7H AH JD 9D AD TC KC",
    "JS 9S TS 8S 7S TD KD QC",
    "JH TH QH QD 8D 7D 8C 7C",
)
# The whole deal without any `expose` (seat 0 declarer, trump-card 8H):
A_TRICKS_NO_EXPOSE = [
    (0, "AS JD JS 7C", 2, 7),   # JS
    (2, "9S 8C KS 9D", 2, 4),   # 9S over KS
    (2, "TS QD QS AD", 2, 2),   # TS over QS
    (2, "8S 8D JC TC", 2, 4),   # only spade
    (2, "7S 7D 9C KC", 2, 2),   # only spade
    (2, "TD QH AC 7H", 2, 2),   # only diamond; the hearts have no power (not exposed)
    (2, "KD TH KH AH", 2, 2),   # only diamond
    # trick 8: seat 0 holds nothing but the face-down 8H (§28.8), see the tests
    (2, "QC JH 8H 9H", None, 5),
]
# Before trick 8: side 0 has 7+4+2+4+2+2+2 = 23.


def play_a_no_expose(st: State) -> State:
    """Deal A after `0 trump-card 8H`: all eight tricks, nobody exposes; in trick 8 seat 0
    plays the face-down 8H (§28.8)."""
    return play_tricks(st, A_TRICKS_NO_EXPOSE)

# Deal B: the declarer (seat 0) holds all eight hearts and lays 7H face down.
B_HANDS = hands(
    "7H JH 9H AH TH KH QH 8H",
    "JS 9S AS TS KS QS 8S 7S",
    "JD 9D AD TD KD QD 8D 7D",
    "JC 9C AC TC KC QC 8C 7C",
)

# Deal C: seat 1 holds KH QH AH and no spades (the pair/royals holder); seat 0 can lay 8H
# face down, seat 3 can lay 7H face down; seat 2 holds JH 9H TH and no diamonds.
C_HANDS = hands(
    "8H AS 7S JD 9D AD TD KD",
    "KH QH AH QD 8D 7D JC 9C",
    "TS 8S JH 9H TH AC TC KC",
    "7H JS 9S KS QS QC 8C 7C",
)
