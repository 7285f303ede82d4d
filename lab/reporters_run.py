"""The lab with the in-harness reporters on: each case, its card, the "after" table.

`python -m lab.reporters_run [--harness H ...] [--out DIR] [--docs docs/harnesses.md]`

For each harness that has a reporter (OpenClaw, Pi: the ones the lab shows dropping their
errors) and each failure of the issue (rate limit, quota, auth, overloaded, context too
long), it runs `lab.reporters_case` under `unshare -n` and judges the card the real report
API, journal and turn rules decided: the expected kind, and the provider's own sentence in
its message. Plus a run that ends well after the reporter reported an error: Pi's and
Hermes's own retry answering after a 429, OpenClaw's fallback model answering after an
overloaded first one. Those must give no card, and the report must have reached the bot
(else they prove nothing). And Hermes on its own (`hermes chat -q`, no ACP: the reporter
tells the whole turn) with a 429 on its model and an overloaded fallback: one card with
both attempts, each with its own status and sentence.

`--docs` writes the "After the reporters" section into docs/harnesses.md, between markers,
leaving the rest of the file (the lab's "before" tables, `lab/report.py`) as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lab import setups
from lab.run import EXPECTED_KIND, ROOT, sentence
from roombot.reporters import REPORTERS

SCENARIOS = ("rate_limit", "quota", "auth", "overloaded", "context")
CASE_TIMEOUT = 25.0
BEGIN = "<!-- after-reporters: written by lab/reporters_run.py -->"
END = "<!-- /after-reporters -->"


@dataclass
class ReporterRow:
    harness: str
    reporter: str
    scenario: str
    mode: str = ""  # "", "recover" (the harness's retry answers), "fallback" or "chain"
    wire: str = ""
    expected_kind: str | None = None
    reported: int = 0  # events the bot took from the reporter (turn.report, or its own turn)
    cards: list[dict[str, Any]] = field(default_factory=list)
    verdict: str = ""
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def reporter_harnesses() -> list[setups.Harness]:
    names = {r.harness for r in REPORTERS.values()}
    return [h for h in setups.HARNESS_LIST if h.name in names]


def matrix(harnesses: Sequence[str] | None = None) -> list[tuple[setups.Harness, str, str]]:
    cases: list[tuple[setups.Harness, str, str]] = []
    for harness in reporter_harnesses():
        if harness.unsupported or (harnesses and harness.name not in harnesses):
            continue
        cases += [(harness, s, "") for s in SCENARIOS]
        if harness.name == "pi":
            # Pi drops a safety block too (no text): its reporter says it was a refusal.
            # OpenClaw shows the model's refusal words as the answer: no card, rightly.
            cases.append((harness, "refusal", ""))
        if harness.can_fall_back:
            cases.append((harness, "overloaded", "fallback"))
        elif harness.name in ("pi", "hermes"):
            cases.append((harness, "rate_limit", "recover"))
        if harness.name == "hermes":
            cases.append((harness, "rate_limit", "chain"))  # then the fallback: CHAIN_THEN
    return cases


CHAIN_THEN = "overloaded"  # how the fallback fails in a "chain" case
CHAIN_STATUS = {"rate_limit": 429, "overloaded": 503}  # the OpenAI-compatible statuses


def run_case(harness: setups.Harness, scenario: str, mode: str, out: Path) -> ReporterRow:
    reporter = next(r.name for r in REPORTERS.values() if r.harness == harness.name)
    row = ReporterRow(harness.name, reporter, scenario, mode)
    row.expected_kind = None if mode in ("recover", "fallback") else EXPECTED_KIND[scenario]
    case_dir = out / f"{harness.name}-{scenario}{'-' + mode if mode else ''}"
    cmd = [
        "unshare", "-n", "--", sys.executable, "-m", "lab.reporters_case",
        "--harness", harness.name, "--scenario", scenario, "--out", str(case_dir),
        "--timeout", str(CASE_TIMEOUT),
    ] + ([f"--{mode}"] if mode else [])  # fmt: skip
    if mode == "chain":
        cmd += ["--then", CHAIN_THEN]
    started = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=6 * CASE_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        row.verdict = "the case itself did not finish"
        row.problems.append(row.verdict)
        return row
    row.seconds = round(time.monotonic() - started, 1)
    result_path = case_dir / "result.json"
    if not result_path.exists():
        row.verdict = "case crashed: " + proc.stderr[-800:]
        row.problems.append(row.verdict)
        return row
    result = json.loads(result_path.read_text())
    row.wire = str(result.get("wire"))
    row.reported = len(result.get("reported_types") or [])
    row.cards = [
        {**d["card"], "retracted": d["action"] == "retract"} for d in result.get("decisions", [])
    ]
    judge(row, harness.api)
    if mode == "chain":
        judge_chain(row, harness.api)
    (case_dir / "row.json").write_text(json.dumps(asdict(row), indent=2))
    return row


def judge(row: ReporterRow, api: str) -> None:
    posts = [c for c in row.cards if not c["retracted"]]
    if row.reported == 0:
        row.problems.append("the reporter's turn.report never reached the bot")
    if row.expected_kind is None:
        if posts:
            row.problems.append(f"a card ({posts[0].get('kind')}) for a run that ended well")
        if row.wire != "answered":
            row.problems.append(f"the harness did not answer ({row.wire})")
    elif len(posts) != 1:
        row.problems.append(f"{len(posts)} cards for one failed turn")
    else:
        card = posts[0]
        if card.get("kind") != row.expected_kind:
            row.problems.append(f"kind {card.get('kind')}, expected {row.expected_kind}")
        phrase = sentence(api, row.scenario)
        message = str(card.get("message") or "")
        if phrase and phrase.lower() not in message.lower():
            row.problems.append(f"the provider's sentence ({phrase!r}) is not in the card")
    row.verdict = "ok" if not row.problems else "; ".join(row.problems)


def run_matrix(out: Path, harnesses: Sequence[str] | None = None) -> list[ReporterRow]:
    rows = []
    for harness, scenario, mode in matrix(harnesses):
        row = run_case(harness, scenario, mode, out)
        kinds = ",".join(str(c.get("kind")) for c in row.cards) or "no card"
        print(
            f"{row.harness:10} {row.scenario:11} {row.mode:9} {row.wire:9} reports={row.reported} "
            f"cards={kinds:18} {row.seconds:5.1f}s  {row.verdict}",
            flush=True,
        )
        rows.append(row)
    return rows


def judge_chain(row: ReporterRow, api: str) -> None:
    """The card of a turn whose model and fallback both failed: one attempt for each,
    each with its own status and the provider's own sentence."""
    posts = [c for c in row.cards if not c["retracted"]]
    attempts = list(posts[0].get("attempts") or []) if len(posts) == 1 else []
    expected = [row.scenario, CHAIN_THEN]
    if len(attempts) != len(expected):
        row.problems.append(f"{len(attempts)} attempts on the card, expected {len(expected)}")
    for i, (attempt, scenario) in enumerate(zip(attempts, expected, strict=False)):
        if attempt.get("kind") != EXPECTED_KIND[scenario]:
            row.problems.append(f"attempt {i + 1}: kind {attempt.get('kind')}, not {scenario}")
        if attempt.get("status") != CHAIN_STATUS[scenario]:
            row.problems.append(f"attempt {i + 1}: status {attempt.get('status')}")
        phrase = sentence(api, scenario) or ""
        if phrase.lower() not in str(attempt.get("message") or "").lower():
            row.problems.append(f"attempt {i + 1}: the provider's sentence ({phrase!r}) missing")
    row.verdict = "ok" if not row.problems else "; ".join(row.problems)


