"""The generic engine: `State` (one deal and the match score around it) and `Match`.

The engine knows the vocabulary of trick-taking games (deal in packets, auction of calls,
open or hidden trump, tricks, declarations, scoring, match end); every rule that differs
between games is a compiled DSL rule of the `Variant` (DESIGN.md). Nothing here names a
game.

Engine-wide guarantees (documented in docs/authoring.md):
- a bid is always strictly above the high bid, and a full round of consecutive passes
  ends the auction, so every auction ends;
- each declaration is made at most once per deal, so every play phase ends;
- a match ends when its `match.ends` rule says so or after `match.max_deals` deals
  (default 1000).
"""

from __future__ import annotations

import random
from bisect import insort

from .actions import Action, default_of
from .errors import IllegalActionError, InvalidActionError
from .variant import Variant





class State:
    """The whole truth of one deal, and the match score around it.

    Seats are 0..players-1 (RULES.md §0.1). Cards are ints (see `interpreter.cards`);
    actions are their text forms (DESIGN.md, "Actions and notation").

    Use: ``to_act`` (seat, or -1 when terminal), ``legal_actions()`` (sorted per §0.10,
    never empty before the end), ``apply(action)`` (raises IllegalActionError),
    ``observation(seat)``, ``is_terminal``, ``result()``, ``copy()``.
    """

    __slots__ = ("v", "dealer", "deal_number", "scores", "start_scores", "dealt", "widow",
                 "hands", "side", "step", "phase", "to_act", "bid", "denomination",
                 "high_bidder", "calls", "bids", "passes", "passed", "doubled", "declarer",
                 "target", "trump", "trump_exposed", "trump_card", "exposed_card", "exposer",
                 "exposure_trick",
                 "led", "trick_cards", "trick_seats", "trick_after", "tricks_done", "tricks",
                 "trick_sides", "side_tricks", "side_points", "seat_points", "declared",
                 "declared_keys", "answers", "question", "history", "made", "partner",
                 "partner_revealed", "called_card", "widow_left", "taken", "discarded",
                 "set_aside", "doubling_queue", "_legal", "_dealt_pos", "_skip")

    _LISTS = ("scores", "start_scores", "hands", "side", "passed", "trick_cards", "trick_seats",
              "trick_after", "tricks", "trick_sides", "side_tricks", "side_points", "seat_points",
              "history", "widow_left", "taken", "discarded", "set_aside", "doubling_queue",
              "_dealt_pos")

    def __init__(self, variant: Variant, dealer: int = 0, hands=None, widow=None, seed=0,
                 scores=None, deal_number: int = 0):
        """Start a deal. ``hands``: per seat, the card texts in the order dealt (§0.7),
        and ``widow`` the widow's cards; without hands the deck is shuffled from ``seed``.
        ``scores``: the match scores before this deal (per side, or per seat when the
        match scores seats). Raises ValueError for hands that do not make up the deck."""
        v = self.v = variant
        n = v.players
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, not {dealer!r}")
        self.dealer = dealer
        self.deal_number = deal_number
        nscores = v.sides if v.score_unit == "side" else n
        self.scores = list(scores) if scores is not None else [v.score_start] * nscores
        self.start_scores = list(self.scores)
        if hands is None:
            self.dealt, self.widow = _deal_from_seed(v, dealer, seed)
        else:
            self.dealt, self.widow = _deal_given(v, hands, widow or [])
        self.hands = [[] for _ in range(n)]
        self._dealt_pos = [0] * n
        self._skip = None
        # seat -> side; one more entry, -1, so that side[none] is none
        self.side = list(v.side_of) + [-1] if v.partnership == "fixed" else [1] * n + [-1]
        self.step = 0
        self.phase = "deal"
        self.to_act = -1
        self.bid = 0
        self.denomination = -1
        self.high_bidder = -1
        self.calls = self.bids = self.passes = 0
        self.passed = []
        self.doubled = 0
        self.declarer = -1
        self.target = 0
        self.trump = -1
        self.trump_exposed = False
        self.trump_card = -1
        self.exposed_card = -1  # the face-down card once shown to all (§28.7, §28.8)
        self.exposer = -1
        self.exposure_trick = 0
        self.led = -1
        self.trick_cards = []
        self.trick_seats = []
        self.trick_after = []
        self.tricks_done = 0
        self.tricks = []
        self.trick_sides = []
        self.side_tricks = [0] * v.sides
        self.side_points = [0] * v.sides
        self.seat_points = [0] * n
        self.declared = {}
        self.declared_keys = set()
        self.answers = set()
        self.question = None
        self.history = []
        self.made = None
        self.partner = -1
        self.partner_revealed = False
        self.called_card = -1
        self.widow_left = []
        self.taken = []
        self.discarded = []
        self.set_aside = []
        self.doubling_queue = []
        self._legal = None
        self._advance()

    # -- the contract -------------------------------------------------------------
    @property
    def is_terminal(self) -> bool:
        """True once the deal is over (scored, or thrown in when nobody bid)."""
        return self.phase == "done"

    def legal_actions(self) -> list[str]:
        """Legal actions of ``to_act`` as text forms, ordered per RULES.md §0.10; empty
        only when terminal."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def apply(self, action) -> None:
        """Apply one action of ``to_act``: an `Action` or its text form. Raises
        InvalidActionError for text that is no action of this variant, and
        IllegalActionError (with the legal set) for one not legal now; the state is then
        unchanged."""
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            if not isinstance(action, str) or self.v.action_map.get(action) is None:
                raise InvalidActionError(action, legal)
            raise IllegalActionError(action, legal)
        a = self.v.action_map[action]
        kind, arg = a.kind, a.code
        seat = self.to_act
        self._legal = None
        self.history.append((seat, a))
        if kind == "play":
            self._play(seat, arg)
        elif kind in ("pass", "bid", "double", "redouble"):
            if self.phase == "doubling":
                self._doubling_call(seat, kind)
            else:
                self._call(seat, kind, arg)
        elif kind == "declare":
            self._declare(seat, *arg)
        elif kind == "answer":
            self.answers.add(a.text)
            self.to_act = self.question[0]
            self.question = None
        elif kind == "expose":
            self._expose(seat)
        elif kind == "trump":
            self.trump, self.trump_exposed = arg, True
            self._next_step()
        elif kind == "trump-card":
            if arg is None:  # the dealt card of trump.dealt_card, taken before it is dealt
                idx = self.v.dealt_card - 1
                arg = self.dealt[seat][idx]
                self._skip = (seat, idx)
            else:
                self.hands[seat].remove(arg)
            self.trump_card, self.trump = arg, self.v.deck.suit_of[arg]
            self._next_step()
        elif kind == "call-partner":
            self._call_partner(seat, arg)
        elif kind == "take":
            self.widow_left.remove(arg)
            insort(self.hands[seat], arg)
            self.taken.append(arg)
        elif kind == "discard":
            self.hands[seat].remove(arg)
            self.discarded.append(arg)
        elif kind == "done":
            self.set_aside = sorted(self.discarded + self.widow_left)
            self._next_step()

    def default_action(self) -> Action:
        """The action taken for ``to_act`` when its seat did not answer in time: the first
        legal action (RULES.md §0.10 order) that is not a declaration, an expose, a double
        or a redouble; a question is answered with its first answer. Never raises before
        the end; raises ValueError on a terminal state."""
        legal = self.legal_actions()
        if not legal:
            raise ValueError("the deal is over: no seat is to act")
        return default_of(legal)

    def copy(self) -> "State":
        """An independent copy (cheap: lists are copied one level deep)."""
        new = State.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        for name in State._LISTS:
            setattr(new, name, list(getattr(self, name)))
        new.hands = [list(h) for h in self.hands]
        new.declared = dict(self.declared)
        new.declared_keys = set(self.declared_keys)
        new.answers = set(self.answers)
        return new

    def resample(self, seat: int, rng=None) -> "State":
        """An independent State at the same point in which every card ``seat`` cannot see
        is dealt again uniformly among the deals consistent with its information: the
        public history replays legally on it and ``seat``'s observation is the same.
        ``rng``: a random.Random or a seed. See interpreter/information.py."""
        from .information import resample
        return resample(self, seat, rng)

    def known_side_tricks(self, seat: int) -> int:
        """Completed tricks won by seats that ``seat`` knows to be on its side (§0.8,
        §304.9): with a secret partner, the declarer counts his own tricks and the
        defenders theirs each, until the partner is revealed; the partner knows."""
        side = self.side[seat]
        if self.v.partnership != "called" or self.partner_revealed or seat == self.partner:
            return self.side_tricks[side]
        return sum(1 for (_, _, w), sd in zip(self.tricks, self.trick_sides) if sd == side and w == seat)

    # -- dealing and phases -----------------------------------------------------------
    def _next_step(self):
        self.step += 1
        self._advance()

    def _advance(self):
        v = self.v
        flow = v.flow
        n = v.players
        while self.step < len(flow):
            step = flow[self.step]
            if isinstance(step, dict):
                if "deal" in step:
                    k = sum(step["deal"])
                    for s in range(n):
                        p = self._dealt_pos[s]
                        cards = self.dealt[s][p:p + k]
                        if self._skip is not None and self._skip[0] == s and p <= self._skip[1] < p + k:
                            cards = [c for i, c in enumerate(cards) if p + i != self._skip[1]]
                        self.hands[s].extend(cards)
                        self.hands[s].sort()
                        self._dealt_pos[s] = p + k
                self.step += 1
                continue
            if step == "auction":
                self.phase = "auction"
                if v.standing_bid:
                    self.bid, self.high_bidder = v.standing_bid, self.dealer
                self.to_act = (self.dealer + 1) % n
                return
            if step == "exchange":
                self.phase = "exchange"
                self.widow_left = list(self.widow)
                self.to_act = self.declarer
                return
            if step == "trump":
                self.phase = "trump"
                self.to_act = self.declarer
                return
            if step == "call_partner":
                self.phase = "call"
                self.to_act = self.declarer
                return
            if step == "doubling":
                # each defender in turn from next(declarer) may double (RULES.md §H)
                self.phase = "doubling"
                self.doubling_queue = [s for s in _order_from(self.declarer + 1, n)
                                       if self.side[s] != self.side[self.declarer]]
                self.to_act = self.doubling_queue.pop(0)
                return
            if step == "play":
                if v.trump_mode == "bid":
                    self.trump = self.denomination if self.denomination >= 0 else -1
                    self.trump_exposed = True
                self.phase = "play"
                self.to_act = v.rules["play.leader"](self, -1, None, None) % n
                return
            raise ValueError(f"unknown flow step {step!r}")
        self._score()

    def _call(self, seat, kind, arg):
        v = self.v
        n = v.players
        self.calls += 1
        if kind == "pass":
            self.passes += 1
            if v.final_pass and seat not in self.passed:
                self.passed.append(seat)
        elif kind == "bid":
            self.bid, den = arg
            self.denomination = -1 if den is None else den
            self.high_bidder = seat
            self.bids += 1
            self.passes = 0
            self.doubled = 0  # a new bid cancels any double and redouble (§56.4)
        else:
            self.doubled = 1 if kind == "double" else 2
            self.passes = 0
        if (self.passes >= n or len(self.passed) >= n
                or v.rules["auction.ends"](self, seat, None, None)):
            self.declarer = self.high_bidder
            if self.declarer < 0:  # everybody passed: the deal is thrown in
                self.phase, self.to_act = "done", -1
                return
            self.target = self.bid
            if v.partnership != "fixed":
                self.side = [1] * n + [-1]
                self.side[self.declarer] = 0
            self._next_step()
            return
        nxt = (seat + 1) % n
        if v.final_pass:
            while nxt in self.passed and nxt != seat:
                nxt = (nxt + 1) % n
        self.to_act = nxt

    def _doubling_call(self, seat, kind):
        n = self.v.players
        if kind == "double":
            self.doubled = 1
            self.doubling_queue = [s for s in _order_from(seat + 1, n)
                                   if self.side[s] == self.side[self.declarer]]
        elif kind == "redouble":
            self.doubled = 2
            self.doubling_queue = []
        if self.doubling_queue:
            self.to_act = self.doubling_queue.pop(0)
        else:
            self._next_step()

    def _call_partner(self, seat, card):
        """§304.5: the holder of the called card is the declarer's secret partner."""
        self.called_card = card
        for s, cards in enumerate(self.dealt):
            if s != seat and card in cards:
                self.partner = s
                self.side[s] = self.side[seat]
                break
        self._next_step()

    def _declare(self, seat, decl, suit):
        self.declared[decl.name] = self.declared.get(decl.name, 0) + 1
        self.declared_keys.add((decl.name, suit))
        if seat == self.partner:
            self.partner_revealed = True  # a declaration reveals the partner (§304.7)
        decl.effect(self, seat, suit, None)
        if decl.answers:
            self.question = (seat, decl)
            self.to_act = decl.answered_by(self, seat, suit, None)

    def _compute_legal(self) -> list[str]:
        phase = self.phase
        v = self.v
        me = self.to_act
        if phase == "play":
            if self.question is not None:
                return list(self.question[1].answer_actions)
            hand = self.hands[me]
            if self.trump_card >= 0 and me == self.declarer and not hand:
                return [v.play_text[self.trump_card]]  # the face-down card, at the last trick
            pt = v.play_text
            cards = v.may_play(self, me, None, None) or hand
            if v.deck.copies > 1:
                cards = sorted(set(cards))
            if not v.declaration_checks and self.trump_card < 0:
                return [pt[c] for c in cards]
            out = []
            keys = self.declared_keys
            for text, key, when, su in v.declaration_checks:
                if key not in keys and when(self, me, su, None):
                    out.append(text)
            if self.trump_card >= 0 and v.may_expose(self, me, None, None):
                out.append(v.expose_action)
            out.extend([pt[c] for c in cards])
            return out
        if phase == "auction":
            out = []
            r = v.rules
            if r["auction.may_pass"](self, me, None, None):
                out.append(v.pass_action)
            may_bid = r["auction.may_bid"]
            high = self.bid
            for b, forms in v.bid_actions:
                if b > high:
                    for text, den in forms:
                        if may_bid(self, me, b, den):
                            out.append(text)
            if self.doubled == 0 and self.high_bidder >= 0 and r["auction.may_double"](self, me, None, None):
                out.append(v.double_action)
            if self.doubled == 1 and r["auction.may_redouble"](self, me, None, None):
                out.append(v.redouble_action)
            return out or [v.pass_action]
        if phase == "trump":
            if v.trump_mode == "hidden":
                out = [v.trump_card_text[c] for c in sorted(set(self.hands[me]))]
                if v.dealt_card and self._dealt_pos[me] < v.dealt_card:
                    out.append(v.dealt_card_text)
                return out
            return list(v.trump_text)
        if phase == "exchange":
            out = []
            if not self.discarded:
                out.extend(v.take_text[c] for c in sorted(set(self.widow_left)))
            if len(self.discarded) < len(self.taken):
                out.extend(v.discard_text[c] for c in sorted(set(self.hands[me])))
            if len(self.discarded) == len(self.taken):
                out.append(v.done_action)
            return out
        if phase == "call":
            own = set(self.hands[me])
            return [v.call_text[c] for c in range(v.deck.size) if c not in own]
        if phase == "doubling":
            return [v.pass_action, v.double_action if self.doubled == 0 else v.redouble_action]
        return []

    # -- play -------------------------------------------------------------------------
    def _expose(self, seat):
        """The face-down trump card is shown and taken into the declarer's hand (§28.7)."""
        insort(self.hands[self.declarer], self.trump_card)
        self.exposed_card, self.trump_card = self.trump_card, -1
        self.trump_exposed = True
        self.exposer = seat
        self.exposure_trick = self.tricks_done + 1

    def _play(self, seat, card):
        v = self.v
        if card == self.trump_card and seat == self.declarer and not self.hands[seat]:
            self.exposed_card, self.trump_card = card, -1  # exposed as it is played (§28.8)
            self.trump_exposed = True
            self.exposer = seat
            self.exposure_trick = self.tricks_done + 1
        else:
            self.hands[seat].remove(card)
        if card == self.called_card and seat == self.partner:
            self.partner_revealed = True  # §304.7
        if self.led < 0:
            self.led = v.deck.suit_of[card]
        self.trick_cards.append(card)
        self.trick_seats.append(seat)
        self.trick_after.append(self.trump_exposed)
        if len(self.trick_cards) < v.players:
            self.to_act = (seat + 1) % v.players
            return
        self._end_trick()

    def _end_trick(self):
        """RULES.md §0.4: the highest card counting as a trump wins, else the highest of
        the suit led; of identical cards the first played ranks higher."""
        v = self.v
        deck = v.deck
        cards, seats, after = self.trick_cards, self.trick_seats, self.trick_after
        counts = v.counts_as_trump
        strength, suit_of = deck.strength, deck.suit_of
        led = self.led
        trump = self.trump
        plain = v.plain_trump
        best, best_key = 0, -1
        for i, c in enumerate(cards):
            if (suit_of[c] == trump) if plain else counts(self, seats[i], c, after[i]):
                key = 200 + strength[c]
            elif suit_of[c] == led:
                key = 100 + strength[c]
            else:
                key = strength[c]
            if key > best_key:
                best, best_key = i, key
        winner = seats[best]
        pts = 0
        po = deck.point_of
        for c in cards:
            pts += po[c]
        self.tricks_done += 1
        if self.tricks_done == v.tricks:
            pts += v.last_trick
        side = self.side[winner]
        self.side_points[side] += pts
        self.seat_points[winner] += pts
        self.side_tricks[side] += 1
        self.trick_sides.append(side)
        self.tricks.append((seats[0], tuple(cards), winner))
        after_trick = v.after_trick
        if after_trick is not None:
            after_trick(self, winner, winner, seats[0])
        self.trick_cards, self.trick_seats, self.trick_after = [], [], []
        self.led = -1
        if self.tricks_done == v.tricks:
            self._score()
        else:
            self.to_act = winner

    def _score(self):
        v = self.v
        self.phase, self.to_act = "done", -1
        if self.declarer < 0:
            return
        if self.set_aside:  # set-aside widow cards count for the declarer (§0.5, §304s.4)
            pts = sum(v.deck.point_of[c] for c in self.set_aside)
            self.seat_points[self.declarer] += pts
            self.side_points[self.side[self.declarer]] += pts
        made = bool(v.rules["scoring.made"](self, self.declarer, None, None))
        self.made = made
        v.rules["scoring.effect"](self, self.declarer, made, None)

    # -- views --------------------------------------------------------------------------
    def score_change(self) -> list[int]:
        """Change of the match score in this deal, per seat (a seat shows its side's)."""
        return per_seat(self.v, [a - b for a, b in zip(self.scores, self.start_scores)])

    def seat_scores(self, scores=None) -> list[int]:
        """Match scores per seat (a seat shows its side's score)."""
        return per_seat(self.v, self.scores if scores is None else scores)

    def trump_text(self, seat: int | None = None) -> str | None:
        """The trump suit letter as ``seat`` knows it (None: no trump, or hidden from it)."""
        if self.trump < 0:
            return None
        if self.trump_exposed or (seat is not None and seat == self.declarer):
            return self.v.deck.suits[self.trump]
        return None

    def public_action(self, seat_of_action: int, action: str, viewer: int | None) -> str:
        """An action as ``viewer`` sees it: a face-down card, a card taken from or put to
        the widow, keep their card hidden from the other seats."""
        if viewer != seat_of_action:
            head, _, rest = action.partition(" ")
            if head in ("take", "discard") or (head == "trump-card" and rest in self.v.deck.card_index):
                return head
        return action

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know (DESIGN.md, "Information"), as a JSON-ready dict: its
        hand, the public history, what the rules show it alone (a hidden trump card or
        the widow to the declarer, the partner to the holder of the called card), scores
        and, when it is to act, its legal actions. ``exposed_card``: the face-down trump
        card once exposed, shown to every seat (RULES.md §28.7, §28.8). A function of the
        seat's information set only."""
        v = self.v
        text = v.deck.text
        is_decl = seat == self.declarer
        knows_partner = self.partner >= 0 and (self.partner_revealed or seat == self.partner)
        return {
            "variant": v.name,
            "seat": seat,
            "players": v.players,
            "dealer": self.dealer,
            "deal": self.deal_number,
            "phase": self.phase,
            "to_act": self.to_act,
            "hand": [text[c] for c in self.hands[seat]],
            "hand_sizes": [len(h) for h in self.hands],
            "history": [[s, self.public_action(s, a, seat)] for s, a in self.history],
            "high_bid": self.bid or None,
            "high_bidder": self.high_bidder if self.high_bidder >= 0 else None,
            "denomination": v.denomination_name.get(self.denomination),
            "doubled": self.doubled,
            "passed": sorted(self.passed),
            "declarer": self.declarer if self.declarer >= 0 else None,
            "target": self.target or None,
            "trump": self.trump_text(seat),
            "trump_exposed": self.trump_exposed,
            "trump_card": text[self.trump_card] if self.trump_card >= 0 and is_decl else None,
            "face_down": self.trump_card >= 0,
            "exposed_card": text[self.exposed_card] if self.exposed_card >= 0 else None,
            "called_card": text[self.called_card] if self.called_card >= 0 else None,
            "partner": self.partner if knows_partner else None,
            "widow": ([text[c] for c in self.widow_left] if is_decl and self.phase == "exchange"
                      else None),
            "set_aside": [text[c] for c in self.set_aside] if is_decl and self.set_aside else None,
            "trick": [[s, text[c]] for s, c in zip(self.trick_seats, self.trick_cards)],
            "tricks": self.tricks_json(),
            "points": self.trick_points(),
            "declared": sorted(self.declared),
            "answers": sorted(self.answers),
            "score": self.seat_scores(),
            "legal_actions": self.legal_actions() if seat == self.to_act else [],
        }

    def trick_points(self) -> list[int]:
        """Points per seat from the tricks won so far (public: tricks are face up; the
        set-aside cards are added only when the deal is scored)."""
        pts = [0] * self.v.players
        po = self.v.deck.point_of
        for i, (_, cs, w) in enumerate(self.tricks):
            pts[w] += sum(po[c] for c in cs) + (self.v.last_trick if i == self.v.tricks - 1 else 0)
        return pts

    def result(self) -> dict:
        """The deal's result in the shape of `taash replay --json` (docs/records.md)."""
        v = self.v
        return {
            "dealer": self.dealer,
            "declarer": self.declarer if self.declarer >= 0 else None,
            "bid": self.bid if self.declarer >= 0 else None,
            "denomination": v.denomination_name.get(self.denomination),
            "doubled": self.doubled,
            "trump": v.deck.suits[self.trump] if self.trump >= 0 and self.trump_exposed else None,
            "partner": self.partner if self.partner >= 0 else None,
            "target": self.target if self.declarer >= 0 else None,
            "points": list(self.seat_points),
            "made": self.made,
            "score_change": self.score_change(),
            "tricks": self.tricks_json(),
        }

    def tricks_json(self) -> list[dict]:
        """Completed tricks as ``[{"leader", "cards", "winner"}]`` (public)."""
        text = self.v.deck.text
        return [{"leader": l, "cards": [text[c] for c in cs], "winner": w} for l, cs, w in self.tricks]

    def actions(self) -> list[str]:
        """Every action of the deal so far, in order (the record's ``actions``)."""
        return [a for _, a in self.history]


