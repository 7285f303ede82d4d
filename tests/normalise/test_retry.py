"""Retry-after from headers, body durations and the provider's sentence."""

from __future__ import annotations

import pytest

from roombot.normalise import retry


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("37s", 37),
        ("37.927757433s", 38),
        ("1m30s", 90),
        ("6m0s", 360),
        ("120ms", 1),
        ("2h", 7200),
        ("1h2m3s", 3723),
        ("6", 6),
        ("0", 0),
        ("", None),
        ("soon", None),
        ("-5", None),
    ],
)
def test_duration(text: str, seconds: int | None) -> None:
    assert retry.duration(text) == seconds


@pytest.mark.parametrize(
    ("message", "seconds"),
    [
        ("Please try again in 20s. Visit https://platform.openai.com/account/rate-limits", 20),
        ("Please try again in 1m30s.", 90),
        ("Please try again in 6.5s.", 7),
        ("Please try again in 745ms.", 1),
        ("Please retry after 6 seconds.", 6),
        ("Please retry in 37.927757433s.", 38),
        ("Limit 30000, Used 29840, Requested 1203.", None),
        ("Try again in 20h 54m", 72000),
        ("The model returned 429 for 3 seconds", None),
    ],
)
def test_from_message(message: str, seconds: int | None) -> None:
    assert retry.from_message(message) == seconds


def test_headers_prefer_retry_after_then_ms_then_spent_window() -> None:
    assert retry.from_headers({"retry-after": "12", "retry-after-ms": "500"}) == 12
    assert retry.from_headers({"retry-after-ms": "1500"}) == 2
    # A reset header counts only for the window that is empty.
    spent = {
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-tokens": "6m0s",
        "x-ratelimit-remaining-requests": "499",
        "x-ratelimit-reset-requests": "120ms",
    }
    assert retry.from_headers(spent) == 360
    assert retry.from_headers({"x-ratelimit-reset-tokens": "6m0s"}) is None
    # An HTTP date needs a clock, which a normaliser does not have.
    assert retry.from_headers({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
