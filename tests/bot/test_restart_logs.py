"""What an operator reads: `roombot run` started twice in two rooms, one encrypted.

The first start accepts each invite with one line; the restart says nothing about
rooms it has been in all along; every standard-error line of both is a JSON object;
nio's warnings about normal operation (a first Olm session, room keys a member
shares) do not reach the log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from roombot.config import load_config
from roombot.devserver import DevServer, free_port
from roombot.outbox import Outbox
from roombot.viewer import Viewer
from tests.bot.helpers import (
    Post,
    bot_and_member,
    make_team,
    running,
    turn_error,
    wait_sent,
    write_config,
)
from tests.conftest import unique_name

REPO = Path(__file__).resolve().parents[2]


async def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.05)


def room_keys_held(state_dir: Path) -> set[str]:
    """The Megolm sessions the bot's nio store holds (room keys members shared)."""
    held: set[str] = set()
    for db in (state_dir / "crypto").glob("*.db"):
        with sqlite3.connect(db) as c:
            held |= {row[0] for row in c.execute("select session_id from megolminboundsessions")}
    return held


def json_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            record = json.loads(line)
        except ValueError:
            raise AssertionError(f"{path.name} line {n} is not JSON: {line!r}") from None
        assert isinstance(record, dict) and {"ts", "level", "logger", "msg"} <= record.keys()
        out.append(record)
    return out


def about(records: list[dict[str, Any]], room_id: str) -> list[dict[str, Any]]:
    """Lines naming the room, except the delivery of the notices the test queued."""
    return [
        r
        for r in records
        if room_id in (r.get("room"), r.get("room_id")) and r["msg"] != "notice sent"
    ]


async def one_run(
    name: str,
    config_path: Path,
    outbox: Outbox,
    rooms: list[str],
    member: Viewer,
    encrypted_room: str,
) -> list[dict[str, Any]]:
    """Start the bot, deliver one notice to each room, let the member share a room key
    with it, stop it with SIGTERM; its standard error, line by line."""
    err = config_path.parent / f"{name}.stderr"
    out = config_path.parent / f"{name}.stdout"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with err.open("wb") as e, out.open("wb") as o:
        proc = subprocess.Popen(
            [sys.executable, "-m", "roombot", "run", "-c", str(config_path)],
            stdout=o,
            stderr=e,
            cwd=config_path.parent,
            env=env,
        )
    try:
        owed = outbox.counts()["sent"] + len(rooms)
        for room in rooms:
            outbox.enqueue(Post(room, f"{name}-{room}", turn_error(f"{name}-{room}")))
        await wait_until(
            lambda: outbox.counts()["sent"] == owed or proc.poll() is not None, 90, "sent"
        )
        assert proc.poll() is None, err.read_text()[-3000:]
        # The member writes in the encrypted room with a new room key, which its client
        # shares with the bot's device (an Olm message): the bot must take it quietly.
        await member.sync(0)
        member.client.olm.rotate_outbound_group_session(encrypted_room)
        await member.client.room_send(
            encrypted_room,
            "m.room.message",
            {"msgtype": "m.text", "body": f"hello from {name}"},
            ignore_unverified_devices=True,
        )
        key = member.client.olm.outbound_group_sessions[encrypted_room].id
        # An operator's look at health and metrics, and a source with a wrong token.
        cfg = load_config(config_path)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{cfg.metrics.port}/healthz") as r:
                assert r.status == 200
            async with http.get(f"http://127.0.0.1:{cfg.metrics.port}/metrics") as r:
                assert r.status == 200
            bad = {"Authorization": "Bearer " + "x" * 32}
            async with http.post(
                f"http://127.0.0.1:{cfg.api.port}/v1/batch", json={"events": []}, headers=bad
            ) as r:
                assert r.status == 401
        state_dir = config_path.parent / "state"
        await wait_until(lambda: key in room_keys_held(state_dir), 60, "the member's room key")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, err.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert out.read_text() == ""
    return json_lines(err)


