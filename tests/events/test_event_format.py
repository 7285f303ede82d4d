"""Event format v1: parse_event and the JSON Schema give the same verdicts."""

from __future__ import annotations

import contextlib
import copy
import json
import unicodedata
from importlib import resources
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roombot.events import (
    MATRIX_EVENT_ID_FORBIDDEN,
    MATRIX_EVENT_ID_MAX,
    EventError,
    HarnessExited,
    StopReason,
    TurnEnded,
    TurnFailedAttempt,
    TurnStarted,
    event_to_json,
    parse_event,
    parse_events_jsonl,
)

SCHEMA = json.loads(
    resources.files("roombot").joinpath("schemas/event.v1.json").read_text(encoding="utf-8")
)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

VALID: list[dict[str, Any]] = [
    {
        "type": "turn.started",
        "turn": "t1",
        "room": "!r:example.org",
        "harness": "claude-code",
        "provider": "anthropic",
        "model": "claude-opus-4",
        "at": 1767225600.25,
        "event_id": "e1",
    },
    {"type": "turn.started", "turn": "t1", "room": "!r:x", "harness": "codex", "node": "n1"},
    {"type": "turn.started", "turn": "t1", "room": "!r:x", "harness": "h", "provider": None},
    {
        "type": "turn.started",
        "turn": "t1",
        "room": "!r:x",
        "harness": "h",
        "trigger": "$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg",
        "thread": "$root:example.org",
    },
    {"type": "turn.started", "turn": "t1", "room": "!r:x", "harness": "h", "trigger": "$x"},
    {"type": "turn.started", "turn": "t", "room": "!r", "harness": "h", "trigger": "$" + "é" * 254},
    {"type": "turn.started", "turn": "t1", "room": "!r:x", "harness": "h", "trigger": "$😀"},
    {"type": "turn.started", "turn": "t1", "room": "!r:x", "harness": "h", "thread": None},
    {"type": "turn.attempt", "turn": "t1", "provider": "openai", "model": "gpt-5"},
    {"type": "turn.attempt", "turn": "t1"},
    {
        "type": "turn.failed_attempt",
        "turn": "t1",
        "provider": "anthropic",
        "model": "m",
        "error": {"status": 429, "body": "{}", "headers": {"retry-after": "3"}},
    },
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"status": 0}},
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"status": 529.0, "body": None}},
    {
        "type": "turn.failed_attempt",
        "turn": "t1",
        "error": {"acp": {"code": -32603, "message": "x"}},
    },
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"ironflow": {"RateLimited": {}}}},
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"ironflow": "Cancelled"}},
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"exit": {"code": 1, "stderr": "boom"}}},
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"exit": {"code": None}}},
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"text": "overloaded"}},
    {"type": "turn.failed_attempt", "turn": "t1", "error": {"signal": "a form added later"}},
    {"type": "turn.output", "turn": "t1", "text": ""},
    {"type": "turn.output", "turn": "t1", "text": "Here you go.", "future_field": [1, 2]},
    {"type": "turn.ended", "turn": "t1", "stop_reason": "end_turn"},
    {"type": "turn.ended", "turn": "t1", "stop_reason": "max_turn_requests", "error": None},
    {"type": "turn.ended", "turn": "t1", "error": {"text": "prompt rejected"}},
    {"type": "turn.ended", "turn": "t1", "error": {"text": "x"}, "stop_reason": None},
    {"type": "turn.report", "turn": "t1", "source": "claude-hook", "error": {"text": "quota"}},
    {"type": "harness.exited", "harness": "codex"},
    {"type": "harness.exited", "harness": "codex", "node": "n1", "error": {"exit": {"code": 137}}},
    {"type": "harness.exited", "harness": "codex", "turn": "t1", "error": None},
    {"type": "node.offline", "node": "n1", "at": 0},
    {"type": "node.offline", "node": "n1", "error": {"text": "heartbeat lost"}},
    {"type": "node.offline", "node": "n1", "rooms": ["!a:x", "#b:x"]},
    {"type": "node.offline", "node": "n1", "rooms": None},
]

