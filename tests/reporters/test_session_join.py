"""A reporter's turn.report names its session ("session:{id}"); the rules join it to the turn.

The events are the ones the ACP proxy and the reporters really send (ids and shapes as in
roombot/acp/build.py and reporters/*), fed through the real TurnMachine.
"""

from __future__ import annotations

from typing import Any

from cards import Kind
from roombot.events import parse_event
from roombot.turns import PENDING_REPORTS, Post, TurnMachine, TurnRules, TurnState

ROOM = "!lab:roombot.test"
S = "01a22ddb-06fa-71fd-97bb-8be9fc122f42"
RATE_LIMIT_BODY = (
    '{"message":"Rate limit reached for lab-large in organization org-lab on tokens per min '
    '(TPM): Limit 30000, Used 29840, Requested 1203. Please try again in 1s.",'
    '"type":"tokens","param":null,"code":"rate_limit_exceeded"}'
)


def started(rid: int, at: float, session: str = S) -> dict[str, Any]:
    turn = f"acp/{session}/{rid}"
    return {
        "type": "turn.started",
        "turn": turn,
        "event_id": f"{turn}/started",
        "at": at,
        "room": ROOM,
        "harness": "pi",
        "session": session,
        "provider": "lab",
        "model": "lab-large",
    }


def ended(rid: int, at: float, session: str = S) -> dict[str, Any]:
    turn = f"acp/{session}/{rid}"
    return {
        "type": "turn.ended",
        "turn": turn,
        "event_id": f"{turn}/ended",
        "at": at,
        "stop_reason": "end_turn",
    }


def output(rid: int, at: float, text: str) -> dict[str, Any]:
    turn = f"acp/{S}/{rid}"
    return {"type": "turn.output", "turn": turn, "event_id": f"{turn}/o", "at": at, "text": text}


def report(at: float, n: int = 0, session: str = S, body: str = RATE_LIMIT_BODY) -> dict[str, Any]:
    return {
        "type": "turn.report",
        "turn": f"session:{session}",
        "event_id": f"pi-reporter/{session}/{n}",
        "at": at,
        "source": "roombot-pi-reporter",
        "error": {
            "report": {"harness": "pi", "provider": "lab", "status": 429, "body": body},
            "model": "lab-large",
        },
    }


def run(
    events: list[tuple[float, dict[str, Any]]], end: float = 100.0, **rules: Any
) -> tuple[TurnMachine, list[Post]]:
    machine = TurnMachine(TurnRules(**rules), {"pi": "roombot-pi-reporter"})
    posts: list[Post] = []
    for now, obj in events:
        posts += [d for d in machine.feed(parse_event(obj), now) if isinstance(d, Post)]
    posts += [d for d in machine.tick(end) if isinstance(d, Post)]
    return machine, posts


def test_a_report_before_the_dropped_end_gives_the_card_its_reason() -> None:
    _, posts = run([(10.0, started(3, 10.0)), (10.2, report(10.1)), (10.3, ended(3, 10.15))])
    assert len(posts) == 1
    card = posts[0].error
    assert posts[0].turn == f"acp/{S}/3"
    assert card.kind is Kind.RATE_LIMIT
    assert "Rate limit reached for lab-large" in card.message
    assert card.note is None  # the reporter did report: no "would have recovered" note


def test_a_report_after_the_end_within_grace_still_counts() -> None:
    _, posts = run([(10.0, started(3, 10.0)), (10.2, ended(3, 10.15)), (11.5, report(10.1))])
    assert [p.error.kind for p in posts] == [Kind.RATE_LIMIT]


def test_a_report_after_the_grace_is_too_late() -> None:
    _, posts = run([(10.0, started(3, 10.0)), (10.2, ended(3, 10.15)), (13.0, report(10.1))])
    assert [p.error.kind for p in posts] == [Kind.UNKNOWN]
    assert "completed without a reply" in posts[0].error.message
    assert posts[0].error.note is not None and "roombot-pi-reporter" in posts[0].error.note


def test_a_report_that_arrives_before_its_turn_started_waits_for_it() -> None:
    # The reporter posts straight to the bot; the proxy's events come through its spool.
    machine, posts = run([(10.05, report(10.04)), (10.3, started(3, 10.0)), (10.3, ended(3, 10.1))])
    assert [p.error.kind for p in posts] == [Kind.RATE_LIMIT]
    assert machine.counts["unjoined_reports"] == 0


