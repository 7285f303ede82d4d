"""render_event, the reference client renderer: card first, else the event's own words, safely."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cards.codec import CARD_KEY, to_payload
from cards.event import render_event
from cards.kinds import Kind
from cards.notice import build_edit, build_notice
from cards.shape import TurnError
from tests.cards.htmlcheck import check_matrix_html
from tests.cards.strategies import card_like, json_values

FAST = settings(max_examples=150, deadline=None)
ERR = TurnError(
    Kind.QUOTA, "You exceeded your current quota <b>now</b>", "codex", "openai", "gpt-5"
)
HTML = "org.matrix.custom.html"


def test_a_valid_card_is_drawn_from_the_card() -> None:
    content = build_notice(ERR).content
    # The card wins over whatever prose travels beside it.
    content = {**content, "body": "lies", "formatted_body": "<b>lies</b>"}
    out = render_event(content)
    assert out.card == ERR and out.card_error is None
    parsed = check_matrix_html(out.html)
    assert "You exceeded your current quota <b>now</b>" in parsed.data
    assert "lies" not in out.plain and "lies" not in parsed.data


def test_an_edit_is_drawn_from_its_new_content() -> None:
    recovered = TurnError(**{**_fields(ERR), "recovered": True})
    edit = build_edit("$orig:example.org", recovered)
    assert edit["m.relates_to"] == {"rel_type": "m.replace", "event_id": "$orig:example.org"}
    assert edit["m.new_content"][CARD_KEY] == to_payload(recovered)
    out = render_event(edit)
    assert out.card == recovered and out.plain.startswith("✅ Recovered")


def _fields(err: TurnError) -> dict[str, Any]:
    return {name: getattr(err, name) for name in err.__slots__}


def test_a_broken_card_falls_back_to_the_prose_and_says_why() -> None:
    content = {**build_notice(ERR).content, CARD_KEY: {"type": "turn_error", "v": 1}}
    out = render_event(content)
    assert out.card is None and out.card_error is not None
    assert out.card_error.field == "kind"
    assert "quota" in out.plain
    check_matrix_html(out.html)


def test_hostile_formatted_body_is_sanitised() -> None:
    dirty = (
        '<p onclick="steal()">hi</p><script>alert(1)</script>'
        '<a href="javascript:alert(2)">x</a><a href="data:text/html,<b>">d</a>'
        '<a href="https://ok.example/">ok</a><img src="https://tracker.example/p.png">'
        '<iframe src="https://evil"></iframe><svg onload=alert(3)></svg><style>*{}</style>'
    )
    out = render_event({"msgtype": "m.text", "body": "hi", "format": HTML, "formatted_body": dirty})
    parsed = check_matrix_html(out.html)
    assert "alert" not in parsed.data and "steal" not in out.html
    hrefs = [v for t, k, v in parsed.attrs if k == "href"]
    assert hrefs == ["https://ok.example/"]
    assert [a for a in parsed.attrs if a[0] == "img"] == []  # the tracker's src is gone


def test_plain_body_is_escaped_when_there_is_no_html() -> None:
    out = render_event({"msgtype": "m.text", "body": "a <script>b</script>\nc & d"})
    parsed = check_matrix_html(out.html)
    assert "script" not in parsed.tags
    assert parsed.data == "a <script>b</script>c & d"
    # A formatted_body in another format is not HTML.
    out = render_event({"body": "x", "format": "text/markdown", "formatted_body": "<b>y</b>"})
    assert out.html == "x"


def test_formatted_body_beyond_the_event_cap_is_not_sanitised() -> None:
    nested = "<div>" * 100_000  # the sanitiser's time grows with depth; no event holds this
    out = render_event({"body": "short", "format": HTML, "formatted_body": nested})
    assert out.html == "short"


def test_anything_that_is_not_a_content() -> None:
    values: list[object] = [None, [], "x", 3, 2.5, True]
    for value in values:
        out = render_event(value)
        assert out.plain == "" and out.html == "" and out.card is None


def test_lone_surrogates_do_not_break_the_fallback() -> None:
    content = json.loads(
        '{"body": "a\\ud800", "format": "' + HTML + '", "formatted_body": "<b>\\udc00</b>"}'
    )
    out = render_event(content)
    out.plain.encode("utf-8")
    out.html.encode("utf-8")


content_like = st.fixed_dictionaries(
    {},
    optional={
        "msgtype": st.sampled_from(["m.notice", "m.text"]) | json_values,
        "body": st.text(max_size=200) | json_values,
        "format": st.just(HTML) | json_values,
        "formatted_body": st.text(alphabet="<>/=\"' abdipsvrchefj:", max_size=200) | json_values,
        CARD_KEY: card_like | json_values,
        "m.relates_to": st.just({"rel_type": "m.replace"}) | json_values,
        "m.new_content": st.builds(lambda c: {CARD_KEY: c}, card_like) | json_values,
    },
)


@FAST
@given(content_like)
def test_any_content_renders_safely(content: dict[str, Any]) -> None:
    out = render_event(content)
    check_matrix_html(out.html)
    assert isinstance(out.plain, str)


def test_the_fallback_shows_control_characters_too() -> None:
    out = render_event({"body": "a\x1b[2Jb\x00", "format": HTML, "formatted_body": "<b>x\x1by</b>"})
    for text in (out.plain, out.html):
        assert "\x1b" not in text and "\x00" not in text
    assert "\u241b" in out.plain and "\u241b" in check_matrix_html(out.html).data
