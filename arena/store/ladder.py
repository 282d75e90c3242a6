"""Where a ladder keeps its plans, games, records and standings.

`LadderStore` is the interface the ladder uses; `SQLLadderStore` implements it over a
`Database` (sql.py): `SQLiteLadderStore` (the default, a file ``ladder.sqlite3`` in the
data directory) or `PostgresLadderStore`. `open_ladder_store(spec)` picks one from a
configuration string: a directory or ``sqlite:///path/to/file.sqlite3`` for SQLite, or
``postgresql://user@host/db`` for a server database (needs the `psycopg` package; the same
SQL runs on both).

Every write is one transaction: a game with its record (`save_game`), a rated event with
the standings it changes and their history (`apply_event`), a round's plan
(`save_round`). A crash or a kill loses at most the game being played; a game or an event
already reported is in the database, and none is there twice (keys are unique).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

from ..errors import NoLadder, StoreError
from ..ladder.ratings import BotStanding, GameResult
from ..ladder.schedule import GameSpec
from .sql import Database

DB_FILE = "ladder.sqlite3"

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS ladders (
        variant TEXT PRIMARY KEY, settings TEXT NOT NULL, created DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS rounds (
        variant TEXT NOT NULL, round INTEGER NOT NULL, games TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL, PRIMARY KEY (variant, round))""",
    """CREATE TABLE IF NOT EXISTS games (
        variant TEXT NOT NULL, game_key TEXT NOT NULL, event TEXT NOT NULL, round INTEGER NOT NULL,
        seed BIGINT NOT NULL, bots TEXT NOT NULL, deals INTEGER NOT NULL, scores TEXT NOT NULL,
        record TEXT, arena_game TEXT, record_path TEXT, faults INTEGER NOT NULL, runner TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL, PRIMARY KEY (variant, game_key))""",
    """CREATE TABLE IF NOT EXISTS events (
        variant TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, games TEXT NOT NULL,
        deals_total INTEGER NOT NULL, created DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (variant, seq), UNIQUE (variant, event))""",
    """CREATE TABLE IF NOT EXISTS standings (
        variant TEXT NOT NULL, bot TEXT NOT NULL, mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL, games INTEGER NOT NULL, deals INTEGER NOT NULL,
        wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL,
        PRIMARY KEY (variant, bot))""",
    """CREATE TABLE IF NOT EXISTS history (
        variant TEXT NOT NULL, seq INTEGER NOT NULL, bot TEXT NOT NULL, deals_total INTEGER NOT NULL,
        mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL, PRIMARY KEY (variant, seq, bot))""",
]


class LadderStore:
    """The ladder's storage. Methods take the variant's reference (``"29"``,
    ``"house/29-double"``); every ladder is per variant. Writes are atomic."""

    def settings(self, variant: str) -> dict | None:
        """The settings the variant's ladder was started with, or None if it has none."""
        raise NotImplementedError

    def save_settings(self, variant: str, settings: dict) -> None:
        """Record the settings of a new ladder (no-op if it has some already)."""
        raise NotImplementedError

    def rounds(self, variant: str) -> list[list[GameSpec]]:
        """Every planned round, round 0 first: the games of each, in play order."""
        raise NotImplementedError

    def save_round(self, variant: str, rnd: int, games: list[GameSpec]) -> None:
        """Record the plan of round ``rnd`` (kept as it is if already planned)."""
        raise NotImplementedError

    def drop_rounds(self, variant: str, first: int) -> None:
        """Forget the plans of rounds ``first`` and later (rounds none of whose games is
        stored: the ladder plans them again with the bots of the next run)."""
        raise NotImplementedError

    def games(self, variant: str, records: bool = False) -> dict[str, GameResult]:
        """Stored games by key, in the order stored; with their records if ``records``."""
        raise NotImplementedError

    def save_game(self, variant: str, spec: GameSpec, result: GameResult, runner: str) -> bool:
        """Store one played game and its record; False (and nothing written) if its key is
        stored already."""
        raise NotImplementedError

    def events(self, variant: str) -> list[dict]:
        """Rated events in the order rated: seq (1, 2, ...), event, games (keys), deals_total."""
        raise NotImplementedError

    def apply_event(self, variant: str, event: str, game_keys: list[str], deals_total: int,
                    lines: list[BotStanding]) -> bool:
        """Record that ``event`` was rated, the new standing ``lines`` of the bots it
        changed and a history point per line, in one transaction. False (and nothing
        written) if the event was rated already."""
        raise NotImplementedError

    def standings(self, variant: str) -> list[BotStanding]:
        """The stored standings of the variant, best first (mu, then name)."""
        raise NotImplementedError

    def history(self, variant: str) -> list[dict]:
        """Rating points in event order: seq, deals_total (deals rated so far), bot, mu, sigma."""
        raise NotImplementedError

    def variants(self) -> list[str]:
        """Variants with a ladder, sorted."""
        raise NotImplementedError

    def reset(self, variant: str) -> None:
        """Delete the variant's ladder: settings, plans, games, events, standings."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the connection."""


