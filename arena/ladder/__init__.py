"""The ladder: bots ranked over many deals of a variant (docs/ladder.md).

- `schedule`: rounds, pairings, seatings, duplicate deals (`GameSpec`);
- `ratings`: openskill ratings from per-seat results (`Ratings`, `BotStanding`);
- `margins`: each pair's head-to-head score margin a deal with its t interval (`Margin`);
- `runners`: games in process (`InProcessRunner`);
- `arena_runner`: games through the arena over gRPC (`ArenaRunner`; the arena extra, not
  imported here);
- `ladder`: `run_ladder` (plan, play, rate, resume) and `recompute`;
- `plot`: ratings over time as a PNG.

Its store, `LadderStore` (plans, games, events, standings), is in arena/store/ladder.py.
"""

from .ladder import LadderSettings, RunSummary, recompute, run_ladder, variant_ref
from .ratings import BotStanding, GameResult, Ratings
from .runners import InProcessRunner, LadderError, parse_bot_spec
from .schedule import GameSpec, plan_round, round_seed, seatings

__all__ = ["LadderSettings", "RunSummary", "recompute", "run_ladder", "variant_ref", "BotStanding",
           "GameResult", "Ratings", "InProcessRunner", "LadderError", "parse_bot_spec",
           "GameSpec", "plan_round", "round_seed", "seatings"]
