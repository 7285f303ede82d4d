"""Events waiting for the bot: a SQLite file that outlives the proxy.

Events are written here before anything tries to send them; a sent batch is
deleted only once the bot has acknowledged it. What a run could not send,
the next run using the same spool sends first. Several proxies may share a
spool: each may send a row the other also sends, and the bot drops the
second copy by its `event_id`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from roombot.private_files import private_sqlite


class Spool:
    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        private_sqlite(Path(path))  # 0600: it holds provider text and the node's events
        self._db = sqlite3.connect(str(path), timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS events ("
            " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
            " event_id TEXT UNIQUE,"
            " body TEXT NOT NULL)"
        )

    def add(self, events: Iterable[dict[str, Any]]) -> None:
        rows = [(ev.get("event_id"), json.dumps(ev)) for ev in events]
        with self._db:
            self._db.executemany(
                "INSERT OR IGNORE INTO events (event_id, body) VALUES (?, ?)", rows
            )

    def batch(self, limit: int = 100) -> list[tuple[int, dict[str, Any]]]:
        rows = self._db.execute(
            "SELECT seq, body FROM events ORDER BY seq LIMIT ?", (limit,)
        ).fetchall()
        return [(seq, json.loads(body)) for seq, body in rows]

    def remove(self, seqs: Sequence[int]) -> None:
        with self._db:
            self._db.executemany("DELETE FROM events WHERE seq = ?", [(s,) for s in seqs])

    def __len__(self) -> int:
        (count,) = self._db.execute("SELECT COUNT(*) FROM events").fetchone()
        return int(count)

    def close(self) -> None:
        self._db.close()
