"""The lab's judge: which card is right for what the simulator sent and the wire showed."""

from __future__ import annotations

from typing import Any

from lab import simulator
from lab.run import EXPECTED_KIND, Row, judge

NO_REPLY = "The agent completed without a reply: x ended the turn with no answer and no error."


def _row(scenario: str, wire: str, text: str, card: dict[str, Any] | None, **kw: Any) -> Row:
    row = Row("h", "pkg", scenario, wire=wire, wire_text=text, card=card, **kw)
    row.expected_kind = None if row.fallback else EXPECTED_KIND[scenario]
    return row


def test_sentence_on_wire_needs_kind_and_sentence() -> None:
    text = "API Error: 429 ... would exceed the rate limit for your organization ..."
    good = _row("rate_limit", "rejected", text, {"kind": "rate_limit", "message": text})
    judge(good, "anthropic")
    assert good.verdict == "ok" and good.provider_sentence_on_wire is True
    wrong_kind = _row("rate_limit", "rejected", text, {"kind": "quota", "message": text})
    judge(wrong_kind, "anthropic")
    assert wrong_kind.verdict == "kind quota, expected rate_limit"
    lost = _row("rate_limit", "rejected", text, {"kind": "rate_limit", "message": "Internal"})
    judge(lost, "anthropic")
    assert "not in the card" in lost.verdict


def test_lost_sentence_may_say_less_never_else() -> None:
    text = "exceeded retry limit, last status: 429 Too Many Requests"
    for kind in ("quota", "rate_limit", "unknown"):
        row = _row("quota", "rejected", text, {"kind": kind, "message": text})
        judge(row, "openai-responses")
        assert row.verdict == "ok", kind
    row = _row("quota", "rejected", text, {"kind": "auth", "message": text})
    judge(row, "openai-responses")
    assert row.verdict != "ok"


def test_dropped_needs_the_no_reply_card() -> None:
    row = _row("auth", "dropped", "", {"kind": "unknown", "message": NO_REPLY})
    judge(row, "openai-chat")
    assert row.verdict == "ok"
    silent = _row("auth", "dropped", "", None)
    judge(silent, "openai-chat")
    assert silent.verdict == "no card for a failed turn"
    vague = _row("auth", "dropped", "", {"kind": "unknown", "message": "something"})
    judge(vague, "openai-chat")
    assert "without a reply" in vague.verdict


def test_error_as_answer_without_card_is_wrong() -> None:
    text = "HTTP 401: Incorrect API key provided: sk-lab-***"
    row = _row("auth", "answered", text, None)
    judge(row, "openai-chat")
    assert row.verdict == "no card for a failed turn"


def test_refusal_shown_as_answer_needs_no_card() -> None:
    row = _row("refusal", "answered", simulator.REFUSAL_TEXT, None)
    judge(row, "openai-chat")
    assert row.verdict == "ok"


def test_recovered_fallback_posts_nothing() -> None:
    answer = simulator.ANSWER_TEXT
    ok = _row("overloaded", "answered", answer, None, fallback=True)
    judge(ok, "openai-chat")
    assert ok.verdict == "ok"
    posted = _row("overloaded", "answered", answer, {"kind": "provider_unavailable"}, fallback=True)
    judge(posted, "openai-chat")
    assert "for a turn that was answered" in posted.verdict
    retracted = _row(
        "overloaded", "answered", answer, {"kind": "provider_unavailable"}, fallback=True
    )
    retracted.retracted = True
    judge(retracted, "openai-chat")
    assert retracted.verdict == "ok"
    dropped = _row("overloaded", "dropped", "", None, fallback=True)
    judge(dropped, "openai-chat")
    assert "did not answer" in dropped.verdict
