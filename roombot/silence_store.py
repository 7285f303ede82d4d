"""The silences set from the rooms, kept durably: `SilenceStore`.

One table (`silences`) in the store it is given: the bot gives it the outbox's
(its SQLite file: one file to back up, one fsync discipline; or the PostgreSQL
database), opened on its own connection, committed before `add` and `lift`
return (WAL and synchronous=FULL on SQLite), so a silence the room was told
about survives any crash. Every row is
also held in memory, so `snapshot()` (the room stage reads it at each step) costs
no query. Safe from several threads.

Ids: `s` and 6 characters of Crockford's lowercase base32 (digits and letters
without i, l, o, u: nothing to mistype), taken from the SHA-256 of the command's
event id (or, without one, of the row's sequence number); on the rare collision
with a silence still kept, the next digest is tried. The same command event
added twice (a crash between the silence and its answer, then the answer sent
at the restart) gives the same silence back, never a second one.

Lifting: the first `lift` of an active silence records when and by whom; lifting
one already lifted or already ended changes nothing and returns it unchanged
(so the answer can say when it ended); an unknown id returns None.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any, Final

from roombot.silences import Silence
from roombot.store.db import SqliteDatabase, connect, is_url
from roombot.store.migrations import require_current

log = logging.getLogger("roombot.silences")

ID_ALPHABET: Final = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford's base32, lowercase
ID_LENGTH: Final = 7  # "s" and 6 characters: 2**30 ids
ID_SHAPE: Final = re.compile(f"s[{ID_ALPHABET}]{{{ID_LENGTH - 1}}}")

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS silences (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    command TEXT UNIQUE,
    rooms TEXT NOT NULL,
    matchers TEXT NOT NULL,
    starts REAL NOT NULL,
    ends REAL NOT NULL,
    reason TEXT NOT NULL,
    by TEXT NOT NULL,
    lifted REAL,
    lifted_by TEXT
)"""
_COLUMNS: Final = "id, rooms, matchers, starts, ends, reason, by, lifted, lifted_by, command"


def silence_id(seed: str, attempt: int = 0) -> str:
    """The id derived from `seed` (a command's event id); `attempt` > 0 after a collision."""
    digest = hashlib.sha256(f"{seed}\n{attempt}".encode("utf-8", "surrogatepass")).digest()
    n = int.from_bytes(digest[:8], "big")
    chars = []
    for _ in range(ID_LENGTH - 1):
        n, r = divmod(n, 32)
        chars.append(ID_ALPHABET[r])
    return "s" + "".join(chars)


def _silence(row: tuple[Any, ...]) -> Silence:
    return Silence(
        id=row[0],
        rooms=frozenset(json.loads(row[1])),
        matchers=tuple((str(k), str(v)) for k, v in json.loads(row[2])),
        starts=float(row[3]),
        ends=float(row[4]),
        reason=row[5],
        by=row[6],
        lifted=None if row[7] is None else float(row[7]),
        lifted_by=row[8],
    )


