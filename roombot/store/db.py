"""One small interface over SQLite and PostgreSQL, for plain SQL written once.

Not an ORM: the parts that keep state write their SQL themselves, in the subset
both engines take. What differs is kept here: how a connection is opened and made
durable, how parameters are written (`?` here, `%s` to psycopg), how a write
transaction begins, and the few expressions that have no common spelling
(`Database.json_text`).

A `Database` is not thread-safe on its own; each part that shares one between
threads holds its own lock around its statements, as it did over sqlite3.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from roombot.private_files import create_dirs, private_sqlite


class StoreUnavailable(ConnectionError):
    """The PostgreSQL server could not be reached (the URL in the message has no password)."""


class Engine(StrEnum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Database(Protocol):
    engine: Engine

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor: ...
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...
    def transaction(self) -> contextlib.AbstractContextManager[None]: ...
    def json_text(self, column: str, key: str) -> str: ...
    def last_seq(self, table: str) -> int: ...
    def close(self) -> None: ...


def is_url(where: str | Path) -> bool:
    """A PostgreSQL URL rather than a file's path."""
    return isinstance(where, str) and where.startswith(("postgresql://", "postgres://"))


@dataclass(frozen=True)
class Where:
    """A store's location as a part names it: a SQLite file, or a PostgreSQL URL shared by all."""

    path: Path | None = None
    url: str | None = None

    @classmethod
    def of(cls, where: str | Path) -> Where:
        return cls(url=str(where)) if is_url(where) else cls(path=Path(where))

    def __str__(self) -> str:
        return redact_url(self.url) if self.url else str(self.path)


def redact_url(url: str) -> str:
    """The URL without its password (in the authority or as a parameter), for logs."""
    url = re.sub(r"(://[^:/@?#]*):[^@/?#]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url)


class SqliteDatabase:
    """One SQLite file in WAL mode with synchronous=FULL: a commit is on disk when it returns."""

    engine = Engine.SQLITE

    def __init__(self, path: Path, *, timeout: float = 30.0) -> None:
        private_sqlite(create_dirs(path.parent) / path.name)
        self.path = path
        self._db = sqlite3.connect(
            path, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")

    @property
    def raw(self) -> sqlite3.Connection:
        """The sqlite3 connection, for the schema steps only SQLite has (executescript)."""
        return self._db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        return self._db.execute(sql, tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._db.executemany(sql, rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        # IMMEDIATE: take the write lock at BEGIN, so two writers never deadlock on upgrade.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def json_text(self, column: str, key: str) -> str:
        return f"json_extract({column}, '$.{key}')"

    def last_seq(self, table: str) -> int:
        """The last `seq` the table handed out, rows deleted since included."""
        row = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name=?", (table,)).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self._db.close()


_PARAM = re.compile(r"\?|%")


def to_psycopg(sql: str) -> str:
    """`?` parameters as psycopg writes them (`%s`), a literal `%` doubled."""
    return _PARAM.sub(lambda m: "%s" if m.group() == "?" else "%%", sql)


class PostgresDatabase:
    """One psycopg 3 connection in autocommit mode: each statement outside `transaction()`
    is its own transaction, committed (synchronous_commit, the server's default) when
    `execute` returns.

    A connection the server dropped (a restart, a failover of the database) is opened
    again at the next statement; the statement that met the drop raises, and its caller
    retries as it does for any failed write (nothing is assumed applied).
    """

    engine = Engine.POSTGRESQL

    def __init__(self, url: str, *, connect_timeout: float = 10.0) -> None:
        self.url = url
        self.connect_timeout = max(1, round(connect_timeout))
        self._db = self._connect()
        self._sql: dict[str, str] = {}

    def _connect(self) -> Any:
        import psycopg  # only a PostgreSQL deployment needs the driver loaded

        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=self.connect_timeout)
        except psycopg.OperationalError as e:
            said = str(e).strip().splitlines()
            raise StoreUnavailable(
                f"cannot connect to {redact_url(self.url)}: {said[0] if said else type(e).__name__}"
            ) from e

    @property
    def raw(self) -> Any:
        return self._live()

    def _live(self) -> Any:
        if self._db.closed or self._db.broken:
            self._db = self._connect()
        return self._db

    def _text(self, sql: str) -> str:
        text = self._sql.get(sql)
        if text is None:
            text = self._sql[sql] = to_psycopg(sql)
        return text

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        cur: Cursor = self._live().execute(self._text(sql), tuple(params))
        return cur

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._live().cursor() as cur:
            cur.executemany(self._text(sql), [tuple(r) for r in rows])

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._live().transaction():
            yield

    def json_text(self, column: str, key: str) -> str:
        return f"(({column})::jsonb ->> '{key}')"

    def last_seq(self, table: str) -> int:
        """The last `seq` the table's identity handed out, rows deleted since included."""
        row = self.execute(
            "SELECT COALESCE(pg_sequence_last_value(pg_get_serial_sequence(?, 'seq')), 0)",
            (table,),
        ).fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()


def connect(where: str | Path) -> SqliteDatabase | PostgresDatabase:
    """Open the database a part is configured with; PostgreSQL's schema must be migrated
    (`roombot store migrate`, or `migrations.migrate` at start)."""
    w = Where.of(where)
    if w.url is not None:
        return PostgresDatabase(w.url)
    assert w.path is not None
    return SqliteDatabase(w.path)
