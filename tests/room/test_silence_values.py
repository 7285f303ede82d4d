"""Silence values: matchers, durations, and what a silence holds back."""

from __future__ import annotations

import pytest

from cards import Kind, TurnError
from roombot.silences import Silence, SilenceError, parse_duration, parse_matchers


def _err(**kw: object) -> TurnError:
    base: dict[str, object] = {"kind": Kind.QUOTA, "message": "m", "harness": "codex"}
    base.update(kw)
    return TurnError(**base)  # type: ignore[arg-type]


def test_durations_add_up_and_are_bounded() -> None:
    assert parse_duration("2h") == 7200
    assert parse_duration("1h30m") == 5400
    for bad in ("", "2", "h", "30s", "31d", "2x", "1h 30m", "-1h"):
        with pytest.raises(SilenceError):
            parse_duration(bad)


def test_matchers_are_checked_and_sorted() -> None:
    assert parse_matchers(["provider=openai", "kind=quota"]) == (
        ("kind", "quota"),
        ("provider", "openai"),
    )
    for bad in (["kind=nope"], ["colour=red"], ["provider"], [], ["model=a", "model=b"]):
        with pytest.raises(SilenceError):
            parse_matchers(bad)
    with pytest.raises(SilenceError):
        parse_matchers(["provider=<b>x</b>"])


def test_a_silence_matches_every_matcher_in_its_rooms_only_while_active() -> None:
    s = Silence(
        id="s1",
        rooms=frozenset({"!r:x", "#ops:x"}),
        matchers=parse_matchers(["kind=quota", "model=GPT-5*"]),
        starts=100.0,
        ends=200.0,
    )
    assert s.matches("#ops:x", _err(model="gpt-5.1"))
    assert not s.matches("!other:x", _err(model="gpt-5.1"))
    assert not s.matches("!r:x", _err(model="o3"))
    assert not s.matches("!r:x", _err())  # no model: never matches model=...
    assert not s.matches("!r:x", _err(kind=Kind.AUTH, model="gpt-5"))
    assert s.active(100.0) and not s.active(200.0) and not s.active(99.0)
    lifted = Silence(**{**{f: getattr(s, f) for f in s.__slots__}, "lifted": 150.0})
    assert lifted.until == 150.0 and not lifted.active(160.0)
