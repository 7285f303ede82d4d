"""The lab runner: every case in its own network namespace, its card, the table.

`python -m lab.run [--harness H ...] [--scenario S ...] [--out DIR] [--docs FILE]`

For each (harness, scenario) of the matrix it runs `lab.case` under
`unshare -n` (only loopback: nothing can leave the machine), feeds the
proxy's events through the turn rules (`roombot replay`), judges the card
against what the simulator sent, and writes the table (docs/harnesses.md).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lab import setups, simulator
from roombot.commands import replay as replay_command

ROOT = Path(__file__).resolve().parent.parent

# The focused matrix: failures every harness can meet, then a recovered fallback.
SCENARIOS = (
    "rate_limit",
    "quota",
    "auth",
    "bad_request",
    "context",
    "overloaded",
    "server_error",
    "refusal",
)
# A harness whose every case starts a daemon (OpenClaw's gateway, ~15 s) runs the focused set.
SLOW_SCENARIOS = ("rate_limit", "quota", "auth", "context", "overloaded")
CASE_TIMEOUT = 25.0  # per ACP request inside a case; a case that needs more is itself a finding

# The card kind each simulated failure must produce (None: no card, the user got an answer).
EXPECTED_KIND: dict[str, str | None] = {
    "answer": None,
    "rate_limit": "rate_limit",
    "quota": "quota",
    "auth": "auth",
    "bad_request": "bad_request",
    "context": "context_exhausted",
    "overloaded": "provider_unavailable",
    "server_error": "provider_unavailable",
    "refusal": "refusal",
    "hang": "timeout",
}

# A phrase of the provider's own sentence per API and scenario: if the harness put it on
# the wire, the card's message must carry it.
SENTENCES: dict[str, dict[str, str]] = {
    "anthropic": {
        "rate_limit": "would exceed the rate limit for your organization",
        "quota": "Your credit balance is too low",
        "auth": "invalid x-api-key",
        "bad_request": "maximum allowed number of output tokens",
        "context": "prompt is too long",
        "overloaded": "Overloaded",
        "server_error": "Internal server error",
    },
    "openai": {
        "rate_limit": "Rate limit reached for",
        "quota": "You exceeded your current quota",
        "auth": "Incorrect API key provided",
        "bad_request": "Invalid value for 'temperature'",
        "context": "context",
        "overloaded": "The server is overloaded or not ready yet",
        "server_error": "The server had an error while processing your request",
    },
    "gemini": {
        "rate_limit": "You exceeded your current quota",
        "quota": "You exceeded your current quota",
        "auth": "API key not valid",
        "bad_request": "Invalid value at 'generation_config.temperature'",
        "context": "exceeds the maximum number of tokens allowed",
        "overloaded": "The model is overloaded",
        "server_error": "An internal error has occurred",
    },
}


def sentence(api: str, scenario: str) -> str | None:
    family = "openai" if api.startswith("openai") else api
    return SENTENCES.get(family, {}).get(scenario)


@dataclass
class Row:
    harness: str
    package: str
    scenario: str
    fallback: bool = False
    version: str = ""
    wire: str = ""  # rejected | answered | dropped | no_end | exited | setup_failed | unsupported
    wire_text: str = ""
    stop_reason: str | None = None
    provider_sentence_on_wire: bool | None = None
    card: dict[str, Any] | None = None
    retracted: bool = False
    expected_kind: str | None = None
    verdict: str = ""  # "ok" or what is wrong
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # Where else the provider's sentence was left (stderr, log files): where a reporter can look.
    reason_elsewhere: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    note: str = ""


def run_case(harness: setups.Harness, scenario: str, fallback: bool, out: Path) -> Row:
    row = Row(harness.name, harness.package, scenario, fallback)
    row.expected_kind = None if fallback else EXPECTED_KIND[scenario]
    if harness.unsupported:
        row.wire = "unsupported"
        row.note = harness.unsupported
        row.verdict = "not run: " + harness.unsupported
        return row
    case_dir = out / f"{harness.name}-{scenario}{'-fallback' if fallback else ''}"
    shutil.rmtree(case_dir, ignore_errors=True)
    cmd = [
        "unshare",
        "-n",
        "--",
        sys.executable,
        "-m",
        "lab.case",
        "--harness",
        harness.name,
        "--scenario",
        scenario,
        "--out",
        str(case_dir),
        "--timeout",
        str(CASE_TIMEOUT),
    ] + (["--fallback"] if fallback else [])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    try:
        proc = subprocess.run(
            cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=4 * CASE_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        row.wire = "lab_timeout"
        row.verdict = "the case itself did not finish"
        row.problems.append(row.verdict)
        return row
    row.seconds = round(time.monotonic() - started, 1)
    result_path = case_dir / "result.json"
    if not result_path.exists():
        row.wire = "lab_error"
        row.verdict = "case crashed: " + proc.stderr[-800:]
        row.problems.append(row.verdict)
        return row
    result = json.loads(result_path.read_text())
    row.version = str((result.get("agent_info") or {}).get("version") or "")
    row.wire = str(result.get("wire"))
    row.wire_text = str(result.get("text") or "")
    row.stop_reason = result.get("stop_reason")
    row.requests = [
        f"{r['method']} {r['path']} {r['model'] or ''}".strip() for r in result["requests"]
    ]
    decisions = replay(case_dir / "events.jsonl")
    posts = [d for d in decisions if "card" in d]
    row.retracted = any(d.get("retract") for d in decisions)
    row.card = posts[-1]["card"] if posts else None
    judge(row, harness.api)
    row.reason_elsewhere = _reason_elsewhere(case_dir, sentence(harness.api, scenario))
    (case_dir / "row.json").write_text(json.dumps(asdict(row), indent=2))
    return row


def _reason_elsewhere(case_dir: Path, phrase: str | None) -> list[str]:
    if phrase is None:
        return []
    home = case_dir / "home"
    places = [case_dir / "stderr.txt"]
    for pattern in ("*.log", "*.jsonl", "*.json", "*.sqlite", "*.db"):
        places.extend(sorted(p for p in home.rglob(pattern) if p.is_file()))
    needle = phrase.lower().encode()
    found = []
    for path in places:
        try:
            if path.stat().st_size < 32 * 1024 * 1024 and needle in path.read_bytes().lower():
                found.append(str(path.relative_to(case_dir)))
        except OSError:
            continue
    return found


def replay(events: Path) -> list[dict[str, Any]]:
    """`roombot replay` on the case's events, in this process (a subprocess per case cost
    more than the cases of the fast harnesses)."""
    if not events.exists():
        return []
    out, err = io.StringIO(), io.StringIO()
    with events.open(encoding="utf-8") as lines:
        replay_command.replay(lines, out, err)
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def judge(row: Row, api: str) -> None:
    """The card the turn rules decided, against what the simulator sent."""
    phrase = sentence(api, row.scenario)
    if phrase is not None and not row.fallback:
        row.provider_sentence_on_wire = phrase.lower() in row.wire_text.lower()
    if row.expected_kind is None:
        if row.card is not None and not row.retracted:
            row.problems.append(f"a card ({row.card.get('kind')}) for a turn that was answered")
        if row.wire != "answered":
            row.problems.append(f"the harness did not answer ({row.wire})")
    elif row.card is None:
        if row.scenario == "refusal" and row.wire == "answered" and _is_refusal_text(row):
            pass  # the model's own refusal reached the user as its answer: nothing was lost
        else:
            row.problems.append("no card for a failed turn")
    else:
        kind = row.card.get("kind")
        message = str(row.card.get("message") or "")
        if row.wire == "dropped":
            # The harness lost the reason: the card can only say that the agent completed
            # without a reply (the in-harness reporters close this gap), or more.
            if kind not in (row.expected_kind, "unknown"):
                row.problems.append(f"kind {kind}, expected {row.expected_kind} (or unknown)")
            if kind == "unknown" and "without a reply" not in message:
                row.problems.append("a dropped error must say the agent completed without a reply")
        elif row.provider_sentence_on_wire is False:
            # Reworded or reduced to a status: the card may say less, never something else.
            if kind not in lost_sentence_kinds(row.expected_kind):
                row.problems.append(f"kind {kind}, expected {row.expected_kind} (or unknown)")
        else:
            if kind != row.expected_kind:
                row.problems.append(f"kind {kind}, expected {row.expected_kind}")
            if phrase and phrase.lower() not in message.lower():
                row.problems.append("the provider's sentence was on the wire but not in the card")
    row.verdict = "ok" if not row.problems else "; ".join(row.problems)


def _is_refusal_text(row: Row) -> bool:
    return simulator.REFUSAL_TEXT.lower() in row.wire_text.lower()


def lost_sentence_kinds(expected: str | None) -> set[str | None]:
    """Kinds a card may have when the harness dropped the provider's sentence."""
    kinds: set[str | None] = {expected, "unknown"}
    if expected == "quota":
        kinds.add("rate_limit")  # both are HTTP 429; a bare status cannot tell them apart
    return kinds