class SilenceStore:
    """The silences not yet pruned, durable in the store (the outbox's SQLite file, or
    PostgreSQL) and mirrored in memory."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path: str | Path = path if is_url(path) else Path(path)
        self.clock = clock
        # Committed before the room is told (SQLite's synchronous=FULL, or PostgreSQL's).
        self._db = connect(path)
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        with self._lock:
            if isinstance(self._db, SqliteDatabase):
                self._db.execute(_SCHEMA)
            else:
                require_current(self._db)
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM silences ORDER BY seq").fetchall()
        kept: list[Silence] = []
        self._commands: dict[str, str] = {}  # command event id -> silence id
        for row in rows:
            try:
                kept.append(_silence(row))
            except (ValueError, TypeError) as e:  # kept in the file, left out of the view
                log.error("a stored silence cannot be read", extra={"id": row[0], "error": str(e)})
                continue
            if row[9] is not None:
                self._commands[row[9]] = row[0]
        self._silences: tuple[Silence, ...] = _ordered(kept)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- reading (no query) ------------------------------------------------------

    def snapshot(self) -> tuple[Silence, ...]:
        """Every silence not yet pruned, lifted and ended ones too, in start order."""
        return self._silences

    def get(self, silence_id: str) -> Silence | None:
        for s in self._silences:
            if s.id == silence_id:
                return s
        return None

    def by_command(self, event_id: str) -> Silence | None:
        """The silence the command event `event_id` set, if it set one."""
        found = self._commands.get(event_id)
        return None if found is None else self.get(found)

    def next_change(self, now: float) -> float | None:
        """When the earliest active silence stops holding (None: none is active)."""
        ends = [s.until for s in self._silences if s.active(now)]
        return min(ends) if ends else None

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener` (from the writing thread) after each add and each lift."""
        self._listeners.append(listener)

    # -- writing -----------------------------------------------------------------

    def add(
        self,
        *,
        rooms: Collection[str],
        matchers: Iterable[tuple[str, str]],
        duration: float,
        reason: str = "",
        by: str = "",
        command: str | None = None,
    ) -> Silence:
        """A new silence from now for `duration` seconds; with `command` (the event id
        of the room message that set it), adding the same command again returns the
        silence it set."""
        if not rooms:
            raise ValueError("a silence needs at least one room")
        if not duration > 0:
            raise ValueError(f"a silence lasts a positive time, not {duration!r}")
        pairs = tuple(sorted((str(k), str(v)) for k, v in matchers))
        room_list = sorted(rooms)
        with self._lock:
            if command is not None and command in self._commands:
                found = self.get(self._commands[command])
                if found is not None:
                    return found
            starts = self.clock()
            taken = {s.id for s in self._silences}
            with self._db.transaction():
                seed = command
                if seed is None:
                    seed = f"#{self._db.last_seq('silences') + 1}@{starts!r}"
                attempt = 0
                while True:
                    sid = silence_id(seed, attempt)
                    clash = self._db.execute("SELECT 1 FROM silences WHERE id=?", (sid,))
                    if sid not in taken and clash.fetchone() is None:
                        break
                    attempt += 1
                silence = Silence(
                    id=sid,
                    rooms=frozenset(room_list),
                    matchers=pairs,
                    starts=starts,
                    ends=starts + duration,
                    reason=reason,
                    by=by,
                )
                self._db.execute(
                    "INSERT INTO silences (id, command, rooms, matchers, starts, ends, reason, "
                    "by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        sid,
                        command,
                        json.dumps(room_list),
                        json.dumps(pairs),
                        silence.starts,
                        silence.ends,
                        reason,
                        by,
                    ),
                )
            self._silences = _ordered((*self._silences, silence))
            if command is not None:
                self._commands[command] = sid
        self._tell()
        return silence

    def lift(self, silence_id: str, by: str) -> Silence | None:
        """End the silence now. Unchanged when it was lifted or ended already; None
        when there is no such silence."""
        with self._lock:
            found = self.get(silence_id)
            if found is None:
                return None
            now = self.clock()
            if found.lifted is not None or not found.active(now):
                return found
            self._db.execute(
                "UPDATE silences SET lifted=?, lifted_by=? WHERE id=? AND lifted IS NULL",
                (now, by, silence_id),
            )
            lifted = Silence(
                id=found.id,
                rooms=found.rooms,
                matchers=found.matchers,
                starts=found.starts,
                ends=found.ends,
                reason=found.reason,
                by=found.by,
                lifted=now,
                lifted_by=by,
            )
            self._silences = tuple(lifted if s.id == silence_id else s for s in self._silences)
        self._tell()
        return lifted

    def prune(self, before: float) -> int:
        """Forget the silences that stopped holding before `before`; how many."""
        with self._lock:
            gone = [s for s in self._silences if s.until < before]
            if not gone:
                return 0
            with self._db.transaction():
                self._db.executemany("DELETE FROM silences WHERE id=?", [(s.id,) for s in gone])
            ids = {s.id for s in gone}
            self._silences = tuple(s for s in self._silences if s.id not in ids)
            self._commands = {c: i for c, i in self._commands.items() if i not in ids}
        return len(gone)

    def _tell(self) -> None:
        for listener in list(self._listeners):
            listener()


def _ordered(silences: Iterable[Silence]) -> tuple[Silence, ...]:
    # sorted() is stable: silences with the same start keep the order they were added in
    return tuple(sorted(silences, key=lambda s: s.starts))
