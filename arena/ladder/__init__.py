"""The ladder: bots ranked over many deals of a variant (docs/ladder.md).

- `schedule`: rounds, pairings, seatings, duplicate deals (`GameSpec`);
- `ratings`: openskill ratings from per-seat results (`Ratings`, `BotStanding`);
- `store`: the `LadderStore` interface, SQLite by default (`open_store`);
- `runners`: games in-process (`InProcessRunner`) or through the arena over gRPC
  (`ArenaRunner`);
- `ladder`: `run_ladder` (plan, play, rate, resume) and `recompute`;
- `plot`: ratings over time as a PNG.
"""

from .ladder import LadderSettings, RunSummary, recompute, run_ladder, variant_ref
from .ratings import BotStanding, GameResult, Ratings
from .runners import ArenaRunner, InProcessRunner, LadderError, parse_bot_spec
from .schedule import GameSpec, plan_round, round_seed, seatings
from .store import LadderStore, NoLadder, SQLiteLadderStore, StoreError, open_store

__all__ = ["NoLadder", "LadderSettings", "RunSummary", "recompute", "run_ladder", "variant_ref", "BotStanding",
           "GameResult", "Ratings", "ArenaRunner", "InProcessRunner", "LadderError", "parse_bot_spec",
           "GameSpec", "plan_round", "round_seed", "seatings", "LadderStore", "SQLiteLadderStore",
           "StoreError", "open_store"]
