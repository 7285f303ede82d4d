"""The running bot: outbox + Matrix shell + courier + observability, and their lifetime.

`Bot.run()` starts everything, returns after `stop()` (SIGTERM, SIGINT): the
sync loop ends, a send in flight gets a grace period to finish, everything
not sent stays in the outbox for the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import time
from collections.abc import Iterator
from typing import Any

from aiohttp import web
from prometheus_client import Histogram
from prometheus_client.core import Metric

from roombot.api.server import serve_api
from roombot.config import Config
from roombot.matrix import MatrixShell, StartupError
from roombot.metrics import (
    DELIVERY_BUCKETS,
    Scraped,
    bot_registry,
    counter,
    gauge,
    node_families,
    redactor_families,
)
from roombot.observe import make_observe_app, serve
from roombot.outbox import Courier, Outbox
from roombot.pipeline import Pipeline
from roombot.private_files import private_dir
from roombot.redact import Redactor
from roombot.room import RoomStage
from roombot.room_reader import RoomReader
from roombot.silence_store import SilenceStore
from roombot.store.db import PostgresDatabase
from roombot.store.lease import Lease, LeaseLost
from roombot.store.migrations import prepare
from roombot.turns import TurnMachine

log = logging.getLogger("roombot.bot")


class Bot:
    def __init__(self, config: Config, *, redactor: Redactor | None = None) -> None:
        self.config = config
        self.redactor = config.redact.build() if redactor is None else redactor
        private_dir(config.state_dir)  # 0700 before anything is written in it
        prepare(config.outbox_at)  # PostgreSQL: the schema this roombot needs (docs/scaling.md)
        self.outbox = Outbox(config.outbox_at)
        # A shared store has one deliverer: the holder of its lease (roombot.store.lease).
        self.lease: Lease | None = None
        if config.store is not None:
            holder = f"{socket.gethostname()} {config.state_dir}"
            ttl = config.store.failover_after
            self.lease = Lease(PostgresDatabase(config.store.dsn()), holder, ttl)
        self._lease_lost: LeaseLost | None = None
        self._lease_task: asyncio.Task[None] | None = None
        self.shell = MatrixShell(config, self.outbox)
        # One registry per bot (not the library's global one): bots in one process count apart.
        self.registry = bot_registry()
        self.delivery_seconds = Histogram(
            "roombot_notice_delivery_seconds",
            "Time from a decision to the homeserver's answer to its notice (retries included)",
            registry=self.registry,
            buckets=DELIVERY_BUCKETS,
        )
        self.courier = Courier(
            self.outbox,
            self.shell.deliver,
            backoff_initial=config.outbox.backoff_initial,
            backoff_max=config.outbox.backoff_max,
            poll_interval=config.outbox.poll_interval,
            keep_settled=config.outbox.keep_days * 86400,
            on_sent=self.delivery_seconds.observe,
            may_send=None if self.lease is None else self.lease.valid,
        )
        self._rooms_owed: set[str] = set()  # rooms /metrics has seen notices owed in
        Scraped(self._families, self.registry)
        self.shell.on_rooms_changed.append(self.courier.wake)
        # Commands from the rooms, and the node desk the report API serves to nodes.
        # Silences set from the rooms: in the outbox's store, on their own connection.
        self.silences = SilenceStore(config.outbox_at)
        self.reader = RoomReader(
            self.outbox, config.rooms, redactor=self.redactor, silences=self.silences
        )
        self.shell.reader = self.reader
        # Sources -> journal -> turn rules -> outbox. Always running (the demo and
        # tests feed it directly); the report API in front of it only when configured.
        self.pipeline = Pipeline(
            config.journal_at,
            TurnMachine(config.turns, dict(config.reporters)),
            self.outbox,
            redactor=self.redactor,
            offline_after=config.nodes.offline_after,
            heartbeat_interval=config.nodes.heartbeat_interval,
            room=RoomStage({r.room: r.view for r in config.rooms}),
            silences=self.silences.snapshot,
            prune_silences=self.silences.prune,
        )
        # A silence set or lifted changes what the stage holds back from now on, and
        # may end one: the engine looks at once.
        self.silences.subscribe(self.pipeline.poke)
        self.started = asyncio.Event()
        self._stop = asyncio.Event()
        self._runners: list[web.AppRunner] = []
        # Extra long-running parts (the report API and its pipeline) register here.
        self.extra_tasks: list[asyncio.Task[Any]] = []

    def stop(self) -> None:
        self._stop.set()

    def _families(self) -> Iterator[Metric]:
        """What the outbox, the courier, the sync loop and the redactor say now."""
        counts = self.outbox.counts()
        s = self.courier.stats
        yield gauge("roombot_outbox_depth", "Notices not yet sent", counts["pending"])
        yield gauge(
            "roombot_outbox_parked",
            "Notices held in parked rooms (the bot cannot post there)",
            counts["parked"],
        )
        yield gauge(
            "roombot_outbox_failed", "Notices the server refused for good", counts["failed"]
        )
        backlog = gauge("roombot_outbox_room_backlog", "Notices owed, per room", labels=("room",))
        oldest = gauge(
            "roombot_outbox_oldest_owed_age_seconds",
            "Age of the oldest notice owed, per room (0 when none is owed)",
            labels=("room",),
        )
        now = time.time()
        owed = self.outbox.owed_by_room()
        # A room that drained keeps its series, at 0, rather than vanishing from graphs.
        self._rooms_owed.update(owed)
        for room in sorted(self._rooms_owed | {r.room for r in self.config.rooms}):
            count, since = owed.get(room, (0, now))
            backlog.add_metric([room], count)
            oldest.add_metric([room], max(0.0, now - since))
        yield backlog
        yield oldest
        yield counter("roombot_notices_sent_total", "Notices sent by this process", s.sent)
        yield counter("roombot_send_retries_total", "Failed sends that will be retried", s.retries)
        yield counter(
            "roombot_rate_limit_waits_total",
            "M_LIMIT_EXCEEDED answers honoured",
            s.rate_limit_waits,
        )
        yield counter(
            "roombot_rate_limit_wait_seconds_total",
            "Seconds of retry_after_ms waited",
            s.rate_limit_seconds,
        )
        yield counter(
            "roombot_encryption_failures_total",
            "Sends that failed to encrypt (untrusted devices, missing sessions)",
            s.encryption_failures,
        )
        yield gauge(
            "roombot_last_sync_timestamp_seconds",
            "Wall clock of the last good sync",
            self.shell.last_sync,
        )
        commands = counter(
            "roombot_room_commands_total",
            "Commands read from rooms, by what became of them",
            labels=("outcome",),
        )
        for outcome, n in self.reader.outcomes.items():
            commands.add_metric([outcome], n)
        yield commands
        placed = counter(
            "roombot_room_failures_total",
            "Failed turns by what the room stage did with them (docs/room.md); "
            "a restart's replay counts its journal again",
            labels=("situation",),
        )
        for situation, n in self.pipeline.room.counts.items():
            placed.add_metric([situation], n)
        yield placed
        yield counter(
            "roombot_room_commands_replayed_total",
            "Commands seen again (a replayed sync, a restart) and left alone",
            self.reader.replayed,
        )
        yield gauge(
            "roombot_node_requests_pending",
            "Room commands waiting for their node's answer",
            len(self.reader.desk.pending()),
        )
        yield gauge(
            "roombot_journal_rows",
            "Rows in the journal: events and ticks not yet pruned (docs/scaling.md)",
            self.pipeline.journal_held,
        )
        engine = gauge("roombot_store_info", "The store's engine (1)", labels=("engine",))
        engine.add_metric([str(self.outbox.engine)], 1)
        yield engine
        if self.lease is not None:
            yield gauge(
                "roombot_store_lease_valid",
                "1 while this process certainly holds the store's lease (it may send)",
                float(self.lease.valid()),
            )
        yield from redactor_families(self.redactor)
        yield from node_families(self.pipeline.node_states(), time.time())

    async def _renew_lease(self) -> None:
        """Every third of the lease's life; a failure (the store is down) is retried, and
        the courier holds its sends once the lease is no longer certainly ours."""
        assert self.lease is not None
        loop = asyncio.get_running_loop()
        failing = False
        while True:
            await asyncio.sleep(self.lease.ttl / 3)
            try:
                await loop.run_in_executor(None, self.lease.renew)
            except LeaseLost as e:
                log.critical("stopping: %s", e)
                self._lease_lost = e
                self.stop()
                return
            except Exception:
                if not failing:
                    log.exception("the store's lease could not be renewed; retrying")
                failing = True
                continue
            if failing:
                log.info("the store's lease is renewed again")
            failing = False

    async def _release_lease(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.lease is None:
            return
        with contextlib.suppress(Exception):  # a store that is down: the lease just expires
            if self._lease_lost is None:
                await loop.run_in_executor(None, self.lease.release)
        self.lease.db.close()

    async def _tick_desk(self) -> None:
        """Node requests past their timeout are answered in their room."""
        while True:
            await asyncio.sleep(1.0)
            try:
                self.reader.tick()
            except Exception:  # retried at the next tick
                log.exception("node desk tick failed")

    def health(self) -> tuple[bool, dict[str, Any]]:
        age = time.time() - self.shell.last_sync if self.shell.last_sync else None
        limit = self.config.matrix.sync_timeout_ms / 1000 + 60
        ok = self.started.is_set() and age is not None and age < limit
        return ok, {
            "sync_age_s": None if age is None else round(age, 1),
            "outbox_depth": self.outbox.depth(),
            "parked_rooms": sorted(self.outbox.parked()),
        }

    async def run(self, *, handle_signals: bool = True) -> None:
        loop = asyncio.get_running_loop()
        if handle_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stop)
        if self.lease is not None:
            held = await loop.run_in_executor(None, self.lease.acquire)
            if held is not None:
                raise StartupError(
                    f"the store is held by another roombot ({held.holder}); run one roombot "
                    "per store until failover comes (docs/scaling.md)"
                )
            self._lease_task = asyncio.create_task(self._renew_lease(), name="lease")
        m = self.config.metrics
        if m.port:
            app = make_observe_app(self.registry, self.health)
            self._runners.append(await serve(app, m.host, m.port))
            log.info("metrics and health listening", extra={"host": m.host, "port": m.port})
        await self.pipeline.start()
        if self.config.api.port:
            api = self.config.api
            self._runners.append(
                await serve_api(
                    api,
                    self.pipeline,
                    reload_on_sighup=handle_signals,
                    registry=self.registry,
                    desk=self.reader,
                    silences=self.silences,
                )
            )
            log.info(
                "report API listening",
                extra={"host": api.host, "port": api.port, "scheme": api.scheme},
            )
        try:
            start = asyncio.create_task(self.shell.start())
            stopper = asyncio.create_task(self._stop.wait())
            await asyncio.wait({start, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if not start.done():
                start.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await start
                return
            stopper.cancel()
            start.result()  # raise a startup error
            self.started.set()
            log.info(
                "bot started",
                extra={"outbox_depth": self.outbox.depth(), "rooms": len(self.shell.joined)},
            )
            sync = asyncio.create_task(self.shell.sync_forever(), name="sync")
            courier = asyncio.create_task(self.courier.run(), name="courier")
            self.extra_tasks.append(asyncio.create_task(self._tick_desk(), name="desk"))
            await self._stop.wait()
            log.info("stopping: finishing the send in flight, keeping the rest")
            self.courier.stop()
            self.shell.stop()
            await courier
            sync.cancel()
            for t in self.extra_tasks:
                t.cancel()
            await asyncio.gather(sync, *self.extra_tasks, return_exceptions=True)
        finally:
            for runner in self._runners:
                await runner.cleanup()
            await self.pipeline.stop()
            await self.shell.close()
            self.silences.close()
            self.outbox.close()
            if self._lease_task is not None:
                self._lease_task.cancel()
                await asyncio.gather(self._lease_task, return_exceptions=True)
            await self._release_lease(loop)
            if handle_signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            log.info("bot stopped")
        if self._lease_lost is not None:
            raise self._lease_lost
