"""Small builders so each rule's test reads as the story of one turn."""

from __future__ import annotations

from typing import Any

from roombot.events import Event, parse_event
from roombot.turns import Decision, Post, Retract, TurnMachine

ROOM = "!team:example.org"


def ev(type_: str, at: float, turn: str | None = "t1", **fields: Any) -> Event:
    obj: dict[str, Any] = {"type": type_, "at": at, **fields}
    if turn is not None:
        obj["turn"] = turn
    return parse_event(obj)


def started(at: float = 0.0, turn: str = "t1", **fields: Any) -> Event:
    base: dict[str, Any] = {
        "room": ROOM,
        "harness": "claude-code",
        "provider": "anthropic",
        "model": "claude-opus-4",
    }
    return ev("turn.started", at, turn, **{**base, **fields})


def output(at: float, text: str = "Here is the answer: 42.", turn: str = "t1") -> Event:
    return ev("turn.output", at, turn, text=text)


def ended(at: float, stop: str = "end_turn", turn: str = "t1") -> Event:
    return ev("turn.ended", at, turn, stop_reason=stop)


def ended_error(at: float, error: dict[str, Any], turn: str = "t1") -> Event:
    return ev("turn.ended", at, turn, error=error)


def failed(at: float, provider: str, model: str, text: str, turn: str = "t1") -> Event:
    return ev("turn.failed_attempt", at, turn, provider=provider, model=model, error={"text": text})


def attempt(at: float, provider: str, model: str, turn: str = "t1") -> Event:
    return ev("turn.attempt", at, turn, provider=provider, model=model)


def report(at: float, text: str, source: str = "claude-hook", turn: str = "t1") -> Event:
    return ev("turn.report", at, turn, source=source, error={"text": text})


def run(machine: TurnMachine, events: list[Event], *, until: float | None = None) -> list[Decision]:
    """Feed each event at its own `at`, then run the clock on to `until` (default: all timers)."""
    out: list[Decision] = []
    for event in events:
        assert event.at is not None
        out += machine.feed(event, event.at)
    if until is not None:
        out += machine.tick(until)
    else:
        while (deadline := machine.next_deadline()) is not None:
            out += machine.tick(deadline)
    return out


def posts(decisions: list[Decision]) -> list[Post]:
    return [d for d in decisions if isinstance(d, Post)]


def retracts(decisions: list[Decision]) -> list[Retract]:
    return [d for d in decisions if isinstance(d, Retract)]


def only_post(decisions: list[Decision]) -> Post:
    assert len(decisions) == 1, decisions
    (decision,) = decisions
    assert isinstance(decision, Post), decision
    return decision
