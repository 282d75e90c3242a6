"""Where the arena keeps bot tokens, games and records: the interface `Store`, and
`SQLiteStore`, SQLite (sql.py's `Database`) plus files in a data directory.

A data directory DIR holds ``arena.sqlite3`` (tokens, games), ``records/<game_id>.json``
(one record per game, the engine's record format, `taash replay` reads them),
``admin-token`` (the token that `taash arena match` shows to the server) and
``variants/`` (variant files sent by `taash arena match` as text). The ``journal`` table
holds each running game's finished deals, so that a game is saved even if the arena dies
in its middle (arena/server/persist.py, `recover`).

Tokens are stored as SHA-256 hashes; the plain token is shown once, when issued.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import sqlite3
import time
from pathlib import Path

import orjson

from ..errors import StoreError
from .sql import Database

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_DATA_DIR = "arena-data"
DATABASE = "arena.sqlite3"      # the arena's database in its data directory


def check_bot_name(name: str) -> str:
    """Return ``name`` if it is a valid bot name (1-64 of letters, digits, ``_ . -``,
    starting with a letter or digit); raise StoreError otherwise."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise StoreError(f"invalid bot name {name!r}: use 1-64 letters, digits, '_', '.' or '-', "
                         "starting with a letter or digit")
    return name


def has_arena(data_dir: str | os.PathLike) -> bool:
    """Whether ``data_dir`` holds an arena's database (a `SQLiteStore` made there)."""
    return (Path(data_dir) / DATABASE).is_file()


def read_watch_token(data_dir: str | os.PathLike) -> str | None:
    """The watch token in ``data_dir``/watch-token (an arena served with --private-watch
    makes it), or None if there is none; never creates it."""
    try:
        return (Path(data_dir) / "watch-token").read_text().strip() or None
    except OSError:
        return None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    """The interface the arena uses. Every method is synchronous; the arena calls
    ``new_game_id`` and ``save_game`` on its one store thread (off the event loop) and the
    others on the event loop, so an implementation must allow use from two threads."""

    def issue_token(self, name: str) -> str:
        """Create (or replace) the token of bot ``name``; return the plain token."""
        raise NotImplementedError

    def bot_for_token(self, token: str) -> str | None:
        """The bot name a token belongs to, or None."""
        raise NotImplementedError

    def bots(self) -> list[str]:
        """Names of all bots with a token, sorted."""
        raise NotImplementedError

    def revoke_token(self, name: str) -> bool:
        """Remove the token of bot ``name`` (the bot is then unknown until a new token is
        issued); return whether it had one."""
        raise NotImplementedError

    def tokens_changed(self) -> bool:
        """Whether tokens may have been issued or revoked (here or by another process,
        such as `taash arena token`) since the last call: the arena then checks its
        connections' tokens again. Cheap: called a few times a second."""
        return False

    def new_game_id(self) -> str:
        """A fresh game id, unique in this store (``g000001``, ``g000002``, ...)."""
        raise NotImplementedError

    def save_game(self, game_id: str, meta: dict, record: dict) -> str:
        """Store a finished (or cut short) game; return the path of its record file."""
        raise NotImplementedError

    def record_path(self, game_id: str) -> Path:
        """Where the record of ``game_id`` is (or will be) written."""
        raise NotImplementedError

    def watch_token(self) -> str:
        """The token that spectators need when the arena is served with --private-watch
        (DIR/watch-token, made on first use). Raises StoreError."""
        raise NotImplementedError

    def admin_token(self) -> str:
        """The admin token of this arena (created on first use)."""
        raise NotImplementedError

    def journal(self, game_id: str, n: int, entry: dict) -> None:
        """Keep entry ``n`` of a running game's journal (0: how the game began; 1, 2, ...:
        each finished deal), so that a game the arena was playing when it died can be
        saved at its next start. `save_game` drops the journal."""
        raise NotImplementedError

    def journals(self) -> dict[str, list[dict]]:
        """The journals of games begun and never saved: game id -> entries in order."""
        raise NotImplementedError

    def save_variant(self, text: str) -> Path:
        """Keep a variant's text sent by a client (DATA/variants/<sha256>.yaml); its path."""
        raise NotImplementedError

    def variants_dir(self) -> Path:
        """The folder of the variant files a RunMatches call may name (DATA/variants/: the
        texts clients sent, and the files the arena's keeper put there)."""
        raise NotImplementedError

    def games_of(self, bot: str, limit: int) -> tuple[list[dict], int]:
        """The latest ``limit`` finished games where ``bot`` held a seat, newest first (each
        as `games` gives it, with ``seats``, the bot's seats, and ``fault_counts``, the
        faults of those seats by verdict kind name as the record's ``fault_counts`` counts
        them), and how many it has finished in all. Safe to call from a thread other than
        the writer's (its own connection)."""
        raise NotImplementedError


