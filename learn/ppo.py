"""A neural policy trained by maskable PPO (sb3-contrib), its file, and the bot that seats
it in a ladder or over the arena (the ``train`` extra: torch, stable-baselines3, sb3-contrib).

    python -m taash.learn.ppo --variant 29 --steps 200000 --against heuristic --out ppo-29.pt

Why this library: Stable-Baselines3 is the reference implementation set of the common
deep-RL algorithms (Raffin et al., JMLR 2021), and its contrib package's ``MaskablePPO``
(PPO, Schulman et al. 2017, with invalid actions masked out of the softmax, Huang and
Ontañón 2022) is what PettingZoo's own tutorials train classic card and board games
with, through a single-agent wrapper like `taash.learn.single.SeatEnv`. It runs on the CPU.

Training: ``MaskablePPO("MlpPolicy", SeatEnv(variant, against, reward="margin"))``, so the
learner holds one side against ``--against`` (``random``, or a bot of the registry),
the sides taking turns deal by deal, with the zero-sum margin as its reward. Then
`taash.learn.train.save_and_measure` writes it and measures it on duplicate deals
against the same bot (`taash.learn.train.evaluate`), as the REINFORCE command does.

The file (``PPOPolicy.save``/``load``): ``torch.save`` of a dict holding the policy
network's ``state_dict`` and ``meta``, a JSON text (the variant's ``ref`` and ``digest``,
the encoding's size, the action count, the network's hidden sizes, how it was trained).
It is read with ``torch.load(weights_only=True)``, which loads tensors and plain data
and refuses any other pickled object, and it is refused, in one line, on any variant but
the one it was trained on. As a bot it plays the legal action of highest probability,
a function of what its seat sees. Any command that takes a bot spec seats it::

    learned=taash.learn.ppo:from_file@ppo-29.pt
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from taash.learn import needs_learn_extra

try:  # the train extra's libraries
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.ppo", e, "train")) from e

from .encoding import Encoding
from .policy import PolicyError, bot_factory, check_variant
from .single import SeatEnv
from .train import checked_variant, save_and_measure

FORMAT = "taash-ppo-policy/1"
NET = [128, 128]        # the hidden layers of the policy and value networks


class PPOPolicy:
    """A `MaskableActorCriticPolicy` over the encoding of ``variant`` (module docstring);
    ``meta`` a dict saved with it."""

    def __init__(self, variant, policy: "MaskableActorCriticPolicy", meta: dict | None = None):
        self.v = variant
        self.encoding = Encoding(variant)
        self.policy = policy
        self.meta = dict(meta or {})
        self._layers = None

    def layers(self) -> list:
        """The actor's layers as NumPy: ``[("linear", W, b) | ("tanh",) | ("relu",)]``,
        from the features to the action logits (read once: a decision is then a few
        matrix products in NumPy, where torch's own call costs far more on a busy machine)."""
        if self._layers is None:
            mods = list(self.policy.mlp_extractor.policy_net) + [self.policy.action_net]
            out = []
            for m in mods:
                if isinstance(m, torch.nn.Linear):
                    out.append(("linear", m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()))
                elif isinstance(m, torch.nn.Tanh):
                    out.append(("tanh",))
                elif isinstance(m, torch.nn.ReLU):
                    out.append(("relu",))
                else:
                    raise PolicyError(f"a layer {type(m).__name__} that the bot does not compute")
            self._layers = out
        return self._layers

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The action logits of encoding ``x`` (float32, the encoding's size): the actor's
        layers in turn (the features extractor flattens, so it is ``x`` itself)."""
        h = x
        for layer in self.layers():
            if layer[0] == "linear":
                h = layer[1] @ h + layer[2]
            elif layer[0] == "tanh":
                h = np.tanh(h)
            else:
                h = np.maximum(h, 0)
        return h

    @classmethod
    def empty(cls, variant, net=NET, meta=None) -> "PPOPolicy":
        """An untrained policy network of ``variant`` with hidden sizes ``net``."""
        env = SeatEnv(variant)
        pol = MaskableActorCriticPolicy(env.observation_space, env.action_space, lambda _: 0.0,
                                        net_arch=list(net))
        return cls(variant, pol, dict(meta or {}, net=list(net)))

    def best(self, obs: dict, legal_texts) -> str:
        """The legal action (text) of highest probability for observation ``obs`` (the
        highest logit among the legal ones; the first in id order on a tie). Raises
        ValueError when there is no legal action."""
        if not legal_texts:
            raise ValueError("no legal action to choose from")
        amap = self.v.action_map
        legal = sorted(amap[t].id for t in legal_texts)
        z = self.logits(self.encoding.encode(obs))[legal]
        return self.v.actions[legal[int(np.argmax(z))]].text

    def save(self, path) -> None:
        """Write the policy to ``path`` (module docstring)."""
        meta = dict(self.meta, format=FORMAT, variant=self.v.ref, digest=self.v.digest,
                    options=dict(self.v.options), features=self.encoding.size, actions=len(self.v.actions))
        torch.save({"state_dict": self.policy.state_dict(), "meta": json.dumps(meta, sort_keys=True)}, path)

    @classmethod
    def load(cls, path, variant) -> "PPOPolicy":
        """The policy in file ``path`` for ``variant``. Raises PolicyError for a file that
        is not such a policy or was trained on another variant."""
        state, meta = read(path)
        check_variant(path, meta, variant)
        pol = cls.empty(variant, meta.get("net", NET), meta)
        try:
            pol.policy.load_state_dict(state)
        except RuntimeError as e:
            raise PolicyError(f"{path}: weights that do not fit {variant.ref!r} ({e})") from None
        pol.policy.set_training_mode(False)
        pol.layers()
        return pol


def read(path) -> tuple[dict, dict]:
    """(state_dict, meta) of a policy file. Raises PolicyError for a missing or bad file
    (``torch.load(weights_only=True)``: no arbitrary object is unpickled)."""
    try:
        data = torch.load(Path(path), map_location="cpu", weights_only=True)
        meta = json.loads(data["meta"])
        state = data["state_dict"]
    except FileNotFoundError:
        raise PolicyError(f"{path}: no such policy file") from None
    except Exception as e:      # torch raises many kinds for a file that is not its own
        raise PolicyError(f"{path}: not a taash PPO policy file ({type(e).__name__}: {e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyError(f"{path}: not a taash PPO policy file (format {FORMAT} expected)")
    return state, meta


def from_file(path: str):
    """The bot factory ``f(variant, seed) -> PolicyBot`` (`taash.learn.policy.PolicyBot`,
    playing the `PPOPolicy`) of the policy file ``path``, for the registry's
    ``module:maker@ARG`` specs. Raises PolicyError now for a file that is not a policy;
    the factory raises it for another variant."""
    read(path)
    return bot_factory(lambda variant: PPOPolicy.load(path, variant))


def train(v, *, steps: int, against: str = "random", seed: int = 0, net=NET, n_steps: int = 2048,
          batch_size: int = 256, lr: float = 3e-4, ent_coef: float = 0.01) -> PPOPolicy:
    """MaskablePPO on `SeatEnv` (``v`` against ``against``, the margin reward) for
    ``steps`` of the learner's decisions; the trained `PPOPolicy`."""
    torch.set_num_threads(1)
    env = SeatEnv(v, against=against, reward="margin", seed=seed)
    model = MaskablePPO("MlpPolicy", env, learning_rate=lr, n_steps=n_steps, batch_size=batch_size,
                        ent_coef=ent_coef, policy_kwargs={"net_arch": list(net)}, seed=seed, device="cpu",
                        verbose=0)
    start = time.monotonic()
    model.learn(total_timesteps=steps)
    model.policy.set_training_mode(False)
    meta = {"algorithm": f"MaskablePPO (sb3-contrib), margin reward, against {against}",
            "steps": steps, "deals": env._episodes, "seconds": round(time.monotonic() - start, 1),
            "seed": seed, "lr": lr, "n_steps": n_steps, "batch_size": batch_size, "ent_coef": ent_coef,
            "net": list(net)}
    return PPOPolicy(v, model.policy, meta)


def main(argv=None) -> int:
    """``python -m taash.learn.ppo``: train, save, evaluate; the exit code (2 for a bad
    argument, variant or bot)."""
    p = argparse.ArgumentParser(prog="python -m taash.learn.ppo",
                                description="Train a neural policy by maskable PPO (sb3-contrib) against a "
                                            "bot and measure it on duplicate deals (docs/learning.md).")
    p.add_argument("--variant", default="29", help="shipped name or a YAML path (default 29)")
    p.add_argument("--steps", type=int, default=200_000, help="the learner's decisions to train on "
                                                             "(default 200000)")
    p.add_argument("--against", default="random", metavar="BOT",
                   help="the other seats, in training and measure: random (default), or a bot of the "
                        "registry (heuristic, NAME=package.module:factory)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the network (default 0)")
    p.add_argument("--n-steps", type=int, default=2048, help="PPO's rollout length (default 2048)")
    p.add_argument("--batch-size", type=int, default=256, help="PPO's minibatch (default 256)")
    p.add_argument("--out", required=True, help="the policy file to write (.pt)")
    p.add_argument("--eval-deals", type=int, default=1000,
                   help="duplicate deals against the same bot after training (default 1000; 0: none)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = p.parse_args(argv)
    if args.steps < 1 or args.n_steps < 2 or args.batch_size < 2 or args.eval_deals < 0:
        p.error("--steps must be positive, --n-steps and --batch-size at least 2, --eval-deals at least 0")
    v = checked_variant(args.variant, args.against, "python -m taash.learn.ppo")
    if v is None:
        return 2
    pol = train(v, steps=args.steps, against=args.against, seed=args.seed, n_steps=args.n_steps,
                batch_size=args.batch_size)
    save_and_measure(v, pol, args, ("steps", "deals", "seconds", "seed"),
                     "trained {steps} steps ({deals} deals) in {seconds} s; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
