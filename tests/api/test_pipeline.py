"""The pipeline on a real journal, SQLite and PostgreSQL: restarts, kills, ticks, pruning,
group commit."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import aiohttp

from roombot.api.validation import parse_batch
from roombot.events import parse_event
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.turns import TurnMachine, TurnRules
from tests.api.conftest import RULES, TOKENS, failed_end, started
from tests.api.serve_api import KILL_RULES
from tests.api.test_api import wait_for
from tests.engines import Stores


async def test_a_new_pipeline_on_the_same_journal_acts_on_events_acked_before(
    stores: Stores,
) -> None:
    """Acked, then stopped before the rules decided: the next pipeline decides."""
    outbox = Outbox(stores("outbox.sqlite3"))
    slow = TurnRules(settle=2.0)
    first = Pipeline(stores("j.sqlite3"), TurnMachine(slow), outbox)
    await first.start()
    acks = await first.accept(
        [parse_event(started("r1", event_id="s")), parse_event(failed_end("r1", event_id="e"))]
    )
    assert [a.duplicate for a in acks] == [False, False]
    await first.stop()  # within the settle window: no decision yet
    assert outbox.get("r1/post") is None

    second = Pipeline(stores("j.sqlite3"), TurnMachine(slow), outbox)
    await second.start()
    assert second.replayed == 2
    assert second.room_of("r1") is not None
    await wait_for(lambda: outbox.get("r1/post") is not None)
    # the event ids are still known after the restart
    again = await second.accept([parse_event(started("r1", event_id="s"))])
    assert again[0].duplicate
    await second.stop()

    # A third start re-derives the same decision: the outbox holds it once.
    third = Pipeline(stores("j.sqlite3"), TurnMachine(slow), outbox)
    await third.start()
    await asyncio.sleep(0.1)
    assert third.counts["decisions"] == 1 and third.counts["enqueued"] == 0
    assert outbox.counts()["pending"] == 1
    await third.stop()
    outbox.close()


async def test_a_bot_killed_right_after_the_202_still_acts_on_the_events(
    tmp_path: Path, stores: Stores
) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.api.serve_api",
        str(tmp_path),
        *([stores.url] if stores.url else []),
        env=env,
    )
    try:
        port_file = tmp_path / "port"
        await wait_for(port_file.exists, timeout=30)
        url = f"http://127.0.0.1:{port_file.read_text()}/v1/batch"
        batch = {"events": [started("k1", event_id="k1s"), failed_end("k1", event_id="k1e")]}
        headers = {"Authorization": f"Bearer {TOKENS['hub']}"}
        async with aiohttp.ClientSession() as session:
            async with session.post(url, json=batch, headers=headers) as resp:
                assert resp.status == 202
            proc.send_signal(signal.SIGKILL)  # no clean shutdown of any kind
        await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    outbox = Outbox(stores("outbox.sqlite3"))
    assert outbox.get("k1/post") is None  # the dead process had not decided yet
    pipeline = Pipeline(stores("journal.sqlite3"), TurnMachine(KILL_RULES), outbox)
    await pipeline.start()
    try:
        assert pipeline.replayed == 2
        await wait_for(lambda: outbox.get("k1/post") is not None, timeout=10)
        notice = outbox.get("k1/post")
        assert notice is not None and "Overloaded" in notice.error.message
    finally:
        await pipeline.stop()
        outbox.close()


async def test_decisions_made_by_a_tick_are_replayed_without_a_second_notice(
    stores: Stores,
) -> None:
    """A turn that ends with no answer and no reason is decided by the grace timer."""
    outbox = Outbox(stores("outbox.sqlite3"))
    p = Pipeline(stores("j.sqlite3"), TurnMachine(RULES), outbox)
    await p.start()
    await p.accept(
        parse_batch(
            {
                "events": [
                    started("q1"),
                    {"type": "turn.ended", "turn": "q1", "stop_reason": "end_turn"},
                ]
            }
        )
    )
    await wait_for(lambda: outbox.get("q1/post") is not None)
    await p.stop()
    p2 = Pipeline(stores("j.sqlite3"), TurnMachine(RULES), outbox)
    await p2.start()
    await asyncio.sleep(0.3)
    status = p2.status("q1")
    assert status is not None and status.state == "decided" and status.notice == "post"
    assert p2.counts["decisions"] == 1 and p2.counts["enqueued"] == 0
    assert outbox.counts()["pending"] == 1
    await p2.stop()
    outbox.close()


async def test_journal_rows_of_turns_decided_beyond_the_horizon_are_dropped(
    stores: Stores,
) -> None:
    clock = [1_000_000.0]
    rules = TurnRules(settle=0.0, grace=0.0, dedup_horizon=100.0)
    outbox = Outbox(stores("outbox.sqlite3"))
    p = Pipeline(
        stores("j.sqlite3"), TurnMachine(rules), outbox, clock=lambda: clock[0], prune_every=0.05
    )
    await p.start()
    await p.accept(parse_batch({"events": [started("old"), failed_end("old")]}))
    await p.accept([parse_event(started("running"))])
    await wait_for(lambda: outbox.get("old/post") is not None)
    before = await p.journal_size()
    assert before >= 3 and p.journal_held == before  # what /metrics shows, without a query
    clock[0] += 50  # within the horizon: kept
    await asyncio.sleep(0.2)
    assert await p.journal_size() >= 3 and p.status("old") is not None
    clock[0] += 100  # beyond it
    await wait_for(lambda: p.room_of("old") is None)
    await asyncio.sleep(0.1)
    # only the open turn's row is left
    assert await p.journal_size() == 1 == p.journal_held
    assert p.room_of("running") is not None
    await p.stop()
    p2 = Pipeline(stores("j.sqlite3"), TurnMachine(rules), outbox, clock=lambda: clock[0])
    await p2.start()
    assert p2.replayed == 1 == p2.journal_held and p2.status("running") is not None
    await p2.stop()
    outbox.close()


async def test_concurrent_posts_share_commits_and_all_are_durable(stores: Stores) -> None:
    outbox = Outbox(stores("outbox.sqlite3"))
    p = Pipeline(stores("j.sqlite3"), TurnMachine(RULES), outbox)
    await p.start()
    t0 = time.monotonic()
    results = await asyncio.gather(
        *(p.accept([parse_event(started(f"c{i}", event_id=f"c{i}"))]) for i in range(300))
    )
    assert time.monotonic() - t0 < 60
    assert all(len(r) == 1 and not r[0].duplicate for r in results)
    assert await p.journal_size() == 300
    assert p.counts["commits"] < 300  # grouped
    await p.stop()
    outbox.close()


async def test_turns_the_rules_forgot_leave_the_journal_too(stores: Stores) -> None:
    """The rules keep at most max_remembered closed turns; the journal follows them."""
    rules = TurnRules(settle=0.0, grace=0.0, max_remembered=2)
    outbox = Outbox(stores("outbox.sqlite3"))
    p = Pipeline(stores("j.sqlite3"), TurnMachine(rules), outbox, prune_every=0.05)
    await p.start()
    for i in range(5):
        ended = {"type": "turn.ended", "turn": f"z{i}", "stop_reason": "end_turn"}
        await p.accept(parse_batch({"events": [started(f"z{i}"), ended]}))
    await wait_for(lambda: p.room_of("z0") is None and p.room_of("z2") is None)
    await asyncio.sleep(0.1)
    assert await p.journal_size() == 4  # the two turns the rules still remember
    assert p.room_of("z4") is not None
    await p.stop()
    outbox.close()


async def test_a_turn_failed_by_its_harness_exiting_reads_as_decided(stores: Stores) -> None:
    # The machine keeps such a turn to retract its card if it recovers; to a
    # source reading the turn back it is decided all the same: a card went out.
    outbox = Outbox(stores("outbox.sqlite3"))
    p = Pipeline(stores("j.sqlite3"), TurnMachine(RULES), outbox)
    await p.start()
    exited = {"type": "harness.exited", "harness": "codex", "error": {"exit": {"code": 1}}}
    await p.accept(parse_batch({"events": [started("x1"), exited]}))
    await wait_for(lambda: outbox.get("x1/post") is not None)
    status = p.status("x1")
    assert status is not None and status.state == "decided" and status.notice == "post"
    await p.stop()
    outbox.close()


async def test_an_id_twice_in_one_commit_and_ids_past_one_statement_are_told_apart(
    stores: Stores,
) -> None:
    outbox = Outbox(stores("outbox.sqlite3"))
    p = Pipeline(stores("j.sqlite3"), TurnMachine(RULES), outbox)
    await p.start()
    twice = await p.accept(
        [parse_event(started("d1", event_id="same")), parse_event(started("d2", event_id="same"))]
    )
    assert [a.duplicate for a in twice] == [False, True]
    many = [parse_event(started(f"m{i}", event_id=f"m{i}")) for i in range(950)]  # 3 statements
    first = await p.accept(many)
    again = await p.accept(many[::-1])
    assert not any(a.duplicate for a in first) and all(a.duplicate for a in again)
    assert await p.journal_size() == 1 + 950 == p.journal_held
    await p.stop()
    outbox.close()
