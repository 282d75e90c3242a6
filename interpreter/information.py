"""Information sets: deal again, at random, the cards a seat cannot see (`State.resample`).

A search bot (determinization, information-set MCTS) needs deals of the unseen cards
that are consistent with everything its seat knows, drawn uniformly among all of them
(Cowling, Powley, Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG
2012; Long, Sturtevant, Buro, Furtak, "Understanding the success of perfect information
Monte Carlo sampling in game tree search", AAAI 2010; OpenSpiel's
``State::ResampleFromInfostate``). `Resampler` does it for every variant file with no
game's rule in its code: the variant's own rules, run by the engine, are the only
judge of consistency.

Design (positions model)
------------------------
- A *position* is a place of the deal: ``state.dealt[s][i]`` (seat ``s``'s i-th card in
  the order dealt, some perhaps not dealt yet) or ``state.widow[j]``. A deal is a card
  text per position; the copies of a card in a double deck share a text (§0.3), and a
  uniform draw of the physical cards gives every such deal the same chance, so that is
  the distribution sought.
- One replay of the history on the true deal follows every card from its position
  (dealt into a hand, played, laid face down, exposed, taken, discarded; engine
  vocabulary, docs/architecture.md "Actions") and marks the positions the seat has *seen*: its own
  cards as it receives them, every card played, the face-down trump card if it laid it
  (docs/rules.md §28.5) or once exposed (§28.7, §28.8), the widow if the engine shows it the
  widow (§304s.4). Every other position is *unseen*; its cards are the *pool*.
- A proposal puts the pool's cards on the unseen positions at random; seen cards keep
  their positions. A hidden action of another seat (its ``trump-card X``, ``take X``,
  ``discard X``, which the seat sees only as ``public_action``) is mapped to the card now
  at the position its card came from (so it stays legal: that card was in the hand or
  widow it came from, whatever it is). The seat knows nothing of why the other seat
  chose that card; tying the choice to its position makes each deal one world.
- The history is then replayed on a new `State` built from the proposed deal; the
  proposal is accepted only if every action is that of the seat to act and legal, and the
  seat's final observation equals the original one. The result is that replayed state.

Exact by construction: an accepted state has the same public history and gives the seat
the same observation. Uniform: the proposal is uniform over a superset of the consistent
deals (the deals that pass the filter below) and the acceptance test is deterministic, so
rejection sampling leaves the uniform distribution on the accepted set (von Neumann
1951; Devroye, "Non-Uniform Random Variate Generation", 1986, §II.3). The tries are
bounded (`MAX_TRIES`); on every shipped variant nearly every proposal is accepted
(at most a few tries in 28's hidden trump, where the face-down card's suit is constrained
only through the replay).

Filtering proposals (for speed late in the deal)
------------------------------------------------
Uniform proposals are rarely consistent late in a deal (voids, forced plays), so the
proposal is drawn uniformly among deals that also satisfy per-(position, card)
*exclusions*, derived from the variant's legality by the engine itself on the historic
states of the true replay: at each action ``a`` of another seat ``t`` that the seat sees
as it is (not a hidden one, whose true card must not leak into the filter),

- card ``c`` is excluded from the unseen positions then in ``t``'s hand if ``a`` is
  illegal with ``c`` added to ``t``'s hand (a failure to follow suit shows a void, a
  forced play shows the forcing card absent, an ``expose`` shows a void); skipped when
  ``a`` stays legal with the whole pool added;
- card ``c`` (single-copy decks) then in ``t``'s hand is *required* there (excluded from
  every unseen position outside that hand) if ``a`` is illegal with ``c`` taken out and
  with ``c`` replaced by any other card of the pool (a declaration shows the cards it
  needs); skipped when ``a`` stays legal with all of ``t``'s unseen cards taken out;
- with the holder of a called card known to the seat (§304.7), the card is excluded from
  the positions of every other seat.

Each test is run with every value of the facts the seat cannot see that the rules may
read besides hands: the trump suit while it is hidden from the seat (a face-down trump
card not the seat's, §28.5, or a suit another seat named secretly, §29b.5, which every
proposal draws anew, uniformly, until it is public), the partner while not revealed to
it (§304.5); a card is excluded only if the action is illegal under all of them.

Condition of soundness (an excluded deal is never consistent, so uniformity holds):
each seat's legal actions depend on its own hand through *forcing sets*: cascades such
as ``in_suit(hand, led) otherwise in_suit(hand, trump) otherwise hand`` and ``count(...)
== 0`` tests, where holding a card of a set fixed by public facts forbids an action
whatever else is held; and through *holds* conditions for requirements. Every shipped
variant's ``may_play``, ``may_expose``, declaration ``when`` and ``call`` legality are of
this kind. A rule outside it (say, "at least three spades") can make a filter unsound;
exactness never depends on the filter (the replay decides), and the uniformity test of
tests/engine/test_information.py is the check for a new variant file.

The seen cards of another seat keep the positions they were dealt in. Which of its
positions held a card it played is not part of the seat's information, but fixing it
changes neither the deal's future nor the relative number of deals per situation
(the hands held now) as long as no rule reads a hand before its last packet except the
hidden actions above, whose positions are re-dealt: true of every shipped variant (no
auction rule reads the hand). Under a rule that does, the result is still exact.

The sampler: positions with the same exclusions form groups, cards with the same allowed
groups form classes; the number of ways to place the classes is counted exactly by
dynamic programming over the remaining capacities (a count of contingency tables
weighted by multinomials, in integers), a table is drawn with probability proportional
to its count, then cards are shuffled within it: an exact uniform draw among the deals
the filter allows, with no rejection for the filter itself. The model of a state is
built once and cached, so a search that resamples the same state many times pays only
for the draw and the replay.
"""

