"""The store's lease on a real PostgreSQL: one holder at a time, a fencing token that
grows with each new holder, expiry on the database's clock, a restart taking its own
lease back at once, and a second bot on one store refused at start."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import pytest

from roombot.config import load_config
from roombot.devserver import DevServer
from roombot.matrix import StartupError
from roombot.store.db import PostgresDatabase, StoreUnavailable
from roombot.store.lease import Lease, LeaseLost
from roombot.store.pgcluster import PgCluster
from tests.bot.helpers import make_team, running, write_config
from tests.engines import fresh_database


def lease(url: str, holder: str, ttl: float = 30.0) -> Lease:
    return Lease(PostgresDatabase(url), holder, ttl)


def test_one_holder_and_the_token_grows_with_each_new_one(pg: PgCluster) -> None:
    url = fresh_database(pg)
    a, b = lease(url, "host-a /s"), lease(url, "host-b /s")
    assert a.acquire() is None and a.token == 1 and a.valid()
    held = b.acquire()
    assert held is not None and held.holder == "host-a /s" and not b.valid()
    a.renew()
    assert a.token == 1
    again = lease(url, "host-a /s")  # the same bot restarted: its lease, at once
    assert again.acquire() is None and again.token == 1
    a.release()
    assert b.acquire() is None and b.token == 2
    with pytest.raises(LeaseLost, match="held by host-b"):
        again.renew()
    assert not again.valid()


def test_an_expired_lease_is_taken_and_its_old_holder_told(pg: PgCluster) -> None:
    url = fresh_database(pg)
    a, b = lease(url, "host-a /s", ttl=0.6), lease(url, "host-b /s", ttl=0.6)
    assert a.acquire() is None
    assert b.acquire() is not None  # not expired yet
    time.sleep(0.8)
    assert not a.valid()  # it stopped sending before b could take over
    assert b.acquire() is None and b.token == 2
    with pytest.raises(LeaseLost):
        a.renew()


def test_a_holder_whose_renewals_failed_may_renew_when_nobody_took_over(
    private_pg: PgCluster,
) -> None:
    a = lease(fresh_database(private_pg), "host-a /s", ttl=0.6)
    assert a.acquire() is None
    private_pg.stop()
    time.sleep(0.7)
    assert not a.valid()
    with pytest.raises((psycopg.OperationalError, StoreUnavailable)):  # the caller retries
        a.renew()
    private_pg.start()
    a.renew()  # nobody else held it meanwhile: the same token, sending again
    assert a.token == 1 and a.valid()


async def test_a_second_bot_on_one_store_is_refused_naming_the_first(
    synapse: DevServer, tmp_path: Path, pg: PgCluster
) -> None:
    url = fresh_database(pg)
    store = f'[store]\nurl = "{url}"\n'
    team = await make_team(synapse, tmp_path / "one", encrypted=False, extra=store)
    other = write_config(tmp_path / "two", synapse, team.bot, [team.room_id], extra=store)
    try:
        async with running(team.config()):
            with pytest.raises(StartupError, match="held by another roombot"):
                async with running(load_config(other)):
                    pass
        # The first stopped cleanly and let go: the second starts at once.
        async with running(load_config(other)) as second:
            assert second.lease is not None and second.lease.token == 2
    finally:
        await team.member.close()
