"""The node-side loop against a real report API (aiohttp app, real outbox and desk):
plan, apply of that digest on real files, a changed file refused, opt-in required."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from aiohttp import web

from lab import setups
from roombot import roomcommands as rc
from roombot.api import make_app
from roombot.api.settings import ApiSettings
from roombot.node_requests import DIFF_LIMIT, Request, Result, reviewed_handler, serve_requests
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.reporters import Settings
from roombot.room_reader import RoomReader
from roombot.turns import TurnMachine
from tests.api.conftest import ROOM, RULES, TOKENS, sources
from tests.engines import Stores

ME = "@bot:hs"


class Api:
    def __init__(self, reader: RoomReader, url: str) -> None:
        self.reader = reader
        self.url = url
        self.n = 0

    def say(self, body: str, level: int = 100) -> str:
        self.n += 1
        event_id = f"$cmd{self.n}"
        msg = rc.Incoming(
            ROOM, event_id, "@mod:hs", body, "m.text", int(self.reader.clock() * 1000)
        )
        assert self.reader.read(msg, me=ME, level=level)
        return event_id

    async def answer(self, event_id: str, part: str = "", timeout: float = 20) -> str:
        key = f"answer:{event_id}" + (f":{part}" if part else "")
        for _ in range(int(timeout / 0.05)):
            notice = self.reader.outbox.get(key)
            if notice is not None:
                assert notice.answer is not None
                return str(notice.answer["body"])
            await asyncio.sleep(0.05)
        raise TimeoutError(key)

    async def polled(self, node: str) -> None:
        for _ in range(200):
            if self.reader.desk.polled(node):
                return
            await asyncio.sleep(0.05)
        raise TimeoutError(node)


@pytest.fixture
async def api(stores: Stores) -> AsyncIterator[Api]:
    outbox = Outbox(stores("outbox.sqlite3"))
    pipeline = Pipeline(stores("journal.sqlite3"), TurnMachine(RULES), outbox)
    await pipeline.start()
    reader = RoomReader(outbox)
    runner = web.AppRunner(make_app(ApiSettings(sources=sources()), pipeline, desk=reader))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield Api(reader, f"http://127.0.0.1:{runner.addresses[0][1]}")
    await runner.cleanup()
    await pipeline.stop()
    outbox.close()


def pi_home(tmp_path: Path) -> tuple[dict[str, str], Path]:
    agent = tmp_path / "pi-agent"
    agent.mkdir()
    settings = agent / "settings.json"
    settings.write_text(json.dumps({"theme": "dark"}, indent=2) + "\n")
    # the lab's Pi on PATH: the version found is one the lab tested
    env = {"PI_CODING_AGENT_DIR": str(agent), "HOME": str(tmp_path), "PATH": str(setups.NPM_BIN)}
    return env, settings


async def node_loop(
    api: Api, tmp_path: Path, handle: Callable[..., Result], enabled: bool = True
) -> tuple[asyncio.Event, asyncio.Task[None]]:
    stop = asyncio.Event()
    task = asyncio.create_task(
        serve_requests(
            api.url,
            TOKENS["hub"],
            "gpu-1",
            tmp_path / "node-state",
            stop=stop,
            interval=0.1,
            handle=handle,
            enabled=lambda: enabled,
        )
    )
    await api.polled("gpu-1")
    return stop, task


async def test_plan_then_apply_changes_the_file_and_a_changed_file_is_refused(
    api: Api, tmp_path: Path
) -> None:
    env, settings_file = pi_home(tmp_path)
    before = settings_file.read_text()
    calls: list[Request] = []
    reviewed = reviewed_handler(
        tmp_path / "node-state",
        settings=Settings("http://127.0.0.1:8450", token_env="T_ENV"),
        env=env,
    )

    def handler(request: Request) -> Result:
        calls.append(request)
        return reviewed(request)

    stop, task = await node_loop(api, tmp_path, handler)
    try:
        plan = await api.answer(api.say("!roombot reporters plan gpu-1 pi enable"))
        assert plan.startswith("Plan: enable the pi reporter on node gpu-1")
        digest = plan.split("Digest: ")[1].split("\n")[0]
        assert rc.DIGEST.fullmatch(digest)
        assert '+  "roombotReporter"' in plan and "pi 1.6.0" in plan
        assert settings_file.read_text() == before  # a plan writes nothing

        applied = await api.answer(api.say(f"!roombot reporters apply gpu-1 {digest}"))
        assert applied.startswith(f"Applied on node gpu-1: plan {digest[:12]}")
        after = json.loads(settings_file.read_text())
        assert after["roombotReporter"]["url"] == "http://127.0.0.1:8450"
        backup = settings_file.with_name(f"settings.json.roombot-{digest[:12]}.bak")
        assert backup.read_text() == before
        again = await api.answer(api.say(f"!roombot reporters apply gpu-1 {digest}"))
        assert "applied already" in again

        # a second plan, then the file changes under it: the node refuses the digest
        plan2 = await api.answer(api.say("!roombot reporters plan gpu-1 pi disable"))
        digest2 = plan2.split("Digest: ")[1].split("\n")[0]
        settings_file.write_text(settings_file.read_text().replace("dark", "light"))
        stale = await api.answer(api.say(f"!roombot reporters apply gpu-1 {digest2}"))
        assert stale.startswith("Node gpu-1 refused !roombot reporters apply: ")
        assert f"changed since plan {digest2[:12]} was made" in stale
        assert "nothing was written" in stale
        assert "roombotReporter" in settings_file.read_text()
        # a digest this room never saw planned never reaches the node
        made = len(calls)
        never = await api.answer(api.say(f"!roombot reporters apply gpu-1 {'e' * 64}"))
        assert "was not planned by node gpu-1 in this room" in never
        assert len(calls) == made
    finally:
        stop.set()
        await task


async def test_a_node_not_opted_in_refuses_and_says_how(api: Api, tmp_path: Path) -> None:
    calls: list[object] = []

    def handle(request: object) -> Result:
        calls.append(request)
        raise AssertionError("never called")

    stop, task = await node_loop(api, tmp_path, handle, enabled=False)
    try:
        said = await api.answer(api.say("!roombot reporters plan gpu-1 pi enable"))
        assert said == (
            "Node gpu-1 refused !roombot reporters plan: node gpu-1 has not opted in to being "
            "managed from the room; on the node run: roombot node plugin-management enable"
        )
        assert calls == []
    finally:
        stop.set()
        await task


async def test_a_failing_handler_and_a_huge_diff_are_answered_within_bounds(
    api: Api, tmp_path: Path
) -> None:
    def handle(request: object) -> Result:
        rid = request.id
        if request.action == "disable":
            raise OSError("disk on fire")
        return Result(rid, True, "x" * 10_000, "a" * 64, "+line\n" * 10_000, {"pi": "v" * 500})

    stop, task = await node_loop(api, tmp_path, handle)
    try:
        failed = await api.answer(api.say("!roombot reporters plan gpu-1 pi disable"))
        assert "the node failed on it: OSError: disk on fire" in failed
        big = await api.answer(api.say("!roombot reporters plan gpu-1 pi enable"))
        assert "more lines not shown" in big and len(big) < 12_000
        assert DIFF_LIMIT == 12000
    finally:
        stop.set()
        await task


async def test_another_source_cannot_poll_for_a_node_it_does_not_hold(
    api: Api, tmp_path: Path
) -> None:
    stop, task = await node_loop(api, tmp_path, lambda r: Result(r.id, True))
    try:
        import aiohttp

        async with aiohttp.ClientSession() as http:
            headers = {"Authorization": f"Bearer {TOKENS['engine']}"}
            async with http.get(api.url + "/v1/nodes/gpu-1/requests", headers=headers) as r:
                assert r.status == 409
                assert "served by another source" in (await r.json())["message"]
            async with http.get(api.url + "/v1/nodes/..%2Fx/requests", headers=headers) as r:
                assert r.status == 400
    finally:
        stop.set()
        await task


async def test_a_key_in_the_diffs_context_never_reaches_the_room(api: Api, tmp_path: Path) -> None:
    """A harness's configuration can hold a provider's key next to where the change goes:
    the node hides it before the diff leaves, and the bot hides what a node did not."""
    key = "sk-ant-api03-" + secrets.token_urlsafe(70)
    env, settings_file = pi_home(tmp_path)
    settings_file.write_text(json.dumps({"theme": "dark", "apiKey": key}, indent=2) + "\n")
    reporter = Settings("http://127.0.0.1:8450", token_env="T_ENV")
    reviewed = reviewed_handler(tmp_path / "node-state", settings=reporter, env=env)
    stop, task = await node_loop(api, tmp_path, reviewed)
    try:
        plan = await api.answer(api.say("!roombot reporters plan gpu-1 pi enable"))
        assert plan.startswith("Plan: enable the pi reporter on node gpu-1"), plan
        assert '"apiKey"' in plan and "[redacted]" in plan
        assert key not in plan and key[20:40] not in plan
    finally:
        stop.set()
        await task

    def careless(request: Request) -> Result:  # a node that sends its file as it is
        return Result(request.id, True, f"saw {key}", "b" * 64, f' "apiKey": "{key}"\n+x\n', {})

    stop, task = await node_loop(api, tmp_path, careless)
    try:
        plan = await api.answer(api.say("!roombot reporters plan gpu-1 pi disable"))
        assert key not in plan and key[20:40] not in plan and "[redacted]" in plan
    finally:
        stop.set()
        await task