def matrix(
    harnesses: list[str] | None, scenarios: list[str] | None
) -> list[tuple[setups.Harness, str, bool]]:
    cases: list[tuple[setups.Harness, str, bool]] = []
    for harness in setups.HARNESS_LIST:
        if harnesses and harness.name not in harnesses:
            continue
        if harness.unsupported:
            cases.append((harness, "-", False))
            continue
        default = (SLOW_SCENARIOS if harness.slow else SCENARIOS) + harness.extra
        for scenario in scenarios or default:
            cases.append((harness, scenario, False))
        if harness.can_fall_back and (not scenarios or "fallback" in scenarios):
            cases.append((harness, "overloaded", True))
    return cases


def run_matrix(
    out: Path, harnesses: list[str] | None = None, scenarios: list[str] | None = None
) -> list[Row]:
    rows = []
    for harness, scenario, fallback in matrix(harnesses, scenarios):
        row = run_case(harness, scenario, fallback, out)
        print(
            f"{row.harness:12} {row.scenario:13}{' (fallback)' if row.fallback else '':11} "
            f"{row.wire:12} card={(row.card or {}).get('kind')!s:22} "
            f"{row.seconds:5.1f}s  {row.verdict}",
            flush=True,
        )
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", action="append", help="only these harnesses")
    parser.add_argument("--scenario", action="append", help="only these scenarios ('fallback' too)")
    parser.add_argument("--out", help="case directories (default: a temporary one)")
    parser.add_argument("--docs", help="write the table here (e.g. docs/harnesses.md)")
    args = parser.parse_args()
    if not setups.installed():
        print("lab: harnesses not installed; run lab/install.sh (make harnesses)", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="roombot-lab-"))
    started = time.monotonic()
    rows = run_matrix(out, args.harness, args.scenario)
    elapsed = time.monotonic() - started
    (out / "rows.json").write_text(json.dumps([asdict(r) for r in rows], indent=2))
    if args.docs:
        from lab import report

        report.write(Path(args.docs), report.markdown(rows, elapsed))
    print(f"lab: {len(rows)} cases in {elapsed:.0f} s; results in {out}")
    return 0 if all(r.verdict == "ok" or r.wire == "unsupported" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
