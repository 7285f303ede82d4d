"""The notice's content: prose (`body`), Matrix HTML (`formatted_body`) and the card,
kept under a size budget so the event still fits once encrypted.

Matrix caps an event at 65,536 bytes with signatures; encryption grows the
content by about a third (base64), and a 40 KB plaintext passed encrypted
where 50 KB did not. CONTENT_BUDGET leaves room for that and for the
envelope. Nothing is cut silently: previews carry a visible marker, and when
even the card cannot hold the message whole, `Notice.full_message` hands the
whole text back for the bot to attach as a file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from cards.attachment import NAME_CHARS as FILE_NAME_CHARS
from cards.attachment import file_content, file_name
from cards.codec import CARD_KEY, sendable, to_payload
from cards.html import escape
from cards.render import render_matrix_html, render_plain
from cards.shape import Group, TurnError

# Bytes of serialized content (json.dumps, ASCII-escaped: the larger of the
# two encodings) that a notice may take.
CONTENT_BUDGET: Final = 30_000
# The prose previews start at this many characters and halve until they fit.
PREVIEW_CHARS: Final = 4_000
MIN_PREVIEW_CHARS: Final = 64
# The last resort for absurd input: names cut to this many characters, and this many attempts.
NAME_CHARS: Final = 200
MIN_NAME_CHARS: Final = 12
MAX_LISTED_ATTEMPTS: Final = 20
HTML_FORMAT: Final = "org.matrix.custom.html"
# The whole text's m.file event (cards.attachment), built here beside the card.
__all__ = ["Notice", "build_edit", "build_notice", "content_size", "file_content", "file_name"]


@dataclass(frozen=True, slots=True)
class Notice:
    """What the bot sends, and the whole text when the content could not hold it."""

    content: dict[str, Any]
    full_message: str | None = None


def content_size(content: dict[str, Any]) -> int:
    return len(json.dumps(content).encode())


def _preview(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    rest = len(text) - chars
    return f"{text[:chars]}… [{rest:,} more characters not shown here]"


def _mentions(user_ids: Sequence[str]) -> tuple[str, str, dict[str, Any]]:
    """Plain prefix, HTML pills and the m.mentions value (always present)."""
    if not user_ids:
        return "", "", {}
    plain = " ".join(user_ids) + ": "
    pills = " ".join(
        f'<a href="https://matrix.to/#/{escape(quote(u, safe="@:"))}">{escape(u)}</a>'
        for u in user_ids
    )
    return plain, f"<p>{pills}</p>", {"user_ids": list(user_ids)}


def _content(
    err: TurnError,
    shown: TurnError,
    msgtype: str,
    mentions: Sequence[str],
) -> dict[str, Any]:
    """`shown` is what the prose shows (maybe shortened); `err` is what the card holds."""
    plain_prefix, html_prefix, m_mentions = _mentions(mentions)
    return {
        "msgtype": msgtype,
        "body": plain_prefix + render_plain(shown),
        "format": HTML_FORMAT,
        "formatted_body": html_prefix + render_matrix_html(shown),
        CARD_KEY: to_payload(err),
        "m.mentions": m_mentions,
    }


def _shorten(err: TurnError, chars: int) -> TurnError:
    attempts = tuple(
        dataclasses.replace(a, message=_preview(a.message, chars)) for a in err.attempts
    )
    return dataclasses.replace(err, message=_preview(err.message, chars), attempts=attempts)


def _full_text(err: TurnError, *, every_attempt: bool = False) -> str:
    """The whole message, then each attempt's whole message that differs from it
    (or every attempt, with its names, when the card could not list them all)."""
    sections = [err.message]
    if every_attempt:
        names = ", ".join(
            f"{name}: {value}"
            for name in ("harness", "provider", "model", "turn", "session", "node")
            if (value := getattr(err, name))
        )
        sections.append(f"\n\n--- the turn ---\n{names}")
        if err.note:
            sections.append(f"\n{err.note}")
        if err.group is not None:
            sections.append(_group_text(err.group))
    for i, a in enumerate(err.attempts, 1):
        if every_attempt or a.message != err.message:
            where = " / ".join(p for p in (a.provider, a.model) if p) or "provider not known"
            status = f", HTTP {a.status}" if a.status is not None else ""
            head = f"--- attempt {i} ({where}, {a.kind.value}{status}) ---"
            sections.append(f"\n\n{head}\n{a.message}")
    return "".join(sections)


def _cut(text: str | None, chars: int = NAME_CHARS) -> str | None:
    if text is None or len(text) <= chars:
        return text
    return f"{text[:chars]}… [{len(text) - chars:,} more characters]"


def _group_text(g: Group) -> str:
    """The group's lists whole, for the attached text when the card lists only some."""
    key = ", ".join(f"{name}: {value}" for name, value in g.key)
    lists = "".join(
        f"\n{name}: {', '.join(values)}"
        for name, values in (("models", g.models), ("harnesses", g.harnesses), ("turns", g.turns))
    )
    return f"\n\n--- the group ({g.count:,} failed turns) ---\nkey: {key}{lists}"


def _cut_names(names: tuple[str, ...], chars: int, listed: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_cut(n, chars) or "" for n in names[:listed]))