from __future__ import annotations

import json
import random
from bisect import bisect_right, insort
from collections import Counter, OrderedDict
from math import factorial

from .draws import shuffle
from .errors import IllegalActionError, StateError, TaashError
from .mechanics import MECHANICS

MAX_TRIES = 2000
_CACHE_SIZE = 32
# the State fields the rules may read that a seat may not see (`Mechanic.hidden_facts`),
# and the mechanics that give their other values (`Mechanic.alternatives`)
HIDDEN_FACTS = tuple(f for m in MECHANICS for f in m.hidden_facts)
_ALTERNATIVES = tuple(m.alternatives for m in MECHANICS if m.alternatives is not None)
# what a seat knows of the deal from each mechanic, for `from_observation` (Mechanic.known_deal)
_KNOWN_DEAL = tuple(m.known_deal for m in MECHANICS if m.known_deal is not None)
# how each mechanic's actions move the cards in `Resampler`'s model (Mechanic.follow), what
# a seat sees as the deal goes on (Mechanic.reveal), and what its public facts exclude
# (Mechanic.exclude)
_FOLLOW = {kind: f for m in MECHANICS for kind, f in m.follow.items()}
_REVEAL = tuple(m.reveal for m in MECHANICS if m.reveal is not None)
_EXCLUDE = tuple(m.exclude for m in MECHANICS if m.exclude is not None)
# the action kinds whose card leaves the actor's hand (Mechanic.from_hand)
_FROM_HAND = frozenset(k for m in MECHANICS for k in m.from_hand)
_cache: "OrderedDict[tuple, Resampler]" = OrderedDict()


class ResampleError(TaashError):
    """No consistent deal was found within the bound of tries (or the model of the deal
    is inconsistent with the engine): a bug to report, never a property of the state."""


def resample(state, seat: int, rng=None, max_tries: int = MAX_TRIES):
    """A new, independent `State` at the same point as ``state`` whose cards unseen by
    ``seat`` are dealt again uniformly among the deals consistent with ``seat``'s
    information (module docstring). ``rng``: a ``random.Random`` (or a seed); the same
    rng state gives the same result. Raises StateError for a seat out of range,
    ResampleError when ``max_tries`` proposals are all rejected.

    >>> import random
    >>> from taash.interpreter import Match, load_variant
    >>> st = Match(load_variant("29"), seed=1).new_deal()
    >>> me = st.to_act
    >>> r = st.resample(me, random.Random(7))
    >>> r.observation(me) == st.observation(me), r.hands[me] == st.hands[me]
    (True, True)
    >>> r.dealt == st.dealt          # the cards of the other seats were dealt again
    False
    """
    state.v.check_seat(seat)
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    return resampler(state, seat).sample(rng, max_tries)


