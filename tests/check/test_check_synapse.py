"""`roombot run --check` against the suite's Synapse: a good file exits 0 and touches nothing.

Before the first start (no state directory: it must not be created) and after
one (the state directory byte for byte as the bot left it); with a session, the
rooms the bot could not post in are named, and a session the homeserver refuses
is caught when no password could replace it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from roombot.config import load_config
from roombot.devserver import DevServer, User, free_port
from roombot.session import credentials_path, read_credentials
from tests.bot.helpers import running
from tests.check.helpers import TOKEN, check, keys, write_config
from tests.conftest import unique_name

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOMBOT_API_TOKEN", TOKEN)
    monkeypatch.delenv("ROOMBOT_PASSWORD", raising=False)


def create_room(hs: DevServer, owner: User, **body: Any) -> str:
    answer = hs.request("POST", "/_matrix/client/v3/createRoom", body, token=owner.access_token)
    return str(answer["room_id"])


def snapshot(root: Path) -> dict[str, tuple[int, int, int, bytes | None]]:
    """Every entry under `root`: mode, size, modification time and content."""
    entries = {}
    for p in [root, *sorted(root.rglob("*"))]:
        st = p.lstat()
        content = p.read_bytes() if p.is_file() and not p.is_symlink() else None
        entries[str(p.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns, content)
    return entries


def check_command(path: Path) -> subprocess.CompletedProcess[str]:
    """The installed command's path, in a process of its own, on this checkout's code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "roombot", "run", "-c", str(path), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )


async def start_and_stop(path: Path) -> None:
    async with running(load_config(path)):
        pass


def test_a_good_file_is_valid_and_touches_nothing(
    synapse: DevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hs = synapse
    bot = hs.register_user(unique_name("bot"))
    member = hs.register_user(unique_name("member"))
    room = create_room(hs, member, invite=[bot.user_id])
    directory = tmp_path / "bot"
    path = write_config(
        directory,
        homeserver=hs.url,
        user_id=bot.user_id,
        rooms=(room,),
        password=bot.password,
        api_port=free_port(),
        metrics_port=free_port(),
    )
    state = directory / "state"

    # Before the first start: valid, and the state directory is still not there.
    done = check_command(path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{path}: valid" and done.stderr == ""
    assert not state.exists()

    # After one: valid, and nothing in the state directory changed.
    asyncio.run(start_and_stop(path))
    assert read_credentials(credentials_path(state)) is not None
    before = snapshot(state)
    assert check(capsys, path) == (0, [])
    # With the session, the password is no longer needed.
    no_password = write_config(
        directory,
        homeserver=hs.url,
        user_id=bot.user_id,
        rooms=(room,),
        password=None,
        name="no-password.toml",
    )
    assert check(capsys, no_password) == (0, [])
    assert snapshot(state) == before

    # Rooms the bot could not post in: one it is not invited to, an alias that is nobody's.
    # The one it is in is fine, and so are one it is invited to and a public one.
    invited = create_room(hs, member, invite=[bot.user_id])
    private = create_room(hs, member)
    public = create_room(hs, member, preset="public_chat")
    missing = f"#{unique_name('nosuch')}:{hs.server_name}"
    rooms = write_config(
        directory,
        homeserver=hs.url,
        user_id=bot.user_id,
        rooms=(room, private, invited, public, missing),
        password=None,
        name="rooms.toml",
    )
    rc, lines = check(capsys, rooms)
    assert rc == 2 and keys(lines) == ["rooms[1].room", "rooms[4].room"], lines
    assert "neither in" in lines[0] and f"invite {bot.user_id}" in lines[0]
    assert f"cannot resolve {missing}" in lines[1]
    assert snapshot(state) == before

    # A session the homeserver no longer accepts, and no password to log in again.
    token = read_credentials(credentials_path(state))["access_token"]  # type: ignore[index]
    hs.request("POST", "/_matrix/client/v3/logout", {}, token=token)
    rc, lines = check(capsys, no_password)
    assert rc == 2 and keys(lines) == ["matrix.password_env"], lines
    assert "stored session is refused" in lines[0]
    assert check(capsys, path) == (0, [])  # with the password, run logs in again
    assert snapshot(state) == before


def test_before_the_first_login_an_alias_must_resolve(
    synapse: DevServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = synapse.register_user(unique_name("bot"))
    missing = f"#{unique_name('nosuch')}:{synapse.server_name}"
    path = write_config(
        tmp_path / "bot", homeserver=synapse.url, user_id=bot.user_id, rooms=(missing,)
    )
    rc, lines = check(capsys, path)
    assert rc == 2 and keys(lines) == ["rooms[0].room"], lines
    assert not (tmp_path / "bot" / "state").exists()
