"""`roombot report` and roombot.report_client against a real server over loopback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from roombot.api import make_app
from roombot.api.settings import ApiSettings
from roombot.env_names import API_TOKEN, RETIRED
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.report_client import Refused, ReportClient, Unreachable
from roombot.store.db import connect
from tests.api.conftest import OTHER, ROOM, TOKENS, failed_end, started
from tests.api.test_api import wait_for
from tests.engines import Stores


@pytest.fixture
async def url(aiohttp_server: Callable[..., Any], settings: ApiSettings, pipeline: Pipeline) -> str:
    server: TestServer = await aiohttp_server(make_app(settings, pipeline))
    return f"http://127.0.0.1:{server.port}"


async def roombot_report(
    *args: str, stdin: bytes = b"", token: str = "hub", env_names: tuple[str, ...] = (API_TOKEN,)
) -> tuple[int, Any, str]:
    env = {k: v for k, v in os.environ.items() if k not in (API_TOKEN, *RETIRED)}
    env.update({name: TOKENS[token] for name in env_names})
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "roombot",
        "report",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await proc.communicate(stdin)
    assert proc.returncode is not None
    return proc.returncode, json.loads(out) if out.strip() else None, err.decode()


async def test_cli_sends_json_lines_as_one_batch(
    url: str, pipeline: Pipeline, tmp_path: Path
) -> None:
    lines = "\n".join(json.dumps(e) for e in (started("c1"), failed_end("c1")))
    code, answer, err = await roombot_report("--url", url, "-", stdin=lines.encode())
    assert code == 0, err
    assert answer["accepted"] == 2
    # every event got an event_id from the client, so a retry would be a duplicate
    assert all(e["event_id"] for e in answer["events"])
    assert await pipeline.journal_size() == 2
    state = await asyncio.to_thread(ReportClient(url, TOKENS["hub"]).turn, "c1")
    assert state["turn"] == "c1" and state["room"] == ROOM


async def test_cli_sends_a_one_shot_report_and_a_repeat_is_a_duplicate(
    url: str, outbox: Outbox
) -> None:
    args = (
        "--url",
        url,
        "--turn",
        "run-7",
        "--room",
        ROOM,
        "--harness",
        "ironflow",
        "--provider",
        "anthropic",
        "--model",
        "claude-x",
        "--status",
        "529",
        "--body",
        '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    )
    code, answer, err = await roombot_report(*args)
    assert code == 0, err
    assert answer["accepted"] == 2
    await wait_for(lambda: outbox.get("run-7/post") is not None)
    code, answer, _ = await roombot_report(*args)
    assert code == 0 and answer["duplicates"] == 2


async def test_cli_report_names_the_message_that_started_the_run(
    url: str, pipeline: Pipeline, stores: Stores
) -> None:
    base = ("--url", url, "--turn", "run-8", "--room", ROOM, "--harness", "ironflow")
    base += ("--message", "the run failed")
    ids = ("--trigger", "$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92", "--thread", "$root:example.org")
    code, answer, err = await roombot_report(*base, *ids)
    assert code == 0 and answer["accepted"] == 2, err
    db = connect(stores("journal.sqlite3"))
    try:
        rows = db.execute("SELECT body FROM journal WHERE kind = 'event' ORDER BY seq").fetchall()
    finally:
        db.close()
    first = json.loads(rows[0][0])
    assert first["type"] == "turn.started"
    assert (first["trigger"], first["thread"]) == (ids[1], ids[3])
    # wrong ids are usage errors, named in the event format's words; nothing is sent
    for wrong, said in (
        (("--trigger", "msg-1"), "--trigger: expected a Matrix event id"),
        (("--trigger", "$a", "--thread", "$a b"), "--thread: expected a Matrix event id"),
        (("--thread", "$root"), "--thread: expected a trigger beside it"),
    ):
        code, _, err = await roombot_report(*base, *wrong)
        assert code == 2 and said in err, err
    code, _, err = await roombot_report("--url", url, "--trigger", "$a", "-")
    assert code == 2 and "not both" in err
    assert await pipeline.journal_size() == 2


async def test_cli_refusal_exits_1_naming_the_field(url: str, tmp_path: Path) -> None:
    f = tmp_path / "event.json"
    f.write_text(json.dumps(started("c2", room=OTHER)))
    code, answer, err = await roombot_report("--url", url, str(f))
    assert code == 1 and answer is None
    assert "403" in err and "(room)" in err
    f.write_text(json.dumps({"type": "turn.started", "turn": "c3"}))
    code, _, err = await roombot_report("--url", url, str(f))
    assert code == 1 and "(room)" in err and "missing" in err
    code, _, err = await roombot_report("--url", url, str(f), token="engine")
    assert code == 1


async def test_cli_reads_the_token_from_its_one_name_and_the_retired_one_with_a_warning(
    url: str,
) -> None:
    f = ("--url", url, "--turn", "n1", "--room", ROOM, "--harness", "h", "--message", "failed")
    code, answer, err = await roombot_report(*f)
    assert code == 0 and answer["accepted"] == 2 and "warning" not in err
    code, answer, err = await roombot_report(*f, env_names=("ROOMBOT_TOKEN",))
    assert code == 0 and answer["duplicates"] == 2
    assert "warning: $ROOMBOT_TOKEN is a retired name" in err and "set $ROOMBOT_API_TOKEN" in err
    # the one name wins over the retired one, and then nothing is said about it
    code, answer, err = await roombot_report(*f, env_names=(API_TOKEN, "ROOMBOT_TOKEN"))
    assert code == 0 and answer["duplicates"] == 2 and "warning" not in err
    code, answer, err = await roombot_report(*f, env_names=())
    assert code == 2 and answer is None and "set $ROOMBOT_API_TOKEN or --token-file" in err


async def test_cli_usage_and_unreachable(url: str) -> None:
    code, _, err = await roombot_report("--url", url, "--turn", "x")
    assert code == 2 and "--room" in err
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = await roombot_report(
        "--url",
        f"http://127.0.0.1:{port}",
        "--tries",
        "1",
        "--turn",
        "x",
        "--room",
        ROOM,
        "--harness",
        "h",
        "--message",
        "failed",
    )
    assert code == 3 and "gave up" in err


async def test_client_waits_out_a_429_and_then_gets_through(url: str) -> None:
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        time.sleep(seconds)

    client = ReportClient(url, TOKENS["tiny"], tries=3, sleep=sleep)
    for i in range(3):  # the bucket holds 3 events, refilled at 1 a second
        await asyncio.to_thread(client.send_event, started(f"b{i}"))
    assert slept == []
    answer = await asyncio.to_thread(client.send_event, started("b3"))
    assert answer["accepted"] == 1
    assert slept and slept[0] >= 1  # it honoured Retry-After
    impatient = ReportClient(url, TOKENS["tiny"], tries=1)
    with pytest.raises(Unreachable, match="429"):
        await asyncio.to_thread(impatient.send_event, started("b4"))
    with pytest.raises(Refused) as info:
        await asyncio.to_thread(ReportClient(url, TOKENS["hub"]).send_event, {"type": "x"})
    assert info.value.status == 400 and info.value.body["field"] == "type"
