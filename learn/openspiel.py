"""A deal of any variant as an OpenSpiel game (the ``learn`` extra).

>>> import pyspiel
>>> import taash.learn.openspiel               # registers the games
>>> game = pyspiel.load_game("taash_29")
>>> game.num_players(), game.num_distinct_actions()
(4, 185)

Importing this module registers, with ``pyspiel.register_game``, one game per shipped
variant, ``taash_<name>`` with ``/`` and ``-`` written ``_`` (``taash_29``,
``taash_304_solo``, ``taash_house_29_bhoos``; `game_names`), and the game ``taash``
whose ``variant`` parameter names a shipped variant or a variant file's path
(``pyspiel.load_game("taash", {"variant": "/path/mine.yaml"})``). Parameters of every
game: ``variant`` (text), ``dealer`` (the seat that deals, default 0) and
``max_utility`` (see Returns; 0: found from the variant).

The game is one deal, a sequential game of imperfect information with explicit chance:

- Chance: the deal, one chance node per card. Node k puts a card on the k-th position of
  the deal: seat 0's cards in the order dealt, then seat 1's, ..., then the widow. An
  outcome is a card id (``deck.size`` outcomes at most), with probability its copies left
  over the cards left, so every deal is equally likely. When the last card is placed
  the engine's `State` starts (``State(variant, dealer, hands, widow)``): a later packet
  is in the deal from the start but a seat sees it only when the engine deals it.
- Players: the seats; an action is an id of the variant's action table (as in
  `taash.learn.encoding`), legal actions sorted by id.
- Strings: the information-state string of a seat is ``State.observation_json(seat)``,
  which holds the whole history as the seat saw it (perfect recall); the observation
  string is the same JSON without the history. During the chance nodes both are
  ``dealing k/N``: no seat has seen a card yet.
- Tensors: `taash.learn.encoding`'s vector, named by its blocks, for both (the history
  enters it as counts of each seat's calls and plays); zeros during the chance nodes.
- ``resample_from_infostate(player, sampler)``: the engine's `State.resample` (a uniform
  re-deal of the cards the seat cannot see, consistent with all it saw), its deal and its
  history applied to a new state of this game, so the result has the same information
  state for ``player``. The sampler's number seeds the draw.
- Returns: at the end, each seat's change of the match score in the deal by the variant's
  own scoring (``State.score_change()``), as in the PettingZoo environment; general-sum.
  OpenSpiel asks for a utility range before any deal is played, and a variant's scoring
  is a rule that nothing bounds, so ``max_utility`` bounds |return|: given, or 0 for
  four times the largest |score change| of 64 random deals of the variant (at least 1).
  A return beyond it raises ValueError naming the parameter.

Clones copy the engine's State (``State.copy``); serialisation pickles it (a shipped
variant by name). OpenSpiel's own ``pyspiel.random_sim_test`` (with serialisation) and
its ``ResampleFromInfostate`` check pass on every shipped variant (tests/learn), and its
Python IS-MCTS bot (``open_spiel.python.algorithms.ismcts``) plays whole deals.
"""

from __future__ import annotations

import random

import orjson

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
    import pyspiel
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.openspiel", e)) from e

from taash.interpreter import Match, State, load_variant, shipped_variants

from .encoding import Encoding

_PARAMS = {"variant": "29.yaml", "dealer": 0, "max_utility": 0}
_BOUNDS: dict = {}      # (variant ref, options) -> the derived max_utility


def game_name(variant_name: str) -> str:
    """The registered short name of a shipped variant: ``304-solo`` -> ``taash_304_solo``."""
    return "taash_" + variant_name.replace("/", "_").replace("-", "_")


def game_names() -> dict[str, str]:
    """{registered short name: shipped variant name}, every shipped variant."""
    return {game_name(n): n for n in shipped_variants()}


def max_return(variant, deals: int = 64) -> int:
    """Four times the largest |score change| per seat over ``deals`` random deals of
    ``variant`` (seeded, so the same every time), at least 1: the default bound on a
    deal's return (module docstring)."""
    key = (variant.ref, tuple(sorted(variant.options.items())))
    got = _BOUNDS.get(key)
    if got is None:
        rng = random.Random(0)
        top = 0
        m = Match(variant, seed=0, keep_deals=False)
        for d in range(deals):
            st = State(variant, dealer=d % variant.players, seed=f"taash-bound:{d}",
                       scores=m.scores)
            while not st.is_terminal:
                st.apply_id(rng.choice(st.legal_ids()))
            top = max([top] + [abs(x) for x in st.score_change()])
        got = _BOUNDS[key] = max(1, 4 * top)
    return got


