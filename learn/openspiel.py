"""A deal or a whole match of any variant as an OpenSpiel game (the ``learn`` extra).

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
game: ``variant`` (text); ``dealer`` (the first deal's dealing seat; default -1: drawn by
chance); ``reward`` (``score``, ``margin`` or ``match``: `taash.learn.rewards`);
``episode`` (``deal`` or ``match``); ``max_utility`` (an integer, see Returns; 0: the bound of the
reward).

An episode is one deal or a whole match, a sequential game of imperfect information
with explicit chance:

- Chance: the first deal's dealer (a seat, 1/n each) unless the ``dealer`` parameter
  names it; then each deal, one chance node per card. Node k puts a card on the k-th
  position of the deal: seat 0's cards in the order dealt, then seat 1's, ..., then the
  widow. An outcome is a card id (``deck.size`` outcomes at most), with probability its
  copies left over the cards left, so every deal is equally likely. When the last card
  is placed the engine's `State` starts (`Match.new_deal` with those hands): a later
  packet is in the deal from the start but a seat sees it only when the engine deals it.
  In a match, each later deal's chance nodes follow the one before, its dealer by the
  variant's rule (`Match.next_dealer`), the match score and match-scope variables carried.
- Players: the seats; an action is an id of the variant's action table (as in
  `taash.learn.encoding`), legal actions sorted by id.
- Strings: the information-state string of a seat is ``State.observation_json(seat)``,
  which holds the whole history of the deal as the seat saw it (perfect recall); in a
  match, after the first deal, a JSON list of the seat's last observation of each
  finished deal and then the current one. The observation string is the current deal's
  JSON without the history. During the chance nodes both are ``dealing k/N`` (and the
  dealer once drawn): no seat has seen a card of the deal yet.
- Tensors: `taash.learn.encoding`'s vector, named by its blocks, for both (the history
  enters it as counts of each seat's calls and plays; the match score and the public
  match-scope variables have their blocks); zeros during the chance nodes.
- ``resample_from_infostate(player, sampler)``: the episode's finished deals replayed as
  they were, then the engine's `State.resample` of the current deal (a uniform re-deal of
  the cards the seat cannot see, consistent with all it saw), its deal and its history
  applied, so the result has the same information state for ``player``. The sampler's
  number seeds the draw.
- Returns: at the episode's end (the reward model is terminal), the chosen reward summed
  over its deals (`taash.learn.rewards`). The game type tells the truth for the choice:
  zero-sum (``utility_sum`` 0) for ``margin`` and ``match`` where
  `taash.learn.rewards.zero_sum` says so, general-sum for ``score``; min/max utility are
  minus and plus `taash.learn.rewards.bound` (``match``: 1; ``score`` and ``margin``: the
  bound found for one deal, times ``match.max_deals`` over a match), or ``max_utility``
  when given. A return beyond it raises ValueError naming the parameter.

A clone shares the engine's State and the match until either side applies an action (then it
copies them: ``State.copy``), and the tensors and strings a node has given; serialisation pickles
them (a shipped variant by name). Game objects pickle (as ``load(short name, params)``)
and states pickle, so both go through multiprocessing pools. OpenSpiel's own
``pyspiel.random_sim_test`` (with serialisation) and its ``ResampleFromInfostate`` check
pass on every shipped variant (tests/learn), and its Python IS-MCTS bot
(``open_spiel.python.algorithms.ismcts``) plays whole deals.
"""

from __future__ import annotations

import copy
import random

import orjson

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
    import pyspiel
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.openspiel", e)) from e

from taash.interpreter import Match, State, load_variant, shipped_variants

from . import rewards
from .encoding import Encoding

_PARAMS = {"variant": "29.yaml", "dealer": -1, "max_utility": 0, "reward": "score", "episode": "deal"}


def game_name(variant_name: str) -> str:
    """The registered short name of a shipped variant: ``304-solo`` -> ``taash_304_solo``."""
    return "taash_" + variant_name.replace("/", "_").replace("-", "_")


def game_names() -> dict[str, str]:
    """{registered short name: shipped variant name}, every shipped variant."""
    return {game_name(n): n for n in shipped_variants()}


