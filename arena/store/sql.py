"""The SQL connection both stores share: SQLite (a file) or PostgreSQL (a URL), its
placeholder and its errors, one transaction at a time.

`Database.sqlite(path)` opens a file in WAL mode (several processes may use it at once);
`Database.postgres(url)` connects through psycopg 3 (the ``psycopg`` package, not an
extra of taash). Statements are written with ``?`` placeholders and run on either.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager

from ..errors import StoreError


class Database:
    """A DB-API connection ``conn`` with its dialect: ``mark`` is the driver's
    placeholder (``?`` for sqlite3, ``%s`` for psycopg), ``errors`` its exception types,
    ``begin`` the statement that opens a transaction (None: the driver opens one).
    ``name`` and ``where`` name the database in errors ("ladder database", its path or
    its URL without the password)."""

    def __init__(self, conn, name: str, where: str, mark: str = "?", errors: tuple = (sqlite3.Error,),
                 begin: str | None = "BEGIN"):
        self.conn, self.name, self.where = conn, name, where
        self.mark, self.errors, self.begin = mark, errors, begin

    @classmethod
    def sqlite(cls, path: str | os.PathLike, name: str, synchronous: str = "FULL") -> Database:
        """A SQLite file (created if missing): WAL journal, ``synchronous`` FULL (a commit
        survives a crash of the machine) or NORMAL (of the process), autocommit outside
        `tx`, usable from any thread. Raises OSError or sqlite3.Error, for the caller to
        say what could not be opened."""
        conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        return cls(conn, name, str(path), begin="BEGIN IMMEDIATE")

    @classmethod
    def postgres(cls, url: str, name: str) -> Database:
        """A PostgreSQL database. Raises StoreError if psycopg is missing or the server
        cannot be reached."""
        try:
            import psycopg
        except ImportError:
            raise StoreError(f"a postgresql:// {name} needs the psycopg package "
                             "(pip install 'psycopg[binary]')") from None
        try:
            conn = psycopg.connect(url)
        except psycopg.Error as e:
            raise StoreError(f"cannot connect to the {name} {redact(url)}: {e}") from None
        return cls(conn, name, redact(url), mark="%s", errors=(psycopg.Error,), begin=None)

    def sql(self, text: str) -> str:
        """``text`` with the driver's placeholder for ``?``."""
        return text if self.mark == "?" else text.replace("?", self.mark)

    @contextmanager
    def tx(self):
        """One transaction: a cursor whose ``execute`` takes ``?`` placeholders; committed
        on success, rolled back on any error. Raises StoreError for the driver's errors."""
        try:
            cur = self.conn.cursor()
            if self.begin:
                cur.execute(self.begin)
        except self.errors as e:
            raise StoreError(f"cannot use the {self.name} {self.where}: {e}") from None
        try:
            yield _Cursor(cur, self.sql)
            self.conn.commit()
        except BaseException as e:
            try:
                self.conn.rollback()
            except self.errors:
                pass
            if isinstance(e, self.errors):
                raise StoreError(f"{self.name} {self.where}: {e}") from None
            raise

    def query(self, sql: str, args=()) -> list[tuple]:
        """The rows of one statement. Raises StoreError."""
        try:
            cur = self.conn.cursor()
            cur.execute(self.sql(sql), args)
            rows = cur.fetchall()
            self.conn.commit()
            return rows
        except self.errors as e:
            raise StoreError(f"{self.name} {self.where}: {e}") from None

    def close(self) -> None:
        """Close the connection (an error closing it is ignored)."""
        try:
            self.conn.close()
        except self.errors:
            pass


class _Cursor:
    """A cursor whose SQL uses ``?`` placeholders whatever the driver's paramstyle."""

    def __init__(self, cur, sql):
        self.cur, self.sql = cur, sql

    def execute(self, sql, args=()):
        self.cur.execute(self.sql(sql), args)

    def fetchall(self):
        return self.cur.fetchall()


def redact(url: str) -> str:
    """A database URL without its password."""
    head, sep, tail = url.partition("@")
    if not sep or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, cred = head.partition("//")
    return f"{scheme}//{cred.split(':', 1)[0]}:***@{tail}"
