"""The pipeline: a durable journal of events in front of the turn rules, and their clock.

Sources (the report API, the ACP bridge) call `accept(events)`. The events are written
to the journal (a SQLite file with synchronous=FULL, or PostgreSQL: roombot.store) and
committed before `accept` returns, so an acknowledgement means the event survives a
kill or a power cut. `event_id` is kept in
the same transaction: an event seen before is answered `duplicate` and not taken again.

One task, the engine, does everything else in order: it commits groups of accepted
events (many concurrent posts share one commit), feeds them to the turn machine, calls
`machine.tick` at `machine.next_deadline()`, and hands every decision to the outbox.

The room stage (roombot.room) sits between the rules and the outbox: every decision,
every turn.started, every turn the rules close without a card and every tick passes
through it, with the silences of `silences()`, and the outbox gets its actions. It
is deterministic like the rules and rebuilt by the same replay.

Redaction: every event's provider and harness text passes the `Redactor` in `accept`,
before anything is written, so no credential reaches the journal, the rules, the card
or the outbox (roombot.redact).

Restart: the machine is deterministic, so a new Pipeline on the same file rebuilds it
by replaying the journal: every event fed at the `now` it was fed with first, every
tick at the `now` it ran at (ticks are journalled too, so the replay repeats the very
same calls). Decisions the replay re-derives are enqueued again; the outbox ignores
keys it already holds, so nothing is posted twice.

Nodes: heartbeats (`heartbeat`) go to a `roombot.nodes.NodeTracker`, which the engine
ticks at its own deadline; the `node.offline` events it makes pass the same gate as a
source's (redactor, journal, event ids) before the rules see them. The tracker's state
is the `nodes` table beside the journal, written with the next commit: a node
taken for offline is marked so in the very transaction that journals its node.offline,
so a restart can neither lose nor repeat it. A heartbeat is not journalled; its row is
rewritten when something changes and at least every NODE_WRITE_EVERY seconds (the
restart rule counts silence from the start anyway, so a lost last_seen costs nothing).

Bound: rows of a turn that was decided longer ago than the rules' horizon
(`TurnRules.dedup_horizon`, after which the machine forgets the turn too) are dropped,
and event ids are remembered for as long.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cards.shape import TurnError
from roombot.events import (
    Event,
    HarnessExited,
    NodeOffline,
    TurnStarted,
    event_to_json,
    parse_event,
)
from roombot.nodes import (
    DEFAULT_HEARTBEAT_INTERVAL,
    DEFAULT_OFFLINE_AFTER,
    NodeInfo,
    NodeState,
    NodeTracker,
    info_from_json,
    info_to_json,
)
from roombot.redact import Redactor
from roombot.room import Opened, RoomAction, RoomStage
from roombot.silences import Silence
from roombot.store.db import PostgresDatabase, SqliteDatabase, connect, is_url
from roombot.store.migrations import require_current
from roombot.turns import CLOSED, TurnMachine, TurnState, TurnView
from roombot.wakeup import wake

log = logging.getLogger("roombot.pipeline")


class Unavailable(RuntimeError):
    """The pipeline cannot take events now (not running, or the journal write failed);
    nothing of the call was taken, so the source may retry."""


class OutboxLike(Protocol):
    def enqueue(self, decision: Any) -> bool: ...


@dataclass(frozen=True, slots=True)
class Ack:
    """The answer for one accepted event."""

    event_id: str | None
    turn: str | None
    duplicate: bool


@dataclass(frozen=True, slots=True)
class TurnStatus:
    """What the pipeline can say about a turn: its room, open or decided, the card if any."""

    turn: str
    room: str | None
    state: str  # "open" or "decided"
    notice: str | None  # "post" or "retract": the last decision about the turn, if any
    error: TurnError | None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'tick')),
    now REAL NOT NULL,  -- the clock the machine was given
    turn TEXT,          -- NULL for ticks and for harness.exited / node.offline
    body TEXT           -- the event as JSON; NULL for ticks
);
CREATE INDEX IF NOT EXISTS journal_turn ON journal (turn);
CREATE TABLE IF NOT EXISTS seen (
    event_id TEXT PRIMARY KEY,
    now REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS seen_now ON seen (now);
CREATE TABLE IF NOT EXISTS nodes (
    node TEXT PRIMARY KEY,
    source TEXT NOT NULL,   -- the source whose token sent its heartbeats
    rooms TEXT,             -- that source's rooms as a JSON array; NULL: every room
    info TEXT NOT NULL,     -- the last heartbeat's NodeInfo as JSON
    last_seen REAL NOT NULL,
    online INTEGER NOT NULL,
    since REAL NOT NULL
);
"""

