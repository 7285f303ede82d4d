"""Fixtures of the report API tests: a real pipeline (SQLite journal, the real turn
rules, the real SQLite outbox) behind the app, served by pytest-aiohttp."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from roombot.api import make_app
from roombot.api.settings import ApiSettings, SourceSettings
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.turns import TurnMachine, TurnRules
from tests.engines import Stores

ROOM = "!team:example.org"
OTHER = "!other:example.org"
TOKENS = {
    "hub": "hub-token-0123456789abcdef",
    "engine": "engine-token-0123456789abcd",
    "ops": "ops-token-0123456789abcdefg",
    "tiny": "tiny-token-0123456789abcdef",
}
# Short windows so that a failed turn is decided within a test.
RULES = TurnRules(grace=0.2, settle=0.2)


def sources() -> tuple[SourceSettings, ...]:
    return (
        SourceSettings("hub", TOKENS["hub"], frozenset({ROOM}), rate=10_000, burst=10_000),
        SourceSettings("engine", TOKENS["engine"], frozenset({OTHER}), rate=10_000, burst=10_000),
        SourceSettings("ops", TOKENS["ops"], frozenset({"*"}), rate=10_000, burst=10_000),
        SourceSettings("tiny", TOKENS["tiny"], frozenset({ROOM}), rate=1.0, burst=3),
    )


def auth(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[name]}"}


def started(turn: str, room: str = ROOM, **extra: Any) -> dict[str, Any]:
    return {"type": "turn.started", "turn": turn, "room": room, "harness": "codex", **extra}


def failed_end(turn: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "turn.ended",
        "turn": turn,
        "error": {
            "status": 529,
            "body": '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        },
        **extra,
    }


@pytest.fixture
def outbox(stores: Stores) -> Iterator[Outbox]:
    box = Outbox(stores("outbox.sqlite3"))
    yield box
    box.close()


@pytest.fixture
async def pipeline(stores: Stores, outbox: Outbox) -> AsyncIterator[Pipeline]:
    p = Pipeline(stores("journal.sqlite3"), TurnMachine(RULES), outbox)
    await p.start()
    yield p
    if p.started:
        await p.stop()


@pytest.fixture
def settings(tmp_path: Path) -> ApiSettings:
    return ApiSettings(journal=tmp_path / "journal.sqlite3", max_body=64 * 1024, sources=sources())


@pytest.fixture
async def client(
    aiohttp_client: Callable[..., Any], settings: ApiSettings, pipeline: Pipeline
) -> TestClient[Any, Any]:
    return await aiohttp_client(make_app(settings, pipeline))  # type: ignore[no-any-return]
