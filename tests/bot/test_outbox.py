"""The outbox on its own: durable, idempotent, ordered per room, retry policy honoured.

Delivery here is a scripted function (the Matrix side is tested against a real
Synapse in test_delivery.py); what is under test is the queue and the courier.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from cards.kinds import Kind
from cards.shape import Attempt, TurnError
from roombot.outbox import (
    Action,
    Courier,
    Gone,
    Notice,
    Outbox,
    Outcome,
    RateLimited,
    Rejected,
    Sent,
    Transient,
    backoff_delay,
    error_from_json,
    error_to_json,
)
from roombot.turns import Post, Retract


def err(message: str = "boom") -> TurnError:
    return TurnError(
        kind=Kind.RATE_LIMIT,
        message=message,
        harness="codex",
        provider="openai",
        model="gpt-5",
        retry_after=30,
        attempts=(Attempt(Kind.RATE_LIMIT, message, "openai", "gpt-5", 429, 30),),
        turn="t",
        note="é ✓ <b>",
    )


def test_error_round_trips_through_storage() -> None:
    e = err("a\nb \u2028 ✓")
    assert error_from_json(error_to_json(e)) == e


def test_enqueue_is_idempotent_and_durable(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite3"
    box = Outbox(path)
    assert box.enqueue(Post("!r", "t1", err())) is True
    assert box.enqueue(Post("!r", "t1", err("other words"))) is False
    assert box.enqueue(Retract("!r", "t1", err())) is True
    first = box.get("t1/post")
    box.close()
    again = Outbox(path)  # a restart: same rows, same transaction ids
    n = again.get("t1/post")
    assert n is not None and first is not None
    assert n.txn_id == first.txn_id and n.error.message == "boom"
    assert n.action is Action.POST
    assert again.get("t1/retract").action is Action.RETRACT  # type: ignore[union-attr]
    assert again.depth() == 2


def test_head_is_oldest_pending_of_that_room(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    for i in range(3):
        box.enqueue(Post("!a", f"a{i}", err()))
        box.enqueue(Post("!b", f"b{i}", err()))
    head = box.head("!a")
    assert head is not None and head.turn == "a0"
    box.mark_sent(head.seq, "$e0")
    assert box.head("!a").turn == "a1"  # type: ignore[union-attr]
    assert box.posted_event("!a", "a0") == "$e0"
    assert sorted(box.rooms_with_work()) == ["!a", "!b"]
    box.park("!b", "kicked")
    assert box.rooms_with_work() == ["!a"]
    assert box.counts()["parked"] == 3


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    rng = random.Random(7)
    for tries in range(1, 12):
        ceiling = min(60.0, 1.0 * 2 ** (tries - 1))
        d = backoff_delay(tries, 1.0, 60.0, rng)
        assert ceiling / 2 <= d <= ceiling
    assert len({round(backoff_delay(3, 1.0, 60.0, rng), 6) for _ in range(20)}) > 1


async def _drain(courier: Courier, until: float = 10.0) -> None:
    task = asyncio.create_task(courier.run())
    deadline = time.monotonic() + until
    while courier.outbox.rooms_with_work() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    courier.stop()
    await asyncio.wait_for(task, 10)


async def test_courier_keeps_room_order_through_failures(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    for i in range(20):
        box.enqueue(Post("!a", f"a{i:02}", err()))
        box.enqueue(Post("!b", f"b{i:02}", err()))
    sent: dict[str, list[str]] = {"!a": [], "!b": []}
    calls: list[str] = []
    rng = random.Random(3)

    async def deliver(n: Notice) -> Outcome:
        calls.append(n.turn)
        await asyncio.sleep(0)
        roll = rng.random()
        if roll < 0.2:
            return Transient("flaky")
        if roll < 0.3:
            return RateLimited(0.01)
        sent[n.room].append(n.turn)
        return Sent(f"${n.turn}")

    courier = Courier(box, deliver, backoff_initial=0.01, backoff_max=0.05, poll_interval=0.05)
    await _drain(courier)
    assert sent["!a"] == [f"a{i:02}" for i in range(20)]
    assert sent["!b"] == [f"b{i:02}" for i in range(20)]
    assert courier.stats.retries > 0 and courier.stats.sent == 40
    assert len(calls) == 40 + courier.stats.retries


async def test_rate_limit_waits_retry_after(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    box.enqueue(Post("!a", "t", err()))
    times: list[float] = []

    async def deliver(n: Notice) -> Outcome:
        times.append(time.monotonic())
        return RateLimited(0.4) if len(times) == 1 else Sent("$x")

    courier = Courier(box, deliver, poll_interval=0.05)
    await _drain(courier)
    assert len(times) == 2 and times[1] - times[0] >= 0.35
    assert courier.stats.rate_limit_waits == 1


async def test_gone_room_is_parked_and_others_flow(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    for i in range(3):
        box.enqueue(Post("!gone", f"g{i}", err()))
        box.enqueue(Post("!ok", f"k{i}", err()))
    box.enqueue(Post("!ok", "bad", err()))

    async def deliver(n: Notice) -> Outcome:
        if n.room == "!gone":
            return Gone("M_FORBIDDEN: not in room")
        if n.turn == "bad":
            return Rejected("M_TOO_LARGE")
        return Sent(f"${n.turn}")

    courier = Courier(box, deliver, poll_interval=0.05)
    await _drain(courier)
    assert box.parked() == {"!gone": "M_FORBIDDEN: not in room"}
    assert box.counts() == {"pending": 3, "sent": 3, "failed": 1, "parked": 3}
    assert box.head("!gone").turn == "g0"  # type: ignore[union-attr]
    assert box.unpark("!gone") and box.rooms_with_work() == ["!gone"]


def test_prune_forgets_only_settled_rows(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    box.enqueue(Post("!a", "old", err()))
    box.enqueue(Post("!a", "pending", err()))
    old = box.get("old/post")
    assert old is not None
    box.mark_sent(old.seq, "$old")
    assert box.prune(time.time() - 3600) == 0  # sent just now: kept
    assert box.prune(time.time() + 1) == 1
    assert box.get("old/post") is None and box.get("pending/post") is not None
