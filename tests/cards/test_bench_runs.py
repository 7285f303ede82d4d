"""bench/bench_cards.py still runs (its figures are read by people, not asserted here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_cards.py"


def test_bench_cards_runs_and_prints_ratios() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--seconds", "0.02", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "json.dumps" in done.stdout
    assert "x the time of json.dumps" in done.stdout
