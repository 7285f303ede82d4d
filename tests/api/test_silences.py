"""GET /v1/silences on the real app: active and recently ended silences, scoped by room."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp.test_utils import TestClient
from jsonschema import Draft202012Validator

from roombot.api import make_app
from roombot.api.settings import ApiSettings
from roombot.api.validation import load_schema
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.silence_store import SilenceStore
from tests.api.conftest import OTHER, ROOM, auth

QUOTA = [("kind", "quota"), ("provider", "openai")]


class Clock:
    now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_silences_are_listed_marked_and_scoped(
    aiohttp_client: Callable[..., Any],
    settings: ApiSettings,
    pipeline: Pipeline,
    outbox: Outbox,
) -> None:
    clock = Clock()
    store = SilenceStore(outbox.path, clock)
    here = store.add(
        rooms={ROOM, "#team:example.org"}, matchers=QUOTA, duration=7200, reason="spent", by="@m:hs"
    )
    there = store.add(rooms={OTHER}, matchers=[("node", "gpu-*")], duration=600, by="@o:hs")
    lifted = store.add(rooms={ROOM}, matchers=[("kind", "auth")], duration=7200, by="@m:hs")
    old = store.add(rooms={ROOM}, matchers=[("kind", "timeout")], duration=60, by="@m:hs")
    clock.now += 1000
    store.lift(lifted.id, "@b:hs")
    clock.now += 2700  # `old` ended 3640 s ago: over the hour, no longer listed
    client: TestClient[Any, Any] = await aiohttp_client(
        make_app(settings, pipeline, silences=store)
    )
    validator = Draft202012Validator(load_schema("silences"))

    async def get(who: str) -> dict[str, Any]:
        resp = await client.get("/v1/silences", headers=auth(who))
        assert resp.status == 200
        body: dict[str, Any] = await resp.json()
        validator.validate(body)
        return body

    every = await get("ops")  # rooms = ["*"]
    assert every["now"] == clock.now
    assert [(s["id"], s["state"]) for s in every["silences"]] == [
        (here.id, "active"),
        (there.id, "ended"),
        (lifted.id, "lifted"),
    ]
    first = every["silences"][0]
    assert first == {
        "id": here.id,
        "state": "active",
        "rooms": sorted({ROOM, "#team:example.org"}),
        "matchers": {"kind": "quota", "provider": "openai"},
        "describe": "kind=quota provider=openai",
        "starts": 1_000_000.0,
        "ends": 1_007_200.0,
        "until": 1_007_200.0,
        "reason": "spent",
        "by": "@m:hs",
        "lifted": None,
        "lifted_by": None,
    }
    assert every["silences"][2]["lifted_by"] == "@b:hs"
    assert every["silences"][2]["until"] == 1_001_000.0
    hub = await get("hub")  # ROOM only
    assert [s["id"] for s in hub["silences"]] == [here.id, lifted.id]
    engine = await get("engine")  # OTHER only
    assert [s["id"] for s in engine["silences"]] == [there.id]
    assert old.id not in {s["id"] for s in every["silences"]}
    resp = await client.get("/v1/silences")
    assert resp.status == 401
    store.close()


async def test_without_a_store_the_route_says_so(
    aiohttp_client: Callable[..., Any], settings: ApiSettings, pipeline: Pipeline
) -> None:
    client: TestClient[Any, Any] = await aiohttp_client(make_app(settings, pipeline))
    resp = await client.get("/v1/silences", headers=auth("ops"))
    assert resp.status == 503
    assert "keeps no silences" in (await resp.json())["message"]
