"""Heartbeats through the real pipeline (journal and outbox on each engine, real turn rules): a
silent node's open turns get their cards, node.offline is journalled like any event, and
a restart neither forgets a node that died while the bot was down nor repeats an outage."""

from __future__ import annotations

import asyncio

import pytest

from cards.kinds import Kind
from roombot.events import parse_event
from roombot.nodes import NodeClaimed, NodeInfo
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline, Unavailable
from roombot.store.db import connect
from roombot.turns import TurnMachine, TurnRules
from tests.api.conftest import OTHER, ROOM, started
from tests.api.test_api import wait_for
from tests.engines import Stores

RULES = TurnRules(grace=0.2, settle=0.2)
INFO = NodeInfo(interval=0.1, harnesses={"pi": None}, reporters={"pi": True}, version="0.4.0")


class Clock:
    """The pipeline's clock, moved by the test (the engine still waits in real time)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def pipeline(stores: Stores, outbox: Outbox, clock: Clock, offline_after: float = 5.0) -> Pipeline:
    return Pipeline(
        stores("j.sqlite3"), TurnMachine(RULES), outbox, clock=clock, offline_after=offline_after
    )


def journal_offline_rows(stores: Stores) -> list[str]:
    db = connect(stores("j.sqlite3"))
    try:
        rows = db.execute(
            "SELECT body FROM journal WHERE body LIKE '%\"node.offline\"%' ORDER BY seq"
        ).fetchall()
        return [r[0] for r in rows]
    finally:
        db.close()


async def test_a_silent_node_fails_its_open_turns_once_and_the_state_is_stored(
    stores: Stores,
) -> None:
    outbox = Outbox(stores("outbox.sqlite3"))
    clock = Clock()
    p = pipeline(stores, outbox, clock)
    with pytest.raises(Unavailable):
        p.heartbeat("gpu-1", INFO, source="ops")
    await p.start()
    p.heartbeat("gpu-1", INFO, source="ops")
    await p.accept(
        [parse_event(started(t, node="gpu-1", event_id=f"{t}-s")) for t in ("a", "b")]
        + [parse_event(started("c", node="gpu-2", event_id="c-s"))]
    )
    clock.now += 4.9
    await asyncio.sleep(0.2)
    assert outbox.get("a/post") is None
    clock.now += 0.2
    p.heartbeat("gpu-2", INFO, source="ops")  # wakes the engine: its deadline passed
    await wait_for(lambda: outbox.get("b/post") is not None)
    for turn in ("a", "b"):
        card = p.status(turn)
        assert card is not None and card.error is not None
        assert card.error.kind is Kind.NODE_OFFLINE and "gpu-1" in card.error.message
    assert outbox.get("c/post") is None
    [state] = [s for s in p.node_states() if s.node == "gpu-1"]
    assert not state.online
    assert len(journal_offline_rows(stores)) == 1
    await p.stop()

    # Restarted long after: gpu-1 stays offline without a second event; gpu-2, which
    # died while the bot was down, goes offline offline_after after the start.
    clock.now += 1000.0
    again = pipeline(stores, outbox, clock)
    await again.start()
    states = {s.node: s for s in again.node_states()}
    assert not states["gpu-1"].online and states["gpu-2"].online
    assert states["gpu-2"].info == INFO and states["gpu-2"].source == "ops"
    clock.now += 4.9
    again.heartbeat("gpu-3", INFO, source="ops")
    await asyncio.sleep(0.2)
    assert len(journal_offline_rows(stores)) == 1
    clock.now += 0.2
    again.heartbeat("gpu-3", INFO, source="ops")
    await wait_for(lambda: outbox.get("c/post") is not None)
    rows = journal_offline_rows(stores)
    assert len(rows) == 2 and '"gpu-2"' in rows[1]
    await again.stop()
    outbox.close()


async def test_a_node_back_online_recovers_a_turn_that_then_ends_well(stores: Stores) -> None:
    outbox = Outbox(stores("outbox.sqlite3"))
    clock = Clock()
    p = pipeline(stores, outbox, clock)
    await p.start()
    p.heartbeat("gpu-1", INFO, source="ops")
    await p.accept([parse_event(started("a", node="gpu-1", event_id="a-s"))])
    clock.now += 6.0
    p.heartbeat("other", INFO, source="ops")
    await wait_for(lambda: outbox.get("a/post") is not None)
    p.heartbeat("gpu-1", INFO, source="ops")
    assert {s.node: s.online for s in p.node_states()}["gpu-1"]
    await p.accept(
        [
            parse_event({"type": "turn.output", "turn": "a", "text": "Done: 42."}),
            parse_event({"type": "turn.ended", "turn": "a", "stop_reason": "end_turn"}),
        ]
    )
    clock.now += 1.0
    p.heartbeat("gpu-1", INFO, source="ops")
    await wait_for(lambda: outbox.get("a/retract") is not None, timeout=5)
    await p.stop()
    outbox.close()


async def test_a_node_held_by_one_source_is_refused_to_another(stores: Stores) -> None:
    outbox = Outbox(stores("outbox.sqlite3"))
    p = pipeline(stores, outbox, Clock())
    await p.start()
    p.heartbeat("gpu-1", INFO, source="hub")
    with pytest.raises(NodeClaimed):
        p.heartbeat("gpu-1", INFO, source="engine")
    await p.stop()
    outbox.close()


async def test_the_node_of_a_source_allowed_one_room_ends_only_that_rooms_turns(
    stores: Stores,
) -> None:
    outbox = Outbox(stores("outbox.sqlite3"))
    clock = Clock()
    p = pipeline(stores, outbox, clock)
    await p.start()
    p.heartbeat("gpu-1", INFO, source="hub", rooms=frozenset({ROOM}))
    await p.accept(
        [
            parse_event(started("mine", node="gpu-1", event_id="m-s")),
            parse_event(started("theirs", room=OTHER, node="gpu-1", event_id="t-s")),
        ]
    )
    clock.now += 5.1
    p.heartbeat("other", INFO, source="ops")
    await wait_for(lambda: outbox.get("mine/post") is not None)
    await asyncio.sleep(0.2)
    assert outbox.get("theirs/post") is None
    status = p.status("theirs")
    assert status is not None and status.state == "open"
    await p.stop()
    again = pipeline(stores, outbox, clock)
    await again.start()
    assert {s.node: s.rooms for s in again.node_states()} == {
        "gpu-1": frozenset({ROOM}),
        "other": None,
    }
    await again.stop()
    outbox.close()
