"""What the Hermes reporter sends: roombot event format v1, built from Hermes's hook arguments.

Pure: no I/O, the clock is passed in. Runs in Hermes's own interpreter, so the standard
library only (this module is also imported by roombot's tests, under roombot's Python).

Hermes 0.19.0 hands `api_request_error` the failed call's `status_code`, `retryable`,
`reason` (its own classification), the agent's `provider`/`model` at that moment (a
fallback's, once it has switched) and `error = {"type": <exception class>, "message":
str(exception)}`. For an HTTP error the OpenAI and Anthropic SDKs word that message
"Error code: 429 - {'error': {...}}": the provider's body as a Python literal. The body is
read back (`ast.literal_eval`, which evaluates literals only) and sent as JSON, so roombot
reads the provider's own sentence from it; the message is sent untrimmed beside it.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

HARNESS = "hermes"
SOURCE = "roombot-hermes-reporter"
SESSION_REF = "session:"  # a turn.report naming a session (docs/reporters.md)
TURN_PREFIX = "hermes/"  # the turns this reporter owns itself (Hermes not under the ACP proxy)

# "Error code: 429 - {...}" (openai, anthropic SDKs); "HTTP 429: ..." (Hermes's own words).
_SDK = re.compile(r"^Error code: ([1-5]\d\d) - (.*)$", re.S)
_HTTP = re.compile(r"^(?:HTTP )?([1-5]\d\d)(?::\s*|\s+)(.*)$", re.S)
# Hermes's reasons for a safety block (FailoverReason.content_policy_blocked).
_REFUSALS = frozenset({"content_policy_blocked", "content_filter", "refusal", "safety"})
MAX_TEXT = 64 * 1024  # an answer chunk sent as turn.output, at most (roombot keeps 16 KiB)
# roombot's rule for `trigger` / `thread` (roombot.events.is_matrix_event_id, which this
# interpreter cannot import; a test holds the two to the same verdicts): `$` and 1 to 254
# more characters, none of them whitespace or a control character.
_NOT_IN_EVENT_ID = re.compile(
    r"[\x00-\x20\x7f-\x9f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)


def matrix_event_id(value: object) -> str | None:
    """`value` when roombot takes it as a Matrix event id, else None (never sent: the bot
    would refuse the whole turn.started for it)."""
    if (
        isinstance(value, str)
        and 2 <= len(value) <= 255
        and value.startswith("$")
        and not _NOT_IN_EVENT_ID.search(value)
    ):
        return value
    return None


def split_message(message: str) -> tuple[int | None, str | None]:
    """The status and the provider's body inside an SDK's error sentence (None: not there)."""
    m = _SDK.match(message) or _HTTP.match(message)
    if not m:
        return None, None
    status, rest = int(m.group(1)), m.group(2).strip()
    return status, _as_json(rest)


def _as_json(text: str) -> str:
    """The body as JSON when it is a Python literal of an object or list; else as it came."""
    if text[:1] not in ("{", "["):
        return text
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    if not isinstance(value, dict | list):
        return text
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return text


def failure_of(hook: Mapping[str, Any]) -> dict[str, Any]:
    """The report form (docs/error-forms.md) of one `api_request_error` call."""
    error = hook.get("error")
    error = error if isinstance(error, Mapping) else {}
    message = _str(error.get("message")) or ""
    name = _str(error.get("type"))
    status, body = split_message(message)
    given = hook.get("status_code")
    if isinstance(given, int) and not isinstance(given, bool) and 0 <= given <= 999:
        status = given  # Hermes's own reading of the answer wins over the sentence's
    report: dict[str, Any] = {"v": 1, "harness": HARNESS}
    for key, value in (
        ("provider", _str(hook.get("provider"))),
        ("model", _str(hook.get("model"))),
        ("name", name),
        ("status", status),
        ("body", body),
        ("message", message or f"the provider call failed ({name or 'no message'})"),
    ):
        if value is not None and value != "":
            report[key] = value
    reason = _str(hook.get("reason"))
    if reason and reason.lower() in _REFUSALS:
        report["kind"] = "refusal"
    return report


def error_of(hook: Mapping[str, Any]) -> dict[str, Any]:
    """`error` of the event: the report, with the model beside it (the try it belongs to)."""
    report = failure_of(hook)
    error: dict[str, Any] = {"report": report}
    if "model" in report:
        error["model"] = report["model"]
    return error


def event_id() -> str:
    return f"{SOURCE}/{uuid.uuid4()}"


def session_report(session: str, hook: Mapping[str, Any], at: float) -> dict[str, Any]:
    """Hermes under the ACP proxy: the proxy owns the turn; this joins it by session."""
    return {
        "type": "turn.report",
        "turn": SESSION_REF + session,
        "event_id": event_id(),
        "at": at,
        "source": SOURCE,
        "error": error_of(hook),
    }


def started(
    turn: str,
    *,
    room: str,
    at: float,
    model: str | None,
    session: str | None,
    node: str | None,
    trigger: str | None = None,
    thread: str | None = None,
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "turn.started",
        "turn": turn,
        "event_id": event_id(),
        "at": at,
        "room": room,
        "harness": HARNESS,
    }
    for key, value in (
        ("model", model),
        ("session", session),
        ("node", node),
        ("trigger", trigger),  # the room message that started the turn (docs/design.md)
        ("thread", thread),
    ):
        if value:
            event[key] = value
    return event


def attempt(turn: str, provider: str | None, model: str | None, at: float) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "turn.attempt", "turn": turn, "event_id": event_id(), "at": at}
    if provider:
        event["provider"] = provider
    if model:
        event["model"] = model
    return event


def failed_attempt(turn: str, hook: Mapping[str, Any], at: float) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "turn.failed_attempt",
        "turn": turn,
        "event_id": event_id(),
        "at": at,
        "error": error_of(hook),
    }
    provider, model = _str(hook.get("provider")), _str(hook.get("model"))
    if provider:
        event["provider"] = provider
    if model:
        event["model"] = model
    return event


def output(turn: str, text: str, at: float) -> dict[str, Any]:
    return {
        "type": "turn.output",
        "turn": turn,
        "event_id": event_id(),
        "at": at,
        "text": text[:MAX_TEXT],
    }


def ended(turn: str, at: float, *, interrupted: bool = False) -> dict[str, Any]:
    # end_turn whatever the outcome: roombot judges it by the answer and the failures it has.
    return {
        "type": "turn.ended",
        "turn": turn,
        "event_id": event_id(),
        "at": at,
        "stop_reason": "cancelled" if interrupted else "end_turn",
    }


def answer_text(hook: Mapping[str, Any]) -> str | None:
    """The assistant text of one successful call (`post_api_request`), or None."""
    response = hook.get("response")
    if isinstance(response, Mapping):
        message = response.get("assistant_message")
        if isinstance(message, Mapping):
            content = message.get("content")
            if isinstance(content, str) and content.strip():
                return content
    return None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
