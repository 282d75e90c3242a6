"""Train a `LinearPolicy` by REINFORCE against a bot, and measure it against that bot.

    python -m taash.learn.train --variant 29 --seconds 180 --out policy-29.npz
    python -m taash.learn.train --variant 29 --seconds 180 --against heuristic --out p.npz

The learner holds every seat of one side (a fixed partnership: its seats; otherwise one
seat), the sides taking turns deal by deal; every other seat is played by ``--against``:
``random`` (default: uniform among the legal actions, as the ``random`` bot) or any bot
of the registry (`opponent`). The deals are episodes of the PettingZoo environment
(`taash.learn.pettingzoo`): each is reset with a seed made from (``--seed``, deal
number), the learner reads its seats' observations and action masks from it, and its
return comes from the environment's rewards. At the deal's end the learner's return is its side's score change
minus the other seats' (the variant's own scoring; the mean over the seats of each), and
each of its decisions with more than one legal action moves the weights by REINFORCE
(Williams 1992) with a running-mean baseline: ``W[L] += lr * (G - baseline) *
(onehot(a) - p) x`` over the legal ids ``L`` (stochastic gradient ascent on the expected
return of the sampled policy).

The measure (`evaluate`): duplicate deals against the same bot. Each deal is played
once per side with the same cards, the policy (playing its highest-logit action, as the
bot adapter does) holding that side; a deal's figure is the mean score change of the
policy's seats minus the mean of the other seats' (in a game where each seat is its own
side, the policy's seat against the mean of the others), averaged over the plays, so card luck cancels. Printed:
the mean over the deals and its 95% interval (mean +- 1.96 sd / sqrt(N)). Two equal
sides give 0 on average, so an interval above 0 means the policy beats the bot. The
untrained policy (all weights 0: the first legal action in id order, a play before a
pass before a bid) is measured the same way, as the figure to beat. Everything is seeded
but the time: ``--deals`` instead of ``--seconds`` gives the same figures on every run.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.train", e)) from e

from taash.arena.bots import registry
from taash.arena.errors import UnknownBotError
from taash.interpreter import State, VariantError, load_variant

from .pettingzoo import TaashEnv
from .policy import LinearPolicy


def learner_seats(v, k: int) -> list[int]:
    """The seats the learner holds in a deal where side (or seat) ``k`` is its own: the
    seats of side ``k % 2`` in a fixed partnership, else seat ``k % players``."""
    if v.partnership == "fixed":
        return [s for s in range(v.players) if v.side_of[s] == k % 2]
    return [k % v.players]


def deal_seed(seed: int, d: int) -> int:
    """The seed of training deal ``d`` of a run seeded ``seed`` (an int, as PettingZoo's
    reset takes)."""
    return (seed * 1_000_003 + d) % 2 ** 63


def turns(v) -> int:
    """How many sides take turns as the learner's: 2 in a fixed partnership, else one per
    seat."""
    return 2 if v.partnership == "fixed" else v.players


def opponent(v, spec: str = "random", seed=0):
    """The other seats' choice ``f(state, seat) -> action id``: ``random`` draws uniformly
    among the legal actions (the ``random`` bot's distribution, from a seeded generator);
    any other bot spec of the registry (``heuristic``, ``NAME=module:factory``) is that
    bot, asked with the seat's observation. Raises UnknownBotError for a bad spec."""
    if spec == "random":
        rng = random.Random(seed)

        def uniform(st, seat):
            legal = st.legal_ids()
            return legal[rng.randrange(len(legal))]
        return uniform
    agent = registry.make(spec, v, seed)
    decide = getattr(agent, "decide", None) or agent
    amap = v.action_map

    def bot(st, seat):
        obs = st.observation(seat)
        return amap[decide(obs, obs["legal_actions"])].id
    return bot


def train(v, *, seconds: float | None = 60.0, deals: int | None = None, lr: float = 0.003, seed: int = 0,
          against: str = "random", policy: LinearPolicy | None = None, report=None) -> LinearPolicy:
    """REINFORCE of a `LinearPolicy` of ``v`` (module docstring) for ``seconds`` of wall
    time or ``deals`` deals, whichever ends first (None: no bound of that kind), the
    other seats played by ``against`` (`opponent`).
    ``report(deals, mean return of the last 1000)`` is called about every 10 seconds."""
    n = v.players
    pol = policy or LinearPolicy(v, meta={})
    W, b = pol.W, pol.b
    other = opponent(v, against, seed)
    nprng = np.random.default_rng(seed)
    e = TaashEnv(v)
    baseline, recent = 0.0, []
    start = last = time.monotonic()
    d = 0
    limit = math.inf if seconds is None else seconds
    while (deals is None or d < deals) and time.monotonic() - start < limit:
        e.reset(seed=deal_seed(seed, d))
        mine = learner_seats(v, d % turns(v))
        traj = []
        change = [0] * n
        for agent in e.agent_iter():
            s = e.agent_seat[agent]
            ours = s in mine
            obs, reward, terminated, truncated, info = e.last(observe=ours)
            if terminated or truncated:
                change[s] = reward
                e.step(None)
            elif not ours:
                e.step(other(e.deal, s))
            else:
                L = np.flatnonzero(obs["action_mask"])
                if len(L) == 1:
                    e.step(int(L[0]))
                    continue
                x = obs["observation"]
                p = pol.probabilities(x, L)
                i = int(nprng.choice(len(L), p=p))
                traj.append((x, L, i, p))
                e.step(int(L[i]))
        others = [s for s in range(n) if s not in mine]
        G = sum(change[s] for s in mine) / len(mine) - sum(change[s] for s in others) / len(others)
        adv = G - baseline
        baseline += 0.01 * (G - baseline)
        if adv:
            for x, L, i, p in traj:
                g = -p
                g[i] += 1.0
                W[L] += (lr * adv) * np.outer(g, x)
                b[L] += (lr * adv) * g
        recent.append(G)
        if len(recent) > 1000:
            recent.pop(0)
        d += 1
        if report is not None and time.monotonic() - last >= 10:
            last = time.monotonic()
            report(d, sum(recent) / len(recent))
    pol.meta.update(algorithm=f"REINFORCE with a running-mean baseline, against {against}",
                    deals=pol.meta.get("deals", 0) + d, seconds=round(time.monotonic() - start, 1),
                    lr=lr, seed=seed)
    return pol


def _play(v, st, policy_seats, policy, other) -> list[int]:
    while not st.is_terminal:
        s = st.to_act
        if s in policy_seats:
            obs = st.observation(s)
            st.apply(policy.best(obs, obs["legal_actions"]))
        else:
            st.apply_id(other(st, s))
    return st.score_change()


def evaluate(v, policy: LinearPolicy, deals: int = 1000, seed: int = 1, against: str = "random") -> dict:
    """Duplicate deals of ``policy`` against ``against`` (module docstring; `opponent`):
    {"deals", "mean", "low", "high"} (score change per deal: the mean over the policy's
    seats minus the mean over the other seats, whatever the partnerships; its 95%
    interval)."""
    other = opponent(v, against, seed)
    figs = []
    sides = turns(v)
    for d in range(deals):
        per = []
        for k in range(sides):
            st = State(v, dealer=d % v.players, seed=f"taash-eval:{seed}:{d}")
            mine = learner_seats(v, k)
            change = _play(v, st, mine, policy, other)
            others = [s for s in range(v.players) if s not in mine]
            per.append(sum(change[s] for s in mine) / len(mine) - sum(change[s] for s in others) / len(others))
        figs.append(sum(per) / len(per))
    n = len(figs)
    mean = sum(figs) / n
    sd = math.sqrt(sum((f - mean) ** 2 for f in figs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n else 0.0
    return {"deals": n, "mean": mean, "low": mean - half, "high": mean + half}


def checked_variant(name: str, against: str, prog: str):
    """The variant ``name`` when it loads and ``against`` names a bot; else None, the
    problems printed to stderr (each variant problem on its line, or ``prog: message``)."""
    try:
        v = load_variant(name)
        opponent(v, against)
    except VariantError as e:
        for pr in e.problems:
            print(pr.format(), file=sys.stderr)
        return None
    except UnknownBotError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return None
    return v


def measure_line(label: str, against: str, e: dict) -> str:
    """One line of an `evaluate` measure ``e`` of ``label`` against ``against``."""
    return (f"{label} against {against}, {e['deals']} duplicate deals: {e['mean']:+.3f} a deal (the policy's "
            f"seats' mean score change minus the other seats' mean), 95% interval "
            f"{e['low']:+.3f} .. {e['high']:+.3f}")


def save_and_measure(v, policy, args, trained: tuple, headline: str, untrained=None) -> dict:
    """The end of a training command (this module's, `taash.learn.ppo`'s): write
    ``policy`` to ``args.out``; measure it, and ``untrained`` (the figure to beat) when
    given, by `evaluate` on ``args.eval_deals`` duplicate deals (0: none) against
    ``args.against``, seeded ``args.seed + 1``; print the summary, as JSON with
    ``args.json``, else ``headline`` (formatted with the ``trained`` keys of the policy's
    meta and ``out``) and a line a measure (`measure_line`). Returns the summary:
    {"variant", "policy", "against", "trained": {key: meta[key]}, "trained_policy"
    and "untrained_policy": the measures}."""
    out = {"variant": v.ref, "policy": args.out, "against": args.against,
           "trained": {k: policy.meta[k] for k in trained}}
    policy.save(args.out)
    measured = {"trained": policy} if untrained is None else {"trained": policy, "untrained": untrained}
    if args.eval_deals:
        for label, pol in measured.items():
            out[f"{label}_policy"] = evaluate(v, pol, args.eval_deals, args.seed + 1, args.against)
    if args.json:
        print(json.dumps(out))
    else:
        print(headline.format(**out["trained"], out=args.out))
        if args.eval_deals:
            for label in measured:
                print(measure_line(f"{label} policy", args.against, out[f"{label}_policy"]))
    return out


def main(argv=None) -> int:
    """``python -m taash.learn.train``: train, save, evaluate; the exit code (2 for a bad
    argument or variant)."""
    p = argparse.ArgumentParser(prog="python -m taash.learn.train",
                                description="Train a linear policy by REINFORCE against random "
                                            "and measure it against random (docs/learning.md).")
    p.add_argument("--variant", default="29", help="shipped name or a YAML path (default 29)")
    p.add_argument("--seconds", type=float, help="training time (default 60 without --deals)")
    p.add_argument("--deals", type=int, help="training deals (default: by time only); with --seconds, "
                                            "whichever ends first")
    p.add_argument("--lr", type=float, default=0.003, help="learning rate (default 0.003)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and draws (default 0)")
    p.add_argument("--out", required=True, help="the policy file to write (.npz)")
    p.add_argument("--against", default="random", metavar="BOT",
                   help="the other seats, in training and measure: random (default), or a bot of the "
                        "registry (heuristic, NAME=package.module:factory)")
    p.add_argument("--eval-deals", type=int, default=1000,
                   help="duplicate deals against the same bot after training (default 1000; 0: none)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = p.parse_args(argv)
    if args.seconds is None and args.deals is None:
        args.seconds = 60.0
    if (args.seconds is not None and args.seconds <= 0) or (args.deals is not None and args.deals < 1) or args.lr <= 0 or args.eval_deals < 0:
        p.error("--seconds, --deals and --lr must be positive, --eval-deals at least 0")
    v = checked_variant(args.variant, args.against, "python -m taash.learn.train")
    if v is None:
        return 2

    def report(d, mean):
        if not args.json:
            print(f"{d} deals, mean return of the last 1000: {mean:+.3f}", flush=True)

    pol = train(v, seconds=args.seconds, deals=args.deals, lr=args.lr, seed=args.seed, against=args.against,
                report=report)
    save_and_measure(v, pol, args, ("deals", "seconds", "lr", "seed"),
                     "trained {deals} deals in {seconds} s; wrote {out}", untrained=LinearPolicy(v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
