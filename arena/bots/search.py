"""The search bot (`search`): determinized Monte Carlo search on the engine, for any variant.

Algorithm: Perfect Information Monte Carlo (PIMC) sampling with flat Monte Carlo
evaluation at the root, as in Ginsberg's GIB for bridge (Ginsberg, "GIB: Imperfect
information in a computationally challenging game", JAIR 14, 2001) and its analysis by
Long, Sturtevant, Buro and Furtak ("Understanding the success of perfect information
Monte Carlo sampling in game tree search", AAAI 2010), who show that PIMC does well in
trick-taking games, whose *leaf correlation* is high and *disambiguation* fast (each
trick shows cards), the two properties that limit its known flaws (strategy fusion,
non-locality). Each iteration draws one *world*: ``state.resample(seat, rng)``, a deal of
the cards the seat cannot see, uniform among the deals consistent with what it knows
(interpreter/information.py). Every legal action is then played in that same world and
the deal finished by a cheap rollout policy (common random numbers across actions: the
same world and the same rollout draws for every action reduce the variance of their
differences; Glasserman, "Monte Carlo Methods in Financial Engineering", 2003, §4.2;
two bids of one denomination are then played out alike and differ by the scoring
alone). The root spends its rollouts by sequential halving (Karnin, Koren, Somekh,
ICML 2013; `SearchBot._search`), so that an auction of 150 bids still spends most of
them on its few best. An action's value is the mean, over worlds, of the deal's ``score_change`` for the bot's seat (the variant's own
scoring) less the mean change of the seats of other sides (a match is won against
them), plus a small term for its side's card points (≤ ``TIE_WEIGHT``), which breaks
ties between actions of equal score (keeping points when the contract is decided). The
action of highest mean is played (ties: the first in docs/rules.md §0.10 order), unless the
prior says otherwise (below).

A prior from the heuristic bot (arena/bots/heuristic.py, generic too): its action at the
root is searched in every world and never dropped, and the bot leaves it only for an
action whose mean lead over it in the same worlds (paired differences: common random
numbers) exceeds ``prior_z`` standard errors. Prior knowledge in Monte Carlo search,
as in progressive bias (Chaslot, Winands, van den Herik, Uiterwijk, Bouzy,
"Progressive strategies for Monte-Carlo tree search", New Math. and Natural
Computation 4(3), 2008) and the prior of Gelly and Silver ("Combining online and
offline knowledge in UCT", ICML 2007): with few worlds (56's six hands leave about 20
per decision at 50 ms) a noisy mean no longer overrules a sound default. In the
auction the arms are cut (`SearchBot._few_bids`): of the bids with a denomination
only the lowest of each and those of the heuristic's number are searched, since
higher bids of one denomination play out alike unless a rollout's call depends on the
number (a cut that keeps an auction decision of 56 to about a dozen arms).
What the prior and the other settings are worth on ladders: docs/bots.md.

Inference from the calls (``call_eps``): the worlds are not uniform. A world drawn by
``resample`` is judged by what the other seats called in it: at each bid, pass, double,
redouble or trump choice (a suit named or a card laid face down, hidden or not) of
another seat, the model of play (the heuristic bot, deciding from that seat's
observation in the world) is asked what it would have called; the world's likelihood is
the product, over those calls, of 1 where the model agrees and ``call_eps`` where it does
not, and the world is accepted with that probability (rejection sampling: at most
``WORLD_TRIES`` draws, then the likeliest drawn). Policy-based inference (Rebstock,
Solinas, Buro and Sturtevant, "Policy based inference in trick-taking card games", IEEE
CoG 2019), with the bot's own prior as the model: a partner that opened the bidding
holds the cards the model opens with, a declarer's face-down trump is most likely of the
suit the model would name from its hand. Judging a world replays its deal's calls, which
costs far more than a draw on the variants of six hands; with a time budget, draws are
judged only while that has taken at most ``INFER_SHARE`` of the decision's time so far,
and one world's draws at most ``INFER_SHARE / INFER_WORLDS`` of the budget.

Why not ISMCTS (Cowling, Powley, Whitehouse, "Information Set Monte Carlo Tree Search",
IEEE TCIAIG 4(2), 2012): at 10-200 ms per decision in pure Python a deal's worth of
rollouts is a few hundred; a tree over so few iterations adds little beyond the root,
and Cowling et al. report PIMC-like determinization as strong in trick-taking games
with this little search. The flat root also keeps every decision kind (bids, trump,
declarations, exposes, partner calls, widow exchanges, plays) one code path.

Rollout policy (`Rollout`), generic, from the engine's phases and action kinds and the
deck's strengths and points only: the calls of the auction and doubling are the model's
(the heuristic's, from each seat's observation in the world), so that a pass is worth
what the others then bid and a bid the contract the auction then ends in, outbid or not
(with ``model_calls`` off, ``default_action()``: a pass where allowed, the bot valuing a
bid as "the contract at this bid", the others passing); the bids of a `bids` step (each seat bidding its own
tricks) are the model's likewise, every number an arm at the root (no `_few_bids` cut:
the number is what the scoring reads); a trump or face-down trump card goes to the declarer's longest suit (then the
most strength); a partner call names the strongest card of the trump the declarer
lacks (then of any suit), as the heuristic calls; widow exchanges are uniform; in play
a question gets any answer, a declaration is not made (it may be a wager: the root
searches them all; with ``declare`` every declaration with an effect in the variant's
data, a marriage or a pair, is made as soon as it is legal), the exposure of a hidden trump is asked for when the seat holds a card of the
world's trump and another side holds a trick with points (or the seat plays last),
as a follower takes such a trick below, and a card is, with
probability ``greedy``, chosen greedily on the world's open hands: a leader plays the
card of most points that no other hand can beat in its suit (not a trump), else at
random; a follower takes a trick that holds points (or as the last to play)
with its cheapest winning card, gives points to a trick its side holds as the last to
play, else plays its cheapest card; otherwise a legal card at random. A card "wins" when
it is of the suit led or an exposed trump and ranks above every card of the trick that
counts the same way: an approximation of the rollout only, never of the rules (the
engine plays the tricks). Rollout policies that use the world's open hands are the
usual choice in PIMC (GIB's double-dummy solver goes further).

Settings (`SearchBot` and `search_bot` keyword arguments; `taash bot search` flags):

- ``budget_ms`` (default 50; ``--budget-ms``): the wall time of a decision, ms;
- ``playouts`` (default None: time only; ``--playouts``): the rollouts of a decision;
- ``prior_z`` (default 2.0; ``--prior-z``): the lead, in standard errors, an action needs
  over the heuristic's to be played instead (0: no prior);
- ``call_eps`` (default 0.2; ``--call-eps``): a world's likelihood factor for each call
  of another seat that the model would not have made in it (1: uniform worlds);
- ``model_calls`` (default True): rollouts play the auction's calls by the model (the
  heuristic); False: the other seats pass;
- ``greedy`` (default 0.8; ``--greedy``): the chance that a rollout card is chosen
  greedily rather than at random;
- ``declare`` (default False; ``--declare``): rollouts make the declarations with an
  effect, but not one that commits the player (`heuristic.COMMITS`: taking over the
  contract, a seat sitting out, a target of tricks), which only the root weighs;
- ``kernel`` (default None; ``--kernel [wait|off]``): with the ``fast`` extra installed, a
  decision in the play phase plays its rollouts on the compiled kernel (`taash.kernel`):
  the same policy card for card, fed the same draws of the same generator
  (`Rollout.draws`), so the same rollouts reach the same ends and a decision bounded by
  ``playouts`` is the same on either; many more rollouts fit a time budget. A decision
  before the play (a bid, the trump, an exchange) rolls out on the engine to the first
  lead and on the kernel from there, fed what the generator would give from there (1.3
  to 1.9 times the rollouts: the calls of the other seats, by the heuristic's model,
  stay the engine's). A decision in play draws its worlds on the kernel too
  (`kernel_worlds`, kernel/worlds.py: the same proposals from the same draws, judged on
  the kernel's array, so the same worlds as ``resample``, about ten times as fast on 29
  and 28, six times on 56; the engine's ``resample`` for a state the kernel does not
  model; ``worlds_on_kernel = False`` turns that off, for bench/kernel.py). None: the
  kernel is made in the background (`taash.kernel.warm.kernel_soon`: a child process
  compiles it, 10-30 s the first time on a machine, then it is cached on disk) from the
  first decision, which, like every decision until it is ready, rolls out on the
  engine; no decision waits for it. True (``wait``): the first decision waits for
  it (`taash.kernel.kernel_for`). False (``off``): the engine only. Without the extra, or
  for a variant the kernel cannot compile (told once), the engine plays.

An optional declaration at the root is one more action: the bot makes it only when its
rollouts score it above not making it (by ``prior_z`` over the heuristic's choice, and the
heuristic declines one that commits the player without a hand that surely wins every
trick), so a risky declaration is declined when it loses on average.

Time and reproducibility: ``budget_ms`` bounds the wall time of a decision (the search
stops between two rollouts); ``playouts`` bounds the number of rollouts instead (or as
well), which makes a decision a pure function of (seed, observation): the generator is
seeded from a hash of the bot's seed and the seat's observation, as
arena/bots/random.py ObservationRandomBot does. Over the arena a decision also keeps to half
the decision's ``deadline_ms`` (taken from the game's time control).

In process the bot is a *state agent* (``decide_state(state, seat)``: it only calls
``observation``, ``legal_ids``, ``resample`` and plays on the resampled worlds). Over the
arena (``decide(observation, legal)``) it has no State: the engine's
`State.from_observation` makes one from the observation alone (its own cards, the public
history, what was shown to it), a deal in which replaying that history is legal and gives
the seat the very same observation;
``resample`` then draws the worlds from it, so the other seats' true cards are never
read. `taash ladder run` asks bots by observation, so the ladder plays this path too.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time

from taash.interpreter import State
from taash.interpreter.actions import NOT_DEFAULT, default_of
from taash.interpreter.engine import per_seat
from taash.interpreter.errors import TaashError
from taash.interpreter.information import RebuildError  # noqa: F401 (its bots' error, importable here)
from taash.interpreter.scoring import lowest_wins
from taash.kernel.warm import KernelUse

from .heuristic import COMMITS, heuristic_bot

DEFAULT_BUDGET_MS = 50
TIE_WEIGHT = 0.05      # the side's card points add at most this to an action's value
GREEDY = 0.8           # chance that a rollout card is the greedy one (`Rollout.play`)
WORLD_TRIES = 20       # draws of a world per accepted world, while other seats' calls are judged
CALL_EPS = 0.2         # a world's likelihood factor per call the model would not have made (1: no inference)
INFER_SHARE = 0.5      # the share of a decision's time that judging calls may take (time budgets only)
INFER_WORLDS = 8       # a world's draws may take INFER_SHARE / INFER_WORLDS of the decision's time
MODEL_PHASES = frozenset(("auction", "doubling", "trump", "bids"))   # the phases whose calls are judged
PRIOR_Z = 2.0          # the heuristic's action is left only for a lead of this many standard errors


# -- the rollout policy ----------------------------------------------------------------
class Rollout:
    """The cheap policy that finishes a world's deal (module docstring): generic, from
    phases, action kinds and the deck's strengths and points."""

    def __init__(self, v, declare: bool = False, greedy: float = GREEDY, model=None):
        self.v = v
        self.model = model      # decide(observation, legal texts): the auction's calls, else None
        self.greedy = greedy
        d = v.deck
        self.suit_of, self.strength, self.point = d.suit_of, d.strength, d.point_of
        # a deck without card points: tricks alone count, so every trick is worth taking
        self.tricks_only = not any(d.point_of)
        self.nsuits = len(d.suits)
        self.size = d.size
        self.acts = v.actions
        self.nondefault = NOT_DEFAULT
        # declarations with an effect on the contract (a marriage, a pair), not wagers: the
        # variant's own data says which (as arena/bots/heuristic.py reads it)
        decl = (v.data or {}).get("declarations") or {}
        # (one that commits the player, such as taking every trick alone, is judged at
        # the root only: made blindly in rollouts it would lose them)
        eff = {name for name, spec in decl.items() if isinstance(spec, dict) and spec.get("effect")
               and not COMMITS.search(str(spec["effect"]))}
        self.helpful = frozenset(a.id for a in v.actions if a.kind == "declare"
                                 and isinstance(a.arg, tuple) and a.arg[0] in eff) if declare else frozenset()

    def run(self, st: State, rng: random.Random, to_play: bool = False) -> None:
        """Play ``st`` to the end of the deal; with ``to_play``, only to the play phase
        (the first lead, or the end of a deal that never reaches it)."""
        size = self.size
        expose = self.v.expose_action.id
        rand = rng.random
        acts = self.acts
        helpful = self.helpful
        greedy = self.greedy
        while st.to_act >= 0:
            if to_play and st.phase == "play":
                return
            ids = st.legal_ids()
            if len(ids) == 1:
                st.apply_id(ids[0])
                continue
            ph = st.phase
            if ph == "play":
                if ids[-1] >= size:                       # a question: any answer
                    st.apply_id(ids[int(rand() * len(ids))])
                    continue
                if ids[0] >= size:
                    # a declaration that moves the target, never a wager; an expose to
                    # take a trick
                    if helpful:
                        for i in ids:
                            if i in helpful:
                                break
                        else:
                            i = -1
                        if i >= 0:
                            st.apply_id(i)
                            continue
                    if expose in ids and self.wants_exposure(st):
                        st.apply_id(expose)
                        continue
                    ids = [i for i in ids if i < size]
                st.apply_id(self.play(st, ids, rng) if rand() < greedy else ids[int(rand() * len(ids))])
            elif ph == "auction" or ph == "doubling" or ph == "bids":
                if self.model is None:
                    st.apply_id(self.default(ids))
                else:
                    a = self.v.action_map.get(str(self.model.decide(st.observation(st.to_act),
                                                                    [str(acts[i]) for i in ids])))
                    st.apply_id(a.id if a is not None and a.id in ids else self.default(ids))
            elif ph == "trump":
                st.apply_id(self.trump(st, ids))
            elif acts[ids[0]].kind == "call-partner":
                st.apply_id(self.call(st, ids))
            else:
                st.apply_id(ids[int(rand() * len(ids))])

    def draws(self, st: State, rng: random.Random) -> list[float]:
        """The values ``run`` would draw from ``rng`` to finish ``st`` in the play phase,
        as many as it can use (two for every card still in hand), in order: what the
        kernel's rollout is fed (`taash.kernel.Kernel.rollout`)."""
        rand = rng.random
        return [rand() for _ in range(2 * sum(map(len, st.hands)) + 2)]

    def helpful_mask(self, checks) -> int:
        """``helpful`` as the kernel's mask over its play declarations ``checks`` ((action
        id, name, suit) each, `taash.kernel.source.Facts.play_checks`)."""
        return sum(1 << k for k, (i, _, _) in enumerate(checks) if i in self.helpful)

    def wants_exposure(self, st: State) -> bool:
        """Ask for the exposure of the (world's) trump when the seat holds a card of it
        and another side holds the trick so far, the trick holding points or the seat
        playing last: as a follower takes a trick in `play`."""
        me = st.to_act
        trump = st.trump
        suit_of = self.suit_of
        if trump < 0 or not any(suit_of[c] == trump for c in st.hands[me]):
            return False
        winner = st.trick_winner()      # the trick as it stands (no trump counts yet)
        if winner < 0 or st.side[winner] == st.side[me]:
            return False
        trick = st.trick_cards
        return sum(self.point[c] for c in trick) > 0 or len(trick) == st._active - 1

    def default(self, ids):
        acts, nd = self.acts, self.nondefault
        for i in ids:
            if acts[i].kind not in nd:
                return i
        return ids[0]

    def trump(self, st, ids):
        """The declarer's longest suit (then the most strength): ``trump X`` of it, or
        its weakest card of it laid face down."""
        suit_of, strength = self.suit_of, self.strength
        length = [0] * self.nsuits
        for c in st.hands[st.to_act]:
            length[suit_of[c]] += 100 + strength[c]
        acts = self.acts
        best, key = ids[0], None
        for i in ids:
            a = acts[i]
            if a.kind == "trump":
                k = (length[a.code], 0)
            elif a.kind == "trump-card" and a.code is not None:
                k = (length[suit_of[a.code]], -strength[a.code])
            else:
                continue
            if key is None or k > key:
                best, key = i, k
        return best

    def _boss(self, st, cards) -> int:
        """Of ``cards`` (the leader's), one that no card of another hand of the world
        outranks in its suit, not of the trump (the trump is drawn by the others'
        ruffs anyway), the one with the most points; -1 if none."""
        suit_of, strength = self.suit_of, self.strength
        top = [-1] * self.nsuits
        me = st.to_act
        for s, hand in enumerate(st.hands):
            if s != me:
                for c in hand:
                    k = suit_of[c]
                    if strength[c] > top[k]:
                        top[k] = strength[c]
        trump = st.trump
        best, key = -1, None
        for c in cards:
            k = suit_of[c]
            if k != trump and strength[c] > top[k]:
                kk = (self.point[c], strength[c])
                if key is None or kk > key:
                    best, key = c, kk
        return best

    def call(self, st, ids):
        """A partner call: the strongest card of the trump named (then of any suit, then
        the most points), as a declarer calls the card that helps it most."""
        suit_of, strength, point, acts = self.suit_of, self.strength, self.point, self.acts
        trump = st.trump
        return max(ids, key=lambda i: (suit_of[acts[i].code] == trump, strength[acts[i].code],
                                       point[acts[i].code], -i))

    def play(self, st, ids, rng):
        """Following: the cheapest card that beats the trick so far if the trick holds
        points (any trick, with a deck without points), else the cheapest card; leading: at random. Declarations and exposes
        (ids above the deck) are left to the random branch."""
        size = self.size
        cards = [i for i in ids if i < size]
        if not cards:
            return ids[0]
        trick = st.trick_cards
        point, strength, suit_of = self.point, self.strength, self.suit_of
        if not trick:                 # leading: a card no other hand can beat in its suit, else at random
            top = self._boss(st, cards)
            if top >= 0:
                return top
            return cards[int(rng.random() * len(cards))]
        led = st.led
        trump = st.trump if st.trump_exposed else -1

        def key(c):
            s = suit_of[c]
            return 200 + strength[c] if s == trump else (100 + strength[c] if s == led else 0)

        keys = [key(c) for c in trick]
        best = max(keys)
        cheap = min(cards, key=lambda c: (point[c], strength[c]))
        me = st.to_act
        side = st.side
        if side[st.trick_seats[keys.index(best)]] == side[me]:
            # the trick is the side's so far: give it points if the card cannot take it over
            # as a trump would (a card that does not outrank the winner)
            give = [c for c in cards if key(c) <= best and suit_of[c] != trump]
            if give and len(trick) == st._active - 1:
                return max(give, key=lambda c: (point[c], -strength[c]))
        if self.tricks_only or sum(point[c] for c in trick) > 0 or len(trick) == st._active - 1:
            winners = [c for c in cards if key(c) > best]
            if winners:
                return min(winners, key=lambda c: (key(c) >= 200, point[c] < 0, strength[c]))
        return cheap


