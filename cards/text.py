"""Text from hostile JSON: `json.loads` happily returns lone surrogates ("\\ud800"),
which no UTF-8 encoder, HTML sanitiser or terminal accepts. Every string read from
outside passes through `valid_text` first.
"""

from __future__ import annotations

import re
from typing import Final

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD; unchanged otherwise."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


# C0 and C1 controls other than tab and newline: a terminal or a client may act on them
# (ANSI escapes, NUL, backspace), so the prose forms show them instead.
_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Bidi formatting characters: kept in messages (right-to-left text needs them, and each
# message ends its own line, block or cell, which ends their reach), dropped from names.
_BIDI: Final = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures": ␀ ␇ ␛ ...
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def shown(text: str) -> str:
    """Provider text as the prose forms show it: line ends unified, controls made visible.
    The card itself keeps the exact text."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub(_picture, text)


def shown_name(text: str) -> str:
    """A name (harness, provider, model) on one line, with no bidi tricks."""
    return _BIDI.sub("", shown(text)).replace("\n", " ").replace("\t", " ")