class SQLLadderStore(LadderStore):
    """`LadderStore` over a `Database` (``db``), its tables made if missing."""

    def __init__(self, db: Database):
        self.db = db
        self.where = db.where
        with self._tx() as cur:
            for stmt in SCHEMA:
                cur.execute(stmt)

    def _tx(self):
        return self.db.tx()

    def _query(self, sql: str, args=()) -> list[tuple]:
        return self.db.query(sql, args)

    # -- the interface ------------------------------------------------------------------
    def settings(self, variant):
        rows = self._query("SELECT settings FROM ladders WHERE variant=?", (variant,))
        return json.loads(rows[0][0]) if rows else None

    def save_settings(self, variant, settings):
        with self._tx() as cur:
            cur.execute("SELECT 1 FROM ladders WHERE variant=?", (variant,))
            if not cur.fetchall():
                cur.execute("INSERT INTO ladders(variant, settings, created) VALUES(?,?,?)",
                            (variant, json.dumps(settings, sort_keys=True), time.time()))

    def rounds(self, variant):
        rows = self._query("SELECT games FROM rounds WHERE variant=? ORDER BY round", (variant,))
        return [[GameSpec.from_json(g) for g in json.loads(r[0])] for r in rows]

    def save_round(self, variant, rnd, games):
        with self._tx() as cur:
            cur.execute("SELECT 1 FROM rounds WHERE variant=? AND round=?", (variant, rnd))
            if not cur.fetchall():
                cur.execute("INSERT INTO rounds(variant, round, games, created) VALUES(?,?,?,?)",
                            (variant, rnd, json.dumps([g.to_json() for g in games]), time.time()))

    def drop_rounds(self, variant, first):
        with self._tx() as cur:
            cur.execute("DELETE FROM rounds WHERE variant=? AND round>=?", (variant, first))

    def games(self, variant, records=False):
        cols = "game_key, bots, scores, deals, arena_game, record_path, faults" + (", record" if records else "")
        rows = self._query(f"SELECT {cols} FROM games WHERE variant=? ORDER BY created, game_key", (variant,))
        out = {}
        for row in rows:
            key, bots, scores, deals, ag, rp, faults = row[:7]
            rec = json.loads(row[7]) if records and row[7] else None
            out[key] = GameResult(key, tuple(json.loads(bots)), json.loads(scores), deals, rec, ag, rp, faults)
        return out

    def save_game(self, variant, spec, result, runner):
        with self._tx() as cur:
            cur.execute("SELECT 1 FROM games WHERE variant=? AND game_key=?", (variant, spec.key))
            if cur.fetchall():
                return False
            cur.execute(
                "INSERT INTO games(variant, game_key, event, round, seed, bots, deals, scores, record, "
                "arena_game, record_path, faults, runner, created) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (variant, spec.key, spec.event, spec.round, spec.seed, json.dumps(list(result.bots)),
                 result.deals, json.dumps(list(result.scores)),
                 json.dumps(result.record, separators=(",", ":")) if result.record is not None else None,
                 result.arena_game, result.record_path, result.faults, runner, time.time()))
            return True

    def events(self, variant):
        rows = self._query("SELECT seq, event, games, deals_total FROM events WHERE variant=? ORDER BY seq",
                           (variant,))
        return [{"seq": s, "event": e, "games": json.loads(g), "deals_total": d} for s, e, g, d in rows]

    def apply_event(self, variant, event, game_keys, deals_total, lines):
        with self._tx() as cur:
            cur.execute("SELECT 1 FROM events WHERE variant=? AND event=?", (variant, event))
            if cur.fetchall():
                return False
            cur.execute("SELECT MAX(seq) FROM events WHERE variant=?", (variant,))
            last = cur.fetchall()[0][0]
            seq = (last or 0) + 1
            now = time.time()
            cur.execute("INSERT INTO events(variant, seq, event, games, deals_total, created) VALUES(?,?,?,?,?,?)",
                        (variant, seq, event, json.dumps(list(game_keys)), deals_total, now))
            for st in lines:
                cur.execute("DELETE FROM standings WHERE variant=? AND bot=?", (variant, st.bot))
                cur.execute("INSERT INTO standings(variant, bot, mu, sigma, games, deals, wins, draws, losses) "
                            "VALUES(?,?,?,?,?,?,?,?,?)", (variant, st.bot, st.mu, st.sigma, st.games, st.deals,
                                                          st.wins, st.draws, st.losses))
                cur.execute("INSERT INTO history(variant, seq, bot, deals_total, mu, sigma) VALUES(?,?,?,?,?,?)",
                            (variant, seq, st.bot, deals_total, st.mu, st.sigma))
            return True

    def standings(self, variant):
        rows = self._query("SELECT bot, mu, sigma, games, deals, wins, draws, losses FROM standings "
                           "WHERE variant=?", (variant,))
        return sorted((BotStanding(*r) for r in rows), key=lambda s: (-s.mu, s.bot))

    def history(self, variant):
        rows = self._query("SELECT seq, deals_total, bot, mu, sigma FROM history WHERE variant=? "
                           "ORDER BY seq, bot", (variant,))
        return [{"seq": s, "deals_total": d, "bot": b, "mu": m, "sigma": sg} for s, d, b, m, sg in rows]

    def variants(self):
        return [r[0] for r in self._query("SELECT variant FROM ladders ORDER BY variant")]

    def reset(self, variant):
        with self._tx() as cur:
            for table in ("ladders", "rounds", "games", "events", "standings", "history"):
                cur.execute(f"DELETE FROM {table} WHERE variant=?", (variant,))

    def close(self):
        self.db.close()