def max_game_length(v, episode: str = "deal") -> int:
    """An upper bound on the number of player actions in one episode of ``v``: per deal,
    every card played, two calls per bid level (every two bids raise the high bid) with a
    round of passes after each, and each declaration, answer, widow card and doubling once
    per seat; a match has at most ``match.max_deals`` deals."""
    n = v.players
    bids = sum(1 for a in v.actions if a.kind == "bid")
    once = sum(1 for a in v.actions if a.kind in ("declare", "answer", "double", "redouble", "expose",
                                                   "trump", "trump-card", "call-partner", "done"))
    deal = v.most_tricks * n + (2 * bids + 2) * n + n * once + 2 * (v.most_widow_size + 1) * n + 8
    return deal * (v.max_deals if episode == "match" else 1)


def load(short_name: str, params: dict):
    """``pyspiel.load_game(short_name, params)``: how a pickled game is loaded again."""
    return pyspiel.load_game(short_name, params)


class _Shared:
    """What every state of one game shares (the variant, its encoding, the deck's size,
    the parameters, and ``initial``: the `_Engine` every new state starts on, never
    changed): a copy of a state shares it (``deepcopy`` gives itself); a pickle holds the
    variant."""

    def __init__(self, variant, dealer: int, bound: float, reward: str, episode: str):
        self.v = variant
        self.dealer = dealer
        self.bound = bound
        self.reward, self.episode = reward, episode
        self.encoding = Encoding(variant)
        self.cards = len(variant.deck.all_cards)
        self.initial = _Engine(self, Match(variant, seed=0, keep_deals=False), dealer=None if dealer < 0 else dealer,
                               owned=False)

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_Shared, (self.v, self.dealer, self.bound, self.reward, self.episode))


class _Engine:
    """The Python side of a game state, in one attribute (OpenSpiel's clone of a Python
    state makes a new initial state and deep-copies each of its attributes): ``shared``
    (the game's `_Shared`), ``match`` (the `Match`, keeping no deals), ``state`` (the
    deal's `State`; None during its chance nodes), ``past`` (the finished deals' States,
    for the information state of a whole match), ``start`` (the length of the OpenSpiel
    history when the current deal's chance nodes began), ``returns`` (the rewards so far,
    per seat), ``deal`` (the card ids placed so far in the deal being dealt, by
    position), ``dealer`` (its dealer; None before the first deal's is drawn) and ``seen``
    (what this node has already given, made once: tensors, observations, strings).

    Copy on write: a deepcopy is the same object, no longer ``owned``; a state about to
    apply an action to an engine it does not own takes a `fork` of it (the match and the
    deal's State copied, ``seen`` empty) and leaves the original to the others. Every new
    state of a game starts on the game's one initial engine (`_Shared.initial`). Finished
    deals are never changed, so ``past`` is shared by every fork."""

    __slots__ = ("shared", "match", "state", "past", "start", "returns", "deal", "dealer", "seen", "owned")

    def __init__(self, shared, match, state=None, past=(), start=0, returns=None, deal=(), dealer=None,
                 owned=True):
        self.shared, self.match, self.state, self.past, self.start = shared, match, state, list(past), start
        self.returns = list(returns) if returns is not None else [0.0] * shared.v.players
        self.deal, self.dealer = list(deal), dealer
        self.seen = {}
        self.owned = owned

    def __deepcopy__(self, memo):
        self.owned = False
        return self

    def fork(self) -> "_Engine":
        """An engine of its own for a state about to change this one: the match's lists
        and the deal's State copied (``State.copy``), ``seen`` empty."""
        m = copy.copy(self.match)
        m.scores, m.winners = list(m.scores), list(m.winners)
        m.vars = list(m.vars) if m.vars is not None else None
        m.deals = []
        return _Engine(self.shared, m, self.state.copy() if self.state is not None else None, self.past,
                       self.start, self.returns, self.deal, self.dealer)

    def __reduce__(self):
        return (_Engine, (self.shared, self.match, self.state, self.past, self.start, self.returns, self.deal,
                          self.dealer))


