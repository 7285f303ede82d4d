"""Every endpoint of the report API and every refusal, against a real pipeline."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from roombot.api.validation import BodyError, check, parse_report
from roombot.events import TurnStarted
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from tests.api.conftest import OTHER, ROOM, auth, failed_end, started
from tests.events.test_event_format import BAD_EVENT_IDS
from tests.prom import value

Client = TestClient[Any, Any]


async def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


# -- taking events ------------------------------------------------------------------


async def test_one_event_is_taken_and_journalled(client: Client, pipeline: Pipeline) -> None:
    resp = await client.post("/v1/events", json=started("t1", event_id="e1"), headers=auth("hub"))
    assert resp.status == 202
    body = await resp.json()
    assert body == {
        "accepted": 1,
        "duplicates": 0,
        "events": [{"event_id": "e1", "turn": "t1", "duplicate": False}],
    }
    assert await pipeline.journal_size() == 1
    assert pipeline.room_of("t1") == ROOM


async def test_a_repeated_event_id_is_a_duplicate_and_taken_once(
    client: Client, pipeline: Pipeline
) -> None:
    event = started("t1", event_id="same")
    first = await client.post("/v1/events", json=event, headers=auth("hub"))
    second = await client.post("/v1/events", json=event, headers=auth("hub"))
    assert first.status == second.status == 202
    assert (await second.json())["events"][0]["duplicate"] is True
    assert (await second.json())["accepted"] == 0
    assert await pipeline.journal_size() == 1


async def test_batch_is_taken_in_order_and_the_turn_gets_a_card(
    client: Client, pipeline: Pipeline, outbox: Outbox
) -> None:
    events = [
        started("t2", event_id="a", provider="anthropic", model="claude-x"),
        {"type": "turn.output", "turn": "t2", "text": "thinking", "event_id": "b"},
        failed_end("t2", event_id="c"),
    ]
    resp = await client.post("/v1/batch", json={"events": events}, headers=auth("hub"))
    assert resp.status == 202
    assert (await resp.json())["accepted"] == 3
    await wait_for(lambda: outbox.get("t2/post") is not None)
    notice = outbox.get("t2/post")
    assert notice is not None and notice.room == ROOM
    assert notice.error.model == "claude-x"

    resp = await client.get("/v1/turns/t2", headers=auth("hub"))
    assert resp.status == 200
    body = await resp.json()
    assert body["state"] == "decided" and body["notice"] == "post" and body["room"] == ROOM
    assert body["card"]["type"] == "turn_error" and body["card"]["model"] == "claude-x"


async def test_a_batch_with_one_bad_event_is_refused_whole(
    client: Client, pipeline: Pipeline
) -> None:
    events = [
        started("t3", event_id="g1"),
        {"type": "turn.failed_attempt", "turn": "t3", "error": {"status": 1000}},
        failed_end("t3", event_id="g3"),
    ]
    resp = await client.post("/v1/batch", json={"events": events}, headers=auth("hub"))
    assert resp.status == 400
    body = await resp.json()
    assert body["error"] == "bad_request"
    assert body["field"] == "events[1].error.status"
    assert "0..999" in body["expected"]
    # Nothing of the batch was taken: not even the good events before the bad one.
    assert await pipeline.journal_size() == 0
    assert pipeline.room_of("t3") is None
    # Fixed, the same batch goes through whole.
    events[1] = {"type": "turn.failed_attempt", "turn": "t3", "error": {"status": 500}}
    resp = await client.post("/v1/batch", json={"events": events}, headers=auth("hub"))
    assert resp.status == 202 and (await resp.json())["accepted"] == 3


async def test_report_becomes_a_card_and_is_a_duplicate_the_second_time(
    client: Client, pipeline: Pipeline, outbox: Outbox
) -> None:
    report = {
        "turn": "run-42",
        "room": ROOM,
        "harness": "ironflow",
        "provider": "openai",
        "model": "gpt-x",
        "error": {"text": "the run failed: upstream 503"},
    }
    resp = await client.post("/v1/reports", json=report, headers=auth("hub"))
    assert resp.status == 202
    assert (await resp.json())["accepted"] == 2
    await wait_for(lambda: outbox.get("run-42/post") is not None)
    notice = outbox.get("run-42/post")
    assert notice is not None and "upstream 503" in notice.error.message

    again = await client.post("/v1/reports", json=report, headers=auth("hub"))
    assert again.status == 202
    assert (await again.json())["duplicates"] == 2


async def test_report_about_a_turn_already_followed_is_a_conflict(
    client: Client, pipeline: Pipeline
) -> None:
    await client.post("/v1/events", json=started("t4"), headers=auth("hub"))
    report = {"turn": "t4", "room": ROOM, "harness": "x", "error": {"text": "failed"}}
    resp = await client.post("/v1/reports", json=report, headers=auth("hub"))
    assert resp.status == 409
    assert (await resp.json())["field"] == "turn"
    assert await pipeline.journal_size() == 1


async def test_turn_state_open_then_unknown(client: Client) -> None:
    await client.post("/v1/events", json=started("t5"), headers=auth("hub"))
    resp = await client.get("/v1/turns/t5", headers=auth("hub"))
    assert resp.status == 200
    body = await resp.json()
    assert body == {"turn": "t5", "room": ROOM, "state": "open", "notice": None, "card": None}
    assert (await client.get("/v1/turns/nope", headers=auth("hub"))).status == 404
    # a turn in a room the source may not see is answered like an unknown one
    assert (await client.get("/v1/turns/t5", headers=auth("engine"))).status == 404
    assert (await client.get("/v1/turns/t5", headers=auth("ops"))).status == 200


# -- refusals: nothing refused is taken -----------------------------------------------


async def test_no_token_wrong_token_wrong_scheme_are_401(
    client: Client, pipeline: Pipeline
) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer not-a-token-of-anyone"},
        {"Authorization": "Basic aHViOmh1Yg=="},
        {"Authorization": "Bearer"},
    ):
        resp = await client.post("/v1/events", json=started("t6"), headers=headers)
        assert resp.status == 401, headers
        assert resp.headers["WWW-Authenticate"].startswith("Bearer")
        assert (await resp.json())["error"] == "unauthorized"
    assert (await client.get("/v1/turns/t6")).status == 401
    assert await pipeline.journal_size() == 0


async def test_room_outside_the_tokens_set_is_403(client: Client, pipeline: Pipeline) -> None:
    resp = await client.post("/v1/events", json=started("t7", room=OTHER), headers=auth("hub"))
    assert resp.status == 403
    body = await resp.json()
    assert body["field"] == "room" and OTHER in body["message"]
    # a turn started in another room cannot be spoken about either
    await client.post("/v1/events", json=started("t8", room=OTHER), headers=auth("engine"))
    resp = await client.post("/v1/events", json=failed_end("t8"), headers=auth("hub"))
    assert resp.status == 403 and (await resp.json())["field"] == "turn"
    # an unknown turn, from a source not allowed every room
    resp = await client.post("/v1/events", json=failed_end("t-new"), headers=auth("hub"))
    assert resp.status == 403
    # harness.exited ends turns in every room: only a source allowed every room
    gone = {"type": "harness.exited", "harness": "codex"}
    resp = await client.post("/v1/events", json=gone, headers=auth("hub"))
    assert resp.status == 403 and (await resp.json())["field"] == "type"
    # a report into a room outside the set
    report = {"turn": "t9", "room": OTHER, "harness": "x", "error": {"text": "failed"}}
    assert (await client.post("/v1/reports", json=report, headers=auth("hub"))).status == 403
    # a batch refused for its third event takes nothing
    batch = {"events": [started("t10"), failed_end("t10"), started("t11", room=OTHER)]}
    resp = await client.post("/v1/batch", json=batch, headers=auth("hub"))
    assert resp.status == 403 and (await resp.json())["field"] == "events[2].room"
    assert await pipeline.journal_size() == 1  # only t8's start, by the engine
    # allowed: the ops source may post anywhere, and the turn started in the same batch
    assert (await client.post("/v1/events", json=gone, headers=auth("ops"))).status == 202
    batch = {"events": [started("t12"), failed_end("t12")]}
    assert (await client.post("/v1/batch", json=batch, headers=auth("hub"))).status == 202


async def test_schema_errors_are_400_naming_the_field(client: Client, pipeline: Pipeline) -> None:
    cases: list[tuple[Any, str, str]] = [
        ({"type": "turn.started", "turn": "t", "room": ROOM}, "harness", "missing"),
        ({"type": "turn.begun", "turn": "t"}, "type", "turn.started"),
        ({"type": "turn.ended", "turn": "t", "stop_reason": "bored"}, "stop_reason", "end_turn"),
        ({"type": "turn.output", "turn": "t", "text": 5}, "text", "string"),
        ({**started("t"), "at": -1}, "at", "0 to 100000000000"),
        ({**started("t"), "at": 1e308}, "at", "0 to 100000000000"),
        ([1, 2], "(body)", "object"),
    ]
    for body, field, expected in cases:
        resp = await client.post("/v1/events", json=body, headers=auth("hub"))
        assert resp.status == 400, body
        answer = await resp.json()
        assert answer["field"] == field, (body, answer)
        assert expected in answer["expected"], (body, answer)
    resp = await client.post("/v1/batch", json={"events": []}, headers=auth("hub"))
    assert (await resp.json())["field"] == "events"
    resp = await client.post("/v1/reports", json={"turn": "t", "room": ROOM}, headers=auth("hub"))
    answer = await resp.json()
    assert resp.status == 400 and answer["field"] == "harness"
    assert await pipeline.journal_size() == 0


async def test_bodies_that_are_not_json_are_400(client: Client) -> None:
    headers = {**auth("hub"), "Content-Type": "application/json"}
    for raw in (b"{not json", b'{"at": NaN}', b"\xff\xfe", b'"\\ud800"', b"[" * 200 + b"]" * 200):
        resp = await client.post("/v1/events", data=raw, headers=headers)
        assert resp.status == 400, raw
        assert (await resp.json())["field"] == "(body)"


async def test_over_the_body_limit_is_413(client: Client, pipeline: Pipeline) -> None:
    big = {**started("t13"), "padding": "x" * (70 * 1024)}
    resp = await client.post("/v1/events", json=big, headers=auth("hub"))
    assert resp.status == 413
    assert (await resp.json())["error"] == "too_large"

    async def chunks() -> Any:  # no Content-Length: aiohttp stops it at the limit
        data = json.dumps(big).encode()
        for i in range(0, len(data), 8192):
            yield data[i : i + 8192]

    headers = {**auth("hub"), "Content-Type": "application/json"}
    resp = await client.post("/v1/events", data=chunks(), headers=headers)
    assert resp.status == 413
    assert (await resp.json())["error"] == "too_large"
    assert await pipeline.journal_size() == 0


async def test_other_content_types_are_415(client: Client) -> None:
    body = json.dumps(started("t14"))
    for ctype in (
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin-1",
    ):
        resp = await client.post(
            "/v1/events", data=body, headers={**auth("hub"), "Content-Type": ctype}
        )
        assert resp.status == 415, ctype
        assert (await resp.json())["error"] == "unsupported_media_type"


async def test_a_flooding_source_gets_429_with_retry_after(
    client: Client, pipeline: Pipeline
) -> None:
    # "tiny" has a bucket of 3 events refilled at 1 event/s.
    statuses = []
    for i in range(6):
        resp = await client.post("/v1/events", json=started(f"f{i}"), headers=auth("tiny"))
        statuses.append(resp.status)
        if resp.status == 429:
            assert int(resp.headers["Retry-After"]) >= 1
            assert (await resp.json())["retry_after"] > 0
    assert statuses[:3] == [202, 202, 202]
    assert statuses[3:] == [429, 429, 429]
    # another source is not held back by it
    assert (await client.post("/v1/events", json=started("g"), headers=auth("hub"))).status == 202
    assert await pipeline.journal_size() == 4


async def test_wrong_method_and_unknown_path_answer_json(client: Client) -> None:
    resp = await client.get("/v1/events", headers=auth("hub"))
    assert resp.status == 405 and "POST" in resp.headers["Allow"]
    assert (await resp.json())["error"] == "method_not_allowed"
    resp = await client.get("/v2/nothing", headers=auth("hub"))
    assert resp.status == 404 and (await resp.json())["error"] == "not_found"


async def test_healthz_and_metrics(client: Client, pipeline: Pipeline) -> None:
    resp = await client.get("/healthz")
    assert resp.status == 200 and (await resp.json())["ok"] is True
    await client.post("/v1/events", json=started("m1", event_id="m1"), headers=auth("hub"))
    await client.post("/v1/events", json=started("m1", event_id="m1"), headers=auth("hub"))
    await client.post("/v1/events", json=started("m2"), headers={})
    text = await (await client.get("/metrics")).text()
    assert value(text, "roombot_api_events_total", source="hub") == 1
    assert value(text, "roombot_api_duplicates_total", source="hub") == 1
    assert value(text, "roombot_api_refused_total", source="-", reason="unauthorized") == 1
    assert value(text, "roombot_api_responses_total", route="/v1/events", status="202") == 2
    assert value(text, "roombot_api_ack_seconds_count") == 2  # one per 202
    assert value(text, "roombot_api_ack_seconds_bucket", le="+Inf") == 2
    assert value(text, "roombot_api_up") == 1
    await pipeline.stop()
    resp = await client.get("/healthz")
    assert resp.status == 503 and (await resp.json())["ok"] is False
    resp = await client.post("/v1/events", json=started("m3"), headers=auth("hub"))
    assert resp.status == 503


async def test_bad_posts_cost_tokens_too(client: Client) -> None:
    statuses = []
    for _ in range(5):
        resp = await client.post("/v1/events", json={"type": "nope"}, headers=auth("tiny"))
        statuses.append(resp.status)
    assert statuses[:3] == [400, 400, 400] and statuses[3:] == [429, 429]


async def test_a_batch_pays_one_token_per_event(client: Client) -> None:
    # The bucket of "tiny" holds 3: a batch of 5 gets in while it is not empty, then the
    # debt it leaves holds the source back.
    batch = {"events": [started("d1"), *[failed_end("d1") for _ in range(4)]]}
    assert (await client.post("/v1/batch", json=batch, headers=auth("tiny"))).status == 202
    resp = await client.post("/v1/events", json=started("d2"), headers=auth("tiny"))
    assert resp.status == 429
    assert int(resp.headers["Retry-After"]) >= 3  # 2 events of debt + 1 token, at 1/s


# -- the message that started a turn ----------------------------------------------


async def test_the_triggering_message_and_its_thread_are_taken_and_bad_ones_refused(
    client: Client, pipeline: Pipeline
) -> None:
    ids = {"trigger": "$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg", "thread": "$root:x"}
    resp = await client.post("/v1/events", json=started("t1", **ids), headers=auth("hub"))
    assert resp.status == 202
    report = {"turn": "run-1", "room": ROOM, "harness": "ironflow", "error": {"text": "boom"}}
    resp = await client.post("/v1/reports", json=report | ids, headers=auth("hub"))
    assert resp.status == 202
    first = parse_report(report | ids).events[0]
    assert isinstance(first, TurnStarted)
    assert (first.trigger, first.thread) == (ids["trigger"], ids["thread"])
    assert await pipeline.journal_size() == 3
    cases: list[tuple[str, dict[str, Any], str, str]] = [
        ("/v1/events", started("t2", trigger="m1"), "trigger", "a Matrix event id"),
        ("/v1/events", started("t2", trigger="$a", thread="$ b"), "thread", "no whitespace"),
        ("/v1/events", started("t2", thread="$root"), "thread", "a trigger beside it"),
        ("/v1/batch", {"events": [started("t2", trigger=7)]}, "events[0].trigger", "Matrix"),
        ("/v1/reports", report | {"trigger": "$a\nb"}, "trigger", "a Matrix event id"),
        ("/v1/reports", report | {"trigger": "$" + "a" * 255}, "trigger", "254 more"),
        ("/v1/reports", report | {"thread": "$root"}, "trigger", "missing"),
    ]
    for path, body, field, expected in cases:
        resp = await client.post(path, json=body, headers=auth("hub"))
        answer = await resp.json()
        assert resp.status == 400 and answer["field"] == field, (body, answer)
        assert expected in answer["expected"], (body, answer)
    assert await pipeline.journal_size() == 3


ERROR = {"error": {"text": "boom"}}


def test_both_validators_refuse_every_bad_event_id() -> None:
    """The compiled validator answers first: it must refuse what the parser refuses."""
    for bad in BAD_EVENT_IDS:
        for extra in ({"trigger": bad}, {"trigger": "$a", "thread": bad}):
            with pytest.raises(BodyError):
                check("event", started("t", **extra))
            with pytest.raises(BodyError):
                check("report", {"turn": "t", "room": ROOM, "harness": "h"} | extra | ERROR)
    check("event", started("t", trigger="$a", thread="$" + "é" * 254))