def per_seat(v: Variant, values) -> list[int]:
    """Per-side values (scores, changes) shown per seat; per-seat values unchanged."""
    if v.score_unit == "side":
        return [values[v.side_of[s]] for s in range(v.players)]
    return list(values)


def _order_from(start: int, n: int) -> list[int]:
    return [(start + i) % n for i in range(n)]


def _deal_from_seed(v: Variant, dealer: int, seed):
    """Shuffle from ``seed`` and deal in the flow's packets, seat by seat from eldest (§0.7)."""
    deck = v.deck.cards()
    random.Random(seed).shuffle(deck)
    n = v.players
    dealt = [[] for _ in range(n)]
    pos = 0
    for step in v.flow:
        if isinstance(step, dict) and "deal" in step:
            for k in step["deal"]:
                for i in range(n):
                    s = (dealer + 1 + i) % n
                    dealt[s].extend(deck[pos:pos + k])
                    pos += k
    return dealt, deck[pos:]


def _deal_given(v: Variant, hands, widow):
    """Check explicit hands (card texts per seat in the order dealt) against the deck."""
    deck = v.deck
    n = v.players
    if len(hands) != n:
        raise ValueError(f"expected hands for {n} seats, got {len(hands)}")
    want = v.cards_per_seat
    dealt = []
    for s, h in enumerate(hands):
        if len(h) != want:
            raise ValueError(f"seat {s} has {len(h)} cards; each seat is dealt {want}")
        dealt.append([deck.parse(t) for t in h])
    if len(widow) != v.widow_size:
        raise ValueError(f"the widow has {len(widow)} cards; the variant deals {v.widow_size}")
    wid = [deck.parse(t) for t in widow]
    counts = {}
    for c in [c for h in dealt for c in h] + wid:
        counts[c] = counts.get(c, 0) + 1
    for c in range(deck.size):
        if counts.get(c, 0) != deck.copies:
            raise ValueError(f"the hands hold {counts.get(c, 0)} of {deck.text[c]}; the deck has {deck.copies}")
    return dealt, wid