# --- docs/harnesses.md: the "after" section ------------------------------------------------

_LABEL = {
    "rate_limit": "429 rate limit, retry-after",
    "quota": "quota / billing exhausted",
    "auth": "bad API key",
    "overloaded": "overloaded (529 / 503)",
    "context": "prompt over the context window",
    "refusal": "safety refusal in the stream",
}


def _cell(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("|", "\\|").replace("<", "&lt;") or "—"


def markdown_after(rows: Sequence[ReporterRow], elapsed: float) -> str:
    out = [
        BEGIN,
        "## After the reporters",
        "",
        "The same harnesses with their in-harness reporter enabled (`reporters/`,",
        "[reporters.md](reporters.md)) by `roombot reporters enable NAME --apply`, and",
        "roombot's real report API, journal and turn rules in the case's namespace",
        "(`lab/reporters_case.py`, run by `tests/lab/test_reporters.py`). On the wire",
        "nothing changes - Pi and OpenClaw still end the turn with no answer and no",
        "error, Hermes still answers with its last error - but the reporter sends what",
        "the harness knew as a `turn.report` naming its session, and the card carries",
        'the provider\'s own sentence instead of "completed without a reply". A run',
        "that ends well after a reported error gives no card. Hermes's fallback chain",
        "works only outside ACP (its ACP adapter does not pass it to the agent): that",
        "case runs `hermes chat -q` with no proxy, and the reporter tells roombot the",
        "whole turn (started, each attempt, each failure, the end); the card lists",
        "every attempt as status: sentence.",
        "",
        f"Last run: {time.strftime('%Y-%m-%d', time.gmtime())}, "
        f"{len(rows)} cases in {elapsed:.0f} s.",
        "",
        "| harness | failure | on the wire | reports taken | card kind | card message "
        "| verdict | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        label = _LABEL.get(r.scenario, r.scenario)
        if r.mode == "recover":
            label += " on the first call; the harness's own retry answers"
        elif r.mode == "fallback":
            label += " on the first model; the fallback model answers"
        elif r.mode == "chain":
            label += (
                f" on the first model, {_LABEL[CHAIN_THEN]} on the fallback (Hermes alone, "
                "`hermes chat -q`: the reporter tells the whole turn)"
            )
        posts = [c for c in r.cards if not c["retracted"]]
        kind = posts[0].get("kind", "") if posts else "no card"
        message = str(posts[0].get("message", "")) if posts else ""
        wire = {"alone": "no ACP"}.get(r.wire, r.wire)
        limit = 160
        if len(posts) == 1 and len(posts[0].get("attempts") or []) > 1:
            # every attempt, each with its status and the start of its own sentence
            message = " / ".join(
                f"{a.get('status')}: {_cell(str(a.get('message', '')), 70)}"
                for a in posts[0]["attempts"]
            )
            limit = 70 * len(posts[0]["attempts"]) + 20
        out.append(
            f"| {r.harness} | {label} | {wire} | {r.reported} | {kind} | {_cell(message, limit)} "
            f"| {_cell(r.verdict, 120)} | {r.seconds:.0f} |"
        )
    out += ["", END]
    return "\n".join(out) + "\n"


def write_after(path: Path, section: str) -> None:
    """Put the section in place of the previous one, or at the end of the file."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# The harnesses on the wire\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + section + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", action="append", help="only these harnesses")
    parser.add_argument("--out", help="case directories (default: a temporary one)")
    parser.add_argument("--docs", help="write the 'after' section into this file")
    args = parser.parse_args()
    if not setups.installed():
        print("lab: harnesses not installed; run lab/install.sh (make harnesses)", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="roombot-lab-rep-"))
    started = time.monotonic()
    rows = run_matrix(out, args.harness)
    elapsed = time.monotonic() - started
    (out / "rows.json").write_text(json.dumps([asdict(r) for r in rows], indent=2))
    if args.docs:
        write_after(Path(args.docs), markdown_after(rows, elapsed))
    print(f"lab: {len(rows)} cases with reporters in {elapsed:.0f} s; results in {out}")
    return 0 if all(r.verdict == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
