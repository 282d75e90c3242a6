"""Margins of trained policies against the project's bots, with 95% intervals.

    python bench/learning.py --variant 29 --deals 1000 --against random,heuristic \\
        --policy ppo-29.pt --policy p29-heuristic.npz

For each policy file (a PPO policy ``.pt`` of `taash.learn.ppo`, or a linear policy
``.npz`` of `taash.learn.policy`) and each bot, `taash.learn.train.evaluate`: duplicate
deals (each deal played once with the policy on each side and the same cards), a deal's
figure the mean score change of the policy's seats minus the mean of the other seats',
the mean over the deals and its 95% interval (mean +- 1.96 sd / sqrt(N)). An interval
above 0 means the policy beats the bot. Prints one line per (policy, bot) and the
seconds it took. Needs the ``learn`` extra, and the ``train`` extra for ``.pt`` files.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# run as a script, this folder comes first on sys.path, and its http.py would stand for the
# standard library's http (which torch imports): drop it
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from taash.interpreter import load_variant  # noqa: E402
from taash.learn.train import evaluate  # noqa: E402


def load_policy(path: str, v):
    """The policy in ``path``: a PPO policy (.pt) or a linear one (.npz)."""
    if path.endswith(".pt"):
        from taash.learn.ppo import PPOPolicy
        return PPOPolicy.load(path, v)
    from taash.learn.policy import LinearPolicy
    return LinearPolicy.load(path, v)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="29")
    p.add_argument("--policy", action="append", required=True, help="a policy file (.pt or .npz); repeatable")
    p.add_argument("--against", default="random,heuristic", help="bots, comma-separated (default random,heuristic)")
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals per pair (default 1000)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    v = load_variant(args.variant)
    print(f"{v.ref}: {args.deals} duplicate deals per pair, seed {args.seed}")
    for path in args.policy:
        pol = load_policy(path, v)
        for bot in args.against.split(","):
            t = time.monotonic()
            e = evaluate(v, pol, args.deals, args.seed, bot)
            print(f"{path} against {bot}: {e['mean']:+.3f} a deal (95%: {e['low']:+.3f} .. {e['high']:+.3f}), "
                  f"{time.monotonic() - t:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
