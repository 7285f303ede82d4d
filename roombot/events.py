"""Event format v1: what every source tells the bot about turns, as typed values.

`parse_event` is the one gate between untrusted JSON and the turn rules: it
checks one decoded JSON object and returns a frozen value, or raises
`EventError` naming the field and what was expected. Inside roombot only the
typed values travel. The JSON Schema of the same format is
`roombot/schemas/event.v1.json`; the tests hold the two to the same verdicts.

Decisions where docs/design.md is silent (docs/turns.md repeats them):
- Unknown fields are ignored at every level (a newer source may add some).
- `at` is a finite number >= 0 (seconds since the epoch); integers are fine.
- `turn`, `event_id`, `room`, `harness`, `node`, `source` are non-empty strings.
- `turn.started` may carry `node` (the machine running the harness, so that
  `node.offline` can find its turns) and `session` (copied to the card).
- `turn.started` may carry `trigger` (the Matrix event id of the room message
  that started the turn) and `thread` (that message's thread root). Both are
  Matrix event ids as `MATRIX_EVENT_ID_FORBIDDEN` and `MATRIX_EVENT_ID_MAX`
  spell them: `$` and at least one more character, at most 255 in all, no
  whitespace or control character. `thread` without `trigger` is refused: a
  thread root is known only for a triggering message.
- `turn.ended` carries exactly one of `stop_reason` and `error`.
- `harness.exited` and `node.offline` need no `turn` (they concern every open
  turn of that harness or node); `error` is optional on them. `harness.exited`
  may narrow its match with `node` and `session`, `node.offline` with `rooms`
  (a non-empty list of rooms: only the node's turns in those rooms; the bot's
  heartbeat tracker sets it for a node whose source is allowed only some rooms).
- `error` is a non-empty object. Its known forms are checked (`status`,
  `acp`, `ironflow`, `exit`, `text`, with `provider`/`model` beside them);
  other keys are kept untouched for the normalisers, so a source may add a
  form without changing this module.
- An integer field accepts an integral float (429.0), as JSON Schema does.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeAlias, TypeGuard

__all__ = [
    "ERROR_FORMS",
    "EVENT_TYPES",
    "MATRIX_EVENT_ID_FORBIDDEN",
    "MATRIX_EVENT_ID_MAX",
    "Event",
    "EventError",
    "HarnessExited",
    "NodeOffline",
    "StopReason",
    "TurnAttempt",
    "TurnEnded",
    "TurnFailedAttempt",
    "TurnOutput",
    "TurnReport",
    "TurnStarted",
    "event_to_json",
    "is_matrix_event_id",
    "parse_event",
    "parse_events_jsonl",
]


class EventError(ValueError):
    """An event that breaks format v1: `field` is a dotted path, `expected` says what fits."""

    def __init__(self, field: str, expected: str) -> None:
        super().__init__(f"{field}: expected {expected}")
        self.field = field
        self.expected = expected


class StopReason(StrEnum):
    """ACP's stop reasons, as `turn.ended` carries them."""

    END_TURN = "end_turn"
    MAX_TOKENS = "max_tokens"
    MAX_TURN_REQUESTS = "max_turn_requests"
    REFUSAL = "refusal"
    CANCELLED = "cancelled"


# The raw error forms of docs/design.md (each key names a form). Others pass through.
ERROR_FORMS: tuple[str, ...] = ("status", "acp", "ironflow", "exit", "text")

