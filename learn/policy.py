"""A trained policy as a bot: a linear softmax policy over `taash.learn.encoding`, its
file, and the adapter that seats it in a ladder or over the arena (the ``learn`` extra).

The policy: for one seat's observation ``obs`` with encoding ``x`` (float32, length F)
and legal action ids ``L``, the logit of action ``a`` is ``W[a] @ x + b[a]`` (``W``:
A x F, ``b``: A, A the variant's action count) and the policy is the softmax of the
logits over ``L`` (other actions have probability 0). As a bot it takes the action of
the highest logit (the first in id order on a tie), so its answer is a function of what
its seat sees: the same in a ladder, over the arena, and on a replay.

The file (``LinearPolicy.save``/``load``): a NumPy ``.npz`` holding ``W``, ``b`` and
``meta``, a JSON text: the variant's ``ref`` and ``digest`` (``Variant.ref``,
``Variant.digest``), the encoding's size, the action count, and how it was trained. A
policy is seated only on the variant it was trained on (the same digest): another
variant's observation means other things in the same places.

The adapter, for any command that takes a bot spec (``taash ladder run --bots``,
``taash simulate --bots``, ``taash bot``)::

    learned=taash.learn.policy:from_file@policy.npz

``from_file(path)`` reads the file once and gives the factory ``f(variant, seed)`` of
`PolicyBot` agents (arena/bots/registry.py: ``module:maker@ARG``).
"""

from __future__ import annotations

import json
from pathlib import Path

from taash.interpreter.errors import TaashError
from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.policy", e)) from e

from .encoding import Encoding

FORMAT = "taash-linear-policy/1"


class PolicyError(TaashError, ValueError):
    """A policy file that cannot be read, or that belongs to another variant (a
    TaashError, and a ValueError as before)."""


class LinearPolicy:
    """``W`` (A x F float32), ``b`` (A float32) over the encoding of ``variant``; ``meta``
    a dict saved with them (module docstring)."""

    def __init__(self, variant, W=None, b=None, meta: dict | None = None):
        self.v = variant
        self.encoding = Encoding(variant)
        A, F = len(variant.actions), self.encoding.size
        self.W = np.zeros((A, F), np.float32) if W is None else np.asarray(W, np.float32)
        self.b = np.zeros(A, np.float32) if b is None else np.asarray(b, np.float32)
        if self.W.shape != (A, F) or self.b.shape != (A,):
            raise PolicyError(f"weights of shape {self.W.shape} and {self.b.shape} do not fit "
                              f"{variant.ref!r} ({A} actions, an encoding of {F})")
        self.meta = dict(meta or {})

    def logits(self, x: np.ndarray, legal: list[int]) -> np.ndarray:
        """The logits of the ``legal`` ids (in that order) for encoding ``x``."""
        return self.W[legal] @ x + self.b[legal]

    def probabilities(self, x: np.ndarray, legal: list[int]) -> np.ndarray:
        """The softmax over ``legal`` (in that order)."""
        z = self.logits(x, legal)
        z = np.exp(z - z.max())
        return z / z.sum()

    def best(self, obs: dict, legal_texts) -> str:
        """The legal action (text) of highest logit for observation ``obs``; the first in
        id order on a tie. Raises ValueError when there is no legal action."""
        if not legal_texts:
            raise ValueError("no legal action to choose from")
        amap = self.v.action_map
        legal = sorted(amap[t].id for t in legal_texts)
        x = self.encoding.encode(obs)
        return self.v.actions[legal[int(np.argmax(self.logits(x, legal)))]].text

    # -- the file -------------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the policy to ``path`` (.npz; module docstring)."""
        meta = dict(self.meta, format=FORMAT, variant=self.v.ref, digest=self.v.digest,
                    options=dict(self.v.options), features=self.encoding.size, actions=len(self.v.actions))
        with open(path, "wb") as f:
            np.savez_compressed(f, W=self.W, b=self.b, meta=np.array(json.dumps(meta, sort_keys=True)))

    @classmethod
    def load(cls, path, variant) -> "LinearPolicy":
        """The policy in file ``path`` for ``variant``. Raises PolicyError for a file that
        is not such a policy or was trained on another variant."""
        W, b, meta = read(path)
        check_variant(path, meta, variant)
        return cls(variant, W, b, meta)


def read(path) -> tuple[np.ndarray, np.ndarray, dict]:
    """(W, b, meta) of a policy file. Raises PolicyError for a missing or bad file (no
    pickled object is ever loaded)."""
    try:
        with np.load(Path(path), allow_pickle=False) as z:
            W, b, meta = z["W"], z["b"], json.loads(str(z["meta"]))
    except FileNotFoundError:
        raise PolicyError(f"{path}: no such policy file") from None
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        raise PolicyError(f"{path}: not a taash policy file ({type(e).__name__}: {e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyError(f"{path}: not a taash policy file (format {FORMAT} expected)")
    if W.ndim != 2 or b.ndim != 1 or W.shape[0] != b.shape[0]:
        raise PolicyError(f"{path}: weights of shapes {W.shape} and {b.shape} are no linear policy")
    return W, b, meta


def check_variant(path, meta: dict, variant) -> None:
    """Raise PolicyError unless the policy of file ``path`` (its ``meta``) was trained on
    ``variant`` (the same digest)."""
    if meta.get("digest") == variant.digest:
        return
    if meta.get("variant") == variant.ref:
        raise PolicyError(f"{path}: a policy of variant {variant.ref!r} as it was (digest "
                          f"{str(meta.get('digest'))[:12]}), not as it is now ({variant.digest[:12]})")
    raise PolicyError(f"{path}: a policy of variant {meta.get('variant')!r}, not of {variant.ref!r}")


class PolicyBot:
    """An observation agent (taash.interpreter.playout) playing a policy: a `LinearPolicy`,
    or any object with its ``best(observation, legal_actions) -> action text`` (the PPO
    policy of `taash.learn.ppo` too): the legal action the policy rates highest. ``seed``
    is unused: the choice is a function of what the seat sees."""

    def __init__(self, policy, seed=0):
        self.policy = policy
        self.seed = seed

    def decide(self, observation: dict, legal_actions: list[str]) -> str:
        return self.policy.best(observation, legal_actions)


def bot_factory(load):
    """The bot factory ``f(variant, seed) -> PolicyBot`` of the policy ``load(variant)``
    gives, loaded once for each variant (by its digest); ``load`` raises PolicyError for
    a variant the policy was not trained on."""
    loaded = {}

    def factory(variant, seed=0):
        pol = loaded.get(variant.digest)
        if pol is None:
            pol = loaded[variant.digest] = load(variant)
        return PolicyBot(pol, seed)

    return factory


def from_file(path: str):
    """The bot factory ``f(variant, seed) -> PolicyBot`` of the policy file ``path``, for
    the registry's ``module:maker@ARG`` specs. Raises PolicyError now for a file that is
    not a policy; the factory raises it for another variant."""
    W, b, meta = read(path)

    def load(variant):
        check_variant(path, meta, variant)
        return LinearPolicy(variant, W, b, meta)

    return bot_factory(load)
