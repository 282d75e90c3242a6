"""The generic engine: `State` (one deal and the match score around it) and `Match`.

The engine knows the vocabulary of trick-taking games (deal in packets, auction of calls,
open or hidden trump, tricks, declarations, scoring, match end); every rule that differs
between games is a compiled DSL rule of the `Variant` (docs/architecture.md). Nothing here names a
game. The mechanics (the one list, mechanics.py) declare the State's fields, start them
and finish a deal, hold its phases and give their parts of an observation; the State runs
them. What is the variant's own is in its declared compiled functions (``Variant.play_step``,
the phases with its generated legal actions: ``Variant.phases``); each variant's States
are of a class of its own that takes them (`state_class`), and a State pickles as its
variant and its plain fields (`State.__reduce__`).

Engine-wide guarantees (documented in docs/authoring.md):
- a bid is above the high bid, or equal to it where ``auction.may_equal`` allows, but
  never two equal bids in a row (so every two bids raise the high bid); a full round of
  consecutive passes ends a round auction, and in a duel every pass puts a seat out; so
  every auction ends;
- each declaration is made at most once per deal, so every play phase ends;
- a match ends when its `match.ends` rule says so or after `match.max_deals` deals
  (default 1000).
"""

from __future__ import annotations

import json
import random
import weakref
from itertools import chain

from orjson import Fragment as _Fragment
from orjson import dumps as _dumps

from .actions import Action, default_of
from .draws import shuffle
from .dsl.fastpath import build_copy
from .dsl.names import check_state
from .errors import InvalidActionError, StateError
from .information import from_observation, resample
from .mechanics import MECHANICS
from .partner import FIXED_SIDES
from .phase import DONE, Phase, order_from, table_seat
from .play import Play
from .play import apply_id as _apply_id
from .scoring import lowest_wins
from .variant import Variant


# State's fields, grouped by what they describe, each with how `State.copy` copies it
# (mechanic.COPY_KINDS: "=" shared, "list" a shallow copy, "lists" a list of lists,
# "set"/"dict" a copy): the match's and the deal's here, then each mechanic's own
# (`Mechanic.fields`), in the list's order. __slots__ and copy() come from this table.
FIELDS: dict[str, dict[str, str]] = {
    "match": {"v": "=", "deal_number": "=", "scores": "list", "start_scores": "list"},
    "deal": {"dealer": "=", "dealt": "=", "widow": "=", "hands": "lists", "_dealt": "=",
             "_skip": "=", "step": "=", "handler": "=", "to_act": "=",
             "history": "list", "_legal": "=", "_legal_actions": "=",
             "out": "list", "_next": "=", "_active": "="},
    **{m.name: dict(m.fields) for m in MECHANICS},
}
_ALL_FIELDS = tuple(f for group in FIELDS.values() for f in group)
# what a pickle of a State leaves out: the variant goes first, the legal Actions are made
# again from the legal ids (State.__reduce__)
_NOT_PICKLED = frozenset(("v", "_legal_actions"))


