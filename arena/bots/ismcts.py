"""The ISMCTS bot (`ismcts`): information-set Monte Carlo tree search on the engine, for any variant.

Algorithm: Single-Observer Information Set MCTS (SO-ISMCTS) of Cowling, Powley and
Whitehouse ("Information Set Monte Carlo Tree Search", IEEE Transactions on
Computational Intelligence and AI in Games 4(2), 2012, Algorithm 3). One tree is grown
from the bot's point of view: a node is a sequence of actions (of any seat) from the
decision, so the nodes stand for the observer's information sets. Each iteration

1. draws a *determinization*: ``world = root.resample(seat, rng)``, a deal of the
   cards the seat cannot see, uniform among the deals consistent with what it knows
   (interpreter/information.py);
2. *selects*: from the root, while every action legal in this world already has a
   child, it descends to the child of highest UCB1 score among those whose action is
   legal here (the subset-armed bandit of the paper, §IV-B: a child's exploration term
   uses its *availability count*, the number of times it was legal when its parent was
   passed through, not the parent's visits)::

       mean + exploration * spread * sqrt(ln(availability) / visits)

   where ``mean`` is the child's mean value for the seat that acts at its parent;
3. *expands* one child, an action legal in this world and not yet in the tree, chosen
   uniformly;
4. *simulates*: the deal is finished by the search bot's rollout policy
   (`taash.arena.bots.search.Rollout`: defaults in the auction, the declarer's longest
   suit for trump, greedy cards on the world's open hands with probability ``greedy``);
5. *backs up*: every node on the path gains one visit and the finished deal's value for
   the seat that chose its action (`taash.arena.bots.search.deal_value`: that seat's
   score change less the mean change of the seats of other sides, plus a small term for
   its side's card points), so each seat's choices in the tree maximise its own value.

Actions that act alike (the same kind and engine argument: ``bid 28 S`` and ``bid S 28``,
`search.arm_key`) are one child. Of the bids with a (number, denomination) argument
(56) only the lowest of each denomination is a child (`children_of`), as `search` cuts
them: its rollouts let the other seats pass, so higher bids of one denomination play
out alike, and a small budget could not try 150 bids; the bot then never makes a jump
bid. The action played is the root child with the most
visits (ties: the first in the engine's order of legal actions, docs/rules.md §0.10).

Reward scale: a deal's value is in the variant's own unit (a game point or two in 29,
up to a few in 56, the card points' tie term below 0.05), so a fixed exploration
constant would explore much more in one variant than in another. The exploration term
is therefore multiplied by ``spread``: the standard deviation of the values backed up so
far in this decision (Welford's running estimate, over every seat's value of every
iteration), at least ``SPREAD_FLOOR``. With values of unit spread the constant has its
usual meaning; ``exploration`` defaults to 0.7, the constant Cowling et al. use with
rewards in [0, 1].

Compared with `search` (PIMC, a flat search at the root): the tree shares statistics
across worlds below the root (the other seats' replies and the bot's own later cards),
at the price of fewer iterations per action at the root; it has no heuristic prior and
no inference of a hidden trump beyond what ``resample`` knows. bench/search.py prints how
the two compare per budget.

Settings (`ISMCTSBot` and `ismcts_bot` keyword arguments; `taash bot ismcts` flags):

- ``budget_ms`` (default 50; ``--budget-ms``): the wall time of a decision, ms;
- ``playouts`` (default None: time only; ``--playouts``): the iterations of a decision
  (each one world, one path and one rollout);
- ``exploration`` (default 0.7; ``--exploration``): the UCB1 constant, in units of the
  values' spread (above);
- ``greedy`` (default 0.8; ``--greedy``): the chance that a rollout card is chosen
  greedily rather than at random;
- ``kernel`` (default None; ``--kernel [wait|off]``): with the ``fast`` extra, a decision in
  the play phase runs its iterations (the world's array, the tree's actions, the rollout)
  on the compiled kernel (`taash.kernel`), its worlds drawn there too (`search.kernel_worlds`,
  kernel/worlds.py: the worlds ``resample`` gives, from the same draws), as `search` does
  (its ``kernel`` setting: made in the background by default,
  `taash.kernel.warm.KernelUse`): the same worlds, the same actions and the same draws of
  the decision's generator (the rollout's taken from a copy of its state, then
  as many drawn as the kernel's rollout used), so a decision bounded by ``playouts`` is
  the same on either. A decision before the play grows its tree on the engine, and each
  iteration's rollout runs on the engine to the first lead and on the kernel from there.

What it reads: the seat's observation only. Both agent forms (``decide_state(state,
seat)`` in process, ``decide(observation, legal)`` over the arena) draw the worlds from a
State rebuilt from the observation alone (`State.from_observation`: the seat's own cards, the
public history, what was shown to it; well under a millisecond), so the other seats'
true cards are never read and a decision with a playout budget is the same whatever
they are. In process, if no State can be rebuilt, the worlds are drawn from the real
state by ``resample``; over the arena the bot then plays the engine's default action.

Time and reproducibility: ``budget_ms`` bounds the wall time of a decision (the search
stops between two iterations); ``playouts`` bounds the iterations instead (or as well),
which makes a decision a pure function of (seed, observation): the generator is seeded
from a hash of the bot's seed and the seat's observation, as `search.decision_rng` does. Over
the arena a decision also keeps to half the decision's deadline (the game's time
control, `search.arena_limit_ms`).
"""

