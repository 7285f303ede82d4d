"""The harness lab: each real harness, each failure, through roombot acp-proxy, one card.

Every case runs the real harness (installed by `make harnesses`) in its own
network namespace with the provider simulator, and fails when the card the
turn rules decide is wrong for what the simulator sent (lab/run.py `judge`).
The last test writes the table (docs/harnesses.md when ROOMBOT_LAB_DOCS=1,
else a temporary file) and checks that no harness was left out.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from lab import report, setups
from lab.run import ROOT, Row, matrix, run_case

CASES = matrix(None, None)
ROWS: list[Row] = []
STARTED: list[float] = []


@pytest.fixture(scope="module")
def lab_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not setups.installed():
        pytest.fail("harnesses not installed: run `make harnesses` (lab/install.sh)")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("the lab needs root and unshare(1): each case runs in its own netns")
    STARTED.append(time.monotonic())
    return tmp_path_factory.mktemp("lab")


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    ("harness", "scenario", "fallback"),
    CASES,
    ids=[f"{h.name}-{s}{'-fallback' if f else ''}" for h, s, f in CASES],
)
def test_card(harness: setups.Harness, scenario: str, fallback: bool, lab_out: Path) -> None:
    row = run_case(harness, scenario, fallback, lab_out)
    ROWS.append(row)
    if row.wire == "unsupported":
        assert row.note, "an unsupported harness must say why"
        return
    assert row.wire not in ("lab_error", "lab_timeout", "setup_failed"), (
        f"{harness.name}/{scenario}: the case did not run: {row.verdict} {row.wire_text}"
    )
    assert row.verdict == "ok", (
        f"{harness.name}/{scenario}: wire={row.wire} said {row.wire_text!r}; "
        f"card={row.card}; {row.verdict}"
    )


def test_table_lists_every_harness(tmp_path: Path) -> None:
    assert ROWS, "no lab case ran"
    text = report.markdown(ROWS, time.monotonic() - STARTED[0])
    target = (
        ROOT / "docs" / "harnesses.md"
        if os.environ.get("ROOMBOT_LAB_DOCS") == "1"
        else tmp_path / "harnesses.md"
    )
    report.write(target, text)
    for harness in setups.HARNESS_LIST:
        assert f"## {harness.name}" in text, f"{harness.name} missing from the table"
    for row in ROWS:
        if row.wire == "dropped":
            assert "dropped" in text
