"""Where the arena and the ladder keep their data: the interfaces and their SQL backends.

- `arena`: the arena's `Store` (bot tokens, games, records, the journal of running
  games) and `SQLiteStore`, a data directory DIR holding ``arena.sqlite3``,
  ``records/``, ``admin-token``, ``watch-token`` and ``variants/``;
- `ladder`: the ladder's `LadderStore` (plans, games, rated events, standings) and
  `SQLLadderStore` over SQLite (``DIR/ladder.sqlite3`` by default) or PostgreSQL;
  `open_ladder_store` picks one from a configuration string;
- `sql`: the connection both share (`Database`: SQLite or PostgreSQL, its placeholder,
  its errors, one transaction at a time).

Every error is a `StoreError` (arena/errors.py).
"""

from ..errors import NoLadder, StoreError
from .arena import (DATABASE, DEFAULT_DATA_DIR, SQLiteStore, Store, check_bot_name, compact_json, has_arena,
                    read_watch_token, record_bytes)
from .ladder import LadderStore, PostgresLadderStore, SQLiteLadderStore, SQLLadderStore, open_ladder_store
from .sql import Database

__all__ = ["DATABASE", "DEFAULT_DATA_DIR", "Database", "LadderStore", "NoLadder", "PostgresLadderStore",
           "SQLLadderStore", "SQLiteLadderStore", "SQLiteStore", "Store", "StoreError", "check_bot_name",
           "compact_json", "has_arena", "open_ladder_store", "read_watch_token", "record_bytes"]
