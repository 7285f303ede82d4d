"""The bot's cards reach a member whose client enforces MSC4153, only once the bot is cross-signed.

The bot is the real one (roombot.bot.Bot, its Matrix shell and outbox); the
member is a real nio client made strict by tests/crosssigning/strict.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from roombot.bot import Bot
from roombot.config import Config, load_config
from roombot.crosssign.assess import State
from roombot.crosssign.keys import Usage
from roombot.devserver import DevServer, User
from tests.bot.helpers import Post, turn_error, wait_sent, write_config
from tests.conftest import unique_name
from tests.crosssigning.strict import StrictMember


@contextlib.asynccontextmanager
async def bot_running(config: Config, *, cross_signing: bool) -> AsyncIterator[Bot]:
    bot = Bot(config)
    bot.shell.cross_signing = cross_signing
    task = asyncio.create_task(bot.run(handle_signals=False))
    try:
        started = asyncio.create_task(bot.started.wait())
        done, _ = await asyncio.wait({task, started}, timeout=60, return_when="FIRST_COMPLETED")
        if task in done:
            task.result()
        assert started in done, "bot did not start in 60 s"
        yield bot
    finally:
        bot.stop()
        await asyncio.wait_for(task, 60)


async def team(hs: DevServer, tmp: Path) -> tuple[User, StrictMember, str, Path]:
    bot = hs.register_user(unique_name("bot"))
    member_user = hs.register_user(unique_name("member"))
    member = StrictMember(hs.url, member_user.user_id, member_user.password, tmp / "member")
    await member.login()
    room_id = await member.create_room(encrypted=True, invite=(bot.user_id,))
    return bot, member, room_id, write_config(tmp / "bot", hs, bot, [room_id])


async def roombot_cli(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "roombot",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_signed_bot_is_shown_and_gets_keys(synapse: DevServer, tmp_path: Path) -> None:
    bot_user, member, room_id, config_path = await team(synapse, tmp_path)
    try:
        async with bot_running(load_config(config_path), cross_signing=True) as bot:
            assert bot.shell.cross_signing_state.state is State.OK
            device_id = bot.shell.client.device_id
            bot.outbox.enqueue(Post(room_id, "t1", turn_error("t1")))
            await wait_sent(bot, 1)
            seen = await member.wait_for(room_id, 1, sender=bot_user.user_id)
            shown = await member.shown(room_id, bot_user.user_id)
            assert [s.event_id for s in shown] == [s.event_id for s in seen]
            assert member.hidden == {}
            assert "dev.roombot.card" in shown[0].content
            # The strict member shares its room key with the bot's device.
            shared = await member.send_strict(room_id, "thanks, bot")
            assert (bot_user.user_id, device_id) in shared
    finally:
        await member.close()


async def test_unsigned_bot_is_hidden_until_bootstrapped(
    synapse: DevServer, tmp_path: Path
) -> None:
    bot_user, member, room_id, config_path = await team(synapse, tmp_path)
    config = load_config(config_path)
    try:
        async with bot_running(config, cross_signing=False) as bot:
            device_id = bot.shell.client.device_id
            bot.outbox.enqueue(Post(room_id, "t1", turn_error("t1")))
            await wait_sent(bot, 1)
            seen = await member.wait_for(room_id, 1, sender=bot_user.user_id)
            # The member decrypted it (a plain client shows it) ...
            assert seen[0].encrypted and "dev.roombot.card" in seen[0].content
            assert not member.undecryptable
            # ... but the strict client hides it, and keeps its room key from the bot.
            assert await member.shown(room_id, bot_user.user_id) == []
            assert "not cross-signed" in member.hidden[seen[0].event_id]
            shared = await member.send_strict(room_id, "who are you?")
            assert (bot_user.user_id, device_id) not in shared
            assert shared == set()  # nobody else to share with

        # The operator looks, then repairs with the command the bot names.
        code, out, err = await roombot_cli("crypto", "status", "-c", str(config_path))
        assert code == 1 and "not_set_up" in out and device_id in out, err
        code, out, err = await roombot_cli("crypto", "bootstrap", "-c", str(config_path))
        assert code == 0, err
        assert "created a new cross-signing identity" in out and "recovery key" in out
        code, out, _ = await roombot_cli("crypto", "status", "-c", str(config_path), "--json")
        status = json.loads(out)
        assert code == 0 and status["state"] == "ok" and status["device_id"] == device_id
        assert {"by": "the self-signing key", "valid": True}.items() <= next(
            s for s in status["signatures"] if s["by"] == "the self-signing key"
        ).items()

        # The same device, now cross-signed: its notices are shown, old and new.
        async with bot_running(config, cross_signing=True) as bot:
            assert bot.shell.client.device_id == device_id
            assert bot.shell.cross_signing_state.state is State.OK
            bot.outbox.enqueue(Post(room_id, "t2", turn_error("t2")))
            await wait_sent(bot, 2)
            await member.wait_for(room_id, 2, sender=bot_user.user_id)
            shown = await member.shown(room_id, bot_user.user_id)
            assert len(shown) == 2 and member.hidden == {}
            shared = await member.send_strict(room_id, "welcome back")
            assert (bot_user.user_id, device_id) in shared
    finally:
        await member.close()


async def test_restart_keeps_identity_and_device(
    synapse: DevServer, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    bot_user, member, room_id, config_path = await team(synapse, tmp_path)
    config = load_config(config_path)
    try:
        async with bot_running(config, cross_signing=True) as bot:
            first = bot.shell.cross_signing_state
            device_id = bot.shell.client.device_id
        printed_first = capfd.readouterr().err
        recovery = (config.state_dir / "recovery-key.txt").read_text()
        key = next(ln for ln in recovery.splitlines() if not ln.startswith("#"))
        assert key not in printed_first  # not a terminal: the key is in its file only
        async with bot_running(config, cross_signing=True) as bot:
            again = bot.shell.cross_signing_state
            assert bot.shell.client.device_id == device_id
            bot.outbox.enqueue(Post(room_id, "t1", turn_error("t1")))
            await wait_sent(bot, 1)
        assert key not in capfd.readouterr().err
        assert again.state is State.OK
        assert again.local.master == first.local.master  # same identity
        assert [again.server_public(u) for u in Usage] == [first.server_public(u) for u in Usage]
        await member.wait_for(room_id, 1, sender=bot_user.user_id)
        assert len(await member.shown(room_id, bot_user.user_id)) == 1
    finally:
        await member.close()