def _game_type(short_name: str, long_name: str, v, variant_param: str, zero_sum: bool = False) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
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
    """A deal or a match of a variant (module docstring). ``params``: ``variant``,
    ``dealer``, ``max_utility``, ``reward``, ``episode``. Raises VariantError for a bad
    variant, ValueError for a bad dealer, reward or episode."""

    GAME_TYPE = None    # a shipped variant's own game: its GameType and variant name
    VARIANT = None

    def __init__(self, params=None):
        params = dict(params or {})
        self._params = dict(params)
        name = self.VARIANT if self.VARIANT is not None else str(params.get("variant", _PARAMS["variant"]))
        v = load_variant(name)
        reward, episode = str(params.get("reward", "score")), str(params.get("episode", "deal"))
        rewards.check(reward, episode)
        dealer = int(params.get("dealer", -1))
        if not -1 <= dealer < v.players:
            raise ValueError(f"dealer must be a seat 0..{v.players - 1}, or -1 (drawn by chance), not {dealer}")
        bound = float(params.get("max_utility", 0)) or rewards.bound(v, reward, episode)
        self.shared = _Shared(v, dealer, bound, reward, episode)
        zero = rewards.zero_sum(v, reward)
        registered = self.GAME_TYPE or _GENERIC
        game_type = _game_type(registered.short_name, registered.long_name, v if self.GAME_TYPE else None,
                               name, zero)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(v.actions),
            max_chance_outcomes=max(v.deck.size, v.players),
            num_players=v.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0 if zero else None,
            max_game_length=max_game_length(v, episode))
        super().__init__(game_type, info, params)

    def __reduce__(self):
        return (load, (self.get_type().short_name, self._params))

    def new_initial_state(self):
        """A state before the episode's first chance node."""
        return TaashState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of `TaashObserver`: perfect recall (information state) or not."""
        return TaashObserver(self.shared, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class TaashState(pyspiel.State):
    """A state of one episode: per deal, its chance nodes (the first deal's dealer first,
    when it is drawn) and then the engine's State. Everything of the episode is in one
    attribute, ``_engine`` (an `_Engine`): a clone copies on write."""

    def __init__(self, game):
        super().__init__(game)
        self._engine = game.shared.initial

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
        """The first deal's dealer (seat, 1/n each) when it is drawn; then (card id,
        probability) for the next position of the deal, sorted by id."""
        eng = self._engine
        v = eng.shared.v
        if eng.dealer is None:
            return [(s, 1 / v.players) for s in range(v.players)]
        got = eng.seen.get("chance")
        if got is None:
            left = list(v.deck.count)
            for c in eng.deal:
                left[c] -= 1
            total = eng.shared.cards - len(eng.deal)
            got = eng.seen["chance"] = [(c, k / total) for c, k in enumerate(left) if k > 0]
        return list(got)

    def _apply_action(self, action):
        eng = self._engine
        if eng.owned:
            eng.seen = {}
        else:
            eng = self._engine = eng.fork()
        sh = eng.shared
        if eng.state is not None:
            st = eng.state
            st.apply(sh.v.actions[action])
            if st.is_terminal:
                self._end_deal(st)
            return
        if eng.dealer is None:
            eng.dealer = int(action)
            return
        eng.deal.append(int(action))
        if len(eng.deal) == sh.cards:
            k, n = eng.match.v.for_deal(eng.match.played).cards_per_seat, sh.v.players
            hands = [eng.deal[s * k:(s + 1) * k] for s in range(n)]
            eng.state = eng.match.new_deal(hands=hands, widow=eng.deal[n * k:], dealer=eng.dealer)

    def _end_deal(self, st):
        """Score a finished deal; in a match not over, go on to the next deal's chance
        nodes (its dealer by the match's rule)."""
        eng = self._engine
        sh, m = eng.shared, eng.match
        m.finish_deal(st)
        got = rewards.deal_reward(sh.v, sh.reward, st.score_change())
        eng.returns = [a + b for a, b in zip(eng.returns, got)]
        if sh.episode == "match" and m.over and sh.reward == "match":
            eng.returns = rewards.match_outcome(sh.v, m.winners)
        if sh.episode == "match" and not m.over:
            eng.past = eng.past + [st]
            eng.state = None
            eng.start = len(self.history()) + 1       # this action is not in the history yet
            eng.deal = []
            eng.dealer = m.dealer

    def _action_to_string(self, player, action):
        eng = self._engine
        v = eng.shared.v
        if player == pyspiel.PlayerId.CHANCE:
            if eng.dealer is None:
                return f"dealer {action}"
            return f"deal {v.deck.text[action]}"
        return v.actions[action].text

    def is_terminal(self):
        st = self._engine.state
        return st is not None and st.is_terminal

    def returns(self):
        """Each seat's return, at the episode's end (module docstring; 0 before: the game's
        reward model is terminal); ValueError beyond the game's ``max_utility``."""
        sh = self._engine.shared
        if not self.is_terminal():
            return [0.0] * sh.v.players
        got = list(self._engine.returns)
        if max(map(abs, got)) > sh.bound + 1e-9:
            raise ValueError(f"a return of {got} is beyond the game's max_utility "
                             f"{sh.bound}: load the game with a larger max_utility")
        return got

    def resample_from_infostate(self, player_id, probability_sampler):
        """A new state with the same information state for ``player_id``: the episode's
        actions up to the current deal replayed (its finished deals as they were), then
        the engine's `State.resample` of the current deal (a seat that has seen no card
        yet: the placed cards drawn anew)."""
        rng = random.Random(int(probability_sampler() * 2 ** 53))
        game = self.get_game()
        new = game.new_initial_state()
        eng = self._engine
        for a in self.history()[:eng.start]:
            new.apply_action(a)
        if new._engine.dealer is None and eng.dealer is not None:
            new.apply_action(eng.dealer)
        st = eng.state
        if st is None:
            cards = list(eng.shared.v.deck.all_cards)
            rng.shuffle(cards)
            for c in cards[:len(eng.deal)]:
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
        eng = self._engine
        got = eng.seen.get("str")
        if got is None:
            got = eng.seen["str"] = self._text()
        return got

    def _text(self) -> str:
        eng = self._engine
        st, sh, m = eng.state, eng.shared, eng.match
        text = sh.v.deck.text
        head = f"deal {m.played + 1}, match score {m.seat_scores()}: " if sh.episode == "match" else ""
        if st is None:
            dealer = "?" if eng.dealer is None else eng.dealer
            return (f"{head}dealer {dealer}, dealing {len(eng.deal)}/{sh.cards}: "
                    f"{' '.join(text[c] for c in eng.deal)}")
        hands = " | ".join(" ".join(text[c] for c in h) for h in st.hands)
        return f"{head}{st!r} hands: {hands} actions: {' '.join(a.text for _, a in st.history)}"


class TaashObserver:
    """An OpenSpiel Python observer (``set_from``/``string_from``, ``tensor``, ``dict``):
    one seat's view. Perfect recall: the information state (the observation JSON with
    the history; over a match, a JSON list of the seat's last observation of each
    finished deal and then the current one); else the observation (without the history).
    The tensor is the encoding's vector, ``dict`` its blocks. Raises ValueError for an
    observation type that is not one seat's own (public-only or all seats' private
    information), or for parameters."""

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
        eng = state._engine
        if eng.state is None:
            self.tensor.fill(0)
            return
        seen = eng.seen
        got = seen.get(("tensor", player))
        if got is None:
            got = seen["tensor", player] = self.shared.encoding.encode(_observation(eng, player))
        self.tensor[:] = got

    def string_from(self, state, player):
        eng = state._engine
        key = ("info" if self.perfect_recall else "string", player)
        got = eng.seen.get(key)
        if got is None:
            got = eng.seen[key] = self._string(eng, player)
        return got

    def _string(self, eng, player) -> str:
        st = eng.state
        if st is None:
            dealer = "" if eng.dealer is None else f", dealer {eng.dealer}"
            now = f"dealing {len(eng.deal)}/{self.shared.cards}{dealer}"
        elif self.perfect_recall:
            now = st.observation_json(player)
        else:
            obs = _observation(eng, player)
            now = orjson.dumps({k: x for k, x in obs.items() if k != "history"}).decode()
        if self.shared.episode != "match" or not (self.perfect_recall and eng.past):
            return now
        past = ",".join(p.observation_json(player) for p in eng.past)
        return f"[{past},{orjson.dumps(now).decode() if st is None else now}]"


def _observation(eng: _Engine, player: int) -> dict:
    """``State.observation(player)`` of the engine's deal, made once a node (read only)."""
    got = eng.seen.get(("obs", player))
    if got is None:
        got = eng.seen["obs", player] = eng.state.observation(player)
    return got


# -- registration -------------------------------------------------------------------------
_GENERIC = _game_type("taash", "taash: a deal or a match of any variant (parameter variant)", None, "29.yaml")


def _register():
    pyspiel.register_game(_GENERIC, TaashGame)
    for short, name in game_names().items():
        v = load_variant(name)
        gt = _game_type(short, f"taash {v.title} ({name})", v, name)
        # one class per variant (not a closure): OpenSpiel keeps the creator until the
        # process exits, and a class outlives the interpreter's own clean-up; a module
        # attribute of its own name, so that pickle finds it
        cls_name = f"TaashGame_{short}"
        game_class = type(cls_name, (TaashGame,), {"GAME_TYPE": gt, "VARIANT": name, "__module__": __name__,
                                                   "__doc__": f"One deal or match of {name}."})
        globals()[cls_name] = game_class
        pyspiel.register_game(gt, game_class)
        GAMES[short] = game_class


GAMES: dict = {}    # short name -> the game class of each shipped variant
_register()