from __future__ import annotations

import math
import random
import time

from taash.interpreter import State
from taash.interpreter.errors import TaashError
from taash.interpreter.information import RebuildError
from taash.interpreter.scoring import lowest_wins

from taash.kernel.warm import KernelUse

from .search import (DEFAULT_BUDGET_MS, GREEDY, TIE_WEIGHT, KernelEnd, Rollout, arena_limit_ms, arm_key,
                     default_text, deal_value, decision_rng, first_lead, kernel_worlds)

EXPLORATION = 0.7      # the UCB1 constant, in units of the values' spread
SPREAD_FLOOR = 1e-3    # the least spread the exploration term is scaled by


class _Node:
    """A node of the observer's tree: reached by the actions of arm key ``key``
    (`search.arm_key`), chosen by seat ``actor``. ``visits``, ``total`` (sum of the
    values for ``actor``) and ``avail`` (times it was legal when its parent was
    selected from); ``children`` by arm key."""

    __slots__ = ("key", "actor", "visits", "total", "avail", "children")

    def __init__(self, key=None, actor=None):
        self.key = key
        self.actor = actor
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children = {}


class ISMCTSBot:
    """SO-ISMCTS for one variant (module docstring).

    ``variant``: the loaded Variant; ``seed``: int or text; ``budget_ms``: wall time per
    decision (None: no time bound); ``playouts``: iterations per decision (None: no count
    bound; at least one of the two must be set); ``exploration``: the UCB1 constant
    (at least 0), in units of the values' spread; ``greedy``: the rollout's chance of a
    greedy card (0 to 1). Raises ValueError for a setting out of range. Both agent forms:
    ``decide_state`` (in process) and ``decide`` (an observation: the arena, the ladder).
    ``stats``: figures of the last decision (iterations, worlds, ms, rebuild_ms over the
    arena; visits: per root action; spread: the exploration scale at the end; rebuilt:
    whether the worlds came from a State rebuilt from the observation; kernel: whether
    its iterations ran on the compiled kernel; kernel_worlds: whether its worlds were
    drawn there, `search.kernel_worlds`)."""

    name = "ismcts"
    takes_game = True          # taash.arena.bots.registry.ArenaAgent passes the game (its time control)

    def __init__(self, variant, seed=0, budget_ms: float | None = DEFAULT_BUDGET_MS,
                 playouts: int | None = None, *, exploration: float = EXPLORATION, greedy: float = GREEDY,
                 kernel: bool | None = None):
        if budget_ms is None and playouts is None:
            raise ValueError("give a time budget (budget_ms) or a playout budget (playouts)")
        if exploration < 0:
            raise ValueError(f"exploration is a UCB1 constant, at least 0, not {exploration}")
        if not 0 <= greedy <= 1:
            raise ValueError(f"greedy is a probability, not {greedy}")
        self.v = variant
        self.seed = seed
        self.budget_ms = budget_ms
        self.playouts = playouts
        self.exploration = exploration
        self.rollout = Rollout(variant, greedy=greedy)
        self.tie = TIE_WEIGHT / (variant.total or 1)
        self.lowest = lowest_wins(variant.data)    # match.winner: lowest (deal_value)
        self.stats = {}
        self.kernels = KernelUse(variant, kernel)
        self.worlds_on_kernel = True     # False: the kernel's iterations on worlds resampled by the engine

    def _rng(self, obs: dict) -> random.Random:
        return decision_rng(self.seed, obs)

    def decide_state(self, state: State, seat: int):
        """The action for ``seat`` (to act) in ``state``; reads only ``seat``'s
        observation and resampled worlds; ``state`` is unchanged."""
        t0 = time.perf_counter()
        ids = state.legal_ids()
        if len(ids) == 1:
            self.stats = {"iterations": 0, "worlds": 0, "ms": 0.0}
            return self.v.actions[ids[0]]
        obs = state.observation(seat)
        rng = self._rng(obs)
        root = self._rebuild(obs, rng, ids)
        a = self._search(state if root is None else root, seat, list(ids), rng, t0, self.budget_ms)
        self.stats["rebuilt"] = root is not None
        return a

    def _rebuild(self, obs: dict, rng: random.Random, ids) -> State | None:
        """A State made from ``obs`` alone (`State.from_observation`) with the legal actions
        ``ids``, or None if none is found. In process the worlds are drawn from it, not
        from the real state: on decks with copies of a card ``resample`` derives what a
        seat cannot hold by probing the dealt hands, so a draw from the real state could
        differ with the hidden cards; from the rebuilt State a decision is a function of
        (seed, observation)."""
        try:
            root = State.from_observation(self.v, obs, rng)
        except (RebuildError, TaashError, ValueError):
            return None
        return root if sorted(root.legal_ids()) == sorted(ids) else None

    def decide(self, observation: dict, legal_actions: list, game=None):
        """The action (text) for the observation's seat, from the observation alone
        (`State.from_observation`); the engine's default action if no State can be rebuilt. Over
        the arena the time budget is at most half of the decision's time."""
        t0 = time.perf_counter()
        if len(legal_actions) == 1:
            self.stats = {"iterations": 0, "worlds": 0, "ms": 0.0}
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
            root = None
        acts = self.v.actions
        if root is None or sorted(acts[i] for i in root.legal_ids()) != sorted(legal_actions):
            self.stats = {"iterations": 0, "worlds": 0, "ms": (time.perf_counter() - t0) * 1000, "rebuilt": False}
            return default_text(self.v, legal_actions)
        rebuild_ms = (time.perf_counter() - t0) * 1000
        a = self._search(root, seat, list(root.legal_ids()), rng, t0, budget)
        self.stats["rebuild_ms"] = rebuild_ms
        self.stats["rebuilt"] = True
        return str(a)

    def _search(self, root: State, seat: int, ids: list, rng: random.Random, t0: float, budget_ms):
        """Iterations of SO-ISMCTS from ``root`` for ``seat`` until ``playouts``
        iterations or ``budget_ms`` (from ``t0``) are spent; the root action of most
        visits (ties: the first of ``ids``)."""
        v = self.v
        acts = v.actions
        end = t0 + budget_ms / 1000 if budget_ms is not None else float("inf")
        cap = self.playouts if self.playouts is not None else float("inf")
        clock = time.perf_counter
        c = self.exploration
        tree = _Node()
        # Welford's running mean and sum of squares of the values backed up
        vn, vmean, vm2 = 0, 0.0, 0.0
        iterations = 0
        made = clock()
        kern = self.kernels.get(root.v)
        end += clock() - made     # a wait for the kernel (kernel=True, its first making) is not the search's time
        in_play = root.phase == "play"
        worlds = kernel_worlds(kern, root, seat) if self.worlds_on_kernel and in_play else None
        while iterations < cap and clock() < end:
            try:
                if worlds is not None:
                    S = worlds.sample(rng)
                elif kern is not None and in_play:
                    S = kern.state(root.resample(seat, rng))
                else:
                    st = root.resample(seat, rng)
            except TaashError:
                break
            iterations += 1
            spread = max(math.sqrt(vm2 / vn), SPREAD_FLOOR) if vn > 1 else 1.0
            if kern is not None and in_play:
                vals = self._iterate_kernel(kern, S, root, tree, c * spread, rng)
            else:
                vals = self._iterate(st, tree, c * spread, rng, kern)
            for x in vals:
                vn += 1
                d = x - vmean
                vmean += d / vn
                vm2 += d * (x - vmean)
        # the root child of most visits, ties by the engine's order of the legal actions
        best_id, best_n = ids[0], -1
        seen = set()
        visits = {}
        for i in ids:
            key = arm_key(acts[i])
            if key in seen:
                continue
            seen.add(key)
            ch = tree.children.get(key)
            n = ch.visits if ch is not None else 0
            visits[str(acts[i])] = n
            if n > best_n:
                best_id, best_n = i, n
        spread = max(math.sqrt(vm2 / vn), SPREAD_FLOOR) if vn > 1 else None
        self.stats = {"iterations": iterations, "worlds": iterations, "ms": (clock() - t0) * 1000,
                      "visits": visits, "spread": spread, "kernel": kern is not None,
                      "kernel_worlds": worlds is not None}
        return acts[best_id]

    def _iterate(self, st: State, tree: _Node, scale: float, rng: random.Random, kern=None) -> list[float]:
        """One iteration in the world ``st`` on the engine: selection (UCB1 with the
        exploration term ``scale`` times its root), expansion, the rollout, the backup;
        the deal's values, by seat. With the kernel ``kern`` the rollout runs on the
        engine to the first lead and on the kernel from there (`_roll_out`: the same
        draws, so the same values)."""
        acts = self.v.actions
        node = tree
        path = []
        while not st.is_terminal:
            legal = children_of(st.legal_ids(), acts)
            node = _descend(node, legal, st.to_act, scale, rng, path)
            st.apply_id(legal[node.key])
            if node.visits == 0:        # expanded: then the rollout
                break
        end = st
        if not st.is_terminal:
            S = first_lead(kern, self.rollout, st, rng) if kern is not None else None
            if S is not None:
                self._roll_out(kern, S, st, rng)
                end = KernelEnd(self.v, kern, S, st.start_scores)
            else:
                self.rollout.run(st, rng)
        vals = [deal_value(end, s, self.tie, self.lowest) for s in range(self.v.players)]
        _back_up(path, vals)
        return vals

    def _roll_out(self, kern, S, hands, rng: random.Random) -> None:
        """The rollout of the kernel's array ``S`` (changed) to the end of the deal, fed
        the draws `Rollout.run` would take from ``rng`` (``hands``: a State whose hands
        hold as many cards as ``S``'s, or more), and ``rng`` left where `run` would leave
        it."""
        before = rng.getstate()
        draws = kern.draws(self.rollout.draws(hands, rng))
        used = kern.rollout(S, draws, self.rollout.greedy, self.rollout.helpful_mask(kern.facts.play_checks))
        rng.setstate(before)
        rand = rng.random
        for _ in range(used):
            rand()

    def _iterate_kernel(self, kern, S, root: State, tree: _Node, scale: float, rng: random.Random) -> list[float]:
        """`_iterate` on the kernel's array ``S`` of a world of ``root`` (in the play
        phase; changed): the same actions, the same draws of ``rng`` (the rollout's taken
        from a copy of its state, then as many drawn from ``rng`` as the kernel's rollout
        used), so the same tree and values as on the engine. ``root`` gives what every
        world shares: the cards in hand (so the rollout's draws) and the deal's start
        scores."""
        acts = self.v.actions
        at_terminal, at_to_act = kern.layout.at["terminal"], kern.layout.at["to_act"]
        node = tree
        path = []
        while not S[at_terminal]:
            legal = children_of(kern.legal(S), acts)
            node = _descend(node, legal, int(S[at_to_act]), scale, rng, path)
            kern.apply(S, legal[node.key])
            if node.visits == 0:
                break
        if not S[at_terminal]:
            self._roll_out(kern, S, root, rng)
        end = KernelEnd(self.v, kern, S, root.start_scores)
        vals = [deal_value(end, s, self.tie, self.lowest) for s in range(self.v.players)]
        _back_up(path, vals)
        return vals