class SQLiteLadderStore(SQLLadderStore):
    """The default store: one SQLite file (WAL journal, full sync: a committed game
    survives a crash of the machine too). Several processes may use it at once. Raises
    StoreError if the file cannot be created or opened; with ``create`` False, NoLadder
    if it does not exist (the commands that only read: nothing is left behind by a
    mistyped path)."""

    def __init__(self, path: str | os.PathLike, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise NoLadder(f"no ladder in {self.path} (run one with `taash ladder run`)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = Database.sqlite(self.path, "ladder database", synchronous="FULL")
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot open the ladder database {self.path}: {e}") from None
        super().__init__(db)


class PostgresLadderStore(SQLLadderStore):
    """The store in a PostgreSQL database (``postgresql://...``), through psycopg 3.
    Raises StoreError if psycopg is missing or the server cannot be reached."""

    def __init__(self, url: str):
        super().__init__(Database.postgres(url, "ladder database"))


def open_ladder_store(spec: str | os.PathLike | None = None, data_dir: str | os.PathLike = "arena-data",
               create: bool = True) -> LadderStore:
    """The store a configuration string names: None -> ``DATA_DIR/ladder.sqlite3``; a
    ``sqlite:///PATH`` URL or a path ending in ``.sqlite3``/``.db`` -> that SQLite file; any
    other path -> ``PATH/ladder.sqlite3``; ``postgresql://...`` -> PostgreSQL. ``create``
    False: a SQLite file that does not exist raises NoLadder instead of being created.
    Raises StoreError."""
    if spec is None or spec == "":
        return SQLiteLadderStore(Path(data_dir) / DB_FILE, create)
    s = str(spec)
    if s.startswith(("postgresql://", "postgres://")):
        return PostgresLadderStore(s)
    if s.startswith("sqlite:///"):
        return SQLiteLadderStore(s[len("sqlite:///"):], create)   # sqlite:///rel/path, sqlite:////abs/path
    if "://" in s:
        raise StoreError(f"unknown ladder store {s!r}: give a directory, sqlite:///FILE or postgresql://...")
    p = Path(s)
    if p.suffix in (".sqlite3", ".sqlite", ".db"):
        return SQLiteLadderStore(p, create)
    return SQLiteLadderStore(p / DB_FILE, create)
