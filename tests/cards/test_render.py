"""The renderers: every form shows the facts, escapes provider text, and stays in its subset."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings

from cards.html import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, prose, sanitize
from cards.kinds import Kind
from cards.render import (
    CARD_CSS,
    KIND_COLOURS,
    RECOVERED_COLOURS,
    render_html_fragment,
    render_html_page,
    render_matrix_html,
    render_plain,
)
from cards.shape import Attempt, TurnError
from cards.text import shown
from tests.cards.htmlcheck import check_matrix_html, check_page, flat
from tests.cards.strategies import turn_errors

FAST = settings(max_examples=120, deadline=None)

HOSTILE = (
    '<script>alert("x")</script><img src=x onerror=alert(1)>'
    '<a href="javascript:alert(1)">click</a> &amp; &lt;b&gt; <!-- c --> ]]> '
    "https://evil.example/?q=<x> javascript:alert(2)"
)

CHAIN = TurnError(
    kind=Kind.RATE_LIMIT,
    message="per-minute rate limit",
    harness="openclaw",
    provider="anthropic",
    model="claude-opus-4-1",
    retry_after=41,
    attempts=(
        Attempt(Kind.RATE_LIMIT, "per-minute rate limit", "anthropic", "claude-opus-4-1", 429, 41),
        Attempt(Kind.PROVIDER_UNAVAILABLE, "Overloaded", "anthropic", "claude-sonnet-4-5", 529),
        Attempt(Kind.QUOTA, "You exceeded your current quota", "openai", "gpt-5", 429),
    ),
)


def test_the_allowlist_is_the_specs() -> None:
    # The Matrix spec's list for formatted_body (client-server API, m.room.message).
    spec = (
        "del h1 h2 h3 h4 h5 h6 blockquote p a ul ol sup sub li b i u strong em s code hr br "
        "div table thead tbody tr th td caption pre span img details summary"
    )
    assert set(spec.split()) == ALLOWED_TAGS
    assert set(ALLOWED_ATTRIBUTES) <= ALLOWED_TAGS


def test_plain_shows_the_facts() -> None:
    text = render_plain(CHAIN)
    lines = text.split("\n")
    assert Kind.RATE_LIMIT.label in lines[0] and "openclaw" in lines[0]
    assert "anthropic / claude-opus-4-1" in lines[0]
    assert "per-minute rate limit" in text
    assert "41 s" in text
    for provider, model in (("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5")):
        assert f"{provider} / {model}" in text
    assert "HTTP 529" in text and Kind.QUOTA.label in text


def test_single_attempt_is_not_listed_again() -> None:
    err = dataclasses.replace(CHAIN, attempts=CHAIN.attempts[:1])
    assert "Attempts" not in render_plain(err)
    assert "<ol>" not in render_matrix_html(err)


def test_matrix_html_lists_attempts_one_item_each_not_a_table() -> None:
    html = render_matrix_html(CHAIN)
    parsed = check_matrix_html(html)
    assert "table" not in parsed.tags and "td" not in parsed.tags
    assert parsed.tags.count("ol") == 1 and parsed.tags.count("li") == len(CHAIN.attempts)
    items = html.split("<li>")[1:]
    for item, a in zip(items, CHAIN.attempts, strict=True):
        text = flat(check_matrix_html("<li>" + item.split("</li>")[0] + "</li>").data)
        # provider / model, kind, status, retry-after, then the sentence, in that order
        facts = [f"{a.provider} / {a.model}", a.kind.label, f"HTTP {a.status}"]
        if a.retry_after is not None:
            facts.append(f"retry after {a.retry_after} s")
        facts.append(a.message)
        at = [text.index(f) for f in facts]
        assert at == sorted(at), (text, facts)


def test_every_kind_has_its_own_colour() -> None:
    assert set(KIND_COLOURS) == set(Kind)
    assert len({light for light, _ in KIND_COLOURS.values()}) == len(Kind)
    for kind in Kind:
        assert f".kind-{kind.value}{{" in CARD_CSS
    assert "prefers-color-scheme:dark" in CARD_CSS


def _contrast(hex_a: str, hex_b: str) -> float:
    def lum(h: str) -> float:
        rgb = [int(h[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(hex_a), lum(hex_b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_kind_colours_are_readable_on_both_schemes() -> None:
    # WCAG AA for normal text, 4.5:1: each accent on its scheme's page and card panel,
    # and white on the light accent (the Matrix HTML badge, whatever the client's theme).
    for light, dark in [*KIND_COLOURS.values(), RECOVERED_COLOURS]:
        for background in ("#ffffff", "#f4f4f4"):
            assert _contrast(light, background) >= 4.5, (light, background)
        for background in ("#161616", "#262626"):
            assert _contrast(dark, background) >= 4.5, (dark, background)


def test_hostile_message_is_escaped_in_every_form() -> None:
    err = dataclasses.replace(
        CHAIN,
        message=HOSTILE,
        provider="<b>prov</b>",
        model='"><script>x</script>',
        attempts=tuple(dataclasses.replace(a, message=HOSTILE) for a in CHAIN.attempts),
    )
    matrix = check_matrix_html(render_matrix_html(err))
    assert HOSTILE in matrix.data
    assert "<b>prov</b>" in matrix.data and '"><script>x</script>' in matrix.data
    assert "a" not in matrix.tags and "img" not in matrix.tags and "b" not in matrix.tags
    page = check_page(render_html_page([err]))
    assert HOSTILE in page.data
    assert "a" not in page.tags and "script" not in page.tags
    fragment = check_page(render_html_fragment(err))
    assert HOSTILE in fragment.data


def test_long_message_is_folded() -> None:
    long = "\n".join(f"line {i}: <frame {i}>" for i in range(200))
    parsed = check_matrix_html(render_matrix_html(dataclasses.replace(CHAIN, message=long)))
    assert "details" in parsed.tags and "summary" in parsed.tags
    assert long in parsed.data  # whole, inside <pre>


def test_control_characters_are_shown_not_obeyed() -> None:
    message = "red \x1b[31mALERT\x1b[0m nul\x00 bell\x07 crlf\r\nnext \u202eevil"
    err = dataclasses.replace(CHAIN, message=message, provider="anth\u202eropic")
    for out in (render_plain(err), render_matrix_html(err), render_html_fragment(err)):
        assert "\x1b" not in out and "\x00" not in out and "\x07" not in out and "\r" not in out
        assert "\u241b[31mALERT" in out  # ␛ is visible
        assert "anth\u202eropic" not in out  # a name carries no bidi override
    assert "\r" not in shown("a\rb\r\nc") and shown("a\rb\r\nc") == "a\nb\nc"


def test_recovered_card_says_recovered() -> None:
    err = dataclasses.replace(CHAIN, recovered=True)
    assert render_plain(err).startswith("✅ Recovered")
    assert "Recovered" in check_matrix_html(render_matrix_html(err)).data
    fragment = render_html_fragment(err)
    assert "recovered" in fragment and "Recovered" in check_page(fragment).data


def test_truncated_message_says_where_the_rest_is() -> None:
    err = dataclasses.replace(
        CHAIN, message_truncated=True, message_file="mxc://example.org/abc", turn="t/../42"
    )
    for out in (render_plain(err), check_matrix_html(render_matrix_html(err)).data):
        # The file event a reply to the card, by name; no URI a client would not open.
        assert "the whole text is in the file roombot-t-..-42.txt, sent as a reply" in out
        assert "mxc://" not in out and "shortened" in out


def test_prose_has_raw_html_off_and_safe_links() -> None:
    html = prose("**bold** <script>x</script> [a](javascript:alert(1)) [b](https://ok.example)")
    parsed = check_matrix_html(html)
    assert "<script>x</script>" in parsed.data
    assert "script" not in parsed.tags
    assert [v for t, k, v in parsed.attrs if k == "href"] == ["https://ok.example"]


def test_sanitize_reduces_to_the_subset() -> None:
    dirty = (
        '<div onclick="x" style="color:red"><script>alert(1)</script>'
        '<a href="javascript:x">j</a><a href="ftp://x">f</a><a href="https://ok">ok</a>'
        '<img src="https://tracker/p.png"><img src="mxc://a/b" alt="i">'
        '<span data-mx-color="#fff" class="x">s</span><code class="language-py x">c</code>'
        "<iframe src=x></iframe><style>body{}</style><!-- c --></div>"
    )
    parsed = check_matrix_html(sanitize(dirty))
    assert "alert(1)" not in parsed.data
    assert ("a", "href", "https://ok") in parsed.attrs
    assert ("img", "src", "mxc://a/b") in parsed.attrs
    assert ("span", "data-mx-color", "#fff") in parsed.attrs


@FAST
@given(turn_errors)
def test_any_card_renders_inside_the_subset_with_its_words_intact(err: TurnError) -> None:
    matrix = check_matrix_html(render_matrix_html(err))
    assert flat(shown(err.message)) in flat(matrix.data)
    page = check_page(render_html_page([err]))
    assert flat(shown(err.message)) in flat(page.data)
    plain = render_plain(err)
    assert shown(err.message) in plain
    assert err.kind.label in plain