# A node's row is rewritten at least this often while its heartbeats only move last_seen.
NODE_WRITE_EVERY = 60.0


def _node_row(s: NodeState) -> tuple[str, str, str | None, str, float, int, float]:
    info = json.dumps(info_to_json(s.info), ensure_ascii=False)
    rooms = None if s.rooms is None else json.dumps(sorted(s.rooms), ensure_ascii=False)
    return (s.node, s.source, rooms, info, s.last_seen, int(s.online), s.since)


# Ids per statement: far below SQLite's 32766 parameters and PostgreSQL's 65535.
_IDS_PER_INSERT = 400


def _new_event_ids(
    db: SqliteDatabase | PostgresDatabase, ids: Sequence[str | None], now: float
) -> set[str]:
    """Remember `ids` as seen; the ones not seen before (RETURNING gives only the rows
    inserted: SQLite 3.35 and every supported PostgreSQL)."""
    wanted = [i for i in ids if i is not None]
    new: set[str] = set()
    for at in range(0, len(wanted), _IDS_PER_INSERT):
        chunk = wanted[at : at + _IDS_PER_INSERT]
        values = ", ".join(["(?, ?)"] * len(chunk))
        params = [p for i in chunk for p in (i, now)]
        found = db.execute(
            f"INSERT INTO seen (event_id, now) VALUES {values} "
            "ON CONFLICT DO NOTHING RETURNING event_id",
            params,
        ).fetchall()
        new.update(r[0] for r in found)
    return new


def _turn_of(event: Event) -> str | None:
    """The turn a journal row belongs to (harness.exited and node.offline belong to none)."""
    return None if isinstance(event, HarnessExited | NodeOffline) else event.turn


def _opened(event: TurnStarted) -> Opened:
    return Opened(
        turn=event.turn,
        room=event.room,
        harness=event.harness,
        provider=event.provider,
        model=event.model,
        node=event.node,
        trigger=event.trigger,
        thread=event.thread,
    )


def _earliest(*due: float | None) -> float | None:
    known = [d for d in due if d is not None]
    return min(known) if known else None


def _is_decided(view: TurnView | None) -> bool:
    """Whether the machine says the turn is over (None: it no longer remembers the turn)."""
    return view is None or view.state in CLOSED


@dataclass(slots=True)
class _Pending:
    events: Sequence[Event]
    future: asyncio.Future[list[Ack]]