def _squeeze_group(g: Group, chars: int, listed: int) -> tuple[Group, list[str]]:
    """The group with its strings cut to `chars` and each list to its first `listed`,
    and what was left out, to be said aloud."""
    short = dataclasses.replace(
        g,
        key=tuple((_cut(k, chars) or "", _cut(v, chars) or "") for k, v in g.key),
        models=_cut_names(g.models, chars, listed),
        harnesses=_cut_names(g.harnesses, chars, listed),
        turns=_cut_names(g.turns, chars, listed),
    )
    said = [
        f"{len(whole) - len(part):,} more {name}"
        for name, whole, part in (
            ("models", g.models, short.models),
            ("harnesses", g.harnesses, short.harnesses),
            ("turn ids", g.turns, short.turns),
        )
        if len(whole) > len(part)
    ]
    return short, said


def _squeeze(err: TurnError, chars: int, listed: int) -> TurnError:
    """Names cut to `chars` and the attempt list (and the group's lists) to its first
    `listed`, each cut said aloud."""
    attempts = tuple(
        dataclasses.replace(a, provider=_cut(a.provider, chars), model=_cut(a.model, chars))
        for a in err.attempts[:listed]
    )
    hidden = len(err.attempts) - len(attempts)
    note = _cut(err.note, chars)
    said = [f"{hidden:,} more attempts"] if hidden else []
    group = err.group
    if group is not None:
        group, left_out = _squeeze_group(group, chars, listed)
        said.extend(left_out)
    if said:
        told = f"{', '.join(said)} are listed only in the whole text."
        note = f"{note} {told}" if note else told
    return dataclasses.replace(
        err,
        harness=_cut(err.harness, chars) or "",
        provider=_cut(err.provider, chars),
        model=_cut(err.model, chars),
        # The turn names the whole text's file: kept long enough that the card's prose
        # and the file event (named from the whole turn id) give the same name.
        turn=_cut(err.turn, max(chars, FILE_NAME_CHARS)),
        session=_cut(err.session, chars),
        node=_cut(err.node, chars),
        # A real mxc:// URI is far shorter than any cut; a longer one is not one.
        message_file=_cut(err.message_file, chars),
        note=note,
        attempts=attempts,
        group=group,
    )


def build_notice(
    err: TurnError,
    *,
    msgtype: str = "m.notice",
    mentions: Sequence[str] = (),
    budget: int = CONTENT_BUDGET,
) -> Notice:
    """The notice content for a failed turn, under `budget` bytes serialized."""
    err = sendable(err)  # the prose shows what the card can hold
    # Sizes of the card alone tell which steps can succeed, so a 5 MB message
    # is never rendered whole only to be thrown away.
    card_size = content_size({CARD_KEY: to_payload(err)})
    # 1. Everything whole.
    if card_size * 3 <= budget:
        content = _content(err, err, msgtype, mentions)
        if content_size(content) <= budget:
            return Notice(content)
    # 2. The card keeps the message whole; the prose shows previews.
    chars = PREVIEW_CHARS
    while chars >= MIN_PREVIEW_CHARS and card_size < budget:
        content = _content(err, _shorten(err, chars), msgtype, mentions)
        if content_size(content) <= budget:
            return Notice(content)
        chars //= 2
    # 3. Even the card cannot hold it: the card holds a preview too, says so,
    #    and the whole text goes back to the caller to travel as a file.
    marked = dataclasses.replace(err, message_truncated=True)
    chars = PREVIEW_CHARS
    while True:
        short = _shorten(marked, chars)
        content = _content(short, short, msgtype, mentions)
        if content_size(content) <= budget or chars < MIN_PREVIEW_CHARS:
            break
        chars //= 2
    if content_size(content) > budget:
        # 4. The names or the attempt list alone are too large (a hostile or broken
        #    source): shorten the names too and list only the first attempts; the
        #    attached text lists every attempt in full. Names and the list halve until
        #    they fit: an astral character costs 12 bytes escaped, in four places.
        chars, listed = NAME_CHARS, MAX_LISTED_ATTEMPTS
        while chars >= MIN_NAME_CHARS:
            short = _squeeze(_shorten(marked, MIN_PREVIEW_CHARS), chars, listed)
            content = _content(short, short, msgtype, mentions)
            if content_size(content) <= budget:
                return Notice(content, full_message=_full_text(err, every_attempt=True))
            chars, listed = chars // 2, max(1, listed // 2)
    if content_size(content) > budget:
        raise ValueError(
            f"a notice cannot fit in {budget} bytes even with every message shortened "
            f"(harness, provider or model names, or the attempt count, are too large)"
        )
    return Notice(content, full_message=_full_text(err))


def build_edit(
    original_event_id: str,
    err: TurnError,
    *,
    msgtype: str = "m.notice",
    mentions: Sequence[str] = (),
    budget: int = CONTENT_BUDGET,
) -> dict[str, Any]:
    """An m.replace edit of a posted notice. The card is repeated inside m.new_content,
    since an edit replaces the whole content; the outer fallback stays short."""
    # The outer fallback repeats the first line (cut to a name's length), so the new
    # content gets what the outer part leaves; a long first line takes more of it.
    reserve = 2_000
    while True:
        new = build_notice(err, msgtype=msgtype, mentions=mentions, budget=budget - reserve)
        first_line = _cut(new.content["body"].split("\n", 1)[0]) or ""
        edit = {
            "msgtype": msgtype,
            "body": f"* {first_line}",
            "format": HTML_FORMAT,
            "formatted_body": f"* {escape(first_line)}",
            "m.new_content": new.content,
            "m.relates_to": {"rel_type": "m.replace", "event_id": original_event_id},
            # Mentions in an edit's outer content would ping again; nobody new is mentioned.
            "m.mentions": {},
        }
        over = content_size(edit) - budget
        if over <= 0:
            return edit
        reserve += over