# Not Matrix event ids: the wrong type, no `$`, too short or too long, a space or a
# control character anywhere (the last ones are each kind the pattern names).
BAD_EVENT_IDS: list[object] = [
    "",
    "$",
    "abc",
    " $abc",
    "$" + "a" * 255,
    3,
    ["$a"],
    *[
        f"$ab{c}cd"
        for c in " \t\n\r\x00\x1f\x7f\x85\x9f\u00a0\u1680\u2003\u2028\u2029\u202f\u205f\u3000\ufeff"
    ],
    "$abc\n",
]

# (object, the field the error must name)
INVALID: list[tuple[object, str]] = [
    ([], "(event)"),
    ("turn.started", "(event)"),
    ({"turn": "t1"}, "type"),
    ({"type": "turn.begun", "turn": "t1"}, "type"),
    ({"type": 3, "turn": "t1"}, "type"),
    ({"type": "turn.started", "room": "!r:x", "harness": "h"}, "turn"),
    ({"type": "turn.started", "turn": "", "room": "!r:x", "harness": "h"}, "turn"),
    ({"type": "turn.started", "turn": 7, "room": "!r:x", "harness": "h"}, "turn"),
    ({"type": "turn.started", "turn": "t", "harness": "h"}, "room"),
    ({"type": "turn.started", "turn": "t", "room": "!r:x"}, "harness"),
    ({"type": "turn.started", "turn": "t", "room": "!r:x", "harness": "h", "model": 4}, "model"),
    ({"type": "turn.started", "turn": "t", "room": "r", "harness": "h", "node": ""}, "node"),
    *[
        (
            {"type": "turn.started", "turn": "t", "room": "r", "harness": "h"} | {"trigger": bad},
            "trigger",
        )
        for bad in BAD_EVENT_IDS
    ],
    *[
        (
            {"type": "turn.started", "turn": "t", "room": "r", "harness": "h", "trigger": "$a"}
            | {"thread": bad},
            "thread",
        )
        for bad in BAD_EVENT_IDS
    ],
    ({"type": "turn.started", "turn": "t", "room": "r", "harness": "h", "thread": "$a"}, "thread"),
    (
        {"type": "turn.started", "turn": "t", "room": "r", "harness": "h"}
        | {"thread": "$a", "trigger": None},
        "thread",
    ),
    ({"type": "turn.output", "turn": "t", "text": "x", "at": -1}, "at"),
    ({"type": "turn.output", "turn": "t", "text": "x", "at": "now"}, "at"),
    ({"type": "turn.output", "turn": "t", "text": "x", "at": True}, "at"),
    ({"type": "turn.output", "turn": "t", "text": "x", "event_id": ""}, "event_id"),
    ({"type": "turn.output", "turn": "t"}, "text"),
    ({"type": "turn.output", "turn": "t", "text": None}, "text"),
    ({"type": "turn.ended", "turn": "t"}, "stop_reason"),
    ({"type": "turn.ended", "turn": "t", "stop_reason": "done"}, "stop_reason"),
    (
        {"type": "turn.ended", "turn": "t", "stop_reason": "end_turn", "error": {"text": "x"}},
        "stop_reason",
    ),
    ({"type": "turn.ended", "turn": "t", "error": "boom"}, "error"),
    ({"type": "turn.failed_attempt", "turn": "t"}, "error"),
    ({"type": "turn.failed_attempt", "turn": "t", "error": {}}, "error"),
    ({"type": "turn.failed_attempt", "turn": "t", "error": {"status": "429"}}, "error.status"),
    ({"type": "turn.failed_attempt", "turn": "t", "error": {"status": 1000}}, "error.status"),
    ({"type": "turn.failed_attempt", "turn": "t", "error": {"status": True}}, "error.status"),
    (
        {"type": "turn.failed_attempt", "turn": "t", "error": {"status": 500, "body": 1}},
        "error.body",
    ),
    (
        {"type": "turn.failed_attempt", "turn": "t", "error": {"status": 500, "headers": {"a": 1}}},
        "error.headers",
    ),
    (
        {"type": "turn.failed_attempt", "turn": "t", "error": {"acp": {"code": 1}}},
        "error.acp.message",
    ),
    (
        {
            "type": "turn.failed_attempt",
            "turn": "t",
            "error": {"acp": {"code": "x", "message": ""}},
        },
        "error.acp.code",
    ),
    ({"type": "turn.failed_attempt", "turn": "t", "error": {"acp": "oops"}}, "error.acp"),
    ({"type": "turn.failed_attempt", "turn": "t", "error": {"ironflow": 3}}, "error.ironflow"),
    (
        {"type": "turn.failed_attempt", "turn": "t", "error": {"exit": {"code": 1.5}}},
        "error.exit.code",
    ),
    (
        {"type": "turn.failed_attempt", "turn": "t", "error": {"exit": {"stderr": 2}}},
        "error.exit.stderr",
    ),
    ({"type": "turn.failed_attempt", "turn": "t", "error": {"text": ["a"]}}, "error.text"),
    (
        {"type": "turn.failed_attempt", "turn": "t", "error": {"text": "x", "model": 1}},
        "error.model",
    ),
    ({"type": "turn.report", "turn": "t", "error": {"text": "x"}}, "source"),
    ({"type": "turn.report", "turn": "t", "source": "s"}, "error"),
    ({"type": "harness.exited"}, "harness"),
    ({"type": "harness.exited", "harness": "h", "error": []}, "error"),
    ({"type": "node.offline", "harness": "h"}, "node"),
    ({"type": "node.offline", "node": "n", "rooms": []}, "rooms"),
    ({"type": "node.offline", "node": "n", "rooms": "!a:x"}, "rooms"),
    ({"type": "node.offline", "node": "n", "rooms": ["!a:x", ""]}, "rooms[1]"),
]


