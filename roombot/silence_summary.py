"""The notice that sums up a silence when it ends: what it held back, and when. Pure.

The silence's matchers and reason were typed by a member and are shown as foreign
text (every hidden character made visible, escaped in the HTML); the notice mentions
nobody, so nothing it repeats can ping the room.
"""

from __future__ import annotations

import time
from typing import Any

from cards.html import escape
from cards.text import cut_shown, shown
from roombot.room import Summary

HTML_FORMAT = "org.matrix.custom.html"


def _hhmm(seconds: float) -> str:
    return time.strftime("%H:%M", time.gmtime(seconds))


def _day(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(seconds))


def _span(first: float, last: float) -> str:
    same_day = time.gmtime(first)[:3] == time.gmtime(last)[:3]
    return (
        f"{_hhmm(first)} to {_hhmm(last)} UTC" if same_day else f"{_day(first)} to {_day(last)} UTC"
    )


def held_text(summary: Summary) -> str:
    """`37 quota failures from openai, 2 timeout failures, 12:00 to 14:00 UTC`."""
    if not summary.held:
        return "nothing was held back"
    parts = []
    for kind, provider, n in summary.held:
        what = f"{n} {kind} failure{'s' if n != 1 else ''}"
        parts.append(f"{what} from {shown(provider)}" if provider else what)
    assert summary.first is not None and summary.last is not None
    return ", ".join(parts) + ", " + _span(summary.first, summary.last)


def summary_content(summary: Summary) -> dict[str, Any]:
    s = summary.silence
    how = (
        f"lifted by {shown(s.lifted_by or 'a member')}"
        if s.lifted is not None and s.lifted < s.ends
        else "ended"
    )
    head = f"Silence {s.id} ({shown(s.describe())}) {how}"
    held = held_text(summary)
    reason = f" Reason: {cut_shown(shown(s.reason), 200)}" if s.reason else ""
    plain = f"{head}. While silenced: {held}.{reason}"
    html = f"<p><b>{escape(head)}</b></p><p>While silenced: {escape(held)}.</p>" + (
        f"<p>Reason: {escape(cut_shown(shown(s.reason), 200))}</p>" if s.reason else ""
    )
    return {
        "msgtype": "m.notice",
        "body": plain,
        "format": HTML_FORMAT,
        "formatted_body": html,
        "m.mentions": {},
    }
