"""`--url`: events to the bot's report API, through the SQLite spool."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

import aiohttp

from roombot.acp.sinks import Event
from roombot.acp.spool import Spool


class Rejected(Exception):
    """The bot answered that it will never take this batch (a 4xx other than auth)."""


class Unavailable(Exception):
    """Not now: the bot is down, busy or refuses the token; `wait` is its Retry-After."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


# Worth retrying: the bot may take the same batch later (401: a token fixed later).
_RETRY_STATUSES = frozenset({401, 408, 425, 429})
BATCH_PATH = "/v1/batch"  # the report API's route for a batch (docs/report-api.md)
BATCH_BYTES = 512 * 1024  # under the API's default 1 MiB body limit


async def post_events(
    session: aiohttp.ClientSession, base_url: str, token: str, events: list[Event]
) -> None:
    """One POST of a batch to the report API; raises Rejected or Unavailable unless 2xx."""
    url = base_url.rstrip("/") + BATCH_PATH
    headers = {"Authorization": f"Bearer {token}"}
    try:
        async with session.post(url, json={"events": events}, headers=headers) as resp:
            if resp.status // 100 == 2:
                return
            body = (await resp.text())[:500]
            message = f"{url} answered {resp.status}: {body}"
            if resp.status // 100 == 4 and resp.status not in _RETRY_STATUSES:
                raise Rejected(message)
            try:
                wait = float(resp.headers.get("Retry-After", ""))
            except ValueError:
                wait = None
            raise Unavailable(message, wait)
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise Unavailable(f"{url}: {exc or type(exc).__name__}") from exc


def fit(batch: list[tuple[int, Event]], budget: int) -> list[tuple[int, Event]]:
    """The longest head of `batch` whose JSON fits `budget` bytes (at least one event)."""
    size = 0
    for i, (_, event) in enumerate(batch):
        size += len(json.dumps(event)) + 2
        if size > budget and i > 0:
            return batch[:i]
    return batch


class ReportSink:
    """`--url`: events go to the spool first, then to the bot when it answers.

    Sending runs beside the observer and never holds it: an unreachable bot
    only makes the spool grow. On close the sink keeps trying until the
    deadline; the rest stays in the spool for the next run.
    """

    BATCH = 100

    def __init__(self, url: str, token: str, spool_path: str | Path) -> None:
        self.url, self._token = url, token
        self.spool = Spool(spool_path)
        self._wake = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self.sent = 0
        self.refused = 0
        self.batch_size = self.BATCH
        self.last_error: str | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._send_loop())
        self._wake.set()  # leftovers from an earlier run go first

    def emit(self, events: list[Event]) -> None:
        if events:
            self.spool.add(events)
            self._wake.set()

    async def _send_loop(self) -> None:
        backoff = 0.5
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while batch := fit(self.spool.batch(self.batch_size), BATCH_BYTES):
                    try:
                        await post_events(session, self.url, self._token, [e for _, e in batch])
                    except Rejected as exc:
                        self._rejected(batch, str(exc))
                        continue
                    except Unavailable as exc:
                        self.last_error = str(exc)
                        await asyncio.sleep(max(backoff, min(exc.wait or 0.0, 300.0)))
                        backoff = min(backoff * 2, 30.0)
                        continue
                    backoff = 0.5
                    self.batch_size = self.BATCH
                    self.spool.remove([seq for seq, _ in batch])
                    self.sent += len(batch)
                if self._closing:
                    return

    def _rejected(self, batch: list[tuple[int, Event]], why: str) -> None:
        """A batch the bot refuses: narrow it down to the event at fault, then drop that one.

        One bad event must not hold back every event after it forever.
        """
        if len(batch) > 1:
            self.batch_size = max(1, len(batch) // 2)
            return
        seq, event = batch[0]
        print(
            f"roombot acp-proxy: the bot refused event {event.get('event_id')!r}; dropped: {why}",
            file=sys.stderr,
        )
        self.spool.remove([seq])
        self.refused += 1

    async def close(self, deadline: float) -> None:
        self._closing = True
        self._wake.set()
        if self._task is not None:
            loop = asyncio.get_running_loop()
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._task, max(0.0, deadline - loop.time()))
            if not self._task.done():
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
        left = len(self.spool)
        if left:
            why = f" ({self.last_error})" if self.last_error else ""
            print(
                f"roombot acp-proxy: {left} event(s) kept in the spool for the next run{why}",
                file=sys.stderr,
            )
        self.spool.close()