RawError: TypeAlias = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class TurnStarted:
    turn: str
    room: str
    harness: str
    provider: str | None = None  # the requested provider
    model: str | None = None  # the requested model
    node: str | None = None
    session: str | None = None
    trigger: str | None = None  # the room message that started the turn (a Matrix event id)
    thread: str | None = None  # that message's thread root (a Matrix event id)
    event_id: str | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class TurnAttempt:
    turn: str
    provider: str | None = None
    model: str | None = None
    event_id: str | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class TurnFailedAttempt:
    turn: str
    error: RawError
    provider: str | None = None
    model: str | None = None
    event_id: str | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class TurnOutput:
    turn: str
    text: str
    event_id: str | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """Exactly one of `stop_reason` and `error` is set."""

    turn: str
    stop_reason: StopReason | None = None
    error: RawError | None = None
    event_id: str | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class TurnReport:
    turn: str
    source: str
    error: RawError
    event_id: str | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class HarnessExited:
    harness: str
    node: str | None = None
    session: str | None = None
    error: RawError | None = None
    turn: str | None = None  # informational only: the rules match on harness/node/session
    event_id: str | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class NodeOffline:
    node: str
    error: RawError | None = None
    rooms: tuple[str, ...] | None = None  # None: the node's turns in every room
    turn: str | None = None  # informational only
    event_id: str | None = None
    at: float | None = None


Event: TypeAlias = (
    TurnStarted
    | TurnAttempt
    | TurnFailedAttempt
    | TurnOutput
    | TurnEnded
    | TurnReport
    | HarnessExited
    | NodeOffline
)

EVENT_TYPES: dict[str, type[Event]] = {
    "turn.started": TurnStarted,
    "turn.attempt": TurnAttempt,
    "turn.failed_attempt": TurnFailedAttempt,
    "turn.output": TurnOutput,
    "turn.ended": TurnEnded,
    "turn.report": TurnReport,
    "harness.exited": HarnessExited,
    "node.offline": NodeOffline,
}
_TYPE_NAMES: dict[type[Event], str] = {cls: name for name, cls in EVENT_TYPES.items()}


# --- field readers: each raises EventError naming the field -----------------