def resampler(state, seat: int) -> "Resampler":
    """The (cached) `Resampler` of ``state`` for ``seat``."""
    key = (id(state.v), seat, state.dealer, state.deal_number, tuple(state.start_scores),
           state.start_vars, tuple(map(tuple, state.dealt)), tuple(state.widow), tuple(state.history))
    r = _cache.get(key)
    if r is None:
        r = Resampler(state, seat)
        _cache[key] = r
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    else:
        _cache.move_to_end(key)
    return r


def _new_state(start, dealt, widow):
    """A State at the start of the deal ``start`` = (the State's class, variant, dealer,
    scores, deal number, variables at the deal's start) with the cards ``dealt`` (ids per
    seat, in the order dealt) and ``widow``."""
    cls, v, dealer, scores, number, variables = start
    return cls(v, dealer=dealer, hands=dealt, widow=widow or None, scores=scores,
                 deal_number=number, variables=list(variables))


class _Probe:
    """Is action ``a`` of seat ``t`` legal at historic state ``st`` with another hand, or
    other values of the hidden facts (`HIDDEN_FACTS`)? ``st`` is changed for each
    question and restored (computing legal actions changes nothing else)."""

    def __init__(self, st, t, a):
        self.w, self.t, self.a = st, t, a
        self.saved = (st.hands[t], [(f, getattr(st, f)) for f in HIDDEN_FACTS])

    def legal(self, hand, alt=None) -> bool:
        """``alt``: {hidden fact: its value for the question} (None: the true ones)."""
        w = self.w
        old_hand, facts = self.saved
        w.hands[self.t] = hand
        if alt:
            for f, x in alt.items():
                setattr(w, f, x)
        w._legal = w._legal_actions = None
        ok = self.a.id in w.legal_ids()
        w.hands[self.t] = old_hand
        for f, x in facts:
            setattr(w, f, x)
        w._legal = w._legal_actions = None
        return ok


