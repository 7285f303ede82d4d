"""Shared fixtures: a real Synapse on 127.0.0.1 for the whole session, or private ones.

`synapse`: one session-wide server with raised rate limits; register fresh users
per test (`synapse.register_user(unique_name("bot"))`) so tests do not share rooms.
`synapse_factory`: a private server for tests that stop or kill it; stopped and
removed at the end of the test.
`pg`: one session-wide throwaway PostgreSQL cluster (Debian's server, on a socket);
`private_pg`: a test's own, to restart.
`stores`: where a test keeps the bot's state, once on each engine: `stores(name)`
is a SQLite file of that name, or one fresh, migrated PostgreSQL database's URL
(every part shares it there); `store_at` is `stores("state.sqlite3")`.
`bot_store`: the bot modules' tests (those writing configs with tests.bot.helpers)
run once on each engine (tests/engines.py).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from roombot.store.pgcluster import PgCluster
from tests import engines
from tests.engines import ENGINES, Stores, fresh_database
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


@pytest.fixture(scope="session")
def pg() -> Iterator[PgCluster]:
    with PgCluster.started() as cluster:
        yield cluster


@pytest.fixture
def private_pg() -> Iterator[PgCluster]:
    """A cluster of the test's own, to stop and start without touching the session's."""
    with PgCluster.started() as cluster:
        yield cluster


@pytest.fixture(params=ENGINES)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Stores:
    if request.param == "sqlite":
        return Stores("sqlite", tmp_path)
    return Stores("postgresql", tmp_path, fresh_database(request.getfixturevalue("pg")))


@pytest.fixture
def store_at(stores: Stores) -> str | Path:
    return stores("state.sqlite3")


def _runs_a_bot(module: object) -> bool:
    from tests.bot import helpers

    return any(
        getattr(module, n, None) is getattr(helpers, n) for n in ("make_team", "write_config")
    )


# The bot's and the report API's end-to-end tests, once on each engine.
_BOTH_ENGINES = ("tests/bot/", "tests/api/", "tests/redact/", "tests/nodes/")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    where = metafunc.definition.path.as_posix()
    if any(f"/{d}" in where for d in _BOTH_ENGINES) and _runs_a_bot(metafunc.module):
        metafunc.parametrize("bot_store", ENGINES, indirect=True)


@pytest.fixture(autouse=True)
def bot_store(request: pytest.FixtureRequest) -> Iterator[str]:
    """The engine a bot config written by tests.bot.helpers uses in this test."""
    engine: str = getattr(request, "param", "sqlite")
    engines.use(request.getfixturevalue("pg") if engine == "postgresql" else None)
    try:
        yield engine
    finally:
        engines.use(None)


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
