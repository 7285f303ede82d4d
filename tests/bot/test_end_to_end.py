"""The whole way: `roombot run` as a process, events POSTed to its report API, the
member reads the card in the encrypted room, and a SIGKILL between accept and send
loses nothing."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.devserver import DevServer, free_port
from tests.bot.helpers import make_team

TOKEN = "end-to-end-test-token-0123456789"


def turn_events(room: str, turn: str) -> list[dict[str, object]]:
    error = {
        "status": 529,
        "body": '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    }
    return [
        {"type": "turn.started", "turn": turn, "room": room, "harness": "claude-code",
         "provider": "anthropic", "model": "claude-sonnet-4-5", "event_id": f"{turn}-s"},
        {"type": "turn.failed_attempt", "turn": turn, "provider": "anthropic",
         "model": "claude-sonnet-4-5", "error": error, "event_id": f"{turn}-f"},
        {"type": "turn.ended", "turn": turn, "error": error, "event_id": f"{turn}-e"},
    ]  # fmt: skip


async def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                async with http.get(url + "/healthz") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise TimeoutError(log.read_text()[-3000:])


async def test_events_over_http_reach_the_encrypted_room(
    synapse: DevServer, tmp_path: Path
) -> None:
    api_port, metrics_port = free_port(), free_port()
    extra = (
        f'[api]\nport = {api_port}\n[[api.sources]]\nname = "ci"\n'
        f'token_env = "ROOMBOT_E2E_TOKEN"\nrooms = ["*"]\n'
        f"[metrics]\nport = {metrics_port}\n"
        "[turns]\nsettle = 0.2\n"
    )
    team = await make_team(synapse, tmp_path, encrypted=True, extra=extra)
    env = {**os.environ, "ROOMBOT_E2E_TOKEN": TOKEN}
    log = tmp_path / "bot.log"

    def start() -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "roombot", "run", "-c", str(team.config_path)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )

    api = f"http://127.0.0.1:{api_port}"
    proc = start()
    try:
        await wait_healthy(f"http://127.0.0.1:{metrics_port}", proc, log)
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            for turn in ("e2e-1", "e2e-2"):
                body = {"events": turn_events(team.room_id, turn)}
                async with http.post(api + "/v1/batch", json=body) as r:
                    assert r.status == 202, await r.text()
        # Accepted means journaled: a SIGKILL now loses nothing.
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        proc = start()
        seen = await team.member.wait_for(team.room_id, 2, sender=team.bot.user_id, timeout=60)
        cards = [read_payload(s.content.get(CARD_KEY)) for s in seen]
        assert all(isinstance(c, TurnError) for c in cards), cards
        assert all(s.encrypted for s in seen)
        assert [c.message for c in cards if isinstance(c, TurnError)] != []
        assert all(c.harness == "claude-code" for c in cards if isinstance(c, TurnError))
        await asyncio.sleep(1)
        await team.member.sync(500)
        assert len(team.member.messages(team.room_id, team.bot.user_id)) == 2  # not doubled
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        await team.member.close()