class Resampler:
    """What ``seat`` knows of ``state``'s deal, and the draw of consistent deals.

    ``unseen``: position ids (``pos_of`` maps an id to ``(seat, i)`` or ``("widow", j)``)
    whose cards ``seat`` has not seen; ``pool``: their cards (ids, copies repeated);
    ``excluded``: position id -> card ids it may not hold. `sample(rng)` -> State: a
    proposal (`draw`), its State (`deal_state`), the history replayed on it (`replay`)
    and the seat's observation compared with ``target`` (kernel/worlds.py makes the same
    steps on the compiled kernel).

    The model that the mechanics move as the true deal is replayed (`Mechanic.follow`,
    `Mechanic.reveal`; position ids throughout): ``hand[s]``, seat s's hand;
    ``aside[s]``, its cards out of its hand that are still its own (a trump card laid
    face down); ``in_widow``, those still in the widow; ``seen[p]``; ``skip``, positions
    dealt to a seat that never reach its hand; ``origin``, history index of a hidden action ->
    position of its card; ``redraw``, history index -> ``f(rng) -> Action``, a hidden
    choice each proposal makes anew; `pop_card`. ``final``: the State resampled (while the
    model is built); ``target``: its observation for ``seat``, ``offset[s]``: the first
    position of seat s (for `Mechanic.exclude`)."""

    def __init__(self, state, seat: int):
        v = self.v = state.v
        self.seat = seat
        self.final = state
        self.start = (type(state), v, state.dealer, list(state.start_scores), state.deal_number,
                      state.start_vars)
        n = v.players
        deck = v.deck
        self.offset = [0] * (n + 1)
        for s in range(n):
            self.offset[s + 1] = self.offset[s] + len(state.dealt[s])
        self.widow0 = self.offset[n]
        self.card = [c for h in state.dealt for c in h] + list(state.widow)
        npos = len(self.card)
        self.pos_of = ([(s, i) for s in range(n) for i in range(len(state.dealt[s]))]
                       + [("widow", j) for j in range(len(state.widow))])
        seen = self.seen = [False] * npos
        self.origin = {}          # history index -> position of the hidden action's card
        self.redraw = {}          # history index -> f(rng): a hidden choice made anew
        steps = []                # (history index, positions then in the actor's hand)
        hand = self.hand = [[] for _ in range(n)]
        self.aside = [[] for _ in range(n)]
        nxt = [self.offset[s] for s in range(n)]
        skip = self.skip = set()
        self.in_widow = list(range(self.widow0, npos))
        st = _new_state(self.start, state.dealt, state.widow)

        def sync():
            for s in range(n):
                while len(hand[s]) < len(st.hands[s]):
                    while nxt[s] in skip:
                        nxt[s] += 1
                    if nxt[s] >= self.offset[s + 1]:
                        raise ResampleError(f"seat {s} holds more cards than it was dealt")
                    hand[s].append(nxt[s])
                    nxt[s] += 1
                if sorted(self.card[p] for p in hand[s]) != list(st.hands[s]):
                    raise ResampleError(f"the model of seat {s}'s hand differs from the engine's")
            for p in hand[seat]:
                seen[p] = True
            for reveal in _REVEAL:
                reveal(self, st)

        sync()
        for k, (t, a) in enumerate(state.history):
            hidden = t != seat and state.public_action(t, a, seat) != a
            if t != seat and not hidden:  # a hidden action is legal by its remapping
                steps.append((k, list(hand[t])))
            follow = _FOLLOW.get(a.kind)
            if follow is not None:
                follow(self, k, t, a, hidden)
            st.apply(a)
            sync()
        self.final = None          # the build's only: the cache keeps no State
        self.unseen = [p for p in range(npos) if not seen[p]]
        self.pool = sorted(self.card[p] for p in self.unseen)   # by card, not by where they lie
        self.target = state.observation(seat)
        self.history = list(state.history)
        self.excluded = {p: set() for p in self.unseen}
        if self.unseen:
            self._derive_exclusions(state, dict(steps), deck)
        self._build_tables()

    def pop_card(self, positions: list, card: int):
        """The first position of ``positions`` holding ``card``, taken out of the list
        (None if none holds it)."""
        for k, p in enumerate(positions):
            if self.card[p] == card:
                return positions.pop(k)
        return None

    # -- exclusions -------------------------------------------------------------------
    def _alternatives(self, st) -> list[dict]:
        """The values of the facts hidden from the seat at historic state ``st``, each a
        {field: value} of every mechanic's `Mechanic.alternatives` combined ({}: the
        true values), the true ones first."""
        combos = [{}]
        for alternatives in _ALTERNATIVES:
            alts = alternatives(st, self.seat)
            if alts:
                combos = [dict(c, **a) for c in combos for a in [{}] + alts]
        return combos

    def _derive_exclusions(self, state, steps, deck):
        """``steps``: history index -> positions then in the actor's hand, for the actions
        of other seats shown as they are; replays the true deal and asks the engine."""
        pool_ids = sorted(set(self.pool))
        unseen = set(self.unseen)
        single = deck.max_copies == 1
        st = _new_state(self.start, state.dealt, state.widow)
        for k, (t, a) in enumerate(self.history):
            hpos = steps.get(k)
            mine = [p for p in hpos if p in unseen] if hpos else None
            if not mine:
                st.apply(a)
                continue
            base = sorted(st.hands[t])
            probe = _Probe(st, t, a)
            alts = None

            def illegal(h):
                nonlocal alts
                if probe.legal(h):
                    return False
                if alts is None:
                    alts = self._alternatives(st)
                return not any(probe.legal(h, alt) for alt in alts[1:])

            # exclusions: a card whose presence would have forbidden the action (none if
            # the action stays legal with every card of the pool added: forcing sets)
            if not probe.legal(sorted(base + pool_ids)):
                bad = set()
                for c in pool_ids:
                    h = list(base)
                    insort(h, c)
                    if illegal(h):
                        bad.add(c)
                if bad:
                    for p in mine:
                        self.excluded[p] |= bad
            # requirements: a card the action needs in the hand (none if the action stays
            # legal without all the unseen cards of the hand: holds conditions)
            held = [self.card[p] for p in mine]
            rest = list(base)
            for c in held:
                rest.remove(c)
            if single and not probe.legal(rest):
                for p in mine:
                    c = self.card[p]
                    h = list(base)
                    h.remove(c)
                    if not illegal(h):
                        continue
                    others = [x for x in pool_ids if x != c and x not in base]
                    if others and all(illegal(sorted(h + [x])) for x in others):
                        inside = set(mine)
                        for q in self.unseen:
                            if q not in inside:
                                self.excluded[q].add(c)
            st.apply(a)
        for exclude in _EXCLUDE:   # what the public facts exclude (a called card's holder)
            exclude(self)

    # -- the draw -----------------------------------------------------------------------
    def _build_tables(self):
        groups = {}
        for p in self.unseen:
            groups.setdefault(frozenset(self.excluded[p]), []).append(p)
        keys = sorted(groups, key=lambda g: (len(g), sorted(g)))
        self.groups = [groups[g] for g in keys]
        caps = tuple(len(g) for g in self.groups)
        classes = {}
        for c in self.pool:
            sig = tuple(i for i, g in enumerate(keys) if c not in g)
            classes.setdefault(sig, []).append(c)
        order = sorted(classes, key=lambda s: (len(s), s))
        self.classes = [(sig, classes[sig]) for sig in order]
        self._memo = {}
        self.count = self._f(0, caps)
        self.caps = caps
        if self.count == 0:
            raise ResampleError("no deal satisfies the exclusions derived from the history "
                                "(an unsound filter for this variant: see interpreter/information.py)")

    def _rows(self, sig, n, r):
        """Ways to spread ``n`` cards over the groups ``sig`` within capacities ``r``."""
        out = []
        row = [0] * len(r)

        def rec(i, left):
            if i == len(sig) - 1:
                g = sig[i]
                if left <= r[g]:
                    row[g] = left
                    out.append(tuple(row))
                    row[g] = 0
                return
            g = sig[i]
            for x in range(min(left, r[g]) + 1):
                row[g] = x
                rec(i + 1, left - x)
            row[g] = 0

        if sig:
            rec(0, n)
        elif n == 0:
            out.append(tuple(row))
        return out

    def _f(self, j, r):
        key = (j, r)
        got = self._memo.get(key)
        if got is not None:
            return got[0]
        if j == len(self.classes):
            total, table = (1 if not any(r) else 0), None
        else:
            sig, cards = self.classes[j]
            n = len(cards)
            table = []
            total = 0
            nf = factorial(n)
            for row in self._rows(sig, n, r):
                w = nf
                for x in row:
                    w //= factorial(x)
                rest = self._f(j + 1, tuple(a - b for a, b in zip(r, row)))
                if rest:
                    total += w * rest
                    table.append((total, row))
            table = ([w for w, _ in table], [row for _, row in table])
        self._memo[key] = (total, table)
        return total

    def draw(self, rng: random.Random) -> list[int]:
        """One deal: a card per position (ids), uniform among those the exclusions allow."""
        deal = list(self.card)
        r = self.caps
        into = [[] for _ in self.groups]
        for j, (_sig, cards) in enumerate(self.classes):
            total, (cums, rows) = self._memo[(j, r)]
            row = rows[bisect_right(cums, rng.randrange(total))]
            cs = list(cards)
            shuffle(cs, rng)
            k = 0
            for g, m in enumerate(row):
                if m:
                    into[g].extend(cs[k:k + m])
                    k += m
            r = tuple(a - b for a, b in zip(r, row))
        for g, ps in enumerate(self.groups):
            cs = into[g]
            shuffle(cs, rng)
            for p, c in zip(ps, cs):
                deal[p] = c
        return deal

    def deal_state(self, deal: list[int]):
        """A new State at the start of the deal with the cards of ``deal`` (a card id per
        position, as `draw` gives), its history not played."""
        n, off = self.v.players, self.offset
        return _new_state(self.start, [deal[off[s]:off[s + 1]] for s in range(n)], deal[self.widow0:])

    def replay(self, st, deal: list[int], rng: random.Random, start: int = 0, stop: int | None = None) -> bool:
        """Apply the history's actions ``start`` to ``stop`` (None: its end) to ``st`` (a
        State of ``deal`` at action ``start``), a hidden action of another seat mapped to
        the card now at its position, a hidden choice drawn anew from ``rng``; whether
        every one was that of the seat to act and legal (``st`` is left at the first
        that was not)."""
        hist = self.history
        origin, redraw = self.origin, self.redraw
        cards = self.v.card_actions
        for k in range(start, len(hist) if stop is None else stop):
            t, a = hist[k]
            if st.to_act != t:
                return False
            p = origin.get(k)
            if p is not None:
                a = cards[a.kind][deal[p]]
            elif k in redraw:
                a = redraw[k](rng)
            try:
                st.apply_id(a.id)
            except IllegalActionError:
                return False
        return True

    def sample(self, rng: random.Random, max_tries: int = MAX_TRIES):
        """A consistent State (module docstring); raises ResampleError after
        ``max_tries`` rejected proposals."""
        for _ in range(max_tries):
            deal = self.draw(rng)
            st = self.deal_state(deal)
            if self.replay(st, deal, rng) and st.observation(self.seat) == self.target:
                return st
        raise self.exhausted(max_tries)

    def exhausted(self, max_tries: int) -> ResampleError:
        """The error of ``max_tries`` proposals all rejected."""
        text = self.v.deck.text
        return ResampleError(f"no consistent deal for seat {self.seat} in {max_tries} tries "
                             f"({len(self.history)} actions of {self.v.name!r}; cards "
                             f"{[text[c] for c in self.pool]} unseen)")


