"""What `roombot store status` says of a store: where it is, its schema, what it holds.

Read-only: a SQLite file that does not exist yet is reported as such, never created.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from roombot.store.db import Database, Engine, PostgresDatabase, SqliteDatabase, Where, is_url
from roombot.store.lease import DELIVER
from roombot.store.migrations import applied, available


@dataclass(frozen=True)
class StoreStatus:
    engine: Engine
    outbox: str  # where, password hidden
    journal: str
    schema: int | None = None  # PostgreSQL: the last migration applied
    schema_latest: int | None = None  # ...and the last this roombot ships
    notices: dict[str, int] = field(default_factory=dict)  # by state (pending: the backlog)
    journal_rows: int | None = None
    silences: int | None = None
    missing: tuple[str, ...] = ()  # SQLite files not created yet
    leader: str | None = None  # PostgreSQL: the holder of the deliver lease, while valid
    lease_age: float | None = None  # seconds since that lease was last renewed

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        out = [f"engine: {self.engine}", f"outbox: {self.outbox}", f"journal: {self.journal}"]
        if self.schema_latest is not None:
            behind = "" if self.schema == self.schema_latest else " (run `roombot store migrate`)"
            out.append(f"schema: {self.schema or 0} of {self.schema_latest}{behind}")
        out += [f"not created yet: {m} (the bot has not started)" for m in self.missing]
        if self.notices:
            out.append(f"backlog: {self.notices.get('pending', 0)} notices owed")
            out.append(
                "notices: " + ", ".join(f"{n} {state}" for state, n in sorted(self.notices.items()))
            )
        if self.schema_latest is not None:
            out.append(
                f"leader: {self.leader} (lease renewed {self.lease_age:.1f} s ago)"
                if self.leader is not None and self.lease_age is not None
                else "leader: none (no roombot delivers from this store now)"
            )
        if self.journal_rows is not None:
            out.append(f"journal: {self.journal_rows} rows")
        if self.silences is not None:
            out.append(f"silences: {self.silences} kept")
        return out


def _has(db: Database, table: str) -> bool:
    if isinstance(db, SqliteDatabase):
        q = "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?"
    else:
        q = "SELECT 1 FROM information_schema.tables WHERE table_name=?"
    return db.execute(q, (table,)).fetchone() is not None


def _count(db: Database, table: str) -> int | None:
    return (
        int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]) if _has(db, table) else None
    )


def _notices(db: Database) -> dict[str, int]:
    if not _has(db, "notices"):
        return {}
    rows = db.execute("SELECT state, COUNT(*) FROM notices GROUP BY state").fetchall()
    return {"pending": 0, **{r[0]: int(r[1]) for r in rows}}


def _leader(db: PostgresDatabase) -> tuple[str | None, float | None]:
    if not _has(db, "leases"):
        return None, None
    row = db.execute(
        "SELECT holder, EXTRACT(EPOCH FROM clock_timestamp()) - renewed_at FROM leases "
        "WHERE name = ? AND expires_at > EXTRACT(EPOCH FROM clock_timestamp())",
        (DELIVER,),
    ).fetchone()
    return (None, None) if row is None else (str(row[0]), float(row[1]))


def read_status(outbox_at: str | Path, journal_at: str | Path) -> StoreStatus:
    """Raises what the driver raises when the store cannot be reached."""
    if is_url(outbox_at):
        pg = PostgresDatabase(str(outbox_at))
        try:
            done = applied(pg)
            leader, age = _leader(pg)
            return StoreStatus(
                leader=leader,
                lease_age=age,
                engine=Engine.POSTGRESQL,
                outbox=str(Where.of(outbox_at)),
                journal=str(Where.of(journal_at)),
                schema=max(done) if done else None,
                schema_latest=available()[-1].version,
                notices=_notices(pg),
                journal_rows=_count(pg, "journal"),
                silences=_count(pg, "silences"),
            )
        finally:
            pg.close()
    found: dict[str, Any] = {}
    missing = []
    for name, path in (("outbox", Path(outbox_at)), ("journal", Path(journal_at))):
        if not path.exists():
            missing.append(str(path))
            continue
        db = SqliteDatabase(path)
        try:
            if name == "outbox":
                found["notices"] = _notices(db)
                found["silences"] = _count(db, "silences")
            else:
                found["journal_rows"] = _count(db, "journal")
        finally:
            db.close()
    return StoreStatus(
        engine=Engine.SQLITE,
        outbox=str(outbox_at),
        journal=str(journal_at),
        missing=tuple(missing),
        **found,
    )
