"""The outbox: every notice the bot owes a room, durable in its store, and the loop that drains it.

The store is a SQLite file (the embedded default) or a PostgreSQL database
(`roombot.store`). `Outbox.enqueue(decision)` writes the notice and commits
(SQLite's synchronous=FULL, PostgreSQL's synchronous commit) before it returns,
so a caller may acknowledge its source afterwards. The key of the decision is
unique: enqueueing the same decision again (a replayed journal after a restart)
returns False and changes nothing.

Each notice gets a transaction id derived from its room and key, so it is the
same on every retry and after any restart: the homeserver answers a repeated
PUT with the same id from the same device with the first event, never a second
one. That is what makes "exactly once" hold through crashes on either side.

`Courier` drains the outbox through a `deliver` function (the Matrix shell):
one task per room, each sending its room's notices strictly in order; a room
that is rate limited, failing or parked never holds up another. The courier
owns the retry policy: M_LIMIT_EXCEEDED waits retry_after_ms, other failures
back off exponentially with jitter, a room the bot was removed from is parked
(its notices kept, a log line says so) until the bot is back in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import random
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from cards.kinds import Kind
from cards.shape import Attempt, Group, TurnError
from roombot.room import Card, GroupEdit, Place, React, Ref, RoomAction, Summary, Unreact
from roombot.silence_summary import summary_content
from roombot.store.db import Engine, PostgresDatabase, SqliteDatabase, connect, is_url
from roombot.store.migrations import require_current
from roombot.wakeup import wake

log = logging.getLogger("roombot.outbox")


class Action(StrEnum):
    POST = "post"  # a new card (a turn's own, or a group card), placed as `place` says
    RETRACT = "retract"  # an edit of the posted notice: the turn recovered after all
    ANSWER = "answer"  # the bot's answer to a command read from the room (roombot.roomcommands)
    GROUP_EDIT = "group_edit"  # an edit of a group card (roombot.room)
    REACT = "react"  # a reaction on a turn's trigger
    UNREACT = "unreact"  # the redaction of a reaction sent before
    SUMMARY = "summary"  # what a silence held back, when it ended (content built before)


class Lane(StrEnum):
    """A room's notices go out in order within a lane; the lanes are independent, so a
    reaction that waits or fails never delays a card."""

    CARDS = "cards"
    REACTIONS = "reactions"


LANE_OF: dict[Action, Lane] = {a: Lane.CARDS for a in Action} | {
    Action.REACT: Lane.REACTIONS,
    Action.UNREACT: Lane.REACTIONS,
}
# Rows whose `error` column holds a whole event content built before, not a card.
_BUILT = frozenset({Action.ANSWER, Action.SUMMARY, Action.REACT, Action.UNREACT})


class State(StrEnum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"  # refused for good (e.g. content the server will never take); logged


class DecisionLike(Protocol):
    """What the turn rules hand over: `Post` or `Retract` (by class name, or an `action`)."""

    @property
    def room(self) -> str: ...
    @property
    def turn(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def error(self) -> TurnError: ...


def action_of(decision: object) -> Action:
    """Post or retract: an explicit `action` attribute wins, else the class name."""
    explicit = getattr(decision, "action", None)
    name = str(explicit if explicit is not None else type(decision).__name__).lower()
    try:
        return Action(name)
    except ValueError:
        raise ValueError(f"not a post or retract decision: {decision!r}") from None


def txn_id_for(room: str, key: str) -> str:
    """The transaction id of a notice: the same for the same notice, always."""
    digest = hashlib.sha256(f"{room}\x00{key}".encode()).hexdigest()[:32]
    return f"rb{digest}"


def file_txn_id_for(room: str, key: str) -> str:
    """The transaction id of a post's second step, the whole text as a file: its own,
    and as fixed as the card's (a decision key holds no NUL, so none is another's)."""
    return txn_id_for(room, f"{key}\x00file")


# -- the error shape in storage (lossless, unlike the card, which is the wire form) --


def error_to_json(err: TurnError) -> str:
    return json.dumps(dataclasses.asdict(err), ensure_ascii=False, sort_keys=True)


def error_from_json(text: str) -> TurnError:
    data: dict[str, Any] = json.loads(text)
    data["kind"] = Kind(data["kind"])
    data["attempts"] = tuple(
        Attempt(**{**a, "kind": Kind(a["kind"])}) for a in data.get("attempts") or ()
    )
    if data.get("group") is not None:
        data["group"] = Group.from_dict(data["group"])
    known = {f.name for f in dataclasses.fields(TurnError)}
    return TurnError(**{k: v for k, v in data.items() if k in known})


def edit_rank(error: TurnError) -> tuple[int, int, int]:
    """How far along a group card's edit is: later states rank higher (a group only
    grows, and its recovery is its last word)."""
    g = error.group
    if g is None:
        return (0, 0, 0)
    return (int(g.recovered_at is not None), g.count, g.retracted)


def _ref_json(ref: Ref | None) -> dict[str, str] | None:
    if ref is None:
        return None
    return {"event": ref.event} if ref.event is not None else {"notice": ref.notice or ""}


def _place_json(place: Place) -> dict[str, Any] | None:
    if place.thread is None and place.reply is None:
        return None
    out = {"thread": _ref_json(place.thread), "reply": _ref_json(place.reply)}
    return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True, slots=True)
class Notice:
    """One row of the outbox."""

    seq: int  # global order of enqueueing; a room's notices go out in this order
    key: str
    room: str
    turn: str  # a post or retract's turn; an answer's command event id
    action: Action
    error: TurnError | None  # a post or retract's card; None for an answer
    txn_id: str
    state: State
    tries: int = 0
    next_try: float = 0.0
    event_id: str | None = None
    # Set once the full message was uploaded (too large for one event): kept so a
    # retry sends the same content instead of uploading again.
    attachment: dict[str, Any] | None = None
    last_error: str | None = None
    enqueued_at: float = 0.0  # wall clock of the decision (when the outbox took it)
    answer: dict[str, Any] | None = None  # an answer's whole event content, built before
    # The whole text's m.file event, a reply to the card: a post whose card was sent with
    # an attachment stays pending (event_id set) until this is sent too.
    file_event_id: str | None = None
    # Where a post goes ({"thread": ref, "reply": ref, "why": ...}, a ref being {"event": id}
    # or {"notice": key}), what a group edit replaces ({"target": key}), what a reaction
    # waits for ({"after": key}) or takes back ({"reaction": key}). None: as before.
    place: dict[str, Any] | None = None

    @property
    def lane(self) -> Lane:
        return LANE_OF[self.action]

    @property
    def owes_file(self) -> bool:
        """The card is in the room; the whole text's file event is the step left."""
        return self.action is Action.POST and self.state is State.PENDING and bool(self.event_id)

    @property
    def file_txn_id(self) -> str:
        return file_txn_id_for(self.room, self.key)


