"""Readers cannot be spoofed: no rendering holds a raw bidi control or invisible character.

The checks here do not reuse cards.text's table: what counts as hidden is worked out
from unicodedata (category Cf, Zl, Zp, Cc) and the characters named in issue 12, and
the HTML forms are read by html.parser, so a gap in the table shows up as a failure.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.codec import CARD_KEY, read_payload, to_payload
from cards.event import render_event
from cards.kinds import Kind
from cards.notice import build_notice
from cards.render import first_line, render_html_page, render_matrix_html, render_plain
from cards.shape import Attempt, TurnError
from cards.text import (
    HIDDEN,
    MARK_CLOSE,
    MARK_OPEN,
    SHOWN_AS,
    cut_shown,
    shown,
    shown_name,
    valid_text,
)
from roombot.cli import main
from tests.cards.htmlcheck import check_matrix_html, check_page

FAST = settings(max_examples=150, deadline=None)

# What issue 12 names, beyond category Cf: blank fillers and joiners that are letters or
# marks to unicodedata but draw as nothing, and the variation selectors.
FILLERS = "\u115f\u1160\u3164\uffa0\u034f\u17b4\u17b5"
SELECTORS = "".join(map(chr, [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]))
FORMAT = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf")
# The brief's list, spelled out, so a change in unicodedata cannot drop one silently.
NAMED = (
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"
    + "".join(map(chr, range(0xE0000, 0xE0080)))
)
CONTROLS = "".join(map(chr, [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]))
EVERY = "".join(dict.fromkeys(NAMED + FORMAT + FILLERS + CONTROLS + "\u2028\u2029"))
EMOJI = "👩\u200d💻 👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d⚧\ufe0f 👍🏽 ⚠\ufe0f 🇫🇷"
ENGLAND = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbeng") + "\U000e007f"
FLAGS = (
    ENGLAND,
    "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000e007f",
    "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbwls") + "\U000e007f",
)


def _symbol(char: str) -> bool:
    """A character an emoji ZWJ sequence is built from: no letter, digit, mark or space."""
    return ord(char) > 0x7F and unicodedata.category(char)[0] in "SPC" and char not in EVERY


def raw_hidden(text: str) -> list[str]:
    """Every character in `text` that a reader would not see, or that a terminal obeys.

    Allowed: tab and newline; the three flag tag sequences; a ZWJ between two emoji
    (skin tone or VS16 before it); one variation selector after a visible character."""
    for flag in FLAGS:
        text = text.replace(flag, "")
    found = []
    for i, char in enumerate(text):
        if char in "\n\t":
            continue
        if char == "\u200d" and 0 < i < len(text) - 1:
            before = text[i - 2] if text[i - 1] in "\ufe0f🏻🏼🏽🏾🏿" and i > 1 else text[i - 1]
            if _symbol(before) and _symbol(text[i + 1]):
                continue
        if char in SELECTORS:
            if i > 0 and unicodedata.category(text[i - 1])[0] in "LNSP":
                continue
            found.append(char)
        elif char in EVERY or unicodedata.category(char) in ("Cf", "Cc", "Zl", "Zp"):
            found.append(char)
    return found


def assert_clean(text: str, where: str) -> None:
    hidden = raw_hidden(text)
    assert not hidden, f"{where}: raw {[f'U+{ord(c):04X}' for c in hidden[:10]]}"


def _html_text(markup: str, page: bool = False) -> str:
    """Everything a browser would draw or put in the DOM: text and attribute values."""
    parsed = check_page(markup) if page else check_matrix_html(markup)
    return parsed.data + "".join(v or "" for _, _, v in parsed.attrs)


def every_rendering(err: TurnError) -> dict[str, str]:
    content = build_notice(err).content
    event = render_event(content)
    return {
        "plain": render_plain(err),
        "matrix html": _html_text(render_matrix_html(err)),
        "page": _html_text(render_html_page([err]), page=True),
        "body": content["body"],
        "formatted_body": _html_text(content["formatted_body"]),
        "render_event plain": event.plain,
        "render_event html": _html_text(event.html),
    }


def hostile_card(text: str) -> TurnError:
    """`text` in every field a rendering shows, attempts included."""
    return TurnError(
        kind=Kind.RATE_LIMIT,
        message=f"\u202egnp.exe {text} end",
        harness=f"claude{text}code",
        provider=f"anth{text}ropic",
        model=f"claude{text}opus",
        retry_after=30,
        attempts=(
            Attempt(Kind.RATE_LIMIT, f"first {text}", f"open{text}ai", f"gpt{text}5", 429, 30),
            Attempt(Kind.QUOTA, f"{text} second", f"{text}google", f"{text}gemini", 429),
        ),
        note=f"A note {text} &#x202e; <https://x.example/%E2%80%AE%E2%81%A6>",
        message_truncated=True,
        message_file=f"mxc://example.org/{text}",
    )


CARD = hostile_card(EVERY)
# A notice has a size budget, and a tag costs 12 bytes in the card's JSON and more in
# each prose form, so the card sent whole holds every bidi and zero-width character,
# every filler and a few of the others in each field.
SMALL = "".join(c for c in EVERY if c in NAMED[:23] or c in FILLERS or c in "\x1b\x9b\U000e0068")
SENT = hostile_card(SMALL)


def test_the_table_holds_every_format_character_and_each_one_the_issue_names() -> None:
    missing = [f"U+{ord(c):04X}" for c in FORMAT + NAMED + FILLERS + CONTROLS if c not in SHOWN_AS]
    assert missing == []
    rows = [(row.first, row.last) for row in HIDDEN]
    assert rows == sorted(rows)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(rows)), "rows overlap"
    assert "\n" not in SHOWN_AS and "\t" not in SHOWN_AS
    # Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1): what a
    # font draws as nothing when it knows no better.
    ignorable = [
        (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
        (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
        (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
        (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
        (0xE0000, 0xE0FFF),
    ]  # fmt: skip
    assert [
        f"U+{c:04X}" for a, b in ignorable for c in range(a, b + 1) if chr(c) not in SHOWN_AS
    ] == []


def test_a_card_with_every_hidden_character_renders_none_of_them_raw() -> None:
    for where, text in every_rendering(CARD).items():
        assert_clean(text, where)
    plain = render_plain(CARD)
    assert f"{MARK_OPEN}RLO{MARK_CLOSE}gnp.exe" in plain
    for name in ("LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI", "LRM", "RLM"):
        assert f"⟦{name}⟧" in plain
    for name in ("ALM", "ZWSP", "ZWNJ", "ZWJ", "WJ", "BOM", "SHY", "MVS", "TAG a", "CSI"):
        assert f"⟦{name}⟧" in plain
    assert "⟦U+2061⟧" in plain and "⟦U+3164⟧" in plain and "⟦U+115F⟧" in plain
    assert "␛" in plain and "␀" in plain


def test_the_card_keeps_the_exact_text() -> None:
    assert read_payload(json.loads(json.dumps(to_payload(CARD)))) == CARD
    notice = build_notice(SENT)
    assert notice.full_message is None  # nothing was cut to fit
    wire = json.loads(json.dumps(notice.content))
    assert read_payload(wire[CARD_KEY]) == SENT
    assert render_event(wire).card == SENT
    for where, text in every_rendering(SENT).items():
        assert_clean(text, where)


def test_the_terminal_output_of_roombot_render(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("roombot")
    # The entry point as installed, running this checkout's code.
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    card, sent = tmp_path / "card.json", tmp_path / "sent.json"
    card.write_text(json.dumps(to_payload(CARD), ensure_ascii=False), encoding="utf-8")
    sent.write_text(json.dumps(to_payload(SENT), ensure_ascii=False), encoding="utf-8")
    outputs = {}
    for form in ("", "--matrix-html", "--html", "--content"):
        path = sent if form == "--content" else card
        argv = [str(exe), "render", *([form] if form else []), str(path)]
        done = subprocess.run(argv, capture_output=True, timeout=60, env=env)
        assert done.returncode == 0, done.stderr
        outputs[form] = done.stdout.decode("utf-8")
        assert_clean(outputs[form], f"roombot render {form}")
    assert outputs[""] == render_plain(CARD) + "\n"
    _html_text(outputs["--matrix-html"])
    _html_text(outputs["--html"], page=True)
    # The JSON on the terminal holds the hidden characters as escapes, so the card in it
    # is still the exact text.
    printed = json.loads(outputs["--content"])
    assert read_payload(printed[CARD_KEY]) == SENT
    assert "\\u202e" in outputs["--content"] and "\\udb40\\udc68" in outputs["--content"]


def test_a_marker_cannot_be_forged() -> None:
    # A message that spells a marker shows its bracket as a marker: ⟦RLO⟧ is never
    # what the provider typed.
    forged = shown("⟦RLO⟧gnp.exe")
    assert forged == "⟦U+27E6⟧RLO⟧gnp.exe"
    assert "⟦RLO⟧" not in forged


def _unmark(text: str) -> str:
    """shown() undone: each ⟦...⟧ and each control picture back to its character."""
    inverse = {v: k for k, v in SHOWN_AS.items()}
    out, i = [], 0
    while i < len(text):
        if text[i] == MARK_OPEN:
            end = text.index(MARK_CLOSE, i) + 1
            out.append(inverse[text[i:end]])
            i = end
        else:
            out.append(inverse.get(text[i], text[i]))
            i += 1
    return "".join(out)


# Text rich in what this file is about: every hidden character, emoji, flags, markers.
PIECES = [*EVERY, *SELECTORS[:20], "\U000e0100", *FLAGS, "⟦", "⟧", "⟦RLO⟧", "👩", "💻", "a"]
spoof_texts = st.lists(st.sampled_from(PIECES) | st.characters(), max_size=40).map("".join)


@FAST
@given(spoof_texts)
def test_markers_are_unambiguous(text: str) -> None:
    # Control pictures in the text itself would read as controls; line ends are unified.
    text = "".join(c for c in text if not 0x2400 <= ord(c) <= 0x2426 and c not in "\r\u2028\u2029")
    assert _unmark(shown(text)) == text


@FAST
@given(spoof_texts)
def test_no_rendering_of_any_text_holds_a_raw_hidden_character(text: str) -> None:
    err = hostile_card(text)
    for where, out in every_rendering(err).items():
        assert_clean(out, where)
    # Exact, but for lone surrogates, which no event can carry (they become U+FFFD).
    assert read_payload(json.loads(json.dumps(to_payload(err)))) == hostile_card(valid_text(text))
    assert_clean(shown_name(text), "name")


@FAST
@given(spoof_texts, spoof_texts)
def test_a_foreign_event_is_drawn_without_raw_hidden_characters(body: str, html: str) -> None:
    # Entities are decoded by the sanitiser, so they are hidden characters too.
    entities = "".join(f"&#x{ord(c):x};" for c in html if c not in "<&")
    content: dict[str, Any] = {
        "msgtype": "m.text",
        "body": body,
        "format": "org.matrix.custom.html",
        "formatted_body": f"<p>{html}</p><b>{entities}</b>",
    }
    out = render_event(content)
    assert_clean(out.plain, "plain")
    assert_clean(_html_text(out.html), "html")


def test_emoji_joiners_flags_and_one_selector_stay() -> None:
    assert shown(EMOJI) == EMOJI
    for flag in FLAGS:
        assert shown(f"go {flag}!") == f"go {flag}!"
    assert shown("葛\U000e0100") == "葛\U000e0100"  # a CJK variant
    assert shown("1\ufe0f\u20e3") == "1\ufe0f\u20e3"  # keycap one


def test_joiners_and_selectors_that_join_nothing_are_shown() -> None:
    assert shown("pay\u200dpal pay\u200cpal") == "pay⟦ZWJ⟧pal pay⟦ZWNJ⟧pal"
    assert shown("👩\u200da \u200d👩 👩\u200d") == "👩⟦ZWJ⟧a ⟦ZWJ⟧👩 👩⟦ZWJ⟧"
    # A run of selectors hides data after an emoji: only the first one selects.
    assert shown("😀\ufe0f\ufe01\U000e0102") == "😀\ufe0f⟦VS2⟧⟦VS19⟧"
    assert shown("\ufe0fstart \u200b\ufe0f") == "⟦VS16⟧start ⟦ZWSP⟧⟦VS16⟧"


def test_tags_outside_a_flag_show_the_letters_they_hide() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "hi!")
    assert shown(f"ok{hidden}") == "ok⟦TAG h⟧⟦TAG i⟧⟦TAG !⟧"
    other = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "usca") + "\U000e007f"
    assert shown(other) == "\U0001f3f4⟦TAG u⟧⟦TAG s⟧⟦TAG c⟧⟦TAG a⟧⟦CANCEL TAG⟧"
    assert shown(ENGLAND[:-1]) == "\U0001f3f4⟦TAG g⟧⟦TAG b⟧⟦TAG e⟧⟦TAG n⟧⟦TAG g⟧"


def test_names_show_what_they_hide_on_one_line() -> None:
    assert shown_name("gpt\u200b-5\u2028x\tz") == "gpt⟦ZWSP⟧-5 x z"
    err = dataclasses.replace(CARD, provider="open\u202eai", attempts=())
    assert "open⟦RLO⟧ai" in render_plain(err)
    assert "open⟦RLO⟧ai" in check_matrix_html(render_matrix_html(err)).data


def test_the_page_isolates_each_name() -> None:
    # Right-to-left letters reorder neutral separators around them (no control needed);
    # on the page each name sits in its own <bdi>, so "/" stays between the two.
    err = dataclasses.replace(CARD, harness="codex", provider="\u05d0\u05d1\u05d2", model="1.2")
    page = render_html_page([err])
    assert check_page(page).tags.count("bdi") == 3
    assert "<bdi>\u05d0\u05d1\u05d2</bdi> / <bdi>1.2</bdi>" in page


def test_a_cut_never_splits_a_marker() -> None:
    message = "x" * 598 + "\u202e" + "tail"
    line = first_line(shown(message))
    assert line == "x" * 598 + " …"
    assert cut_shown(shown("ab\u202e"), 4) == "ab"
    assert cut_shown(shown("ab\u202e"), 7) == "ab⟦RLO⟧"


def test_roombot_classify_prints_hidden_characters_as_escapes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "429 Too Many Requests \u202egnp.exe\x9b2J \U000e0068"
    assert main(["classify", "--text", text, "--provider", "open\u200bai"]) == 0
    out = capsys.readouterr().out
    assert_clean(out, "roombot classify")
    printed = json.loads(out)
    assert printed["message"] == text and printed["provider"] == "open\u200bai"
