"""A session report through the real journal and pipeline: joined, kept, replayed."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from cards import Kind
from roombot.events import parse_event
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.turns import TurnMachine, TurnRules
from tests.reporters.test_session_join import S, ended, report, started


def _notices(path: Path) -> list[tuple[str, str]]:
    db = sqlite3.connect(path)
    try:
        return [(k, e) for k, e in db.execute("SELECT key, error FROM notices ORDER BY key")]
    finally:
        db.close()


async def _settle(pipeline: Pipeline, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and pipeline.machine.next_deadline() is not None:
        await asyncio.sleep(0.05)


async def test_a_session_report_survives_a_restart(tmp_path: Path) -> None:
    journal, box = tmp_path / "journal.sqlite3", tmp_path / "outbox.sqlite3"
    rules = TurnRules(grace=0.3, settle=0.2)
    now = time.time()
    outbox = Outbox(box)
    pipeline = Pipeline(journal, TurnMachine(rules), outbox, prune_every=0.05)
    await pipeline.start()
    # the reporter's report comes first, then the proxy's events
    acks = await pipeline.accept([parse_event(report(now + 0.01))])
    assert acks[0].turn == f"session:{S}"
    await pipeline.accept([parse_event(started(3, now)), parse_event(ended(3, now + 0.02))])
    await asyncio.sleep(0.2)  # several prunes ran: the waiting report's row must stay
    await _settle(pipeline, 3.0)
    await pipeline.stop()
    outbox.close()
    first = _notices(box)
    assert [k for k, _ in first] == [f"acp/{S}/3/post"]
    assert '"rate_limit"' in first[0][1]

    # A restart replays the journal: the same join, the same card (the outbox has it).
    machine = TurnMachine(rules)
    outbox = Outbox(box)
    again = Pipeline(journal, machine, outbox)
    await again.start()
    assert again.replayed == 3
    view = machine.state(f"session:{S}")
    assert view is not None and view.turn == f"session:{S}"
    await again.stop()
    outbox.close()
    assert _notices(box) == first
    assert Kind.RATE_LIMIT.value in first[0][1]
