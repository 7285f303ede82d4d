"""POST /v1/nodes/heartbeat and GET /v1/nodes on the real app and pipeline: what is taken,
what is refused and why, and which nodes each source sees."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from roombot.pipeline import Pipeline
from tests.api.conftest import OTHER, ROOM, auth

BEAT: dict[str, Any] = {
    "node": "gpu-1",
    "interval": 10,
    "harnesses": {"openclaw": "2026.9.6", "pi": None},
    "reporters": {"openclaw": True},
    "plugin_management": False,
    "version": "0.4.0",
}


async def post(client: TestClient[Any, Any], body: object, who: str = "ops") -> Any:
    resp = await client.post("/v1/nodes/heartbeat", json=body, headers=auth(who))
    return resp.status, await resp.json()


async def test_a_heartbeat_is_taken_and_the_node_is_listed(
    client: TestClient[Any, Any], pipeline: Pipeline
) -> None:
    status, body = await post(client, BEAT)
    assert status == 200 and body == {"offline_after": 45.0, "heartbeat_interval": 10.0}
    resp = await client.get("/v1/nodes", headers=auth("ops"))
    listed = await resp.json()
    [node] = listed["nodes"]
    assert listed["offline_after"] == 45.0
    assert node["node"] == "gpu-1" and node["online"] is True and node["source"] == "ops"
    assert node["harnesses"] == {"openclaw": "2026.9.6", "pi": None}
    assert node["reporters"] == {"openclaw": True} and node["version"] == "0.4.0"
    assert node["interval"] == 10.0 and node["plugin_management"] is False
    assert abs(node["last_seen"] - pipeline.clock()) < 5


async def test_a_minimal_heartbeat_and_unknown_fields(client: TestClient[Any, Any]) -> None:
    status, _ = await post(client, {"node": "n1", "interval": 0.5, "later": {"x": 1}})
    assert status == 200
    status, _ = await post(client, {"node": "n2"})  # at the bot's heartbeat_interval
    assert status == 200
    resp = await client.get("/v1/nodes", headers=auth("ops"))
    intervals = {n["node"]: n["interval"] for n in (await resp.json())["nodes"]}
    assert intervals == {"n1": 0.5, "n2": 10.0}


async def test_bad_heartbeats_are_refused_naming_the_field(client: TestClient[Any, Any]) -> None:
    cases = [
        ({**BEAT, "node": ""}, "node"),
        ({**BEAT, "node": "gpu 1; rm -rf"}, "node"),
        ({**BEAT, "node": "x" * 129}, "node"),
        ({**BEAT, "interval": 0}, "interval"),
        ({**BEAT, "interval": 45}, "interval"),  # not below offline_after
        ({**BEAT, "harnesses": {"Bad Name": "1"}}, "harnesses"),  # the name in `expected`
        ({**BEAT, "harnesses": {"pi": "1\n2"}}, "harnesses.pi"),
        ({**BEAT, "harnesses": {f"h{i}": "1" for i in range(65)}}, "harnesses"),
        ({**BEAT, "reporters": {"pi": "yes"}}, "reporters.pi"),
        ({**BEAT, "plugin_management": "no"}, "plugin_management"),
        ({**BEAT, "version": "v" * 65}, "version"),
        ([BEAT], "(body)"),
    ]
    for body, field in cases:
        status, answer = await post(client, body)
        assert status == 400, (body, answer)
        assert answer["field"] == field, (field, answer)
        assert answer["expected"], answer
    resp = await client.get("/v1/nodes", headers=auth("ops"))
    assert (await resp.json())["nodes"] == []  # nothing was taken


async def test_a_node_online_under_one_source_is_refused_to_another(
    client: TestClient[Any, Any],
) -> None:
    assert (await post(client, BEAT, "hub"))[0] == 200
    status, answer = await post(client, BEAT, "engine")
    assert status == 409 and answer["field"] == "node"
    assert "online under source 'hub'" in answer["message"]


async def test_each_source_sees_its_own_nodes_and_an_all_rooms_source_sees_every_one(
    client: TestClient[Any, Any], pipeline: Pipeline
) -> None:
    await post(client, {**BEAT, "node": "hub-node"}, "hub")
    await post(client, {**BEAT, "node": "engine-node"}, "engine")
    await post(client, {**BEAT, "node": "ops-node"}, "ops")
    # What a node's silence may end: its source's rooms.
    rooms = {s.node: s.rooms for s in pipeline.node_states()}
    assert rooms == {"hub-node": {ROOM}, "engine-node": {OTHER}, "ops-node": None}

    async def seen(who: str) -> list[str]:
        resp = await client.get("/v1/nodes", headers=auth(who))
        assert resp.status == 200
        return [n["node"] for n in (await resp.json())["nodes"]]

    assert await seen("hub") == ["hub-node"]
    assert await seen("engine") == ["engine-node"]
    assert await seen("ops") == ["engine-node", "hub-node", "ops-node"]
    assert await seen("tiny") == []


async def test_no_token_no_heartbeat(client: TestClient[Any, Any]) -> None:
    resp = await client.post("/v1/nodes/heartbeat", json=BEAT)
    assert resp.status == 401
    resp = await client.get("/v1/nodes")
    assert resp.status == 401
