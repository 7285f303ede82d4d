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
