"""The heartbeat tracker: offline once per outage, online again on the next beat, the
restart rule, and the node's name held by its source; with properties over random
heartbeat streams, and the turn rules fed what it says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.kinds import Kind
from roombot.events import NodeOffline
from roombot.nodes import NodeClaimed, NodeInfo, NodeTracker
from roombot.turns import Post, Retract, TurnMachine, TurnRules
from tests.turns.helpers import ended, output, started

INFO = NodeInfo(interval=10.0, harnesses={"openclaw": "2026.9.6"}, reporters={"openclaw": True})


def test_a_silent_node_goes_offline_once_after_offline_after() -> None:
    t = NodeTracker(45.0)
    t.heartbeat("gpu-1", INFO, 100.0, source="ops")
    assert t.next_deadline() == 145.0
    assert t.tick(144.9) == []
    [event] = t.tick(145.0)
    assert isinstance(event, NodeOffline) and event.node == "gpu-1" and event.at == 145.0
    assert event.event_id == "node.offline/gpu-1/100000"
    assert event.error is not None and "no heartbeat for 45 s" in event.error["text"]
    state = t.get("gpu-1")
    assert state is not None and not state.online and state.since == 145.0
    assert t.tick(1000.0) == [] and t.next_deadline() is None


def test_each_heartbeat_pushes_the_deadline() -> None:
    t = NodeTracker(45.0)
    for now in range(0, 300, 10):
        t.heartbeat("gpu-1", INFO, float(now), source="ops")
        assert t.tick(float(now) + 9.9) == []
    assert t.next_deadline() == 290.0 + 45.0


def test_a_node_that_comes_back_is_online_and_a_new_outage_fires_again() -> None:
    t = NodeTracker(45.0)
    t.heartbeat("gpu-1", INFO, 0.0, source="ops")
    [first] = t.tick(50.0)
    state = t.heartbeat("gpu-1", INFO, 60.0, source="ops")
    assert state.online and state.since == 60.0
    assert t.heartbeat("gpu-1", INFO, 70.0, source="ops").since == 60.0  # still the same stay
    [second] = t.tick(115.0)
    assert first.event_id != second.event_id


def test_nodes_are_reported_in_name_order_each_on_its_own_clock() -> None:
    t = NodeTracker(10.0)
    t.heartbeat("b", INFO, 0.0, source="ops")
    t.heartbeat("a", INFO, 5.0, source="ops")
    assert [e.node for e in t.tick(10.0)] == ["b"]
    assert [e.node for e in t.tick(15.0)] == ["a"]
    assert [s.node for s in t.nodes()] == ["a", "b"]


def test_restart_counts_silence_from_the_start_and_never_fires_twice() -> None:
    t = NodeTracker(45.0)
    t.heartbeat("alive", INFO, 100.0, source="ops")
    t.heartbeat("died-while-down", INFO, 100.0, source="ops")
    t.heartbeat("was-offline", INFO, 0.0, source="ops")
    assert [e.node for e in t.tick(60.0)] == ["was-offline"]
    stored = t.nodes()
    # The bot is down from 105 to 1000: nothing could be heard then.
    t2 = NodeTracker(45.0, started_at=1000.0, known=stored)
    assert t2.tick(1044.9) == []
    t2.heartbeat("alive", INFO, 1003.0, source="ops")
    assert [e.node for e in t2.tick(1045.0)] == ["died-while-down"]
    # Later only "alive" can still go offline; the two outages already told stay told.
    assert [e.node for e in t2.tick(5000.0)] == ["alive"]
    assert t2.tick(9000.0) == []


def test_a_node_online_under_one_source_is_refused_to_another() -> None:
    t = NodeTracker(45.0)
    t.heartbeat("gpu-1", INFO, 0.0, source="team-a")
    with pytest.raises(NodeClaimed, match="online under source 'team-a'"):
        t.heartbeat("gpu-1", INFO, 1.0, source="team-b")
    state = t.get("gpu-1")
    assert state is not None and state.source == "team-a" and state.last_seen == 0.0
    t.tick(45.0)
    assert t.heartbeat("gpu-1", INFO, 50.0, source="team-b").source == "team-b"


def test_offline_after_must_be_positive() -> None:
    with pytest.raises(ValueError, match="offline_after"):
        NodeTracker(0.0)


# -- properties --------------------------------------------------------------------

beats = st.lists(st.tuples(st.sampled_from(["n1", "n2", "n3"]), st.floats(0.0, 30.0)), max_size=60)


@given(
    beats=beats,
    offline_after=st.floats(1.0, 20.0),
    restart=st.one_of(st.none(), st.integers(0, 59)),
    restart_gap=st.floats(0.0, 50.0),
)
@settings(max_examples=300, deadline=None)
def test_offline_fires_exactly_once_per_silence_longer_than_offline_after(
    beats: list[tuple[str, float]], offline_after: float, restart: int | None, restart_gap: float
) -> None:
    """Heartbeats (node, gap since the previous one), ticks at every deadline as the
    pipeline makes them, perhaps a restart (the bot down for restart_gap): each node is
    reported offline at offline_after after its last beat or the restart, whichever is
    later, once for each such silence; the tracker restored agrees."""
    tracker = NodeTracker(offline_after)
    watch: dict[str, float | None] = {}  # the oracle: silence counted from here, None offline
    fired: list[tuple[str, float, str | None]] = []
    expected: list[tuple[str, float]] = []
    now = 0.0

    def advance(target: float) -> None:
        nonlocal now
        while (d := tracker.next_deadline()) is not None and d <= target:
            fired.extend((e.node, d, e.event_id) for e in tracker.tick(d))
        for node, since in sorted(watch.items()):
            if since is not None and since + offline_after <= target:
                expected.append((node, since + offline_after))
                watch[node] = None
        now = target

    for i, (node, gap) in enumerate(beats):
        if restart == i:
            # Down: nothing ticks; then the state is rebuilt from what was stored.
            now += restart_gap
            tracker = NodeTracker(offline_after, started_at=now, known=tracker.nodes())
            watch = {n: None if w is None else max(w, now) for n, w in watch.items()}
        advance(now + gap)
        tracker.heartbeat(node, INFO, now, source="ops")
        watch[node] = now
    advance(now + offline_after + 1.0)
    assert len({f[2] for f in fired}) == len(fired), "one outage fired twice"
    assert sorted((n, round(at, 6)) for n, at, _ in fired) == sorted(
        (n, round(at, 6)) for n, at in expected
    )


@given(gaps=st.lists(st.floats(0.0, 100.0), min_size=1, max_size=40))
@settings(max_examples=300, deadline=None)
def test_a_node_is_online_exactly_while_it_was_heard_within_offline_after(
    gaps: list[float],
) -> None:
    tracker = NodeTracker(45.0)
    now = 0.0
    tracker.heartbeat("n", INFO, now, source="ops")
    for gap in gaps:
        probe = now + gap
        tracker.tick(probe)
        state = tracker.get("n")
        assert state is not None and state.online == (gap < 45.0)
        now = probe
        tracker.heartbeat("n", INFO, now, source="ops")


# -- what the turn rules make of it ------------------------------------------------

RULES = TurnRules(grace=2.0, settle=1.0, turn_timeout=10_000.0, retract_window=3600.0)


def test_two_open_turns_get_node_offline_cards_and_one_recovers_when_it_ends_well() -> None:
    machine = TurnMachine(RULES)
    tracker = NodeTracker(3.0)
    tracker.heartbeat("gpu-1", INFO, 0.0, source="ops")
    out = []
    for turn in ("t1", "t2"):
        out += machine.feed(started(0.1, turn=turn, node="gpu-1"), 0.1)
    out += machine.feed(started(0.1, turn="elsewhere", node="gpu-2"), 0.1)
    for event in tracker.tick(3.0):
        out += machine.feed(event, 3.0)
    posts = [d for d in out if isinstance(d, Post)]
    assert sorted(p.turn for p in posts) == ["t1", "t2"]
    assert all(p.error.kind is Kind.NODE_OFFLINE for p in posts)
    assert all("sent no heartbeat for 3 s" in p.error.message for p in posts)
    # The node comes back; t1 ends well within the retract window.
    tracker.heartbeat("gpu-1", INFO, 10.0, source="ops")
    later = machine.feed(output(11.0, turn="t1"), 11.0)
    later += machine.feed(ended(12.0, turn="t1"), 12.0)
    later += machine.tick(100.0)
    assert [(type(d), d.turn) for d in later] == [(Retract, "t1")]


def test_a_node_of_a_source_allowed_some_rooms_ends_only_the_turns_in_those() -> None:
    machine = TurnMachine(RULES)
    tracker = NodeTracker(3.0)
    tracker.heartbeat("gpu-1", INFO, 0.0, source="team-a", rooms=frozenset({"!b:x", "!a:x"}))
    out = []
    for turn, room in (("in-a", "!a:x"), ("in-c", "!c:x")):
        out += machine.feed(started(0.1, turn=turn, node="gpu-1", room=room), 0.1)
    [event] = tracker.tick(3.0)
    assert event.rooms == ("!a:x", "!b:x")
    out += machine.feed(event, 3.0)
    out += machine.tick(50.0)
    assert [d.turn for d in out if isinstance(d, Post)] == ["in-a"]
