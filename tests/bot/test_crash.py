"""Exactly once, in order, through crashes: Synapse killed, the bot SIGKILLed, mid-burst."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.devserver import DevServer
from roombot.outbox import Outbox
from tests.bot.helpers import ENV, Post, Team, make_team, running, start_bot, turn_error

BURST = 200


def messages_of(team: Team) -> list[str]:
    out = []
    for s in team.member.messages(team.room_id, team.bot.user_id):
        card = read_payload(s.content.get(CARD_KEY))
        assert isinstance(card, TurnError), card
        out.append(card.message)
    return out


def expected() -> list[str]:
    return [turn_error(f"n{i:03}").message for i in range(BURST)]


async def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.02)


async def test_synapse_killed_during_burst(
    synapse_factory: Callable[..., DevServer], tmp_path: Path
) -> None:
    hs = synapse_factory()
    team = await make_team(hs, tmp_path, encrypted=True)
    try:
        async with running(team.config()) as bot:
            for i in range(BURST):
                bot.outbox.enqueue(Post(team.room_id, f"n{i:03}", turn_error(f"n{i:03}")))
            await wait_until(lambda: bot.outbox.counts()["sent"] >= 40, 60, "40 sent")
            hs.kill()  # SIGKILL to Synapse's pid, sends in flight
            await asyncio.sleep(0.5)  # an answer already on its way may still land
            killed_at = bot.outbox.counts()["sent"]
            await asyncio.sleep(1.5)
            assert bot.outbox.counts()["sent"] == killed_at  # nothing goes out meanwhile
            assert bot.courier.stats.retries > 0
            hs.start()
            await wait_until(lambda: bot.outbox.counts()["sent"] == BURST, 180, "all sent")
        await team.member.wait_for(team.room_id, BURST, sender=team.bot.user_id, timeout=120)
        await team.member.sync(500)
        assert messages_of(team) == expected()
        assert not team.member.undecryptable
    finally:
        await team.member.close()


# The real bot, made to SIGKILL itself at one point of a long message's two steps: right
# after the card is recorded as sent ("card": the file not sent yet), or right after the
# homeserver answered the file's PUT ("file": the answer never recorded).
_CRASHING = """
import os, signal, sys
from roombot import outbox
if sys.argv[1] == "card":
    real = outbox.Outbox.mark_sent
    def mark_sent(self, seq, event_id):
        settled = real(self, seq, event_id)
        if not settled:
            os.kill(os.getpid(), signal.SIGKILL)
        return settled
    outbox.Outbox.mark_sent = mark_sent
else:
    def mark_file_sent(self, seq, event_id):
        os.kill(os.getpid(), signal.SIGKILL)
    outbox.Outbox.mark_file_sent = mark_file_sent
from roombot.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def start_crashing_bot(config: Path, log: Path, at: str) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", _CRASHING, at, "run", "-c", str(config)],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=config.parent,
            env=ENV,
        )


async def test_bot_sigkilled_during_burst(synapse: DevServer, tmp_path: Path) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True)
    config = team.config()
    log = tmp_path / "bot.log"
    outbox = Outbox(config.outbox_at)
    proc = start_bot(team.config_path, log)
    try:
        for i in range(BURST):  # the bot picks these up from the shared SQLite file
            outbox.enqueue(Post(team.room_id, f"n{i:03}", turn_error(f"n{i:03}")))
        await wait_until(
            lambda: outbox.counts()["sent"] >= 60 or proc.poll() is not None, 90, "60 sent"
        )
        assert proc.poll() is None, log.read_text()[-3000:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        sent_before = outbox.counts()["sent"]
        assert sent_before < BURST, "the burst was over before the kill"
        proc = start_bot(team.config_path, log)
        await wait_until(
            lambda: outbox.counts()["sent"] == BURST or proc.poll() is not None, 180, "all sent"
        )
        assert proc.poll() is None, log.read_text()[-3000:]
        await team.member.wait_for(team.room_id, BURST, sender=team.bot.user_id, timeout=120)
        await team.member.sync(500)
        got = messages_of(team)
        assert got == expected(), (len(got), len(set(got)), log.read_text()[-3000:])
        assert not team.member.undecryptable, log.read_text()[-3000:]
        # SIGTERM: a clean stop, status 0.
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        outbox.close()
        await team.member.close()


async def test_bot_started_before_the_homeserver_waits_for_it(
    synapse_factory: Callable[..., DevServer], tmp_path: Path
) -> None:
    hs = synapse_factory()
    team = await make_team(hs, tmp_path, encrypted=False)
    hs.stop()
    try:
        bot_ctx = running(team.config())
        starting = asyncio.create_task(bot_ctx.__aenter__())
        await asyncio.sleep(2)
        assert not starting.done()  # still waiting for the homeserver, not dead
        hs.start()
        bot = await asyncio.wait_for(starting, 60)
        try:
            bot.outbox.enqueue(Post(team.room_id, "late", turn_error("late")))
            await wait_until(lambda: bot.outbox.counts()["sent"] == 1, 30, "sent")
        finally:
            await bot_ctx.__aexit__(None, None, None)
        (s,) = await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
        assert read_payload(s.content.get(CARD_KEY)).message == turn_error("late").message  # type: ignore[union-attr]
    finally:
        await team.member.close()


@pytest.mark.parametrize("at", ["card", "file"])
async def test_bot_sigkilled_between_card_and_file_sends_the_file_once(
    synapse: DevServer, tmp_path: Path, at: str
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True)
    config = team.config()
    log = tmp_path / "bot.log"
    outbox = Outbox(config.outbox_at)
    # Over the card's budget: the whole text travels as an m.file reply to the card.
    long = "\n".join(
        f"frame {i}: at handler (/srv/agent/dist/chunk-{i}.js:1:2)" for i in range(4000)
    )
    outbox.enqueue(Post(team.room_id, "long", turn_error("long", long)))
    outbox.enqueue(Post(team.room_id, "after", turn_error("after")))
    proc = start_crashing_bot(team.config_path, log, at)
    try:
        assert proc.wait(90) == -signal.SIGKILL, log.read_text()[-3000:]
        head = outbox.head(team.room_id)
        assert head is not None and head.turn == "long" and head.owes_file  # the card is up
        assert head.file_event_id is None and outbox.counts()["sent"] == 0
        proc = start_bot(team.config_path, log)
        await wait_until(
            lambda: outbox.counts()["sent"] == 2 or proc.poll() is not None, 90, "both sent"
        )
        assert proc.poll() is None, log.read_text()[-3000:]
        await team.member.wait_for(team.room_id, 3, sender=team.bot.user_id, timeout=60)
        await team.member.sync(500)
        seen = team.member.messages(team.room_id, team.bot.user_id)
        # The card once, its file once (a reply to it), then the next card: nothing doubled.
        assert [s.content["msgtype"] for s in seen] == ["m.notice", "m.file", "m.notice"], log
        card, file_event, after = seen
        assert read_payload(after.content.get(CARD_KEY)).message == turn_error("after").message  # type: ignore[union-attr]
        assert file_event.content["m.relates_to"] == {"m.in_reply_to": {"event_id": card.event_id}}
        got = await team.member.read_file(file_event.content, file_event.content["file"]["url"])
        assert got.decode() == long
        post = outbox.get("long/post")
        assert post is not None and post.file_event_id == file_event.event_id
        assert not team.member.undecryptable
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        outbox.close()
        await team.member.close()
