"""Bodies of the report API: decode, check against the shipped JSON Schemas, parse.

Every refusal is a `BodyError` naming the field (a JSON path such as
`events[2].error.status`) and what was expected there. Event bodies are checked
with the schema and then parsed with `roombot.events.parse_event`, whose message
is preferred when it names the field more precisely than the schema can (the event
schema is a oneOf over the types, which makes schema errors vague).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped]
from referencing import Registry, Resource

from roombot.events import Event, EventError, TurnEnded, TurnStarted, parse_event
from roombot.node_desk import ResultIn
from roombot.nodes import NodeInfo
from roombot.roomcommands import NODE

BODY_SCHEMAS = ("batch", "report", "heartbeat", "results")
RESPONSE_SCHEMAS = (
    "ack",
    "error",
    "turn",
    "health",
    "beat",
    "nodes",
    "requests",
    "taken",
    "silences",
)
MAX_DEPTH = 64  # deeper JSON is refused before it can exhaust the stack


class BodyError(ValueError):
    def __init__(self, field: str, expected: str) -> None:
        super().__init__(f"{field}: expected {expected}")
        self.field = field
        self.expected = expected


def load_schema(name: str) -> dict[str, Any]:
    """A schema shipped in the package: 'event' (the event format) or one of the API's own."""
    if name == "event":
        text = resources.files("roombot").joinpath("schemas/event.v1.json").read_text()
    else:
        text = resources.files("roombot.api").joinpath(f"schemas/{name}.v1.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _fast(name: str) -> Any:
    """The compiled (Rust) validator: the answer for a valid body in well under a
    microsecond per event; only a refused body pays for the Python one's explanation."""
    event = load_schema("event")
    registry = jsonschema_rs.Registry([(event["$id"], event)])
    return jsonschema_rs.validator_for(load_schema(name), registry=registry)


@cache
def _validator(name: str) -> Draft202012Validator:
    event = load_schema("event")
    registry: Registry[Any] = Registry().with_resource(event["$id"], Resource.from_contents(event))
    return Draft202012Validator(load_schema(name), registry=registry)


@cache
def _matrix_event_id() -> dict[str, Any]:
    shape: dict[str, Any] = load_schema("event")["$defs"]["matrix_event_id"]
    return shape


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth(value: object, limit: int) -> bool:
    """True when `value` nests no deeper than `limit` (iterative: no recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children)
    return True


def decode(raw: bytes) -> object:
    """The body as JSON: UTF-8, no NaN/Infinity, no lone surrogates, nesting bounded."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BodyError("(body)", f"UTF-8 text (bad byte at offset {e.start})") from None
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise BodyError("(body)", f"JSON nested at most {MAX_DEPTH} deep") from None
    except ValueError as e:
        raise BodyError("(body)", f"one JSON value ({e})") from None
    if not _depth(obj, MAX_DEPTH):
        raise BodyError("(body)", f"JSON nested at most {MAX_DEPTH} deep")
    try:
        # A lone surrogate (\ud800) decodes in Python but is no Unicode text: refuse it
        # here rather than fail on the way to SQLite or Matrix.
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BodyError("(body)", "Unicode text (a string holds a lone surrogate)") from None
    return obj


def _path(parts: Sequence[object]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(body)"


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected(err: ValidationError) -> tuple[list[object], str]:
    """The path and an 'expected ...' phrase for one schema error."""
    path: list[object] = list(err.absolute_path)
    v, arg = err.validator, err.validator_value
    if v in ("pattern", "not", "maxLength") and err.schema == _matrix_event_id():
        # Three keywords make one shape; its description says it in words.
        return path, f"{err.schema['description']}, got {_short(err.instance)}"
    if v == "required":
        present = err.instance if isinstance(err.instance, dict) else {}
        missing = next((k for k in arg if k not in present), arg[0])
        return [*path, missing], "a value (the field is missing)"
    if v == "type":
        types = arg if isinstance(arg, list) else [arg]
        return path, f"{' or '.join(types)}, got {_short(err.instance)}"
    if v in ("enum", "const"):
        choices = arg if v == "enum" else [arg]
        return path, f"one of {', '.join(_short(c) for c in choices)}, got {_short(err.instance)}"
    if v == "minLength":
        return path, "a non-empty string"
    if v in ("minItems", "maxItems"):
        return path, f"an array of {'at least' if v == 'minItems' else 'at most'} {arg} items"
    if v in ("minimum", "maximum"):
        side = ">=" if v == "minimum" else "<="
        return path, f"a number {side} {arg}, got {_short(err.instance)}"
    if v == "minProperties":
        return path, "a non-empty object"
    if v == "maxProperties":
        return path, f"an object of at most {arg} entries"
    if v == "exclusiveMinimum":
        return path, f"a number > {arg}, got {_short(err.instance)}"
    if v == "pattern":
        return path, f"a string matching {arg}, got {_short(err.instance)}"
    return path, err.message[:200]


def _event_error(obj: object, prefix: str) -> BodyError | None:
    try:
        parse_event(obj)
    except EventError as e:
        field = e.field if e.field != "(event)" else ""
        joined = f"{prefix}.{field}" if prefix and field else (prefix or field or "(body)")
        return BodyError(joined, e.expected)
    return None


def check(name: str, obj: object) -> None:
    """Raise BodyError unless `obj` fits schema `name` ('event', 'batch', 'report')."""
    if _fast(name).is_valid(obj):
        return
    err = best_match(_validator(name).iter_errors(obj))
    if err is None:
        return
    path = list(err.absolute_path)
    # Inside an event, the parser names the field better than a oneOf can.
    if name == "event":
        better = _event_error(obj, "")
    elif name == "batch" and len(path) >= 2 and path[0] == "events" and isinstance(path[1], int):
        assert isinstance(obj, dict)
        better = _event_error(obj["events"][path[1]], f"events[{path[1]}]")
    else:
        better = None
    if better is not None:
        raise better
    where, expected = _expected(err)
    raise BodyError(_path(where), expected)


def parse_one(obj: object) -> Event:
    check("event", obj)
    try:
        return parse_event(obj)
    except EventError as e:
        raise BodyError(e.field, e.expected) from None


def parse_batch(obj: object) -> list[Event]:
    """All the events or none: the first bad one refuses the batch."""
    check("batch", obj)
    assert isinstance(obj, dict)
    out = []
    for i, item in enumerate(obj["events"]):
        try:
            out.append(parse_event(item))
        except EventError as e:
            raise BodyError(f"events[{i}].{e.field}", e.expected) from None
    return out


@dataclass(frozen=True, slots=True)
class Heartbeat:
    node: str
    info: NodeInfo


def parse_heartbeat(obj: object, default_interval: float) -> Heartbeat:
    """A node agent's heartbeat; unknown fields are ignored, as in events. An agent that
    leaves `interval` out beats at the bot's own (`default_interval`)."""
    check("heartbeat", obj)
    assert isinstance(obj, dict)
    return Heartbeat(
        node=obj["node"],
        info=NodeInfo(
            interval=float(obj.get("interval", default_interval)),
            harnesses=dict(obj.get("harnesses") or {}),
            reporters=dict(obj.get("reporters") or {}),
            plugin_management=bool(obj.get("plugin_management", False)),
            version=obj.get("version"),
        ),
    )


@dataclass(frozen=True, slots=True)
class Report:
    """A one-shot failure report, and the two events it stands for."""

    turn: str
    room: str
    event_id: str
    events: tuple[Event, Event]


def parse_report(obj: object) -> Report:
    check("report", obj)
    assert isinstance(obj, dict)
    base = obj.get("event_id") or f"report:{obj['turn']}"
    started = {
        "type": "turn.started",
        "turn": obj["turn"],
        "room": obj["room"],
        "harness": obj["harness"],
        "provider": obj.get("provider"),
        "model": obj.get("model"),
        "trigger": obj.get("trigger"),
        "thread": obj.get("thread"),
        "event_id": f"{base}/started",
        "at": obj.get("at"),
    }
    ended = {
        "type": "turn.ended",
        "turn": obj["turn"],
        "error": obj["error"],
        "event_id": f"{base}/ended",
        "at": obj.get("at"),
    }
    try:
        first, second = parse_event(started), parse_event(ended)
    except EventError as e:
        raise BodyError(e.field, e.expected) from None
    assert isinstance(first, TurnStarted) and isinstance(second, TurnEnded)
    return Report(first.turn, first.room, f"{base}/started", (first, second))


def parse_node(name: str) -> str:
    """A node name from a path: the shape room commands accept (roomcommands.NODE)."""
    if not NODE.fullmatch(name):
        raise BodyError("node", "a node name of letters, digits, '_.-' (1-128)")
    return name


def parse_results(obj: object) -> list[ResultIn]:
    """A node's results (results.v1.json)."""
    check("results", obj)
    assert isinstance(obj, dict)
    out = []
    for item in obj["results"]:
        plan = item.get("plan") or {}
        out.append(
            ResultIn(
                id=item["id"],
                ok=item["ok"],
                text=item.get("text", ""),
                digest=plan.get("digest"),
                diff=plan.get("diff", ""),
                versions=dict(plan.get("versions") or {}),
            )
        )
    return out
