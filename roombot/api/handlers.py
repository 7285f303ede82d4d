"""The report API's handlers: short, each parsing its body and calling the sink."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from cards.codec import to_payload
from roombot.api import keys
from roombot.api.middlewares import Handler, refuse
from roombot.api.rooms import RoomRefused, check_rooms
from roombot.api.validation import (
    BodyError,
    parse_batch,
    parse_heartbeat,
    parse_node,
    parse_one,
    parse_report,
    parse_results,
)
from roombot.events import Event
from roombot.node_desk import Refused
from roombot.nodes import NodeClaimed, NodeState
from roombot.observe import metrics_response
from roombot.pipeline import Ack, TurnStatus, Unavailable
from roombot.silences import Silence

__all__ = [
    "Handler",
    "get_node_requests",
    "get_nodes",
    "get_silences",
    "get_turn",
    "healthz",
    "metrics",
    "post_batch",
    "post_event",
    "post_heartbeat",
    "post_node_results",
    "post_report",
]


def _body_error(e: BodyError) -> web.HTTPException:
    return refuse(400, str(e), field=e.field, expected=e.expected)


async def _take(request: web.Request, events: Sequence[Event], prefix: str) -> web.Response:
    """Check rooms, charge the source's bucket, journal, answer 202."""
    app = request.app
    source = request[keys.SOURCE]
    sink = app[keys.SINK]
    try:
        check_rooms(source, events, sink.room_of, prefix=prefix)
    except RoomRefused as e:
        raise refuse(403, e.message, field=e.field) from None
    app[keys.LIMITS].charge(source, len(events) - 1, time.monotonic())  # 1 paid at the door
    try:
        acks = await sink.accept(events)
    except Unavailable as e:
        raise refuse(503, f"{e}; nothing was taken, retry") from None
    return web.json_response(_ack_body(acks, source.name, request), status=202)


def _ack_body(acks: list[Ack], source: str, request: web.Request) -> dict[str, Any]:
    duplicates = sum(a.duplicate for a in acks)
    metrics = request.app[keys.METRICS]
    metrics.events.labels(source).inc(len(acks) - duplicates)
    metrics.duplicates.labels(source).inc(duplicates)
    return {
        "accepted": len(acks) - duplicates,
        "duplicates": duplicates,
        "events": [
            {"event_id": a.event_id, "turn": a.turn, "duplicate": a.duplicate} for a in acks
        ],
    }


async def post_event(request: web.Request) -> web.Response:
    try:
        event = parse_one(request[keys.JSON])
    except BodyError as e:
        raise _body_error(e) from None
    return await _take(request, [event], "")


async def post_batch(request: web.Request) -> web.Response:
    try:
        events = parse_batch(request[keys.JSON])
    except BodyError as e:
        raise _body_error(e) from None
    return await _take(request, events, "events")


async def post_report(request: web.Request) -> web.Response:
    try:
        report = parse_report(request[keys.JSON])
    except BodyError as e:
        raise _body_error(e) from None
    source = request[keys.SOURCE]
    if not source.allows(report.room):
        raise refuse(
            403, f"source {source.name!r} may not post to room {report.room}", field="room"
        )
    sink = request.app[keys.SINK]
    # The same report again is a duplicate (its events carry the same ids); a report
    # about a turn the bot already follows from another source would start it twice.
    if sink.room_of(report.turn) is not None and sink.started_by(report.turn) != report.event_id:
        raise refuse(
            409,
            f"turn {report.turn!r} is already known to the bot; post a turn.report event "
            "to add a failure to a turn that is running",
            field="turn",
        )
    return await _take(request, report.events, "")


def _card(status: TurnStatus) -> dict[str, Any] | None:
    return None if status.error is None else to_payload(status.error)


async def get_turn(request: web.Request) -> web.Response:
    turn = request.match_info["turn"]
    source = request[keys.SOURCE]
    status = request.app[keys.SINK].status(turn)
    # A turn in a room the source may not see is answered like an unknown one.
    if (
        status is None
        or (status.room is not None and not source.allows(status.room))
        or (status.room is None and not source.all_rooms)
    ):
        raise refuse(404, f"no turn {turn!r} that source {source.name!r} may see")
    return web.json_response(
        {
            "turn": status.turn,
            "room": status.room,
            "state": status.state,
            "notice": status.notice,
            "card": _card(status),
        }
    )