async def test_restart_logs_only_what_changed(synapse: DevServer, tmp_path: Path) -> None:
    bot, member_user, member = await bot_and_member(synapse, tmp_path / "member")
    try:
        secret = await member.create_room(encrypted=True, invite=(bot.user_id,))
        plain = await member.create_room(encrypted=False, invite=(bot.user_id,))
        rooms = [secret, plain]
        # The report API and the metrics endpoint on too: their lines are JSON as well.
        api_port, metrics_port = free_port(), free_port()
        (tmp_path / "hub.token").write_text("t" * 32 + "\n")
        extra = (
            f'[api]\nport = {api_port}\n\n[[api.sources]]\nname = "hub"\n'
            f'token_file = "{tmp_path / "hub.token"}"\nrooms = ["*"]\n\n'
            f"[metrics]\nport = {metrics_port}\n"
        )
        path = write_config(tmp_path / "bot", synapse, bot, rooms, extra=extra)
        path.write_text(path.read_text().replace('format = "text"', 'format = "json"'))
        outbox = Outbox(load_config(path).outbox_at)
        try:
            first = await one_run("first", path, outbox, rooms, member, secret)
            restart = await one_run("restart", path, outbox, rooms, member, secret)
        finally:
            outbox.close()
    finally:
        await member.close()

    # A first start: one line per room, the invite it accepted, naming who sent it.
    for room in rooms:
        lines = about(first, room)
        assert [(r["msg"], r["inviter"]) for r in lines] == [
            ("invite accepted", member_user.user_id)
        ], lines
    # A restart: nothing changed in either room, so no line about either (the issue
    # allows one a room; the bot needs none, its "bot started" line counts them).
    assert not any(r["msg"] == "invite accepted" for r in restart)
    for room in rooms:
        assert about(restart, room) == [], about(restart, room)
    (started,) = [r for r in restart if r["msg"] == "bot started"]
    assert started["rooms"] == 2
    # nio logs only warnings and errors at level info: none in normal operation (its
    # "Missing session for device" at the first encrypted send, a room key it cannot
    # place, an Olm message seen twice).
    for name, records in (("first", first), ("restart", restart)):
        nio = [r for r in records if r["logger"].startswith("nio")]
        assert nio == [], (name, nio)
    # The first run did send in the encrypted room (when nio's warning comes).
    assert sum(r["msg"] == "notice sent" and r["room"] == secret for r in first) == 1


async def test_a_sync_position_the_homeserver_refuses_is_dropped_once(
    synapse: DevServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=False)
    try:
        async with running(team.config()):
            pass
        # As after the homeserver's database was reset: a position it never gave out.
        (db,) = (team.config().state_dir / "crypto").glob("*.db")
        with sqlite3.connect(db) as c:
            assert c.execute("update synctokens set token = 'not-a-position'").rowcount == 1
        caplog.set_level(logging.INFO, "roombot.matrix")
        async with running(team.config()) as bot:
            bot.outbox.enqueue(Post(team.room_id, "after-reset", turn_error("after-reset")))
            await wait_sent(bot, 1)
        refused = [r for r in caplog.records if "refused the stored sync position" in r.msg]
        assert len(refused) == 1, caplog.text  # once, then a sync from nothing went through
        (seen,) = await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
        assert seen.content["msgtype"] == "m.notice"
    finally:
        await team.member.close()


async def test_a_declined_invite_is_one_line(
    synapse: DevServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=False)
    stranger_user = synapse.register_user(unique_name("stranger"))
    stranger = Viewer(synapse.url, stranger_user.user_id, stranger_user.password, tmp_path / "s")
    caplog.set_level(logging.INFO, "roombot.matrix")
    try:
        await stranger.login()
        async with running(team.config()) as bot:
            other = await stranger.create_room(encrypted=False, invite=(team.bot.user_id,))

            def declined() -> bool:
                state = synapse.request(
                    "GET",
                    f"/_matrix/client/v3/rooms/{other}/state/m.room.member/{team.bot.user_id}",
                    token=stranger_user.access_token,
                )
                return bool(state["membership"] == "leave")

            await wait_until(declined, 30, "the invite declined")
            # Two syncs after it: the bot has seen its own leave come back.
            for _ in range(2):
                synced = bot.shell.last_sync
                await wait_until(lambda s=synced: bot.shell.last_sync > s, 30, "a sync")
        lines = [r.msg for r in caplog.records if getattr(r, "room_id", None) == other]
        assert lines == ["invite declined: inviter is not in invites.users or invites.servers"]
    finally:
        await stranger.close()
        await team.member.close()
