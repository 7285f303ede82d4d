"""`roombot demo` end to end, as a newcomer runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_demo_runs_and_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "cards.html"
    proc = subprocess.run(
        [sys.executable, "-m", "roombot", "demo", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    progress = proc.stderr
    assert "[7/7]" in progress
    assert "0 undecryptable" in progress
    assert "a recovered fallback (must post nothing)" in progress
    recovered_line = next(line for line in progress.splitlines() if "recovered fallback" in line)
    assert "nothing posted [ok]" in recovered_line
    cards = proc.stdout.count("--- card ")
    assert cards >= 14  # one per kind but none for the recovered fallback, and more
    page = out.read_text()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert "node gpu-box-3 stopped answering heartbeats" in page
