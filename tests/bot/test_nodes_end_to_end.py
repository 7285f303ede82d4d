"""A node that dies, the whole way: `roombot run` as a process against a real Synapse,
`roombot node run` as a process heartbeating to it with its own room-scoped token, two
turns open on that node. SIGKILL the agent: the member, reading the encrypted room,
gets two node_offline cards, decided within offline_after plus one interval. Restart
the agent and end one turn well: its card is edited to say the turn recovered; the
other card stays."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from cards.codec import CARD_KEY, read_payload
from cards.kinds import Kind
from cards.shape import TurnError
from roombot.devserver import DevServer, free_port
from tests.bot.helpers import make_team
from tests.bot.test_end_to_end import wait_healthy
from tests.prom import value

ROOT = Path(__file__).resolve().parents[2]
CI_TOKEN = "nodes-e2e-ci-token-0123456789ab"
NODE_TOKEN = "nodes-e2e-node-token-0123456789"
NODE = "e2e-gpu-1"
INTERVAL = 0.5
OFFLINE_AFTER = 3.0


def card(content: dict[str, Any]) -> TurnError:
    payload = read_payload(content.get(CARD_KEY))
    assert isinstance(payload, TurnError), content
    return payload


async def node_online(http: aiohttp.ClientSession, api: str, online: bool) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        async with http.get(api + "/v1/nodes") as r:
            nodes = {n["node"]: n for n in (await r.json())["nodes"]}
        if NODE in nodes and nodes[NODE]["online"] is online:
            return
        await asyncio.sleep(0.1)
    raise TimeoutError(f"{NODE} never became {'online' if online else 'offline'}: {nodes}")


async def test_a_killed_node_agent_gives_two_cards_and_a_turn_that_ends_well_recovers(
    synapse: DevServer, tmp_path: Path
) -> None:
    api_port, metrics_port = free_port(), free_port()
    # Each card on its own (group_by = []): this test follows each turn's card through
    # the node's outage; tests/bot/test_room_view.py shows the same cards grouped.
    team = await make_team(synapse, tmp_path, encrypted=True, room_extra="group_by = []\n")
    # The node's source may post only to the team's room: heartbeats need no more.
    extra = (
        f"[api]\nport = {api_port}\n"
        '[[api.sources]]\nname = "ci"\ntoken_env = "ROOMBOT_E2E_CI"\nrooms = ["*"]\n'
        '[[api.sources]]\nname = "node"\ntoken_env = "ROOMBOT_E2E_NODE"\n'
        f'rooms = ["{team.room_id}"]\n'
        f"[metrics]\nport = {metrics_port}\n"
        f"[nodes]\nheartbeat_interval = {INTERVAL}\noffline_after = {OFFLINE_AFTER}\n"
        "[turns]\nsettle = 0.2\n"
    )
    team.config_path.write_text(team.config_path.read_text() + extra)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ROOMBOT_E2E_CI": CI_TOKEN,
        "ROOMBOT_E2E_NODE": NODE_TOKEN,
    }
    api = f"http://127.0.0.1:{api_port}"
    bot_log, node_log = tmp_path / "bot.log", tmp_path / "node.log"

    def start_agent() -> subprocess.Popen[bytes]:
        with node_log.open("ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "roombot", "node", "run", "--url", api,
                 "--token-env", "ROOMBOT_E2E_NODE", "--name", NODE],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip

    with bot_log.open("ab") as out:
        bot = subprocess.Popen(
            [sys.executable, "-m", "roombot", "run", "-c", str(team.config_path)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    agent = None
    try:
        await wait_healthy(f"http://127.0.0.1:{metrics_port}", bot, bot_log)
        agent = start_agent()
        headers = {"Authorization": f"Bearer {CI_TOKEN}"}
        async with aiohttp.ClientSession(headers=headers) as http:
            await node_online(http, api, True)
            events = [
                {"type": "turn.started", "turn": turn, "room": team.room_id,
                 "harness": "openclaw", "provider": "anthropic", "model": "claude-sonnet-4-5",
                 "node": NODE, "event_id": f"{turn}/started"}
                for turn in ("node-t1", "node-t2")
            ]  # fmt: skip
            async with http.post(api + "/v1/batch", json={"events": events}) as r:
                assert r.status == 202, await r.text()

            agent.send_signal(signal.SIGKILL)
            killed = time.time()
            agent.wait(10)
            seen = await team.member.wait_for(team.room_id, 2, sender=team.bot.user_id, timeout=60)
            cards = {c.turn: c for c in (card(s.content) for s in seen)}
            assert set(cards) == {"node-t1", "node-t2"}
            for c in cards.values():
                assert c.kind is Kind.NODE_OFFLINE and c.node == NODE
                assert f"The node {NODE} sent no heartbeat" in c.message
                assert not c.recovered
                # Decided within offline_after plus one interval of the last beat.
                assert c.failed_at is not None
                assert c.failed_at / 1000 - killed <= OFFLINE_AFTER + INTERVAL, (
                    c.failed_at / 1000 - killed
                )
            assert all(s.encrypted for s in seen)
            decided = max(c.failed_at or 0 for c in cards.values()) / 1000 - killed
            print(f"nodes e2e: both cards decided {decided:.2f} s after the kill")
            metrics = f"http://127.0.0.1:{metrics_port}/metrics"
            async with http.get(metrics) as r:
                text = await r.text()
            assert value(text, "roombot_node_online", node=NODE) == 0
            assert value(text, "roombot_nodes", state="offline") == 1
            assert value(text, "roombot_node_last_seen_age_seconds", node=NODE) >= OFFLINE_AFTER

            # The agent comes back; t1 ends well within the retract window.
            agent = start_agent()
            await node_online(http, api, True)
            end = [
                {"type": "turn.output", "turn": "node-t1", "text": "Here is the plan: ...",
                 "event_id": "node-t1/out"},
                {"type": "turn.ended", "turn": "node-t1", "stop_reason": "end_turn",
                 "event_id": "node-t1/ended"},
            ]  # fmt: skip
            async with http.post(api + "/v1/batch", json={"events": end}) as r:
                assert r.status == 202, await r.text()
            await team.member.wait_for(team.room_id, 3, sender=team.bot.user_id, timeout=60)
            current = {
                card(s.content).turn: card(s.content)
                for s in team.member.current(team.room_id, team.bot.user_id)
            }
            assert current["node-t1"].recovered and current["node-t1"].kind is Kind.NODE_OFFLINE
            assert not current["node-t2"].recovered
            await asyncio.sleep(1)
            await team.member.sync(500)
            assert len(team.member.messages(team.room_id, team.bot.user_id)) == 3  # no more

            async with http.get(api + "/v1/nodes") as r:
                [state] = [n for n in (await r.json())["nodes"] if n["node"] == NODE]
            assert state["online"] and state["source"] == "node"
            async with http.get(metrics) as r:
                text = await r.text()
            assert value(text, "roombot_node_online", node=NODE) == 1
            assert value(text, "roombot_nodes", state="online") == 1
            assert value(text, "roombot_node_last_seen_age_seconds", node=NODE) < 2 * INTERVAL
        agent.send_signal(signal.SIGTERM)
        assert agent.wait(10) == 0, node_log.read_text()[-3000:]
        bot.send_signal(signal.SIGTERM)
        assert bot.wait(30) == 0, bot_log.read_text()[-3000:]
    finally:
        for proc in (agent, bot):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)
        await team.member.close()
