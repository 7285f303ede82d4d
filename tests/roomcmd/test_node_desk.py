"""The node desk: who may manage which node, digests checked, timeouts, late answers."""

from __future__ import annotations

import pytest

from roombot.node_desk import NodeDesk, Refused, ResultIn, request_id

ROOM = "!team"
REFS = frozenset({ROOM, "#team:hs"})
DIGEST = "cd" * 32


def team_only(room: str) -> bool:
    return room == ROOM


def everywhere(room: str) -> bool:
    return True


def nowhere(room: str) -> bool:
    return room == "!other"


def desk_with_node(now: float = 100.0) -> NodeDesk:
    desk = NodeDesk(timeout=60)
    assert desk.poll(source="gpu", allows=team_only, node="gpu-1", now=now) == []
    return desk


def plan(desk: NodeDesk, now: float = 101.0, command: str = "$plan") -> str:
    r = desk.plan(
        room=ROOM,
        refs=REFS,
        command=command,
        node="gpu-1",
        reporter="pi",
        action="enable",
        now=now,
    )
    return r.id


def test_a_node_that_never_polled_is_refused_at_once() -> None:
    with pytest.raises(Refused, match="has not asked this bot for work in the last 30 s"):
        plan(NodeDesk())


def test_a_node_whose_source_may_not_post_here_is_refused() -> None:
    desk = NodeDesk()
    desk.poll(source="other", allows=nowhere, node="gpu-1", now=100)
    with pytest.raises(Refused, match="source 'other', which may not post to this room"):
        plan(desk)


def test_an_alias_the_source_allows_counts() -> None:
    desk = NodeDesk()
    desk.poll(source="s", allows=lambda r: r == "#team:hs", node="gpu-1", now=100)
    assert plan(desk)


def test_plan_round_trip_then_apply_of_that_digest_only() -> None:
    desk = desk_with_node()
    rid = plan(desk)
    got = desk.poll(source="gpu", allows=team_only, node="gpu-1", now=102)
    assert [r.wire() for r in got] == [
        {"id": rid, "op": "plan", "reporter": "pi", "action": "enable"}
    ]
    assert got[0].fetched
    done, unknown = desk.results(
        source="gpu",
        allows=team_only,
        node="gpu-1",
        now=103,
        results=[ResultIn(rid, True, "", DIGEST, "--- a\n+++ b\n", {"pi": "1"})],
    )
    assert unknown == [] and len(done) == 1 and done[0].digest == DIGEST
    assert desk.poll(source="gpu", allows=team_only, node="gpu-1", now=104) == []
    with pytest.raises(Refused, match="was not planned by node gpu-1 in this room"):
        desk.apply(room=ROOM, refs=REFS, command="$a0", node="gpu-1", digest="ef" * 32, now=105)
    with pytest.raises(Refused, match="was not planned"):  # another room never saw it
        desk.apply(
            room="!other", refs=frozenset(), command="$a1", node="gpu-1", digest=DIGEST, now=105
        )
    a = desk.apply(room=ROOM, refs=REFS, command="$a2", node="gpu-1", digest=DIGEST, now=105)
    assert a.wire() == {
        "id": a.id,
        "op": "apply",
        "reporter": "pi",
        "action": "enable",
        "digest": DIGEST,
    }


def test_a_second_source_cannot_take_a_node_while_the_first_polls() -> None:
    desk = desk_with_node(100)
    with pytest.raises(Refused, match="served by another source"):
        desk.poll(source="intruder", allows=everywhere, node="gpu-1", now=110)
    rid = plan(desk, 111)
    with pytest.raises(Refused, match="did not ask this source's token"):
        desk.results(
            source="intruder",
            allows=everywhere,
            node="gpu-1",
            now=112,
            results=[ResultIn(rid, True, "x")],
        )
    # once the first has been silent for bound_for, the name is free again
    desk.poll(source="intruder", allows=everywhere, node="gpu-1", now=100 + 121)


def test_timeout_is_told_once_and_a_late_answer_still_finishes() -> None:
    desk = desk_with_node()
    rid = plan(desk, 101)
    assert desk.expire(160) == []
    (late,) = desk.expire(161)
    assert late.timed_out and not late.request.fetched
    assert desk.expire(200) == []
    desk.poll(source="gpu", allows=team_only, node="gpu-1", now=300)
    done, _ = desk.results(
        source="gpu",
        allows=team_only,
        node="gpu-1",
        now=300,
        results=[ResultIn(rid, False, "not opted in")],
    )
    assert done[0].late and not done[0].ok
    assert not desk.knows(rid)


def test_results_for_unknown_ids_or_other_nodes_are_not_taken() -> None:
    desk = desk_with_node()
    rid = plan(desk)
    desk.poll(source="gpu", allows=team_only, node="gpu-2", now=102)
    done, unknown = desk.results(
        source="gpu",
        allows=team_only,
        node="gpu-2",
        now=102,
        results=[ResultIn(rid, True), ResultIn("rqx", True)],
    )
    assert done == [] and unknown == [rid, "rqx"]


def test_one_command_one_request_and_pending_is_bounded() -> None:
    desk = desk_with_node()
    plan(desk, command="$same")
    with pytest.raises(Refused, match="taken already"):
        plan(desk, command="$same")
    assert request_id("$same") == request_id("$same") != request_id("$other")
    for i in range(15):
        plan(desk, command=f"$c{i}")
    with pytest.raises(Refused, match="16 requests waiting"):
        plan(desk, command="$one-more")


def test_planned_digests_are_forgotten_after_plan_keep() -> None:
    desk = NodeDesk(plan_keep=100)
    desk.poll(source="gpu", allows=team_only, node="gpu-1", now=0)
    rid = plan(desk, 1)
    desk.results(
        source="gpu",
        allows=team_only,
        node="gpu-1",
        now=2,
        results=[ResultIn(rid, True, "", DIGEST, "diff", {})],
    )
    desk.poll(source="gpu", allows=team_only, node="gpu-1", now=103)
    with pytest.raises(Refused, match="within the last"):
        desk.apply(room=ROOM, refs=REFS, command="$a", node="gpu-1", digest=DIGEST, now=103)


def test_node_names_are_bounded_and_stale_ones_make_room() -> None:
    from roombot.node_desk import MAX_NODES

    desk = NodeDesk()
    for i in range(MAX_NODES):
        desk.poll(source="s", allows=everywhere, node=f"n{i}", now=0)
    with pytest.raises(Refused, match=f"already serves {MAX_NODES} nodes"):
        desk.poll(source="s", allows=everywhere, node="one-more", now=10)
    desk.poll(source="s", allows=everywhere, node="n0", now=10)  # a known one still polls
    desk.poll(source="s", allows=everywhere, node="one-more", now=500)  # the stale made room
