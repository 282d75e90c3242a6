"""A variant's fixed-size action table and observation tensor, for learning agents.

Actions: the variant's own action table (``variant.actions``, made once when the variant
loads: interpreter/actions.py); an action's index in it is its id, the same id the engine's
``State.legal_ids`` and ``apply_id`` use, and a play's id is its card's id. So the action
space of a variant is ``Discrete(len(variant.actions))`` and a legal-action mask is a 0/1
vector over that table.

Observation: `Encoding.encode` turns one seat's observation (``State.observation(seat)``,
the dict the arena sends a bot; docs/protocol.md) into a float32 vector of a size fixed by
the variant. It reads nothing else, so it is a function of the seat's information only:
a re-deal of the cards the seat cannot see (``State.resample``) leaves its bytes
unchanged. Seats are *relative*: index ``r`` of a per-seat block is the seat ``r`` places
after the observing seat in seat order (0 is the seat itself), so one policy serves every
seat. The blocks (`Encoding.blocks`: name -> shape), in order:

====================  ============  ===============================================
block                 shape         value
====================  ============  ===============================================
``phase``             (P,)          one-hot of the phase (`PHASES`)
``to_act``            (n+1,)        one-hot of the relative seat to act; last: none
``dealer``            (n,)          one-hot of the relative dealer
``hand``              (C,)          copies of each card in the seat's hand
``hand_sizes``        (n,)          cards held by each relative seat / cards dealt
                                    to a seat
``trick``             (n, C)        the card each relative seat put in this trick
``played``            (n, C)        every card each relative seat played this deal
``tricks_won``        (n,)          tricks won by each relative seat / the tricks
``points``            (n,)          card points taken per relative seat / the total
``calls``             (n, K)        times each relative seat made each action that
                                    is not a play, as the seat sees it (bids,
                                    passes, doubles, trump, calls, declarations,
                                    answers; its own widow cards and face-down card)
``hidden``            (n, H)        times each relative seat made an action whose
                                    card or suit is hidden from this seat (by kind:
                                    ``take``, ``discard``, ``trump-card``, ``trump``)
``bids``              (n, B)        each relative seat's own bid of tricks (the
                                    ``bids`` step): has bid, bid / the top bid;
                                    B = 2 with a ``bids`` step, else 0 (no feature)
``high_bid``          (1,)          the high bid's number / the variant's top bid
``high_bidder``       (n+1,)        one-hot relative seat; last: none
``declarer``          (n+1,)        one-hot relative seat; last: none
``target``            (1,)          the contract's target / the variant's top bid
``denomination``      (D+1,)        one-hot of the contract's denomination; last: none
``doubled``           (1,)          0, 1 doubled, 2 redoubled
``passed``            (n,)          relative seats that passed out of the auction
``sitting_out``       (n,)          relative seats sitting this deal out
``holder``            (n+1,)        the duel's holder (auction.order: duel)
``challenger``        (n+1,)        the duel's challenger
``trump``             (S+1,)        one-hot of the trump suit as the seat knows it;
                                    last: none, or hidden from the seat
``trump_flags``       (2,)          trump exposed; a card lies face down
``trump_card``        (C,)          the face-down card, to the seat that laid it
``exposed_card``      (C,)          the face-down card once exposed
``exposer``           (n+1,)        the relative seat that asked for the exposure
``called_card``       (C,)          the partner's card called (solo and called games)
``partner``           (n+1,)        the partner, once the seat knows; last: unknown
``widow``             (C,)          the widow, shown to the declarer in the exchange
``set_aside``         (C,)          the cards the declarer set aside
``score``             (n,)          match score per relative seat
``variables``         (V,)          the variant's public variables (below)
====================  ============  ===============================================

with n the players, C the distinct cards (``deck.size``; a double deck counts copies),
K the actions that are not plays, H the hidden kinds, S the suits, D the denominations.
A public variable takes one slot for a number or condition (its value), n for a seat
(relative one-hot), 2 for a side, S+1 for a suit, one per rank for a rank, C for a card;
``none`` is all zeros.

Everything here is a pure function of (variant, observation); numpy is the one
dependency (it comes with the ``learn`` extra).
"""

from __future__ import annotations

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.encoding", e)) from e

# the engine's phases (State.phase), in a fixed order
PHASES = ("auction", "bids", "doubling", "exchange", "trump", "call", "declare", "play", "done")
# the kinds of action whose card or suit other seats do not see (State.public_action)
HIDDEN_KINDS = ("take", "discard", "trump-card", "trump")