async def post_heartbeat(request: web.Request) -> web.Response:
    sink = request.app[keys.SINK]
    try:
        beat = parse_heartbeat(request[keys.JSON], sink.heartbeat_interval)
    except BodyError as e:
        raise _body_error(e) from None
    if beat.info.interval >= sink.offline_after:
        raise refuse(
            400,
            f"interval {beat.info.interval:g} s is not below the bot's offline_after "
            f"({sink.offline_after:g} s): the node would be taken for offline between beats",
            field="interval",
            expected=f"a number of seconds below {sink.offline_after:g}",
        )
    source = request[keys.SOURCE]
    # A source allowed some rooms can end, by going silent, only the turns in those.
    rooms = None if source.all_rooms else source.rooms
    try:
        sink.heartbeat(beat.node, beat.info, source=source.name, rooms=rooms)
    except NodeClaimed as e:
        raise refuse(409, str(e), field="node") from None
    except Unavailable as e:
        raise refuse(503, f"{e}; retry") from None
    return web.json_response(
        {"offline_after": sink.offline_after, "heartbeat_interval": sink.heartbeat_interval}
    )


def _node(state: NodeState) -> dict[str, Any]:
    info = state.info
    return {
        "node": state.node,
        "source": state.source,
        "online": state.online,
        "last_seen": state.last_seen,
        "since": state.since,
        "interval": info.interval,
        "harnesses": dict(info.harnesses),
        "reporters": dict(info.reporters),
        "plugin_management": info.plugin_management,
        "version": info.version,
    }


async def get_nodes(request: web.Request) -> web.Response:
    """Every node to a source allowed every room; to another, the nodes it speaks for."""
    source = request[keys.SOURCE]
    sink = request.app[keys.SINK]
    seen = [_node(s) for s in sink.node_states() if source.all_rooms or s.source == source.name]
    return web.json_response({"offline_after": sink.offline_after, "nodes": seen})


def _desk_and_node(request: web.Request) -> tuple[Any, str]:
    desk = request.app[keys.DESK]
    if desk is None:
        raise refuse(503, "this server does not serve room commands to nodes")
    try:
        node = parse_node(request.match_info["node"])
    except BodyError as e:
        raise _body_error(e) from None
    return desk, node


async def get_node_requests(request: web.Request) -> web.Response:
    """A node's loop asks for work: the room commands for it that its source may have."""
    desk, node = _desk_and_node(request)
    source = request[keys.SOURCE]
    try:
        pending = desk.poll(source=source.name, allows=source.allows, node=node)
    except Refused as e:
        raise refuse(409, str(e), field="node") from None
    return web.json_response({"requests": [r.wire() for r in pending]})


async def post_node_results(request: web.Request) -> web.Response:
    """A node's loop says what it did; each result becomes the room's answer."""
    desk, node = _desk_and_node(request)
    try:
        results = parse_results(request[keys.JSON])
    except BodyError as e:
        raise _body_error(e) from None
    source = request[keys.SOURCE]
    try:
        unknown = desk.results(source=source.name, allows=source.allows, node=node, results=results)
    except Refused as e:
        raise refuse(409, str(e), field="node") from None
    return web.json_response({"taken": len(results) - len(unknown), "unknown": unknown})


# An ended silence stays listed this long, so a dashboard sees what just ended.
ENDED_SHOWN = 3600.0


def _silence(s: Silence, now: float) -> dict[str, Any]:
    state = "active" if s.active(now) else ("lifted" if s.lifted is not None else "ended")
    return {
        "id": s.id,
        "state": state,
        "rooms": sorted(s.rooms),
        "matchers": dict(s.matchers),
        "describe": s.describe(),
        "starts": s.starts,
        "ends": s.ends,
        "until": s.until,
        "reason": s.reason,
        "by": s.by,
        "lifted": s.lifted,
        "lifted_by": s.lifted_by,
    }


async def get_silences(request: web.Request) -> web.Response:
    """The silences active now and those ended within the last hour, in the rooms this
    source may post to (every one to a source allowed every room)."""
    store = request.app[keys.SILENCES]
    if store is None:
        raise refuse(503, "this server keeps no silences")
    source = request[keys.SOURCE]
    now = store.clock()
    seen = [
        _silence(s, now)
        for s in store.snapshot()
        if now - s.until < ENDED_SHOWN
        and (source.all_rooms or any(source.allows(r) for r in s.rooms))
    ]
    return web.json_response({"now": now, "silences": seen})


async def healthz(request: web.Request) -> web.Response:
    sink = request.app[keys.SINK]
    ok = sink.started
    return web.json_response(
        {"ok": ok, "pipeline": ok, "backlog": sink.backlog}, status=200 if ok else 503
    )


async def metrics(request: web.Request) -> web.Response:
    return metrics_response(request.app[keys.METRICS].registry)
