"""A learner's observation vector of the play phase written from the kernel's arrays, for
a batch of deals at once (numba; the ``fast`` extra).

The observation's encoding is the learners' (taash.learn.encoding, which this module does
not import: it is given the encoding's offsets and look-up tables as arguments). In the
play of the tricks only some blocks of a seat's vector move with each card: ``to_act``,
``hand``, ``hand_sizes``, ``trick``, ``played``, ``tricks_won`` and ``points``; every other
block stays as it was when play began, until one of the state's facts that are not the
play's own moves (trump exposed, a declaration, a partner revealed, a variable, the end of
the deal: `moving` lists the play's own places of the `Layout`, `watched` the rest). So a
caller encodes each seat once with the Python encoding (the *base*: a row per seat), keeps
the hand counts of that moment (`hand_counts`), and at each step `write_rows` copies the
base of the seat to act and writes the moving blocks from the array; when `changed` says
a watched fact moved (or the deal ended) the caller takes a new base from the engine.

Shapes: ``SS`` (N, L) int64, row i the kernel array of deal i (`Layout.size` = L);
``rows`` int64, the deals to handle; ``base`` (N, n, size) float32, seat s's base vector of
deal i at ``base[i, s]``; ``counts`` (N, n, C) int64, the seats' hands then; ``P`` the
int64 parameters of `params`. Seats in the vector are relative to the observer, as the
encoding defines them (seat s at index (s - observer) mod n); the observer is always the
seat to act.
"""

from __future__ import annotations

import numpy as np

try:        # the fast extra
    from numba import njit
except ImportError:     # without it the functions are plain Python (callers use the engine instead)
    def njit(*args, **kwargs):
        return args[0] if args and callable(args[0]) else (lambda f: f)

# P's places (params)
(TO_ACT, IN_TRICK, HANDS, COUNTS, TRICK_CARDS, TRICK_SEATS, SEAT_TRICKS, SEAT_POINTS, TERMINAL, PLAYERS, CARDS,
 O_TO_ACT, O_HAND, O_HAND_SIZES, O_TRICK, O_PLAYED, O_TRICKS_WON, O_POINTS, NPARAMS) = range(19)

# the array's scalars the play moves, which the moving blocks are written from (or which
# no block reads: the order of the trick's seats, the trick led); the per-seat and per-side
# arrays below too
MOVING_SCALARS = ("to_act", "terminal", "led", "in_trick", "tricks_done", "last_winner")
MOVING_ARRAYS = ("hands", "counts", "side_points", "seat_points", "side_tricks", "seat_tricks", "seat_side_tricks",
                 "trick_cards", "trick_seats", "trick_after", "won_cards")
# the blocks `write_rows` writes
BLOCKS = ("to_act", "hand", "hand_sizes", "trick", "played", "tricks_won", "points")


def moving(lay) -> np.ndarray:
    """The places of a `Layout`'s array that the play of a card moves (bool, length
    ``lay.size``)."""
    out = np.zeros(lay.size, bool)
    names = sorted(lay.at, key=lay.at.get)
    ends = {name: (lay.at[names[k + 1]] if k + 1 < len(names) else lay.size) for k, name in enumerate(names)}
    for name in MOVING_SCALARS + MOVING_ARRAYS:
        out[lay.at[name]:ends[name]] = True
    return out


def watched(lay) -> np.ndarray:
    """The places the caller must take a new base for when they change: int64 indices of
    every place but `moving`'s, and ``terminal`` (the deal's end)."""
    keep = ~moving(lay)
    keep[lay.at["terminal"]] = True
    return np.flatnonzero(keep).astype(np.int64)


