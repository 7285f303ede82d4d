"""`[store]` in the config, `roombot store migrate|status`, and `run --check` on a store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roombot.cli import main
from roombot.config import ConfigError, load_config
from roombot.outbox import Action, Outbox
from roombot.store.db import PostgresDatabase
from roombot.store.lease import Lease
from roombot.store.migrations import available
from roombot.store.pgcluster import PgCluster
from tests.check.helpers import TOKEN, check, keys, write_config
from tests.conftest import unique_name


@pytest.fixture(autouse=True)
def api_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOMBOT_API_TOKEN", TOKEN)


def config_with(tmp_path: Path, store: str, *, outbox: str = "") -> Path:
    return write_config(
        tmp_path, homeserver="http://127.0.0.1:1", extra=f"{outbox}\n[store]\n{store}\n"
    )


def test_a_password_in_the_url_is_refused_with_where_to_put_it(tmp_path: Path) -> None:
    for url in ("postgresql://bot:hunter2@db/roombot", "postgresql://bot@db/roombot?password=x"):
        with pytest.raises(ConfigError) as e:
            load_config(config_with(tmp_path, f'url = "{url}"'))
        assert e.value.key == "store.url" and "store.password_env" in e.value.problem
        assert "hunter2" not in str(e.value)


def test_a_store_url_and_a_sqlite_path_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        load_config(
            config_with(
                tmp_path, 'url = "postgresql://bot@db/r"', outbox='[outbox]\npath = "o.sqlite3"'
            )
        )
    assert e.value.key == "outbox.path"
    with pytest.raises(ConfigError) as e:
        load_config(config_with(tmp_path, 'url = "mysql://bot@db/r"'))
    assert e.value.key == "store.url" and "postgresql://" in e.value.problem


def test_the_password_comes_from_its_file_and_every_part_uses_the_store(tmp_path: Path) -> None:
    (tmp_path / "pgpass").write_text("s3cr et&=\n")
    c = load_config(
        config_with(tmp_path, 'url = "postgresql://bot@db/r"\npassword_file = "pgpass"')
    )
    assert c.outbox_at == c.journal_at == "postgresql://bot@db/r?password=s3cr%20et%26%3D"
    plain = load_config(write_config(tmp_path, homeserver="http://127.0.0.1:1"))
    assert plain.store is None and plain.outbox_at == plain.outbox.path


def test_migrate_then_status_on_postgresql(
    tmp_path: Path, pg: PgCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    url = pg.create_database(unique_name("cli"))
    path = config_with(tmp_path, f'url = "{url}"')
    capsys.readouterr()
    assert main(["store", "migrate", "-c", str(path)]) == 0
    applied = capsys.readouterr().out.splitlines()
    assert applied == [f"applied {m.version:04d}_{m.name}" for m in available()]
    assert main(["store", "migrate", "-c", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith("up to date")
    box = Outbox(url)
    box.add(key="k", room="!r", turn="t", action=Action.ANSWER, content={"body": "x"})
    box.close()
    assert main(["store", "status", "-c", str(path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["engine"] == "postgresql" and status["schema"] == available()[-1].version
    assert status["notices"] == {"pending": 1} and status["journal_rows"] == 0
    assert status["leader"] is None  # no roombot runs on it
    held = Lease(PostgresDatabase(url), "host-a /state", 30.0)
    assert held.acquire() is None
    assert main(["store", "status", "-c", str(path)]) == 0
    assert "leader: host-a /state (lease renewed" in capsys.readouterr().out


def test_status_of_a_bot_not_started_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, homeserver="http://127.0.0.1:1")
    capsys.readouterr()
    assert main(["store", "status", "-c", str(path)]) == 0
    out = capsys.readouterr().out
    assert "engine: sqlite" in out and out.count("not created yet") == 2
    assert not (tmp_path / "state").exists()


def test_an_unreachable_store_is_a_check_finding_and_a_status_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql://roombot@/r?host={tmp_path / 'no-server'}"
    path = config_with(tmp_path, f'url = "{url}"')
    rc, lines = check(capsys, path)
    assert rc == 2 and "store.url" in keys(lines), lines
    assert any("cannot connect" in line for line in lines)
    assert main(["store", "status", "-c", str(path)]) == 1
    assert "cannot reach the store" in capsys.readouterr().err


def test_run_with_the_store_unreachable_says_so_without_the_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pgpass").write_text("pg-secret-7731\n")
    url = f"postgresql://roombot@/r?host={tmp_path / 'no-server'}"
    path = config_with(tmp_path, f'url = "{url}"\npassword_file = "pgpass"')
    capsys.readouterr()
    assert main(["run", "-c", str(path)]) == 1
    err = capsys.readouterr().err
    assert "cannot start: cannot connect to postgresql://roombot@/r?host=" in err
    assert "password=***" in err and "pg-secret-7731" not in err
