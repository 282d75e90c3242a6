"""More helpers and hand-built deals for the rule tests of 56, 304, solo 304 and the
house rules (tests/rules/test_rules_56.py, test_rules_304.py, test_rules_304_solo.py,
test_house_more.py). The helpers of tests/helpers/rules.py assume four players; these
work for any number of seats.

A seat's list is in the order dealt (docs/rules.md §0.7). In 56, 304 and solo 304 every card
is dealt before the auction (§56.3, §304.3, §304s.3), so the order inside a hand matters
only for the dealing packets. Expected values are worked out by hand from docs/rules.md in the
comments next to each deal (strength J 9 A T K Q 8 7, §0.3; points 56: J3 9=2 A1 T1,
§56.2; 304: J30 9=20 A11 T10 K3 Q2, §304.2).
"""

from __future__ import annotations

from taash.interpreter import State, load_variant

_VARIANTS: dict = {}


def variant2(name: str, options: dict | None = None):
    """load_variant with options, cached per (name, options)."""
    key = (name, tuple(sorted((options or {}).items())))
    if key not in _VARIANTS:
        _VARIANTS[key] = (load_variant(name, options) if options is not None
                          else load_variant(name))
    return _VARIANTS[key]


def state(name: str, rows, dealer: int, widow=None, scores=None, options=None) -> State:
    """A deal of `name` with the given hands (lists of card texts or strings)."""
    hs = [r.split() if isinstance(r, str) else list(r) for r in rows]
    wd = widow.split() if isinstance(widow, str) else widow
    return State(variant2(name, options), dealer=dealer, hands=hs, widow=wd, scores=scores)


def trick_n(st: State, leader: int, cards: str) -> int:
    """Play one whole trick of any number of seats: `cards` in playing order from
    `leader` (next(s) = s+1 mod n, §0.1). Returns the winner the engine recorded."""
    n = st.v.players
    k = len(st.tricks)
    for i, c in enumerate(cards.split()):
        seat = (leader + i) % n
        assert st.to_act == seat, f"expected seat {seat} to play {c}, not {st.to_act}"
        st.apply("play " + c)
    assert len(st.tricks) == k + 1
    return st.tricks[-1][2]


def tricks_n(st: State, tricks) -> State:
    """Play (leader, cards, winner, points) tricks, checking the hand-worked winner and the
    points the winner's side gained (None: not checked)."""
    for t in tricks:
        leader, cards, winner = t[0], t[1], t[2]
        pts = t[3] if len(t) > 3 else None
        before = list(st.seat_points)
        got = trick_n(st, leader, cards)
        if winner is not None:
            assert got == winner, f"trick {cards}: expected seat {winner} to win, not {got}"
        if pts is not None:
            gained = st.seat_points[got] - before[got]
            if len(st.tricks) == st.v.tricks:
                gained -= st.v.last_trick
            assert gained == pts, f"trick {cards}: expected {pts} points, not {gained}"
    return st


def is_decl(action: str) -> bool:
    """A declaration action (§0.8: royals, pair, marriage, slam, cot)."""
    return action.startswith("declare") or action == "cot"


def split_legal(legal):
    """(declarations as a set, the other actions in their order). docs/rules.md §0.10 places
    declarations as one block between the auction/exchange actions and `expose`; it does
    not order the declarations among themselves."""
    decl = [a for a in legal if is_decl(a)]
    rest = [a for a in legal if not is_decl(a)]
    if decl:
        i = legal.index(decl[0])
        assert legal[i:i + len(decl)] == decl, f"declarations not one block: {legal}"
        assert all(not a.startswith("play ") and a != "expose" for a in legal[:i]), legal
    return set(decl), rest


def plays_of(legal) -> list[str]:
    return [a for a in legal if a.startswith("play ")]


def bids56(lo: int, hi: int) -> list[str]:
    """56 bids lo..hi in §0.10 order: by number, then by denomination S H D C NT NOES,
    the number-first form before the suit-first form (§56.5: NT and NOES have only the
    number-first form)."""
    out = []
    for b in range(lo, hi + 1):
        for d in "SHDC":
            out += [f"bid {b} {d}", f"bid {d} {b}"]
        out += [f"bid {b} NT", f"bid {b} NOES"]
    return out


