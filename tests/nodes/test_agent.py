"""The node agent against a real report API (real app, pipeline, journal): its beats
arrive, it takes the bot's interval, it rides out a bot that is down or refusing with
one log line per outage, and `roombot node run` stops cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from aiohttp import web

from roombot.api import make_app
from roombot.api.settings import ApiSettings
from roombot.devserver import free_port
from roombot.node_agent import Agent, AgentSettings
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.turns import TurnMachine
from tests.api.conftest import RULES, TOKENS, sources

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def api(tmp: Path, port: int, heartbeat_interval: float = 0.2) -> AsyncIterator[Pipeline]:
    outbox = Outbox(tmp / "outbox.sqlite3")
    p = Pipeline(
        tmp / "journal.sqlite3",
        TurnMachine(RULES),
        outbox,
        offline_after=3.0,
        heartbeat_interval=heartbeat_interval,
    )
    await p.start()
    runner = web.AppRunner(make_app(ApiSettings(sources=sources()), p))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield p
    finally:
        await runner.cleanup()
        await p.stop()
        outbox.close()


def agent(port: int, token: str = TOKENS["hub"], interval: float | None = None) -> Agent:
    settings = AgentSettings(f"http://127.0.0.1:{port}", token, "gpu-1", interval=interval)
    return Agent(
        settings,
        found=lambda: {"openclaw": "2026.9.6", "pi": None},
        enabled=lambda: {"openclaw": True, "pi": False},
    )


async def until(predicate: object, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.02)


async def test_beats_arrive_with_what_the_node_says_and_the_bots_interval(
    tmp_path: Path,
) -> None:
    port = free_port()
    async with api(tmp_path, port) as p:
        a = agent(port)
        stop = asyncio.Event()
        task = asyncio.create_task(a.run(stop))
        await until(lambda: a.sent >= 3)
        assert a.interval == 0.2  # told by the bot: no --interval given
        [state] = p.node_states()
        assert state.node == "gpu-1" and state.online and state.source == "hub"
        assert dict(state.info.harnesses) == {"openclaw": "2026.9.6", "pi": None}
        assert dict(state.info.reporters) == {"openclaw": True, "pi": False}
        assert state.info.interval == 0.2
        stop.set()
        assert await asyncio.wait_for(task, 5) == 0


async def test_a_bot_down_then_up_is_logged_once_each_way_and_beats_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "roombot.node")
    port = free_port()
    a = agent(port, interval=0.3)
    stop = asyncio.Event()
    task = asyncio.create_task(a.run(stop))
    await until(lambda: a.failed >= 4)  # 1 s backoff capped at the interval: 0.3 s apart
    down = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    assert len(down) == 1 and not task.done()
    async with api(tmp_path, port) as p:
        await until(lambda: a.sent >= 2)
        assert [s.node for s in p.node_states()] == ["gpu-1"]
    back = [r for r in caplog.records if "takes heartbeats again" in r.getMessage()]
    assert len(back) == 1
    stop.set()
    assert await asyncio.wait_for(task, 5) == 0


async def test_a_refused_heartbeat_is_logged_once_and_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "roombot.node")
    port = free_port()
    async with api(tmp_path, port) as p:
        a = agent(port, token="not-a-token-of-this-bot-0123456", interval=0.1)
        stop = asyncio.Event()
        task = asyncio.create_task(a.run(stop))
        await until(lambda: a.failed >= 3)
        refused = [r for r in caplog.records if "refuses" in r.getMessage()]
        assert len(refused) == 1 and "401" in refused[0].getMessage()
        assert p.node_states() == []
        stop.set()
        assert await asyncio.wait_for(task, 5) == 0


async def test_what_the_node_cannot_read_is_logged_once_and_left_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> dict[str, str | None]:
        raise OSError("permission denied: ~/.openclaw/openclaw.json")

    port = free_port()
    async with api(tmp_path, port) as p:
        a = Agent(
            AgentSettings(f"http://127.0.0.1:{port}", TOKENS["hub"], "gpu-1", interval=0.1),
            found=broken,
        )
        stop = asyncio.Event()
        task = asyncio.create_task(a.run(stop))
        await until(lambda: a.sent >= 3)
        assert dict(p.node_states()[0].info.harnesses) == {}
        assert len([r for r in caplog.records if "cannot read" in r.getMessage()]) == 1
        stop.set()
        await asyncio.wait_for(task, 5)


async def test_node_run_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    async with api(tmp_path, port) as p:
        token = tmp_path / "token"
        token.write_text(TOKENS["hub"] + "\n")
        proc = subprocess.Popen(
            [sys.executable, "-m", "roombot", "node", "run", "--url",
             f"http://127.0.0.1:{port}", "--token-file", str(token), "--name", "box-7",
             "--interval", "0.2"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            await until(lambda: [s.node for s in p.node_states()] == ["box-7"], timeout=30)
            proc.send_signal(signal.SIGTERM)
            out, _ = await asyncio.to_thread(proc.communicate, timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 0, out.decode()
        assert b"node agent stopped" in out


def test_node_run_refuses_a_bad_url_or_no_token(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "roombot", "node", "run"]
    env = {k: v for k, v in os.environ.items() if k != "ROOMBOT_API_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    no_token = subprocess.run(
        [*base, "--url", "http://127.0.0.1:1"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert no_token.returncode == 2 and "no token" in no_token.stderr
    env["ROOMBOT_API_TOKEN"] = "a-token-of-some-length-01234"
    clear = subprocess.run(
        [*base, "--url", "http://bot.example.org"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert clear.returncode == 2 and "plain http://" in clear.stderr