def _is_int(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def _name(obj: Mapping[str, Any], key: str, *, required: bool, path: str = "") -> str | None:
    """A non-empty string field."""
    if key not in obj or (obj[key] is None and not required):
        if required:
            raise EventError(path + key, "a non-empty string (the field is missing)")
        return None
    value = obj[key]
    if not isinstance(value, str) or not value:
        raise EventError(path + key, f"a non-empty string, got {_show(value)}")
    return value


def _opt_str(obj: Mapping[str, Any], key: str, path: str) -> None:
    if key in obj and obj[key] is not None and not isinstance(obj[key], str):
        raise EventError(path + key, f"a string or null, got {_show(obj[key])}")


# A Matrix event id as sources hand it over: `$`, then 1..254 characters none of
# which is whitespace or a control character (C0, DEL, C1, and every character
# ECMAScript's or Python's `\s` calls a space). The class is spelled with escapes
# every regex engine reads alike; event.v1.json uses the same text (a test checks).
MATRIX_EVENT_ID_FORBIDDEN = re.compile(
    r"[\x00-\x20\x7f-\x9f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)
MATRIX_EVENT_ID_MAX = 255  # the Matrix spec's bound (bytes there; characters here)
_MATRIX_EVENT_ID = (
    "a Matrix event id ($ and 1 to 254 more characters, no whitespace or control characters)"
)


def is_matrix_event_id(value: object) -> TypeGuard[str]:
    """Whether `value` may stand in `trigger` or `thread` (sources check before sending)."""
    return (
        isinstance(value, str)
        and 2 <= len(value) <= MATRIX_EVENT_ID_MAX
        and value.startswith("$")
        and not MATRIX_EVENT_ID_FORBIDDEN.search(value)
    )


def _matrix_event_id(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not is_matrix_event_id(value):
        raise EventError(key, f"{_MATRIX_EVENT_ID}, got {_show(value)}")
    return value


# Far enough for any real clock (the year 5138), near enough that milliseconds
# stay exact integers and no arithmetic on `at` can overflow.
MAX_AT = 100_000_000_000


def _at(obj: Mapping[str, Any]) -> float | None:
    value = obj.get("at")
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= MAX_AT
    ):
        raise EventError(
            "at", f"a number of seconds since the epoch (0 to {MAX_AT}), got {_show(value)}"
        )
    return float(value)


def _error(obj: Mapping[str, Any], key: str, *, required: bool) -> RawError | None:
    if key not in obj or (obj[key] is None and not required):
        if required:
            raise EventError(key, "an error object (the field is missing)")
        return None
    value = obj[key]
    if not isinstance(value, dict) or not value:
        raise EventError(key, f"a non-empty object with one error form, got {_show(value)}")
    p = key + "."
    _opt_str(value, "provider", p)
    _opt_str(value, "model", p)
    if "status" in value:
        if not _is_int(value["status"]) or not 0 <= value["status"] <= 999:
            raise EventError(p + "status", f"an HTTP status 0..999, got {_show(value['status'])}")
        _opt_str(value, "body", p)
        headers = value.get("headers")
        if headers is not None and not (
            isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())
        ):
            raise EventError(p + "headers", "an object of string values")
    if "acp" in value:
        acp = value["acp"]
        if not isinstance(acp, dict):
            raise EventError(p + "acp", f"a JSON-RPC error object, got {_show(acp)}")
        if not _is_int(acp.get("code")):
            raise EventError(p + "acp.code", f"an integer, got {_show(acp.get('code'))}")
        if not isinstance(acp.get("message"), str):
            raise EventError(p + "acp.message", f"a string, got {_show(acp.get('message'))}")
    if "ironflow" in value and not isinstance(value["ironflow"], dict | str):
        raise EventError(
            p + "ironflow", f"an externally tagged AgentError, got {_show(value['ironflow'])}"
        )
    if "exit" in value:
        ex = value["exit"]
        if not isinstance(ex, dict):
            raise EventError(p + "exit", f"an object with code and stderr, got {_show(ex)}")
        code = ex.get("code")
        if code is not None and not _is_int(code):
            raise EventError(p + "exit.code", f"an integer or null, got {_show(code)}")
        _opt_str(ex, "stderr", p + "exit.")
    if "text" in value and not isinstance(value["text"], str):
        raise EventError(p + "text", f"a string, got {_show(value['text'])}")
    return _integral(value)


def _integral(error: dict[str, Any]) -> RawError:
    """A copy of the error whose integer fields are ints (429.0 -> 429) for the normalisers."""
    out = dict(error)
    if "status" in out:
        out["status"] = int(out["status"])
    for form in ("acp", "exit"):
        inner = out.get(form)
        if isinstance(inner, dict) and isinstance(inner.get("code"), float):
            out[form] = {**inner, "code": int(inner["code"])}
    return out


def _show(value: object) -> str:
    """A short, safe description of a bad value (never the whole of a big one)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if value is None or isinstance(value, bool | int | float | str):
        text = json.dumps(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return type(value).__name__


# --- the gate ----------------------------------------------------------------


def parse_event(obj: object) -> Event:
    """One decoded JSON value -> a typed event, or EventError naming the field."""
    if not isinstance(obj, dict):
        raise EventError("(event)", f"a JSON object, got {_show(obj)}")
    kind = obj.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError("type", f"one of {', '.join(EVENT_TYPES)}, got {_show(kind)}")
    at = _at(obj)
    event_id = _name(obj, "event_id", required=False)
    if cls is HarnessExited:
        return HarnessExited(
            harness=_req(obj, "harness"),
            node=_name(obj, "node", required=False),
            session=_name(obj, "session", required=False),
            error=_error(obj, "error", required=False),
            turn=_name(obj, "turn", required=False),
            event_id=event_id,
            at=at,
        )
    if cls is NodeOffline:
        return NodeOffline(
            node=_req(obj, "node"),
            error=_error(obj, "error", required=False),
            rooms=_rooms(obj),
            turn=_name(obj, "turn", required=False),
            event_id=event_id,
            at=at,
        )
    turn = _req(obj, "turn")
    if cls is TurnStarted:
        trigger = _matrix_event_id(obj, "trigger")
        thread = _matrix_event_id(obj, "thread")
        if thread is not None and trigger is None:
            raise EventError(
                "thread",
                "a trigger beside it (a thread root is known only for a triggering message)",
            )
        return TurnStarted(
            turn=turn,
            room=_req(obj, "room"),
            harness=_req(obj, "harness"),
            provider=_name(obj, "provider", required=False),
            model=_name(obj, "model", required=False),
            node=_name(obj, "node", required=False),
            session=_name(obj, "session", required=False),
            trigger=trigger,
            thread=thread,
            event_id=event_id,
            at=at,
        )
    if cls is TurnAttempt:
        return TurnAttempt(
            turn=turn,
            provider=_name(obj, "provider", required=False),
            model=_name(obj, "model", required=False),
            event_id=event_id,
            at=at,
        )
    if cls is TurnFailedAttempt:
        return TurnFailedAttempt(
            turn=turn,
            error=_req_error(obj),
            provider=_name(obj, "provider", required=False),
            model=_name(obj, "model", required=False),
            event_id=event_id,
            at=at,
        )
    if cls is TurnOutput:
        text = obj.get("text")
        if not isinstance(text, str):
            raise EventError("text", f"a string (a chunk of the answer), got {_show(text)}")
        return TurnOutput(turn=turn, text=text, event_id=event_id, at=at)
    if cls is TurnEnded:
        has_stop = obj.get("stop_reason") is not None
        has_error = obj.get("error") is not None
        if has_stop == has_error:
            raise EventError("stop_reason", "exactly one of stop_reason and error")
        if has_stop:
            raw = obj["stop_reason"]
            try:
                stop = StopReason(raw) if isinstance(raw, str) else None
            except ValueError:
                stop = None
            if stop is None:
                choices = ", ".join(s.value for s in StopReason)
                raise EventError("stop_reason", f"one of {choices}, got {_show(raw)}")
            return TurnEnded(turn=turn, stop_reason=stop, event_id=event_id, at=at)
        return TurnEnded(turn=turn, error=_req_error(obj), event_id=event_id, at=at)
    # TurnReport, the one type left
    return TurnReport(
        turn=turn, source=_req(obj, "source"), error=_req_error(obj), event_id=event_id, at=at
    )


def _rooms(obj: Mapping[str, Any]) -> tuple[str, ...] | None:
    value = obj.get("rooms")
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise EventError("rooms", f"a non-empty array of room ids, got {_show(value)}")
    for i, room in enumerate(value):
        if not isinstance(room, str) or not room:
            raise EventError(f"rooms[{i}]", f"a non-empty string, got {_show(room)}")
    return tuple(value)


def _req(obj: Mapping[str, Any], key: str) -> str:
    value = _name(obj, key, required=True)
    assert value is not None  # _name raised otherwise
    return value


def _req_error(obj: Mapping[str, Any]) -> RawError:
    value = _error(obj, "error", required=True)
    assert value is not None
    return value


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object of an event (fields that are None left out); parse_event reads it back."""
    out: dict[str, Any] = {"type": _TYPE_NAMES[type(event)]}
    for name in event.__slots__:
        value = getattr(event, name)
        if value is None:
            continue
        if isinstance(value, StopReason):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[name] = value
    return out


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_events_jsonl(lines: Iterable[str]) -> Iterator[tuple[int, Event]]:
    """JSON Lines -> (line number, event); blank lines skipped.

    A bad line raises EventError whose field is prefixed with `line N`; the
    events before it have already been yielded, so the caller keeps them.
    """
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            where = f"{exc.msg} at column {exc.colno}"
            raise EventError(f"line {number}", f"one JSON object ({where})") from None
        except ValueError as exc:  # NaN or Infinity, which JSON does not have
            raise EventError(f"line {number}", f"one JSON object ({exc})") from None
        try:
            yield number, parse_event(obj)
        except EventError as exc:
            raise EventError(f"line {number}: {exc.field}", exc.expected) from None
