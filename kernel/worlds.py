"""Worlds on the kernel: the deals a search bot samples for a seat (`State.resample`,
interpreter/information.py), judged on the kernel's array in the play phase.

    w = k.worlds(root, seat)      # a `Worlds` (Unsupported: the engine's resample)
    S = w.sample(rng)             # a world as the kernel's array, at root's point
    w.last_start()                # its State at the first lead (its deal, the calls)

The engine's `Resampler.sample` draws a proposal (`Resampler.draw`), builds a State of it
and replays the whole history on the engine, accepting it when every action is that of
the seat to act and legal and the seat's observation at the end equals the true one.
`Worlds.sample` makes the same proposals from the same draws of ``rng`` and accepts
exactly the same ones, so it gives the same worlds (the search bots' decisions with a
playouts budget are the same on both paths, tests/kernel/test_worlds.py):

- the array at the first lead: when the history before the play phase is blind to the
  cards (`source.deal_blind`: dealing packets, an auction whose rules read the calls
  only, a trump suit named or a card laid face down, a partner call), every proposal
  replays it alike but for where the cards go, so the array is the true deal's at the
  first lead with the proposal's cards put in (the *fast path*, `_at_lead`): the hands
  (each position then in a hand keeps its seat: the positions the engine's model of the
  deal holds in each hand at the first lead, `Resampler.hand`, so that with copies of a
  card, whose copies share an id, a card laid face down leaves the position the engine
  takes it from; with copies, each seat's count of each card too), the face-down card at
  its position and its suit, the secret suit drawn anew (`Resampler.redraw`), the
  partner call's verdict (the declarer may not hold the card) and its holder joining the
  declarer's side. Otherwise that history (an exchange, a declaration, a rule reading a
  hand) is replayed on the engine as there (`Resampler.replay`, the hidden actions
  mapped and drawn anew alike) and the State at the first lead becomes the kernel's
  array (`Kernel.state`);
- the play's actions are replayed on that array by the kernel (``replay_check``,
  kernel/build.py): each that of the seat to act (the history's seat) and among the
  kernel's legal actions, which are the engine's (tests/kernel/test_differential.py);
- the observation's test becomes a comparison of the final array with the true state's
  on every fact the seat's observation shows (docs/architecture.md, "Information"): all
  but the other seats' hands (their bitsets and, in a deck with copies, their counts;
  their sizes are compared, with copies as the sums of the counts), the trump suit while
  hidden from the seat, the face-down trump card of another seat (whether there is one
  is compared), the called partner and the sides while not shown to the seat, the points
  of the cards set aside, and the variables that are not public; and, when the seat is
  to act, its legal actions. Every other fact of the array is a function of what the
  observation shows (the public history, the tricks, the points, the scores, the public
  variables) or equal in every world with that history.

A proposal the kernel cannot take at the first lead (another phase there, a fact it does
not hold) is finished on the engine, as `Resampler.sample` does. States and variants it
does not model raise `Unsupported` from `Worlds`: a root not in the play phase, a hidden
action or a hidden choice after the first lead, a partner call in a deck with copies of a
card (no shipped variant has both); the bots then use the engine's `resample`. Decks with
copies of a card (56) are drawn as single decks are.
"""

from __future__ import annotations

from .source import MAX_TRIES, Unsupported, resampler

__all__ = ["Worlds"]


