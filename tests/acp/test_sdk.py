"""The proxy between the SDK's own client and an SDK agent: real framing on both ends."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block

from roombot.events import parse_event
from tests.acp.transcript import HERE, ROOT


class Client:
    def __init__(self) -> None:
        self.chunks: list[str] = []

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.chunks.append(update.content.text)


async def drive(
    tmp: Path, prompts: list[str]
) -> tuple[Client, list[Any], int, list[dict[str, Any]]]:
    events = tmp / "events.jsonl"
    client = Client()
    outcomes: list[Any] = []
    proxy = [
        "-m",
        "roombot.cli",
        "acp-proxy",
        "--room",
        "!sdk:example.org",
        "--events",
        str(events),
        "--",
        sys.executable,
        str(HERE / "sdk_agent.py"),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    async with spawn_agent_process(client, sys.executable, *proxy, env=env) as (conn, process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(tmp), mcp_servers=[])
        for text in prompts:
            try:
                outcomes.append(
                    await conn.prompt(session_id=session.session_id, prompt=[text_block(text)])
                )
            except RequestError as exc:
                outcomes.append(exc)
            except Exception as exc:  # the agent died: the connection ends
                outcomes.append(exc)
                break
        if process.stdin is not None:
            process.stdin.close()
        status = await process.wait()
    lines = events.read_text().splitlines()
    return client, outcomes, status, [json.loads(line) for line in lines]


async def test_sdk_answer_and_rejection(tmp_path: Path) -> None:
    client, outcomes, status, events = await drive(tmp_path, ["hi", "fail"])
    assert status == 0
    assert outcomes[0].stop_reason == "end_turn"
    assert isinstance(outcomes[1], RequestError)
    assert client.chunks == ["thinking... ", "hello", "thinking... "]
    for ev in events:
        parse_event(ev)
    summary = [(ev["type"], ev["turn"]) for ev in events]
    assert summary == [
        ("turn.started", "acp/sdk-session-1/2"),
        ("turn.output", "acp/sdk-session-1/2"),
        ("turn.ended", "acp/sdk-session-1/2"),
        ("turn.started", "acp/sdk-session-1/3"),
        ("turn.output", "acp/sdk-session-1/3"),
        ("turn.ended", "acp/sdk-session-1/3"),
    ]
    assert events[0]["harness"] == "sdk-agent"
    assert events[1]["text"] == "thinking... hello"
    assert events[5]["error"]["acp"]["data"] == {"details": "credit balance is too low"}


@pytest.mark.timeout(60)
async def test_sdk_agent_dying_mid_turn(tmp_path: Path) -> None:
    client, outcomes, status, events = await drive(tmp_path, ["die"])
    assert status == 7
    assert len(outcomes) == 1 and isinstance(outcomes[0], Exception)  # never answered
    assert client.chunks == ["thinking... "]
    assert [ev["type"] for ev in events] == ["turn.started", "turn.output", "harness.exited"]
    assert events[-1]["error"]["exit"]["code"] == 7
