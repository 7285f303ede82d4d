"""A stand-in ACP agent that replays a recorded transcript, for the proxy's tests.

    python fake_agent.py TRANSCRIPT RECEIVED_LOG

Transcript lines (see transcripts/*.acp):
  `> JSON`   the client sends this line: read exactly its bytes from stdin
  `>b B64`   the client sends these raw bytes
  `< JSON`   write this line to stdout
  `<b B64`   write these raw bytes to stdout
  `! TEXT`   write TEXT and a newline to stderr
  `sleep S`  pause S seconds
  `exit N`   exit with status N on the spot (mid-turn if the transcript says so)
  `signal N` kill itself with signal N
  `# ...`    comment
Everything read from stdin is appended to RECEIVED_LOG, so the test can
check that what the client sent arrived byte for byte. After the last step
the agent reads stdin to its end and exits 0.
"""

from __future__ import annotations

import base64
import os
import sys
import time


def steps(path: str) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.rstrip(b"\n")
            if not line.strip() or line.startswith(b"#"):
                continue
            op, _, rest = line.partition(b" ")
            if op in (b">", b"<"):
                out.append((op.decode(), rest + b"\n"))
            elif op in (b">b", b"<b"):
                out.append((op.decode()[0], base64.b64decode(rest)))
            else:
                out.append((op.decode(), rest))
    return out


def read_exactly(n: int, log: int) -> None:
    while n > 0:
        data = os.read(0, min(n, 1 << 16))
        if not data:
            return
        os.write(log, data)
        n -= len(data)


def main() -> int:
    transcript, received = sys.argv[1], sys.argv[2]
    log = os.open(received, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for op, data in steps(transcript):
        if op == ">":
            read_exactly(len(data), log)
        elif op == "<":
            view = memoryview(data)
            while view:
                view = view[os.write(1, view) :]
        elif op == "!":
            os.write(2, data + b"\n")
        elif op == "sleep":
            time.sleep(float(data))
        elif op == "exit":
            os._exit(int(data))
        elif op == "signal":
            os.kill(os.getpid(), int(data))
    while data := os.read(0, 1 << 16):
        os.write(log, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
