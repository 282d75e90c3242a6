"""The kernel's module for one variant: its source made from the fixed template below and
the variant's rules (`translate`), written once into the cache directory under a name
made of the variant's digest and the source's own hash, and compiled by numba
(``cache=True``: the machine code is kept beside it, so a second start loads it). Every
function but the entry points, the scoring rules and the quantifiers' functions is
inlined into them (numba's ``inline='always'``): about 1.5 times the playouts a second of
separate calls. The scoring rules, asked once a deal, and the quantifiers are called: a
copy of a large scoring rule in each entry point took minutes to compile (bridge, spades
of tests/variants), called 15-35 s.

The state is one int64 array (`source.Layout`); ``legal(S, out) -> n`` writes the legal
action ids of the seat to act into ``out`` in the engine's order (declarations, then
cards by id), ``apply(S, a)`` plays one, ``playout(S, seed, acts) -> n`` plays uniformly
random legal actions to the end of the deal (numba's generator seeded with ``seed``;
``acts`` gets the ids), and ``playouts(S, count, seed, total)`` does that ``count``
times from copies of ``S``, adding each deal's match score to ``total``; ``rollout(S, R,
greedy, helpful) -> draws`` plays to the end by the search bot's rollout policy
(arena/bots/search.py ``Rollout``), its random draws given in ``R``; ``replay_check(S,
acts, seats, ref, mask, face_down_at, legal_ref, nlegal) -> bool`` replays a history's
play on a proposed world and compares what the seat sees with the true state's
(kernel/worlds.py).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

try:
    import fcntl
except ImportError:     # not on Windows: no lock, two processes may compile the same module
    fcntl = None

from .source import Facts, Layout, Rule, Unsupported
from .translate import Translator

KERNEL_VERSION = "5"   # part of every cached module's name: a new template is compiled anew


def refuse(f: Facts, rules: dict[str, Rule]) -> None:
    """Raise Unsupported, in words, for what this kernel has no code for."""
    if f.size > 62:
        raise Unsupported(f"a deck of {f.size} card ids (the kernel holds at most 62)")
    if f.flow_after_play:
        raise Unsupported("a step of the flow after the play of the tricks")


_HELPERS = '''
@njit(cache=True, inline='always')
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


# the index of a word's lowest set bit by a de Bruijn sequence: the product's top six
# bits (masked after the shift, so the sign of the int64 product does not matter)
DEBRUIJN = 0x03F79D71B4CB0A89
DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    DEBRUIJN_INDEX[((DEBRUIJN << _i) & 0xFFFFFFFFFFFFFFFF) >> 58] = _i


@njit(cache=True, inline='always')
def _low_index(low):
    return DEBRUIJN_INDEX[((low * DEBRUIJN) >> 58) & 63]


@njit(cache=True, inline='always')
def _ow(a, b):
    return a if a != 0 else b


@njit(cache=True, inline='always')
def _has(m, c):
    return c >= 0 and ((m >> c) & 1) != 0


@njit(cache=True, inline='always')
def _bit(c):
    return np.int64(1) << c if c >= 0 else np.int64(0)


@njit(cache=True, inline='always')
def _suitmask(u):
    return SUITMASK[u] if 0 <= u < NSUITS else np.int64(0)


@njit(cache=True, inline='always')
def _at(S, off, n, i):
    return S[off + i] if 0 <= i < n else 0


@njit(cache=True, inline='always')
def _at_or(S, off, n, i, empty):
    return S[off + i] if 0 <= i < n else empty


@njit(cache=True, inline='always')
def _side(S, off, n, i):
    if i < 0:
        i += n + 1
    return S[off + i]


@njit(cache=True, inline='always')
def _div(a, b):
    return a // b if b != 0 else 0


@njit(cache=True, inline='always')
def _mod(a, b):
    return a % b if b != 0 else 0


@njit(cache=True, inline='always')
def _maxlist(S, off, n):
    if n == 0:
        return 0
    m = S[off]
    for i in range(1, n):
        if S[off + i] > m:
            m = S[off + i]
    return m


@njit(cache=True, inline='always')
def _minlist(S, off, n):
    if n == 0:
        return 0
    m = S[off]
    for i in range(1, n):
        if S[off + i] < m:
            m = S[off + i]
    return m


@njit(cache=True, inline='always')
def _played(S, seat):
    for i in range(S[IN_TRICK]):
        if S[TRICK_SEATS + i] == seat:
            return S[TRICK_CARDS + i]
    return -1


@njit(cache=True, inline='always')
def _partner_of(S, seat):
    if seat < 0:
        return -1
    for k in range(1, PLAYERS):
        t = (seat + k) % PLAYERS
        if S[SIDE + t] == S[SIDE + seat]:
            return t
    return -1


@njit(cache=True, inline='always')
def _side_seats(S, seat, same):
    # a mask of the seats other than seat on its side (same) or on the other sides (not same)
    m = np.int64(0)
    if seat >= 0:
        for t in range(PLAYERS):
            if t != seat and (S[SIDE + t] == S[SIDE + seat]) == same:
                m |= np.int64(1) << t
    return m


@njit(cache=True, inline='always')
def _side_won(S, sd):
    # the cards won by the seats of side sd, as the sides stand now (none for -1)
    m = np.int64(0)
    if sd >= 0:
        for t in range(PLAYERS):
            if S[SIDE + t] == sd:
                m |= S[WON_CARDS + t]
    return m


@njit(cache=True, inline='always')
def _trick_mask(S, off):
    # a mask of the trick's cards (off: TRICK_CARDS) or of the seats that played to it (TRICK_SEATS)
    m = np.int64(0)
    for i in range(S[IN_TRICK]):
        m |= np.int64(1) << S[off + i]
    return m
'''

_TRICK = '''
@njit(cache=True, inline='always')
def _trick_key(S, i):
    # the rank of the trick's i-th card (Play.trick_keys): strength, +100 in the suit led,
    # +200 when it counts as a trump (asked of its player, and whether trump was public)
    c = S[TRICK_CARDS + i]
    if r_counts_as_trump(S, S[TRICK_SEATS + i], c, S[TRICK_AFTER + i]):
        return 200 + STRENGTH[c]
    if SUIT_OF[c] == S[LED]:
        return 100 + STRENGTH[c]
    return STRENGTH[c]


@njit(cache=True, inline='always')
def _best(S):
    # the trick's card that wins as it stands: the highest key, the first of equal ones
    best, top = 0, -1
    for i in range(S[IN_TRICK]):
        key = _trick_key(S, i)
        if key > top:
            best, top = i, key
    return best


@njit(cache=True, inline='always')
def _key_now(S, seat, c, led):
    # the rank card c would have in the trick, led in suit led, if seat played it now (Play.key_now)
    if r_counts_as_trump(S, seat, c, S[TRUMP_EXPOSED]):
        return 200 + STRENGTH[c]
    if SUIT_OF[c] == led:
        return 100 + STRENGTH[c]
    return STRENGTH[c]


@njit(cache=True, inline='always')
def _key(S, seat, c, led):
    # card c's rank as played to this trick (its first copy), else as if seat played it now
    for i in range(S[IN_TRICK]):
        if S[TRICK_CARDS + i] == c:
            return _trick_key(S, i)
    return _key_now(S, seat, c, led)


@njit(cache=True, inline='always')
def _higher(S, seat, cards, card):
    # State.higher: the cards of the mask that, played now by seat, rank above card
    if card < 0:
        return cards
    led = S[LED] if S[LED] >= 0 else SUIT_OF[card]
    ref = _key(S, seat, card, led)
    out = np.int64(0)
    while cards:
        low = cards & -cards
        cards ^= low
        if _key_now(S, seat, _low_index(low), led) > ref:
            out |= low
    return out


@njit(cache=True, inline='always')
def _beats(S, seat, a, b):
    # State.beats: whether card a ranks above card b in the trick
    if a < 0:
        return False
    if b < 0:
        return True
    led = S[LED] if S[LED] >= 0 else SUIT_OF[b]
    return _key(S, seat, a, led) > _key(S, seat, b, led)


@njit(cache=True, inline='always')
def _trick_winner(S):
    return S[TRICK_SEATS + _best(S)] if S[IN_TRICK] > 0 else -1


@njit(cache=True, inline='always')
def _winning_card(S):
    return S[TRICK_CARDS + _best(S)] if S[IN_TRICK] > 0 else -1


@njit(cache=True, inline='always')
def _known_side_tricks(S, seat):
    side = _side(S, SIDE, PLAYERS, seat)
    if not CALLED or S[PARTNER_REVEALED] != 0 or seat == S[PARTNER] or S[TAKEN_OVER] != 0:
        return _side(S, SIDE_TRICKS, NSIDES - 1, side)
    return S[SEAT_SIDE_TRICKS + seat * NSIDES + side]
'''

_PLAY = '''
@njit(cache=True, inline='always')
def legal(S, out):
    me = S[TO_ACT]
    if me < 0:
        return 0
QUESTION
    if FACE_DOWN and S[TRUMP_CARD] >= 0 and me == S[DECLARER] and S[HANDS + me] == 0:
        out[0] = S[TRUMP_CARD]     # the declarer's last card: the trump laid face down
        return 1
    cards = r_may_play(S, me, -1, 0)
    if cards == 0:
        cards = S[HANDS + me]
    n = 0
CHECKS
    if EXPOSE and S[TRUMP] >= 0 and S[TRUMP_EXPOSED] == 0 and r_may_expose(S, me, -1, 0):
        out[n] = EXPOSE_ID
        n += 1
    while cards:
        low = cards & -cards
        out[n] = _low_index(low)
        n += 1
        cards ^= low
    return n


@njit(cache=True, inline='always')
def _score(S):
    S[TERMINAL] = 1
    S[TO_ACT] = -1
    if ASIDE:
        to = ASIDE_TO
        if to >= 0:
            S[SEAT_POINTS + to] += S[ASIDE_POINTS]
            S[SIDE_POINTS + S[SIDE + to]] += S[ASIDE_POINTS]
    d = S[DECLARER]
    if d < 0:
        if S[TAKEN_OVER] != 0 or not HAS_CONTRACT:
            r_effect(S, -1, 0, 0)
        return
    made = r_made(S, d, -1, 0)
    S[MADE] = 1 if made else 0
    r_effect(S, d, 1 if made else 0, 0)


@njit(cache=True, inline='always')
def _end_trick(S):
    k = S[IN_TRICK]
    b = _best(S)
    winner = S[TRICK_SEATS + b]
    pts = 0
    won = np.int64(0)
    for i in range(k):
        pts += POINT_OF[S[TRICK_CARDS + i]]
        won |= np.int64(1) << S[TRICK_CARDS + i]
    S[WON_CARDS + winner] |= won
    done = S[TRICKS_DONE] + 1
    S[TRICKS_DONE] = done
    if done == TRICKS:
        pts += LAST_TRICK
    side = S[SIDE + winner]
    S[SIDE_POINTS + side] += pts
    S[SEAT_POINTS + winner] += pts
    S[SIDE_TRICKS + side] += 1
    S[SEAT_TRICKS + winner] += 1
    S[SEAT_SIDE_TRICKS + winner * NSIDES + side] += 1
    S[LAST_WINNER] = winner
AFTER_TRICK
    for i in range(k):
        S[TRICK_CARDS + i] = 0
        S[TRICK_SEATS + i] = 0
        S[TRICK_AFTER + i] = 0
    S[IN_TRICK] = 0
    S[LED] = -1
    if done == TRICKS:
        _score(S)
    else:
        S[TO_ACT] = winner


@njit(cache=True, inline='always')
def _expose(S, seat):
    # trump made public (Play.expose): the face-down card, if any, is shown
    S[EXPOSED_CARD] = S[TRUMP_CARD]
    S[TRUMP_CARD] = -1
    S[TRUMP_EXPOSED] = 1
    S[EXPOSER] = seat
    S[EXPOSURE_TRICK] = S[TRICKS_DONE] + 1


@njit(cache=True, inline='always')
def apply(S, a):
    seat = S[TO_ACT]
    if a >= NCARDS:
        if EXPOSE and a == EXPOSE_ID:
            # asked in play: a face-down trump card goes to the declarer's hand
            tc = S[TRUMP_CARD]
            if tc >= 0:
                d = S[DECLARER]
                S[HANDS + d] |= np.int64(1) << tc
                if COPIES:
                    S[COUNTS + d * NCARDS + tc] += 1
            _expose(S, seat)
            return
DECLARE
        return
    if FACE_DOWN and a == S[TRUMP_CARD] and seat == S[DECLARER] and S[HANDS + seat] == 0:
        _expose(S, seat)     # the face-down trump, played as the declarer's last card
    elif COPIES:
        at = COUNTS + seat * NCARDS + a
        S[at] -= 1
        if S[at] == 0:
            S[HANDS + seat] &= ~(np.int64(1) << a)
    else:
        S[HANDS + seat] &= ~(np.int64(1) << a)
    k = S[IN_TRICK]
    if not PLAIN_PLAY:
        if a == S[CALLED_CARD] and seat == S[PARTNER]:
            S[PARTNER_REVEALED] = 1
        S[TRICK_AFTER + k] = S[TRUMP_EXPOSED]
    if k == 0:
        S[LED] = SUIT_OF[a]
    S[TRICK_CARDS + k] = a
    S[TRICK_SEATS + k] = seat
    S[IN_TRICK] = k + 1
AFTER_CARD
    if k + 1 < S[ACTIVE]:
        S[TO_ACT] = S[NEXT + seat]
    else:
        _end_trick(S)


@njit("int64(int64[:], int64, int64[:])", cache=True)
def playout(S, seed, acts):
    if seed >= 0:
        np.random.seed(seed)
    buf = np.empty(MAXLEGAL, np.int64)
    n = 0
    while S[TERMINAL] == 0:
        k = legal(S, buf)
        a = buf[np.random.randint(0, k)]
        acts[n] = a
        n += 1
        apply(S, a)
    return n


@njit("void(int64[:], int64, int64, int64[:])", cache=True)
def playouts(S0, count, seed, total):
    np.random.seed(seed)
    acts = np.empty(MAXACTS, np.int64)
    for _ in range(count):
        S = S0.copy()
        playout(S, -1, acts)
        for i in range(NSCORES):
            total[i] += S[SCORES + i]


@njit(cache=True, inline='always')
def _policy_key(c, trump, led):
    u = SUIT_OF[c]
    if u == trump:
        return 200 + STRENGTH[c]
    if u == led:
        return 100 + STRENGTH[c]
    return 0


@njit(cache=True, inline='always')
def _policy_play(S, buf, lo, n, R, pos, top):
    # arena/bots/search.py Rollout.play, card for card (its draws from R)
    me = S[TO_ACT]
    k = S[IN_TRICK]
    if k == 0:
        for u in range(NSUITS):
            top[u] = -1
        for t in range(PLAYERS):
            if t != me:
                hand = S[HANDS + t]
                while hand:
                    low = hand & -hand
                    c = _low_index(low)
                    hand ^= low
                    if STRENGTH[c] > top[SUIT_OF[c]]:
                        top[SUIT_OF[c]] = STRENGTH[c]
        trump = S[TRUMP]
        best = -1
        for i in range(lo, n):
            c = buf[i]
            u = SUIT_OF[c]
            if u != trump and STRENGTH[c] > top[u]:
                if best < 0 or POINT_OF[c] > POINT_OF[best] or (
                        POINT_OF[c] == POINT_OF[best] and STRENGTH[c] > STRENGTH[best]):
                    best = c
        if best >= 0:
            return best, pos
        return buf[lo + int(R[pos] * (n - lo))], pos + 1
    led = S[LED]
    trump = S[TRUMP] if S[TRUMP_EXPOSED] != 0 else -1
    top_key, at = -1, 0
    pts = 0
    for i in range(k):
        c = S[TRICK_CARDS + i]
        pts += POINT_OF[c]
        key = _policy_key(c, trump, led)
        if key > top_key:
            top_key, at = key, i
    cheap = buf[lo]
    for i in range(lo + 1, n):
        c = buf[i]
        if POINT_OF[c] < POINT_OF[cheap] or (POINT_OF[c] == POINT_OF[cheap] and STRENGTH[c] < STRENGTH[cheap]):
            cheap = c
    last = k == S[ACTIVE] - 1
    if S[SIDE + S[TRICK_SEATS + at]] == S[SIDE + me] and last:
        give = -1
        for i in range(lo, n):
            c = buf[i]
            if _policy_key(c, trump, led) <= top_key and SUIT_OF[c] != trump:
                if give < 0 or POINT_OF[c] > POINT_OF[give] or (
                        POINT_OF[c] == POINT_OF[give] and STRENGTH[c] < STRENGTH[give]):
                    give = c
        if give >= 0:
            return give, pos
    if TRICKS_ONLY or pts > 0 or last:   # a deck without points: every trick is worth taking
        win = -1
        wa, wb = 0, 0
        for i in range(lo, n):
            c = buf[i]
            key = _policy_key(c, trump, led)
            if key > top_key:
                a = 1 if key >= 200 else 0
                b = 1 if POINT_OF[c] < 0 else 0
                if win < 0 or a < wa or (a == wa and (b < wb or (b == wb and STRENGTH[c] < STRENGTH[win]))):
                    win, wa, wb = c, a, b
        if win >= 0:
            return win, pos
    return cheap, pos


@njit(cache=True, inline='always')
def _wants_exposure(S):
    # arena/bots/search.py Rollout.wants_exposure: the seat holds a trump of the world and
    # another side holds the trick so far, the trick holding points or the seat playing last
    me = S[TO_ACT]
    trump = S[TRUMP]
    if trump < 0 or (S[HANDS + me] & _suitmask(trump)) == 0:
        return False
    winner = _trick_winner(S)
    if winner < 0 or S[SIDE + winner] == S[SIDE + me]:
        return False
    pts = 0
    for i in range(S[IN_TRICK]):
        pts += POINT_OF[S[TRICK_CARDS + i]]
    return pts > 0 or S[IN_TRICK] == S[ACTIVE] - 1


@njit("int64(int64[:], float64[:], float64, int64)", cache=True)
def rollout(S, R, greedy, helpful):
    # arena/bots/search.py Rollout.run in the play phase: a forced action at once; a
    # helpful declaration (bit k of helpful: the k-th play declaration) first; else a
    # card, greedy (Rollout.play) with chance greedy, else uniform; R: the draws of its
    # generator, in order. Returns the draws used, -1 when R runs out.
    buf = np.empty(MAXLEGAL, np.int64)
    top = np.empty(NSUITS, np.int64)
    pos = 0
    while S[TERMINAL] == 0:
        # one apply below: each inlined copy of it (the scoring inside) costs compile time
        n = legal(S, buf)
        if n == 1:
            a = buf[0]
        elif buf[n - 1] >= NCARDS:     # a question: any answer
            if pos + 1 > R.shape[0]:
                return -1
            a = buf[int(R[pos] * n)]
            pos += 1
        else:
            lo = 0
            found = -1
            if buf[0] >= NCARDS:
                if helpful != 0:
                    for i in range(n):
                        for j in range(NCHECKS):
                            if buf[i] == CHECK_IDS[j] and (helpful >> j) & 1:
                                found = buf[i]
                        if found >= 0:
                            break
                if found < 0 and EXPOSE and _wants_exposure(S):
                    for i in range(n):
                        if buf[i] == EXPOSE_ID:
                            found = EXPOSE_ID
                while lo < n and buf[lo] >= NCARDS:
                    lo += 1
            if found >= 0:
                a = found
            else:
                if pos + 2 > R.shape[0]:
                    return -1
                r = R[pos]
                pos += 1
                if r < greedy:
                    a, pos = _policy_play(S, buf, lo, n, R, pos, top)
                else:
                    a = buf[lo + int(R[pos] * (n - lo))]
                    pos += 1
        apply(S, a)
    return pos


@njit("int64(int64[:], int64[:])", cache=True)
def legal_ids(S, out):
    return legal(S, out)


@njit("void(int64[:], int64)", cache=True)
def apply_id(S, a):
    apply(S, a)


@njit("boolean(int64[:], int64[:], int64[:], int64[:], int64[:], int64, int64[:], int64)", cache=True)
def replay_check(S, acts, seats, ref, mask, face_down_at, legal_ref, nlegal):
    # kernel/worlds.py: apply acts (seats[i] to act for acts[i], each legal: else False),
    # then compare with ref where mask is 1, the presence of a face-down card at
    # face_down_at (>= 0), the hands' sizes (with copies of a card: the sums of their
    # counts), and the legal actions with legal_ref[:nlegal]
    # (nlegal < 0: not compared). The entry points legal_ids and apply_id are called, not
    # inlined: another inlined copy of apply would cost compile time.
    buf = np.empty(MAXLEGAL, np.int64)
    for i in range(acts.shape[0]):
        if S[TO_ACT] != seats[i]:
            return False
        a = acts[i]
        k = legal_ids(S, buf)
        found = False
        for j in range(k):
            if buf[j] == a:
                found = True
                break
        if not found:
            return False
        apply_id(S, a)
    for j in range(S.shape[0]):
        if mask[j] != 0 and S[j] != ref[j]:
            return False
    if face_down_at >= 0 and (S[face_down_at] >= 0) != (ref[face_down_at] >= 0):
        return False
    for t in range(PLAYERS):
        if COPIES:      # a hand's size: its counts' sum (its bitset has one bit a card id)
            size = 0
            for c in range(NCARDS):
                size += S[COUNTS + t * NCARDS + c] - ref[COUNTS + t * NCARDS + c]
            if size != 0:
                return False
        elif _popcount(S[HANDS + t]) != _popcount(ref[HANDS + t]):
            return False
    if nlegal >= 0:
        k = legal_ids(S, buf)
        if k != nlegal:
            return False
        for j in range(k):
            if buf[j] != legal_ref[j]:
                return False
    return True
'''


def _rule_fn(tr: Translator, name: str, rule: Rule, kind: str, inline: bool = True) -> str:
    """A rule as the function ``name(S, me, x, y)``; inlined where it is called unless
    ``inline`` is false (a rule asked once a deal, the scoring, is called: each inlined
    copy of it costs compile time, and the entry points hold several)."""
    tr._tmp = 0
    tr.functions = []
    deco = "@njit(cache=True, inline='always')" if inline else "@njit(cache=True)"
    head = f"{deco}\ndef {name}(S, me, x, y):\n"
    if rule.tree is None:   # an optional hook left out: does nothing
        return head + ("    return\n" if kind == "effect" else "    return False\n")
    if rule.effect:
        body = tr.stmts(rule.tree.kids, 1) + ["    return"]
    else:
        body = tr.stmts(rule.lets, 1) + [f"    return {tr.ex(rule.tree)}"]
    # the functions of its quantifiers first
    return "\n".join(tr.functions + [head + "\n".join(body)]) + "\n"


def _array(values) -> str:
    return f"np.array({[int(x) for x in values]!r}, dtype=np.int64)"


def module_source(f: Facts, lay: Layout, rules: dict[str, Rule]) -> str:
    """The kernel module's source for a variant. Raises Unsupported."""
    refuse(f, rules)
    at = lay.at
    tr = Translator(f, lay)
    may_expose = rules["play.may_expose"].tree
    nc, ns, nr, n = f.size, f.suits, f.ranks, f.players
    rs = [nr - r for r in range(nr)] + [0]      # a rank's strength; none is 0
    consts = {k.upper(): v for k, v in at.items()}
    consts.update(PLAYERS=n, NSIDES=f.sides, NSCORES=f.nscores, NCARDS=nc, NSUITS=ns, TRICKS=f.tricks,
                  LAST_TRICK=f.last_trick, COPIES=int(f.max_copies > 1), PLAIN_PLAY=int(f.plain_play),
                  CALLED=int(f.partnership == "called"), HAS_CONTRACT=int(f.has_contract),
                  ASIDE=1, MAXLEGAL=nc + len(f.play_checks) + 1, NCHECKS=len(f.play_checks),
                  MAXACTS=f.tricks * n + 2 * len(f.play_checks) + 1, EXPOSE_ID=f.expose_id,
                  EXPOSE=int(may_expose is not None and may_expose.const is not False),
                  FACE_DOWN=int(f.face_down))
    lines = [f"# the taash kernel of variant {f.name!r} (digest {f.digest}); made by taash.kernel.build",
             "import numpy as np", "from numba import njit", ""]
    lines += [f"{k} = {v}" for k, v in consts.items()]
    lines += [f"SUIT_OF = {_array(f.suit_of + [-1])}", f"RANK_OF = {_array(f.rank_of + [-1])}",
              f"STRENGTH = {_array(f.strength)}", f"CHECK_IDS = {_array([i for i, _, _ in f.play_checks] + [-1])}", f"POINT_OF = {_array(f.point_of)}",
              f"TRICKS_ONLY = {not any(f.point_of)}", f"RS = {_array(rs)}",
              f"CARD = np.array({[row + [-1] for row in f.card_table]!r}, dtype=np.int64)",
              f"SUITMASK = {_array([sum(1 << c for c in range(nc) if f.suit_of[c] == u) for u in range(ns)])}",
              f"NEXT_DSL = {_array([(i + 1) % n for i in range(n)] + [-1])}",
              f"PREVIOUS_DSL = {_array([(i - 1) % n for i in range(n)] + [-1])}",
              f"ABOVE = {_array([sum(1 << c for c in range(nc) if f.strength[c] > rs[r]) for r in range(nr + 1)])}",
              f"BELOW = {_array([sum(1 << c for c in range(nc) if f.strength[c] < rs[r]) for r in range(nr + 1)])}"]
    lines.append(_HELPERS)
    lines.append(_rule_fn(tr, "r_counts_as_trump", rules["play.counts_as_trump"], "condition"))
    lines.append(_TRICK)
    lines.append(_rule_fn(tr, "r_may_play", rules["play.may_play"], "cards"))
    lines.append(_rule_fn(tr, "r_may_expose", rules["play.may_expose"], "condition"))
    lines.append(_rule_fn(tr, "r_after_trick", rules["play.after_trick"], "effect"))
    lines.append(_rule_fn(tr, "r_after_card", rules["play.after_card"], "effect"))
    lines.append(_rule_fn(tr, "r_made", rules["scoring.made"], "condition", inline=False))
    lines.append(_rule_fn(tr, "r_effect", rules["scoring.effect"], "effect", inline=False))
    used = sorted({name for _, name, _ in f.play_checks}, key=f.declarations.index)
    for name in used:
        j = f.declarations.index(name)
        lines.append(_rule_fn(tr, f"r_when_{j}", rules[f"declare.{name}.when"], "condition"))
        lines.append(_rule_fn(tr, f"r_effect_{j}", rules[f"declare.{name}.effect"], "effect"))
        if name in f.questions:
            lines.append(_rule_fn(tr, f"r_answered_by_{j}", rules[f"declare.{name}.answered_by"], "seat"))
    checks, declare, question = [], [], []
    for k, (aid, name, su) in enumerate(f.play_checks):
        j, x = f.declarations.index(name), -1 if su is None else su
        checks += [f"    if ((S[DECLARED_KEYS] >> {k}) & 1) == 0 and r_when_{j}(S, me, {x}, 0):",
                   f"        out[n] = {aid}", "        n += 1"]
        declare += [f"        {'if' if not declare else 'elif'} a == {aid}:",
                    f"            S[DECLARED + {j}] += 1",
                    f"            S[DECLARED_KEYS] |= {1 << k}",
                    "            if seat == S[PARTNER]:",
                    "                S[PARTNER_REVEALED] = 1",
                    f"            r_effect_{j}(S, seat, {x}, 0)"]
        if name in f.questions:     # asked: the answering seat answers at once
            declare += ["            S[QUESTION_SEAT] = seat", f"            S[QUESTION_DECL] = {j}",
                        f"            S[TO_ACT] = r_answered_by_{j}(S, seat, {x}, 0)"]
    for name, ids in f.questions.items():
        if name not in used:
            continue
        j = f.declarations.index(name)
        question += [f"        if S[QUESTION_DECL] == {j}:"]
        question += [f"            out[{i}] = {aid}" for i, (aid, _) in enumerate(ids)]
        question += [f"            return {len(ids)}"]
        for aid, text in ids:
            bit = f.answers.index(text)
            declare += [f"        {'if' if not declare else 'elif'} a == {aid}:",
                        f"            S[ANSWERS] |= {1 << bit}",
                        "            S[TO_ACT] = S[QUESTION_SEAT]",
                        "            S[QUESTION_SEAT] = -1",
                        "            S[QUESTION_DECL] = -1"]
    play = _PLAY.replace("CHECKS\n", "\n".join(checks) + "\n" if checks else "")
    if question:    # a question pending: its answers only
        question = ["    if S[QUESTION_SEAT] >= 0:"] + question + ["        return 0"]
    play = play.replace("QUESTION\n", "\n".join(question) + "\n" if question else "")
    play = play.replace("DECLARE\n", "\n".join(declare) + "\n" if declare else "        pass\n")
    after = "    r_after_trick(S, winner, winner, S[TRICK_SEATS])\n" if rules["play.after_trick"].tree is not None else ""
    play = play.replace("AFTER_TRICK\n", after)
    # the card is in the trick; me: its player (State.apply_id)
    after = "    r_after_card(S, seat, -1, 0)\n" if rules["play.after_card"].tree is not None else ""
    play = play.replace("AFTER_CARD\n", after)
    aside_to = {"declarer": "S[DECLARER]", "last_trick": "S[LAST_WINNER]"}.get(f.widow_points_to, "-1")
    play = play.replace("ASIDE_TO", aside_to)
    lines.append(play)
    return "\n".join(lines)


