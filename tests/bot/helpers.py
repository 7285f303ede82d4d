"""Shared pieces of the bot tests: configs, decisions, a running bot, a member."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from cards.kinds import Kind
from cards.shape import Attempt, TurnError
from roombot.bot import Bot
from roombot.config import Config, load_config
from roombot.devserver import DevServer, User
from roombot.turns import Post, Retract
from roombot.viewer import Viewer
from tests.conftest import unique_name
from tests.engines import store_section


def turn_error(turn: str, message: str | None = None, kind: Kind = Kind.RATE_LIMIT) -> TurnError:
    words = message or f"Rate limit reached for gpt-5 in organization org-x (turn {turn}) <&>"
    return TurnError(
        kind=kind,
        message=words,
        harness="codex",
        provider="openai",
        model="gpt-5",
        retry_after=20,
        attempts=(Attempt(kind, words, "openai", "gpt-5", 429, 20),),
        turn=turn,
    )


def write_config(
    directory: Path,
    hs: DevServer,
    bot: User,
    rooms: list[str],
    *,
    extra: str = "",
    room_extra: str = "",
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "password").write_text(bot.password)
    room_tables = "".join(f'\n[[rooms]]\nroom = "{r}"\n{room_extra}\n' for r in rooms)
    text = f"""
state_dir = "state"

[matrix]
homeserver = "{hs.url}"
user_id = "{bot.user_id}"
password_file = "password"
request_timeout = 10
sync_timeout_ms = 2000

[outbox]
backoff_initial = 0.2
backoff_max = 2.0
poll_interval = 0.2

[log]
level = "info"
format = "text"
{room_tables}
{extra}
{store_section(directory)}
"""
    path = directory / "roombot.toml"
    path.write_text(text)
    return path


@dataclass
class Team:
    hs: DevServer
    bot: User
    member_user: User
    member: Viewer
    room_id: str
    config_path: Path

    def config(self) -> Config:
        return load_config(self.config_path)


async def bot_and_member(hs: DevServer, store: Path) -> tuple[User, User, Viewer]:
    """A new bot user, and a new member logged in (its device cross-signed) with its
    client's store in `store`."""
    bot = hs.register_user(unique_name("bot"))
    member_user = hs.register_user(unique_name("member"))
    member = Viewer(hs.url, member_user.user_id, member_user.password, store)
    await member.login()
    return bot, member_user, member


async def make_team(
    hs: DevServer, tmp: Path, *, encrypted: bool, extra: str = "", room_extra: str = ""
) -> Team:
    """A bot user and a member; the member creates the room and invites the bot."""
    bot, member_user, member = await bot_and_member(hs, tmp / "member-store")
    room_id = await member.create_room(encrypted=encrypted, invite=(bot.user_id,))
    path = write_config(tmp / "bot", hs, bot, [room_id], extra=extra, room_extra=room_extra)
    return Team(hs, bot, member_user, member, room_id, path)


@contextlib.asynccontextmanager
async def running(config: Config) -> AsyncIterator[Bot]:
    """The bot, in this process, until the block ends (then stopped as SIGTERM would)."""
    bot = Bot(config)
    task = asyncio.create_task(bot.run(handle_signals=False))
    try:
        started = asyncio.create_task(bot.started.wait())
        done, _ = await asyncio.wait({task, started}, timeout=60, return_when="FIRST_COMPLETED")
        if task in done:
            task.result()
        if started not in done:
            raise TimeoutError("bot did not start in 60 s")
        yield bot
    finally:
        bot.stop()
        await asyncio.wait_for(task, 60)


ROOT = Path(__file__).resolve().parents[2]
# This checkout's code, whatever the subprocess's working directory.
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def start_bot(config: Path, log: Path, env: Mapping[str, str] = {}) -> subprocess.Popen[bytes]:
    """`roombot run -c config` as a process, its output appended to `log`."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "roombot", "run", "-c", str(config)],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=config.parent,
            env={**ENV, **env},
        )


async def wait_sent(bot: Bot, count: int, timeout: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while bot.outbox.counts()["sent"] < count:
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"bot sent {bot.outbox.counts()} of {count}")
        await asyncio.sleep(0.05)


__all__ = ["Post", "Retract", "Team", "make_team", "running", "turn_error", "wait_sent"]
