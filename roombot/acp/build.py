"""Event format v1 (docs/design.md) as the ACP source emits it: shapes and ids.

Ids are derived from the turn id and the event's role in the turn, so the same
traffic always yields the same ids and the bot's journal drops a re-sent event
as a duplicate.
"""

from __future__ import annotations

import json
from typing import Any

Event = dict[str, Any]


def turn_id(session_id: str, request_id: object, run: str | None) -> str:
    """The turn a session/prompt request opens.

    `run` is None for a session created through this proxy (the agent minted a
    fresh session id, so session + request id is unique). For a session that
    was loaded or resumed, request ids can repeat across runs, so the proxy's
    run id goes in between.
    """
    rid = request_id if isinstance(request_id, str) else repr(request_id)
    session = session_id if run is None else f"{session_id}@{run}"
    return f"acp/{session}/{rid}"


def _base(kind: str, turn: str, suffix: str, at: float) -> Event:
    return {"type": kind, "turn": turn, "event_id": f"{turn}/{suffix}", "at": at}


def started(
    turn: str,
    at: float,
    *,
    room: str,
    harness: str,
    session: str,
    provider: str | None,
    model: str | None,
    node: str | None = None,
    trigger: str | None = None,
    thread: str | None = None,
) -> Event:
    ev = _base("turn.started", turn, "started", at)
    ev["room"] = room
    ev["harness"] = harness
    ev["session"] = session
    if provider is not None:
        ev["provider"] = provider
    if model is not None:
        ev["model"] = model
    if node is not None:
        ev["node"] = node
    if trigger is not None:
        ev["trigger"] = trigger
    if thread is not None:
        ev["thread"] = thread
    return ev


def output(turn: str, seq: int, at: float, text: str) -> Event:
    ev = _base("turn.output", turn, f"output/{seq}", at)
    ev["text"] = text
    return ev


def ended_stop(turn: str, at: float, stop_reason: str) -> Event:
    ev = _base("turn.ended", turn, "ended", at)
    ev["stop_reason"] = stop_reason
    return ev


def ended_error(turn: str, at: float, error: dict[str, Any]) -> Event:
    ev = _base("turn.ended", turn, "ended", at)
    ev["error"] = error
    return ev


STOP_REASONS = frozenset({"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"})


def ended(turn: str, at: float, stop_reason: str) -> Event:
    """turn.ended for a prompt response; a stop reason ACP does not define is an error."""
    if stop_reason in STOP_REASONS:
        return ended_stop(turn, at, stop_reason)
    text = f"the agent ended the turn with stopReason {stop_reason!r}, which ACP does not define"
    return ended_error(turn, at, {"text": text})


def rpc_error(error: object) -> dict[str, Any]:
    """The `{"acp": {...}}` form of a JSON-RPC error, exactly as the agent sent it.

    An error object without an integer code and a string message is not a
    JSON-RPC error; its JSON goes in the `{"text": ...}` form instead.
    """
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        if isinstance(code, int) and not isinstance(code, bool) and isinstance(message, str):
            return {"acp": {"code": code, "message": message, "data": error.get("data")}}
    return {"text": "session/prompt failed: " + json.dumps(error)}


def harness_exited(
    turn: str, at: float, *, harness: str, session: str, code: int | None, stderr: str
) -> Event:
    """One per turn still open; `session` keeps the rules from failing other proxies' turns."""
    ev = _base("harness.exited", turn, "exited", at)
    ev["harness"] = harness
    ev["session"] = session
    ev["error"] = {"exit": {"code": code, "stderr": stderr}}
    return ev