class State:
    """The whole truth of one deal, and the match score around it.

    Seats are 0..players-1 (docs/rules.md §0.1). Cards are ints (see `taash.interpreter.cards`);
    actions are `Action` objects, each equal to its text form (docs/architecture.md, "Actions and
    notation"). The contract (docs/engine.md):

    - ``to_act``: the seat to act, or -1 when terminal; ``is_terminal``;
    - ``legal_actions()``: sorted per docs/rules.md §0.10, never empty before the end;
    - ``apply(action)``: raises InvalidActionError / IllegalActionError, state unchanged;
    - ``default_action()``: what is played for a seat that did not answer;
    - ``observation(seat)``: a function of that seat's information only;
    - ``resample(seat, rng)``: the unseen cards dealt again, consistently with it;
    - ``copy()``: independent; ``result()``: the deal's result.

    ``State(v, ...)`` is of ``v``'s own subclass, named after it (``State[29]``:
    `state_class`), whose ``apply_id`` is the variant's generated one.

    A deal runs through the variant's flow: dealing steps and phases, each phase a
    `Phase` handler (auction, exchange, trump, call_partner, doubling, play) with its own
    legal actions and apply; ``phase`` names the current one (``done`` at the end).
    """

    # _views: observation_json's JSON of the history and tricks so far (not copied)
    __slots__ = _ALL_FIELDS + ("_views",)

    # flow step -> phase handler; each variant's own class has its own (``Variant.phases``)
    phases: dict[str, Phase] = {}

    def __new__(cls, variant=None, *args, **kwargs):
        """A State of ``variant``'s own class, ``State[<variant name>]`` (`state_class`:
        the same State, with the variant's generated ``apply_id`` and its phases; of a flow
        that changes by deal, the class of the deal's variant: `Variant.for_deal`)."""
        if cls is not State:
            return object.__new__(cls)
        if variant is not None and variant.deal_sizes is not None:
            deal = kwargs.get("deal_number", args[5] if len(args) > 5 else 0)
            if type(deal) is int and 0 <= deal < len(variant.deal_sizes):     # else __init__ says so
                variant = variant.for_deal(deal)
        return object.__new__(state_class(variant))

    def __init__(self, variant: Variant, dealer: int = 0, hands=None, widow=None, seed=0,
                 scores=None, deal_number: int = 0, variables=None):
        """Start a deal. ``hands``: per seat, the card texts (or card ids) in the order
        dealt (§0.7), and ``widow`` the widow's cards; without hands the deck is shuffled
        from ``seed``.
        ``scores``: the match scores before this deal (per side, or per seat when the
        match scores seats). ``variables``: the values of the variant's variables after the
        previous deal (`State.vars`; its match-scope ones are carried, the others start
        again), None at the start of a match. Raises StateError for hands that do not make
        up the deck, or ``variables`` of the wrong length."""
        if variant.deal_sizes is not None:   # a flow that changes by deal: this deal's
            try:
                variant = variant.for_deal(deal_number)
            except ValueError as e:
                raise StateError(f"deal_number: {e}") from None
        v = self.v = variant
        n = v.players
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            raise StateError(f"dealer must be a seat 0..{n - 1}, not {dealer!r}")
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
        self._dealt = 0         # cards dealt to each seat so far (every seat has as many)
        self._skip = None
        self.step = 0
        self.handler = DONE     # to_act < 0 exactly when the handler is DONE (legal: [])
        self.to_act = -1
        self.history = []
        self._legal = None
        self._legal_actions = None
        self.out = [False] * n  # seats sitting out the deal (sits_out), and the turn order
        self._next = v.next_seat  # of the others: the next seat of each, and their number
        self._active = n
        for start in _STARTS:   # each mechanic's fields (Mechanic.start)
            start(self, variables)
        if v.has_contract and not v.has_auction:
            self._take_contract()
        if _BEGINS:   # rules asked as the deal starts (Mechanic.begin), which see the deal
            self.to_act = dealer    # under way (`deals_played` counts the deals before it)
            for begin in _BEGINS:
                begin(self)
            self.to_act = -1
        self._advance()

    # -- the contract -------------------------------------------------------------
    @property
    def phase(self) -> str:
        """The current phase's name: ``auction``, ``bids``, ``doubling``, ``exchange``, ``trump``,
        ``call``, ``declare`` (the flow's declare step), ``play`` or ``done``."""
        return self.handler.name

    @property
    def is_terminal(self) -> bool:
        """True once the deal is over (scored, or thrown in when nobody bid)."""
        return self.to_act < 0

    def legal_actions(self) -> list[Action]:
        """Legal actions of ``to_act``, ordered per docs/rules.md §0.10; empty only when
        terminal. The list is the state's own: do not change it."""
        la = self._legal_actions
        if la is None:
            acts = self.v.actions
            la = self._legal_actions = [acts[i] for i in self.legal_ids()]
        return la

    def legal_ids(self) -> list[int]:
        """The legal actions as ids (``variant.actions[i]``), in the order of
        `legal_actions`: the hot path for playouts and search (a play's id is its card
        id). The list is the state's own: do not change it."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self.handler.legal(self)
        return legal

    def apply(self, action) -> None:
        """Apply one action of ``to_act``: an `Action` or its text form. Raises
        InvalidActionError for text that is no action of this variant, and
        IllegalActionError (with the legal set) for one not legal now; the state is then
        unchanged."""
        a = self.v.action_map.get(action) if isinstance(action, str) else None
        if a is None:
            raise InvalidActionError(action, self.legal_actions())
        self.apply_id(a.id)

    apply_id = _apply_id  # the generic apply of an action id (play.apply_id)


    def default_action(self, rng=None) -> Action:
        """The action taken for ``to_act`` when its seat did not answer in time: the first
        legal action (docs/rules.md §0.10 order) that is not a declaration, an expose, a double
        or a redouble; a question is answered with its first answer. Raises StateError on
        a terminal state.

        A hidden choice reveals nothing: when that action's public form differs from
        the action (`public_action`: a face-down trump card, a card taken from or put to
        the widow, a suit named secretly), the default is drawn uniformly from the legal
        actions of the same public form, so that the others learn no more than from a
        random choice. ``rng``: a random.Random or a seed; None draws with the deal's own
        generator, seeded from the deal as dealt (hands, widow, dealer: all in its
        record) and the number of actions so far, so the same point of the same deal
        always gets the same default (a replay, the arena's verdict and its game loop
        agree)."""
        legal = self.legal_actions()
        if not legal:
            raise StateError("the deal is over: no seat is to act")
        a = default_of(legal)
        hidden = self.v.hidden_forms          # as public_action shows them to the others
        shown = hidden.get(a)
        if shown is None:
            return a
        same = [x for x in legal if hidden.get(x) == shown]
        if rng is None:
            rng = random.Random(f"taash-default:{self.dealer}:{self.dealt}:{self.widow}:{len(self.history)}")
        elif not isinstance(rng, random.Random):
            rng = random.Random(rng)
        return rng.choice(same)

    # copy(): made from FIELDS below the class (dsl.fastpath.build_copy)

    def resample(self, seat: int, rng=None) -> "State":
        """An independent State at the same point in which every card ``seat`` cannot see
        is dealt again uniformly among the deals consistent with its information: the
        public history replays legally on it and ``seat``'s observation is the same.
        ``rng``: a random.Random or a seed. See interpreter/information.py."""
        return resample(self, seat, rng)

    @classmethod
    def from_observation(cls, variant: Variant, observation: dict, rng=None) -> "State":
        """A State of ``variant`` made from one seat's ``observation`` alone (what
        `observation` gave, or its JSON read back, as the arena sends it), as OpenSpiel's
        ``ResampleFromInfostate``: the replay of its history is legal and the seat's
        observation of the result is ``observation``; the cards the seat has not seen are
        dealt at random (consistent, not uniform: `resample` the result for uniform
        worlds). ``rng``: a random.Random or a seed. Raises
        `taash.interpreter.information.RebuildError` (a TaashError) when no deal fits
        within the bound of tries, StateError for a seat that is not one. See
        interpreter/information.py."""
        return from_observation(cls, variant, observation, rng)

    def known_side_tricks(self, seat: int) -> int:
        """Completed tricks won by seats that ``seat`` knows to be on its side (§0.8,
        §304.9): with a secret partner, the declarer counts his own tricks and the
        defenders theirs each, until the partner is revealed; the partner knows."""
        side = self.side[seat]
        if (self.v.partnership != "called" or self.partner_revealed or seat == self.partner
                or self.taken_over is not None):   # a contract that changed hands: sides public
            return self.side_tricks[side]
        return sum(1 for (_, _, w), sd in zip(self.tricks, self.trick_sides) if sd == side and w == seat)

    # -- the trick as it stands (DSL names trick_winner, winning_card, higher, beats) ----
    def trick_winner(self) -> int:
        """The seat whose card wins the current trick as it stands (docs/rules.md §0.4, with
        ``play.counts_as_trump`` asked now), or -1 before the lead."""
        return self.trick_seats[Play.best(self)] if self.trick_cards else -1

    def winning_card(self) -> int:
        """The card (id) that wins the current trick as it stands, or -1 before the lead."""
        return self.trick_cards[Play.best(self)] if self.trick_cards else -1

    def higher(self, seat: int, cards: list[int], card: int) -> list[int]:
        """The cards of ``cards`` that, played now by ``seat``, would rank above ``card``
        in the current trick (§0.4; an identical card ranks below the one played first):
        ``card`` as played to this trick, or as if ``seat`` played it now; every card
        ranks above -1 (none). Before the lead, ``card`` counts as the card led."""
        if card < 0:
            return list(cards)
        led = self.led if self.led >= 0 else self.v.deck.suit_of[card]
        ref = self._key(seat, card, led)
        return [c for c in cards if Play.key_now(self, seat, c, led) > ref]

    def beats(self, seat: int, a: int, b: int) -> bool:
        """Whether card ``a`` ranks above card ``b`` in the current trick (§0.4, the keys of
        ``Play.trick_keys``/``Play.key_now``): each card as played to this trick, or as if
        ``seat`` played it now; before the lead, ``b`` counts as the card led. Identical
        cards do not beat each other; every card beats -1 (none), -1 beats nothing."""
        if a < 0:
            return False
        if b < 0:
            return True
        led = self.led if self.led >= 0 else self.v.deck.suit_of[b]
        return self._key(seat, a, led) > self._key(seat, b, led)

    def _key(self, seat: int, card: int, led: int) -> int:
        """The trick key of ``card``: as played to this trick (the first copy), else as if
        ``seat`` played it now."""
        if card in self.trick_cards:
            return Play.trick_keys(self)[self.trick_cards.index(card)]
        return Play.key_now(self, seat, card, led)

    # -- dealing and the flow ---------------------------------------------------------
    def _take_contract(self):
        """A flow without an auction: the declarer and target are the variant's
        ``contract`` rules, asked as the deal starts."""
        v = self.v
        declarer = table_seat(self, "contract.declarer")
        self._set_contract(declarer, v.rules["contract.target"](self, declarer, None, None))

    def _set_contract(self, declarer: int, target: int) -> None:
        """The contract is made (by the auction or the ``contract`` rules): the declarer,
        its target and, in a called or solo partnership, its side (0) against the others
        (1)."""
        self.declarer, self.target = declarer, target
        if self.v.partnership not in FIXED_SIDES:
            n = self.v.players
            self.side = [1] * n + [-1]
            self.side[declarer] = 0

    def _change_contract(self, before: int, declaration: str, seat: int) -> None:
        """A declaration's effect set ``declarer`` (docs/authoring.md, "Each player for
        himself, and a contract that changes hands"): the new declarer (or none: no
        contract) holds the contract from now on. In a called or solo partnership he
        plays alone on side 0 against the others (a called partner is released); with
        fixed sides or each player for himself the sides stay. The tricks and points won
        so far count for the sides as they now stand. ``taken_over`` keeps who held it
        first (-1: nobody), and the last declaration that changed it and its ``seat``."""
        v = self.v
        first = before if self.taken_over is None else self.taken_over[0]
        self.taken_over = (first, declaration, seat)
        if self.declarer < 0:
            self.declarer, self.target = -1, 0
        if v.partnership not in FIXED_SIDES:
            n = v.players
            self.side = [1] * n + [-1]
            if self.declarer >= 0:
                self.side[self.declarer] = 0
            self.partner = -1
            self.partner_revealed = False
        side = self.side
        self.side_points = [0] * v.sides
        self.side_tricks = [0] * v.sides
        for seat, pts in enumerate(self.seat_points):
            self.side_points[side[seat]] += pts
        self.trick_sides = [side[w] for _, _, w in self.tricks]
        for sd in self.trick_sides:
            self.side_tricks[sd] += 1

    def _seat_out(self):
        """Take up ``out`` (set by ``sits_out`` effects): the turn order of the seats that
        play. A rule that would leave no seat to play is ignored (every seat plays)."""
        n = self.v.players
        if all(self.out):
            self.out = [False] * n
        if not any(self.out):
            self._next, self._active = self.v.next_seat, n
            return
        self._next = [next(t for t in order_from(s + 1, n) if not self.out[t]) for s in range(n)]
        self._active = n - sum(self.out)

    def next_active(self, seat: int) -> int:
        """``seat`` if it plays in this deal, else the next seat in turn that does."""
        return seat if not self.out[seat] else self._next[seat]

    def _next_step(self):
        self.step += 1
        self._advance()

    def _advance(self):
        """Run the flow from ``step``: deal the packets of dealing steps (§0.7), enter the
        next phase, or score the deal when the flow is done."""
        steps = self.v.steps
        while self.step < len(steps):
            name, k = steps[self.step]
            if k is not None:  # a dealing step: k cards to each seat
                skip, p = self._skip, self._dealt
                if skip is None:
                    for hand, dealt in zip(self.hands, self.dealt):
                        hand += dealt[p:p + k]
                        hand.sort()
                else:
                    for s, (hand, dealt) in enumerate(zip(self.hands, self.dealt)):
                        cards = dealt[p:p + k]
                        if skip[0] == s and p <= skip[1] < p + k:
                            cards = [c for i, c in enumerate(cards) if p + i != skip[1]]
                        hand += cards
                        hand.sort()
                self._dealt = p + k
                self.step += 1
                continue
            if name == "skip":
                self.step += 1
                continue
            handler = self.phases.get(name)
            if handler is None:
                raise ValueError(f"unknown flow step {name!r}")
            self.handler = handler
            handler.enter(self)
            return
        self._score()

    def _end_deal(self):
        self.handler, self.to_act = DONE, -1

    def _score(self):
        """The deal is over: each mechanic finishes it (`Mechanic.finish`, in the list's
        order: the widow's cards set aside counted, then the deal scored)."""
        self._end_deal()
        for finish in _FINISHES:
            finish(self)

    # -- views --------------------------------------------------------------------------
    def score_change(self) -> list[int]:
        """Change of the match score in this deal, per seat (a seat shows its side's)."""
        return per_seat(self.v, [a - b for a, b in zip(self.scores, self.start_scores)])

    def seat_scores(self, scores=None) -> list[int]:
        """Match scores per seat (a seat shows its side's score)."""
        return per_seat(self.v, self.scores if scores is None else scores)

    @property
    def public_trump(self) -> int:
        """The trump suit (-1: none), as a rule sets it (``trump = ...``, docs/authoring.md
        "No trump, or trump set in play")."""
        return self.trump

    @public_trump.setter
    def public_trump(self, suit: int) -> None:
        """Set trump to ``suit`` (a suit index; none, -1, or a no-trump denomination, -2
        and below, leaves no trump), known to every seat from now on: the observation's
        ``trump``, the result's, and ``counts_as_trump`` read it. Only a variant whose
        trump is public sets it (trump.check_set_in_play)."""
        self.trump = suit if 0 <= suit < len(self.v.deck.suits) else -1
        self.trump_exposed = True

    def trump_text(self, seat: int | None = None) -> str | None:
        """The trump suit letter as ``seat`` knows it (None: no trump, or hidden from it)."""
        if self.trump < 0:
            return None
        if self.trump_exposed or (seat is not None and seat == self.declarer):
            return self.v.deck.suits[self.trump]
        return None

    def public_action(self, seat_of_action: int, action: str, viewer: int | None) -> str:
        """An action as ``viewer`` sees it: a face-down card, a card taken from or put to
        the widow, and a suit named secretly as trump (``trump S`` of ``trump.mode:
        secret``, §29b.5) keep their card or suit hidden from the other seats."""
        if viewer != seat_of_action:
            return self.v.hidden_forms.get(action, action)   # built with the variant's actions
        return action

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know (docs/architecture.md, "Information"), as a JSON-ready dict: its
        hand, the public history, what the rules show it alone (a hidden trump card or
        the widow to the declarer, the partner to the holder of the called card), scores
        and, when it is to act, its legal actions. ``exposed_card``: the face-down trump
        card once exposed, shown to every seat (docs/rules.md §28.7, §28.8). A function of the
        seat's information set only. Raises StateError for a seat that is not one."""
        self.v.check_seat(seat)
        hidden = self.v.hidden_forms     # what public_action hides from the other seats
        return self._view(seat, [[s, a if s == seat else hidden.get(a, a)] for s, a in self.history],
                          self.tricks_json())

    def observation_json(self, seat: int) -> str:
        """`observation` as compact JSON text: no spaces, non-ASCII as itself, the same
        text as ``json.dumps(state.observation(seat), separators=(",", ":"),
        ensure_ascii=False)``, for a server that sends one with every decision (the
        arena's DecisionRequest.observation_json). Written by orjson; the JSON of the
        history and of the completed tricks is kept from the last call on this state and
        only extended (both grow by appends within a deal), so a call costs about 60% of
        `observation` and its encoding (29, mid-deal: 6.8 against 11.3 us). A value orjson does not take (an integer past
        64 bits in a variable) falls back to the json module. Raises StateError for a
        seat that is not one."""
        v = self.v
        v.check_seat(seat)
        history, tricks = self.history, self.tricks
        try:
            views = self._views
        except AttributeError:      # a new state, or a copy (copy() leaves it unset)
            views = None
        if views is None or views[0] is not history or views[1] > len(history) or views[3] is not tricks:
            views = (history, 0, ("",) * v.players, tricks, 0, "")
        if views[1] < len(history):
            aj, pj = v.action_json, v.public_action_json
            seen = list(views[2])
            for s, a in history[views[1]:]:
                own, public = f"[{s},{aj[a]}]", f"[{s},{pj[a]}]"
                for t in range(v.players):
                    seen[t] = f"{seen[t]},{own if t == s else public}" if seen[t] else (own if t == s else public)
            views = (history, len(history), tuple(seen), tricks, views[4], views[5])
        if views[4] < len(tricks):
            text = v.deck.text
            done = _dumps([{"leader": l, "cards": [text[c] for c in cs], "winner": w}
                           for l, cs, w in tricks[views[4]:]]).decode()[1:-1]
            views = views[:4] + (len(tricks), f"{views[5]},{done}" if views[5] else done)
        self._views = views
        try:
            return _dumps(self._view(seat, _Fragment(f"[{views[2][seat]}]"),
                                     _Fragment(f"[{views[5]}]"))).decode()
        except TypeError:
            return json.dumps(self.observation(seat), separators=(",", ":"), ensure_ascii=False)

    def _view(self, seat: int, history, tricks) -> dict:
        """The observation of ``seat`` around its ``history`` and ``tricks`` (JSON-ready
        values, or their JSON as orjson fragments)."""
        v = self.v
        out = self.out
        view = {
            "variant": v.name,
            "seat": seat,
            "players": v.players,
            "dealer": self.dealer,
            "deal": self.deal_number,
            "phase": self.handler.name,
            "to_act": self.to_act,
            "hand": list(map(v.deck.text.__getitem__, self.hands[seat])),
            "hand_sizes": list(map(len, self.hands)),
            "sitting_out": [s for s, o in enumerate(out) if o] if True in out else [],
            "history": history,
        }
        for part in _VIEWS:     # each mechanic's part (Mechanic.view), in the list's order
            view.update(part(self, seat, tricks))
        view["legal_actions"] = self.legal_actions() if seat == self.to_act else []
        return view

    def trick_points(self) -> list[int]:
        """Points per seat from the tricks won so far (public: tricks are face up; the
        set-aside cards are added only when the deal is scored)."""
        pts = [0] * self.v.players
        for i, (_, _, w) in enumerate(self.tricks):
            pts[w] += self.trick_points_of(i)
        return pts

    def trick_points_of(self, i: int) -> int:
        """The card points of completed trick ``i`` (0-based), with the last trick's bonus
        on the last one (docs/rules.md §0.5)."""
        po = self.v.deck.point_of
        return sum(po[c] for c in self.tricks[i][1]) + (self.v.last_trick if i == self.v.tricks - 1 else 0)

    def result(self) -> dict:
        """The deal's result in the shape of `taash replay --json` (docs/records.md)."""
        v = self.v
        return {
            "dealer": self.dealer,
            "declarer": self.declarer if self.declarer >= 0 else None,
            "bid": self.bid if self.declarer >= 0 else None,
            "denomination": v.denomination_name.get(self.denomination),
            **{k: x for part in _RESULTS for k, x in part(self).items()},
            "doubled": self.doubled,
            "trump": v.deck.suits[self.trump] if self.trump >= 0 and self.trump_exposed else None,
            "partner": self.partner if self.partner >= 0 else None,
            "target": self.target if self.declarer >= 0 else None,
            **({"taken_over": {"from": self.taken_over[0] if self.taken_over[0] >= 0 else None,
                               "by": self.taken_over[1], "seat": self.taken_over[2]}}
               if self.taken_over else {}),
            "points": list(self.seat_points),
            "made": self.made,
            "score_change": self.score_change(),
            **({"variables": v.variables_json(self.vars)} if any(x.public for x in v.variables) else {}),
            "tricks": self.tricks_json(),
            **({"void": True} if self.voided else {}),
        }

    def tricks_json(self) -> list[dict]:
        """Completed tricks as ``[{"leader", "cards", "winner"}]`` (public)."""
        text = self.v.deck.text
        return [{"leader": l, "cards": [text[c] for c in cs], "winner": w} for l, cs, w in self.tricks]

    def actions(self) -> list[str]:
        """Every action of the deal so far, in order (the record's ``actions``)."""
        return [a for _, a in self.history]

    def __repr__(self) -> str:
        where = f"deal {self.deal_number + 1} {self.phase}"
        if self.to_act < 0:
            return f"<State {self.v.name} {where}>"
        if self.handler.name == "play":
            where += f" trick {self.tricks_done + 1}"
        return f"<State {self.v.name} {where}, seat {self.to_act} to act>"

    def __reduce__(self):
        # the variant (pickled as what it was loaded from) and the plain fields: actions
        # as ids, the phase by its flow step, a question by its declaration's name
        fields = {}
        for name in _ALL_FIELDS:
            if name in _NOT_PICKLED:
                continue
            fields[name] = getattr(self, name)
        fields["history"] = [(s, a.id) for s, a in self.history]
        fields["handler"] = None if self.handler is DONE else self.v.steps[self.step][0]
        if self.question is not None:
            fields["question"] = (self.question[0], self.question[1].name)
        return (_restore_state, (self.v, fields))


State.copy = build_copy({name: kind for group in FIELDS.values() for name, kind in group.items()})
State.copy.__qualname__ = "State.copy"
State.copy.__doc__ = """An independent copy: applying actions to it leaves this state unchanged
    (lists are copied one level deep; the deal's cards and the variant are shared)."""
check_state(State)  # every State field the DSL registry reads exists, checked at import

def _restore_state(v: Variant, fields: dict) -> State:
    """A State of ``v`` from the fields `State.__reduce__` gave (the unpickling of one)."""
    s = object.__new__(state_class(v))
    s.v = v
    s._legal_actions = None
    for name, value in fields.items():
        setattr(s, name, value)
    acts = v.actions
    s.history = [(seat, acts[i]) for seat, i in fields["history"]]
    s.handler = DONE if fields["handler"] is None else v.phases[fields["handler"]]
    if s.question is not None:
        seat, name = s.question
        s.question = (seat, next(d for d in v.declarations if d.name == name))
    return s


# the mechanics' parts of a State, in the list's order (Mechanic.start, .finish, .view)
_STARTS = tuple(m.start for m in MECHANICS if m.start is not None)
_BEGINS = tuple(m.begin for m in MECHANICS if m.begin is not None)
_FINISHES = tuple(m.finish for m in MECHANICS if m.finish is not None)
_VIEWS = tuple(m.view for m in MECHANICS if m.view is not None)
# each mechanic's part of the deal's result (Mechanic.result), in the list's order
_RESULTS = tuple(m.result for m in MECHANICS if m.result is not None)


# flow step -> the mechanics' shared phase handlers: those of a State of no variant's class
State.phases = {step: phase for m in MECHANICS for step, phase in m.phases.items()}

# Variant -> the class of its States (state_class), made once per variant
_CLASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def state_class(v: Variant) -> type:
    """The class of ``v``'s States, made once per variant: `State` with ``apply_id`` the
    variant's own (``v.play_step``, made by `taash.interpreter.dsl.Compiler.build_play_step`:
    a play written out, the next legal plays made at once; everything else goes to
    `play.apply_id`, the generic one) and ``phases`` its own (``v.phases``). ``State(v,
    ...)`` makes one (`State.__new__`); it is a State in every other respect. It is named
    after its variant, ``State[29]`` (``type(st).__name__``, its repr, a traceback's), so
    that it is never taken for `State` itself. (A plain State calling ``v.play_step`` from
    its own ``apply_id`` costs a call more a decision: 3% of a deal of random playouts,
    bench/README.md.)"""
    cls = _CLASSES.get(v)
    if cls is None:
        name = f"State[{v.name}]"
        cls = _CLASSES[v] = type(name, (State,), {
            "__slots__": (), "__doc__": State.__doc__, "__module__": State.__module__,
            "__qualname__": name, "apply_id": v.play_step, "phases": v.phases})
    return cls


def per_seat(v: Variant, values) -> list[int]:
    """Per-side values (scores, changes) shown per seat; per-seat values unchanged."""
    if v.score_unit == "side":
        return [values[v.side_of[s]] for s in range(v.players)]
    return list(values)


def _deal_from_seed(v: Variant, dealer: int, seed):
    """Shuffle from ``seed`` and deal in the flow's packets, seat by seat from eldest (§0.7)."""
    deck = v.deck.cards()
    shuffle(deck, random.Random(seed))     # as random.shuffle, faster (draws.py)
    n = v.players
    take = deck.__getitem__
    dealt = [None] * n
    for j, pos in enumerate(v.deal_positions):  # j-th seat from eldest
        dealt[(dealer + 1 + j) % n] = list(map(take, pos))
    return dealt, deck[n * v.cards_per_seat:]


def _deal_given(v: Variant, hands, widow):
    """Check explicit hands (per seat in the order dealt: card texts, or card ids as
    ints) against the deck."""
    deck = v.deck
    n = v.players
    if len(hands) != n:
        raise StateError(f"expected hands for {n} seats, got {len(hands)}")
    want = v.cards_per_seat
    ids = list(chain.from_iterable(hands))
    ids += widow
    try:
        ids.sort()
        whole = ids == deck.all_cards   # ids making up the deck (the resampler's)
    except TypeError:
        whole = False
    if whole and len(widow) == v.widow_size and all(map(want.__eq__, map(len, hands))):
        return list(map(list, hands)), list(widow)
    dealt = []
    for s, h in enumerate(hands):
        if len(h) != want:
            raise StateError(f"seat {s} has {len(h)} cards; each seat is dealt {want}")
        dealt.append([deck.parse(t) for t in h])
    if len(widow) != v.widow_size:
        raise StateError(f"the widow has {len(widow)} cards; the variant deals {v.widow_size}")
    wid = [deck.parse(t) for t in widow]
    counts = {}
    for c in [c for h in dealt for c in h] + wid:
        counts[c] = counts.get(c, 0) + 1
    for c in range(deck.size):
        if counts.get(c, 0) != deck.count[c]:
            raise StateError(f"the hands hold {counts.get(c, 0)} of {deck.text[c]}; the deck has {deck.count[c]}")
    return dealt, wid


class Match:
    """A match: deals with the dealer passing to next(dealer) (§0.2) or to the seat the
    variant's ``match.next_dealer`` names, scores and match-scope variables carried from
    deal to deal, and the end of the match by the variant's ``match.ends`` rule (§0.9).

    ``seed`` (int) fixes the first dealer and every shuffle; the same seed gives the same
    match for the same actions. ``played``: the number of finished deals; ``deals``: their
    States, in order (empty when the match keeps none).
    """

    def __init__(self, variant: Variant, seed: int = 0, salt: str = "", keep_deals: bool = True):
        """``salt``: a secret mixed into every shuffle, so that knowing ``seed`` does not
        reveal the cards (the arena uses its own; records hold the hands, so a replay
        needs no salt). ``keep_deals``: False keeps no finished State (``deals`` stays
        empty and `record` is refused), for long simulations that only count: a match of
        random bots can run to the 1,000-deal cap, and holding its States made `taash
        simulate` about 1.5x slower (bench/playouts.py --simulate)."""
        self.v = variant.for_deal(0)    # (a flow that changes by deal: State takes each deal's)
        self.seed = seed
        self.salt = salt
        self.keep_deals = keep_deals
        self.played = 0
        n = variant.players
        self.scores = [variant.score_start] * (variant.sides if variant.score_unit == "side" else n)
        self.dealer = random.Random(f"taash-first-dealer:{salt}{seed}").randrange(n)
        self.vars = None  # the variables after the last deal (None before the first)
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
            raise StateError("the match is over")
        d = self.dealer if dealer is None else dealer
        return State(self.v, dealer=d, hands=hands, widow=widow, seed=self.deal_seed(self.played),
                     scores=self.scores, deal_number=self.played, variables=self.vars)

    def finish_deal(self, state: State) -> None:
        """Take a terminal deal's scores, pass the deal on, and check the match end.
        Raises StateError for a deal not over, or not the one `new_deal` started (a deal
        finished twice, another match's, one started from other scores)."""
        if not state.is_terminal:
            raise StateError("the deal is not over")
        if state.deal_number != self.played or state.v is not self.v.for_deal(self.played) \
                or state.start_scores != self.scores:
            raise StateError(f"not this match's next deal: finish the deal new_deal() gave "
                             f"(deal {self.played + 1}, from scores {self.scores}), once")
        self.played += 1
        if self.keep_deals:
            self.deals.append(state)
        self.scores = list(state.scores)
        self.vars = list(state.vars)
        self.dealer = self.next_dealer(state)
        if state.v.rules["match.ends"](state, -1, None, None):    # (the deal's: its tricks)
            self.over, self.ended_by = True, "rule"
            seat_scores = state.seat_scores(self.scores)
            top = (min if lowest_wins(self.v.data) else max)(seat_scores)
            self.winners = [s for s, x in enumerate(seat_scores) if x == top]
        elif self.played >= self.v.max_deals:
            self.over, self.ended_by = True, "deal limit"  # stopped, not won: no winners

    def next_dealer(self, state: State) -> int:
        """The dealer of the deal after ``state``: the variant's ``match.next_dealer`` rule
        asked on the finished deal (``me`` the declarer, ``made`` whether the contract was
        made), or ``next(dealer)`` (docs/rules.md §0.2) without the rule or when it gives
        ``none``."""
        n = self.v.players
        rule = state.v.rules.get("match.next_dealer")    # (the deal's own: its tricks)
        d = rule(state, state.declarer, state.made is True, None) if rule is not None else -1
        return d if 0 <= d < n else (state.dealer + 1) % n

    def seat_scores(self) -> list[int]:
        """Match scores per seat (a seat shows its side's score)."""
        return per_seat(self.v, self.scores)

    def record(self, options=None) -> dict:
        """The match as a record (docs/records.md). Raises StateError for a match that
        keeps no deals."""
        if not self.keep_deals and self.played:
            raise StateError("this match kept no deals (keep_deals=False): it has no record")
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
                       "actions": st.actions(),
                       **self._record_variables(st)} for st in self.deals],
        }

    def _record_variables(self, st: State) -> dict:
        """A deal's ``variables`` in a record: every match-scope variable's value at the
        deal's start, hidden ones included (a record is the whole truth); nothing for a
        variant without match-scope variables (so older records keep their form)."""
        values = self.v.variables_json(st.start_vars, public_only=False, scope="match")
        return {"variables": values} if values else {}

    def summary(self) -> dict:
        """The match part of `taash replay --json`: score per seat, over, winners, and
        ended_by ("rule", "deal limit", or None while it goes on)."""
        return {"score": self.seat_scores(), "over": self.over, "winners": list(self.winners),
                "ended_by": self.ended_by}

