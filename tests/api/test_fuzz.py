"""Fuzz the running report API from its OpenAPI document (schemathesis).

Valid and invalid bodies, headers and paths for every operation, thousands of
requests over loopback to a real server (real pipeline, journal and outbox):
no 5xx, every answer fits the document, invalid data is refused, and the
pipeline is still running and never saw the turn rules fail.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from aiohttp import web
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from roombot.api import make_app
from roombot.api.openapi import PATH
from roombot.api.settings import ApiSettings
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.room_reader import RoomReader
from roombot.silence_store import SilenceStore
from roombot.turns import TurnMachine
from tests.api.conftest import RULES, auth, sources

schema = schemathesis.openapi.from_path(str(PATH))
schema.config.generation.update(
    modes=[schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE],
    with_security_parameters=False,
)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
    unsupported_method,
]
EXAMPLES = 500  # per operation and mode: thousands of requests in all
REQUESTS = {"count": 0}


class Server:
    def __init__(self, state: Path) -> None:
        self.state = state
        self.url = ""
        self.pipeline: Pipeline | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()
        assert self._ready.wait(30), "server did not start"

    def stop(self) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        outbox = Outbox(self.state / "outbox.sqlite3")
        self.pipeline = Pipeline(self.state / "journal.sqlite3", TurnMachine(RULES), outbox)
        await self.pipeline.start()
        silences = SilenceStore(outbox.path)
        silences.add(rooms={"!a:hs"}, matchers=[("kind", "quota")], duration=3600, by="@m:hs")
        app = make_app(
            ApiSettings(sources=sources()),
            self.pipeline,
            desk=RoomReader(outbox, silences=silences),
            silences=silences,
        )
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        self._ready.set()
        await self._stop.wait()
        await runner.cleanup()
        await self.pipeline.stop()
        silences.close()
        outbox.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("fuzz"))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        yield s


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_fuzz_every_operation(
    case: schemathesis.Case, server: Server, session: requests.Session
) -> None:
    # The "ops" source may post about any room, so valid bodies reach the pipeline.
    case.call_and_validate(base_url=server.url, session=session, headers=auth("ops"), checks=CHECKS)
    REQUESTS["count"] += 1


def test_after_the_fuzz_the_pipeline_is_whole(server: Server, session: requests.Session) -> None:
    print(f"fuzz: {REQUESTS['count']} requests")
    assert REQUESTS["count"] >= 2000, REQUESTS
    resp = session.get(server.url + "/healthz")
    assert resp.status_code == 200 and resp.json()["ok"] is True
    assert server.pipeline is not None
    counts: dict[str, Any] = server.pipeline.counts
    assert counts["rule_failures"] == 0
    assert counts["accepted"] > 100  # the valid bodies did get through
