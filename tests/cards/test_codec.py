"""The payload codec: exact round trips, and a reader that never raises on hostile input."""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.codec import CARD_KEY, CardError, loads_payload, read_payload, to_payload
from cards.kinds import Kind
from cards.shape import Attempt, Group, TurnError
from tests.cards.strategies import card_like, json_values, turn_errors

SCHEMA: dict[str, Any] = json.loads(
    (resources.files("cards") / "card.v1.json").read_text(encoding="utf-8")
)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

FAST = settings(max_examples=150, deadline=None)


def minimal(**extra: Any) -> dict[str, Any]:
    return {"type": "turn_error", "v": 1, "kind": "quota", "message": "m", "harness": "h", **extra}


def _no_floats(value: object) -> bool:
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(_no_floats(v) for v in value.values())
    if isinstance(value, list):
        return all(_no_floats(v) for v in value)
    return True


def test_card_key_is_spelled_once() -> None:
    assert CARD_KEY == "dev.roombot.card"


def test_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_schema_names_every_field_the_codec_writes() -> None:
    full = TurnError(
        kind=Kind.QUOTA,
        message="m",
        harness="h",
        provider="p",
        model="mo",
        retry_after=1,
        attempts=(Attempt(Kind.QUOTA, "m", "p", "mo", 429, 1),),
        turn="t",
        session="s",
        node="n",
        started_at=1,
        failed_at=2,
        note="note",
        recovered=True,
        message_file="mxc://x/y",
        message_truncated=True,
        group=Group(3, 1, 2, (("kind", "quota"),), ("mo",), ("h",), ("t",), 2, 3, 1),
    )
    payload = to_payload(full)
    assert set(payload) == set(SCHEMA["properties"])
    assert set(payload["attempts"][0]) == set(SCHEMA["$defs"]["attempt"]["properties"])
    assert set(payload["group"]) == set(SCHEMA["$defs"]["group"]["properties"])
    assert SCHEMA["properties"]["kind"]["enum"] == [k.value for k in Kind]


@pytest.mark.parametrize("kind", list(Kind))
def test_round_trip_every_kind(kind: Kind) -> None:
    err = TurnError(
        kind=kind,
        message=f"{kind.value}: the provider's words\nsecond line",
        harness="claude-code",
        provider="anthropic",
        model="claude-opus-4-1",
        retry_after=30,
        attempts=(Attempt(kind, "first", "anthropic", "claude-opus-4-1", 429, 30),),
        started_at=1_796_000_000_000,
        failed_at=1_796_000_004_321,
    )
    payload = to_payload(err)
    VALIDATOR.validate(payload)
    assert payload["type"] == "turn_error" and payload["v"] == 1 and payload["kind"] == kind.value
    assert read_payload(payload) == err
    assert loads_payload(json.dumps(payload)) == err


@FAST
@given(turn_errors)
def test_any_value_round_trips_through_json(err: TurnError) -> None:
    payload = to_payload(err)
    VALIDATOR.validate(payload)
    assert _no_floats(payload)
    text = json.dumps(payload, ensure_ascii=False)
    assert read_payload(json.loads(text)) == err
    assert loads_payload(text.encode("utf-8")) == err


@FAST
@given(json_values)
def test_any_json_value_reads_without_raising(value: object) -> None:
    result = read_payload(value)
    assert isinstance(result, CardError)  # random JSON is never a card
    assert result.field and result.problem


@FAST
@given(card_like)
def test_damaged_cards_read_without_raising(obj: dict[str, Any]) -> None:
    result = read_payload(obj)
    assert isinstance(result, (TurnError, CardError))
    text = json.dumps(obj)  # NaN and Infinity come out as bare words: not JSON numbers
    again = loads_payload(text)
    assert isinstance(again, (TurnError, CardError))
    if _no_floats(obj) and VALIDATOR.is_valid(obj):
        # What the schema accepts, the reader accepts.
        assert isinstance(result, TurnError), result
    if isinstance(result, TurnError):
        assert read_payload(to_payload(result)) == result


@FAST
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_any_bytes_or_text_read_without_raising(raw: bytes | str) -> None:
    assert isinstance(loads_payload(raw), (TurnError, CardError))


def test_unknown_fields_are_ignored() -> None:
    obj = minimal(colour="teal", attempts=[{"kind": "quota", "message": "x", "future": {}}])
    err = read_payload(obj)
    assert isinstance(err, TurnError)
    assert err.attempts == (Attempt(Kind.QUOTA, "x"),)


def test_unknown_kind_reads_as_unknown() -> None:
    err = read_payload(minimal(kind="solar_flare", attempts=[{"kind": "x", "message": "y"}]))
    assert isinstance(err, TurnError)
    assert err.kind is Kind.UNKNOWN and err.attempts[0].kind is Kind.UNKNOWN


