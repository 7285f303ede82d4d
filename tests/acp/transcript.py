"""Recorded ACP traffic (transcripts/*.acp) and a way to run the real proxy around it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roombot.env_names import API_TOKEN, RETIRED
from tests.acp.fake_agent import steps

HERE = Path(__file__).parent
TRANSCRIPTS = HERE / "transcripts"
FAKE_AGENT = HERE / "fake_agent.py"
ROOT = HERE.parent.parent


def load(name: str) -> list[tuple[str, bytes]]:
    return steps(str(TRANSCRIPTS / f"{name}.acp"))


def client_bytes(recorded: list[tuple[str, bytes]]) -> bytes:
    return b"".join(data for op, data in recorded if op == ">")


def agent_bytes(recorded: list[tuple[str, bytes]]) -> bytes:
    return b"".join(data for op, data in recorded if op == "<")


@dataclass
class Run:
    status: int
    stdout: bytes  # what the client received
    stderr: bytes
    received: bytes  # what the agent received
    events: list[dict[str, Any]]


def run_proxy(
    transcript: Path,
    tmp: Path,
    *proxy_args: str,
    stdin: bytes | None = None,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
) -> Run:
    """The proxy as a real subprocess around the fake agent replaying `transcript`."""
    if stdin is None:
        stdin = client_bytes(steps(str(transcript)))
    received = tmp / "received.bin"
    events = tmp / "events.jsonl"
    for f in (received, events):
        f.unlink(missing_ok=True)
    args = list(proxy_args) or ["--room", "!team:example.org"]
    if not any(a in ("--events", "--url") for a in args):
        args += ["--events", str(events)]
    cmd = [sys.executable, "-m", "roombot.cli", "acp-proxy", *args, "--"]
    cmd += [sys.executable, str(FAKE_AGENT), str(transcript), str(received)]
    # the report API token only where a test gives it (`env`), never the developer's own
    given = {k: v for k, v in os.environ.items() if k not in (API_TOKEN, *RETIRED)}
    given.update(env or {}, PYTHONPATH=str(ROOT))
    proc = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout, env=given)
    lines = events.read_text().splitlines() if events.exists() else []
    return Run(
        proc.returncode,
        proc.stdout,
        proc.stderr,
        received.read_bytes() if received.exists() else b"",
        [json.loads(line) for line in lines],
    )


def without_at(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in ev.items() if k != "at"} for ev in events]
