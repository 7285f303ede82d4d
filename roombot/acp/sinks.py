"""Where the observer's events go: a JSON Lines file here; the report API in `report`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Protocol

from roombot.redact import Redactor

Event = dict[str, Any]


class Sink(Protocol):
    def emit(self, events: list[Event]) -> None: ...
    async def close(self, deadline: float) -> None: ...


class RedactingSink:
    """Every event through the redactor before the sink keeps it: a node's spool and
    events file never hold a credential a harness printed (roombot.redact)."""

    def __init__(self, inner: Sink, redactor: Redactor) -> None:
        self.inner = inner
        self.redactor = redactor

    def emit(self, events: list[Event]) -> None:
        self.inner.emit([self.redactor.event_json(ev) for ev in events])

    async def close(self, deadline: float) -> None:
        await self.inner.close(deadline)


class JsonLinesSink:
    """`--events FILE`: one event a line, appended; `roombot replay` reads it.

    Each batch is one write(2) on an O_APPEND descriptor, so proxies sharing a
    file never interleave inside a line.
    """

    def __init__(self, path: str | Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def emit(self, events: list[Event]) -> None:
        if events:
            data = "".join(json.dumps(ev) + "\n" for ev in events).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]

    async def close(self, deadline: float) -> None:
        os.close(self._fd)