def clear_cache() -> None:
    """Forget every cached `Resampler` (a benchmark of building them: playout.bench_resample)."""
    _cache.clear()


# -- a State from an observation alone (State.from_observation) ---------------------------
class DealKnown:
    """What the seat of an observation knows of its deal, as `from_observation` gathers
    it from each mechanic (`Mechanic.known_deal(b)`, in the list's order): ``v``, ``obs``,
    ``seat``; ``history``, the observation's (seat, action text) pairs, which a mechanic
    may rewrite where the seat now knows a hidden action (a face-down card exposed, a
    secret suit shown); card ids: ``more``, those the seat was dealt beyond its hand and
    plays, ``less``, those of its hand it was not dealt, ``widow``, the widow's it saw in
    the widow's order; ``placed``, (seat, card, index) of a card a seat was dealt at its
    index in the order dealt, or in front (index None: a card laid from the first
    packet); ``held``, (seat, card) of a card a seat is known to hold or have played;
    ``reserved``, (seat, index) of positions whose card is unknown and must stay free;
    ``fixed``, (seat, index) -> card, filled from ``placed``."""

    def __init__(self, v, obs: dict, seat: int, history: list):
        self.v, self.obs, self.seat, self.history = v, obs, seat, history
        self.more, self.less, self.widow = [], [], []
        self.placed, self.held = [], []
        self.reserved, self.fixed = set(), {}


