"""The card payload codec: `TurnError` <-> the `dev.roombot.card` content value.

Writing is exact; reading is strict about what it needs and lenient about
the rest. Every card read from a room is hostile input: `read_payload` and
`loads_payload` never raise, they return a `CardError` naming the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Final

from cards.kinds import Kind
from cards.shape import Attempt, Group, TurnError
from cards.text import valid_text

# The one place the content key, the type tag and the version are spelled.
CARD_KEY: Final = "dev.roombot.card"
CARD_TYPE: Final = "turn_error"
CARD_VERSION: Final = 1

# Matrix canonical JSON refuses integers beyond 2^53 in plain rooms.
MAX_INT: Final = 2**53 - 1
# A hostile card may list millions of attempts; no real turn tries this many.
MAX_ATTEMPTS: Final = 1000

# The group part has its own version: a reader drops a group part it cannot read
# (another version, or broken) and still draws the card as the latest failure.
GROUP_VERSION: Final = 1
# Bounds of the group part, on writing and on reading: a group card stays one small
# event whatever the storm. The key's fields are group_by's, a handful.
MAX_GROUP_KEY: Final = 8
MAX_GROUP_MODELS: Final = 20
MAX_GROUP_HARNESSES: Final = 20
MAX_GROUP_TURNS: Final = 50
MAX_GROUP_TEXT: Final = 256  # characters in each string of the group part

_OPTIONAL_STR = ("provider", "model", "turn", "session", "node", "note", "message_file")
_OPTIONAL_INT = ("retry_after", "started_at", "failed_at")
_OPTIONAL_BOOL = ("recovered", "message_truncated")


@dataclass(frozen=True, slots=True)
class CardError:
    """Why a value is not a readable card: the field (a path) and what was expected."""

    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.field}: {self.problem}"


def to_payload(err: TurnError) -> dict[str, Any]:
    """The card payload for a turn error. Absent values are left out; no floats.

    Every payload it returns is a valid v1 card that Matrix accepts: see `sendable`.
    """
    err = sendable(err)
    out: dict[str, Any] = {
        "type": CARD_TYPE,
        "v": CARD_VERSION,
        "kind": err.kind.value,
        "message": err.message,
        "harness": err.harness,
    }
    for name in (*_OPTIONAL_STR, *_OPTIONAL_INT):
        value = getattr(err, name)
        if value is not None:
            out[name] = value
    for name in _OPTIONAL_BOOL:
        if getattr(err, name):
            out[name] = True
    out["attempts"] = [_attempt_payload(a) for a in err.attempts]
    if err.group is not None:
        out["group"] = group_payload(err.group)
    return out


def group_payload(g: Group) -> dict[str, Any]:
    """The `group` part as written (of a group `sendable` has passed)."""
    out: dict[str, Any] = {
        "v": GROUP_VERSION,
        "count": g.count,
        "first_at": g.first_at,
        "last_at": g.last_at,
        "key": [[name, value] for name, value in g.key],
        "models": list(g.models),
        "harnesses": list(g.harnesses),
        "turns": list(g.turns),
        "threaded": g.threaded,
    }
    if g.recovered_at is not None:
        out["recovered_at"] = g.recovered_at
    if g.retracted:
        out["retracted"] = g.retracted
    return out


def _whole(value: int | None) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_INT else None


def _text(value: str | None) -> str | None:
    return None if value is None else valid_text(value)


_SENT_STR = ("message", "harness", *_OPTIONAL_STR)


def sendable(err: TurnError) -> TurnError:
    """`err` as it can be sent: each lone surrogate as U+FFFD, and each number outside
    0..2^53-1 (a clock gone wrong, a hostile Retry-After, a negative status) unknown.
    Either would make the event fail (Synapse cannot canonicalise a lone surrogate and
    refuses such integers in a plain room; the encrypting client cannot encode one) or
    a reader refuse the card, so the card and the prose both leave them out.
    The same object when nothing needs changing (the usual case, and cheap)."""
    attempts = tuple(_sendable_attempt(a) for a in err.attempts)
    texts = {name: _text(getattr(err, name)) for name in _SENT_STR}
    numbers = {name: _whole(getattr(err, name)) for name in _OPTIONAL_INT}
    group = None if err.group is None else sendable_group(err.group)
    if (
        all(texts[n] is getattr(err, n) for n in texts)
        and all(numbers[n] == getattr(err, n) for n in numbers)
        and all(x is y for x, y in zip(attempts, err.attempts, strict=True))
        and group is err.group
    ):
        return err
    return replace(
        err,
        message=valid_text(err.message),
        harness=valid_text(err.harness),
        provider=texts["provider"],
        model=texts["model"],
        turn=texts["turn"],
        session=texts["session"],
        node=texts["node"],
        note=texts["note"],
        message_file=texts["message_file"],
        retry_after=numbers["retry_after"],
        started_at=numbers["started_at"],
        failed_at=numbers["failed_at"],
        attempts=attempts,
        group=group,
    )


def _bounded(text: str) -> str:
    text = valid_text(text)
    return text if len(text) <= MAX_GROUP_TEXT else text[: MAX_GROUP_TEXT - 1] + "…"


def _distinct(values: tuple[str, ...], limit: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_bounded(v) for v in values))[:limit]


def sendable_group(g: Group) -> Group | None:
    """`g` within the group part's bounds: strings valid and cut to MAX_GROUP_TEXT
    (a cut ends in "…"), lists deduplicated and cut to their maxima (the first kept),
    recovered_at outside 0..2^53-1 unknown. None, and the card is drawn as the latest
    failure alone, when a count below 1 or a time or tally outside 0..2^53-1 leaves
    nothing true to draw. The same object when nothing needs changing."""
    if not 1 <= g.count <= MAX_INT or any(
        _whole(n) is None for n in (g.first_at, g.last_at, g.threaded, g.retracted)
    ):
        return None
    key = tuple((_bounded(name), _bounded(value)) for name, value in g.key[:MAX_GROUP_KEY])
    models = _distinct(g.models, MAX_GROUP_MODELS)
    harnesses = _distinct(g.harnesses, MAX_GROUP_HARNESSES)
    turns = _distinct(g.turns, MAX_GROUP_TURNS)
    recovered_at = _whole(g.recovered_at)
    if (key, models, harnesses, turns, recovered_at) == (
        g.key,
        g.models,
        g.harnesses,
        g.turns,
        g.recovered_at,
    ):
        return g
    return replace(
        g,
        key=key,
        models=models,
        harnesses=harnesses,
        turns=turns,
        recovered_at=recovered_at,
    )


def _sendable_attempt(a: Attempt) -> Attempt:
    message, provider, model = valid_text(a.message), _text(a.provider), _text(a.model)
    status, retry_after = _whole(a.status), _whole(a.retry_after)
    if (
        message is a.message
        and provider is a.provider
        and model is a.model
        and (status, retry_after) == (a.status, a.retry_after)
    ):
        return a
    return replace(
        a, message=message, provider=provider, model=model, status=status, retry_after=retry_after
    )


def _attempt_payload(a: Attempt) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": a.kind.value, "message": a.message}
    for name in ("provider", "model", "status", "retry_after"):
        value = getattr(a, name)
        if value is not None:
            out[name] = value
    return out


class _Bad(Exception):
    def __init__(self, field: str, problem: str) -> None:
        self.error = CardError(field, problem)


def read_payload(obj: object) -> TurnError | CardError:
    """A TurnError from a decoded payload, or a CardError. Never raises."""
    try:
        return _read(obj)
    except _Bad as bad:
        return bad.error
    except (RecursionError, MemoryError):  # pragma: no cover - defensive only
        return CardError("(card)", "too deeply nested or too large")


def loads_payload(text: str | bytes) -> TurnError | CardError:
    """Parse JSON text and read it as a card. Never raises.

    NaN, Infinity and -Infinity are not JSON; Python's parser takes them anyway.
    They are parsed as floats so that one in a field the reader needs is named
    by that field (no field takes a float); one anywhere else still fails the card.
    """
    constants: list[str] = []

    def constant(name: str) -> float:
        constants.append(name)
        return float(name)

    try:
        obj = json.loads(text, parse_constant=constant)
    except RecursionError:
        return CardError("(card)", "JSON nested too deeply")
    except (ValueError, TypeError) as exc:
        return CardError("(card)", f"not valid JSON ({exc.__class__.__name__})")
    card = read_payload(obj)
    if constants and isinstance(card, TurnError):
        return CardError("(card)", f"{constants[0]} is not a JSON number")
    return card


def _read(obj: object) -> TurnError:
    if not isinstance(obj, dict):
        raise _Bad("(card)", "expected a JSON object")
    if obj.get("type") != CARD_TYPE:
        raise _Bad("type", f'expected "{CARD_TYPE}"')
    version = obj.get("v")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _Bad("v", "expected a whole number >= 1")
    attempts_raw = obj.get("attempts", [])
    if not isinstance(attempts_raw, list):
        raise _Bad("attempts", "expected a list")
    if len(attempts_raw) > MAX_ATTEMPTS:
        raise _Bad("attempts", f"more than {MAX_ATTEMPTS} attempts")
    attempts = tuple(_read_attempt(a, f"attempts[{i}]") for i, a in enumerate(attempts_raw))
    fields: dict[str, Any] = {
        "kind": _kind(obj, "kind"),
        "message": _required_str(obj, "message"),
        "harness": _required_str(obj, "harness"),
        "attempts": attempts,
    }
    for name in _OPTIONAL_STR:
        fields[name] = _optional_str(obj, name)
    for name in _OPTIONAL_INT:
        fields[name] = _optional_int(obj, name)
    for name in _OPTIONAL_BOOL:
        fields[name] = _optional_bool(obj, name)
    fields["group"] = read_group(obj.get("group"))
    return TurnError(**fields)


def read_group(obj: object) -> Group | None:
    """The group part, or None when it is absent, of another version, or broken in any
    way: the card then reads as its latest failure, as an old reader draws it. Never raises."""
    if not isinstance(obj, dict):
        return None
    version = obj.get("v")
    if not _is_int(version) or version != GROUP_VERSION:
        return None
    try:
        count = _group_int(obj, "count")
        if count < 1:
            return None
        recovered_at = None if obj.get("recovered_at") is None else _group_int(obj, "recovered_at")
        return Group(
            count=count,
            first_at=_group_int(obj, "first_at"),
            last_at=_group_int(obj, "last_at"),
            key=_group_key(obj.get("key", [])),
            models=_group_strings(obj.get("models", []), MAX_GROUP_MODELS),
            harnesses=_group_strings(obj.get("harnesses", []), MAX_GROUP_HARNESSES),
            turns=_group_strings(obj.get("turns", []), MAX_GROUP_TURNS),
            threaded=_group_int(obj, "threaded", 0),
            recovered_at=recovered_at,
            retracted=_group_int(obj, "retracted", 0),
        )
    except _Broken:
        return None


class _Broken(Exception):
    """A group part that is not readable: dropped, never an error of the card."""


def _group_int(obj: dict[str, Any], key: str, default: int | None = None) -> int:
    value = obj.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_INT:
        raise _Broken
    return value


def _group_text(value: object) -> str:
    if not isinstance(value, str) or len(value) > MAX_GROUP_TEXT:
        raise _Broken
    return valid_text(value)


def _group_strings(value: object, limit: int) -> tuple[str, ...]:
    """A list of at most `limit` distinct bounded strings."""
    if not isinstance(value, list) or len(value) > limit:
        raise _Broken
    out = tuple(_group_text(v) for v in value)
    if len(set(out)) != len(out):
        raise _Broken
    return out


def _group_key(value: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or len(value) > MAX_GROUP_KEY:
        raise _Broken
    pairs = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Broken
        pairs.append((_group_text(pair[0]), _group_text(pair[1])))
    return tuple(pairs)


def _read_attempt(obj: object, path: str) -> Attempt:
    if not isinstance(obj, dict):
        raise _Bad(path, "expected a JSON object")
    return Attempt(
        kind=_kind(obj, "kind", path),
        message=_required_str(obj, "message", path),
        provider=_optional_str(obj, "provider", path),
        model=_optional_str(obj, "model", path),
        status=_optional_int(obj, "status", path),
        retry_after=_optional_int(obj, "retry_after", path),
    )


def _name(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(obj: dict[str, Any], key: str, path: str = "") -> Kind:
    value = obj.get(key)
    if not isinstance(value, str):
        raise _Bad(_name(path, key), "expected a string (one of the kinds)")
    return Kind.read(value)  # an unknown kind reads as unknown


def _required_str(obj: dict[str, Any], key: str, path: str = "") -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise _Bad(_name(path, key), "expected a string" + ("" if key in obj else " (missing)"))
    return valid_text(value)


def _optional_str(obj: dict[str, Any], key: str, path: str = "") -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        return valid_text(value)
    raise _Bad(_name(path, key), "expected a string or null")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_int(obj: dict[str, Any], key: str, path: str = "") -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if not _is_int(value) or not 0 <= value <= MAX_INT:
        raise _Bad(_name(path, key), f"expected a whole number from 0 to {MAX_INT}")
    return int(value)


def _optional_bool(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise _Bad(key, "expected true or false")
    return value