def write_module(text: str, digest: str, cache_dir: Path) -> Path:
    """The path of the module of source ``text`` in the cache directory, written there
    once (its name: the variant's ``digest`` and a hash of ``text``)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256((KERNEL_VERSION + text).encode()).hexdigest()[:16]
    path = cache_dir / f"taash_kernel_{digest[:16]}_{key}.py"
    if not _holds(path, text):   # the same text keeps its file (numba's cache is keyed by it)
        clear_module(path)       # a file damaged on disk: numba's cache of it goes too
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return path


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def clear_module(path: Path) -> None:
    """Remove the kernel module at ``path`` and numba's cache of it (``__pycache__``
    beside it); missing files are skipped."""
    path = Path(path)
    for p in [path, *path.parent.glob(f"__pycache__/{path.stem}.*")]:
        try:
            p.unlink()
        except FileNotFoundError:
            pass


def _import_or_rebuild(path: Path):
    """`import_module`; when numba's cache of it cannot be read (a file cut short or
    damaged on disk), that cache is removed and the module compiled again, once."""
    try:
        return import_module(path)
    except Exception:
        text = path.read_text(encoding="utf-8")
        clear_module(path)
        path.write_text(text, encoding="utf-8")
        return import_module(path)


def import_module(path: Path):
    """Import the kernel module at ``path`` (once a process): numba compiles its entry
    points on import (they have signatures) or loads their machine code from its cache
    beside the file."""
    name = Path(path).stem
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def compile_module(path) -> None:
    """Import the kernel module at ``path`` so that numba compiles it into its cache (what
    the child process of `taash.kernel.warm` runs); one process at a time per module
    file (a lock file beside it, where ``fcntl`` exists): the next finds it cached."""
    path = Path(path)
    with open(path.with_suffix(".lock"), "a") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        _import_or_rebuild(path)


def load_module(text: str, digest: str, cache_dir: Path):
    """`write_module`, then `import_module` (a damaged cache of it compiled again, once).
    Raises OSError when the cache directory cannot be made or written."""
    return _import_or_rebuild(write_module(text, digest, cache_dir))