_NOTICES = """
CREATE TABLE IF NOT EXISTS notices (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL UNIQUE,
    room TEXT NOT NULL,
    turn TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN (ACTIONS)),
    error TEXT NOT NULL,
    txn_id TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    tries INTEGER NOT NULL DEFAULT 0,
    next_try REAL NOT NULL DEFAULT 0,
    event_id TEXT,
    attachment TEXT,
    last_error TEXT,
    enqueued_at REAL NOT NULL,
    sent_at REAL,
    file_event_id TEXT,
    place TEXT,
    lane TEXT NOT NULL DEFAULT 'cards'
)""".replace("ACTIONS", ", ".join(f"'{a}'" for a in Action))
_SCHEMA = (
    _NOTICES
    + """;
CREATE INDEX IF NOT EXISTS notices_pending ON notices (state, room, seq);
CREATE INDEX IF NOT EXISTS notices_lane ON notices (state, room, lane, seq);
-- Commands read from rooms, by event id: one event is acted on at most once, across
-- restarts (docs/room-commands.md). answered: its last answer is in notices.
CREATE TABLE IF NOT EXISTS commands (
    event_id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    claimed_at REAL NOT NULL,
    answered INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS parked (
    room TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    since REAL NOT NULL
);
"""
)

# The columns every outbox file has had (what a migration copies)...
_COPIED = (
    "seq, key, room, turn, action, error, txn_id, state, tries, next_try, event_id, "
    "attachment, last_error, enqueued_at"
)
# ...and those a row is read with.
_COLUMNS = _COPIED + ", file_event_id, place"