def bids304(lo: int, hi: int) -> list[str]:
    return [f"bid {b}" for b in range(lo, hi + 1, 5)]


# =======================================================================================
# 56, six players (seats 0 2 4 = side 0, seats 1 3 5 = side 1, §0.6, §56.1).
#
# F56 (dealer 5, eldest 0): every seat holds two cards of each suit and every trick is six
# cards of one suit, so nobody is ever void and the contract's denomination never
# matters. Side 0 takes 36, side 1 20.
F56 = [
    "JS QS TH AH AD QD AC JC",
    "9S QS KH KH JD AD 9C QC",
    "AS 9S 9H QH TD KD TC AC",
    "TS AS JH QH KD TD KC TC",
    "KS TS 9H JH JD QD QC KC",
    "JS KS AH TH 9D 9D JC 9C",
]
# (leader, cards in playing order from the leader, winner, card points)
F56_TRICKS = [
    (0, "JS 9S AS TS KS JS", 0, 10),  # two JS: seat 0's, played first, wins; 3+2+1+1+0+3
    (0, "QS QS 9S AS TS KS", 2, 4),   # 9S highest (no J left): 0+0+2+1+1+0
    (2, "9H JH 9H AH TH KH", 3, 9),   # JH: 2+3+2+1+1+0
    (3, "QH JH TH AH KH QH", 4, 5),   # JH: 0+3+1+1+0+0
    (4, "JD 9D AD JD TD KD", 4, 10),  # two JD: seat 4 played first; seat 1 (lower number,
                                      # played later) loses: 3+2+1+3+1+0
    (4, "QD 9D QD AD KD TD", 5, 4),   # 9D: 0+2+0+1+0+1
    (5, "JC AC 9C TC KC QC", 5, 7),   # JC: 3+1+2+1+0+0
    (5, "9C JC QC AC TC KC", 0, 7),   # JC: 2+3+0+1+1+0 (last trick: no bonus in 56)
]
# Side 0: 10 + 4 + 5 + 10 + 7 = 36 (seat 0 17, seat 2 4, seat 4 15);
# side 1: 9 + 4 + 7 = 20 (seat 1 0, seat 3 9, seat 5 11). 56 in all.
F56_SEAT_POINTS = [17, 0, 4, 9, 15, 11]

# J56 (dealer 5, eldest 0): seat 0 holds all eight jacks, the others two of each suit.
# Seat 0 leads a jack eight times (the second copy of each suit is still the highest card
# left) and everybody follows: seat 0 wins every trick, 3+2+1+1+0+0 = 7 each, 56 in all.
J56 = [
    "JS JS JH JH JD JD JC JC",
    "9S 9S 9H 9H 9D 9D 9C 9C",
    "AS AS AH AH AD AD AC AC",
    "TS TS TH TH TD TD TC TC",
    "KS KS KH KH KD KD KC KC",
    "QS QS QH QH QD QD QC QC",
]
J56_TRICKS = [(0, f"J{s} 9{s} A{s} T{s} K{s} Q{s}", 0, 7) for s in "SSHHDDCC"]

# G2 (docs/rules.md §G) (dealer 0, eldest 1 leads trick 1): clubs JC(1) 9C(2) JC(3) then seat 4,
# which has no club and holds KH and QD, then TC(5), AC(0).
G2_HANDS = [
    "AC AC TC QC JS JS 9S 9S",
    "JC QC AS AS TS TS KS KS",
    "9C KC QS QS JH JH 9H 9H",
    "JC 9C AH AH TH TH KH QH",
    "KH QH QD JD JD 9D 9D AD",
    "TC KC AD TD TD KD KD QD",
]

# =======================================================================================
# 304 (dealer 3, eldest 0).
#
# G8 (docs/rules.md §G): A = seat 0 (declarer, bid 200, trump S, calls JH), B = seat 1,
# C = seat 2 (holds JH: the partner), D = seat 3. Every seat holds two cards of each suit
# and every trick below is four cards of one suit, so the trump never decides a trick.
G8_HANDS = [
    "JC 7C JS 9S QH 7H AD TD",   # A
    "9C 8C AS TS 9H AH KD QD",   # B: KD QD
    "AC QC KS QS JH TH 8D 7D",   # C: KS QS, JH (the called card)
    "TC KC 8S 7S KH 8H JD 9D",   # D: KH 8H (he chooses which to give in trick 7)
]


