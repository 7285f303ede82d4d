"""`--url`: events to the bot's report API, through the SQLite spool.

Posting goes through `roombot.report_client` (the report API's one client),
one try at a time: the retrying, with backoff and across runs, is the
spool's, so a dead bot never holds the observer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

from roombot.acp.sinks import Event
from roombot.acp.spool import Spool
from roombot.report_client import Refused, ReportClient, ReportError, Untrusted


class Rejected(Exception):
    """The bot answered that it will never take this batch."""


class Unavailable(Exception):
    """Not now: the bot is down or busy, or refuses the token (which may be fixed)."""


class Distrusted(Unavailable):
    """TLS refused the bot's certificate; kept for later (a certificate can be renewed)."""


# Refusals worth trying again later (401: a token fixed later). 429 and 5xx
# come back from the client as Unreachable after its one try.
_RETRY_STATUSES = frozenset({401, 408, 425, 429})
BATCH_BYTES = 512 * 1024  # under the API's default 1 MiB body limit


def post_events(client: ReportClient, events: list[Event]) -> None:
    """One POST /v1/batch; raises Rejected or Unavailable unless the bot took it."""
    try:
        client.send_batch(events)
    except Refused as exc:
        if exc.status in _RETRY_STATUSES or exc.status >= 500:
            raise Unavailable(str(exc)) from exc
        raise Rejected(str(exc)) from exc
    except Untrusted as exc:
        raise Distrusted(str(exc)) from exc
    except (ReportError, OSError, ValueError) as exc:
        raise Unavailable(str(exc)) from exc


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

    def __init__(
        self,
        url: str,
        token: str,
        spool_path: str | Path,
        *,
        ca_file: str | Path | None = None,
        insecure: bool = False,
    ) -> None:
        self.url = url
        # Made first: a refused URL or CA file fails here, before any event is taken.
        self._client = ReportClient(
            url, token, ca_file=ca_file, insecure=insecure, timeout=5.0, tries=1
        )
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
        client = self._client
        while True:
            await self._wake.wait()
            self._wake.clear()
            while batch := fit(self.spool.batch(self.batch_size), BATCH_BYTES):
                try:
                    await asyncio.to_thread(post_events, client, [e for _, e in batch])
                except Rejected as exc:
                    self._rejected(batch, str(exc))
                    continue
                except Unavailable as exc:
                    if isinstance(exc, Distrusted) and str(exc) != self.last_error:
                        # said at once: the operator, not time, has to fix this one
                        print(f"roombot acp-proxy: TLS refused: {exc}", file=sys.stderr)
                    self.last_error = str(exc)
                    await asyncio.sleep(backoff)
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