class Match:
    """A match: deals with the dealer passing to next(dealer) (§0.2), scores carried from
    deal to deal, and the end of the match by the variant's ``match.ends`` rule (§0.9).

    ``seed`` (int) fixes the first dealer and every shuffle; the same seed gives the same
    match for the same actions.
    """

    def __init__(self, variant: Variant, seed: int = 0, salt: str = ""):
        """``salt``: a secret mixed into every shuffle, so that knowing ``seed`` does not
        reveal the cards (the arena uses its own; records hold the hands, so a replay
        needs no salt)."""
        self.v = variant
        self.seed = seed
        self.salt = salt
        n = variant.players
        self.scores = [variant.score_start] * (variant.sides if variant.score_unit == "side" else n)
        self.dealer = random.Random(f"taash-first-dealer:{salt}{seed}").randrange(n)
        self.deals: list[State] = []
        self.over = False
        self.ended_by: str | None = None  # "rule", or "deal limit" (match.max_deals)
        self.winners: list[int] = []

    def deal_seed(self, index: int) -> str:
        """The shuffle seed of deal ``index`` (0-based) of this match."""
        return f"taash-deal:{self.salt}{self.seed}:{index}"

    def new_deal(self, hands=None, widow=None, dealer=None) -> State:
        """Start the next deal (from the match seed unless ``hands`` are given)."""
        if self.over:
            raise ValueError("the match is over")
        d = self.dealer if dealer is None else dealer
        return State(self.v, dealer=d, hands=hands, widow=widow, seed=self.deal_seed(len(self.deals)),
                     scores=self.scores, deal_number=len(self.deals))

    def finish_deal(self, state: State) -> None:
        """Take a terminal deal's scores, pass the deal on, and check the match end."""
        if not state.is_terminal:
            raise ValueError("the deal is not over")
        self.deals.append(state)
        self.scores = list(state.scores)
        self.dealer = (state.dealer + 1) % self.v.players
        if self.v.rules["match.ends"](state, -1, None, None):
            self.over, self.ended_by = True, "rule"
            seat_scores = state.seat_scores(self.scores)
            top = max(seat_scores)
            self.winners = [s for s, x in enumerate(seat_scores) if x == top]
        elif len(self.deals) >= self.v.max_deals:
            self.over, self.ended_by = True, "deal limit"  # stopped, not won: no winners

    def seat_scores(self) -> list[int]:
        """Match scores per seat (a seat shows its side's score)."""
        return per_seat(self.v, self.scores)

    def record(self, options=None) -> dict:
        """The match as a record (docs/records.md)."""
        text = self.v.deck.text
        return {
            "format": "taash-record/1",
            "variant": self.v.ref,
            "variant_sha256": self.v.digest,
            "options": dict(options or {}),
            "seed": self.seed,
            "deals": [{"dealer": st.dealer,
                       "hands": [[text[c] for c in h] for h in st.dealt],
                       "widow": [text[c] for c in st.widow],
                       "actions": st.actions()} for st in self.deals],
        }

    def summary(self) -> dict:
        """The match part of `taash replay --json`: score per seat, over, winners, and
        ended_by ("rule", "deal limit", or None while it goes on)."""
        return {"score": self.seat_scores(), "over": self.over, "winners": list(self.winners),
                "ended_by": self.ended_by}

