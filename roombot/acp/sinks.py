"""Where the observer's events go: a JSON Lines file here; the report API in `report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

Event = dict[str, Any]


class Sink(Protocol):
    def emit(self, events: list[Event]) -> None: ...
    async def close(self, deadline: float) -> None: ...


class JsonLinesSink:
    """`--events FILE`: one event a line, appended, flushed per batch; `roombot replay` reads it."""

    def __init__(self, path: str | Path) -> None:
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 (open for the run)

    def emit(self, events: list[Event]) -> None:
        if events:
            self._file.write("".join(json.dumps(ev) + "\n" for ev in events))
            self._file.flush()

    async def close(self, deadline: float) -> None:
        self._file.close()