def max_game_length(v) -> int:
    """An upper bound on the number of player actions in one deal of ``v``: every card
    played, two calls per bid level (every two bids raise the high bid) with a round of
    passes after each, and each declaration, answer, widow card and doubling once per seat."""
    n = v.players
    bids = sum(1 for a in v.actions if a.kind == "bid")
    once = sum(1 for a in v.actions if a.kind in ("declare", "answer", "double", "redouble", "expose",
                                                   "trump", "trump-card", "call-partner", "done"))
    return v.tricks * n + (2 * bids + 2) * n + n * once + 2 * (v.widow_size + 1) * n + 8


class _Shared:
    """What every state of one game shares (the variant, its encoding, the deal's size):
    a copy of a state shares it (``deepcopy`` gives itself); a pickle holds the variant."""

    def __init__(self, variant, dealer: int, bound: int):
        self.v = variant
        self.dealer = dealer
        self.bound = bound
        self.encoding = Encoding(variant)
        self.cards = len(variant.deck.all_cards)
        self.per_seat = variant.cards_per_seat

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_Shared, (self.v, self.dealer, self.bound))


class _Engine:
    """The engine's State of a game state (None during the deal's chance nodes); a
    deepcopy is ``State.copy``."""

    __slots__ = ("state",)

    def __init__(self, state=None):
        self.state = state

    def __deepcopy__(self, memo):
        return _Engine(self.state.copy() if self.state is not None else None)

    def __reduce__(self):
        return (_Engine, (self.state,))


def _game_type(short_name: str, long_name: str, v, variant_param: str) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=v.players if v is not None else 8,
        min_num_players=v.players if v is not None else 2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=(dict(_PARAMS, variant=variant_param) if v is None
                                 else {k: x for k, x in _PARAMS.items() if k != "variant"}))


class TaashGame(pyspiel.Game):
    """One deal of a variant (module docstring). ``params``: ``variant``, ``dealer``,
    ``max_utility``. Raises VariantError for a bad variant, ValueError for a bad dealer."""

    GAME_TYPE = None    # a shipped variant's own game: its GameType and variant name
    VARIANT = None

    def __init__(self, params=None):
        params = dict(params or {})
        name = self.VARIANT if self.VARIANT is not None else str(params.get("variant", _PARAMS["variant"]))
        v = load_variant(name)
        dealer = int(params.get("dealer", 0))
        if not 0 <= dealer < v.players:
            raise ValueError(f"dealer must be a seat 0..{v.players - 1}, not {dealer}")
        bound = int(params.get("max_utility", 0)) or max_return(v)
        params["max_utility"] = bound      # the game string shows the bound in effect, not 0
        self.shared = _Shared(v, dealer, bound)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(v.actions),
            max_chance_outcomes=v.deck.size,
            num_players=v.players,
            min_utility=-float(bound),
            max_utility=float(bound),
            utility_sum=None,
            max_game_length=max_game_length(v))
        super().__init__(self.GAME_TYPE or _GENERIC, info, params)

    def new_initial_state(self):
        """A state before the deal's first card."""
        return TaashState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of `TaashObserver`: perfect recall (information state) or not."""
        return TaashObserver(self.shared, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class TaashState(pyspiel.State):
    """A state of one deal: the chance nodes of the deal, then the engine's State."""

    def __init__(self, game):
        super().__init__(game)
        self._shared = game.shared
        self._deal = []                 # card ids placed so far, by position
        self._engine = _Engine()

    # -- the OpenSpiel state API -------------------------------------------------------
    def current_player(self):
        st = self._engine.state
        if st is None:
            return pyspiel.PlayerId.CHANCE
        if st.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        return st.to_act

    def _legal_actions(self, player):
        st = self._engine.state
        return sorted(st.legal_ids()) if st is not None and player == st.to_act else []

    def chance_outcomes(self):
        """(card id, probability) for the next position of the deal, sorted by id."""
        v = self._shared.v
        left = {}
        for c in v.deck.all_cards:
            left[c] = left.get(c, 0) + 1
        for c in self._deal:
            left[c] -= 1
        total = self._shared.cards - len(self._deal)
        return [(c, k / total) for c, k in sorted(left.items()) if k > 0]

    def _apply_action(self, action):
        sh = self._shared
        if self._engine.state is None:
            self._deal.append(int(action))
            if len(self._deal) == sh.cards:
                k, n = sh.per_seat, sh.v.players
                hands = [self._deal[s * k:(s + 1) * k] for s in range(n)]
                self._engine.state = State(sh.v, dealer=sh.dealer, hands=hands, widow=self._deal[n * k:])
            return
        self._engine.state.apply(sh.v.actions[action])

    def _action_to_string(self, player, action):
        v = self._shared.v
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {v.deck.text[action]}"
        return v.actions[action].text

    def is_terminal(self):
        st = self._engine.state
        return st is not None and st.is_terminal

    def returns(self):
        """Each seat's score change in the deal (0 before the end); ValueError beyond the
        game's ``max_utility``."""
        st = self._engine.state
        if st is None or not st.is_terminal:
            return [0.0] * self._shared.v.players
        change = [float(x) for x in st.score_change()]
        if max(map(abs, change)) > self._shared.bound:
            raise ValueError(f"a return of {change} is beyond the game's max_utility "
                             f"{self._shared.bound}: load the game with a larger max_utility")
        return change

    def resample_from_infostate(self, player_id, probability_sampler):
        """A new state with the same information state for ``player_id``: the engine's
        `State.resample` (a seat that has seen no card yet: the placed cards drawn anew)."""
        rng = random.Random(int(probability_sampler() * 2 ** 53))
        game = self.get_game()
        new = game.new_initial_state()
        st = self._engine.state
        if st is None:
            cards = list(self._shared.v.deck.all_cards)
            rng.shuffle(cards)
            for c in cards[:len(self._deal)]:
                new.apply_action(c)
            return new
        r = st.resample(player_id, rng)
        for h in r.dealt:
            for c in h:
                new.apply_action(c)
        for c in r.widow:
            new.apply_action(c)
        for _, a in r.history:
            new.apply_action(a.id)
        return new

    def __str__(self):
        st = self._engine.state
        text = self._shared.v.deck.text
        if st is None:
            return f"dealing {len(self._deal)}/{self._shared.cards}: {' '.join(text[c] for c in self._deal)}"
        hands = " | ".join(" ".join(text[c] for c in h) for h in st.hands)
        return f"{st!r} hands: {hands} actions: {' '.join(a.text for _, a in st.history)}"


