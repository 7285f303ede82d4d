"""Delivery against a real Synapse, with a second real nio client as the team member."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cards.codec import CARD_KEY, read_payload
from cards.kinds import Kind
from cards.shape import TurnError
from roombot.devserver import DevServer
from roombot.viewer import Viewer
from tests.bot.helpers import Post, Retract, make_team, running, turn_error, wait_sent
from tests.conftest import unique_name
from tests.prom import value


def card_of(content: dict[str, object]) -> TurnError:
    got = read_payload(content.get(CARD_KEY))
    assert isinstance(got, TurnError), got
    return got


def same_card(a: TurnError, b: TurnError) -> None:
    """The card fields survive the trip (the card does not carry turn/session bookkeeping)."""
    for f in ("kind", "message", "harness", "provider", "model", "retry_after", "attempts"):
        assert getattr(a, f) == getattr(b, f), f


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
async def test_member_reads_every_card_and_the_edit(
    synapse: DevServer, tmp_path: Path, encrypted: bool
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=encrypted)
    errors = [
        turn_error("t0"),
        turn_error("t1", "Your credit balance is too low — «naïve» <b>&amp;</b>", Kind.QUOTA),
        turn_error("t2", "upstream connect error", Kind.PROVIDER_UNAVAILABLE),
    ]
    try:
        async with running(team.config()) as bot:
            for i, e in enumerate(errors):
                assert bot.outbox.enqueue(Post(team.room_id, f"t{i}", e))
            assert not bot.outbox.enqueue(Post(team.room_id, "t0", errors[0]))  # idempotent
            recovered = dataclasses.replace(errors[1], recovered=True)
            bot.outbox.enqueue(Retract(team.room_id, "t1", recovered))
            await wait_sent(bot, 4)
        seen = await team.member.wait_for(team.room_id, 4, sender=team.bot.user_id)
        assert not team.member.undecryptable
        assert all(s.encrypted == encrypted for s in seen)
        originals = seen[:3]
        for s, e in zip(originals, errors, strict=True):
            assert s.content["msgtype"] == "m.notice"
            assert "m.mentions" in s.content
            same_card(card_of(s.content), e)
            assert not card_of(s.content).recovered
        edit = seen[3]
        assert edit.replaces == originals[1].event_id
        current = team.member.current(team.room_id, team.bot.user_id)
        assert len(current) == 3
        assert card_of(current[1].content).recovered
        same_card(card_of(current[1].content), errors[1])
    finally:
        await team.member.close()


async def test_restart_keeps_device_and_posting_encrypted(
    synapse: DevServer, tmp_path: Path
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True)
    try:
        async with running(team.config()) as bot:
            bot.outbox.enqueue(Post(team.room_id, "a", turn_error("a")))
            await wait_sent(bot, 1)
        creds = json.loads((team.config().state_dir / "credentials.json").read_text())
        async with running(team.config()) as bot:
            bot.outbox.enqueue(Post(team.room_id, "b", turn_error("b")))
            await wait_sent(bot, 2)
            assert bot.shell.client.device_id == creds["device_id"]
        seen = await team.member.wait_for(team.room_id, 2, sender=team.bot.user_id)
        assert [card_of(s.content).message for s in seen] == [
            turn_error("a").message,
            turn_error("b").message,
        ]
        assert all(s.encrypted for s in seen) and not team.member.undecryptable
        # The member sees one bot device, not one per start.
        devices = team.member.client.device_store.active_user_devices(team.bot.user_id)
        assert [d.id for d in devices] == [creds["device_id"]]
    finally:
        await team.member.close()


async def test_member_who_joins_later_decrypts_later_notices(
    synapse: DevServer, tmp_path: Path
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True)
    late_user = synapse.register_user(unique_name("late"))
    late = Viewer(synapse.url, late_user.user_id, late_user.password, tmp_path / "late")
    try:
        async with running(team.config()) as bot:
            bot.outbox.enqueue(Post(team.room_id, "before", turn_error("before")))
            await wait_sent(bot, 1)
            await late.login()
            await team.member.client.room_invite(team.room_id, late_user.user_id)
            await late.sync(0)
            await late.join(team.room_id)
            await asyncio.sleep(bot.config.matrix.sync_timeout_ms / 1000 + 0.5)  # bot syncs
            bot.outbox.enqueue(Post(team.room_id, "after", turn_error("after")))
            await wait_sent(bot, 2)
        seen = await late.wait_for(team.room_id, 1, sender=team.bot.user_id)
        assert card_of(seen[-1].content).message == turn_error("after").message
        assert seen[-1].encrypted
    finally:
        await late.close()
        await team.member.close()


async def test_loud_room_sends_text_with_mentions(synapse: DevServer, tmp_path: Path) -> None:
    team = await make_team(synapse, tmp_path, encrypted=False)
    cfg = team.config_path.read_text().replace(
        f'room = "{team.room_id}"\n',
        f'room = "{team.room_id}"\nloud = true\nmention = ["{team.member_user.user_id}"]\n',
    )
    team.config_path.write_text(cfg)
    try:
        async with running(team.config()) as bot:
            bot.outbox.enqueue(Post(team.room_id, "loud", turn_error("loud")))
            await wait_sent(bot, 1)
        (s,) = await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
        assert s.content["msgtype"] == "m.text"
        assert s.content["m.mentions"] == {"user_ids": [team.member_user.user_id]}
        assert team.member_user.user_id in str(s.content.get("formatted_body"))
    finally:
        await team.member.close()


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
async def test_one_megabyte_message_reaches_the_member_whole(
    synapse: DevServer, tmp_path: Path, encrypted: bool
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=encrypted)
    # A provider's long answer: mixed scripts, markup, newlines; about 1 MB of UTF-8.
    unit = 'Line of the provider\'s trace: <tag attr="x"> & ünïcødé ✓ 漢字\n'
    message = (unit * (1_000_000 // len(unit.encode()) + 1))[:400_000]
    while len(message.encode()) < 1_000_000:
        message += unit
    err = turn_error("big", message, Kind.CONTEXT_EXHAUSTED)
    try:
        async with running(team.config()) as bot:
            bot.outbox.enqueue(Post(team.room_id, "big", err))
            await wait_sent(bot, 1, timeout=120)  # settled: the card and then its file
            post = bot.outbox.get("big/post")
            # The turn recovered after all: the edit of the card posts no second file.
            bot.outbox.enqueue(
                Retract(team.room_id, "big", dataclasses.replace(err, recovered=True))
            )
            await wait_sent(bot, 2, timeout=60)
        s, f, edit = await team.member.wait_for(team.room_id, 3, sender=team.bot.user_id)
        await team.member.sync(500)
        assert len(team.member.messages(team.room_id, team.bot.user_id)) == 3  # not doubled
        assert edit.replaces == s.event_id
        assert "in the file roombot-big.txt" in edit.content["m.new_content"]["body"]
        card = card_of(s.content)
        assert card.message_file and card.message_file.startswith("mxc://")
        assert card.message_truncated and card.message != message
        assert message.startswith(card.message[:200])  # the card shows a preview
        # The card's text points at the file event, not at a URI no client opens.
        assert "mxc://" not in s.content["body"] and "mxc://" not in s.content["formatted_body"]
        assert "in the file roombot-big.txt, sent as a reply to this card" in s.content["body"]
        # The whole text: its own m.file event, a reply to the card.
        assert f.content["msgtype"] == "m.file"
        assert f.content["body"] == f.content["filename"] == "roombot-big.txt"
        assert f.content["info"] == {"mimetype": "text/plain", "size": len(message.encode())}
        assert f.content["m.relates_to"] == {"m.in_reply_to": {"event_id": s.event_id}}
        assert f.encrypted == encrypted
        if encrypted:
            assert "url" not in f.content and f.content["file"]["url"] == card.message_file
            assert s.content["file"]["url"] == card.message_file  # older readers keep it
        else:
            assert f.content["url"] == card.message_file
        whole = await team.member.read_file(f.content, card.message_file)
        assert whole.decode() == message
        assert post is not None and (post.event_id, post.file_event_id) == (s.event_id, f.event_id)
    finally:
        await team.member.close()


async def test_invites_only_from_configured_people(synapse: DevServer, tmp_path: Path) -> None:
    team = await make_team(
        synapse, tmp_path, encrypted=False, extra='[invites]\nusers = ["@friend:localhost"]\n'
    )
    stranger_user = synapse.register_user(unique_name("stranger"))
    stranger = Viewer(synapse.url, stranger_user.user_id, stranger_user.password, tmp_path / "s")
    try:
        await stranger.login()
        async with running(team.config()) as bot:
            other = await stranger.create_room(encrypted=False, invite=(team.bot.user_id,))
            friend_room = await team.member.create_room(encrypted=False, invite=(team.bot.user_id,))
            await asyncio.sleep(bot.config.matrix.sync_timeout_ms / 1000 * 2 + 1)
            assert other not in bot.shell.client.rooms  # declined
            assert friend_room not in bot.shell.client.rooms  # member is not @friend
            assert team.room_id in bot.shell.client.rooms  # configured: joined
        # The stranger's room shows the invite was declined (membership "leave").
        state = synapse.request(
            "GET",
            f"/_matrix/client/v3/rooms/{other}/state/m.room.member/{team.bot.user_id}",
            token=stranger_user.access_token,
        )
        assert state["membership"] == "leave"
    finally:
        await stranger.close()
        await team.member.close()


async def test_removed_room_is_parked_and_others_flow(synapse: DevServer, tmp_path: Path) -> None:
    team = await make_team(synapse, tmp_path, encrypted=False)
    second = await team.member.create_room(encrypted=False, invite=(team.bot.user_id,))
    cfg = team.config_path.read_text() + f'\n[[rooms]]\nroom = "{second}"\n'
    team.config_path.write_text(cfg)
    try:
        async with running(team.config()) as bot:
            await team.member.client.room_kick(team.room_id, team.bot.user_id, "testing")
            await asyncio.sleep(bot.config.matrix.sync_timeout_ms / 1000 + 1)
            bot.outbox.enqueue(Post(team.room_id, "held", turn_error("held")))
            bot.outbox.enqueue(Post(second, "flows", turn_error("flows")))
            await wait_sent(bot, 1)
            for _ in range(100):
                if bot.outbox.parked():
                    break
                await asyncio.sleep(0.05)
            assert team.room_id in bot.outbox.parked()
            assert bot.outbox.counts()["parked"] == 1
            # Invited back: the bot rejoins (configured room) and the held notice goes out.
            await team.member.client.room_invite(team.room_id, team.bot.user_id)
            await wait_sent(bot, 2, timeout=30)
        seen = await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
        assert card_of(seen[0].content).message == turn_error("held").message
    finally:
        await team.member.close()


async def test_rate_limits_are_honoured(
    synapse_factory: Callable[..., DevServer], tmp_path: Path
) -> None:
    hs = synapse_factory(raise_limits=False)  # Synapse's own limits: 0.2/s, burst 10
    team = await make_team(hs, tmp_path, encrypted=False)
    try:
        async with running(team.config()) as bot:
            for i in range(14):
                bot.outbox.enqueue(Post(team.room_id, f"r{i:02}", turn_error(f"r{i:02}")))
            await wait_sent(bot, 14, timeout=120)
            assert bot.courier.stats.rate_limit_waits > 0
        seen = await team.member.wait_for(team.room_id, 14, sender=team.bot.user_id)
        assert [card_of(s.content).message for s in seen] == [
            turn_error(f"r{i:02}").message for i in range(14)
        ]
    finally:
        await team.member.close()


async def test_health_and_metrics(synapse: DevServer, tmp_path: Path) -> None:
    import aiohttp

    from roombot.devserver import free_port

    port = free_port()
    team = await make_team(synapse, tmp_path, encrypted=True, extra=f"[metrics]\nport = {port}\n")
    try:
        async with running(team.config()) as bot, aiohttp.ClientSession() as http:
            for i in range(3):
                bot.outbox.enqueue(Post(team.room_id, f"m{i}", turn_error(f"m{i}")))
            await wait_sent(bot, 3)
            async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
                assert r.status == 200
                health = await r.json()
            async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
                assert r.status == 200
                text = await r.text()
        assert health["ok"] is True and health["outbox_depth"] == 0
        assert value(text, "roombot_notices_sent_total") == 3
        assert value(text, "roombot_outbox_depth") == 0
        assert value(text, "roombot_notice_delivery_seconds_count") == 3
        assert value(text, "roombot_outbox_room_backlog", room=team.room_id) == 0
        assert value(text, "roombot_outbox_oldest_owed_age_seconds", room=team.room_id) == 0
        for name in (
            "roombot_send_retries_total",
            "roombot_rate_limit_waits_total",
            "roombot_encryption_failures_total",
        ):
            assert value(text, name) >= 0
    finally:
        await team.member.close()


async def test_verified_only_gives_keys_to_listed_devices_only(
    synapse: DevServer, tmp_path: Path
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True)
    device = team.member.client.device_id
    cfg = team.config_path.read_text().replace(
        "[matrix]\n",
        f'[matrix]\ntrust = "verified_only"\n'
        f'trusted_devices = ["{team.member_user.user_id} {device}"]\n',
    )
    team.config_path.write_text(cfg)
    other_user = synapse.register_user(unique_name("other"))
    other = Viewer(synapse.url, other_user.user_id, other_user.password, tmp_path / "other")
    try:
        await other.login()
        await team.member.client.room_invite(team.room_id, other_user.user_id)
        await other.sync(0)
        await other.join(team.room_id)
        async with running(team.config()) as bot:
            bot.outbox.enqueue(Post(team.room_id, "v", turn_error("v")))
            await wait_sent(bot, 1)
        (s,) = await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
        assert s.encrypted and card_of(s.content).message == turn_error("v").message
        for _ in range(10):
            await other.sync(500)
        assert not other.messages(team.room_id, team.bot.user_id)  # could not decrypt
        assert [e.sender for e in other.undecryptable] == [team.bot.user_id]
    finally:
        await other.close()
        await team.member.close()
