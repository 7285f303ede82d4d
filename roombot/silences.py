"""Silences: what a silence is, what it matches, and how long it lasts. Pure values.

A silence is set from the room (`!roombot silence kind=quota provider=openai 2h why`),
kept durably by `roombot.silence_store`, and read by the room stage (`roombot.room`),
which posts nothing for a failure a silence matches, counts it, and posts one summary
notice when the silence ends or is lifted. Times are seconds of the pipeline's clock.

Matching (docs/room.md): every matcher must hold; a value is compared case-insensitively
and may use shell wildcards (`model=gpt-5*`); a field the failure does not know (no
provider, no node) never matches.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Final

from cards.kinds import Kind
from cards.shape import TurnError

FIELDS: Final = ("kind", "provider", "harness", "model", "node")
MAX_MATCHERS: Final = len(FIELDS)
MAX_VALUE: Final = 128  # characters of one matcher's value
MAX_REASON: Final = 200  # characters of a silence's reason
MIN_DURATION: Final = 60.0
MAX_DURATION: Final = 30 * 86400.0
VALUE: Final = re.compile(r"[A-Za-z0-9_.:/@*?\-]{1,128}")
_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION: Final = re.compile(r"(?:(\d{1,6})([smhdw]))+")
_PART: Final = re.compile(r"(\d{1,6})([smhdw])")


class SilenceError(ValueError):
    """A silence that cannot be: the message says what is wrong, for the member's answer."""


@dataclass(frozen=True, slots=True)
class Silence:
    id: str
    rooms: frozenset[str]  # the room's id and every configured name of it
    matchers: tuple[tuple[str, str], ...]  # (field, value), sorted, each field once
    starts: float
    ends: float
    reason: str = ""
    by: str = ""  # the member who set it
    lifted: float | None = None  # when it was lifted before its end
    lifted_by: str | None = None

    @property
    def until(self) -> float:
        """When it stops holding failures back: its end, or when it was lifted."""
        return self.ends if self.lifted is None else min(self.ends, self.lifted)

    def active(self, now: float) -> bool:
        return self.starts <= now < self.until

    def matches(self, room: str, error: TurnError) -> bool:
        if room not in self.rooms:
            return False
        facts = facts_of(error)
        for name, pattern in self.matchers:
            value = facts.get(name)
            if value is None or not fnmatchcase(value.casefold(), pattern.casefold()):
                return False
        return True

    def describe(self) -> str:
        """The matchers as typed: `kind=quota provider=openai`."""
        return " ".join(f"{k}={v}" for k, v in self.matchers) or "everything"


def facts_of(error: TurnError) -> Mapping[str, str | None]:
    """What a silence can match of a failure."""
    return {
        "kind": str(error.kind),
        "provider": error.provider,
        "harness": error.harness,
        "model": error.model,
        "node": error.node,
    }


def parse_matchers(words: Collection[str]) -> tuple[tuple[str, str], ...]:
    """`field=value` words -> sorted matchers; SilenceError says which word is wrong."""
    found: dict[str, str] = {}
    for word in words:
        name, eq, value = word.partition("=")
        if not eq:
            raise SilenceError(f"{word[:40]!r} is not field=value")
        if name not in FIELDS:
            raise SilenceError(f"{name[:40]!r} is not one of {', '.join(FIELDS)}")
        if name in found:
            raise SilenceError(f"{name} is given twice")
        if not VALUE.fullmatch(value):
            raise SilenceError(
                f"the value of {name} must be 1-{MAX_VALUE} letters, digits or '_.:/@-*?'"
            )
        if name == "kind" and not any(fnmatchcase(k.value, value.lower()) for k in Kind):
            raise SilenceError(f"{value[:40]!r} is no kind (kinds: {', '.join(Kind)})")
        found[name] = value
    if not found:
        raise SilenceError("a silence needs at least one matcher, e.g. kind=quota")
    return tuple(sorted(found.items()))


def parse_duration(text: str) -> float:
    """`90m`, `2h`, `1h30m`, `3d` -> seconds, between MIN_DURATION and MAX_DURATION."""
    if not _DURATION.fullmatch(text):
        raise SilenceError(f"{text[:40]!r} is not a duration like 30m, 2h or 1d12h")
    seconds = float(sum(int(n) * _UNITS[u] for n, u in _PART.findall(text)))
    if not math.isfinite(seconds) or not MIN_DURATION <= seconds <= MAX_DURATION:
        raise SilenceError("a silence lasts from 1m to 30d")
    return seconds


def is_duration(text: str) -> bool:
    return _DURATION.fullmatch(text) is not None