class TaashObserver:
    """An OpenSpiel Python observer (``set_from``/``string_from``, ``tensor``, ``dict``):
    one seat's view. Perfect recall: the information state (the observation JSON with
    the history); else the observation (without the history). The tensor is the
    encoding's vector, ``dict`` its blocks. Raises ValueError for an observation type
    that is not one seat's own (public-only or all seats' private information), or for
    parameters."""

    def __init__(self, shared: _Shared, iig_obs_type, params):
        if params:
            raise ValueError(f"the taash observer takes no parameters, not {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("the taash observer gives one seat's own view: public and that "
                             "seat's private information")
        self.shared = shared
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(shared.encoding.size, np.float32)
        self.dict = shared.encoding.views(self.tensor)

    def set_from(self, state, player):
        st = state._engine.state
        if st is None:
            self.tensor.fill(0)
        else:
            self.shared.encoding.encode(st.observation(player), self.tensor)

    def string_from(self, state, player):
        st = state._engine.state
        if st is None:
            return f"dealing {len(state._deal)}/{self.shared.cards}"
        if self.perfect_recall:
            return st.observation_json(player)
        obs = st.observation(player)
        del obs["history"]
        return orjson.dumps(obs).decode()


# -- registration -------------------------------------------------------------------------
_GENERIC = _game_type("taash", "taash: one deal of any variant (parameter variant)", None, "29.yaml")


def _register():
    pyspiel.register_game(_GENERIC, TaashGame)
    for short, name in game_names().items():
        v = load_variant(name)
        gt = _game_type(short, f"taash {v.title} ({name})", v, name)
        # one class per variant (not a closure): OpenSpiel keeps the creator until the
        # process exits, and a class outlives the interpreter's own clean-up
        game_class = type(f"TaashGame_{short}", (TaashGame,), {"GAME_TYPE": gt, "VARIANT": name,
                                                            "__doc__": f"One deal of {name}."})
        pyspiel.register_game(gt, game_class)
        GAMES[short] = game_class


GAMES: dict = {}    # short name -> the game class of each shipped variant
_register()
