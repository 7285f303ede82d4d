"""Retry-after in whole seconds, from headers, body fields or the provider's own sentence.

Pure: no clock. Forms that need one (an HTTP date in `retry-after`, the
RFC 3339 times of `anthropic-ratelimit-*-reset`) are not read: a card would
need the time of reading, which a normaliser does not have.
Fractions round up: "retry in 0.4s" means at least one second.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

# "1m30s", "6m0s", "20ms", "37.927s", "2h", "1h2m3.5s": Go durations, as OpenAI, Groq and
# Gemini's RetryInfo write them.
_DURATION = re.compile(
    r"(?:(?P<h>\d+(?:\.\d+)?)h)?(?:(?P<m>\d+(?:\.\d+)?)m(?!s))?"
    r"(?:(?P<s>\d+(?:\.\d+)?)s)?(?:(?P<ms>\d+(?:\.\d+)?)ms)?",
)

# A delay inside the provider's sentence. Anchored on the verb phrase each provider uses,
# so a number elsewhere in the message is never read as a delay.
_IN_MESSAGE = re.compile(
    r"(?:try again|retry|retrying|wait)(?: (?:in|after|for))? ?(?:about |approximately )?"
    r"(?P<num>\d+(?:\.\d+)?(?:h|ms|m|s)(?:\d+(?:\.\d+)?(?:ms|m|s))*"
    r"|\d+(?:\.\d+)? ?(?:seconds?|secs?|minutes?|mins?|hours?|milliseconds?))\b",
)
_UNIT_WORDS = re.compile(r"(?P<n>\d+(?:\.\d+)?) ?(?P<u>[a-z]+)", re.IGNORECASE)
_UNIT_SECONDS = {
    "second": 1.0,
    "seconds": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "minute": 60.0,
    "minutes": 60.0,
    "min": 60.0,
    "mins": 60.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "millisecond": 0.001,
    "milliseconds": 0.001,
}


def _whole(seconds: float) -> int | None:
    if not math.isfinite(seconds) or seconds < 0 or seconds > 10**9:
        return None
    return math.ceil(seconds)


def duration(text: str) -> int | None:
    """A Go-style duration ("37s", "1m30s", "120ms") or bare seconds ("6", "6.5") -> seconds."""
    text = text.strip()
    if not text:
        return None
    try:
        return _whole(float(text))
    except ValueError:
        pass
    m = _DURATION.fullmatch(text)
    if m is None or not any(m.groupdict().values()):
        return None
    total = 0.0
    for group, scale in (("h", 3600.0), ("m", 60.0), ("s", 1.0), ("ms", 0.001)):
        value = m.group(group)
        if value is not None:
            total += float(value) * scale
    return _whole(total)


def from_headers(headers: Mapping[str, str]) -> int | None:
    """retry-after (seconds), retry-after-ms, then the x-ratelimit reset of a spent dimension.

    `headers` has lower-case keys. An x-ratelimit-reset-* header says when a window
    refills, which is a delay only when that window is empty (remaining 0).
    """
    value = headers.get("retry-after")
    if value is not None:
        try:
            return _whole(float(value.strip()))
        except ValueError:
            pass  # an HTTP date: needs a clock, see the module docstring
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return _whole(float(value.strip()) / 1000.0)
        except ValueError:
            pass
    found: int | None = None
    for dim in ("requests", "tokens"):
        reset = headers.get("x-ratelimit-reset-" + dim)
        if reset is None or headers.get("x-ratelimit-remaining-" + dim, "").strip() != "0":
            continue
        seconds = duration(reset)
        if seconds is not None and (found is None or seconds > found):
            found = seconds
    return found


def from_message(message: str) -> int | None:
    """A delay written into the sentence: "Please try again in 20s", "retry after 6 seconds".

    Only the first 32 KiB and the last 8 KiB of a longer text are read (a hostile megabyte
    costs no more than that).
    """
    if len(message) > 40960:
        message = message[:32768] + "\n" + message[-8192:]
    low = message.lower()
    if "retr" not in low and "try again" not in low and "wait" not in low:
        return None  # the verb every form below needs: most texts have none
    m = _IN_MESSAGE.search(low)  # lower-cased: the units are matched as written below
    if m is None:
        return None
    num = m.group("num")
    words = _UNIT_WORDS.fullmatch(num)
    if words is not None and words.group("u").lower() in _UNIT_SECONDS:
        return _whole(float(words.group("n")) * _UNIT_SECONDS[words.group("u").lower()])
    return duration(num)
