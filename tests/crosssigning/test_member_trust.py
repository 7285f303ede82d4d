"""trust = "cross_signed" against a real Synapse: room keys only to cross-signed member devices.

The bot is the real one; the members are real nio clients (the strict client
of tests/crosssigning/strict.py, whose own PyNaCl check confirms which devices
are cross-signed). Members cross-sign themselves with roombot's bootstrap code,
the same steps any client takes. Each member's side is read for itself: a
decrypted notice, or an undecryptable event whose Megolm session the member
never received.

The story: a cross-signed member and a listed unsigned one decrypt, an unsigned
one does not; a late joiner is refused until it cross-signs, then gets the next
notice; a member who resets their identity without signing their device again
loses it from the next notice on. Each refusal is one log line per device.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from nio import MegolmEvent

from roombot.bot import Bot
from roombot.config import load_config
from roombot.crosssign.api import KeysApi
from roombot.crosssign.keys import Identity
from roombot.crosssign.manage import Bootstrapper, Mode
from roombot.crosssign.store import KeyStore
from roombot.devserver import DevServer
from roombot.observe import JsonFormatter
from tests.bot.helpers import Post, running, turn_error, wait_sent, write_config
from tests.conftest import unique_name
from tests.crosssigning.strict import StrictMember


async def member(hs: DevServer, tmp: Path, name: str) -> StrictMember:
    user = hs.register_user(unique_name(name))
    m = StrictMember(hs.url, user.user_id, user.password, tmp / name)
    await m.login(cross_sign=False)  # each member's signing is the test's to do
    return m


async def cross_sign(m: StrictMember, tmp: Path) -> None:
    """The member creates a cross-signing identity and signs its device, as a client does."""
    c = m.client
    async with KeysApi(c.homeserver, m.user_id, c.device_id, c.access_token) as api:
        result = await Bootstrapper(api, KeyStore(tmp / "keys"), lambda: m.password).run(
            Mode.ON_DEMAND
        )
    assert result.after.ok, result.after.problem


async def new_identity_only(m: StrictMember) -> None:
    """New master and self-signing keys, uploaded without signing any device with them."""
    c = m.client
    identity = Identity.generate(m.user_id)
    async with KeysApi(c.homeserver, m.user_id, c.device_id, c.access_token) as api:
        await api.upload_signing_keys(identity.upload_body(), lambda: m.password)


async def join(owner: StrictMember, m: StrictMember, room_id: str) -> None:
    await owner.client.room_invite(room_id, m.user_id)
    await m.sync(0)
    await m.join(room_id)


async def until(what: str, check: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        await asyncio.sleep(0.05)


def bot_knows_device(bot: Bot, room_id: str, m: StrictMember) -> bool:
    c = bot.shell.client
    room = c.rooms.get(room_id)
    devices = c.device_store.active_user_devices(m.user_id) if room else iter(())
    return bool(room and m.user_id in room.users) and any(
        d.id == m.client.device_id for d in devices
    )


async def settle(m: StrictMember) -> None:
    for _ in range(4):
        await m.sync(300)


def has_no_key(m: StrictMember, event_id: str) -> bool:
    """The member holds the event only undecrypted, and lacks its Megolm session."""
    olm = m.client.olm
    assert olm is not None
    for e in m.undecryptable:
        if isinstance(e, MegolmEvent) and e.event_id == event_id:
            return olm.inbound_group_store.get(e.room_id, e.sender_key, e.session_id) is None
    return False


def decrypted(m: StrictMember, room_id: str, event_id: str) -> bool:
    return any(s.event_id == event_id and s.encrypted for s in m.messages(room_id))


async def test_cross_signed_policy_against_real_members(
    synapse: DevServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    started = time.monotonic()
    signed = await member(synapse, tmp_path, "signed")
    unsigned = await member(synapse, tmp_path, "unsigned")
    listed = await member(synapse, tmp_path, "listed")
    late = await member(synapse, tmp_path, "late")
    everyone = (signed, unsigned, listed, late)
    bot_user = synapse.register_user(unique_name("bot"))
    try:
        await cross_sign(signed, tmp_path / "signed")
        room_id = await signed.create_room(encrypted=True, invite=(bot_user.user_id,))
        for m in (unsigned, listed):
            await join(signed, m, room_id)
        # The strict client's own check agrees on who is cross-signed.
        assert signed.client.device_id in await unsigned.cross_signed_devices(signed.user_id)
        assert await signed.cross_signed_devices(unsigned.user_id) == {}
        config_path = write_config(tmp_path / "bot", synapse, bot_user, [room_id])
        policy = (
            '[matrix]\ntrust = "cross_signed"\n'
            f'trusted_devices = ["{listed.user_id} {listed.client.device_id}"]\n'
        )
        config_path.write_text(config_path.read_text().replace("[matrix]\n", policy, 1))
        with caplog.at_level(logging.INFO, logger="roombot.matrix"):
            await run_the_story(config_path, room_id, bot_user.user_id, everyone, tmp_path)
        told = [
            json.loads(JsonFormatter().format(r))
            for r in caplog.records
            if r.name == "roombot.matrix" and "room keys" in r.getMessage()
        ]
        # One line per device and decision, however many notices went out.
        assert sorted((t["msg"], t["user_id"], t["device_id"]) for t in told) == sorted(
            [
                ("device gets no room keys", unsigned.user_id, unsigned.client.device_id),
                ("device gets no room keys", late.user_id, late.client.device_id),
                ("device gets room keys from now on", late.user_id, late.client.device_id),
                ("device gets no room keys", signed.user_id, signed.client.device_id),
            ]
        )
        refusal = next(t for t in told if t["user_id"] == unsigned.user_id)
        assert refusal["reason"] == "its owner has no cross-signing identity"
        assert refusal["level"] == "warning"
        reset = next(t for t in told if t["user_id"] == signed.user_id)
        assert reset["reason"] == "its owner has not signed it with the self-signing key"
    finally:
        for m in everyone:
            await m.close()
    print(f"cross_signed story took {time.monotonic() - started:.1f} s")


async def run_the_story(
    config_path: Path,
    room_id: str,
    bot_id: str,
    everyone: tuple[StrictMember, ...],
    tmp_path: Path,
) -> None:
    signed, unsigned, listed, late = everyone
    async with running(load_config(config_path)) as bot:
        assert bot.shell.config.matrix.trust == "cross_signed"
        await until("the bot to know the members", lambda: bot_knows_device(bot, room_id, listed))

        # 1. Cross-signed and listed devices decrypt; the unsigned one gets no key.
        bot.outbox.enqueue(Post(room_id, "t1", turn_error("t1")))
        await wait_sent(bot, 1)
        first = bot.outbox.posted_event(room_id, "t1")
        assert first is not None
        await signed.wait_for(room_id, 1, sender=bot_id)
        await listed.wait_for(room_id, 1, sender=bot_id)
        await settle(unsigned)
        assert decrypted(signed, room_id, first) and decrypted(listed, room_id, first)
        assert not unsigned.messages(room_id, bot_id)
        assert has_no_key(unsigned, first)
        # The strict member shows the bot's notice: the bot is cross-signed too.
        assert [s.event_id for s in await signed.shown(room_id, bot_id)] == [first]

        # 2. A late joiner, not cross-signed yet: no key, though the bot knows the device.
        await join(signed, late, room_id)
        await until("the bot to know the late joiner", lambda: bot_knows_device(bot, room_id, late))
        bot.outbox.enqueue(Post(room_id, "t2", turn_error("t2")))
        await wait_sent(bot, 2)
        second = bot.outbox.posted_event(room_id, "t2")
        assert second is not None
        await signed.wait_for(room_id, 2, sender=bot_id)
        for m in (late, unsigned):
            await settle(m)
            assert has_no_key(m, second)

        # 3. The late joiner cross-signs: the bot hears it from sync, and the next notice
        # reaches it (the earlier ones stay closed to it).
        seen_before = bot.shell.recipients.changes_seen.get(late.user_id, 0)
        await cross_sign(late, tmp_path / "late")
        assert late.client.device_id in await signed.cross_signed_devices(late.user_id)
        await until(
            "the bot to see the late joiner's keys change",
            lambda: bot.shell.recipients.changes_seen.get(late.user_id, 0) > seen_before,
        )
        bot.outbox.enqueue(Post(room_id, "t3", turn_error("t3")))
        await wait_sent(bot, 3)
        third = bot.outbox.posted_event(room_id, "t3")
        assert third is not None
        await late.wait_for(room_id, 1, sender=bot_id)
        await signed.wait_for(room_id, 3, sender=bot_id)
        await settle(unsigned)
        assert decrypted(late, room_id, third) and has_no_key(late, second)
        assert [s.event_id for s in await late.shown(room_id, bot_id)] == [third]
        assert has_no_key(unsigned, third) and not unsigned.messages(room_id, bot_id)
        await listed.wait_for(room_id, 3, sender=bot_id)
        assert [s.event_id for s in signed.messages(room_id, bot_id)] == [first, second, third]

        # 4. A member resets their identity and does not sign the device again: the device
        # it vouched for is out from the next notice on (nio starts a new Megolm session).
        seen_before = bot.shell.recipients.changes_seen.get(signed.user_id, 0)
        await new_identity_only(signed)
        assert await late.cross_signed_devices(signed.user_id) == {}
        await until(
            "the bot to see the reset identity",
            lambda: bot.shell.recipients.changes_seen.get(signed.user_id, 0) > seen_before,
        )
        bot.outbox.enqueue(Post(room_id, "t4", turn_error("t4")))
        await wait_sent(bot, 4)
        fourth = bot.outbox.posted_event(room_id, "t4")
        assert fourth is not None
        await late.wait_for(room_id, 2, sender=bot_id)
        await settle(signed)
        assert has_no_key(signed, fourth)
        assert decrypted(late, room_id, fourth)
