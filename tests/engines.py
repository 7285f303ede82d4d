"""The store engines the bot's tests run on: SQLite files, or a throwaway PostgreSQL.

While a test of a bot module runs on PostgreSQL (tests/conftest.py, `bot_store`),
`cluster` is set and every bot config written for a directory gets its own fresh
database (the same one each time for the same directory, as its SQLite files would
be), so two bots in one test never share a store.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from roombot.store.db import PostgresDatabase
from roombot.store.migrations import migrate
from roombot.store.pgcluster import PgCluster

ENGINES = ("sqlite", "postgresql")

cluster: PgCluster | None = None
_databases: dict[Path, str] = {}
_counter = itertools.count()


@dataclass(frozen=True)
class Stores:
    """Where one test keeps state: `stores(name)` is a SQLite file of that name, or the one
    PostgreSQL database every part shares."""

    engine: str
    root: Path
    url: str | None = None

    def __call__(self, name: str) -> str | Path:
        return self.url if self.url is not None else self.root / name


def fresh_database(on: PgCluster) -> str:
    """A new database on `on` with roombot's schema; its URL."""
    url = on.create_database(f"t{os.getpid()}x{next(_counter)}")
    db = PostgresDatabase(url)
    try:
        migrate(db)
    finally:
        db.close()
    return url


def store_section(directory: Path) -> str:
    """The `[store]` table for a bot config written in `directory` ("" on SQLite)."""
    if cluster is None:
        return ""
    key = directory.resolve()
    if key not in _databases:
        _databases[key] = fresh_database(cluster)
    return f'\n[store]\nurl = "{_databases[key]}"\n'


def use(on: PgCluster | None) -> None:
    global cluster
    cluster = on
    _databases.clear()
