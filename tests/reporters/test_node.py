"""The reporters' own tests (node's built-in runner, under the node 24 the lab installs)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from lab import setups

REPORTERS = Path(__file__).resolve().parents[2] / "reporters"


@pytest.mark.timeout(180)
def test_the_reporters_node_tests_pass() -> None:
    node = setups.NODE24_BIN / "node"
    if not node.exists():
        pytest.fail("node 24 not installed: run `make harnesses` (lab/install.sh)")
    res = subprocess.run(
        [str(node), "--test", "--test-reporter=spec", "**/*.test.js"],
        cwd=REPORTERS,
        capture_output=True,
        text=True,
        timeout=170,
    )
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    passed = re.search(r"\S pass (\d+)", res.stdout)
    failed = re.search(r"\S fail (\d+)", res.stdout)
    assert passed and failed, res.stdout[-2000:]
    assert int(failed.group(1)) == 0
    # every test file ran: the shared sender, the Pi extension, the OpenClaw plugin
    assert int(passed.group(1)) >= 20
    for name in ("posts one event to /v1/events", "joined by the ACP session id", "llm_output"):
        assert name in res.stdout