def _bot_game_rows(game: int, bots: list, arena: dict) -> list[tuple]:
    """The bot_games rows of the games row ``game`` (SQLiteStore._index_bot_games):
    (bot, game, seats as JSON, faults as JSON) per bot of ``bots``, its faults the sum of
    its seats' counts in the record's ``arena.fault_counts`` (one {kind: count} per seat;
    persist.record_of)."""
    counts = arena.get("fault_counts") if isinstance(arena, dict) else None
    counts = counts if isinstance(counts, list) else []
    rows = []
    for bot in dict.fromkeys(bots):
        seats = [s for s, b in enumerate(bots) if b == bot]
        faults: dict[str, int] = {}
        for s in seats:
            seat = counts[s] if s < len(counts) and isinstance(counts[s], dict) else {}
            for kind, n in seat.items():
                if isinstance(n, int):
                    faults[kind] = faults.get(kind, 0) + n
        rows.append((bot, game, json.dumps(seats), json.dumps(faults, sort_keys=True)))
    return rows


def record_bytes(record: dict) -> bytes:
    """A game's record as the UTF-8 JSON of its file: indented by two spaces, written by
    orjson (a record of a few deals: about 0.1 ms, against 1 ms or more for the json
    module's indented form, which is pure Python; its write is on every game's end); a
    value orjson does not take (an integer past 64 bits) falls back to the json module."""
    try:
        return orjson.dumps(record, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(record, indent=2, ensure_ascii=False).encode()


def compact_json(value) -> str:
    """``value`` as compact JSON text: no spaces, non-ASCII as itself, the same text as
    ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, written by orjson
    (several times faster); a value orjson does not take (a non-string key, an integer
    past 64 bits) falls back to the json module. The arena's observations and deal
    results, and the store's journal entries (written on the arena's store thread, which
    holds the interpreter's lock while it encodes)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class SQLiteStore(Store):
    """The default store: SQLite plus JSON record files in one directory ``data_dir``.
    Safe to use from several processes at once (`taash arena token` while the arena runs).
    Raises StoreError if the directory cannot be created or the database opened."""

    def __init__(self, data_dir: str | os.PathLike = DEFAULT_DATA_DIR):
        self.dir = Path(data_dir)
        try:
            (self.dir / "records").mkdir(parents=True, exist_ok=True)
            # WAL with synchronous NORMAL: safe against crashes of the process, no fsync per commit
            self.database = Database.sqlite(self.dir / DATABASE, "arena database", synchronous="NORMAL")
            self.db = self.database.conn
            self.db.executescript("""
                CREATE TABLE IF NOT EXISTS bots (
                    name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, created REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS games (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, game_id TEXT UNIQUE, created REAL NOT NULL,
                    finished REAL, variant TEXT, seed INTEGER, bots TEXT, complete INTEGER,
                    score TEXT, winners TEXT, faults INTEGER, record TEXT);
                CREATE TABLE IF NOT EXISTS journal (
                    game_id TEXT NOT NULL, n INTEGER NOT NULL, entry TEXT NOT NULL,
                    PRIMARY KEY (game_id, n));
                -- a new game's id from its row's: new_game_id is one statement
                CREATE TRIGGER IF NOT EXISTS games_game_id AFTER INSERT ON games WHEN NEW.game_id IS NULL
                BEGIN UPDATE games SET game_id = printf('g%06d', NEW.id) WHERE id = NEW.id; END;
            """)
            if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name='bot_games'").fetchone():
                self._index_bot_games()
            # reads (MyStanding) on a connection of their own: in WAL mode a reader neither
            # waits for the writer's commits nor holds them up (https://sqlite.org/wal.html)
            self.reader = sqlite3.connect(f"{(self.dir / DATABASE).resolve().as_uri()}?mode=ro", uri=True,
                                          timeout=30, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot use the data directory {self.dir}: {e}") from None
        self._tokens: dict[str, str] = {}
        self._dirty = False
        self._data_version = self._version()

    def _index_bot_games(self) -> None:
        """Make the table ``bot_games``: a row per bot and finished game where it held a
        seat (``game``: the games row's id; ``seats``, its seats as JSON; ``faults``, the
        record's ``fault_counts`` of those seats summed, {verdict kind: count} as JSON),
        keyed by (bot, game): a bot's latest games and their count are read from that key
        alone. Filled from the records of the games finished so far (a data directory
        made before the table); a record that cannot be read gives its game no faults."""
        games = self.db.execute("SELECT id, bots, record FROM games WHERE finished IS NOT NULL").fetchall()
        rows = []
        for gid, bots, path in games:
            try:
                arena = json.loads(Path(path).read_bytes()).get("arena", {})
            except (OSError, ValueError, TypeError, AttributeError):
                arena = {}
            rows += _bot_game_rows(gid, json.loads(bots) if bots else [], arena)
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("CREATE TABLE IF NOT EXISTS bot_games (bot TEXT NOT NULL, game INTEGER NOT NULL, "
                            "seats TEXT NOT NULL, faults TEXT NOT NULL, PRIMARY KEY (bot, game)) WITHOUT ROWID")
            self.db.executemany("INSERT OR REPLACE INTO bot_games(bot, game, seats, faults) VALUES(?,?,?,?)", rows)

    def _version(self) -> int:
        # changes when another connection commits (https://sqlite.org/pragma.html#pragma_data_version)
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def issue_token(self, name: str) -> str:
        check_bot_name(name)
        token = "taash_" + secrets.token_urlsafe(24)
        try:
            self.db.execute("INSERT INTO bots(name, token_hash, created) VALUES(?,?,?) "
                            "ON CONFLICT(name) DO UPDATE SET token_hash=excluded.token_hash, "
                            "created=excluded.created", (name, _hash(token), time.time()))
        except sqlite3.Error as e:
            raise StoreError(f"cannot store the token: {e}") from None
        self._dirty = True
        return token

    def revoke_token(self, name: str) -> bool:
        check_bot_name(name)
        try:
            cur = self.db.execute("DELETE FROM bots WHERE name=?", (name,))
        except sqlite3.Error as e:
            raise StoreError(f"cannot revoke the token: {e}") from None
        self._dirty = True
        return cur.rowcount > 0

    def tokens_changed(self) -> bool:
        try:
            v = self._version()
        except sqlite3.Error:
            return False
        changed = self._dirty or v != self._data_version
        self._dirty, self._data_version = False, v
        return changed

    def bot_for_token(self, token: str) -> str | None:
        h = _hash(token)
        # on the reading connection: a call's check of its token never waits for a commit
        row = self.reader.execute("SELECT name FROM bots WHERE token_hash=?", (h,)).fetchone()
        return row[0] if row else None

    def bots(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM bots ORDER BY name")]

    def new_game_id(self) -> str:
        # One statement (its trigger names the row): each call into sqlite3 from the
        # arena's store thread waits for the busy event loop to let go of the GIL, and
        # the four of a BEGIN ... COMMIT cost the game's start about 0.7 ms of CPU.
        cur = self.db.execute("INSERT INTO games(created) VALUES(?)", (time.time(),))
        return f"g{cur.lastrowid:06d}"

    def record_path(self, game_id: str) -> Path:
        if not re.match(r"^[A-Za-z0-9_.-]+$", game_id):
            raise StoreError(f"invalid game id {game_id!r}")
        return self.dir / "records" / f"{game_id}.json"

    def save_game(self, game_id: str, meta: dict, record: dict) -> str:
        path = self.record_path(game_id)
        tmp = path.with_name(path.name + ".tmp")
        for field in ("variant", "variant_copy"):
            ref = record.get(field)
            if isinstance(ref, str) and Path(ref).is_absolute():
                # a caller's file kept in DATA/variants/: named relative to the record
                # (docs/records.md), so that the directory can be moved or copied whole
                try:
                    Path(ref).resolve().relative_to(self.dir.resolve())
                    record = {**record, field: os.path.relpath(Path(ref).resolve(), path.parent.resolve())}
                except ValueError:
                    pass
        try:
            tmp.write_bytes(record_bytes(record))
            tmp.replace(path)
            row = (time.time(), meta.get("variant"), meta.get("seed"), json.dumps(meta.get("bots")),
                   int(bool(meta.get("complete"))), json.dumps(meta.get("score")),
                   json.dumps(meta.get("winners")), meta.get("faults", 0), str(path), game_id)
            with self.db:   # the row, its bots' rows and the end of the journal together
                self.db.execute("BEGIN")
                cur = self.db.execute("UPDATE games SET finished=?, variant=?, seed=?, bots=?, complete=?, "
                                      "score=?, winners=?, faults=?, record=? WHERE game_id=? RETURNING id", row)
                got = cur.fetchall()
                if not got:   # a game id this store did not hand out
                    cur = self.db.execute("INSERT INTO games(finished, variant, seed, bots, complete, score, "
                                          "winners, faults, record, game_id, created) VALUES(?,?,?,?,?,?,?,?,?,?,?) "
                                          "RETURNING id", row + (time.time(),))
                    got = cur.fetchall()
                self.db.executemany("INSERT OR REPLACE INTO bot_games(bot, game, seats, faults) VALUES(?,?,?,?)",
                                    _bot_game_rows(got[0][0], meta.get("bots") or [], record.get("arena") or {}))
                self.db.execute("DELETE FROM journal WHERE game_id=?", (game_id,))
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot save game {game_id}: {e}") from None
        return str(path)

    def games(self) -> list[dict]:
        """Finished games, oldest first: game_id, variant, seed, bots, complete, score,
        winners, faults, record (path)."""
        rows = self.db.execute("SELECT game_id, variant, seed, bots, complete, score, winners, faults, "
                               "record FROM games WHERE finished IS NOT NULL ORDER BY id").fetchall()
        return [{"game_id": g, "variant": v, "seed": s, "bots": json.loads(b), "complete": bool(c),
                 "score": json.loads(sc), "winners": json.loads(w), "faults": f, "record": r}
                for g, v, s, b, c, sc, w, f, r in rows]

    def games_of(self, bot: str, limit: int) -> tuple[list[dict], int]:
        # on the reader's connection, from the key of bot_games: no scan of the games
        try:
            (total,), = self.reader.execute("SELECT count(*) FROM bot_games WHERE bot=?", (bot,)).fetchall()
            rows = self.reader.execute(
                "SELECT g.game_id, g.variant, g.seed, g.bots, g.complete, g.score, g.winners, g.faults, g.record, "
                "b.seats, b.faults FROM bot_games b JOIN games g ON g.id = b.game WHERE b.bot=? "
                "ORDER BY b.game DESC LIMIT ?", (bot, limit)).fetchall()
        except sqlite3.Error as e:
            raise StoreError(f"cannot read the games of bot {bot!r}: {e}") from None
        return [{"game_id": g, "variant": v, "seed": s, "bots": json.loads(b), "complete": bool(c),
                 "score": json.loads(sc), "winners": json.loads(w), "faults": f, "record": r,
                 "seats": json.loads(seats), "fault_counts": json.loads(fc)}
                for g, v, s, b, c, sc, w, f, r, seats, fc in rows], total

    def journal(self, game_id: str, n: int, entry: dict) -> None:
        try:
            self.db.execute("INSERT OR REPLACE INTO journal(game_id, n, entry) VALUES(?,?,?)",
                            (game_id, n, compact_json(entry)))
        except sqlite3.Error as e:
            raise StoreError(f"cannot write the journal of game {game_id}: {e}") from None

    def journals(self) -> dict[str, list[dict]]:
        try:
            # journals of games already saved (a crash between the two writes) are dropped
            self.db.execute("DELETE FROM journal WHERE game_id IN "
                            "(SELECT game_id FROM games WHERE finished IS NOT NULL)")
            rows = self.db.execute("SELECT game_id, entry FROM journal ORDER BY game_id, n").fetchall()
        except sqlite3.Error as e:
            raise StoreError(f"cannot read the games' journal: {e}") from None
        out: dict[str, list[dict]] = {}
        for gid, entry in rows:
            out.setdefault(gid, []).append(json.loads(entry))
        return out

    def variants_dir(self) -> Path:
        return self.dir / "variants"

    def save_variant(self, text: str) -> Path:
        path = self.dir / "variants" / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.yaml"
        try:
            if not path.is_file():
                path.parent.mkdir(exist_ok=True)
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(path)
        except OSError as e:
            raise StoreError(f"cannot keep the variant sent: {e.strerror or e}: {path}") from None
        return path

    def admin_token(self) -> str:
        return self._secret("admin-token", "taash_admin_")

    def watch_token(self) -> str:
        return self._secret("watch-token", "taash_watch_")

    def _secret(self, name: str, prefix: str) -> str:
        """The token in DIR/``name`` (mode 0600), made on first use."""
        path = self.dir / name
        try:
            if path.is_file():
                tok = path.read_text().strip()
                if tok:
                    return tok
            tok = prefix + secrets.token_urlsafe(24)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(tok + "\n")
            return tok
        except OSError as e:
            raise StoreError(f"cannot read or create {path}: {e.strerror or e}") from None

    def close(self) -> None:
        """Close the database."""
        self.reader.close()
        self.db.close()
