"""What `roombot acp-proxy` costs, beside a plain pipe measured in the same run.

Two figures, each printed as a ratio against its baseline:

1. Latency added per message: a client sends one ACP message and waits for
   it to come back, N times, through `cat` alone and through
   `roombot acp-proxy -- cat` (both directions cross the proxy, so the
   added time per message one way is half the difference).
2. Throughput on a long stream of answer chunks: an agent writes one
   session/prompt turn of N agent_message_chunk notifications as fast as it
   can; the client reads them through `agent | cat` and through
   `roombot acp-proxy -- agent` (the observer really follows the turn and
   writes its events).

    .venv/bin/python bench/bench_proxy.py [--messages N] [--chunks N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = "bench-session"

CHUNK = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": SESSION,
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "The quick brown fox jumps over it. " * 4},
                },
            },
        }
    ).encode()
    + b"\n"
)

# The streaming agent: answers session/new and session/prompt, the prompt with N chunks.
AGENT = r"""
import os, sys
n, chunk = int(sys.argv[1]), sys.argv[2].encode() + b"\n"
inp = os.fdopen(0, "rb")
inp.readline()  # session/new
os.write(1, b'{"jsonrpc":"2.0","id":1,"result":{"sessionId":"%s"}}\n' % sys.argv[3].encode())
inp.readline()  # session/prompt
out = os.fdopen(1, "wb", buffering=1 << 16)
for _ in range(n):
    out.write(chunk)
out.write(b'{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}\n')
out.flush()
"""


def proxy_cmd(events: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "roombot.cli",
        "acp-proxy",
        "--room",
        "!bench:example.org",
        "--events",
        str(events),
        "--",
    ]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def round_trips(cmd: list[str], messages: int) -> list[float]:
    """Seconds per echo of one message, after a warm-up."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env())
    assert proc.stdin is not None and proc.stdout is not None
    fd_in, fd_out = proc.stdin.fileno(), proc.stdout.fileno()
    times: list[float] = []
    for i in range(messages + 200):
        start = time.perf_counter()
        os.write(fd_in, CHUNK)
        got = 0
        while got < len(CHUNK):
            got += len(os.read(fd_out, 1 << 16))
        if i >= 200:
            times.append(time.perf_counter() - start)
    proc.stdin.close()
    proc.wait()
    return times


def stream(cmd: list[str] | str, *, shell: bool = False) -> tuple[float, float, int]:
    """(seconds to the end of the output, seconds to the exit, bytes) of a streamed turn."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env(), shell=shell
    )
    assert proc.stdin is not None and proc.stdout is not None
    new = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "session/new",
        "params": {"cwd": "/", "mcpServers": []},
    }
    prompt = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/prompt",
        "params": {"sessionId": SESSION, "prompt": [{"type": "text", "text": "go"}]},
    }
    proc.stdin.write(json.dumps(new).encode() + b"\n" + json.dumps(prompt).encode() + b"\n")
    proc.stdin.close()
    total = 0
    fd = proc.stdout.fileno()
    while data := os.read(fd, 1 << 16):
        total += len(data)
    eof = time.perf_counter() - start
    proc.wait()
    return eof, time.perf_counter() - start, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--messages", type=int, default=2000, help="echoed messages per round")
    ap.add_argument("--chunks", type=int, default=200_000, help="streamed chunks per round")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of each")
    args = ap.parse_args()
    cat = shutil.which("cat")
    assert cat is not None
    med = statistics.median
    with tempfile.TemporaryDirectory() as tmp:
        events = Path(tmp) / "events.jsonl"

        # Rounds alternate so that both sides see the same machine (2 shared cores).
        base: list[float] = []
        prox: list[float] = []
        for _ in range(args.rounds):
            base += round_trips([cat], args.messages)
            prox += round_trips([*proxy_cmd(events), cat], args.messages)
        b50, p50 = med(base), med(prox)
        b99 = statistics.quantiles(base, n=100)[98]
        p99 = statistics.quantiles(prox, n=100)[98]
        print(
            f"latency: {args.rounds} x {args.messages} messages of {len(CHUNK)} bytes, "
            "echoed by cat (each crosses the proxy twice)"
        )
        print(f"  cat alone       round trip median {b50 * 1e6:8.1f} us   p99 {b99 * 1e6:8.1f} us")
        print(f"  through proxy   round trip median {p50 * 1e6:8.1f} us   p99 {p99 * 1e6:8.1f} us")
        print(f"  ratio           {p50 / b50:.2f}x (median), {p99 / b99:.2f}x (p99)")
        print(
            f"  added per message, one way: {(p50 - b50) / 2 * 1e6:.1f} us (median), "
            f"{(p99 - b99) / 2 * 1e6:.1f} us (p99)"
        )

        agent = Path(tmp) / "agent.py"
        agent.write_text(AGENT)
        agent_cmd = [sys.executable, str(agent), str(args.chunks), CHUNK.decode().strip(), SESSION]
        quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in agent_cmd)
        pipe_eof: list[float] = []
        prox_eof: list[float] = []
        prox_exit: list[float] = []
        nbytes = 0
        for _ in range(args.rounds):
            eof, _exit, n_pipe = stream(f"{quoted} | {cat}", shell=True)
            pipe_eof.append(eof)
            events.unlink(missing_ok=True)
            eof, done, n_prox = stream([*proxy_cmd(events), *agent_cmd])
            assert n_pipe == n_prox, (n_pipe, n_prox)
            prox_eof.append(eof)
            prox_exit.append(done)
            nbytes = n_pipe
        mb = nbytes / 1e6
        t_pipe, t_prox, t_done = med(pipe_eof), med(prox_eof), med(prox_exit)
        kinds = [json.loads(line)["type"] for line in events.read_text().splitlines()]
        print(
            f"throughput: one turn of {args.chunks} chunks, {mb:.1f} MB, "
            f"median of {args.rounds} rounds (process starts included)"
        )
        print(f"  agent | cat     {t_pipe:6.2f} s   {mb / t_pipe:7.1f} MB/s")
        print(
            f"  through proxy   {t_prox:6.2f} s   {mb / t_prox:7.1f} MB/s   "
            f"(to the end of the client's output)"
        )
        print(f"  ratio           {t_prox / t_pipe:.2f}x")
        print(
            f"  observer done   {t_done:6.2f} s   {args.chunks / t_done:9.0f} chunks/s "
            f"(to the proxy's exit: every chunk parsed, events written)"
        )
        print(
            f"  events written: {len(kinds)} ({kinds[0]} .. {kinds[-1]}; "
            f"{kinds.count('turn.output')} turn.output, answer text capped per turn)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
