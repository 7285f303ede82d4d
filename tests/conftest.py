"""Shared fixtures: a real Synapse on 127.0.0.1 for the whole session, or private ones.

`synapse`: one session-wide server with raised rate limits; register fresh users
per test (`synapse.register_user(unique_name("bot"))`) so tests do not share rooms.
`synapse_factory`: a private server for tests that stop or kill it; stopped and
removed at the end of the test.
`pg`: one session-wide throwaway PostgreSQL cluster (Debian's server, on a socket).
`stores`: where a test keeps the bot's state, once on each engine: `stores(name)`
is a SQLite file of that name, or one fresh, migrated PostgreSQL database's URL
(every part shares it there); `store_at` is `stores("state.sqlite3")`.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from roombot.store.db import PostgresDatabase
from roombot.store.migrations import migrate
from roombot.store.pgcluster import PgCluster
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
    cluster = PgCluster.temporary()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.cleanup()


def fresh_database(cluster: PgCluster) -> str:
    """A new database on `cluster` with roombot's schema; its URL."""
    url = cluster.create_database(unique_name("t"))
    db = PostgresDatabase(url)
    try:
        migrate(db)
    finally:
        db.close()
    return url


@dataclass(frozen=True)
class Stores:
    engine: str
    root: Path
    url: str | None = None

    def __call__(self, name: str) -> str | Path:
        return self.url if self.url is not None else self.root / name


@pytest.fixture(params=["sqlite", "postgresql"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Stores:
    if request.param == "sqlite":
        return Stores("sqlite", tmp_path)
    return Stores("postgresql", tmp_path, fresh_database(request.getfixturevalue("pg")))


@pytest.fixture
def store_at(stores: Stores) -> str | Path:
    return stores("state.sqlite3")


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