class Worlds:
    """The worlds of ``root`` (a State in the play phase) for ``seat`` on the kernel
    ``kern`` (module docstring). Raises Unsupported for what it does not model,
    StateError for a seat out of range. ``start``: the history index of the first action
    of the play phase."""

    def __init__(self, kern, root, seat: int):
        f, lay = kern.facts, kern.layout
        np = kern.numpy
        if root.phase != "play":
            raise Unsupported(f"worlds on the kernel start in the play phase, not the {root.phase}")
        self.kern = kern
        self.seat = seat
        ref = kern.state(root)
        r = self.resampler = resampler(root, seat)
        st = r.deal_state(r.card)          # the true deal: where its play begins
        hist = r.history
        start = len(hist)
        for k, (_, a) in enumerate(hist):
            if st.phase == "play":
                start = k
                break
            st.apply_id(a.id)
        if st.phase != "play":
            raise Unsupported("the true deal replayed does not reach the play phase")
        if any(k >= start for k in r.origin) or any(k >= start for k in r.redraw):
            raise Unsupported("a hidden action in the play phase: worlds are drawn by the engine")
        self.start = start
        # the fast path: the history before the play is blind to the cards (`deal_blind`),
        # so the array at the first lead is the true deal's with the proposal's cards
        self.blind = kern.blind_reason is None
        if self.blind:
            self.lead = kern.state(st)
            # the positions in each hand and the face-down card's at the first lead, as the
            # engine's model of the deal follows them (`Resampler.hand`, ``aside``: a card
            # laid leaves the first position of the hand holding it; with copies of a card
            # its id alone does not say which)
            model = resampler(st, seat)
            self.hand_pos = [list(h) for h in model.hand]
            laid = [p for ps in model.aside for p in ps]
            if len(laid) != int(st.trump_card >= 0):
                raise Unsupported("cards set aside before the play other than a face-down trump card")
            self.card_pos = laid[0] if laid else -1
            self.copies = f.size if f.max_copies > 1 else 0
            self.suit_of = root.v.deck.suit_of
            self.redraws = sorted(r.redraw)
            if len(self.redraws) > 1 or (self.redraws and root.v.trump_mode != "secret"):
                raise Unsupported("hidden choices before the play other than a secret trump suit")
            self.call = self._partner_call(r, start)
        self._last = None
        self.acts = np.array([a.id for _, a in hist[start:]], dtype=np.int64)
        self.seats = np.array([t for t, _ in hist[start:]], dtype=np.int64)
        self.ref = ref
        self.mask = _shown(kern, root, seat)
        at = lay.at
        self.face_down_at = at["trump_card"] if seat != root.declarer else -1
        if root.to_act == seat:
            ids = root.legal_ids()
            self.legal_ref, self.nlegal = np.array(list(ids) + [0], dtype=np.int64), len(ids)
        else:
            self.legal_ref, self.nlegal = np.zeros(1, dtype=np.int64), -1

    def accepts(self, S) -> bool:
        """Replay the play phase's actions on ``S`` (the array of a proposal at the first
        lead; changed) and compare what the seat sees (module docstring)."""
        return bool(self.kern.module.replay_check(S, self.acts, self.seats, self.ref, self.mask,
                                                  self.face_down_at, self.legal_ref, self.nlegal))

    def sample(self, rng, max_tries: int | None = None):
        """A world: its kernel array at the true state's point (`last_start`: its State
        at the first lead). The same draws of ``rng`` and the same world as
        `State.resample`. Raises ResampleError after ``max_tries`` rejected proposals
        (`interpreter.information.MAX_TRIES` by default)."""
        r = self.resampler
        if max_tries is None:
            max_tries = MAX_TRIES
        for _ in range(max_tries):
            S = self.judge(r.draw(rng), rng)
            if S is not None:
                return S
        raise r.exhausted(max_tries)

    def judge(self, deal, rng):
        """The world of the proposal ``deal`` (a card id per position of
        `Resampler.card`) as the kernel's array if the engine would accept it
        (`Resampler.sample`: the hidden choices drawn anew from ``rng`` alike), else None."""
        r = self.resampler
        if self.blind:
            drawn = [(k, r.redraw[k](rng)) for k in self.redraws]
            S = self._at_lead(deal, drawn)
            if S is None or not self.accepts(S):
                return None
            self._last = (deal, drawn)
            return S
        st = r.deal_state(deal)
        if not r.replay(st, deal, rng, 0, self.start):
            return None
        try:
            S = self.kern.state(st)
        except Unsupported:          # the engine finishes it, as Resampler.sample
            if r.replay(st, deal, rng, self.start) and st.observation(self.seat) == r.target:
                self._last = st
                return self.kern.state(st)
            return None
        if not self.accepts(S):
            return None
        self._last = st
        return S

    def _partner_call(self, r, start: int):
        """The partner call before the play (`partner.CallPartner`, §304.5), or None:
        (its card, the positions then in the declarer's hand, the declarer, the sides
        before it, each position's seat or -1 for the widow's). Unsupported with a hidden
        choice too (the engine would stop at an illegal call before drawing it), and in a
        deck with copies of a card (which copy's holder is called: no shipped variant with
        copies calls a partner)."""
        calls = [k for k in range(start) if r.history[k][1].kind == "call-partner"]
        if not calls:
            return None
        if len(calls) > 1 or self.redraws:
            raise Unsupported("a partner call beside another call or a hidden choice before the play")
        if self.copies:
            raise Unsupported("a partner call in a deck with copies of a card: worlds are drawn by the engine")
        where = {c: p for p, c in enumerate(r.card)}
        k = calls[0]
        st = r.deal_state(r.card)
        for _, a in r.history[:k]:
            st.apply_id(a.id)
        d, card = r.history[k][0], r.history[k][1].code
        owner = [s if s != "widow" else -1 for s, _ in r.pos_of]
        return card, [where[c] for c in st.hands[d]], d, list(st.side), owner

    def _at_lead(self, deal, drawn):
        """The array at the first lead of the proposal ``deal`` (a card per position) with
        the hidden choices ``drawn`` ((history index, Action)): the true deal's, its hands,
        face-down card, trump suit and called partner those of the proposal (the fast
        path); None when the proposal makes the partner call illegal."""
        S = self.lead.copy()
        at = self.kern.layout.at
        hands = at["hands"]
        size = self.copies
        if size:                 # a deck with copies: each seat's count of each card too
            counts = [0] * (len(self.hand_pos) * size)    # (counted in a list: numpy's
            for t, ps in enumerate(self.hand_pos):        # item access is slower)
                bits = 0
                base = t * size
                for p in ps:
                    c = deal[p]
                    bits |= 1 << c
                    counts[base + c] += 1
                S[hands + t] = bits
            S[at["counts"]:at["counts"] + len(counts)] = counts
        else:
            for t, ps in enumerate(self.hand_pos):
                bits = 0
                for p in ps:
                    bits |= 1 << deal[p]
                S[hands + t] = bits
        p = self.card_pos
        if p >= 0:
            S[at["trump_card"]] = deal[p]
            S[at["trump"]] = self.suit_of[deal[p]]
        for _, a in drawn:      # a suit named secretly (the only hidden choice taken here)
            S[at["trump"]] = a.code
        if self.call is not None:
            card, held, d, side, owner = self.call
            for p in held:
                if deal[p] == card:      # illegal: the declarer called a card he held
                    return None
            partner = owner[deal.index(card)]
            if partner == d:
                partner = -1
            sides = at["side"]
            for t, x in enumerate(side):
                S[sides + t] = x
            if partner >= 0:
                S[sides + partner] = side[d]
            S[at["partner"]] = partner
        return S

    def last_start(self):
        """The State of the last world `sample` gave, at the first lead (its deal, and the
        history before the play as it was replayed, hidden actions mapped: what the search
        bot's model of the calls reads), or its whole State when the engine finished it;
        None before the first."""
        last = self._last
        if last is None or not isinstance(last, tuple):
            return last
        deal, drawn = last
        r = self.resampler
        st = r.deal_state(deal)
        chosen = dict(drawn)
        cards = r.v.card_actions
        for k in range(self.start):
            a = r.history[k][1]
            p = r.origin.get(k)
            if p is not None:
                a = cards[a.kind][deal[p]]
            elif k in chosen:
                a = chosen[k]
            st.apply_id(a.id)
        return st


def _shown(kern, root, seat: int):
    """The array's places the comparison reads (1), as int64: every place but those of
    facts the seat's observation does not show (module docstring)."""
    f, lay = kern.facts, kern.layout
    at = lay.at
    n = f.players
    mask = kern.numpy.ones(lay.size, dtype=kern.numpy.int64)
    size = f.size if f.max_copies > 1 else 0
    for t in range(n):
        if t != seat:
            mask[at["hands"] + t] = 0
            mask[at["counts"] + t * size:at["counts"] + (t + 1) * size] = 0   # with copies
    mask[at["trump_card"]] = int(seat == root.declarer)   # else: its presence alone
    if root.trump_text(seat) is None:
        mask[at["trump"]] = 0
    if root.partner >= 0 and not root.partner_revealed and seat != root.partner:
        mask[at["partner"]] = 0
        for name, length in (("side", n + 1), ("side_points", f.sides), ("side_tricks", f.sides),
                             ("seat_side_tricks", n * f.sides)):
            mask[at[name]:at[name] + length] = 0
    mask[at["aside_points"]] = 0
    for x in root.v.variables:
        if not x.public:
            i = at["vars"] + lay.var_at[x.index]
            mask[i:i + x.size] = 0
    return mask
