"""The reference renderers: one TurnError -> plain text, Matrix HTML, or a standalone page.

All three read the same value and show the same facts: the kind, the harness,
the provider and model when known, the provider's own words, retry-after, and
every attempt when there were several. Provider text is always escaped and
never becomes a live link.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Final

from cards.attachment import file_line as whole_text_line
from cards.html import escape, prose, text_block
from cards.kinds import Kind
from cards.shape import Attempt, Group, TurnError
from cards.text import cut_shown, shown, shown_name

# A message longer than this (characters) or with more lines is folded in
# <details> in the Matrix HTML, so one card never floods the timeline.
FOLD_CHARS: Final = 600
FOLD_LINES: Final = 8

# One colour per kind: (accent on light, accent on dark). Each has >= 4.5:1 contrast
# against both backgrounds of its scheme (page and card panel: #ffffff/#f4f4f4 light,
# #161616/#262626 dark), and white text on the light accent is >= 4.5:1 too (the
# Matrix HTML badge, which cannot know the client's theme, draws white on it).
KIND_COLOURS: Final[dict[Kind, tuple[str, str]]] = {
    Kind.QUOTA: ("#8a3ffc", "#be95ff"),
    Kind.RATE_LIMIT: ("#a65400", "#ffb454"),
    Kind.AUTH: ("#c21e56", "#ff7eb6"),
    Kind.BAD_REQUEST: ("#8e5a00", "#f1c21b"),
    Kind.CONTEXT_EXHAUSTED: ("#005d5d", "#3ddbd9"),
    Kind.TIMEOUT: ("#0043ce", "#78a9ff"),
    Kind.PROVIDER_UNAVAILABLE: ("#da1e28", "#ff8389"),
    Kind.REFUSAL: ("#6929c4", "#d4bbff"),
    Kind.MAX_TOKENS: ("#007d79", "#08bdba"),
    Kind.CANCELLED: ("#525252", "#c6c6c6"),
    Kind.NODE_OFFLINE: ("#9f1853", "#ffafd2"),
    Kind.HARNESS_EXITED: ("#a2191f", "#ffb3b8"),
    Kind.UNKNOWN: ("#393939", "#e0e0e0"),
}
RECOVERED_COLOURS: Final = ("#198038", "#42be65")
# A group key's values are drawn in this order of their fields; any other field after
# these, in the key's own order.
KEY_ORDER: Final = ("kind", "provider", "harness", "model", "node")
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def _opt_name(text: str | None) -> str | None:
    return None if text is None else shown_name(text)


def _display(err: TurnError) -> TurnError:
    """The value as every form shows it: hidden characters visible, names on one line.
    The note stays as it is: the HTML forms render it as markdown first (which decodes
    entities and %-escapes), and show what that made."""
    attempts = tuple(
        dataclasses.replace(
            a, message=shown(a.message), provider=_opt_name(a.provider), model=_opt_name(a.model)
        )
        for a in err.attempts
    )
    return dataclasses.replace(
        err,
        message=shown(err.message),
        harness=shown_name(err.harness),
        provider=_opt_name(err.provider),
        model=_opt_name(err.model),
        message_file=_opt_name(err.message_file),
        attempts=attempts,
    )


def first_line(message: str, chars: int = FOLD_CHARS) -> str:
    """An attempt's message in a list: its first line, at most `chars`; "…" says more exists."""
    first = cut_shown(message.split("\n", 1)[0], chars)
    return first if first == message else f"{first} …"


def _where(provider: str | None, model: str | None) -> str:
    return " / ".join(p for p in (provider, model) if p)


def headline(err: TurnError) -> str:
    """One line: what failed, where. Shared by every form."""
    parts = [err.kind.label, err.harness]
    where = _where(err.provider, err.model)
    if where:
        parts.append(where)
    return " · ".join(parts)


def _shows_attempts(err: TurnError) -> bool:
    return len(err.attempts) > 1


def _attempt_line(i: int, a: Attempt) -> str:
    where = _where(a.provider, a.model) or "(provider not known)"
    status = f", HTTP {a.status}" if a.status is not None else ""
    retry = f", retry after {a.retry_after} s" if a.retry_after is not None else ""
    return f"{i}. {where}: {a.kind.label}{status}{retry}: {first_line(a.message)}"


def _file_line(err: TurnError) -> str | None:
    if not err.message_truncated:
        return None
    if err.message_file:
        return whole_text_line(err.turn)
    return "The message is shortened here; the whole text travels separately."


