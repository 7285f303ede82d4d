"""The outbox on its own, on each engine: durable, idempotent, ordered per room, retries.

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


def test_enqueue_is_idempotent_and_durable(store_at: str | Path) -> None:
    path = store_at
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


def test_head_is_oldest_pending_of_that_room(store_at: str | Path) -> None:
    box = Outbox(store_at)
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


async def test_courier_keeps_room_order_through_failures(store_at: str | Path) -> None:
    box = Outbox(store_at)
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


async def test_rate_limit_waits_retry_after(store_at: str | Path) -> None:
    box = Outbox(store_at)
    box.enqueue(Post("!a", "t", err()))
    times: list[float] = []

    async def deliver(n: Notice) -> Outcome:
        times.append(time.monotonic())
        return RateLimited(0.4) if len(times) == 1 else Sent("$x")

    courier = Courier(box, deliver, poll_interval=0.05)
    await _drain(courier)
    assert len(times) == 2 and times[1] - times[0] >= 0.35
    assert courier.stats.rate_limit_waits == 1


async def test_gone_room_is_parked_and_others_flow(store_at: str | Path) -> None:
    box = Outbox(store_at)
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


def test_prune_forgets_only_settled_rows(store_at: str | Path) -> None:
    box = Outbox(store_at)
    box.enqueue(Post("!a", "old", err()))
    box.enqueue(Post("!a", "pending", err()))
    old = box.get("old/post")
    assert old is not None
    box.mark_sent(old.seq, "$old")
    assert box.prune(time.time() - 3600) == 0  # sent just now: kept
    assert box.prune(time.time() + 1) == 1
    assert box.get("old/post") is None and box.get("pending/post") is not None


async def test_a_long_message_file_follows_its_card_once_before_the_next_notice(
    store_at: str | Path,
) -> None:
    box = Outbox(store_at)
    box.enqueue(Post("!a", "long", err()))
    box.enqueue(Post("!a", "next", err()))
    box.enqueue(Retract("!a", "long", err()))
    sends: list[tuple[str, str, str | None]] = []  # (turn, txn id, the card it answers)
    failed_once = False

    async def deliver(n: Notice) -> Outcome:
        nonlocal failed_once
        if n.owes_file:
            if not failed_once:  # the file's first try fails: retried, never doubled
                failed_once = True
                return Transient("network")
            sends.append((n.turn, n.file_txn_id, n.event_id))
            return Sent("$file")
        if n.turn == "long" and n.action is Action.POST:
            box.set_attachment(n.seq, {"url": "mxc://hs/whole", "size": 10})
        sends.append((n.turn, n.txn_id, None))
        return Sent(f"${n.turn}-{n.action}")

    courier = Courier(box, deliver, backoff_initial=0.01, backoff_max=0.05, poll_interval=0.05)
    await _drain(courier)
    post = box.get("long/post")
    assert post is not None and post.state.value == "sent"
    assert post.event_id == "$long-post" and post.file_event_id == "$file"
    assert [s[0] for s in sends] == ["long", "long", "next", "long"]
    assert sends[1] == ("long", post.file_txn_id, "$long-post")  # a reply to the card
    assert len({s[1] for s in sends}) == 4  # the file has its own transaction id
    assert post.file_txn_id == Outbox(store_at).get("long/post").file_txn_id  # type: ignore[union-attr]
    retract = box.get("long/retract")
    assert retract is not None and retract.file_event_id is None  # an edit posts no file
    assert courier.stats.sent == 3 and courier.stats.retries == 1


def test_a_card_sent_with_its_file_owed_is_still_owed_after_a_restart(store_at: str | Path) -> None:
    path = store_at
    box = Outbox(path)
    box.enqueue(Post("!a", "long", err()))
    head = box.head("!a")
    assert head is not None and not head.owes_file
    box.set_attachment(head.seq, {"url": "mxc://hs/whole", "size": 10})
    assert box.mark_sent(head.seq, "$card") is False  # not settled: the file is owed
    box.close()
    again = Outbox(path)  # the bot died between card and file
    owed = again.head("!a")
    assert owed is not None and owed.owes_file and owed.event_id == "$card"
    assert again.posted_event("!a", "long") == "$card"  # a retract can edit it already
    assert again.counts()["sent"] == 0
    again.mark_file_sent(owed.seq, "$file")
    assert again.head("!a") is None and again.counts()["sent"] == 1


def test_an_outbox_file_from_before_file_events_is_migrated(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    # The notices table as it was before file events (answers already allowed).
    db.executescript(
        """CREATE TABLE notices (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE,
            room TEXT NOT NULL, turn TEXT NOT NULL,
            action TEXT NOT NULL CHECK (action IN ('post', 'retract', 'answer')),
            error TEXT NOT NULL, txn_id TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending',
            tries INTEGER NOT NULL DEFAULT 0, next_try REAL NOT NULL DEFAULT 0, event_id TEXT,
            attachment TEXT, last_error TEXT, enqueued_at REAL NOT NULL, sent_at REAL)"""
    )
    e = error_to_json(err())
    db.execute(
        "INSERT INTO notices (key, room, turn, action, error, txn_id, state, event_id, "
        "attachment, enqueued_at) VALUES ('old/post', '!a', 'old', 'post', ?, 'rbold', 'sent', "
        '\'$old\', \'{"url": "mxc://hs/x", "size": 1}\', 1.0)',
        (e,),
    )
    db.execute(
        "INSERT INTO notices (key, room, turn, action, error, txn_id, attachment, enqueued_at) "
        "VALUES ('up/post', '!a', 'up', 'post', ?, 'rbup', '{\"url\": \"mxc://hs/y\", "
        '"size": 1}\', 2.0)',
        (e,),
    )
    db.commit()
    db.close()
    box = Outbox(path)
    old = box.get("old/post")
    assert (
        old is not None and old.state.value == "sent" and not old.owes_file
    )  # no file after the fact
    up = box.head("!a")
    assert up is not None and up.key == "up/post" and not up.owes_file  # its card goes first
    assert box.mark_sent(up.seq, "$up") is False
    assert box.head("!a").owes_file  # type: ignore[union-attr]


def test_a_group_card_edit_knows_when_a_later_state_is_in_the_room(store_at: str | Path) -> None:
    box = Outbox(store_at)
    for count in (2, 3):
        box.add(
            key=f"group:t/edit/{count}",
            room="!a",
            turn="t",
            action=Action.GROUP_EDIT,
            error=err(),
            place={"target": "$group", "rank": [0, count, 0]},
        )
    later = box.get("group:t/edit/3")
    assert later is not None
    assert not box.fresher_edit_sent("$group", (0, 2, 0))  # nothing sent yet
    box.mark_sent(later.seq, "$edit3")
    assert box.fresher_edit_sent("$group", (0, 2, 0))  # the replayed older state is not sent
    assert not box.fresher_edit_sent("$group", (0, 3, 0))
    assert not box.fresher_edit_sent("$other", (0, 0, 0))  # another group card's edits
