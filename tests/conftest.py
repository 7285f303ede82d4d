"""Shared fixtures: a real Synapse on 127.0.0.1 for the whole session, or private ones.

`synapse`: one session-wide server with raised rate limits; register fresh users
per test (`synapse.register_user(unique_name("bot"))`) so tests do not share rooms.
`synapse_factory`: a private server for tests that stop or kill it; stopped and
removed at the end of the test.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.synapse import DevServer

_counter = itertools.count()


def unique_name(prefix: str) -> str:
    """A localpart no other test in this session uses."""
    return f"{prefix}{os.getpid()}x{next(_counter)}"


@pytest.fixture(scope="session")
def synapse() -> Iterator[DevServer]:
    server = DevServer.temporary()
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def synapse_factory() -> Iterator[Callable[..., DevServer]]:
    made: list[DevServer] = []

    def make(**kwargs: Any) -> DevServer:
        server = DevServer.temporary(**kwargs)
        made.append(server)
        server.start()
        return server

    try:
        yield make
    finally:
        for server in made:
            server.cleanup()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    # Under CI a skipped test is a failure: real-server tests must never go
    # quietly missing (a Synapse that did not start, a harness not installed).
    report = yield
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which counts as a failure: {report.longrepr}"
    return report