# -- the group part, shared by every form ----------------------------------------------


def _utc(ms: int) -> datetime | None:
    try:
        return _EPOCH + timedelta(milliseconds=ms)
    except OverflowError:  # beyond the year 9999: a clock gone wrong
        return None


def _clock(ms: int, beside: int) -> str:
    """`ms` as UTC HH:MM, with the date when `beside` falls on another day."""
    at, other = _utc(ms), _utc(beside)
    if at is None:
        return f"{ms:,} ms after the epoch"
    if other is None or at.date() != other.date():
        return f"{at:%Y-%m-%d %H:%M} UTC"
    return f"{at:%H:%M} UTC"


def _key_values(g: Group) -> list[str]:
    ranked = sorted(
        range(len(g.key)),
        key=lambda i: (
            KEY_ORDER.index(g.key[i][0]) if g.key[i][0] in KEY_ORDER else len(KEY_ORDER),
            i,
        ),
    )
    return [shown_name(g.key[i][1]) for i in ranked]


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def group_headline(g: Group) -> str:
    """The group card's first line: the count (or the recovery) and the key."""
    if g.recovered_at is None:
        head = _plural(g.count, "turn", "turns") + " failed"
    else:
        when = _clock(g.recovered_at, g.first_at)
        head = f"Recovered at {when} after {_plural(g.count, 'failure', 'failures')}"
    values = _key_values(g)
    return f"{head}: {', '.join(values)}" if values else head


def _since(g: Group) -> str:
    first = _clock(g.first_at, g.last_at)
    last = _clock(g.last_at, g.first_at)
    return f"Since {first}" if last == first else f"Since {first} (latest {last})"


def _thread_line(g: Group) -> str | None:
    if g.threaded <= 0:
        return None
    if g.threaded >= g.count:
        return "Each failed turn's own card is in this card's thread."
    return (
        f"{g.threaded:,} of the {g.count:,} failed turns have their own card in this card's thread."
    )


def _retracted_line(g: Group) -> str | None:
    if g.retracted <= 0:
        return None
    return f"{g.retracted:,} of them recovered later."


def _latest(err: TurnError) -> TurnError:
    """The group card's latest failure, drawn as any card is."""
    return dataclasses.replace(err, group=None)


# -- plain ---------------------------------------------------------------------------


def render_plain(err: TurnError) -> str:
    """The `body` fallback: readable alone in any client."""
    if err.group is not None:
        return _group_plain(err.group, _latest(err))
    err = _display(err)
    if err.recovered:
        lines = [f"✅ Recovered: {err.harness} answered after all (was: {headline(err)})"]
    else:
        lines = [f"⚠️ {headline(err)}"]
    lines.append(err.message)
    file_line = _file_line(err)
    if file_line:
        lines.append(file_line)
    if err.retry_after is not None:
        lines.append(f"Retry after {err.retry_after} s.")
    if _shows_attempts(err):
        lines.append(f"Attempts ({len(err.attempts)}):")
        lines.extend(_attempt_line(i, a) for i, a in enumerate(err.attempts, 1))
    if err.note:
        lines.append(shown(err.note))
    return "\n".join(lines)


def _group_plain(g: Group, latest: TurnError) -> str:
    mark = "⚠️" if g.recovered_at is None else "✅"
    facts = [_since(g)]
    if g.models:
        facts.append("models: " + ", ".join(map(shown_name, g.models)))
    if g.harnesses:
        facts.append("harnesses: " + ", ".join(map(shown_name, g.harnesses)))
    lines = [f"{mark} {group_headline(g)}", " · ".join(facts)]
    lines.extend(x for x in (_thread_line(g), _retracted_line(g)) if x)
    lines.append("latest:")
    lines.append(render_plain(latest))
    return "\n".join(lines)


# -- Matrix HTML ---------------------------------------------------------------------


def _message_html(message: str) -> str:
    if len(message) <= FOLD_CHARS and message.count("\n") < FOLD_LINES:
        return f"<blockquote>{text_block(message)}</blockquote>"
    first = message.split("\n", 1)[0]
    summary = first if len(first) <= 120 else cut_shown(first, 119) + "…"
    return (
        f"<details><summary>{escape(summary)}</summary>"
        f"<pre><code>{escape(message)}</code></pre></details>"
    )