@pytest.mark.parametrize("obj", VALID, ids=lambda o: str(o.get("type")))
def test_valid_events_parse_and_match_the_schema(obj: dict[str, Any]) -> None:
    event = parse_event(obj)
    assert VALIDATOR.is_valid(obj), list(VALIDATOR.iter_errors(obj))
    # the typed value round-trips through its JSON form
    assert parse_event(event_to_json(event)) == event


@pytest.mark.parametrize(("obj", "field"), INVALID, ids=lambda x: str(x)[:50])
def test_invalid_events_name_the_field_and_fail_the_schema(obj: object, field: str) -> None:
    with pytest.raises(EventError) as caught:
        parse_event(obj)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}: expected ")
    assert not VALIDATOR.is_valid(obj)


def test_typed_values_carry_the_fields() -> None:
    started = parse_event(VALID[0])
    assert started == TurnStarted(
        turn="t1",
        room="!r:example.org",
        harness="claude-code",
        provider="anthropic",
        model="claude-opus-4",
        event_id="e1",
        at=1767225600.25,
    )
    ended = parse_event({"type": "turn.ended", "turn": "t", "stop_reason": "refusal"})
    assert ended == TurnEnded(turn="t", stop_reason=StopReason.REFUSAL)
    exited = parse_event({"type": "harness.exited", "harness": "codex", "node": "n"})
    assert exited == HarnessExited(harness="codex", node="n")


def test_integral_floats_become_ints_for_the_normalisers() -> None:
    event = parse_event({"type": "turn.failed_attempt", "turn": "t", "error": {"status": 429.0}})
    assert isinstance(event, TurnFailedAttempt)
    assert event.error["status"] == 429
    assert type(event.error["status"]) is int


def test_parse_does_not_alias_the_callers_error() -> None:
    obj: dict[str, Any] = {"type": "turn.failed_attempt", "turn": "t", "error": {"status": 500}}
    event = parse_event(obj)
    obj["error"]["status"] = 200
    assert isinstance(event, TurnFailedAttempt)
    assert event.error["status"] == 500


def test_jsonl_names_the_bad_line_after_yielding_the_good_ones() -> None:
    lines = [
        '{"type": "turn.output", "turn": "t", "text": "a"}',
        "",
        '{"type": "turn.output", "turn": "t"}',
        '{"type": "turn.output", "turn": "t", "text": "never read"}',
    ]
    seen: list[int] = []
    with pytest.raises(EventError) as caught:
        for number, _event in parse_events_jsonl(lines):
            seen.append(number)
    assert seen == [1]
    assert str(caught.value) == "line 3: text: expected a string (a chunk of the answer), got null"


