"""The relay's copies on their way to the observer process.

A frame is a tag byte, the time the relay saw the bytes (float64, seconds
since the epoch), the payload length (uint32) and the payload. Tags:

- `c`: bytes the client sent to the agent; `a`: bytes the agent sent back.
- `g`: the relay dropped copies of one direction (payload `c` or `a`, then
  `\n` if the dropped bytes ended a line): the observer drops the broken line
  and, unless the gap ended at a line end, skips to the next newline.
- `x`: the harness exited; payload is JSON `{"code": int | null, "stderr": str}`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

CLIENT = b"c"
AGENT = b"a"
GAP = b"g"
EXIT = b"x"

_HEADER = struct.Struct("!cdI")
HEADER_SIZE = _HEADER.size


def encode(tag: bytes, at: float, payload: bytes) -> bytes:
    return _HEADER.pack(tag, at, len(payload)) + payload


class FrameReader:
    """Frames out of a byte stream read in arbitrary pieces."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> Iterator[tuple[bytes, float, bytes]]:
        self._buf += data
        pos = 0
        while len(self._buf) - pos >= HEADER_SIZE:
            tag, at, size = _HEADER.unpack_from(self._buf, pos)
            end = pos + HEADER_SIZE + size
            if len(self._buf) < end:
                break
            yield tag, at, bytes(self._buf[pos + HEADER_SIZE : end])
            pos = end
        del self._buf[:pos]