class RebuildError(TaashError, ValueError):
    """No State consistent with an observation was found within the bound of tries
    (`from_observation`)."""


def from_observation(cls, v, obs: dict, rng=None, tries: int = 40, repairs: int = 200):
    """A State of variant ``v`` (of class ``cls``, `State`) at the point of ``obs``
    (``State.observation(seat)``, or its JSON read back, as the arena sends it) whose
    replay of ``obs["history"]`` is legal and whose observation for ``obs["seat"]``
    equals ``obs`` (`State.from_observation`; OpenSpiel's ``ResampleFromInfostate`` from
    an information state alone). The seat's own cards and every card shown to it are
    placed where they were; the other cards are dealt at random and then *repaired*:
    when an action of another seat is illegal in the replay (a card of the suit led held
    by a seat that did not follow, a declaration's cards missing), one of that seat's
    unknown cards is swapped with an unknown card elsewhere so that the action becomes
    legal (the engine's own legality decides), and the replay starts again. Hidden
    actions (another seat's face-down trump card, widow take or discard) get a card the
    seat holds at random among those not needed later. Not uniform: `resample` from the
    result is. ``rng``: a random.Random or a seed. Raises RebuildError after ``tries``
    fresh deals with at most ``repairs`` swaps each, StateError for a seat that is not
    one."""
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    if v.deal_sizes is not None:    # a flow that changes by deal: the observed deal's variant
        try:
            v = v.for_deal(obs.get("deal", 0))
        except ValueError as e:
            raise StateError(f"observation: deal {e}") from None
    v.check_seat(obs.get("seat"))
    n, deck = v.players, v.deck
    seat = obs["seat"]
    parse = deck.parse
    amap = v.action_map
    cps = v.cards_per_seat
    # what the seat knows of the deal: each mechanic's part (`Mechanic.known_deal`: the
    # exchange, a face-down trump card, a secret suit once shown, a called card)
    b = DealKnown(v, obs, seat, [(int(t), a) for t, a in obs["history"]])
    for known_deal in _KNOWN_DEAL:
        known_deal(b)
    hist, fixed = b.history, b.fixed
    # cards known per seat, in the order they must come (a card placed in front first:
    # it is laid from the first packet): the cards it played, and the mechanics' parts
    known = [[] for _ in range(n)]
    front = [[] for _ in range(n)]
    for t, text in hist:
        a = amap.get(text)
        if a is not None and a.kind == "play":
            known[t].append(a.code)
    # the seat's own dealt cards: hand + plays + more (discards, its face-down card) - less (takes)
    mine = Counter(parse(c) for c in obs["hand"]) + Counter(known[seat]) + Counter(b.more)
    mine -= Counter(b.less)
    for t in range(n):
        cnt = mine if t == seat else Counter(known[t])
        for s, c, i in b.placed:
            if s != t:
                continue
            if cnt[c] > 0:
                cnt[c] -= 1
            if i is None:
                front[t].append(c)
            else:
                fixed[(t, i)] = c
        known[t] = front[t] + sorted(cnt.elements())
    for t, c in b.held:
        if c not in known[t] and c not in [x for (s, _), x in fixed.items() if s == t]:
            known[t].append(c)
    reserved, widow_known = b.reserved, b.widow
    pool = Counter({c: deck.count[c] for c in deck.ids})
    for t in range(n):
        pool -= Counter(known[t])
    pool -= Counter(fixed.values())
    pool -= Counter(widow_known)
    pool = sorted(pool.elements())
    # slots: per seat the dealt positions, then the widow's (seat n)
    base = []
    free = []                                   # (owner, index) of positions with no known card
    for t in range(n):
        row = [None] * cps
        for (s, i), c in fixed.items():
            if s == t:
                row[i] = c
        # the seat's own cards from the first position (its hand so far is what was
        # dealt so far); another seat's front cards first, the cards it played last (a
        # card laid face down comes from an early packet: leave room there)
        open_ = [i for i in range(cps) if row[i] is None and (t, i) not in reserved]
        free += [(t, i) for i in range(cps) if (t, i) in reserved]
        lay = known[t] if t == seat else front[t] + [None] * (len(open_) - len(known[t])) + known[t][len(front[t]):]
        if len(known[t]) > len(open_):
            raise RebuildError(f"seat {t} shows more cards than it was dealt")
        for i, c in zip(open_, lay + [None] * len(open_)):
            row[i] = c
            if c is None:
                free.append((t, i))
        base.append(row)
    wrow = list(widow_known) + [None] * (v.widow_size - len(widow_known))
    free += [(n, j) for j in range(len(widow_known), v.widow_size)]
    base.append(wrow)
    if len(free) != len(pool):
        raise RebuildError(f"{len(pool)} unknown cards for {len(free)} positions")
    scores = _start_scores(v, obs)
    carried = _carried_variables(cls, v, obs, scores)
    needed = [Counter(known[t]) for t in range(n)]
    for t in range(n):                 # a card fixed at a position is needed there too
        for (s, i), c in fixed.items():
            if s == t:
                needed[t][c] += 1
    text = deck.text
    for _ in range(tries):
        deal = [r[:] for r in base]
        cards = pool[:]
        rng.shuffle(cards)
        for (t, i), c in zip(free, cards):
            deal[t][i] = c
        for _ in range(repairs):
            st = cls(v, dealer=obs["dealer"], hands=[[text[c] for c in r] for r in deal[:n]],
                       widow=[text[c] for c in deal[n]] or None, scores=scores, deal_number=obs.get("deal", 0),
                       variables=carried)
            bad = _replay(st, hist, seat, needed, rng)
            if bad is None:
                if _same(st.observation(seat), obs):
                    return st
                break
            if not _repair(st, bad, deal, free, rng):
                break
    raise RebuildError(f"no deal consistent with seat {seat}'s observation in {tries} tries")