def test_jsonl_rejects_non_json_and_nan() -> None:
    with pytest.raises(EventError, match=r"^line 1: expected one JSON object"):
        list(parse_events_jsonl(["{not json"]))
    with pytest.raises(EventError, match=r"^line 1: expected one JSON object"):
        list(parse_events_jsonl(['{"type": "node.offline", "node": "n", "at": NaN}']))


# --- property: near-valid events get the same verdict from both -------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.text(max_size=5)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELDS = sorted(
    {
        "type",
        "turn",
        "room",
        "harness",
        "provider",
        "model",
        "node",
        "session",
        "event_id",
        "at",
        "text",
        "stop_reason",
        "error",
        "source",
        "rooms",
        "trigger",
        "thread",
    }
)
ERROR_FIELDS = ["status", "body", "headers", "acp", "ironflow", "exit", "text", "provider", "model"]


@st.composite
def mutated_events(draw: st.DrawFn) -> object:
    obj = copy.deepcopy(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(0, 2))):
        where = draw(st.sampled_from(["top", "error", "drop"]))
        if where == "top":
            obj[draw(st.sampled_from(FIELDS))] = draw(json_values)
        elif where == "error" and isinstance(obj.get("error"), dict):
            obj["error"][draw(st.sampled_from(ERROR_FIELDS))] = draw(json_values)
        elif obj:
            obj.pop(draw(st.sampled_from(sorted(obj))))
    return obj


@settings(max_examples=600, deadline=None)
@given(mutated_events())
def test_parse_event_and_schema_agree(obj: object) -> None:
    try:
        parse_event(obj)
        parsed = True
    except EventError:
        parsed = False
    assert parsed == VALIDATOR.is_valid(obj), (obj, list(VALIDATOR.iter_errors(obj)))


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_parse_event_raises_only_event_error(obj: object) -> None:
    with contextlib.suppress(EventError):
        parse_event(obj)


def test_trigger_and_thread_are_carried_and_worded_when_wrong() -> None:
    obj = {"type": "turn.started", "turn": "t", "room": "!r:x", "harness": "h"}
    started = parse_event(obj | {"trigger": "$msg", "thread": "$root"})
    assert isinstance(started, TurnStarted)
    assert (started.trigger, started.thread) == ("$msg", "$root")
    assert event_to_json(started)["trigger"] == "$msg"
    with pytest.raises(EventError) as caught:
        parse_event(obj | {"trigger": "$a b"})
    assert str(caught.value) == (
        "trigger: expected a Matrix event id ($ and 1 to 254 more characters, "
        'no whitespace or control characters), got "$a b"'
    )
    with pytest.raises(EventError) as caught:
        parse_event(obj | {"thread": "$root"})
    assert "a trigger beside it" in str(caught.value)


def test_the_schema_spells_a_matrix_event_id_as_the_parser_does() -> None:
    shape = SCHEMA["$defs"]["matrix_event_id"]
    assert shape["not"]["pattern"] == MATRIX_EVENT_ID_FORBIDDEN.pattern
    assert shape["maxLength"] == MATRIX_EVENT_ID_MAX


# Any character, in the middle of an event id: the same verdict from both.
@settings(max_examples=400, deadline=None)
@given(st.characters(codec="utf-8"), st.sampled_from(["trigger", "thread"]))
def test_every_character_gets_the_same_verdict_in_an_event_id(char: str, key: str) -> None:
    obj = {"type": "turn.started", "turn": "t", "room": "!r:x", "harness": "h", "trigger": "$a"}
    obj[key] = f"$a{char}b"
    try:
        parse_event(obj)
        parsed = True
    except EventError:
        parsed = False
    assert parsed == VALIDATOR.is_valid(obj), repr(char)
    # control characters, spaces and separators by their Unicode category, and the BOM
    # (ECMAScript's `\s` counts it): the parser's class, written down another way
    forbidden = unicodedata.category(char) in ("Cc", "Zs", "Zl", "Zp") or char == "\ufeff"
    assert parsed is not forbidden