def _row(r: tuple[Any, ...]) -> Notice:
    action = Action(r[4])
    answer = action in _BUILT
    return Notice(
        seq=r[0],
        key=r[1],
        room=r[2],
        turn=r[3],
        action=action,
        error=None if answer else error_from_json(r[5]),
        answer=json.loads(r[5]) if answer else None,
        txn_id=r[6],
        state=State(r[7]),
        tries=r[8],
        next_try=r[9],
        event_id=r[10],
        attachment=json.loads(r[11]) if r[11] else None,
        last_error=r[12],
        enqueued_at=r[13],
        file_event_id=r[14],
        place=json.loads(r[15]) if r[15] else None,
    )


class Outbox:
    """The durable queue. Safe to use from several threads and several processes."""

    def __init__(self, path: str | Path) -> None:
        """Open the outbox at `path`: a SQLite file, or a PostgreSQL URL (migrated before)."""
        self.path: str | Path = path if is_url(path) else Path(path)
        self._db = connect(path)
        self._lock = threading.Lock()
        with self._lock:
            if isinstance(self._db, SqliteDatabase):
                self._migrate(self._db)
                self._db.raw.executescript(_SCHEMA)
            else:
                assert isinstance(self._db, PostgresDatabase)
                require_current(self._db)
        self._listeners: list[Callable[[], None]] = []

    @property
    def engine(self) -> Engine:
        return self._db.engine

    @staticmethod
    def _migrate(db: SqliteDatabase) -> None:
        """An outbox written before answers existed: its CHECK knows only post and
        retract, and SQLite cannot change a CHECK, so the table is copied once."""
        with db.transaction():
            row = db.execute(
                "SELECT sql FROM sqlite_master WHERE type='table' AND name='notices'"
            ).fetchone()
            if row is not None and any(f"'{a}'" not in row[0] for a in Action):
                columns = {c[1] for c in db.execute("PRAGMA table_info(notices)").fetchall()}
                copied = _COPIED + (", file_event_id" if "file_event_id" in columns else "")
                db.execute("ALTER TABLE notices RENAME TO notices_before")
                db.execute("DROP INDEX IF EXISTS notices_pending")
                db.execute("DROP INDEX IF EXISTS notices_lane")
                db.execute(_NOTICES)
                # Rows already sent stay sent: no file is posted after the fact.
                db.execute(
                    f"INSERT INTO notices ({copied}, sent_at) "
                    f"SELECT {copied}, sent_at FROM notices_before"
                )
                db.execute("DROP TABLE notices_before")
                log.info("outbox migrated: the room stage's actions can be stored")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- writing -------------------------------------------------------------------

    def enqueue(self, decision: DecisionLike | RoomAction) -> bool:
        """Store a room action (or a bare Post/Retract decision: a card in the timeline);
        False if its key is already stored."""
        match decision:
            case Card(room, key, turn, error, place):
                where = _place_json(place)
                return self.add(
                    key=key, room=room, turn=turn, action=Action.POST, error=error, place=where
                )
            case GroupEdit(room, key, turn, target, error):
                return self.add(
                    key=key,
                    room=room,
                    turn=turn,
                    action=Action.GROUP_EDIT,
                    error=error,
                    place={"target": target, "rank": list(edit_rank(error))},
                )
            case React(room, key, turn, target, emoji, after):
                relation = {"rel_type": "m.annotation", "event_id": target, "key": emoji}
                content = {"m.relates_to": relation}
                return self.add(
                    key=key,
                    room=room,
                    turn=turn,
                    action=Action.REACT,
                    content=content,
                    place={"after": after} if after else None,
                )
            case Unreact(room, key, turn, reaction):
                return self.add(
                    key=key,
                    room=room,
                    turn=turn,
                    action=Action.UNREACT,
                    content={},
                    place={"reaction": reaction},
                )
            case Summary():
                return self.add(
                    key=decision.key,
                    room=decision.room,
                    turn=decision.turn,
                    action=Action.SUMMARY,
                    content=summary_content(decision),
                )
        return self.add(
            key=decision.key,
            room=decision.room,
            turn=decision.turn,
            action=action_of(decision),
            error=decision.error,
        )

    def add(
        self,
        *,
        key: str,
        room: str,
        turn: str,
        action: Action,
        error: TurnError | None = None,
        content: dict[str, Any] | None = None,
        place: dict[str, Any] | None = None,
    ) -> bool:
        """Store one notice: a card (`error`) or a content built before (`content`)."""
        body = error_to_json(error) if error is not None else json.dumps(content or {})
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO notices (key, room, turn, action, error, txn_id, "
                "enqueued_at, place, lane) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (
                    key,
                    room,
                    turn,
                    str(action),
                    body,
                    txn_id_for(room, key),
                    time.time(),
                    json.dumps(place, ensure_ascii=False) if place else None,
                    str(LANE_OF[action]),
                ),
            )
            added = cur.rowcount == 1
        if added:
            for listener in list(self._listeners):
                listener()
        return added

    def add_answer(self, *, key: str, room: str, command: str, content: dict[str, Any]) -> bool:
        """Store an answer to the command event `command`; False if `key` is stored already.

        The command is marked answered in the same transaction: a crash never leaves
        an answer without its mark, nor a mark without its answer.
        """
        with self._lock:
            with self._db.transaction():
                cur = self._db.execute(
                    "INSERT INTO notices (key, room, turn, action, error, txn_id, "
                    "enqueued_at) VALUES (?, ?, ?, 'answer', ?, ?, ?) ON CONFLICT DO NOTHING",
                    (
                        key,
                        room,
                        command,
                        json.dumps(content, ensure_ascii=False),
                        txn_id_for(room, key),
                        time.time(),
                    ),
                )
                self._db.execute("UPDATE commands SET answered=1 WHERE event_id=?", (command,))
            added = cur.rowcount == 1
        if added:
            for listener in list(self._listeners):
                listener()
        return added

    def claim_command(self, event_id: str, room: str) -> bool:
        """True the first time `event_id` is claimed, ever (until pruned): act on it then."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO commands (event_id, room, claimed_at) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (event_id, room, time.time()),
            )
            return cur.rowcount == 1

    def unanswered_commands(self) -> list[tuple[str, str]]:
        """(event id, room) of commands claimed but never answered: the bot stopped
        between the two (a node's answer was still awaited)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT event_id, room FROM commands WHERE answered=0 ORDER BY claimed_at"
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def commands_since(self, now: float) -> float:
        """When this outbox first read commands (set to `now` the first time): commands
        sent before that are never acted on."""
        with self._lock:
            self._db.execute(
                "INSERT INTO meta (name, value) VALUES ('commands_since', ?) "
                "ON CONFLICT DO NOTHING",
                (repr(now),),
            )
            row = self._db.execute("SELECT value FROM meta WHERE name='commands_since'").fetchone()
        return float(row[0])

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener` (from the enqueueing thread) after each new notice."""
        self._listeners.append(listener)

    def mark_sent(self, seq: int, event_id: str) -> bool:
        """The notice's event is in the room. True when the row is settled; False when it
        is a post with an attachment, whose file event is owed next (the row stays the
        head of its room, so the file follows its card before any other notice)."""
        with self._lock:
            self._db.execute(
                "UPDATE notices SET event_id=?, sent_at=?, last_error=NULL, "
                "state = CASE WHEN action='post' AND attachment IS NOT NULL "
                "THEN 'pending' ELSE 'sent' END WHERE seq=?",
                (event_id, time.time(), seq),
            )
            r = self._db.execute("SELECT state FROM notices WHERE seq=?", (seq,)).fetchone()
        return r is None or r[0] != "pending"

    def mark_file_sent(self, seq: int, event_id: str) -> None:
        """The whole text's file event is in the room too: the post is settled."""
        self._exec(
            "UPDATE notices SET state='sent', file_event_id=?, last_error=NULL WHERE seq=?",
            (event_id, seq),
        )

    def mark_file_refused(self, seq: int, reason: str) -> None:
        """The file event will never be accepted; the card is in the room, so the post
        counts as sent (a retract still finds it), with the reason kept."""
        self._exec(
            "UPDATE notices SET state='sent', last_error=? WHERE seq=?",
            (f"file event refused: {reason}", seq),
        )

    def mark_failed(self, seq: int, reason: str) -> None:
        self._exec("UPDATE notices SET state='failed', last_error=? WHERE seq=?", (reason, seq))

    def defer(self, seq: int, until: float, reason: str) -> None:
        """Count a failed try and hold the notice until `until` (wall clock)."""
        self._exec(
            "UPDATE notices SET tries=tries+1, next_try=?, last_error=? WHERE seq=?",
            (until, reason, seq),
        )

    def hold(self, seq: int, until: float, reason: str) -> None:
        """Hold the notice until `until` without counting a try (it waits for another)."""
        self._exec("UPDATE notices SET next_try=?, last_error=? WHERE seq=?", (until, reason, seq))

    def mark_skipped(self, seq: int, reason: str) -> None:
        """Nothing to send after all (a reaction to take back was never sent): settled."""
        self._exec(
            "UPDATE notices SET state='sent', sent_at=?, last_error=? WHERE seq=?",
            (time.time(), reason, seq),
        )

    def set_attachment(self, seq: int, attachment: dict[str, Any]) -> None:
        self._exec("UPDATE notices SET attachment=? WHERE seq=?", (json.dumps(attachment), seq))

    def park(self, room: str, reason: str) -> bool:
        """Hold every notice of `room` (kept, not sent) until `unpark`. True if newly parked."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO parked (room, reason, since) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (room, reason, time.time()),
            )
            return cur.rowcount == 1

    def unpark(self, room: str) -> bool:
        with self._lock:
            cur = self._db.execute("DELETE FROM parked WHERE room=?", (room,))
            changed = cur.rowcount == 1
        if changed:
            for listener in list(self._listeners):
                listener()
        return changed

    def prune(self, before: float) -> int:
        """Forget sent and refused notices settled before `before` (wall clock).

        Keep them longer than the pipeline's journal horizon: a decision replayed from the
        journal must still find its key here, or it would be sent again.
        """
        with self._lock:
            cur = self._db.execute(
                "DELETE FROM notices WHERE state != 'pending' "
                "AND COALESCE(sent_at, enqueued_at) < ?",
                (before,),
            )
            # Commands are far older than their horizon by then (roomcommands.MAX_AGE_MS).
            self._db.execute("DELETE FROM commands WHERE answered=1 AND claimed_at < ?", (before,))
            return cur.rowcount

    def _exec(self, sql: str, params: tuple[Any, ...]) -> None:
        with self._lock:
            self._db.execute(sql, params)

    # -- reading -------------------------------------------------------------------

    def head(self, room: str, lane: Lane = Lane.CARDS) -> Notice | None:
        """The oldest pending notice of `room` in `lane`: the only one that may go next."""
        with self._lock:
            r = self._db.execute(
                f"SELECT {_COLUMNS} FROM notices WHERE state='pending' AND room=? AND lane=? "
                "ORDER BY seq LIMIT 1",
                (room, str(lane)),
            ).fetchone()
        return _row(r) if r else None

    def rooms_with_work(self) -> list[str]:
        """Rooms with pending notices that are not parked."""
        return sorted({room for room, _lane in self.lanes_with_work()})

    def lanes_with_work(self) -> list[tuple[str, Lane]]:
        """(room, lane) with pending notices, rooms parked left out."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT room, lane FROM notices WHERE state='pending' "
                "AND room NOT IN (SELECT room FROM parked)"
            ).fetchall()
        return [(r[0], Lane(r[1])) for r in rows]

    def parked(self) -> dict[str, str]:
        with self._lock:
            rows = self._db.execute("SELECT room, reason FROM parked").fetchall()
        return {r[0]: r[1] for r in rows}

    def is_parked(self, room: str) -> bool:
        with self._lock:
            return (
                self._db.execute("SELECT 1 FROM parked WHERE room=?", (room,)).fetchone()
                is not None
            )

    def posted_event(self, room: str, turn: str) -> str | None:
        """The event id of the turn's sent post in `room` (what a retract edits)."""
        with self._lock:
            r = self._db.execute(
                "SELECT event_id FROM notices WHERE room=? AND turn=? AND action='post' "
                "AND event_id IS NOT NULL ORDER BY seq LIMIT 1",
                (room, turn),
            ).fetchone()
        return r[0] if r else None

    def get_post(self, room: str, turn: str) -> Notice | None:
        with self._lock:
            r = self._db.execute(
                f"SELECT {_COLUMNS} FROM notices WHERE room=? AND turn=? AND action='post' "
                "ORDER BY seq LIMIT 1",
                (room, turn),
            ).fetchone()
        return _row(r) if r else None

    def fresher_edit_sent(self, target: str, rank: tuple[int, ...]) -> bool:
        """Whether an edit of group card `target` ranking above `rank` is in the room:
        an older state that comes after it (a replay) is then not sent at all."""
        with self._lock:
            rows = self._db.execute(
                "SELECT place FROM notices WHERE action='group_edit' AND state='sent' "
                f"AND {self._db.json_text('place', 'target')} = ?",
                (target,),
            ).fetchall()
        return any(tuple(json.loads(r[0]).get("rank", ())) > rank for r in rows)

    def get(self, key: str) -> Notice | None:
        with self._lock:
            r = self._db.execute(f"SELECT {_COLUMNS} FROM notices WHERE key=?", (key,)).fetchone()
        return _row(r) if r else None

    def counts(self) -> dict[str, int]:
        """Notices by state, plus `parked` (pending notices held in parked rooms)."""
        with self._lock:
            rows = self._db.execute("SELECT state, COUNT(*) FROM notices GROUP BY state").fetchall()
            held = self._db.execute(
                "SELECT COUNT(*) FROM notices WHERE state='pending' "
                "AND room IN (SELECT room FROM parked)"
            ).fetchone()[0]
        out = {s.value: 0 for s in State}
        out.update({r[0]: r[1] for r in rows})
        out["parked"] = held
        return out

    def owed_by_room(self) -> dict[str, tuple[int, float]]:
        """Rooms with notices owed: how many, and when the oldest was enqueued.

        Pending rows only (the notices_pending index): cheap however many sent rows are kept.
        """
        with self._lock:
            rows = self._db.execute(
                "SELECT room, COUNT(*), MIN(enqueued_at) FROM notices WHERE state='pending' "
                "GROUP BY room"
            ).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def depth(self) -> int:
        """Notices still owed (pending, parked rooms included)."""
        return self.counts()[State.PENDING]


# -- delivery ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sent:
    event_id: str


@dataclass(frozen=True, slots=True)
class RateLimited:
    retry_after: float  # seconds


@dataclass(frozen=True, slots=True)
class Transient:
    reason: str
    encryption: bool = False  # an encryption failure (counted apart)


@dataclass(frozen=True, slots=True)
class Gone:
    """The bot cannot post in the room (removed, banned, never joined): park it."""

    reason: str


@dataclass(frozen=True, slots=True)
class Rejected:
    """This notice will never be accepted as it is: record it and move on."""

    reason: str


@dataclass(frozen=True, slots=True)
class Waiting:
    """Not yet: the notice waits for another (a reaction for its card); no try counted."""

    reason: str
    seconds: float = 1.0


@dataclass(frozen=True, slots=True)
class Skipped:
    """Nothing to send (what it would take back was never sent): settled as it is."""

    reason: str


Outcome = Sent | RateLimited | Transient | Gone | Rejected | Waiting | Skipped
Deliver = Callable[[Notice], Awaitable[Outcome]]


def backoff_delay(
    tries: int, initial: float, maximum: float, rng: random.Random | None = None
) -> float:
    """Exponential backoff with jitter: half fixed, half random, capped at `maximum`."""
    rng = rng or random.Random()
    ceiling: float = min(maximum, initial * 2.0 ** max(0, tries - 1))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


class CourierStats:
    """Counters the courier keeps; read by /metrics."""

    def __init__(self) -> None:
        self.sent = 0
        self.retries = 0
        self.rate_limit_waits = 0
        self.rate_limit_seconds = 0.0
        self.encryption_failures = 0
        self.rejected = 0
        self.parks = 0


class Courier:
    """Drains an Outbox through `deliver`: per room in order, rooms independent."""

    def __init__(
        self,
        outbox: Outbox,
        deliver: Deliver,
        *,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        poll_interval: float = 1.0,
        grace: float = 10.0,
        keep_settled: float = 7 * 86400.0,
        rng: random.Random | None = None,
        on_sent: Callable[[float], None] | None = None,
        may_send: Callable[[], bool] | None = None,
    ) -> None:
        self.outbox = outbox
        self.deliver = deliver
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.poll_interval = poll_interval
        self.grace = grace  # how long a send in flight may finish after stop
        self.keep_settled = keep_settled  # seconds sent/refused rows are kept
        # Told, for each notice sent, the seconds from its decision to the homeserver's answer.
        self.on_sent = on_sent
        # Asked before each send (the store's lease, roombot.store.lease); None: always.
        self.may_send = may_send
        self._last_prune = 0.0
        self.rng = rng or random.Random()
        self.stats = CourierStats()
        self._tasks: dict[tuple[str, Lane], asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._down = False  # the store failed a read: logged once until it answers again
        outbox.subscribe(self._poke)

    def _poke(self) -> None:
        wake(self._loop, self._wake)

    def wake(self) -> None:
        """Look for work now (a room was joined, a sync finished...)."""
        self._poke()

    async def run(self) -> None:
        """Until `stop()`: start a task for every room with work, then wait for more."""
        self._loop = asyncio.get_running_loop()
        try:
            while not self._stopping.is_set():
                self._wake.clear()
                try:
                    self._start_drains()
                except Exception:  # the store is down (PostgreSQL restarting): wait, retry
                    self._store_down("the outbox cannot be read")
                else:
                    self._store_up()
                # Poll too: another process (a tool, a second writer) may add rows.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll_interval)
        finally:
            await self._finish()

    def _start_drains(self) -> None:
        if time.time() - self._last_prune > 3600:
            self._last_prune = time.time()
            pruned = self.outbox.prune(self._last_prune - self.keep_settled)
            if pruned:
                log.info("outbox pruned", extra={"rows": pruned})
        for room, lane in self.outbox.lanes_with_work():
            task = self._tasks.get((room, lane))
            if task is None or task.done():
                self._tasks[(room, lane)] = asyncio.create_task(
                    self._drain(room, lane), name=f"outbox:{room}:{lane}"
                )

    def _store_down(self, what: str) -> None:
        """Logged once per outage, with the error; the rows stay as they are."""
        if not self._down:
            self._down = True
            log.exception(f"{what}; notices wait, nothing is dropped")

    def _store_up(self) -> None:
        if self._down:
            self._down = False
            log.info("outbox readable again; delivery resumes")

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    async def _finish(self) -> None:
        tasks = [t for t in self._tasks.values() if not t.done()]
        if tasks:
            # Let a send in flight finish; whatever is left stays pending on disk.
            _done, pending = await asyncio.wait(tasks, timeout=self.grace)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        self._tasks.clear()

    async def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), seconds)

    async def _drain(self, room: str, lane: Lane = Lane.CARDS) -> None:
        while not self._stopping.is_set():
            try:
                if self.outbox.is_parked(room):
                    return
                notice = self.outbox.head(room, lane)
            except Exception:  # the store is down: the run loop starts this room again
                self._store_down("the outbox cannot be read")
                return
            if notice is None:
                return
            wait = notice.next_try - time.time()
            if wait > 0:
                await self._sleep(wait)
                continue
            if self.may_send is not None and not self.may_send():
                # The store's lease is not certainly ours (renewals failing): hold.
                await self._sleep(min(self.poll_interval, 1.0))
                continue
            try:
                outcome = await self.deliver(notice)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a bug or an unexpected library error: retry, loudly
                log.exception("delivery raised", extra={"room": room, "key": notice.key})
                outcome = Transient(f"{type(e).__name__}: {e}")
            try:
                self._settle(notice, outcome)
            except Exception:
                # Sent but not marked (the store went down meanwhile): the row is still
                # pending, and its next send reuses the transaction id, which the
                # homeserver answers with the event it already has.
                self._store_down("a delivered notice could not be marked")
                await self._sleep(self.poll_interval)

    def _settle(self, notice: Notice, outcome: Outcome) -> None:
        fields: dict[str, Any] = {"room": notice.room, "key": notice.key, "txn_id": notice.txn_id}
        if notice.owes_file:
            fields["txn_id"] = notice.file_txn_id
        match outcome:
            case Sent(event_id) if notice.owes_file:
                self.outbox.mark_file_sent(notice.seq, event_id)
                log.info(
                    "whole text sent as a file",
                    extra={**fields, "event_id": event_id, "reply_to": notice.event_id},
                )
            case Rejected(reason) if notice.owes_file:
                self.stats.rejected += 1
                self.outbox.mark_file_refused(notice.seq, reason)
                log.error(
                    "file event refused for good, skipped", extra={**fields, "reason": reason}
                )
            case Sent(event_id):
                settled = self.outbox.mark_sent(notice.seq, event_id)
                if not settled:
                    fields["file_owed"] = True
                self.stats.sent += 1
                if self.on_sent is not None:
                    # Wall clock on both ends: the decision may be from before a restart.
                    self.on_sent(max(0.0, time.time() - notice.enqueued_at))
                log.info(
                    "notice sent",
                    extra={**fields, "event_id": event_id, "tries": notice.tries + 1},
                )
            case Waiting(reason, seconds):
                self.outbox.hold(notice.seq, time.time() + seconds, reason)
            case Skipped(reason):
                self.outbox.mark_skipped(notice.seq, reason)
                log.info("notice skipped", extra={**fields, "reason": reason})
            case RateLimited(retry_after):
                self.stats.rate_limit_waits += 1
                self.stats.rate_limit_seconds += retry_after
                self.stats.retries += 1
                self.outbox.defer(notice.seq, time.time() + retry_after, "M_LIMIT_EXCEEDED")
                log.warning("rate limited", extra={**fields, "retry_after_s": retry_after})
            case Transient(reason, encryption):
                self.stats.retries += 1
                if encryption:
                    self.stats.encryption_failures += 1
                delay = backoff_delay(
                    notice.tries + 1, self.backoff_initial, self.backoff_max, self.rng
                )
                self.outbox.defer(notice.seq, time.time() + delay, reason)
                log.warning(
                    "send failed, will retry",
                    extra={**fields, "reason": reason, "retry_in_s": round(delay, 3)},
                )
            case Gone(reason):
                if self.outbox.park(notice.room, reason):
                    self.stats.parks += 1
                    log.error(
                        "room parked: the bot cannot post there; its notices are kept "
                        "and go out when the bot is back in the room",
                        extra={**fields, "reason": reason, "held": self.outbox.counts()["parked"]},
                    )
            case Rejected(reason):
                self.stats.rejected += 1
                self.outbox.mark_failed(notice.seq, reason)
                log.error("notice refused for good, skipped", extra={**fields, "reason": reason})