def _carried_variables(cls, v, obs, scores):
    """The variables a rebuilt deal starts with (`State`'s ``variables``): the variant's
    match-scope variables carried from the deals before, the public ones as ``obs``
    shows them and the others at their values at the match's start; None when the
    variant has none (every variable then starts at its initial rule). A public match-scope
    variable that a rule changes during the deal shows its new value, so the rebuilt
    observation differs and `from_observation` raises RebuildError, as without this."""
    carried = [x for x in v.variables if x.scope == "match"]
    if not carried:
        return None
    shown = obs.get("variables") or {}
    values = list(cls(v, dealer=obs["dealer"], scores=scores, deal_number=obs.get("deal", 0)).vars)
    for x in carried:
        if x.public and x.name in shown:
            values[x.index] = v.variable_value(x, shown[x.name])
    return values


def _start_scores(v, obs):
    sc = obs.get("score")
    if sc is None:
        return None
    if v.score_unit == "side":
        out = [0] * v.sides
        for s in range(v.players):
            out[v.side_of[s]] = sc[s]
        return out
    return list(sc)


def _same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _replay(st, hist, seat, needed, rng):
    """Replay ``hist`` on ``st``; None if all of it is legal, else ``(seat, action id or
    None)`` of the first refused step (``st`` is left just before it)."""
    acts = st.v.actions
    amap = st.v.action_map
    used = [Counter() for _ in range(st.v.players)]   # needed cards played so far
    for t, text in hist:
        if st.to_act != t:
            return (-1, None)
        a = amap.get(text)
        if a is None:                            # a hidden action of another seat
            spare = Counter(st.hands[t]) - (needed[t] - used[t])
            opts = [i for i in st.legal_ids() if acts[i].kind == text and acts[i].code is not None
                    and (text not in _FROM_HAND or spare[acts[i].code] > 0)]
            if not opts:
                return (t, None)
            st.apply_id(opts[rng.randrange(len(opts))])
            continue
        if a.id not in st.legal_ids():
            return (t, a.id)
        if a.kind == "play":
            used[t][a.code] += 1
        st.apply_id(a.id)
    return None


