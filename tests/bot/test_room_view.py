"""The room stage against a real Synapse, read by a second real client: cards beside
their trigger, reactions, and a storm folded into group cards."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.bot import Bot
from roombot.devserver import DevServer, free_port
from roombot.events import Event, StopReason, TurnEnded, TurnOutput, TurnStarted, event_to_json
from roombot.outbox import Outbox
from roombot.relations import TRIGGER_MISSING
from roombot.viewer import Seen
from tests.bot.helpers import Team, make_team, running, start_bot

TOKEN = "room-view-test-token-0123456789"
FAST = "[turns]\nsettle = 0.2\ngrace = 0.2\n"


def card(s: Seen) -> TurnError:
    got = read_payload(s.content.get(CARD_KEY))
    assert isinstance(got, TurnError), got
    return got


def failed(room: str, turn: str, status: int = 429, trigger: str | None = None) -> list[Event]:
    body = {"error": {"message": f"quota exceeded for turn {turn}", "type": "insufficient_quota"}}
    if status != 429:
        body = {"error": {"message": f"upstream unavailable ({turn})", "type": "server_error"}}
    return [
        TurnStarted(turn, room, "codex", "openai", "gpt-5", trigger=trigger),
        TurnEnded(turn, error={"status": status, "body": json.dumps(body), "provider": "openai"}),
    ]


def answered(room: str, turn: str, trigger: str | None = None) -> list[Event]:

    return [
        TurnStarted(turn, room, "codex", "openai", "gpt-5", trigger=trigger),
        TurnOutput(turn, text="All done: the tests pass."),
        TurnEnded(turn, stop_reason=StopReason.END_TURN),
    ]


async def settled(bot: Bot, timeout: float = 90) -> None:
    """Until the outbox owes nothing and the stage has nothing due."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        p = bot.pipeline
        idle = p.machine.open_turns == 0 and p.room.owed() == 0
        if idle and bot.outbox.counts()["pending"] == 0:
            return
        await asyncio.sleep(0.1)
    raise TimeoutError(f"still owed: {bot.outbox.counts()}")


def relation(s: Seen) -> dict[str, Any]:
    rel = s.content.get("m.relates_to")
    return rel if isinstance(rel, dict) else {}


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
async def test_a_card_goes_into_its_triggers_thread(
    synapse: DevServer, tmp_path: Path, encrypted: bool
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=encrypted, extra=FAST)
    try:
        async with running(team.config()) as bot:
            ask = await team.member.send_text(team.room_id, "@agent fix the flaky test")
            await bot.pipeline.accept(failed(team.room_id, "th-1", trigger=ask))
            await bot.pipeline.accept(failed(team.room_id, "th-2", 503, trigger="$not-here"))
            await settled(bot)
        seen = await team.member.wait_for(team.room_id, 2, sender=team.bot.user_id)
        by_turn = {card(s).turn: s for s in seen}
        rel = relation(by_turn["th-1"])
        assert rel["rel_type"] == "m.thread" and rel["event_id"] == ask
        assert rel["is_falling_back"] is True and rel["m.in_reply_to"] == {"event_id": ask}
        assert by_turn["th-1"].encrypted == encrypted
        # A trigger that is not in the room: the card is in the timeline, and says why.
        lost = by_turn["th-2"]
        assert relation(lost) == {}
        assert TRIGGER_MISSING in (card(lost).note or "")
    finally:
        await team.member.close()


async def test_reactions_eyes_then_cross_or_check(synapse: DevServer, tmp_path: Path) -> None:
    team = await make_team(
        synapse, tmp_path, encrypted=True, extra=FAST, room_extra="reactions = true\n"
    )
    bot_id = team.bot.user_id
    try:
        async with running(team.config()) as bot:
            bad = await team.member.send_text(team.room_id, "@agent deploy")
            good = await team.member.send_text(team.room_id, "@agent summarise")
            await bot.pipeline.accept(failed(team.room_id, "r-bad", trigger=bad)[:1])
            await bot.pipeline.accept(answered(team.room_id, "r-good", trigger=good)[:1])
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # 👀 on both while they run
                await team.member.sync(500)
                if all(
                    team.member.reactions_on(team.room_id, t, bot_id) == ["👀"] for t in (bad, good)
                ):
                    break
            else:
                raise AssertionError(team.member.reactions.get(team.room_id))
            await bot.pipeline.accept(failed(team.room_id, "r-bad", trigger=bad)[1:])
            await bot.pipeline.accept(answered(team.room_id, "r-good", trigger=good)[1:])
            await settled(bot)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            await team.member.sync(500)
            now = [team.member.reactions_on(team.room_id, t, bot_id) for t in (bad, good)]
            if now == [["❌"], ["✅"]]:
                break
        assert now == [["❌"], ["✅"]], team.member.reactions.get(team.room_id)
        assert len(team.member.redacted) >= 2  # each 👀 was taken back by a redaction
        cards = [s for s in team.member.messages(team.room_id, bot_id) if CARD_KEY in s.content]
        assert [card(s).turn for s in cards] == ["r-bad"]
    finally:
        await team.member.close()


STORM = 200


def storm_events(room: str) -> list[list[Event]]:
    # Two kinds, interleaved: quota (429) and provider_unavailable (503).
    return [failed(room, f"s{i:03}", 429 if i % 2 else 503) for i in range(STORM)]


