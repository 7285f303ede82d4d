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
from typing import Any

from aiohttp import web

from roombot.api.server import serve_api
from roombot.config import Config
from roombot.matrix import MatrixShell
from roombot.observe import Metric, make_observe_app, redactor_metrics, serve
from roombot.outbox import Courier, Outbox
from roombot.pipeline import Pipeline
from roombot.private_files import private_dir
from roombot.redact import Redactor
from roombot.turns import TurnMachine

log = logging.getLogger("roombot.bot")


class Bot:
    def __init__(self, config: Config, *, redactor: Redactor | None = None) -> None:
        self.config = config
        self.redactor = config.redact.build() if redactor is None else redactor
        private_dir(config.state_dir)  # 0700 before anything is written in it
        self.outbox = Outbox(config.outbox.path)
        self.shell = MatrixShell(config, self.outbox)
        self.courier = Courier(
            self.outbox,
            self.shell.deliver,
            backoff_initial=config.outbox.backoff_initial,
            backoff_max=config.outbox.backoff_max,
            poll_interval=config.outbox.poll_interval,
            keep_settled=config.outbox.keep_days * 86400,
        )
        self.shell.on_rooms_changed.append(self.courier.wake)
        # Sources -> journal -> turn rules -> outbox. Always running (the demo and
        # tests feed it directly); the report API in front of it only when configured.
        self.pipeline = Pipeline(
            config.api.journal,
            TurnMachine(config.turns, dict(config.reporters)),
            self.outbox,
            redactor=self.redactor,
        )
        self.started = asyncio.Event()
        self._stop = asyncio.Event()
        self._runners: list[web.AppRunner] = []
        # Extra long-running parts (the report API and its pipeline) register here.
        self.extra_tasks: list[asyncio.Task[Any]] = []

    def stop(self) -> None:
        self._stop.set()

    def metrics(self) -> list[Metric]:
        counts = self.outbox.counts()
        s = self.courier.stats
        age = self.shell.last_sync
        return [
            Metric("roombot_outbox_depth", "gauge", "Notices not yet sent", counts["pending"]),
            Metric(
                "roombot_outbox_parked",
                "gauge",
                "Notices held in parked rooms (the bot cannot post there)",
                counts["parked"],
            ),
            Metric(
                "roombot_outbox_failed",
                "gauge",
                "Notices the server refused for good",
                counts["failed"],
            ),
            Metric("roombot_notices_sent_total", "counter", "Notices sent by this process", s.sent),
            Metric(
                "roombot_send_retries_total",
                "counter",
                "Failed sends that will be retried",
                s.retries,
            ),
            Metric(
                "roombot_rate_limit_waits_total",
                "counter",
                "M_LIMIT_EXCEEDED answers honoured",
                s.rate_limit_waits,
            ),
            Metric(
                "roombot_rate_limit_wait_seconds_total",
                "counter",
                "Seconds of retry_after_ms waited",
                s.rate_limit_seconds,
            ),
            Metric(
                "roombot_encryption_failures_total",
                "counter",
                "Sends that failed to encrypt (untrusted devices, missing sessions)",
                s.encryption_failures,
            ),
            Metric(
                "roombot_last_sync_timestamp_seconds",
                "gauge",
                "Wall clock of the last good sync",
                age,
            ),
            *redactor_metrics(self.redactor),
        ]

    def health(self) -> tuple[bool, dict[str, Any]]:
        import time

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
        m = self.config.metrics
        if m.port:
            app = make_observe_app(self.metrics, self.health)
            self._runners.append(await serve(app, m.host, m.port))
            log.info("metrics and health listening", extra={"host": m.host, "port": m.port})
        await self.pipeline.start()
        if self.config.api.port:
            api = self.config.api
            self._runners.append(
                await serve_api(api, self.pipeline, reload_on_sighup=handle_signals)
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
            self.outbox.close()
            if handle_signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            log.info("bot stopped")