def g8_tricks(d_gives_king: bool = True):
    """The G8 play. Before his card in trick 2 C shows KS QS (A's side has won trick 1:
    target 200 - 40 = 160); before leading trick 3 B shows KD QD (he won trick 2:
    target 160 + 20 = 180). D gives KH (3) to C's trick 7 or keeps it for B's trick 8."""
    kh, eh = ("KH", "8H") if d_gives_king else ("8H", "KH")
    t7 = 55 if d_gives_king else 52
    t8 = 21 if d_gives_king else 24
    return [
        (0, "JC 8C AC TC", 0, 51),      # JC: 30+0+11+10
        (0, "7C 9C QC KC", 1, 25),      # 9C (JC gone): 0+20+2+3  [C shows S before QC]
        (1, "KD 8D JD TD", 3, 43),      # JD: 3+0+30+10           [B shows D before KD]
        (3, "9D AD QD 7D", 3, 33),      # 9D (JD gone): 20+11+2+0
        (3, "8S JS AS KS", 0, 44),      # JS: 0+30+11+3
        (0, "9S TS QS 7S", 0, 32),      # 9S (JS gone): 20+10+2+0
        (0, f"QH 9H JH {kh}", 2, t7),   # A leads hearts: C must play JH (§304.7); JH wins
        (2, f"TH {eh} 7H AH", 1, t8),   # AH (JH, 9H gone): 10+0(3)+0+11
    ]
# A's side (A, C): 51 + 44 + 32 + 55 = 182 (or 51 + 44 + 32 + 52 = 179);
# defenders: 25 + 43 + 33 + 21 = 122 (or 125). 182 + 122 = 304.
# Per seat (D gives KH): A 51+44+32 = 127, B 25+21 = 46, C 55, D 43+33 = 76.

# CUT (§304.8): seat 0 declares, trump S, calls AH (seat 2). Seat 2 wins trick 1 (JC)
# unrevealed; seat 0 wins trick 2; in trick 3 seat 0 leads 7H, seat 2 must play AH and
# seat 3 (no heart) trumps with 7S: the cut. Seat 2 then wins trick 4 for the defenders
# (after showing KC QC as a defender: +20); seat 0 (only trumps J 9 A T left) wins 5-8.
CUT_HANDS = [
    "7C JD 7H TD JS 9S AS TS",
    "8C QD AD 8H 9H TH QH KS",
    "JC KC QC 8D AH JH KH 8S",
    "9C 7D 9D KD 7S QS AC TC",
]
CUT_TRICKS = [
    (0, "7C 8C JC 9C", 2, 50),   # JC: 0+0+30+20 -> declarer's side (seat 2 not yet cut)
    (2, "8D 7D JD QD", 0, 32),   # JD: 0+0+30+2
    (0, "7H 8H AH 7S", 3, 11),   # 7S the only trump: 0+0+11+0; the cut
    (3, "9D TD AD 8S", 2, 41),   # 8S the only trump: 20+10+11+0 -> defenders now
    (2, "JH AC TS 9H", 0, 71),   # TS the only trump: 30+11+10+20
    (0, "AS KS KH QS", 0, 19),   # AS: 11+3+3+2
    (0, "9S TH KC TC", 0, 43),   # 9S the only trump: 20+10+3+10
    (0, "JS QH QC KD", 0, 37),   # JS: 30+2+2+3
]
# Declarer's side: 50 + 32 + 71 + 19 + 43 + 37 = 252; defenders 11 + 41 = 52 (304).
# Per seat: seat 0 32+71+19+43+37 = 202, seat 1 0, seat 2 50+41 = 91, seat 3 11.

# K (§304.9 knowledge): seat 0 declares, trump D, calls AH (seat 2). Seat 0 holds KS QS,
# seat 1 holds KC QC. Trick 1: 7D 8D JD 9D, seat 2 wins (JD) unrevealed.
K_HANDS = [
    "7D KS QS QH TH JS 9S AS",
    "8D KC QC 9H KH 8S 7S AC",
    "JD AH 8H TS AD QD JC 9C",
    "9D JH 7H KD TD TC 8C 7C",
]

