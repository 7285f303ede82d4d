"""`--url`: events reach the real report API, and wait in the spool while it is down."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from roombot.acp.spool import Spool
from roombot.api.app import make_app
from roombot.api.settings import ApiSettings, SourceSettings
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.turns import TurnMachine
from tests.acp.transcript import TRANSCRIPTS, run_proxy

TOKEN = "acp-proxy-test-token-0123456789"
ROOM = "!team:example.org"


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[str, Pipeline]]:
    source = SourceSettings(name="acp", token=TOKEN, rooms=frozenset({ROOM}))
    pipeline = Pipeline(tmp_path / "journal.sqlite3", TurnMachine(), Outbox(tmp_path / "out.db"))
    await pipeline.start()
    server = TestServer(make_app(ApiSettings(sources=(source,)), pipeline), host="127.0.0.1")
    await server.start_server()
    try:
        yield f"http://127.0.0.1:{server.port}", pipeline
    finally:
        await server.close()
        await pipeline.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def proxy(transcript: str, tmp: Path, url: str, spool: Path, token: Path) -> int:
    run = await asyncio.to_thread(
        run_proxy,
        TRANSCRIPTS / f"{transcript}.acp",
        tmp,
        "--room",
        ROOM,
        "--url",
        url,
        "--token-file",
        str(token),
        "--spool",
        str(spool),
        "--drain-seconds",
        "2",
    )
    return run.status


@pytest.mark.parametrize("name", ["ROOMBOT_API_TOKEN", "ROOMBOT_TOKEN"])
async def test_without_a_token_file_the_token_comes_from_its_one_name_or_the_retired_one(
    api: tuple[str, Pipeline], tmp_path: Path, name: str
) -> None:
    url, pipeline = api
    run = await asyncio.to_thread(
        run_proxy,
        TRANSCRIPTS / "prompt_rejected.acp",
        tmp_path,
        *("--room", ROOM, "--url", url, "--spool", str(tmp_path / "spool.sqlite")),
        *("--drain-seconds", "5"),
        env={name: TOKEN},
    )
    assert run.status == 0, run.stderr
    if name == "ROOMBOT_TOKEN":
        assert b"warning: $ROOMBOT_TOKEN is a retired name" in run.stderr
        assert b"set $ROOMBOT_API_TOKEN" in run.stderr
    else:
        assert b"warning" not in run.stderr
    assert TOKEN.encode() not in run.stderr
    left = Spool(tmp_path / "spool.sqlite")
    assert len(left) == 0  # all sent, none left waiting
    left.close()
    assert pipeline.status("acp/sess-7d1/2") is not None


async def test_events_wait_for_an_unreachable_bot_then_arrive(
    api: tuple[str, Pipeline], tmp_path: Path
) -> None:
    url, pipeline = api
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    spool = tmp_path / "spool.sqlite"

    # The bot is down: the conversation is untouched and the events are kept.
    down = f"http://127.0.0.1:{free_port()}"
    assert await proxy("prompt_rejected", tmp_path, down, spool, token) == 0
    kept = Spool(spool)
    assert [e["type"] for _, e in kept.batch()] == ["turn.started", "turn.ended"]
    kept.close()

    # The next run, with the bot up, sends the kept events first, then its own.
    assert await proxy("end_turn", tmp_path, url, spool, token) == 0
    left = Spool(spool)
    assert len(left) == 0
    left.close()
    rejected = pipeline.status("acp/sess-7d1/2")
    answered = pipeline.status("acp/0b7f3c2e-5a3e-4f3b-9f0e-2d6c1b8a9e41/2")
    assert rejected is not None and rejected.room == ROOM
    assert answered is not None and answered.room == ROOM
    for _ in range(50):  # the rules decide on the pipeline's own clock
        if rejected.notice is not None:
            break
        await asyncio.sleep(0.1)
        rejected = pipeline.status("acp/sess-7d1/2")
        assert rejected is not None
    assert rejected.notice == "post"
    assert rejected.error is not None and "50 requests per minute" in rejected.error.message
    answered = pipeline.status("acp/0b7f3c2e-5a3e-4f3b-9f0e-2d6c1b8a9e41/2")
    assert answered is not None and answered.notice is None


async def test_an_event_the_bot_refuses_is_dropped_and_the_rest_go_on(
    api: tuple[str, Pipeline], tmp_path: Path
) -> None:
    url, pipeline = api
    token = tmp_path / "token"
    token.write_text(TOKEN)
    spool = tmp_path / "spool.sqlite"
    # A room this source may not post to: 403 for that turn, forever.
    bad = Spool(spool)
    bad.add(
        [
            {
                "type": "turn.started",
                "turn": "t-bad",
                "event_id": "t-bad/started",
                "room": "!other:example.org",
                "harness": "x",
            }
        ]
    )
    bad.close()
    assert await proxy("error_as_answer", tmp_path, url, spool, token) == 0
    left = Spool(spool)
    assert len(left) == 0
    left.close()
    assert pipeline.status("t-bad") is None
    good = pipeline.status("acp/g-44/p-1")
    assert good is not None and good.room == ROOM