class Pipeline:
    def __init__(
        self,
        journal_path: str | Path,
        machine: TurnMachine,
        outbox: OutboxLike,
        *,
        clock: Callable[[], float] = time.time,
        max_group: int = 512,
        prune_every: float = 60.0,
        redactor: Redactor | None = None,
        offline_after: float = DEFAULT_OFFLINE_AFTER,
        heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL,
        room: RoomStage | None = None,
        silences: Callable[[], Sequence[Silence]] = tuple,
        prune_silences: Callable[[float], object] | None = None,
    ) -> None:
        # A SQLite file, or the PostgreSQL URL that the whole deployment shares.
        self.path: str | Path = journal_path if is_url(journal_path) else Path(journal_path)
        # The room stage after the rules (roombot.room): rebuilt by the same replay, so
        # it answers the replayed decisions with the same actions (same keys).
        self.room = room if room is not None else RoomStage()
        self.silences = silences
        # Silences are forgotten twice the horizon after they end: by then their summary
        # is sent and no journal row that the replay reads is as old.
        self.prune_silences = prune_silences
        self.redactor = Redactor() if redactor is None else redactor
        self.machine = machine
        self.outbox = outbox
        # The machine remembers a decided turn (and every event id) this long; after it,
        # neither the journal rows nor the ids can change a decision any more.
        self.horizon = machine.config.dedup_horizon
        self.clock = clock
        self.max_group = max_group
        self.prune_every = prune_every
        # One thread owns the connection: commits never block the event loop.
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        self._db: SqliteDatabase | PostgresDatabase | None = None
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._engine: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._ticks: list[float] = []  # ticks not yet journalled (written with the next commit)
        self._last_prune = 0.0
        self._hold_ticks_until = -math.inf
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        # What the API needs to know without asking SQLite: bounded by the pruning.
        # turn -> (room, event_id) of its first turn.started
        self._room: dict[str, tuple[str, str | None]] = {}
        self._open: set[str] = set()  # turns fed and not yet decided
        self._decided_at: dict[str, float] = {}
        self._last: dict[str, tuple[str, TurnError]] = {}  # turn -> last decision
        self.counts = {
            "accepted": 0,
            "duplicates": 0,
            "decisions": 0,
            "enqueued": 0,
            "rule_failures": 0,
            "commits": 0,
        }
        self.replayed = 0
        self._unqueued: deque[RoomAction] = deque()  # actions the outbox could not take yet
        self._outbox_down = False
        # Rows in the journal, kept by the journal thread as it writes and prunes: what
        # /metrics shows without a query on the journal's connection.
        self.journal_held = 0
        self.offline_after = offline_after
        self.heartbeat_interval = heartbeat_interval
        self.nodes = NodeTracker(offline_after)  # rebuilt from the nodes table at start
        self._stored_nodes: list[NodeState] = []
        self._dirty_nodes: set[str] = set()  # rows to write with the next commit
        self._node_written: dict[str, float] = {}

    # -- lifetime --------------------------------------------------------------

    async def start(self) -> None:
        """Open the journal, replay it into the machine, start the engine."""
        loop = asyncio.get_running_loop()
        self._stopping = False
        rows = await loop.run_in_executor(self._io, self._open_db)
        self._replay(rows)
        self.nodes = NodeTracker(
            self.offline_after, started_at=self.clock(), known=self._stored_nodes
        )
        self._node_written = {s.node: self.clock() for s in self._stored_nodes}
        self._engine = asyncio.create_task(self._run(), name="pipeline")

    async def stop(self) -> None:
        """Stop the engine; accepts already queued are committed first."""
        if self._engine is not None:
            # Python 3.11's wait_for can swallow a cancel that meets a wake-up (a
            # heartbeat's): the flag ends the loop then.
            self._stopping = True
            self._wake.set()
            self._engine.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._engine
            self._engine = None
        loop = asyncio.get_running_loop()
        if self._db is not None:
            await loop.run_in_executor(self._io, self._flush_and_close, self._take_dirty_nodes())
        self._io.shutdown(wait=True)

    def poke(self) -> None:
        """Look again now (a silence was set or lifted); safe from any thread."""
        wake(self._loop, self._wake)

    @property
    def started(self) -> bool:
        """True while the engine runs (False before start, after stop, or if it died)."""
        return self._engine is not None and not self._engine.done()

    async def __aenter__(self) -> Pipeline:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- what sources call -----------------------------------------------------

    async def accept(self, events: Sequence[Event]) -> list[Ack]:
        """Journal the events durably; one Ack per event, in order."""
        if self._engine is None or self._engine.done():
            raise Unavailable("the pipeline is not running")
        if not events:
            return []
        events = [self.redactor.event(ev) for ev in events]
        future: asyncio.Future[list[Ack]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Pending(events, future))
        self._wake.set()
        return await future

    def room_of(self, turn: str) -> str | None:
        known = self._room.get(turn)
        return known[0] if known else None

    def started_by(self, turn: str) -> str | None:
        """The event_id of the turn.started that opened the turn, if it had one."""
        known = self._room.get(turn)
        return known[1] if known else None

    def status(self, turn: str) -> TurnStatus | None:
        room = self.room_of(turn)
        view = self.machine.state(turn)
        if room is None and view is None:
            return None
        last = self._last.get(turn)
        return TurnStatus(
            turn=turn,
            room=room,
            # A posted card decides the turn, even while the rules keep it to
            # retract the card should it recover (harness exited, node offline).
            state="decided" if turn in self._decided_at or last is not None else "open",
            notice=last[0] if last else None,
            error=last[1] if last else None,
        )

    @property
    def backlog(self) -> int:
        return self._queue.qsize()

    # -- nodes -----------------------------------------------------------------

    def heartbeat(
        self, node: str, info: NodeInfo, *, source: str, rooms: frozenset[str] | None = None
    ) -> NodeState:
        """Record a node's heartbeat (NodeClaimed when another source holds the node);
        `rooms`: those the source may post to, None for every room."""
        if self._engine is None or self._engine.done():
            raise Unavailable("the pipeline is not running")
        now = self.clock()
        old = self.nodes.get(node)
        state = self.nodes.heartbeat(node, info, now, source=source, rooms=rooms)
        if old is None or not old.online:
            log.info("node online", extra={"node": node, "source": source})
        if (
            old is None
            or not old.online
            or old.info != info
            or old.source != source
            or old.rooms != rooms
            or now - self._node_written.get(node, -math.inf) >= NODE_WRITE_EVERY
        ):
            self._dirty_nodes.add(node)
            # A row to write, perhaps a new deadline (a new node's, one back online)
            # earlier than the one the engine waits for: wake it. A plain heartbeat only
            # postpones its node's deadline; the engine finds that out when it wakes.
            self._wake.set()
        return state

    def node_states(self) -> list[NodeState]:
        return self.nodes.nodes()

    def _tick_nodes(self, now: float) -> None:
        events = self.nodes.tick(now)
        if not events:
            return
        for ev in events:
            self._dirty_nodes.add(ev.node)
            log.warning("node offline", extra={"node": ev.node})
        future: asyncio.Future[list[Ack]] = asyncio.get_running_loop().create_future()
        # Nobody awaits this one: a failed commit is logged by _commit_group already.
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._queue.put_nowait(_Pending([self.redactor.event(ev) for ev in events], future))

    # -- the journal (runs on the journal thread) --------------------------------

    def _open_db(self) -> list[tuple[str, float, str | None]]:
        db = connect(self.path)
        if isinstance(db, SqliteDatabase):
            db.raw.executescript(_SCHEMA)
        else:
            require_current(db)
        self._db = db
        self._stored_nodes = [
            NodeState(
                node=node,
                source=source,
                rooms=None if rooms is None else frozenset(json.loads(rooms)),
                info=info_from_json(json.loads(info)),
                last_seen=last_seen,
                online=bool(online),
                since=since,
                watch_from=last_seen,
            )
            for node, source, rooms, info, last_seen, online, since in db.execute(
                "SELECT node, source, rooms, info, last_seen, online, since FROM nodes "
                "ORDER BY node"
            ).fetchall()
        ]
        rows: list[tuple[str, float, str | None]] = db.execute(
            "SELECT kind, now, body FROM journal ORDER BY seq"
        ).fetchall()
        self.journal_held = len(rows)
        return rows

    def _commit(
        self,
        groups: list[Sequence[Event]],
        now: float,
        ticks: list[float],
        nodes: Sequence[NodeState] = (),
    ) -> list[list[Ack]]:
        db = self._db
        assert db is not None
        out: list[list[Ack]] = []
        rows: list[tuple[float, str | None, str]] = []
        with db.transaction():
            db.executemany(
                "INSERT INTO journal (kind, now) VALUES ('tick', ?)", [(t,) for t in ticks]
            )
            fresh = _new_event_ids(db, [ev.event_id for e in groups for ev in e], now)
            for events in groups:
                acks = []
                for ev in events:
                    duplicate = False
                    if ev.event_id is not None:
                        # New once: the same id twice in one commit is a duplicate too.
                        duplicate = ev.event_id not in fresh
                        fresh.discard(ev.event_id)
                    if not duplicate:
                        body = json.dumps(event_to_json(ev), ensure_ascii=False)
                        rows.append((now, _turn_of(ev), body))
                    acks.append(Ack(ev.event_id, ev.turn, duplicate))
                out.append(acks)
            # One statement for the lot: PostgreSQL pipelines it (round trips, not rows,
            # are what a commit costs there); the rows keep their order, so seq does too.
            db.executemany(
                "INSERT INTO journal (kind, now, turn, body) VALUES ('event', ?, ?, ?)", rows
            )
            self._write_nodes(db, nodes)
        written = len(ticks) + len(rows)
        self.journal_held += written
        return out

    @staticmethod
    def _write_nodes(db: SqliteDatabase | PostgresDatabase, nodes: Sequence[NodeState]) -> None:
        db.executemany(
            "INSERT INTO nodes (node, source, rooms, info, last_seen, online, since) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (node) DO UPDATE SET "
            "source = excluded.source, rooms = excluded.rooms, info = excluded.info, "
            "last_seen = excluded.last_seen, online = excluded.online, since = excluded.since",
            [_node_row(s) for s in nodes],
        )

    def _write_ticks(self, ticks: list[float]) -> None:
        db = self._db
        assert db is not None
        with db.transaction():
            db.executemany(
                "INSERT INTO journal (kind, now) VALUES ('tick', ?)", [(t,) for t in ticks]
            )
        self.journal_held += len(ticks)

    def _prune(self, turns: list[str], now: float) -> int:
        db = self._db
        assert db is not None
        with db.transaction():
            deleted = 0
            for turn in turns:
                deleted += db.execute("DELETE FROM journal WHERE turn = ?", (turn,)).rowcount
            # harness.exited / node.offline concern no single turn: kept for the horizon.
            deleted += db.execute(
                "DELETE FROM journal WHERE kind = 'event' AND turn IS NULL AND now < ?",
                (now - self.horizon,),
            ).rowcount
            # A tick before the oldest event left changes nothing the replay rebuilds.
            # (2**62 stands for "no event left"; `1 << 62` is an int4 shift in PostgreSQL.)
            deleted += db.execute(
                "DELETE FROM journal WHERE kind = 'tick' AND seq < "
                "(SELECT COALESCE(MIN(seq), 4611686018427387904) FROM journal WHERE kind = 'event')"
            ).rowcount
            db.execute("DELETE FROM seen WHERE now < ?", (now - self.horizon,))
        self.journal_held -= deleted
        return deleted

    def _flush_and_close(self, nodes: Sequence[NodeState] = ()) -> None:
        if self._db is None:
            return
        if self._ticks:
            self._write_ticks(self._ticks)
            self._ticks = []
        if nodes:
            with self._db.transaction():
                self._write_nodes(self._db, nodes)
        self._db.close()
        self._db = None

    def journal_rows(self) -> int:
        """How many rows the journal holds (for metrics and tests); journal thread only."""
        assert self._db is not None
        return int(self._db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])

    async def journal_size(self) -> int:
        return await asyncio.get_running_loop().run_in_executor(self._io, self.journal_rows)

    # -- the machine (runs on the event loop) --------------------------------------

    def _replay(self, rows: list[tuple[str, float, str | None]]) -> None:
        now = 0.0
        for kind, now, body in rows:
            if kind == "tick":
                self._tick(now, journal=False)
                continue
            assert body is not None
            event = parse_event(json.loads(body))
            self._index(event)
            self._feed(event, now)
            self.replayed += 1
        log.info("journal replayed", extra={"events": self.replayed, "rows": len(rows)})

    def _index(self, event: Event) -> None:
        if isinstance(event, TurnStarted):
            self._room.setdefault(event.turn, (event.room, event.event_id))

    def _after(self, decisions: Sequence[Any], now: float, event: Event | None) -> None:
        """Hand decisions to the room stage and its actions to the outbox; note which
        turns are now decided."""
        silences = self.silences()
        actions: list[RoomAction] = []
        if isinstance(event, TurnStarted):
            actions += self.room.opened(_opened(event), now)
        for d in decisions:
            self.counts["decisions"] += 1
            self._last[d.turn] = (type(d).__name__.lower(), d.error)
            actions += self.room.decided(d, now, silences)
        if event is None:
            actions += self.room.tick(now, silences)
        if event is None or isinstance(event, HarnessExited | NodeOffline):
            affected = list(self._open)
        else:
            self._open.add(event.turn)
            self._decided_at.pop(event.turn, None)
            affected = [event.turn]
        for d in decisions:
            affected.append(d.turn)
        for turn in affected:
            if turn in self._open and _is_decided(view := self.machine.state(turn)):
                self._open.discard(turn)
                self._decided_at[turn] = now
                if view is not None and view.state in (TurnState.ANSWERED, TurnState.QUIET):
                    answered = view.state is TurnState.ANSWERED
                    actions += self.room.closed(turn, answered, now)
        self._hand_over(actions)

    def _hand_over(self, actions: Sequence[RoomAction] = ()) -> None:
        """Enqueue the actions in order, after any the outbox could not take before.

        A store that is down (PostgreSQL restarting) keeps them here, in order, and
        they are retried each second; a crash meanwhile loses nothing, since the replay
        of the journal derives them again (their keys make that harmless).
        """
        self._unqueued.extend(actions)
        while self._unqueued:
            try:
                added = self.outbox.enqueue(self._unqueued[0])
            except Exception:
                if not self._outbox_down:
                    self._outbox_down = True
                    log.exception(
                        "outbox write failed; decisions kept in order and retried",
                        extra={"held": len(self._unqueued)},
                    )
                return
            self._unqueued.popleft()
            if added:
                self.counts["enqueued"] += 1
        if self._outbox_down:
            self._outbox_down = False
            log.info("outbox writable again; held decisions enqueued")

    async def _run(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        # Catch up with deadlines that passed while the bot was down.
        self._tick(self.clock())
        while not self._stopping:
            deadline = _earliest(
                self.machine.next_deadline(), self.room.next_deadline(self.silences())
            )
            if deadline is not None:
                deadline = max(deadline, self._hold_ticks_until)
            # The nodes' own deadline: it ticks the tracker, never the rules (no tick row).
            node_deadline = self.nodes.next_deadline()
            timeout = self.prune_every if not self._unqueued else min(self.prune_every, 1.0)
            for due in (deadline, node_deadline):
                if due is not None:
                    timeout = min(timeout, max(0.0, due - self.clock()))
            if self._queue.empty() and not self._dirty_nodes:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout)
            now = self.clock()
            if self._unqueued:
                self._hand_over()
            if deadline is not None and now >= deadline:
                self._tick(now)
            if node_deadline is not None and now >= node_deadline:
                self._tick_nodes(now)
            if not self._queue.empty() or self._dirty_nodes:
                await self._commit_group(loop)
            if now - self._last_prune >= self.prune_every:
                self._last_prune = now
                try:
                    await self._prune_old(loop, now)
                except Exception:  # a full disk must not stop the bot; try again later
                    log.exception("journal pruning failed")

    def _tick(self, now: float, *, journal: bool = True) -> None:
        if journal:
            self._ticks.append(now)
        try:
            self._after(self.machine.tick(now), now, None)
        except Exception:
            # A bug in the rules must not stop the journal; wait a second before the
            # next tick so that a timer that keeps failing cannot spin the loop.
            self.counts["rule_failures"] += 1
            self._hold_ticks_until = now + 1.0
            log.exception("turn rules failed on a tick")

    async def _commit_group(self, loop: asyncio.AbstractEventLoop) -> None:
        batch: list[_Pending] = []
        while not self._queue.empty() and len(batch) < self.max_group:
            batch.append(self._queue.get_nowait())
        now = self.clock()
        ticks, self._ticks = self._ticks, []
        nodes = self._take_dirty_nodes()
        try:
            results = await loop.run_in_executor(
                self._io, self._commit, [p.events for p in batch], now, ticks, nodes
            )
        except Exception as e:  # the disk said no: every waiting source gets an error
            self._ticks = ticks + self._ticks
            self._dirty_nodes.update(s.node for s in nodes)
            log.exception("journal commit failed")
            for p in batch:
                if not p.future.done():
                    p.future.set_exception(Unavailable(f"the journal write failed: {e}"))
            return
        self.counts["commits"] += 1
        for s in nodes:
            self._node_written[s.node] = now
        for p, acks in zip(batch, results, strict=True):
            for ev, ack in zip(p.events, acks, strict=True):
                if not ack.duplicate:
                    self._index(ev)
            if not p.future.done():
                p.future.set_result(acks)
        # Durable and answered; now the rules see them, in journal order.
        for p, acks in zip(batch, results, strict=True):
            for ev, ack in zip(p.events, acks, strict=True):
                if ack.duplicate:
                    self.counts["duplicates"] += 1
                    continue
                self.counts["accepted"] += 1
                self._feed(ev, now)

    def _take_dirty_nodes(self) -> list[NodeState]:
        dirty, self._dirty_nodes = self._dirty_nodes, set()
        return [s for n in sorted(dirty) if (s := self.nodes.get(n)) is not None]

    def _feed(self, event: Event, now: float) -> None:
        try:
            self._after(self.machine.feed(event, now), now, event)
        except Exception:
            # A bug in the rules must not stop the journal; the event is kept for a replay.
            self.counts["rule_failures"] += 1
            log.exception("turn rules failed on an event", extra={"turn": event.turn})

    async def _prune_old(self, loop: asyncio.AbstractEventLoop, now: float) -> None:
        # Decided beyond the horizon, or already forgotten by the rules (they also keep
        # at most max_remembered closed turns): either way no row of it matters any more.
        old = [
            t
            for t, at in self._decided_at.items()
            if at < now - self.horizon or self.machine.state(t) is None
        ]
        deleted = await loop.run_in_executor(self._io, self._prune, old, now)
        if self.prune_silences is not None:
            self.prune_silences(now - 2 * self.horizon)
        for turn in old:
            self._decided_at.pop(turn, None)
            self._room.pop(turn, None)
            self._last.pop(turn, None)
        if deleted:
            log.info("journal pruned", extra={"turns": len(old), "rows": deleted})