# SLAM304: seat 0 holds every J and 9, the others two of each suit: seat 0 leads J then 9
# of each suit and wins all eight tricks (304 points). Seat 2 holds every K and Q.
SLAM304_HANDS = [
    "JS 9S JH 9H JD 9D JC 9C",
    "AS TS AH TH AD TD AC TC",
    "KS QS KH QH KD QD KC QC",
    "8S 7S 8H 7H 8D 7D 8C 7C",
]
SLAM304_TRICKS = [(0, f"{r}{s} A{s} K{s} 8{s}" if r == "J" else f"{r}{s} T{s} Q{s} 7{s}", 0)
                  for s in "SHDC" for r in "J9"]
# J tricks: 30+11+3+0 = 44, 9 tricks: 20+10+2+0 = 32; 4 x 76 = 304.

# =======================================================================================
# Solo 304 (3 players, dealer 2, eldest 0).
#
# G9 (docs/rules.md §G): seat 0 bids 170; widow JC 7D (30). Seat 0 holds six spades JS AS TS
# KS QS 9S and TH QH 8H 7H; seat 1 and seat 2 hold one spade each.
G9_HANDS = [
    "JS AS TS KS QS 9S TH QH 8H 7H",
    "8S JH 9H JD 9D 9C AC TC TD KD",
    "7S AH KH AD QD KC QC 8C 7C 8D",
]
G9_WIDOW = "JC 7D"
# Line 1: take JC, take 7D, discard TH, discard 9S (set aside 10+20 = 30); trump S.
G9_LINE1 = [
    (0, "JS 8S 7S", 0, 30),
    (0, "AS TD 8D", 0, 21),   # the defenders have no spade left: discards
    (0, "TS KD KC", 0, 16),
    (0, "KS AC QC", 0, 16),
    (0, "QS TC 8C", 0, 12),
    (0, "JC 9C 7C", 0, 50),   # the defenders follow with their last club
    (0, "QH JH KH", 1, 35),
    (1, "9H AH 8H", 1, 31),
    (1, "JD QD 7D", 1, 32),
    (1, "9D AD 7H", 1, 31),
]
# Declarer: 30+21+16+16+12+50 = 145 in tricks + 30 set aside = 175 >= 170: made.
# Defenders: 35+31+32+31 = 129. 145 + 30 + 129 = 304.
# Line 2: take JC, discard QH (set aside 7D QH = 0+2); trump S.
G9_LINE2 = [
    (0, "JS 8S 7S", 0, 30),
    (0, "AS 9D AD", 0, 42),
    (0, "TS 9C QD", 0, 32),
    (0, "KS AC 8C", 0, 14),
    (0, "QS TC 7C", 0, 12),
    (0, "9S TD 8D", 0, 30),
    (0, "TH JH KH", 1, 43),
    (1, "9H AH 8H", 1, 31),
    (1, "JD KC 7H", 1, 33),   # seat 2 and seat 0 have no diamond
    (1, "KD QC JC", 1, 35),
]
# Declarer: 30+42+32+14+12+30 = 160 in tricks + 2 set aside = 162 < 170: failed.
# Defenders: 43+31+33+35 = 142. 160 + 2 + 142 = 304.

# SOLO_SLAM: seat 0 holds all eight spades and JH 9H; widow 8C 7C (0 points). With trump
# S seat 0 wins all ten tricks.
SOLO_SLAM_HANDS = [
    "JS 9S AS TS KS QS 8S 7S JH 9H",
    "AH TH KH QH 8H 7H JD 9D AD TD",
    "KD QD 8D 7D JC 9C AC TC KC QC",
]
SOLO_SLAM_WIDOW = "8C 7C"
SOLO_SLAM_TRICKS = [
    (0, "JS JD KD", 0), (0, "9S 9D QD", 0), (0, "AS AD 8D", 0), (0, "TS TD 7D", 0),
    (0, "KS KH JC", 0), (0, "QS QH 9C", 0), (0, "8S 8H AC", 0), (0, "7S 7H TC", 0),
    (0, "JH AH KC", 0), (0, "9H TH QC", 0),
]