def test_the_pending_report_keeps_its_ref_open_then_follows_its_turn() -> None:
    machine = TurnMachine(TurnRules())
    machine.feed(parse_event(report(10.04)), 10.05)
    view = machine.state(f"session:{S}")
    assert view is not None and view.state is TurnState.WAITING_START
    machine.feed(parse_event(started(3, 10.0)), 10.3)
    view = machine.state(f"session:{S}")
    assert view is not None and view.state is TurnState.OPEN
    machine.feed(parse_event(ended(3, 10.1)), 10.3)
    machine.tick(20.0)
    view = machine.state(f"session:{S}")
    assert view is not None and view.state is TurnState.POSTED


def test_a_run_that_ends_well_after_a_reported_error_gives_no_card() -> None:
    # Pi retried after the 429 and the retry answered.
    machine, posts = run(
        [
            (10.0, started(3, 10.0)),
            (10.2, report(10.1)),
            (11.0, output(3, 10.9, "Hello there!")),
            (11.1, ended(3, 11.0)),
        ]
    )
    assert posts == []
    assert machine.state(f"acp/{S}/3") is not None
    assert machine.state(f"acp/{S}/3").state is TurnState.ANSWERED  # type: ignore[union-attr]


def test_a_late_report_about_an_answered_turn_is_dropped() -> None:
    machine, posts = run(
        [
            (10.0, started(3, 10.0)),
            (11.0, output(3, 10.9, "Hello there!")),
            (11.1, ended(3, 11.0)),
            (11.5, report(10.1)),
        ]
    )
    assert posts == []
    assert machine.counts["dropped_after_decision"] == 1


def test_each_report_joins_the_turn_that_was_running_when_it_was_made() -> None:
    # Two prompts back to back on one session: the first dropped its error, the second
    # answered. The report about the first arrives while both are known.
    _, posts = run(
        [
            (10.0, started(3, 10.0)),
            (10.2, ended(3, 10.15)),
            (10.3, started(4, 10.3)),
            (10.6, report(10.1)),
            (11.0, output(4, 10.9, "Hello")),
            (11.1, ended(4, 11.0)),
        ]
    )
    assert [(p.turn, p.error.kind) for p in posts] == [(f"acp/{S}/3", Kind.RATE_LIMIT)]


def test_other_sessions_are_not_touched() -> None:
    other = "a2c70474-2f8f-4e6b-8a10-95eb0552e177"
    _, posts = run(
        [
            (10.0, started(3, 10.0)),
            (10.0, started(3, 10.0, session=other)),
            (10.2, report(10.1, session=other)),
            (10.3, ended(3, 10.15)),
            (10.3, ended(3, 10.15, session=other)),
        ]
    )
    by_turn = {p.turn: p.error.kind for p in posts}
    assert by_turn == {f"acp/{S}/3": Kind.UNKNOWN, f"acp/{other}/3": Kind.RATE_LIMIT}


def test_a_clock_a_little_behind_still_joins_within_settle() -> None:
    # The reporter's machine is 0.5 s behind the proxy's: its report predates the start.
    _, posts = run([(10.0, started(3, 10.0)), (10.2, report(9.5)), (10.3, ended(3, 10.15))])
    assert [p.error.kind for p in posts] == [Kind.RATE_LIMIT]


def test_a_report_whose_turn_never_starts_is_dropped_and_counted() -> None:
    machine, posts = run([(10.0, report(10.0))], end=10.0 + 1800.0)
    assert posts == []
    assert machine.counts["unjoined_reports"] == 1
    assert machine.state(f"session:{S}") is None


def test_waiting_reports_are_bounded() -> None:
    machine = TurnMachine(TurnRules())
    for n in range(PENDING_REPORTS + 10):
        machine.feed(parse_event(report(10.0, n=n, session=f"s{n}")), 10.0)
    assert machine.counts["unjoined_reports"] == 10
    assert machine.state("session:s0") is None
    assert machine.state(f"session:s{PENDING_REPORTS + 9}") is not None


def test_replaying_the_same_events_gives_the_same_decisions() -> None:
    events = [(10.05, report(10.04)), (10.3, started(3, 10.0)), (10.3, ended(3, 10.1))]
    first = run(events)[1]
    second = run(events)[1]
    assert [(p.key, p.error) for p in first] == [(p.key, p.error) for p in second]


def test_a_forgotten_turn_leaves_no_session_index() -> None:
    machine, _ = run(
        [(10.0, started(3, 10.0)), (10.2, report(10.1)), (10.3, ended(3, 10.15))],
        end=20.0,
        dedup_horizon=60.0,
    )
    machine.tick(200.0)
    assert machine.state(f"acp/{S}/3") is None
    assert machine.state(f"session:{S}") is None
    assert machine._sessions == {} and machine._session_of == {}
