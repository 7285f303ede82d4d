"""A lease on a shared store: the one process that may deliver from it.

Two `roombot run` processes delivering from one PostgreSQL outbox would each send
every notice from its own device, and a transaction id only deduplicates within
one device. So the deliverer holds the lease `deliver`: one row with its holder,
a fencing token and an expiry, all on the database's clock (never the machines').

- `acquire()` takes the lease when it is free, expired, or already this holder's
  (a restart of the same bot: same host and state directory), and renews it then;
  the token grows by one whenever the holder changes.
- The holder renews it every `ttl / 3`. `valid()` is the local answer to "may I send
  now": true until `ttl` after the start of the last renewal that succeeded, so a
  holder whose renewals fail (the database is down) stops sending before anyone
  else could have taken the lease.
- A renewal that finds another holder or another token means the lease was lost:
  the caller must stop (`LeaseLost`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from roombot.store.db import Engine, PostgresDatabase, SqliteDatabase

DELIVER = "deliver"

_SQLITE_TABLE = """CREATE TABLE IF NOT EXISTS leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    token INTEGER NOT NULL,
    acquired_at REAL NOT NULL,
    renewed_at REAL NOT NULL,
    expires_at REAL NOT NULL
)"""

# Free, expired or ours: taken (or renewed), the token kept for the same holder.
_TAKE = """INSERT INTO leases (name, holder, token, acquired_at, renewed_at, expires_at)
VALUES (?, ?, 1, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET
    token = CASE WHEN leases.holder = excluded.holder THEN leases.token
                 ELSE leases.token + 1 END,
    acquired_at = CASE WHEN leases.holder = excluded.holder THEN leases.acquired_at
                       ELSE excluded.acquired_at END,
    holder = excluded.holder,
    renewed_at = excluded.renewed_at,
    expires_at = excluded.expires_at
WHERE leases.holder = excluded.holder OR leases.expires_at < excluded.renewed_at
RETURNING token"""


class LeaseLost(RuntimeError):
    """Another process holds the lease now: this one must not send any more."""


@dataclass(frozen=True)
class Holding:
    """Who holds a lease, as its row says (times on the database's clock)."""

    holder: str
    token: int
    acquired_at: float
    renewed_at: float
    expires_at: float


class Lease:
    def __init__(
        self,
        db: SqliteDatabase | PostgresDatabase,
        holder: str,
        ttl: float,
        *,
        name: str = DELIVER,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.holder = holder
        self.ttl = ttl
        self.name = name
        self.token: int | None = None
        self._monotonic = monotonic
        self._valid_until = -1.0
        if isinstance(db, SqliteDatabase):
            db.execute(_SQLITE_TABLE)

    def _now(self) -> float:
        if self.db.engine is Engine.POSTGRESQL:
            return float(
                self.db.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())").fetchone()[0]
            )
        return time.time()

    def holding(self) -> Holding | None:
        row = self.db.execute(
            "SELECT holder, token, acquired_at, renewed_at, expires_at FROM leases WHERE name=?",
            (self.name,),
        ).fetchone()
        return None if row is None else Holding(row[0], int(row[1]), *map(float, row[2:]))

    def acquire(self) -> Holding | None:
        """Take or renew the lease: None when this holder has it now, else who holds it."""
        started = self._monotonic()
        now = self._now()
        row = self.db.execute(_TAKE, (self.name, self.holder, now, now, now + self.ttl)).fetchone()
        if row is None:
            return self.holding() or Holding("(gone)", 0, now, now, now)
        token = int(row[0])
        if self.token is not None and token != self.token:
            self._valid_until = -1.0
            raise LeaseLost(
                f"the store's {self.name} lease was taken by another process "
                f"(token {self.token} -> {token})"
            )
        self.token = token
        self._valid_until = started + self.ttl
        return None

    def renew(self) -> None:
        """Renew; LeaseLost when another holder has it. The database's errors pass."""
        held = self.acquire()
        if held is not None:
            self._valid_until = -1.0
            raise LeaseLost(f"the store's {self.name} lease is held by {held.holder} now")

    def valid(self) -> bool:
        return self.token is not None and self._monotonic() < self._valid_until

    def release(self) -> None:
        """Let another process take over at once (a clean stop)."""
        if self.token is not None:
            self.db.execute(
                "UPDATE leases SET expires_at = 0 WHERE name=? AND holder=? AND token=?",
                (self.name, self.holder, self.token),
            )
            self.token = None
            self._valid_until = -1.0
