"""PostgreSQL's schema on a real server: applied once, in order, by racing processes too."""

from __future__ import annotations

import threading

import pytest

from roombot.outbox import Outbox
from roombot.store.db import PostgresDatabase, StoreUnavailable, redact_url, to_psycopg
from roombot.store.migrations import applied, available, migrate, pending
from roombot.store.pgcluster import PgCluster
from tests.conftest import unique_name
from tests.engines import fresh_database


def test_parameters_are_written_as_psycopg_takes_them() -> None:
    assert to_psycopg("SELECT 1 WHERE a = ? AND b LIKE '5%'") == (
        "SELECT 1 WHERE a = %s AND b LIKE '5%%'"
    )


def test_a_url_is_logged_without_its_password() -> None:
    assert redact_url("postgresql://bot:s3cr%40t@db:5432/roombot") == (
        "postgresql://bot:***@db:5432/roombot"
    )
    assert (
        redact_url("postgresql://bot@/roombot?host=/run") == "postgresql://bot@/roombot?host=/run"
    )


def test_migrations_are_numbered_without_gaps() -> None:
    found = available()
    assert [m.version for m in found] == list(range(1, len(found) + 1))
    assert found[0].name == "outbox"


def test_migrate_applies_each_file_once(pg: PgCluster) -> None:
    db = PostgresDatabase(pg.create_database(unique_name("m")))
    assert applied(db) == [] and len(pending(db)) == len(available())
    first = migrate(db)
    assert [m.version for m in first] == [m.version for m in available()]
    assert migrate(db) == [] and pending(db) == []
    assert applied(db) == [m.version for m in available()]
    db.close()


def test_processes_starting_at_once_apply_the_schema_once(pg: PgCluster) -> None:
    url = pg.create_database(unique_name("race"))
    done: list[int] = []
    errors: list[BaseException] = []

    def start() -> None:
        db = PostgresDatabase(url)
        try:
            done.extend(m.version for m in migrate(db))
        except BaseException as e:  # collected: a thread's exception is otherwise lost
            errors.append(e)
        finally:
            db.close()

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(done) == [m.version for m in available()]  # each by exactly one of them


def test_an_outbox_on_an_unmigrated_database_says_how_to_mend_it(pg: PgCluster) -> None:
    url = pg.create_database(unique_name("bare"))
    with pytest.raises(RuntimeError, match="roombot store migrate"):
        Outbox(url)


def test_a_connection_the_server_dropped_is_opened_again(private_pg: PgCluster) -> None:
    import psycopg

    db = PostgresDatabase(fresh_database(private_pg))
    db.execute("INSERT INTO meta (name, value) VALUES ('before', '1')")
    private_pg.stop()
    with pytest.raises(psycopg.OperationalError):
        db.execute("SELECT 1")  # the drop is met by the statement after it
    with pytest.raises(StoreUnavailable, match="cannot connect to"):
        db.execute("SELECT 1")  # down: every try fails at once, none hangs
    private_pg.start()
    db.execute("INSERT INTO meta (name, value) VALUES ('after', '2')")
    rows = db.execute("SELECT name FROM meta ORDER BY name").fetchall()
    assert [r[0] for r in rows] == ["after", "before"]
    db.close()
