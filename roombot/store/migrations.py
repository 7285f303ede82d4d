"""PostgreSQL's schema: numbered SQL files applied once each, in order.

`roombot/store/postgresql/NNNN_name.sql` are the migrations; a file, once
released, is never edited (a change is a new file). `migrate` applies those a
database has not had, each in its own transaction with its row in
`roombot_migrations`, under a transaction-level advisory lock: two processes
starting at once on one database apply each file exactly once.

Decided: a small runner, not Alembic or yoyo. The schema is a handful of tables
written in plain SQL, the runner is sixty lines a reader can check, and it brings
no dependency beyond the driver (Alembic would bring SQLAlchemy).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from roombot.store.db import PostgresDatabase, Where, is_url

log = logging.getLogger("roombot.store")

# Any constant will do; it only has to be the same in every roombot process.
_LOCK = 0x726F6F6D626F74  # "roombot"
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available() -> list[Migration]:
    """Every migration shipped with this roombot, in order."""
    found = []
    for entry in resources.files("roombot.store").joinpath("postgresql").iterdir():
        m = _NAME.match(entry.name)
        if m:
            found.append(Migration(int(m.group(1)), m.group(2), entry.read_text("utf-8")))
    found.sort(key=lambda mig: mig.version)
    versions = [mig.version for mig in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations are not numbered 1..N without gaps: {versions}")
    return found


_TABLE = """CREATE TABLE IF NOT EXISTS roombot_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at DOUBLE PRECISION NOT NULL
)"""


def applied(db: PostgresDatabase) -> list[int]:
    """The versions this database has had."""
    exists = db.execute("SELECT to_regclass('roombot_migrations')").fetchone()[0]
    if exists is None:
        return []
    rows = db.execute("SELECT version FROM roombot_migrations ORDER BY version").fetchall()
    return [r[0] for r in rows]


def pending(db: PostgresDatabase) -> list[Migration]:
    done = set(applied(db))
    return [m for m in available() if m.version not in done]


def migrate(db: PostgresDatabase) -> list[Migration]:
    """Apply what is missing; return what this call applied (nothing when up to date)."""
    done: list[Migration] = []
    for mig in available():
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK,))
            db.execute(_TABLE)
            have = db.execute(
                "SELECT 1 FROM roombot_migrations WHERE version = ?", (mig.version,)
            ).fetchone()
            if have is not None:
                continue
            db.raw.execute(mig.sql)  # several statements: sent as one simple query
            db.execute(
                "INSERT INTO roombot_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (mig.version, mig.name, time.time()),
            )
        done.append(mig)
    return done


def require_current(db: PostgresDatabase) -> None:
    """Refuse a database whose schema is older than this roombot (say how to mend it)."""
    missing = pending(db)
    if missing:
        names = ", ".join(f"{m.version:04d}_{m.name}" for m in missing)
        raise RuntimeError(
            f"the PostgreSQL store lacks migrations {names}: run `roombot store migrate`"
        )


def prepare(where: str | Path) -> list[Migration]:
    """At a start: bring a PostgreSQL store's schema up to date (nothing for a SQLite file,
    whose parts create their tables themselves)."""
    if not is_url(where):
        return []
    db = PostgresDatabase(str(where))
    try:
        done = migrate(db)
    finally:
        db.close()
    for m in done:
        log.info(
            "store migrated",
            extra={"version": m.version, "name": m.name, "store": str(Where.of(where))},
        )
    return done
