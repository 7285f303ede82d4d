"""The reader over a real outbox: each command once, answers durable, restarts told."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from roombot import roomcommands as rc
from roombot.config import RoomConfig
from roombot.node_desk import NodeDesk, ResultIn
from roombot.outbox import Action, Outbox, txn_id_for
from roombot.room_reader import RoomReader
from tests.engines import Stores

ME = "@bot:hs"
DIGEST = "0f" * 32


class Clock:
    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def msg(body: str, event_id: str, ts: float, sender: str = "@mod:hs") -> rc.Incoming:
    return rc.Incoming("!r", event_id, sender, body, "m.text", int(ts * 1000))


def answers(outbox: Outbox) -> list[str]:
    out = []
    for room in outbox.rooms_with_work():
        while (n := outbox.head(room)) is not None:
            assert n.action is Action.ANSWER and n.answer is not None
            assert n.answer["msgtype"] == "m.notice" and n.answer["m.mentions"] == {}
            assert n.txn_id == txn_id_for(room, n.key)
            out.append(n.answer["body"])
            outbox.mark_sent(n.seq, f"$sent{n.seq}")
    return out


def test_help_refusal_and_replays(stores: Stores) -> None:
    clock = Clock()
    outbox = Outbox(stores("o.sqlite3"))
    reader = RoomReader(outbox, [RoomConfig("!r", command_power=75)], clock=clock, reporters=["pi"])
    clock.now += 1
    assert reader.read(msg("!roombot help", "$1", clock.now), me=ME, level=100)
    assert not reader.read(msg("!roombot help", "$1", clock.now), me=ME, level=100)  # replay
    assert reader.read(msg("!roombot help", "$2", clock.now, "@x:hs"), me=ME, level=50)
    assert not reader.read(msg("hello", "$3", clock.now), me=ME, level=100)
    assert not reader.read(msg("!roombot help", "$4", 10.0), me=ME, level=100)  # before since
    got = answers(outbox)
    assert got[0].startswith("roombot commands:") and "power level 75 or more" in got[0]
    assert got[1] == (
        "Refused: only members with power level 75 or more may run roombot commands in this "
        "room; your power level here is 50."
    )
    assert len(got) == 2
    # a new reader (a restart) over the same outbox: the same events are not taken again
    again = RoomReader(outbox, clock=clock, reporters=["pi"])
    assert not again.read(msg("!roombot help", "$1", clock.now), me=ME, level=100)
    assert again.since == reader.since


def test_plan_answered_from_the_node_and_a_restart_tells_what_was_awaited(
    stores: Stores,
) -> None:
    clock = Clock()
    outbox = Outbox(stores("o.sqlite3"))
    desk = NodeDesk()
    reader = RoomReader(outbox, desk=desk, clock=clock, reporters=["pi"])
    # node not here: refused at once
    reader.read(msg("!roombot reporters plan gpu-1 pi enable", "$p0", clock.now), me=ME, level=50)
    assert "has not asked this bot for work" in answers(outbox)[0]
    reader.poll(source="s", allows=lambda r: True, node="gpu-1")
    reader.read(msg("!roombot reporters plan gpu-1 pi enable", "$p1", clock.now), me=ME, level=50)
    assert answers(outbox) == []  # waiting for the node
    (req,) = reader.poll(source="s", allows=lambda r: True, node="gpu-1")
    unknown = reader.results(
        source="s",
        allows=lambda r: True,
        node="gpu-1",
        results=[ResultIn(req.id, True, "", DIGEST, "+x\n", {"pi": "0.70.0"})],
    )
    assert unknown == []
    (plan,) = answers(outbox)
    assert DIGEST in plan and "pi 0.70.0" in plan
    # apply passed on, then the bot "restarts" before the node answers
    reader.read(msg(f"!roombot reporters apply gpu-1 {DIGEST}", "$a1", clock.now), me=ME, level=50)
    assert outbox.unanswered_commands() == [("$a1", "!r")]
    RoomReader(outbox, clock=clock, reporters=["pi"])
    (told,) = answers(outbox)
    assert told.startswith("The bot restarted before a node answered")
    assert outbox.unanswered_commands() == []


def test_timeout_then_late_answer(stores: Stores) -> None:
    clock = Clock()
    outbox = Outbox(stores("o.sqlite3"))
    reader = RoomReader(outbox, clock=clock, reporters=["pi"])
    reader.poll(source="s", allows=lambda r: True, node="n1")
    reader.read(msg("!roombot reporters plan n1 pi disable", "$p", clock.now), me=ME, level=50)
    (req,) = reader.poll(source="s", allows=lambda r: True, node="n1")
    clock.now += 61
    reader.tick()
    (timeout,) = answers(outbox)
    assert timeout.startswith("Node n1 did not answer !roombot reporters plan within 60 s")
    reader.poll(source="s", allows=lambda r: True, node="n1")
    reader.results(
        source="s",
        allows=lambda r: True,
        node="n1",
        results=[ResultIn(req.id, False, "not opted in")],
    )
    (late,) = answers(outbox)
    assert late == "Node n1 refused !roombot reporters plan (late): not opted in"


def test_an_outbox_from_before_answers_is_migrated_keeping_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        """CREATE TABLE notices (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, room TEXT NOT NULL,
    turn TEXT NOT NULL, action TEXT NOT NULL CHECK (action IN ('post', 'retract')),
    error TEXT NOT NULL, txn_id TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending',
    tries INTEGER NOT NULL DEFAULT 0, next_try REAL NOT NULL DEFAULT 0, event_id TEXT,
    attachment TEXT, last_error TEXT, enqueued_at REAL NOT NULL, sent_at REAL);
CREATE INDEX notices_pending ON notices (state, room, seq);"""
    )
    from roombot.outbox import error_to_json
    from tests.bot.helpers import turn_error

    db.execute(
        "INSERT INTO notices (key, room, turn, action, error, txn_id, enqueued_at) "
        "VALUES ('k1', '!r', 't1', 'post', ?, 'rbx', 1.0)",
        (error_to_json(turn_error("t1")),),
    )
    db.commit()
    db.close()
    outbox = Outbox(path)
    old = outbox.get("k1")
    assert old is not None and old.error is not None and old.error.turn == "t1"
    assert outbox.add_answer(key="a1", room="!r", command="$c", content={"body": "x"})
    assert [n.key for n in (outbox.head("!r"),) if n] == ["k1"]  # order kept: the old row first
    assert Outbox(path).get("a1") is not None  # opening again migrates nothing