def test_a_later_version_is_read_by_the_same_rules() -> None:
    err = read_payload(minimal(v=2, extra_v2_field=[1, 2]))
    assert isinstance(err, TurnError) and err.kind is Kind.QUOTA


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        (None, "(card)"),
        ([], "(card)"),
        ("card", "(card)"),
        ({**minimal(), "type": "other"}, "type"),
        ({k: v for k, v in minimal().items() if k != "type"}, "type"),
        (minimal(v="1"), "v"),
        (minimal(v=True), "v"),
        (minimal(v=1.0), "v"),
        (minimal(v=0), "v"),
        ({k: v for k, v in minimal().items() if k != "message"}, "message"),
        (minimal(message=None), "message"),
        (minimal(message=["m"]), "message"),
        ({k: v for k, v in minimal().items() if k != "harness"}, "harness"),
        (minimal(harness=7), "harness"),
        (minimal(kind=None), "kind"),
        (minimal(kind=3), "kind"),
        (minimal(provider=1), "provider"),
        (minimal(model={}), "model"),
        (minimal(retry_after=1.5), "retry_after"),
        (minimal(retry_after=30.0), "retry_after"),
        (minimal(retry_after=-1), "retry_after"),
        (minimal(retry_after=True), "retry_after"),
        (minimal(retry_after=2**53), "retry_after"),
        (minimal(started_at="yesterday"), "started_at"),
        (minimal(failed_at=float("nan")), "failed_at"),
        (minimal(recovered="yes"), "recovered"),
        (minimal(message_truncated=1), "message_truncated"),
        (minimal(attempts={}), "attempts"),
        (minimal(attempts=["x"]), "attempts[0]"),
        (minimal(attempts=[{"kind": "quota"}]), "attempts[0].message"),
        (minimal(attempts=[{"message": "m"}]), "attempts[0].kind"),
        (minimal(attempts=[{"kind": "quota", "message": "m"}, {"kind": "quota"}]), "attempts[1]"),
        (minimal(attempts=[{"kind": "quota", "message": "m", "status": "429"}]), "attempts[0]"),
        (minimal(attempts=[{"kind": "quota", "message": "m"}] * 1001), "attempts"),
    ],
)
def test_errors_name_the_field(obj: object, field: str) -> None:
    result = read_payload(obj)
    assert isinstance(result, CardError)
    assert result.field.startswith(field), result
    assert field in str(result)


def test_hostile_json_text() -> None:
    cases: list[str | bytes] = [
        "[" * 10_000 + "]" * 10_000,
        '{"a":' * 10_000 + "1" + "}" * 10_000,
        json.dumps(minimal(attempts=[])).replace('"attempts": []', '"attempts": ' + "[" * 10_000),
        '{"type":"turn_error","v":1,"kind":"quota","message":NaN,"harness":"h"}',
        '{"type":"turn_error","v":1,"kind":"quota","message":"m","harness":"h","retry_after":Infinity}',
        "1" * 100_000,  # beyond Python's limit on digits in an int
        b"\xff\xfe\x00",
        b"",
        "{",
    ]
    for raw in cases:
        assert isinstance(loads_payload(raw), CardError), str(raw)[:60]


def test_deeply_nested_python_value() -> None:
    deep: list[object] = []
    cur = deep
    for _ in range(100_000):
        nxt: list[object] = []
        cur.append(nxt)
        cur = nxt
    assert isinstance(read_payload(deep), CardError)
    assert isinstance(read_payload(minimal(attempts=deep)), CardError)
    assert isinstance(read_payload(minimal(provider={"x": deep})), CardError)


def test_ten_megabyte_strings_are_read_whole() -> None:
    big = "x" * 10_000_000
    err = loads_payload(json.dumps(minimal(message=big, note=big)))
    assert isinstance(err, TurnError) and err.message == big
    bad = loads_payload(json.dumps(minimal(kind=big)))
    assert isinstance(bad, TurnError) and bad.kind is Kind.UNKNOWN


def test_nan_and_infinity_are_not_numbers() -> None:
    for word in ("NaN", "Infinity", "-Infinity"):
        for field, text in (
            ("retry_after", json.dumps(minimal()).replace("{", f'{{"retry_after": {word}, ', 1)),
            ("started_at", json.dumps(minimal()).replace("{", f'{{"started_at": {word}, ', 1)),
            (
                "attempts[0].status",
                json.dumps(
                    minimal(attempts=[{"kind": "quota", "message": "m", "status": 0}])
                ).replace('"status": 0', f'"status": {word}'),
            ),
            ("(card)", json.dumps(minimal()).replace("{", f'{{"ignored": {word}, ', 1)),
        ):
            result = loads_payload(text)
            assert isinstance(result, CardError), (word, field)
            assert result.field == field, (word, result)
    for value in (math.inf, math.nan, -math.inf):
        result = read_payload(minimal(retry_after=value))
        assert isinstance(result, CardError) and result.field == "retry_after"


def test_lone_surrogates_read_as_replacement_characters() -> None:
    err = loads_payload(json.dumps(minimal(message="a\ud800b", provider="\udfff")))
    assert isinstance(err, TurnError)
    assert err.message == "a\ufffdb" and err.provider == "\ufffd"
    err.message.encode("utf-8")  # now encodable


def test_writer_leaves_out_absent_values_and_writes_no_floats() -> None:
    payload = to_payload(TurnError(Kind.TIMEOUT, "slow", "codex"))
    assert payload == {
        "type": "turn_error",
        "v": 1,
        "kind": "timeout",
        "message": "slow",
        "harness": "codex",
        "attempts": [],
    }


def test_bundled_examples_are_valid_cards() -> None:
    folder = resources.files("cards") / "examples"
    names = sorted(e.name for e in folder.iterdir() if e.name.endswith(".json"))
    assert {n.removesuffix(".json") for n in names} >= {k.value for k in Kind}
    for name in names:
        obj = json.loads((folder / name).read_text(encoding="utf-8"))
        VALIDATOR.validate(obj)
        err = read_payload(obj)
        assert isinstance(err, TurnError), (name, err)
        assert to_payload(err) == obj, name
