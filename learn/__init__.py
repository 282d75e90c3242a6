"""taash.learn: every variant as a learning environment (the ``learn`` extra).

- `taash.learn.encoding`: a variant's fixed-size action table and the fixed-size tensor
  of what one seat may see (built only from ``State.observation(seat)``);
- `taash.learn.rewards`: the rewards a learner chooses (a seat's score change, its margin
  over its opponents, the match's outcome), their bounds, and which are zero-sum;
- `taash.learn.pettingzoo`: a deal or a whole match as a PettingZoo AEC environment
  (``env("29")``);
- `taash.learn.picture`: a deal drawn as a picture, every hand face up (the PettingZoo
  environment's ``render_mode="rgb_array"``);
- `taash.learn.vector`: a batch of self-play deals stepped at once, a Gymnasium vector
  environment (``VectorEnv("29", num_envs=64)``);
- `taash.learn.openspiel`: a deal or a whole match as an OpenSpiel game
  (``pyspiel.load_game("taash_29")``);
- `taash.learn.policy`: a linear softmax policy over the encoding, its file, and the bot
  that seats it in a ladder or over the arena;
- `taash.learn.train`: REINFORCE of that policy through the PettingZoo environment,
  against ``random`` or another bot, and its measure (``python -m taash.learn.train``);
- `taash.learn.single`: one side against a bot as a single-agent Gymnasium environment;
- `taash.learn.ppo`: a neural policy trained by sb3-contrib's maskable PPO on it, its
  file and its bot (``python -m taash.learn.ppo``; the ``train`` extra).

docs/learning.md describes the encodings, the rewards and the adapter. The modules
import numpy (and their library) at the top: install ``pip install 'taash[learn]'``.
Nothing in `taash.interpreter` or `taash.arena` imports this package.
"""


def needs_learn_extra(module: str, error: ImportError, extra: str = "learn") -> str:
    """The message of the ImportError a module of this package raises when a library of
    its extra is missing (``learn``: numpy, gymnasium, pettingzoo, open_spiel, pillow; ``train``:
    torch, stable-baselines3, sb3-contrib); ``error`` is the original one (kept as the new
    error's ``__cause__``)."""
    missing = getattr(error, "name", None) or str(error)
    return f"{module} needs the {extra} extra ({missing} is not installed): pip install 'taash[{extra}]'"
