"""The rules of a turn, one plain story per rule and per case (docs/turns.md lists them)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import roombot.turns as turns_module
from cards import Attempt, Kind
from cards.codec import read_payload, to_payload
from roombot.turns import (
    TRANSITIONS,
    Post,
    Retract,
    TurnMachine,
    TurnRules,
    TurnState,
)
from tests.turns.helpers import (
    ROOM,
    attempt,
    ended,
    ended_error,
    ev,
    failed,
    only_post,
    output,
    posts,
    report,
    retracts,
    run,
    started,
)

# --- rule 1: one card per failed turn, led by the model asked for -----------------


def test_rule1_three_models_tried_give_one_card_with_three_attempts_in_order() -> None:
    decisions = run(
        TurnMachine(),
        [
            started(0),
            failed(1, "anthropic", "claude-opus-4", "429 too many requests"),
            attempt(2, "openai", "gpt-5"),
            failed(3, "openai", "gpt-5", "503 overloaded"),
            attempt(4, "google", "gemini-2.5-pro"),
            failed(5, "google", "gemini-2.5-pro", "the call did not succeed"),
            ended_error(6, {"text": "all providers failed"}),
        ],
    )
    card = only_post(decisions).error
    assert (card.provider, card.model) == ("anthropic", "claude-opus-4")
    assert card.message == "429 too many requests"  # the requested model's failure leads
    assert [(a.provider, a.model) for a in card.attempts] == [
        ("anthropic", "claude-opus-4"),
        ("openai", "gpt-5"),
        ("google", "gemini-2.5-pro"),
    ]
    # the end's own error is the last try's latest word
    assert [a.message for a in card.attempts] == [
        "429 too many requests",
        "503 overloaded",
        "all providers failed",
    ]
    assert card.harness == "claude-code" and card.turn == "t1"
    assert (card.started_at, card.failed_at) == (0, 6000)


def test_rule1_lead_is_the_requested_model_even_when_the_fallback_failed_first_in_arrival() -> None:
    # the requested model's failure arrives after the fallback's, but happened first (`at`)
    decisions = run(
        TurnMachine(),
        [
            started(0),
            attempt(2, "openai", "gpt-5"),
            failed(3, "openai", "gpt-5", "fallback failed"),
            failed(1, "anthropic", "claude-opus-4", "requested failed"),
            ended(4, "refusal"),
        ],
    )
    card = only_post(decisions).error
    assert (card.provider, card.model, card.message) == (
        "anthropic",
        "claude-opus-4",
        "requested failed",
    )
    assert [a.model for a in card.attempts] == ["claude-opus-4", "gpt-5"]
    assert card.attempts[1].kind is Kind.REFUSAL  # the later, known kind wins for that try


def test_rule1_one_failure_seen_twice_for_one_try_is_one_attempt() -> None:
    # e.g. a proxy saw the HTTP 429 and the harness then rejected the prompt
    decisions = run(
        TurnMachine(),
        [
            started(0),
            failed(1, "anthropic", "claude-opus-4", "429 from the proxy"),
            ended_error(2, {"acp": {"code": -32603, "message": "rate limited"}}),
        ],
    )
    card = only_post(decisions).error
    assert len(card.attempts) == 1
    assert (card.provider, card.model) == ("anthropic", "claude-opus-4")


def test_rule1_at_most_one_card_per_turn() -> None:
    machine = TurnMachine()
    decisions = run(
        machine,
        [
            started(0),
            ended_error(1, {"text": "prompt rejected"}),
            ended_error(1.5, {"text": "rejected again"}),
            report(3, "late report"),
        ],
    )
    assert len(posts(decisions)) == 1
    assert machine.counts["repeated_events"] == 1
    assert machine.counts["dropped_after_decision"] == 1


# --- rule 2: an error is held until the end, dropped if the agent answers -------------


def test_rule2_failed_attempt_then_answer_is_no_failure() -> None:
    machine = TurnMachine()
    decisions = run(
        machine,
        [
            started(0),
            failed(1, "anthropic", "claude-opus-4", "529 overloaded"),
            output(2),
            ended(3),
        ],
    )
    assert decisions == []
    assert machine.state("t1") is not None
    assert machine.state("t1").state is TurnState.ANSWERED  # type: ignore[union-attr]


def test_rule2_nothing_is_posted_before_the_end() -> None:
    machine = TurnMachine()
    decisions = run(
        machine,
        [started(0), failed(1, "anthropic", "claude-opus-4", "429")],
        until=100,
    )
    assert decisions == []
    assert machine.state("t1").state is TurnState.OPEN  # type: ignore[union-attr]


# --- rule 3: a recovered fallback is no error -------------------------------------------


def test_rule3_fallback_that_answered_is_no_error() -> None:
    decisions = run(
        TurnMachine(),
        [
            started(0),
            failed(1, "anthropic", "claude-opus-4", "429"),
            attempt(2, "openai", "gpt-5"),
            output(3),
            ended(4),
        ],
    )
    assert decisions == []


# --- rule 4: a run that ended well is no error, whenever the report arrives ---------------


@pytest.mark.parametrize("report_at", [0.5, 3.5, 30.0], ids=["before", "just-after", "long-after"])
def test_rule4_report_about_a_good_run_is_no_error(report_at: float) -> None:
    events = [started(0), output(2), ended(3), report(report_at, "quota exceeded")]
    events.sort(key=lambda e: e.at or 0)
    machine = TurnMachine()
    assert run(machine, events) == []
    assert machine.state("t1").state is TurnState.ANSWERED  # type: ignore[union-attr]


# --- the empty end: grace period, report, "completed without a reply" -------------------


def test_empty_end_waits_the_grace_period_then_posts_no_reply_naming_the_harness() -> None:
    machine = TurnMachine(reporters={"claude-code": "claude-stop-hook"})
    assert run(machine, [started(0), ended(1)], until=2.9) == []  # within the 2 s grace
    card = only_post(machine.tick(3.0)).error
    assert card.kind is Kind.UNKNOWN
    assert "completed without a reply" in card.message
    assert "claude-code" in card.message
    assert card.note is not None and "claude-stop-hook" in card.note
    assert card.failed_at == 1000


def test_no_reply_card_without_a_reporter_for_the_harness_has_no_note() -> None:
    machine = TurnMachine(reporters={"codex": "codex-notify"})
    card = only_post(run(machine, [started(0), ended(1)])).error
    assert card.note is None


def test_report_within_the_grace_period_gives_the_reason() -> None:
    machine = TurnMachine(reporters={"claude-code": "claude-stop-hook"})
    decisions = run(machine, [started(0), ended(1), report(2, "credit balance too low")])
    card = only_post(decisions).error
    assert card.message == "credit balance too low"
    assert card.note is None
    assert (card.provider, card.model) == ("anthropic", "claude-opus-4")


def test_report_before_the_end_of_a_turn_without_answer_gives_the_reason_at_once() -> None:
    machine = TurnMachine(TurnRules(settle=0.5))
    decisions = run(machine, [started(0), report(1, "quota"), ended(2)], until=2.5)
    assert only_post(decisions).error.message == "quota"


def test_report_after_the_grace_period_is_dropped_and_counted() -> None:
    machine = TurnMachine()
    decisions = run(machine, [started(0), ended(1), report(10, "too late")])
    assert "completed without a reply" in only_post(decisions).error.message
    assert machine.counts["dropped_after_decision"] == 1


def test_grace_period_is_configurable() -> None:
    machine = TurnMachine(TurnRules(grace=10.0))
    assert run(machine, [started(0), ended(1)], until=10.9) == []
    assert len(posts(machine.tick(11.0))) == 1


def test_whitespace_only_answer_is_no_answer() -> None:
    decisions = run(TurnMachine(), [started(0), output(1, "  \n"), ended(2)])
    assert "completed without a reply" in only_post(decisions).error.message


def test_failed_attempt_and_empty_end_posts_that_failure_without_grace() -> None:
    machine = TurnMachine(TurnRules(settle=0.5, grace=5.0))
    decisions = run(
        machine, [started(0), failed(1, "anthropic", "claude-opus-4", "401 bad key"), ended(2)]
    )
    post = only_post(decisions)
    assert post.error.message == "401 bad key"
    assert post.error.failed_at == 2000


def test_answer_arriving_just_after_an_empty_end_is_an_answer() -> None:
    # out of order: the output happened before the end but arrived after it
    machine = TurnMachine()
    decisions: list[Post | Retract] = []
    decisions += machine.feed(started(0), 0)
    decisions += machine.feed(ended(3), 3.0)
    decisions += machine.feed(output(2.5), 3.4)
    decisions += machine.tick(100)
    assert decisions == []


# --- an error posing as the answer -----------------------------------------------------


def test_error_posing_as_the_answer_counts_as_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str | None, str]] = []

    def fake_classify_answer(harness: str | None, text: str) -> Attempt | None:
        # stands in for the normaliser's judgement; the rule under test is what follows
        seen.append((harness, text))
        if text.startswith("API Error: 429"):
            return Attempt(kind=Kind.RATE_LIMIT, message=text, status=429, retry_after=30)
        return None

    monkeypatch.setattr(turns_module, "classify_answer", fake_classify_answer)
    decisions = run(
        TurnMachine(),
        [started(0), output(1, "API Error: 429 "), output(1.5, "rate limited"), ended(2)],
    )
    card = only_post(decisions).error
    assert card.message == "API Error: 429 rate limited"
    assert (card.kind, card.retry_after) == (Kind.RATE_LIMIT, 30)
    assert (card.provider, card.model) == ("anthropic", "claude-opus-4")
    assert ("claude-code", "API Error: 429 rate limited") in seen


def test_a_real_answer_is_asked_about_once_and_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turns_module, "classify_answer", lambda harness, text: None)
    assert run(TurnMachine(), [started(0), output(1), ended(2)]) == []


def test_a_failing_answer_classifier_does_not_lose_the_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(harness: str | None, text: str) -> Attempt | None:
        raise RuntimeError("bug in a normaliser")

    monkeypatch.setattr(turns_module, "classify_answer", broken)
    machine = TurnMachine()
    assert run(machine, [started(0), output(1), ended(2)]) == []
    assert machine.counts["classifier_errors"] >= 1


# --- stop reasons that fail even after partial output ---------------------------------


@pytest.mark.parametrize(
    ("stop", "kind"),
    [
        ("max_tokens", Kind.MAX_TOKENS),
        ("max_turn_requests", Kind.MAX_TOKENS),
        ("refusal", Kind.REFUSAL),
    ],
)
def test_cut_off_or_refused_answer_is_a_failure_after_partial_output(stop: str, kind: Kind) -> None:
    card = only_post(run(TurnMachine(), [started(0), output(1), ended(2, stop)])).error
    assert card.kind is kind
    assert stop in card.message
    assert (card.provider, card.model) == ("anthropic", "claude-opus-4")
    assert [a.kind for a in card.attempts] == [kind]


def test_cancelled_posts_nothing_by_default() -> None:
    machine = TurnMachine()
    assert run(machine, [started(0), output(1), ended(2, "cancelled")]) == []
    assert machine.state("t1").state is TurnState.QUIET  # type: ignore[union-attr]


def test_cancelled_posts_a_cancelled_card_when_configured() -> None:
    card = only_post(
        run(TurnMachine(TurnRules(post_cancelled=True)), [started(0), ended(2, "cancelled")])
    ).error
    assert card.kind is Kind.CANCELLED


# --- timeout, harness exited, node offline, and retract --------------------------------


def test_turn_that_never_ends_is_closed_as_timeout_after_the_limit() -> None:
    machine = TurnMachine(TurnRules(turn_timeout=60))
    assert run(machine, [started(0), output(1, "partial")], until=59.9) == []
    card = only_post(machine.tick(60.0)).error
    assert card.kind is Kind.TIMEOUT
    assert "60 s" in card.message
    assert (card.provider, card.model) == ("anthropic", "claude-opus-4")


def test_timeout_outcome_does_not_depend_on_when_tick_is_called() -> None:
    late = TurnMachine(TurnRules(turn_timeout=60))
    early = TurnMachine(TurnRules(turn_timeout=60))
    a = run(late, [started(0)], until=500)  # tick called long after the deadline
    b = run(early, [started(0)], until=60)
    assert a == b and len(a) == 1
    assert posts(a)[0].error.failed_at == 60000


def test_harness_exited_fails_every_open_turn_of_that_harness_only() -> None:
    machine = TurnMachine()
    decisions = run(
        machine,
        [
            started(0, "a"),
            started(0, "b"),
            started(0, "c", harness="codex"),
            ev("harness.exited", 5, None, harness="claude-code", error={"exit": {"code": 137}}),
        ],
        until=6,
    )
    assert sorted(p.turn for p in posts(decisions)) == ["a", "b"]
    assert {p.error.kind for p in posts(decisions)} == {Kind.HARNESS_EXITED}
    assert machine.state("c").state is TurnState.OPEN  # type: ignore[union-attr]


def test_harness_exited_can_be_narrowed_to_one_node() -> None:
    machine = TurnMachine()
    decisions = run(
        machine,
        [
            started(0, "a", node="n1"),
            started(0, "b", node="n2"),
            ev("harness.exited", 5, None, harness="claude-code", node="n1"),
        ],
        until=6,
    )
    assert [p.turn for p in posts(decisions)] == ["a"]


def test_node_offline_fails_the_open_turns_on_that_node() -> None:
    machine = TurnMachine()
    decisions = run(
        machine,
        [
            started(0, "a", node="n1"),
            started(0, "b", node="n1", harness="codex"),
            started(0, "c", node="n2"),
            started(0, "d"),
            output(1, turn="d"),
            ended(2, turn="d"),
            ev("node.offline", 5, None, node="n1"),
        ],
        until=6,
    )
    assert sorted(p.turn for p in posts(decisions)) == ["a", "b"]
    card = posts(decisions)[0].error
    assert card.kind is Kind.NODE_OFFLINE and card.node == "n1" and "n1" in card.message


def test_ended_turns_are_not_failed_by_a_later_exit() -> None:
    machine = TurnMachine()
    decisions = run(
        machine,
        [started(0), output(1), ended(2), ev("harness.exited", 3, None, harness="claude-code")],
    )
    assert decisions == []


@pytest.mark.parametrize(
    "gone",
    [
        ev("harness.exited", 5, None, harness="claude-code"),
        ev("node.offline", 5, None, node="n1"),
        None,  # the timeout
    ],
    ids=["harness_exited", "node_offline", "timeout"],
)
def test_a_turn_failed_by_timeout_or_exit_that_then_ends_well_is_retracted(
    gone: object,
) -> None:
    machine = TurnMachine(TurnRules(turn_timeout=5))
    events = [started(0, node="n1")]
    if gone is not None:
        events.append(gone)  # type: ignore[arg-type]
    decisions = run(machine, events, until=5)
    (post,) = posts(decisions)
    later = run(machine, [output(7), ended(8)])
    assert later == [Retract(ROOM, "t1", dataclasses.replace(post.error, recovered=True))]
    assert later[0].key == "t1/retract" and post.key == "t1/post"
    assert machine.state("t1").state is TurnState.RETRACTED  # type: ignore[union-attr]


def test_a_timed_out_turn_that_then_fails_stays_posted_without_second_card() -> None:
    machine = TurnMachine(TurnRules(turn_timeout=5))
    decisions = run(machine, [started(0), ended_error(9, {"text": "boom"})])
    assert len(posts(decisions)) == 1 and retracts(decisions) == []
    assert machine.state("t1").state is TurnState.POSTED  # type: ignore[union-attr]


def test_a_late_answer_after_the_end_of_a_timed_out_turn_still_retracts() -> None:
    # found by the property test: the end arrives before the answer that preceded it
    machine = TurnMachine(TurnRules(turn_timeout=5, settle=1.0))
    decisions = run(machine, [started(0)], until=5)
    decisions += machine.feed(ended(8), 8.0)
    assert machine.state("t1").state is TurnState.POSTED_SETTLING  # type: ignore[union-attr]
    decisions += machine.feed(output(7.5), 8.5)
    assert [type(d) for d in decisions] == [Post, Retract]


def test_the_retract_window_closes() -> None:
    machine = TurnMachine(TurnRules(turn_timeout=5, retract_window=10))
    decisions = run(machine, [started(0), output(20), ended(21)])
    assert len(posts(decisions)) == 1 and retracts(decisions) == []
    assert machine.counts["dropped_after_decision"] == 2


# --- dedup, order, orphans, memory ------------------------------------------------------


def test_an_event_id_seen_before_has_no_effect() -> None:
    machine = TurnMachine()
    first = ev("turn.ended", 2, error={"text": "boom"}, event_id="e-end")
    decisions = run(
        machine,
        [started(0), ev("turn.output", 1, text="hi", event_id="e1"), first],
    )
    assert len(posts(decisions)) == 1
    again = run(machine, [ev("turn.output", 1, text="hi", event_id="e1")])
    assert again == [] and machine.counts["duplicate_events"] == 1
    assert machine.counts["dropped_after_decision"] == 0


def test_events_before_turn_started_are_kept_until_it_arrives() -> None:
    machine = TurnMachine()
    decisions = machine.feed(ended_error(2, {"text": "rejected"}), 2.0)
    assert decisions == []
    assert machine.state("t1").state is TurnState.WAITING_START  # type: ignore[union-attr]
    decisions = machine.feed(started(1), 2.3)
    decisions += machine.tick(10)
    assert only_post(decisions).error.message == "rejected"


def test_a_turn_that_never_starts_is_dropped_and_counted() -> None:
    machine = TurnMachine(TurnRules(turn_timeout=30))
    assert run(machine, [ended_error(2, {"text": "x"})]) == []
    assert machine.counts["orphaned_turns"] == 1
    assert machine.state("t1").state is TurnState.ORPHANED  # type: ignore[union-attr]


def test_a_failed_end_waits_the_settle_window_for_late_attempts() -> None:
    machine = TurnMachine(TurnRules(settle=1.0))
    decisions = machine.feed(started(0), 0)
    decisions += machine.feed(ended(5, "max_tokens"), 5.0)
    assert decisions == []
    decisions += machine.feed(failed(4, "anthropic", "claude-opus-4", "429"), 5.5)
    decisions += machine.tick(6.0)
    card = only_post(decisions).error
    assert card.attempts[0].kind is Kind.MAX_TOKENS  # the later, known kind of that try


def test_closed_turns_are_forgotten_after_the_horizon_within_bounds() -> None:
    machine = TurnMachine(TurnRules(dedup_horizon=100, max_remembered=3))
    for i in range(5):
        run(machine, [started(i, f"t{i}"), output(i, turn=f"t{i}"), ended(i, turn=f"t{i}")])
    assert machine.state("t0") is None and machine.state("t1") is None
    assert machine.state("t4").state is TurnState.ANSWERED  # type: ignore[union-attr]
    machine.tick(1000)
    assert all(machine.state(f"t{i}") is None for i in range(5))
    assert machine.open_turns == 0


def test_a_clock_going_back_is_treated_as_standing_still() -> None:
    machine = TurnMachine()
    machine.feed(started(10), 10)
    machine.feed(ended(11), 11)
    assert machine.tick(5) == []
    assert len(posts(machine.tick(13))) == 1


def test_bad_configuration_names_the_field() -> None:
    with pytest.raises(ValueError, match=r"^grace: "):
        TurnRules(grace=-1)
    with pytest.raises(ValueError, match=r"^max_remembered: "):
        TurnRules(max_remembered=0)


# --- the table --------------------------------------------------------------------------


def test_the_documented_table_is_the_code_table() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "turns.md").read_text(encoding="utf-8")
    for (state, inp), (after, action) in TRANSITIONS.items():
        row = f"| {state.value} | {inp.value} | {after.value} | {action.value} |"
        assert row in doc, row


def test_decisions_are_deterministic() -> None:
    events = [
        started(0),
        failed(1, "anthropic", "claude-opus-4", "429"),
        attempt(2, "openai", "gpt-5"),
        ended(3, "max_tokens"),
        started(4, "t2"),
        ended(5, turn="t2"),
    ]
    assert run(TurnMachine(), events) == run(TurnMachine(), events)


# --- with the real normalisers (roombot.normalise) and the real codec ---------------------

ANTHROPIC_429 = (
    '{"type":"error","error":{"type":"rate_limit_error",'
    '"message":"Number of requests has exceeded your rate limit"}}'
)


def test_a_real_http_429_leads_the_card_with_its_kind_and_retry_after() -> None:
    decisions = run(
        TurnMachine(),
        [
            started(0),
            ev(
                "turn.failed_attempt",
                1,
                provider="anthropic",
                model="claude-opus-4",
                error={"status": 429, "body": ANTHROPIC_429, "headers": {"retry-after": "30"}},
            ),
            ended(2),
        ],
    )
    card = only_post(decisions).error
    assert (card.kind, card.retry_after) == (Kind.RATE_LIMIT, 30)
    assert card.attempts[0].status == 429


def test_claude_codes_api_error_posing_as_the_answer_is_the_card() -> None:
    text = "API Error: 429 " + ANTHROPIC_429
    card = only_post(run(TurnMachine(), [started(0), output(1, text), ended(2)])).error
    assert card.kind is Kind.RATE_LIMIT
    assert (card.provider, card.model) == ("anthropic", "claude-opus-4")


def test_every_card_survives_the_codec() -> None:
    machine = TurnMachine(reporters={"claude-code": "claude-stop-hook"})
    decisions = run(
        machine,
        [
            started(0, "a"),
            failed(1, "anthropic", "claude-opus-4", "overloaded", turn="a"),
            attempt(2, "openai", "gpt-5", turn="a"),
            ended(3, "max_tokens", turn="a"),
            started(0, "b", node="n1", session="s1"),
            ended(1, turn="b"),
        ],
    )
    assert len(decisions) == 2
    for post in posts(decisions):
        assert read_payload(to_payload(post.error)) == post.error


def test_an_engine_waiting_for_capacity_is_no_failure() -> None:
    # ironflow's CapacityWait says "run later", not "failed": it must never lead a card.
    wait = {"ironflow": {"CapacityWait": {"provider": "anthropic"}}}
    machine = TurnMachine()
    answered = run(
        machine, [started(0), ev("turn.failed_attempt", 1, error=wait), output(3), ended(4)]
    )
    assert answered == []
    machine = TurnMachine()
    silent = run(
        machine, [started(0), ev("turn.report", 1, source="ironflow", error=wait), ended(4)]
    )
    card = only_post(silent).error
    assert card.attempts == () or all("CapacityWait" not in a.message for a in card.attempts)
    assert "without a reply" in card.message
    assert machine.counts["not_failures"] == 1