# -- the bot -------------------------------------------------------------------------------
class SearchBot:
    """The ``search`` bot: PIMC with a rollout policy (module docstring).

    ``variant``: the loaded Variant; ``seed``: int or text; ``budget_ms``: wall time per
    decision (None: no time bound); ``playouts``: rollouts per decision (None: no count
    bound; at least one of the two must be set); ``prior_z``, ``call_eps``, ``greedy``,
    ``declare``: the other settings (module docstring). Raises ValueError for a setting
    out of range. Both agent forms: ``decide_state``
    (in process) and ``decide`` (an observation: the arena, the ladder).
    ``stats``: figures of the last decision (playouts, worlds, ms, rebuild_ms; values:
    the mean per action; prior: the heuristic's action; arms: the actions searched;
    lead: (mean, standard error) of the best action's lead over the prior's, or None;
    kernel: whether its rollouts ran on the compiled kernel; kernel_worlds: whether its
    worlds were drawn there, `kernel_worlds`)."""

    name = "search"
    takes_game = True          # taash.arena.bots.registry.ArenaAgent passes the game (its time control)

    def __init__(self, variant, seed=0, budget_ms: float | None = DEFAULT_BUDGET_MS,
                 playouts: int | None = None, *, prior_z: float = PRIOR_Z, call_eps: float = CALL_EPS,
                 greedy: float = GREEDY, declare: bool = False, model_calls: bool = True, kernel: bool | None = None):
        if budget_ms is None and playouts is None:
            raise ValueError("give a time budget (budget_ms) or a playout budget (playouts)")
        if prior_z < 0:
            raise ValueError(f"prior_z is a number of standard errors, at least 0, not {prior_z}")
        if not 0 <= call_eps <= 1 or not 0 <= greedy <= 1:
            raise ValueError(f"call_eps and greedy are probabilities, not {call_eps} and {greedy}")
        self.v = variant
        self.seed = seed
        self.budget_ms = budget_ms
        self.playouts = playouts
        self.prior_z = prior_z
        self.call_eps = call_eps
        self.heuristic = heuristic_bot(variant)       # the prior and the model (arena/bots/heuristic.py)
        self.model_calls = model_calls
        self.rollout = Rollout(variant, declare=declare, greedy=greedy,
                               model=self.heuristic if model_calls else None)
        self.stats = {}
        self.tie = TIE_WEIGHT / (variant.total or 1)
        self.lowest = lowest_wins(variant.data)    # match.winner: lowest (deal_value)
        self.kernels = KernelUse(variant, kernel)
        self.worlds_on_kernel = True     # False: the kernel's rollouts on worlds resampled by the engine

    @property
    def warming(self):
        """The kernel being made in the background (`taash.kernel.warm.Warming`), once started."""
        return self.kernels.warming

    def kernel(self, variant=None):
        """The compiled kernel a decision in play rolls out on (for a State of
        ``variant``, by default the bot's: a flow that changes by deal has one per deal
        size), or None (the engine): not wanted, the extra missing, a variant it cannot
        compile, or (``kernel=None``) not ready yet (`taash.kernel.warm.KernelUse`)."""
        return self.kernels.get(variant)

    def value(self, st: State, seat: int) -> float:
        """A finished deal's worth to ``seat``: its score change less the mean change of
        the seats of other sides (a match is won against them: a defender gains when the
        declarer fails even where only the declarer's side is scored), plus at most
        ``TIE_WEIGHT`` for its side's card points over the others'."""
        return deal_value(st, seat, self.tie, self.lowest)

    def _prior(self, root: State, seat: int, ids: list, arms: list):
        """The arm (index into ``ids``) of the heuristic bot's action at ``root`` for
        ``seat`` (arena/bots/heuristic.py, from the seat's observation), or None."""
        acts = self.v.actions
        text = self.heuristic.decide(root.observation(seat), [str(acts[i]) for i in ids])
        a = self.v.action_map.get(str(text))
        if a is None:
            return None
        key = arm_key(a)
        for j in arms:
            if arm_key(acts[ids[j]]) == key:
                return j
        return None

    def _modelled_steps(self, root: State, seat: int) -> list:
        """The history indexes of ``root`` at which another seat made a call the model
        judges: an action of the auction, the doubling or the trump choice (a bid, a pass,
        a double, a trump named or laid face down), in order. Found by replaying
        ``root``'s history from its deal (the phases do not depend on the hidden cards)."""
        st = _fresh(root)
        out = []
        for k, (t, a) in enumerate(root.history):
            if t != seat and st.phase in MODEL_PHASES:
                out.append(k)
            st.apply_id(a.id)
        return out

    def _likelihood(self, world: State, steps: list) -> float:
        """How likely the other seats' calls at ``steps`` (`_modelled_steps`) are in
        ``world`` under the model of play (the heuristic bot, arena/bots/heuristic.py,
        deciding from each seat's observation in the world): the product over the calls
        of 1 where the model makes the same call, else ``call_eps``. Calls with a single
        legal action count 1; a trump laid face down counts by its suit. Policy-based
        inference, Rebstock, Solinas, Buro and Sturtevant, "Policy based inference in
        trick-taking card games", IEEE CoG 2019, with the bot's own prior as the model."""
        if not steps:
            return 1.0
        st = _fresh(world)
        acts, amap = self.v.actions, self.v.action_map
        decide = self.heuristic.decide
        eps = self.call_eps
        like = 1.0
        hist = world.history
        nxt = iter(steps)
        k_model = next(nxt)
        for k in range(steps[-1] + 1):
            t, a = hist[k]
            if k == k_model:
                k_model = next(nxt, -1)
                ids = st.legal_ids()
                if len(ids) > 1:
                    pick = amap.get(str(decide(st.observation(t), [str(acts[i]) for i in ids])))
                    if pick is None or _model_key(pick, self.rollout.suit_of) != _model_key(a, self.rollout.suit_of):
                        like *= eps
            st.apply_id(a.id)
        return like

    def _world(self, root: State, seat: int, steps, rng: random.Random, end: float, worlds=None):
        """One world for ``seat``: `resample` draws a deal consistent with what the seat
        knows, accepted with its `_likelihood` under the model (rejection sampling); after
        ``WORLD_TRIES`` draws, or at the clock time ``end``, the likeliest one drawn.
        With ``worlds`` (`kernel_worlds`) the same worlds are drawn on the kernel: then
        ``(None, S)``, its array (the model reads its State at the first lead,
        ``worlds.last_start()``), else ``(State, None)``. Raises TaashError
        (ResampleError)."""
        def draw():
            if worlds is None:
                return root.resample(seat, rng), None
            return None, worlds.sample(rng)

        world = draw()
        if not steps:
            return world
        best, best_like = world, -1.0
        clock = time.perf_counter
        for _ in range(WORLD_TRIES):
            if clock() >= end:
                break
            like = self._likelihood(world[0] if worlds is None else worlds.last_start(), steps)
            if rng.random() < like:
                return world
            if like > best_like:
                best, best_like = world, like
            world = draw()
        return best

    def _few_bids(self, ids: list, arms: list, keep) -> list:
        """The arms worth searching in an auction: of the bids (``bid`` actions with a
        (number, denomination) argument), the lowest of each denomination and those of
        the number of the heuristic's bid (``keep``); every other action. A higher bid
        of one denomination plays out alike unless a rollout's call depends on the
        number, and differs by the scoring; 56's 150 bids become about 13."""
        acts = self.v.actions
        low = {}
        for j in arms:
            a = acts[ids[j]]
            if a.kind == "bid" and isinstance(a.arg, tuple):
                den = a.arg[1]
                if den not in low or a.arg[0] < acts[ids[low[den]]].arg[0]:
                    low[den] = j
        if not low:
            return arms
        ka = acts[ids[keep]] if keep is not None else None
        want = ka.arg[0] if ka is not None and ka.kind == "bid" and isinstance(ka.arg, tuple) else None
        out = []
        for j in arms:
            a = acts[ids[j]]
            if (a.kind != "bid" or not isinstance(a.arg, tuple) or j == keep
                    or low[a.arg[1]] == j or a.arg[0] == want):
                out.append(j)
        return out

    def _rng(self, obs: dict) -> random.Random:
        return decision_rng(self.seed, obs)

    def decide_state(self, state: State, seat: int):
        """The action for ``seat`` (to act) in ``state``; reads only ``seat``'s
        observation and resampled worlds; ``state`` is unchanged."""
        t0 = time.perf_counter()
        ids = state.legal_ids()
        if len(ids) == 1:
            self.stats = {"playouts": 0, "worlds": 0, "ms": 0.0}
            return self.v.actions[ids[0]]
        obs = state.observation(seat)
        rng = self._rng(obs)
        return self._search(state, seat, list(ids), rng, t0, self.budget_ms)

    def decide(self, observation: dict, legal_actions: list, game=None):
        """The action for the observation's seat, from the observation alone
        (`State.from_observation`).
        Over the arena the time budget is at most half of the decision's time
        (``game.time_control["move_ms"]`` or ``game.extra["deadline_ms"]``)."""
        t0 = time.perf_counter()
        if len(legal_actions) == 1:
            self.stats = {"playouts": 0, "worlds": 0, "ms": 0.0}
            return legal_actions[0]
        budget = self.budget_ms
        limit = arena_limit_ms(game)
        if limit is not None:
            budget = limit if budget is None else min(budget, limit)
        rng = self._rng(observation)
        seat = observation["seat"]
        try:
            root = State.from_observation(self.v, observation, rng)
        except (RebuildError, TaashError, ValueError):
            self.stats = {"playouts": 0, "worlds": 0, "ms": (time.perf_counter() - t0) * 1000, "rebuilt": False}
            return default_text(self.v, legal_actions)
        rebuild_ms = (time.perf_counter() - t0) * 1000
        ids = root.legal_ids()
        acts = self.v.actions
        if sorted(acts[i] for i in ids) != sorted(legal_actions):
            return default_text(self.v, legal_actions)
        a = self._search(root, seat, list(ids), rng, t0, budget)
        self.stats["rebuild_ms"] = rebuild_ms
        return str(a)

    def _to_play_then_kernel(self, kern, world: State, a: int, seat: int, rng: random.Random, helpful: int,
                             greedy: float, start_scores) -> float:
        """The value of action id ``a`` in ``world`` (before the play phase) by one
        rollout: `Rollout.run` on the engine to the first lead, then the rest on the
        kernel, fed what ``rng`` would give `run` from there (so the same rollout as the
        engine's alone); on the engine to the end if the deal never reaches the play."""
        st = world.copy()
        st.apply_id(a)
        S = first_lead(kern, self.rollout, st, rng)
        if S is not None:
            kern.rollout(S, kern.draws(self.rollout.draws(st, rng)), greedy, helpful)
            return deal_value(KernelEnd(self.v, kern, S, start_scores), seat, self.tie, self.lowest)
        self.rollout.run(st, rng)
        return self.value(st, seat)

    def _search(self, root: State, seat: int, ids: list, rng: random.Random, t0: float, budget_ms):
        """Sequential halving over the legal actions (Karnin, Koren, Somekh, "Almost
        optimal exploration in multi-armed bandits", ICML 2013): the budget is cut into
        ceil(log2 k) rounds; in a round every surviving action is played in the same
        fresh worlds; at its end the worse half (by mean value so far) is dropped, but
        never the heuristic's action (the prior), searched first in each world. The
        action of best mean is played if its paired lead over the prior's exceeds
        ``prior_z`` standard errors, else the prior's. Worlds are drawn by `_world`
        (`resample`, accepted by the calls' `_likelihood`). The time budget is turned into rollouts from the rate measured so far."""
        v = self.v
        k = len(ids)
        total = [0.0] * k
        count = [0] * k
        end = t0 + budget_ms / 1000 if budget_ms is not None else float("inf")
        cap = self.playouts if self.playouts is not None else float("inf")
        clock = time.perf_counter
        run = self.rollout.run
        value = self.value
        made = clock()
        kern = self.kernel(root.v)
        end += clock() - made     # a wait for the kernel (kernel=True, its first making) is not the search's time
        in_play = root.phase == "play"
        worlds_k = kernel_worlds(kern, root, seat) if self.worlds_on_kernel and in_play else None
        if kern is not None:
            helpful = self.rollout.helpful_mask(kern.facts.play_checks)
            greedy = self.rollout.greedy
        playouts = worlds = 0
        # actions of the same kind and engine-level argument act alike (``bid 28 S`` and
        # ``bid S 28``): search the first of each
        seen_codes = set()
        arms = []
        for j in range(k):
            key = arm_key(v.actions[ids[j]])
            if key not in seen_codes:
                seen_codes.add(key)
                arms.append(j)
        keep = self._prior(root, seat, ids, arms) if self.prior_z > 0 else None
        if keep is not None:                  # searched first in every world, never dropped
            arms.remove(keep)
            arms.insert(0, keep)
        if root.phase == "auction":   # a bid of one's own (a `bids` step): every number counts
            arms = self._few_bids(ids, arms, keep)
        searched = len(arms)
        dsum, dsq, dn = [0.0] * k, [0.0] * k, [0] * k   # paired differences with ``keep``
        rounds = max(1, math.ceil(math.log2(len(arms))))
        steps = self._modelled_steps(root, seat) if self.call_eps < 1 else []
        start = clock()
        infer_s = 0.0
        # the time one world's draws may take: enough for INFER_WORLDS judged worlds
        per_world = INFER_SHARE * budget_ms / 1000 / INFER_WORLDS if budget_ms is not None else float("inf")
        in_round = 0
        done = False
        while not done and len(arms) > 1:
            try:
                w0 = clock()
                # judge the calls while that has cost at most INFER_SHARE of the time so far
                judged = steps if budget_ms is None or infer_s <= INFER_SHARE * (w0 - start) else ()
                world, world_array = self._world(root, seat, judged, rng, min(end, w0 + per_world), worlds_k)
                infer_s += clock() - w0
            except TaashError:
                break
            worlds += 1
            wseed = rng.getrandbits(64)
            vals = {}
            if kern is not None and in_play:    # the world on the kernel: its array and the draws, once
                if world_array is None:
                    world_array = kern.state(world)
                draws = kern.draws(self.rollout.draws(root, random.Random(wseed)))
            for j in arms:
                if kern is not None and in_play:
                    S = world_array.copy()
                    kern.apply(S, ids[j])
                    kern.rollout(S, draws, greedy, helpful)
                    x = vals[j] = deal_value(KernelEnd(v, kern, S, root.start_scores), seat, self.tie,
                                                     self.lowest)
                elif kern is not None:      # before the play: the engine to the first lead, then the kernel
                    x = vals[j] = self._to_play_then_kernel(kern, world, ids[j], seat, random.Random(wseed),
                                                            helpful, greedy, root.start_scores)
                else:
                    st = world.copy()
                    st.apply_id(ids[j])
                    run(st, random.Random(wseed))   # the same rollout draws for every action
                    x = vals[j] = value(st, seat)
                total[j] += x
                count[j] += 1
                playouts += 1
                in_round += 1
                now = clock()
                if playouts >= cap or now >= end:
                    done = True
                    break
            if keep in vals:
                base = vals[keep]
                for j, x in vals.items():
                    dsum[j] += x - base
                    dsq[j] += (x - base) ** 2
                    dn[j] += 1
            if done:
                break
            # the playouts this decision can afford, and the share of one round
            afford = cap
            if budget_ms is not None:
                rate = playouts / max(now - start, 1e-9)
                afford = min(afford, playouts + rate * (end - now))
            if in_round >= afford / rounds:
                arms.sort(key=lambda j: (-total[j] / count[j], j))
                arms = arms[:(len(arms) + 1) // 2]
                if keep is not None:
                    if keep in arms:
                        arms.remove(keep)
                    arms.insert(0, keep)
                in_round = 0
        best, bv = arms[0], None
        for j in sorted(arms):
            if count[j]:
                m = total[j] / count[j]
                if bv is None or m > bv + 1e-12:
                    best, bv = j, m
        lead = None
        if keep is not None and best != keep:
            # leave the heuristic's action only for a significant lead over it
            n_ = dn[best]
            mean = dsum[best] / n_ if n_ else 0.0
            se = math.sqrt(max(0.0, dsq[best] / n_ - mean * mean) / (n_ - 1)) if n_ > 1 else float("inf")
            lead = (mean, se)
            if n_ < 2 or mean <= self.prior_z * se:
                best = keep
        self.stats = {"playouts": playouts, "worlds": worlds, "ms": (clock() - t0) * 1000, "kernel": kern is not None,
                      "kernel_worlds": worlds_k is not None,
                      "values": {str(v.actions[ids[j]]): (total[j] / count[j] if count[j] else None) for j in range(k)},
                      "prior": None if keep is None else str(v.actions[ids[keep]]), "arms": searched,
                      "lead": lead}
        return v.actions[ids[best]]


def first_lead(kern, rollout: Rollout, st: State, rng: random.Random):
    """``rollout.run`` of ``st`` on the engine to the play phase (changing ``st``), then
    its array on the kernel ``kern``, or None: the deal never reaches the play, or the
    kernel does not take the state (the engine finishes it then, from ``st``)."""
    rollout.run(st, rng, to_play=True)
    if st.phase != "play" or st.is_terminal:
        return None
    try:
        return kern.state(st)
    except TaashError:
        return None


def kernel_worlds(kern, root: State, seat: int):
    """The worlds of ``root`` for ``seat`` drawn on the kernel ``kern``
    (`taash.kernel.worlds.Worlds`: the worlds `State.resample` gives, from the same
    draws), or None: no kernel, or a state or variant it does not model (then
    ``resample``)."""
    if kern is None:
        return None
    try:
        return kern.worlds(root, seat)
    except TaashError:          # Unsupported, or a state the model of the deal refuses
        return None


def decision_rng(seed, obs: dict) -> random.Random:
    """The generator of one decision: a function of the bot's ``seed`` (int or text) and
    the seat's observation alone (a sha256 of both)."""
    key = json.dumps([str(seed), obs], sort_keys=True, separators=(",", ":"), default=str)
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def _fresh(st: State) -> State:
    """A State at the start of ``st``'s deal, with the same cards, dealer, scores and
    variables (its history not played)."""
    return type(st)(st.v, dealer=st.dealer, hands=st.dealt, widow=st.widow or None, scores=st.start_scores,
                    deal_number=st.deal_number, variables=list(st.start_vars))


def _model_key(a, suit_of):
    """What a model's call must match: a trump laid face down by its suit (the model
    picks a suit; which card of it is chance), any other action by `arm_key`."""
    if a.kind == "trump-card":
        return ("trump", None if a.code is None else suit_of[a.code])
    return arm_key(a)


def arm_key(a):
    """Actions of one key act alike (``bid 28 S`` and ``bid S 28``): kind and code."""
    return (a.kind, a.code if isinstance(a.code, (int, str, tuple, type(None))) else id(a))


def default_text(v, legal):
    """The engine's default (`State.default_action`) among ``legal``, texts of ``v``'s
    actions as the arena sends them."""
    acts = [v.action_map.get(str(a)) for a in legal]
    if None in acts:
        return legal[0]
    return str(default_of(acts))


def arena_limit_ms(game):
    """Half the decision's time over the arena (None in process)."""
    if game is None:
        return None
    extra = getattr(game, "extra", None) or {}
    d = extra.get("deadline_ms")
    tc = getattr(game, "time_control", None) or {}
    m = tc.get("move_ms")
    vals = [x for x in (d, m) if x]
    return min(vals) / 2 if vals else None


def search_bot(variant, seed=0, budget_ms: float | None = DEFAULT_BUDGET_MS, playouts: int | None = None,
               **settings) -> SearchBot:
    """Registry factory of ``search``: `SearchBot` with these settings (``settings``:
    ``prior_z``, ``call_eps``, ``greedy``, ``declare``, ``model_calls``; module docstring). `taash bot
    search` passes its flags here (``functools.partial``)."""
    return SearchBot(variant, seed, budget_ms, playouts, **settings)


class KernelEnd:
    """A deal the kernel finished (its array ``S``), with what `deal_value` reads of a
    State: ``score_change()``, ``side``, ``seat_points``."""

    __slots__ = ("side", "seat_points", "change")

    def __init__(self, v, kern, S, start_scores):
        at = kern.layout.at
        n = v.players
        self.side = S[at["side"]:at["side"] + n + 1].tolist()
        self.seat_points = S[at["seat_points"]:at["seat_points"] + n].tolist()
        scores = S[at["scores"]:at["scores"] + len(start_scores)].tolist()
        self.change = per_seat(v, [a - b for a, b in zip(scores, start_scores)])

    def score_change(self) -> list[int]:
        return self.change


def deal_value(st: State, seat: int, tie: float = 0.0, lowest: bool = False) -> float:
    """A finished deal's worth to ``seat`` (the value both search bots back up):
    ``st.score_change()[seat]`` (the variant's own unit: game points, points) less the
    mean change of the seats of other sides, plus ``tie`` times its side's card points
    less the other sides' (``tie`` = ``TIE_WEIGHT / variant.total`` keeps that term under
    ``TIE_WEIGHT``). A variant where every seat is one side gives the seat's change.
    ``lowest``: the lowest score wins the match (``match.winner: lowest``, `lowest_wins`):
    the value is negated, a smaller score (and fewer card points) being better."""
    sc = st.score_change()
    side = st.side
    mine = side[seat]
    n = len(sc)
    others = [s for s in range(n) if side[s] != mine]
    if not others:
        return -float(sc[seat]) if lowest else float(sc[seat])
    pts = st.seat_points
    my_pts = sum(pts[s] for s in range(n) if side[s] == mine)
    their = sum(pts[s] for s in others)
    x = sc[seat] - sum(sc[s] for s in others) / len(others) + tie * (my_pts - their)
    return -x if lowest else x
