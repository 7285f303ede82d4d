"""Who is posting, and whether they may: bearer tokens and per-source token buckets.

Pure: no I/O, the clock is passed in.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field

from roombot.api.settings import SourceSettings


def _digest(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


class Tokens:
    """Finds the source whose token matches, comparing every token in constant time."""

    def __init__(self, sources: Iterable[SourceSettings]) -> None:
        # Digests, so that every comparison is of 32 bytes: compare_digest's time then
        # tells nothing about a token's length either.
        self._sources = tuple((_digest(s.token.encode()), s) for s in sources)

    def source_for(self, header: str | None) -> SourceSettings | None:
        """The source named by an `Authorization: Bearer ...` header value, else None."""
        if header is None:
            return None
        scheme, _, presented = header.partition(" ")
        if scheme.lower() != "bearer" or not presented.strip():
            return None
        given = _digest(presented.strip().encode("utf-8", "replace"))
        found = None
        # Compare against every token, without stopping early, so the time taken does not
        # tell which source (if any) a guess came close to.
        for token, source in self._sources:
            if hmac.compare_digest(token, given):
                found = source
        return found


@dataclass(slots=True)
class Bucket:
    """A token bucket that may go into debt.

    A request is let through while the bucket holds at least one token, then pays one
    token per event. A batch larger than the bucket therefore still gets through once the
    bucket is full, and the debt it leaves holds the source back until the sustained rate
    is met again; a limit per event, not per request, is what keeps the journal's load
    bounded.
    """

    rate: float  # tokens per second
    burst: float  # capacity
    tokens: float = field(init=False)
    stamp: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst  # a new source starts with a full bucket

    def _refill(self, now: float) -> None:
        elapsed = 0.0 if self.stamp is None else max(0.0, now - self.stamp)
        self.tokens = min(self.burst, self.tokens + elapsed * self.rate)
        self.stamp = now

    def admit(self, now: float) -> float:
        """0.0 when a request may go ahead now, else the seconds to wait before retrying."""
        self._refill(now)
        if self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.rate

    def charge(self, events: int, now: float) -> None:
        self._refill(now)
        self.tokens -= events


class RateLimits:
    def __init__(self, sources: Iterable[SourceSettings]) -> None:
        self._buckets = {s.name: Bucket(s.rate, s.burst) for s in sources}

    def admit(self, source: SourceSettings, now: float) -> float:
        return self._buckets[source.name].admit(now)

    def charge(self, source: SourceSettings, events: int, now: float) -> None:
        self._buckets[source.name].charge(events, now)