def params(lay, players: int, cards: int, copies: bool, offsets: dict) -> np.ndarray:
    """The int64 parameters of `write_rows` and `hand_counts`: the `Layout`'s places, the
    players, the card ids (C) and the encoding's ``offsets`` (block name -> start) of
    `BLOCKS`. ``copies``: the deck has copies of a card (hands as counts, not bitsets)."""
    at = lay.at
    P = np.zeros(NPARAMS, np.int64)
    P[TO_ACT], P[IN_TRICK], P[HANDS] = at["to_act"], at["in_trick"], at["hands"]
    P[COUNTS] = at["counts"] if copies else -1
    P[TRICK_CARDS], P[TRICK_SEATS] = at["trick_cards"], at["trick_seats"]
    P[SEAT_TRICKS], P[SEAT_POINTS], P[TERMINAL] = at["seat_tricks"], at["seat_points"], at["terminal"]
    P[PLAYERS], P[CARDS] = players, cards
    for k, name in zip((O_TO_ACT, O_HAND, O_HAND_SIZES, O_TRICK, O_PLAYED, O_TRICKS_WON, O_POINTS), BLOCKS):
        P[k] = offsets[name]
    return P


@njit(cache=True, inline='always')
def _count(S, P, seat, c):
    if P[COUNTS] >= 0:
        return S[P[COUNTS] + seat * P[CARDS] + c]
    return (S[P[HANDS] + seat] >> c) & 1


@njit(cache=True)
def hand_counts(S, P, out):
    """Write the copies of each card in each seat's hand of array ``S`` into ``out`` (n, C)."""
    for s in range(P[PLAYERS]):
        for c in range(P[CARDS]):
            out[s, c] = _count(S, P, s, c)


@njit(cache=True)
def changed(SS, rows, snap, watch, flags):
    """``flags[k]`` = 1 when deal ``rows[k]`` ended or a ``watch``ed place of its array
    differs from ``snap`` (the array when its base was taken), else 0."""
    for k in range(rows.shape[0]):
        i = rows[k]
        f = 0
        for j in watch:
            if SS[i, j] != snap[i, j]:
                f = 1
                break
        flags[k] = f


@njit(cache=True)
def write_rows(SS, rows, P, base, counts, sizes, won, points_total, legal, nlegal, obs, mask, seat):
    """For each deal i of ``rows``: ``obs[i]`` the vector of its seat to act (its base
    with the moving blocks written from ``SS[i]``), ``mask[i]`` (int8) 1 at the first
    ``nlegal[i]`` ids of ``legal[i]``, ``seat[i]`` the seat. ``sizes[k]``: the
    ``hand_sizes`` value of k cards held; ``won[k]``: the ``tricks_won`` value of k
    tricks; ``points_total``: the divisor of ``points``."""
    n, C = P[PLAYERS], P[CARDS]
    for k in range(rows.shape[0]):
        i = rows[k]
        S = SS[i]
        me = S[P[TO_ACT]]
        row = obs[i]
        row[:] = base[i, me]
        at = P[O_TO_ACT]
        for r in range(n + 1):
            row[at + r] = 0
        row[at] = 1                                      # the observer: relative seat 0
        at = P[O_HAND]
        for c in range(C):
            row[at + c] = _count(S, P, me, c)
        at = P[O_TRICK]
        for j in range(n * C):
            row[at + j] = 0
        for j in range(S[P[IN_TRICK]]):
            r = (S[P[TRICK_SEATS] + j] - me) % n
            row[at + r * C + S[P[TRICK_CARDS] + j]] += 1
        for s in range(n):
            r = (s - me) % n
            held = 0
            at = P[O_PLAYED] + r * C
            for c in range(C):
                x = _count(S, P, s, c)
                held += x
                if x != counts[i, s, c]:
                    row[at + c] += counts[i, s, c] - x
            row[P[O_HAND_SIZES] + r] = sizes[held]
            row[P[O_TRICKS_WON] + r] = won[S[P[SEAT_TRICKS] + s]]
            row[P[O_POINTS] + r] = np.float32(S[P[SEAT_POINTS] + s] / points_total)
        m = mask[i]
        m[:] = 0
        for j in range(nlegal[i]):
            m[legal[i, j]] = 1
        seat[i] = me