def _attempts_list(attempts: Iterable[Attempt]) -> str:
    """The attempts as a numbered list, one item each: a narrow timeline wraps a line
    of words where a six-column table split them mid-word."""
    items = []
    for a in attempts:
        where = _where(a.provider, a.model) or "(provider not known)"
        facts = [f"<strong>{escape(where)}</strong>", escape(a.kind.label)]
        if a.status is not None:
            facts.append(f"HTTP {a.status}")
        if a.retry_after is not None:
            facts.append(f"retry after {a.retry_after} s")
        items.append(f"<li>{' · '.join(facts)}<br>{text_block(first_line(a.message))}</li>")
    return f"<p>Attempts ({len(items)}):</p><ol>{''.join(items)}</ol>"


def _attempts_table(attempts: Iterable[Attempt]) -> str:
    """The standalone page's form: its CSS gives the table the page's width."""
    rows = []
    for i, a in enumerate(attempts, 1):
        status = "" if a.status is None else str(a.status)
        retry = "" if a.retry_after is None else f"{a.retry_after} s"
        cells = [
            str(i),
            escape(a.provider or ""),
            escape(a.model or ""),
            escape(a.kind.label),
            status,
            retry,
            text_block(first_line(a.message)),
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = "".join(
        f"<th>{h}</th>"
        for h in ("#", "Provider", "Model", "Kind", "Status", "Retry after", "Message")
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _badge(light: str, title: str) -> str:
    # A badge: the client's theme is unknown (a dark accent vanishes on a dark
    # timeline), so both colours are given and white on the accent reads on either.
    return f'<span data-mx-bg-color="{light}" data-mx-color="#ffffff"> {escape(title)} </span>'


def _names_html(names: Iterable[str], tag: str = "code") -> str:
    return ", ".join(f"<{tag}>{escape(shown_name(n))}</{tag}>" for n in names)


def _group_matrix_html(g: Group, latest: TurnError) -> str:
    light, _ = RECOVERED_COLOURS if g.recovered_at is not None else KIND_COLOURS[latest.kind]
    facts = [escape(_since(g))]
    if g.models:
        facts.append("models: " + _names_html(g.models))
    if g.harnesses:
        facts.append("harnesses: " + _names_html(g.harnesses))
    parts = [f"<p><strong>{_badge(light, group_headline(g))}</strong></p>"]
    parts.append("<p>" + " · ".join(facts) + "</p>")
    parts.extend(f"<p><em>{escape(x)}</em></p>" for x in (_thread_line(g), _retracted_line(g)) if x)
    parts.append("<p><strong>latest:</strong></p>")
    parts.append(render_matrix_html(latest))
    return "".join(parts)


def render_matrix_html(err: TurnError) -> str:
    """The `formatted_body`: only tags and attributes that Matrix allows."""
    if err.group is not None:
        return _group_matrix_html(err.group, _latest(err))
    err = _display(err)
    light, _ = RECOVERED_COLOURS if err.recovered else KIND_COLOURS[err.kind]
    title = "Recovered" if err.recovered else err.kind.label
    head = [f"<strong>{_badge(light, title)}</strong>"]
    head.append(f"<code>{escape(err.harness)}</code>")
    where = _where(err.provider, err.model)
    if where:
        head.append(escape(where))
    parts = ["<p>" + " · ".join(head) + "</p>"]
    if err.recovered:
        parts.append(
            f"<p>{escape(err.harness)} answered after all; "
            f"this was reported as <em>{escape(err.kind.label)}</em>.</p>"
        )
    parts.append(_message_html(err.message))
    file_line = _file_line(err)
    if file_line:
        parts.append(f"<p><em>{escape(file_line)}</em></p>")
    if err.retry_after is not None:
        parts.append(f"<p>Retry after {err.retry_after} s.</p>")
    if _shows_attempts(err):
        parts.append(_attempts_list(err.attempts))
    if err.note:
        parts.append(shown(prose(err.note)))
    return "".join(parts)


# -- standalone HTML -----------------------------------------------------------------


def _css() -> str:
    light_rules = "".join(f".kind-{k.value}{{--accent:{c[0]}}}" for k, c in KIND_COLOURS.items())
    dark_rules = "".join(f".kind-{k.value}{{--accent:{c[1]}}}" for k, c in KIND_COLOURS.items())
    rec_light, rec_dark = RECOVERED_COLOURS
    return (
        ":root{color-scheme:light dark;--bg:#ffffff;--fg:#161616;--muted:#525252;"
        "--panel:#f4f4f4;--line:#c6c6c6}"
        "@media (prefers-color-scheme:dark){:root{--bg:#161616;--fg:#f4f4f4;"
        "--muted:#c6c6c6;--panel:#262626;--line:#525252}}"
        "body{background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,sans-serif;"
        "margin:2rem auto;max-width:60rem;padding:0 1rem}"
        ".roombot-card{border-left:6px solid var(--accent);background:var(--panel);"
        "border-radius:6px;padding:.75rem 1rem;margin:1rem 0}"
        ".roombot-card h3{margin:0 0 .25rem;color:var(--accent);font-size:1.05rem}"
        ".roombot-card .meta{color:var(--muted);margin:0 0 .5rem}"
        ".roombot-card pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;"
        "font:13px/1.45 ui-monospace,monospace;max-height:24rem;overflow:auto}"
        ".roombot-card table{border-collapse:collapse;width:100%;margin-top:.5rem}"
        ".roombot-card th,.roombot-card td{border-top:1px solid var(--line);"
        "text-align:left;padding:.2rem .4rem;vertical-align:top}"
        f"{light_rules}.roombot-card.recovered{{--accent:{rec_light}}}"
        f"@media (prefers-color-scheme:dark){{{dark_rules}"
        f".roombot-card.recovered{{--accent:{rec_dark}}}}}"
    )


CARD_CSS: Final = _css()


def render_html_fragment(err: TurnError) -> str:
    """One card as an <article> for web clients (styled by CARD_CSS)."""
    if err.group is not None:
        return _group_fragment(err.group, _latest(err))
    err = _display(err)
    classes = f"roombot-card kind-{err.kind.value}" + (" recovered" if err.recovered else "")
    return "".join(
        [f'<article class="{classes}" dir="auto">', *_fragment_parts(err, "h3"), "</article>"]
    )


def _group_fragment(g: Group, latest: TurnError) -> str:
    recovered = g.recovered_at is not None
    classes = f"roombot-card kind-{latest.kind.value} group" + (" recovered" if recovered else "")
    meta = [escape(_since(g))]
    if g.models:
        meta.append("models: " + _names_html(g.models, "bdi"))
    if g.harnesses:
        meta.append("harnesses: " + _names_html(g.harnesses, "bdi"))
    parts = [
        f'<article class="{classes}" dir="auto">',
        f"<h3>{escape(group_headline(g))}</h3>",
        f'<p class="meta">{" · ".join(meta)}</p>',
    ]
    parts.extend(f"<p><em>{escape(x)}</em></p>" for x in (_thread_line(g), _retracted_line(g)) if x)
    parts.append('<p class="meta">latest:</p>')
    parts.extend(_fragment_parts(_display(latest), "h4"))
    parts.append("</article>")
    return "".join(parts)


def _fragment_parts(err: TurnError, heading: str) -> list[str]:
    """An article's inside for a card without a group (`err` already as displayed)."""
    title = f"Recovered (was: {err.kind.label})" if err.recovered else err.kind.label
    # Each name in its own <bdi>: right-to-left letters in one name cannot then reorder
    # the separators and the other name (the Matrix subset has no such element).
    meta = [f"harness <code><bdi>{escape(err.harness)}</bdi></code>"]
    where = " / ".join(f"<bdi>{escape(p)}</bdi>" for p in (err.provider, err.model) if p)
    if where:
        meta.append(where)
    if err.retry_after is not None:
        meta.append(f"retry after {err.retry_after} s")
    parts = [
        f"<{heading}>{escape(title)}</{heading}>",
        f'<p class="meta">{" · ".join(meta)}</p>',
        f'<pre dir="auto">{escape(err.message)}</pre>',
    ]
    file_line = _file_line(err)
    if file_line:
        parts.append(f"<p><em>{escape(file_line)}</em></p>")
    if _shows_attempts(err):
        parts.append(_attempts_table(err.attempts))
    if err.note:
        parts.append(shown(prose(err.note)))
    return parts


def render_html_page(errors: Iterable[TurnError], title: str = "roombot cards") -> str:
    """A whole HTML document with its own CSS; works in light and dark."""
    body = "\n".join(render_html_fragment(e) for e in errors)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{CARD_CSS}</style></head>\n<body>\n<h1>{escape(title)}</h1>\n"
        f"{body}\n</body></html>\n"
    )
