"""The bot on PostgreSQL, against a real Synapse and a second real client, with the
database restarted mid-stream: the report API refuses while the store is down (its
sources retry), decisions made meanwhile wait in order, and every card reaches the
encrypted room exactly once."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.devserver import DevServer
from roombot.events import parse_event
from roombot.pipeline import Pipeline, Unavailable
from roombot.store.pgcluster import PgCluster
from tests.bot.helpers import make_team, running
from tests.bot.test_end_to_end import turn_events
from tests.engines import fresh_database


async def accept_retrying(pipeline: Pipeline, events: list[dict[str, object]]) -> None:
    """Post like a source would: again after each refusal, until accepted."""
    deadline = time.monotonic() + 60
    while True:
        try:
            await pipeline.accept([parse_event(e) for e in events])
            return
        except Unavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def test_postgresql_restarted_mid_stream_loses_and_doubles_nothing(
    synapse: DevServer, tmp_path: Path, private_pg: PgCluster, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    url = fresh_database(private_pg)
    extra = f'[turns]\nsettle = 2.0\n[store]\nurl = "{url}"\n'
    team = await make_team(synapse, tmp_path, encrypted=True, extra=extra)
    try:
        async with running(team.config()) as bot:
            await accept_retrying(bot.pipeline, turn_events(team.room_id, "pg-before"))
            await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
            # Journalled now, decided about a second later: while the store is down.
            await accept_retrying(bot.pipeline, turn_events(team.room_id, "pg-during"))
            private_pg.stop()
            with pytest.raises(Unavailable):
                await bot.pipeline.accept([parse_event(turn_events(team.room_id, "x")[0])])
            await asyncio.sleep(3.5)
            restart = asyncio.get_running_loop().run_in_executor(None, private_pg.start)
            await accept_retrying(bot.pipeline, turn_events(team.room_id, "pg-after"))
            await restart
            seen = await team.member.wait_for(team.room_id, 3, sender=team.bot.user_id, timeout=90)
            await asyncio.sleep(3)  # time enough for a double to show
            seen = team.member.messages(team.room_id, team.bot.user_id)
            assert bot.outbox.counts()["pending"] == 0
    finally:
        await team.member.close()
    turns = []
    for s in seen:
        assert s.encrypted
        card = read_payload(s.content.get(CARD_KEY))
        assert isinstance(card, TurnError), card
        turns.append(card.turn)
    assert turns == ["pg-before", "pg-during", "pg-after"]
    said = [r.getMessage() for r in caplog.records]
    # The second turn was decided while the store was down: held, then enqueued.
    assert any("held decisions enqueued" in m for m in said), said
    assert any("delivery resumes" in m for m in said)