def check_storm(team: Team) -> None:
    seen = team.member.messages(team.room_id, team.bot.user_id)
    timeline = [s for s in seen if not relation(s)]
    assert len(timeline) == 2, [card(s).kind for s in timeline]
    current = {s.event_id: s for s in team.member.current(team.room_id, team.bot.user_id)}
    counts = []
    for root in timeline:
        shown = card(current[root.event_id])
        assert shown.group is not None
        counts.append(shown.group.count)
        threaded = [s for s in seen if relation(s).get("event_id") == root.event_id
                    and relation(s).get("rel_type") == "m.thread"]  # fmt: skip
        assert len(threaded) == shown.group.threaded == 50
    assert sorted(counts) == [STORM // 2, STORM // 2]
    own = [card(s).turn for s in seen if relation(s).get("rel_type") == "m.thread"]
    assert len(own) == len(set(own)) == 100  # no card twice
    edits = [s for s in seen if relation(s).get("rel_type") == "m.replace"]
    assert edits and len(edits) <= 20


async def test_a_storm_of_two_kinds_folds_into_two_group_cards(
    synapse: DevServer, tmp_path: Path
) -> None:
    team = await make_team(
        synapse, tmp_path, encrypted=False, extra=FAST, room_extra="group_interval = 2\n"
    )
    try:
        async with running(team.config()) as bot:
            for events in storm_events(team.room_id):
                await bot.pipeline.accept(events)
            await settled(bot, 180)
            sent = bot.outbox.counts()["sent"]
        await team.member.wait_for(team.room_id, sent, sender=team.bot.user_id, timeout=120)
        check_storm(team)
    finally:
        await team.member.close()


def storm_json(room: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i, events in enumerate(storm_events(room)):
        for j, e in enumerate(events):
            out.append({**event_to_json(e), "event_id": f"s{i:03}-{j}"})
    return out


async def test_the_storm_with_the_bot_sigkilled_loses_nothing_and_doubles_nothing(
    synapse: DevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROOMBOT_ROOM_TOKEN", TOKEN)
    api_port = free_port()
    extra = (
        f'[api]\nport = {api_port}\n[[api.sources]]\nname = "ci"\n'
        f'token_env = "ROOMBOT_ROOM_TOKEN"\nrooms = ["*"]\n' + FAST
    )
    team = await make_team(
        synapse, tmp_path, encrypted=True, extra=extra, room_extra="group_interval = 2\n"
    )
    log = tmp_path / "bot.log"
    outbox = Outbox(team.config().outbox_at)

    def start() -> subprocess.Popen[bytes]:
        return start_bot(team.config_path, log, {"ROOMBOT_ROOM_TOKEN": TOKEN})

    api = f"http://127.0.0.1:{api_port}"
    proc = start()
    try:
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            deadline = time.monotonic() + 60
            events = storm_json(team.room_id)
            while events:
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
                try:
                    async with http.post(api + "/v1/batch", json={"events": events[:40]}) as r:
                        assert r.status == 202, await r.text()
                        events = events[40:]
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.2)  # the API is not up yet
        deadline = time.monotonic() + 120
        while outbox.counts()["sent"] < 40:  # the storm is going out: kill the bot now
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            await asyncio.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert outbox.counts()["pending"] > 0, "the storm was out before the kill"
        proc = start()
        deadline = time.monotonic() + 240
        while True:
            await team.member.sync(500)
            try:
                check_storm(team)
                break
            except (AssertionError, KeyError):
                assert proc.poll() is None, log.read_text()[-3000:]
                if time.monotonic() > deadline:
                    raise
        assert not team.member.undecryptable
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        outbox.close()
        await team.member.close()


async def test_a_moderators_silence_holds_back_a_burst_and_sums_it_up(
    synapse: DevServer, tmp_path: Path
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True, extra=FAST)
    mod, room, bot_id = team.member, team.room_id, team.bot.user_id
    try:
        async with running(team.config()) as bot:
            await mod.wait_member(room, bot_id)
            await mod.send_text(room, "!roombot silence kind=quota provider=openai 1h outage")
            answer = (await mod.wait_for(room, 1, sender=bot_id))[-1]
            assert answer.encrypted and answer.content["body"].startswith("Silenced kind=quota")
            (silence,) = bot.silences.snapshot()
            for i in range(10):
                await bot.pipeline.accept(failed(room, f"q{i}"))  # quota: held back
            await bot.pipeline.accept(failed(room, "other", 503))  # not silenced
            await settled(bot)
            assert bot.pipeline.room.counts["silenced"] == 10
            await mod.send_text(room, f"!roombot unsilence {silence.id}")
            seen = await mod.wait_for(room, 4, sender=bot_id)
            await settled(bot)
        bodies = [str(s.content["body"]) for s in seen]
        assert bodies[2].startswith(f"Lifted silence {silence.id}"), bodies
        assert (
            f"Silence {silence.id} (kind=quota provider=openai) lifted by {mod.user_id}"
            in (bodies[3])
        )
        assert "While silenced: 10 quota failures from openai, " in bodies[3]
        cards = [card(s) for s in seen if CARD_KEY in s.content]
        assert [c.turn for c in cards] == ["other"]
        assert all(s.encrypted for s in seen)
    finally:
        await mod.close()