class Encoding:
    """The encoding of one variant (module docstring): ``actions`` (the action table),
    ``size`` (the observation's length), ``blocks`` (name -> shape, in order) and
    ``offsets`` (name -> start index). ``encode(obs)``, ``mask(obs)``, ``action_id(text)``."""

    def __init__(self, variant):
        v = self.v = variant
        n, deck = v.players, v.deck
        C, S = deck.size, len(deck.suits)
        self.actions = v.actions
        self.n, self.C = n, C
        self.other = [a for a in v.actions if a.kind != "play"]       # K: calls etc.
        self.other_index = {a.text: k for k, a in enumerate(self.other)}
        self.hidden_index = {kind: k for k, kind in enumerate(HIDDEN_KINDS)}
        self.denominations = tuple(v.denominations)
        self.top_bid = max(1, v.max_bid, v.bids_up_to)   # (a bid of one's own by deal: the most tricks)
        # (a hand size that changes by deal: the most of any deal, one size for the match)
        self.per_seat = max(1, v.most_cards_per_seat)
        self.per_trick = 1.0 / max(1, v.most_tricks)
        self.total_points = max(1, deck.total_points() + v.last_trick)
        self.public_vars = [x for x in v.variables if x.public]
        blocks = [
            ("phase", (len(PHASES),)), ("to_act", (n + 1,)), ("dealer", (n,)),
            ("hand", (C,)), ("hand_sizes", (n,)), ("trick", (n, C)), ("played", (n, C)),
            ("tricks_won", (n,)), ("points", (n,)),
            ("calls", (n, len(self.other))), ("hidden", (n, len(HIDDEN_KINDS))),
            ("bids", (n, 2 if v.has_bids else 0)),
            ("high_bid", (1,)), ("high_bidder", (n + 1,)), ("declarer", (n + 1,)),
            ("target", (1,)), ("denomination", (len(self.denominations) + 1,)),
            ("doubled", (1,)), ("passed", (n,)), ("sitting_out", (n,)),
            ("holder", (n + 1,)), ("challenger", (n + 1,)),
            ("trump", (S + 1,)), ("trump_flags", (2,)), ("trump_card", (C,)),
            ("exposed_card", (C,)), ("exposer", (n + 1,)),
            ("called_card", (C,)), ("partner", (n + 1,)),
            ("widow", (C,)), ("set_aside", (C,)),
            ("score", (n,)), ("variables", (sum(self._var_width(x) for x in self.public_vars),)),
        ]
        self.blocks = dict(blocks)
        self.offsets = {}
        self._spans = []          # (name, start, end, shape)
        at = 0
        for name, shape in blocks:
            size = 1
            for k in shape:
                size *= k
            self.offsets[name] = at
            self._spans.append((name, at, at + size, shape))
            at += size
        self.size = at
        self._slots = None      # encode's tables (_prepare)

    def play_tables(self):
        """What a writer of the play's moving blocks from other numbers (the kernel:
        taash.kernel.encoding) needs to give `encode`'s very bytes: ``sizes`` (float32, the
        ``hand_sizes`` value of k cards held, for k up to every card of the deck), ``won``
        (float32, the ``tricks_won`` value of k tricks, summed as `encode` sums it) and
        the divisor of ``points``."""
        per = self.per_seat
        sizes = np.array([k / per for k in range(self.v.deck.size * self.v.deck.max_copies + 1)], np.float32)
        won = np.zeros(max(1, self.v.most_tricks) + 1, np.float32)
        acc = np.zeros(1, np.float32)
        for k in range(1, len(won)):
            acc[0] += self.per_trick
            won[k] = acc[0]
        return sizes, won, float(self.total_points)

    def _var_width(self, var) -> int:
        t, n, deck = var.type, self.n, self.v.deck
        return var.size * {"number": 1, "condition": 1, "seat": n, "side": 2, "suit": len(deck.suits) + 1,
                           "rank": len(deck.ranks), "card": deck.size}.get(t, 1)

    # -- actions ------------------------------------------------------------------------
    def action_id(self, text: str) -> int:
        """The id of an action's text form (``"play JH"`` -> its index in the table).
        Raises KeyError for text that is no action of the variant."""
        return self.v.action_map[text].id

    def mask(self, obs: dict) -> np.ndarray:
        """The legal-action mask of an observation: int8 of length ``len(actions)``, 1
        for each of ``obs["legal_actions"]`` (all zeros when the seat is not to act)."""
        m = np.zeros(len(self.actions), dtype=np.int8)
        amap = self.v.action_map
        for t in obs.get("legal_actions") or ():
            m[amap[t].id] = 1
        return m

    # -- observation --------------------------------------------------------------------
    def views(self, out: np.ndarray) -> dict:
        """Named views of a flat vector ``out`` (length `size`), one per block, shaped."""
        return {name: out[a:z].reshape(shape) for name, a, z, shape in self._spans}

    def encode(self, obs: dict, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 vector (length `size`) of one seat's observation ``obs`` (the dict
        of ``State.observation(seat)``). Writes into ``out`` when given (zeroed first).
        Raises KeyError for an observation of another variant (an unknown card or
        action text)."""
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        else:
            out.fill(0)
        if self._slots is None:
            self._prepare()
        n, C = self.n, self.C
        o = self.offsets
        me = obs["seat"]
        rel = self._rel[me]             # rel[s]: seat s relative to me; rel[-1] (none): n
        card = self.v.deck.card_index

        out[self._phase[obs["phase"]]] = 1
        s = obs["to_act"]
        out[o["to_act"] + rel[-1 if s is None else s]] = 1
        out[o["dealer"] + rel[obs["dealer"]]] = 1
        at = o["hand"]
        for c in obs["hand"]:
            out[at + card[c]] += 1
        at, per = o["hand_sizes"], self.per_seat
        for s, k in enumerate(obs["hand_sizes"]):
            out[at + rel[s]] = k / per
        at = o["trick"]
        for s, c in obs["trick"]:
            out[at + rel[s] * C + card[c]] += 1
        at, per = o["tricks_won"], self.per_trick
        for t in obs["tricks"]:
            out[at + rel[t["winner"]]] += per
        at, per = o["points"], self.total_points
        for s, p in enumerate(obs["points"]):
            out[at + rel[s]] = p / per
        slot = self._slots                  # action text -> (index at seat 0, seat stride)
        for s, text in obs["history"]:
            base, stride = slot[text]
            out[base + rel[s] * stride] += 1
        if self.v.has_bids:                 # each seat's own bid: made, its number
            at = o["bids"]
            for s, b in enumerate(obs["bids"]):
                if b is not None:
                    r = rel[s]
                    out[at + 2 * r] = 1
                    out[at + 2 * r + 1] = b / self.top_bid
        if obs["high_bid"] is not None:
            out[o["high_bid"]] = obs["high_bid"] / self.top_bid
        for name in ("high_bidder", "declarer", "holder", "challenger", "exposer", "partner"):
            s = obs[name]
            out[o[name] + rel[-1 if s is None or s < 0 else s]] = 1
        if obs["target"] is not None:
            out[o["target"]] = obs["target"] / self.top_bid
        den = self._denomination.get(obs["denomination"], len(self.denominations))
        out[o["denomination"] + den] = 1
        out[o["doubled"]] = obs["doubled"]
        for s in obs["passed"]:
            out[o["passed"] + rel[s]] = 1
        for s in obs["sitting_out"]:
            out[o["sitting_out"] + rel[s]] = 1
        suits = self._suit
        out[o["trump"] + suits.get(obs["trump"], len(suits))] = 1
        out[o["trump_flags"]] = bool(obs["trump_exposed"])
        out[o["trump_flags"] + 1] = bool(obs["face_down"])
        for name in ("trump_card", "exposed_card", "called_card"):
            if obs[name] is not None:
                out[o[name] + card[obs[name]]] = 1
        for name in ("widow", "set_aside"):
            for c in obs[name] or ():
                out[o[name] + card[c]] += 1
        at = o["score"]
        for s, x in enumerate(obs["score"]):
            out[at + rel[s]] = x
        if self.public_vars:
            a = o["variables"]
            z = a + self.blocks["variables"][0]
            self._variables(out[a:z], obs.get("variables") or {}, lambda s: (s - me) % n)
        return out

    def _prepare(self) -> None:
        """The look-up tables of `encode`, made at its first call: relative seats by
        observer, the phase's index, the slot of each history entry, suits and
        denominations by name."""
        n, C, v, o = self.n, self.C, self.v, self.offsets
        # rel[me][s] for s in 0..n-1, and rel[me][-1] = n: a seat that is none
        self._rel = [[(s - me) % n for s in range(n)] + [n] for me in range(n)]
        self._phase = {p: o["phase"] + k for k, p in enumerate(PHASES)}
        K, H = len(self.other), len(HIDDEN_KINDS)
        slots = {kind: (o["hidden"] + k, H) for kind, k in self.hidden_index.items()}
        for a in v.actions:                 # an action's text first, as `action_map` finds it
            slots[a.text] = ((o["played"] + a.code, C) if a.kind == "play"
                             else (o["calls"] + self.other_index[a.text], K))
        self._slots = slots
        self._suit = {x: k for k, x in enumerate(v.deck.suits)}
        self._denomination = {d: k for k, d in enumerate(self.denominations)}

    def _variables(self, out, values: dict, rel) -> None:
        at = 0
        for var in self.public_vars:
            w = self._var_width(var)
            x = values.get(var.name)
            if var.per and x is not None:   # one value per seat (from this seat on) or side
                one = w // var.size
                for k, y in enumerate(x):
                    place = rel(k) if var.per == "seat" else k
                    self._one_value(out[at + one * place:at + one * (place + 1)], var, y, rel)
            elif x is not None:
                self._one_value(out[at:at + w], var, x, rel)
            at += w

    def _one_value(self, out, var, x, rel) -> None:
        """One value of ``var`` (its JSON form ``x``; null writes nothing) into ``out``, a
        view of its width."""
        deck, t = self.v.deck, var.type
        if x is None:
            return
        if t in ("number", "condition"):
            out[0] = float(x)
        elif t == "seat":
            out[rel(x)] = 1
        elif t == "side":
            out[x] = 1
        elif t == "suit":
            out[deck.suits.index(x) if x in deck.suits else len(deck.suits)] = 1
        elif t == "rank":
            out[deck.ranks.index(x)] = 1
        elif t == "card":
            out[deck.card_index[x]] = 1