def _descend(node: _Node, legal: dict, actor: int, scale: float, rng: random.Random, path: list) -> _Node:
    """The child of ``node`` an iteration goes to, appended to ``path``: a new one, drawn
    uniformly among the legal actions (``legal``: `children_of`) not yet in the tree,
    chosen by ``actor``; else the legal child of highest UCB1 score (each legal child's
    availability counted)."""
    children = node.children
    untried = [k for k in legal if k not in children]
    if untried:
        key = untried[int(rng.random() * len(untried))]
        child = children[key] = _Node(key, actor)
        path.append(child)
        return child
    best, best_u = None, -math.inf
    for key in legal:
        ch = children[key]
        ch.avail += 1
        u = ch.total / ch.visits + scale * math.sqrt(math.log(ch.avail) / ch.visits)
        if u > best_u:
            best, best_u = ch, u
    path.append(best)
    return best


def _back_up(path: list, vals: list) -> None:
    """Every node of ``path`` gains a visit and its actor's value of ``vals``."""
    for ch in path:
        ch.visits += 1
        ch.total += vals[ch.actor]


def children_of(ids, acts) -> dict:
    """The actions a tree node branches on, {`arm_key`: action id}, from the legal
    action ids ``ids`` (``acts``: the variant's actions): one per key (the first in the
    engine's order), and of the bids with a (number, denomination) argument only the
    lowest of each denomination, as `SearchBot._few_bids` cuts them: the rollouts let
    the other seats pass, so a higher bid of one denomination plays out alike, and a
    budget of a hundred iterations cannot try 56's 150 bids."""
    out = {}
    low = {}
    for i in ids:
        a = acts[i]
        if a.kind == "bid" and isinstance(a.arg, tuple):
            j = low.get(a.arg[1])
            if j is None or a.arg[0] < acts[j].arg[0]:
                low[a.arg[1]] = i
            continue
        key = arm_key(a)
        if key not in out:
            out[key] = i
    for i in low.values():
        key = arm_key(acts[i])
        if key not in out:
            out[key] = i
    return out


def ismcts_bot(variant, seed=0, budget_ms: float | None = DEFAULT_BUDGET_MS, playouts: int | None = None,
               **settings) -> ISMCTSBot:
    """Registry factory of ``ismcts``: `ISMCTSBot` with these settings (``settings``:
    ``exploration``, ``greedy``, ``kernel``; module docstring). `taash bot ismcts` passes its flags
    here (``functools.partial``)."""
    return ISMCTSBot(variant, seed, budget_ms, playouts, **settings)
