"""Where the observer's events go: a JSON Lines file here; the report API in `report`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Protocol

Event = dict[str, Any]


class Sink(Protocol):
    def emit(self, events: list[Event]) -> None: ...
    async def close(self, deadline: float) -> None: ...


class JsonLinesSink:
    """`--events FILE`: one event a line, appended; `roombot replay` reads it.

    Each batch is one write(2) on an O_APPEND descriptor, so proxies sharing a
    file never interleave inside a line.
    """

    def __init__(self, path: str | Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def emit(self, events: list[Event]) -> None:
        if events:
            data = "".join(json.dumps(ev) + "\n" for ev in events).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]

    async def close(self, deadline: float) -> None:
        os.close(self._fd)
