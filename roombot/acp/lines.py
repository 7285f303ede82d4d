"""Newline-delimited messages reassembled from the relay's copies. Pure.

The relay hands over chunks as the operating system delivered them, cut
anywhere. A `LineBuffer` joins them into whole lines, discards a line longer
than `max_line` (counting it) instead of holding it without bound, and after
a gap (copies the relay had to drop) throws away the broken line and resumes
at the next newline.
"""

from __future__ import annotations

import json


class LineBuffer:
    def __init__(self, max_line: int = 256 * 1024 * 1024) -> None:
        self.max_line = max_line
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False  # inside a line we cannot observe whole
        self.stats: dict[str, int] = {"lines": 0, "too_long": 0, "gaps": 0}

    def gap(self, *, at_line_end: bool = False) -> None:
        """Some bytes of this direction were not copied to us; `at_line_end`
        when the last of them was a newline (what follows starts a line)."""
        self.stats["gaps"] += 1
        self._parts.clear()
        self._size = 0
        self._skipping = not at_line_end

    def feed(self, chunk: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                self._keep(chunk[start:])
                return lines
            piece = chunk[start:nl]
            start = nl + 1
            if self._skipping:
                self._skipping = False
                continue
            if self._size + len(piece) > self.max_line:
                self.stats["too_long"] += 1
            else:
                self._parts.append(piece)
                lines.append(b"".join(self._parts) if len(self._parts) > 1 else piece)
                self.stats["lines"] += 1
            self._parts.clear()
            self._size = 0

    def _keep(self, rest: bytes) -> None:
        if not rest or self._skipping:
            return
        if self._size + len(rest) > self.max_line:
            self.stats["too_long"] += 1
            self._parts.clear()
            self._size = 0
            self._skipping = True
            return
        self._parts.append(rest)
        self._size += len(rest)


def parse_line(line: bytes) -> tuple[bool, object]:
    """(True, value) for a line holding one JSON value, else (False, None)."""
    text = line.strip()
    if not text:
        return False, None
    try:
        return True, _DECODER.decode(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, None


# One decoder for every line (json.loads with options builds one per call).
# NaN and Infinity are not JSON: read them as null so no event carries them.
_DECODER = json.JSONDecoder(parse_constant=lambda _: None)
