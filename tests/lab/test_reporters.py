"""The harness lab with the in-harness reporters on: the real OpenClaw, Pi and Hermes, the real
report API, journal and turn rules; each failure must come out as a card of the right kind
with the provider's own sentence, and a run that ends well after a reported error as none.

Each case runs in its own network namespace (lab/reporters_case.py); the judge is
lab/reporters_run.py `judge`. The last test writes the "After the reporters" section
(into docs/harnesses.md when ROOMBOT_LAB_DOCS=1, else into a copy).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lab import setups
from lab.reporters_run import (
    BEGIN,
    END,
    ReporterRow,
    markdown_after,
    matrix,
    run_case,
    write_after,
)
from lab.run import ROOT

CASES = matrix()
ROWS: list[ReporterRow] = []


@pytest.fixture(scope="module")
def lab_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not setups.installed():
        pytest.fail("harnesses not installed: run `make harnesses` (lab/install.sh)")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("the lab needs root and unshare(1): each case runs in its own netns")
    return tmp_path_factory.mktemp("lab-reporters")


def test_the_matrix_covers_the_issue() -> None:
    by_harness: dict[str, set[str]] = {}
    for harness, scenario, mode in CASES:
        by_harness.setdefault(harness.name, set()).add(scenario + (f"/{mode}" if mode else ""))
    assert by_harness == {
        "pi": {
            "rate_limit",
            "quota",
            "auth",
            "overloaded",
            "context",
            "refusal",
            "rate_limit/recover",
        },
        "openclaw": {"rate_limit", "quota", "auth", "overloaded", "context", "overloaded/fallback"},
        # over ACP (the proxy owns the turn), then alone with a failing fallback (the reporter)
        "hermes": {
            "rate_limit",
            "quota",
            "auth",
            "overloaded",
            "context",
            "rate_limit/recover",
            "rate_limit/chain",
        },
    }


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("harness", "scenario", "mode"),
    CASES,
    ids=[f"{h.name}-{s}{'-' + m if m else ''}" for h, s, m in CASES],
)
def test_card_with_reporter(
    harness: setups.Harness, scenario: str, mode: str, lab_out: Path
) -> None:
    row = run_case(harness, scenario, mode, lab_out)
    ROWS.append(row)
    assert row.verdict == "ok", (
        f"{harness.name}/{scenario}/{mode or 'plain'}: wire={row.wire} reports={row.reported} "
        f"cards={row.cards}; {row.verdict}"
    )


def test_after_section(tmp_path: Path) -> None:
    assert ROWS, "no lab case with reporters ran"
    section = markdown_after(ROWS, sum(r.seconds for r in ROWS))
    docs = ROOT / "docs" / "harnesses.md"
    target = docs if os.environ.get("ROOMBOT_LAB_DOCS") == "1" else tmp_path / "harnesses.md"
    if target != docs and docs.exists():
        shutil.copyfile(docs, target)
    before = target.read_text(encoding="utf-8") if target.exists() else ""
    write_after(target, section)
    write_after(target, section)  # twice: replaced in place, never appended again
    text = target.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert "## After the reporters" in text
    kept = before.split(BEGIN)[0].rstrip("\n")
    assert text.startswith(kept)  # the lab's "before" tables are left as they were
    for row in ROWS:
        assert f"| {row.harness} |" in text