def _repair(st, bad, deal, free, rng) -> bool:
    """Make the refused action legal by swapping unknown cards of the refused seat (in
    its hand at ``st``) with unknown cards elsewhere: every card that alone forbids the
    action (a forcing set: a card of the suit led when the seat did not follow) goes out
    for one that does not; if the action needs a card (a declaration), the first single
    swap that makes it legal; else a random swap. False if nothing can be swapped."""
    t, aid = bad
    if t < 0:
        return False
    hand0 = st.hands[t]
    mine = [p for p in free if p[0] == t and deal[p[0]][p[1]] in hand0]
    others = [p for p in free if p[0] != t]
    if not mine or not others:
        return False
    rng.shuffle(mine)
    rng.shuffle(others)
    if aid is not None:
        rest = Counter(hand0) - Counter(deal[p[0]][p[1]] for p in mine)
        rest = sorted(rest.elements())
        if _legal_hand(st, t, rest, aid):
            outs = [p for p in mine if not _legal_hand(st, t, sorted(rest + [deal[p[0]][p[1]]]), aid)]
            ins = [q for q in others if _legal_hand(st, t, sorted(rest + [deal[q[0]][q[1]]]), aid)]
            if outs and len(ins) >= len(outs):
                for p, q in zip(outs, ins):
                    deal[p[0]][p[1]], deal[q[0]][q[1]] = deal[q[0]][q[1]], deal[p[0]][p[1]]
                return True
        else:
            for p in mine:
                c = deal[p[0]][p[1]]
                for q in others:
                    d = deal[q[0]][q[1]]
                    if d != c:
                        h = list(hand0)
                        h.remove(c)
                        h.append(d)
                        if _legal_hand(st, t, sorted(h), aid):
                            deal[p[0]][p[1]], deal[q[0]][q[1]] = d, c
                            return True
    p, q = mine[0], others[0]
    deal[p[0]][p[1]], deal[q[0]][q[1]] = deal[q[0]][q[1]], deal[p[0]][p[1]]
    return True


def _legal_hand(st, t: int, hand, aid: int) -> bool:
    """Would action ``aid`` be legal for ``t`` at ``st`` holding ``hand`` (sorted ids)?
    (`_Probe`: ``st`` is changed for the question and restored.)"""
    return _Probe(st, t, st.v.actions[aid]).legal(hand)
