"""Errors that pose as the answer: the whole-message shapes each harness writes.

Some harnesses report a failed turn by writing the error into an ordinary
agent message chunk and ending the turn normally. Each form below is the
whole message (matched against the stripped text with fullmatch), never a
phrase inside it, so a real answer that talks about errors never fires.

A form either gives its kind itself, or (kind None) carries the provider's
status and body in named groups (`status`, `body`) or a provider sentence
(`message`) for the rules to decide.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cards import Kind

__all__ = ["FORMS", "AnswerForm", "canonical_harness", "forms_for"]

K = Kind


@dataclass(frozen=True, slots=True)
class AnswerForm:
    harnesses: frozenset[str]  # canonical harness names that write this form
    pattern: re.Pattern[str]  # fullmatch against the stripped whole message
    kind: Kind | None  # None: the groups decide (status/body, or message)
    example: str  # the corpus entry it was written from


def form(harnesses: Iterable[str], pattern: str, kind: Kind | None, example: str) -> AnswerForm:
    return AnswerForm(frozenset(harnesses), re.compile(pattern, re.DOTALL), kind, example)


CLAUDE = ("claude-code",)

FORMS: tuple[AnswerForm, ...] = (
    # Claude Code: "API Error: <status> <JSON body>" (the Anthropic SDK's message), or the
    # SDK's no-body form; one line, nothing before or after.
    form(
        CLAUDE,
        r"API Error(?: \([^)\n]*\))?: "
        r"(?P<status>[1-5]\d\d) (?P<body>\{.*\}|status code \(no body\))",
        None,
        "claude-code/api-error-429-json",
    ),
    form(
        CLAUDE,
        r"(?:Please run /login · |Failed to authenticate\. )API Error: (?P<message>[^\n]+)",
        K.AUTH,
        "claude-code/please-run-login-api-error",
    ),
    form(
        CLAUDE,
        r"API Error: Claude Code is unable to respond to this request, which appears to "
        r"violate our Usage Policy[^\n]*",
        K.REFUSAL,
        "claude-code/usage-policy-refusal",
    ),
    form(
        CLAUDE,
        r"API Error: Claude's response exceeded the \d+ output token maximum\.[^\n]*",
        K.MAX_TOKENS,
        "claude-code/output-token-maximum",
    ),
    form(CLAUDE, r"API Error: Rate limit reached", K.RATE_LIMIT, "claude-code/rate-limit-reached"),
    form(
        CLAUDE,
        r"API Error: (?P<message>Connection error\.|Request timed out\.|Request was aborted\.)",
        None,
        "claude-code/api-error-connection",
    ),
    form(
        CLAUDE,
        r"API Error: 400 due to tool use concurrency issues\.[^\n]*",
        K.BAD_REQUEST,
        "claude-code/tool-use-concurrency",
    ),
    form(
        CLAUDE,
        r"API Error: Please wait a moment and try again\.",
        K.UNKNOWN,
        "claude-code/please-wait",
    ),
    form(CLAUDE, r"Prompt is too long", K.CONTEXT_EXHAUSTED, "claude-code/prompt-is-too-long"),
    form(
        CLAUDE,
        r"Context limit reached · /compact or /clear to continue",
        K.CONTEXT_EXHAUSTED,
        "claude-code/context-limit-reached",
    ),
    form(CLAUDE, r"Credit balance is too low", K.QUOTA, "claude-code/credit-balance-too-low"),
    form(
        CLAUDE,
        r"(?:Not logged in · Please run /login|Invalid API key · (?:Fix external API key|"
        r"Please run /login)|OAuth token revoked · Please run /login|Your ANTHROPIC_API_KEY "
        r"belongs to a disabled organization · [^\n]+|Your account does not have access to "
        r"Claude Code\. Please run /login\.)",
        K.AUTH,
        "claude-code/invalid-api-key",
    ),
    form(
        CLAUDE,
        r"Repeated 529 Overloaded errors|Opus is experiencing high load, please use /model to "
        r"switch to Sonnet",
        K.PROVIDER_UNAVAILABLE,
        "claude-code/repeated-529",
    ),
    # Subscription windows: retrying will not help until the window resets.
    form(
        CLAUDE,
        r"(?:You've hit your (?:(?:session|weekly|usage|Opus|Sonnet|monthly spend) )?limit|"
        r"You're out of extra usage|\d+-hour limit reached)(?: [·∙] [^\n]+)?",
        K.QUOTA,
        "claude-code/hit-your-limit",
    ),
    form(
        CLAUDE,
        r"Claude AI usage limit reached\|\d+",
        K.QUOTA,
        "claude-code/usage-limit-reached-epoch",
    ),
)

GEMINI = ("gemini-cli",)
CODEX = ("codex",)
HERMES = ("hermes",)

FORMS += (
    # Gemini CLI (packages/core/src/utils/errorParsing.ts): "[API Error: <message>]" or
    # "[API Error: <message> (Status: RESOURCE_EXHAUSTED)]", then on a 429 its own advice.
    form(
        GEMINI,
        r"\[API Error: (?P<message>.+?)(?: \(Status: (?P<gstatus>[A-Z_]+)\))?\]"
        r"(?:\s*(?:Please wait and try again later\.|Possible quota limitations in place)"
        r"[^\n]*)?",
        None,
        "gemini-cli/api-error-status",
    ),
    # Codex (codex-rs/core/src/error.rs): each failure is one sentence of its own.
    form(
        CODEX,
        r"unexpected status (?P<status>[1-5]\d\d)(?: [A-Z][A-Za-z]*)*: (?P<body>.*?)"
        r"(?:, request id: \S+)?",
        None,
        "codex/unexpected-status-401",
    ),
    form(
        CODEX,
        r"exceeded retry limit, last status: (?P<status>[1-5]\d\d)(?: [A-Z][A-Za-z]*)*"
        r"(?:, request id: \S+)?",
        None,
        "codex/exceeded-retry-limit-429",
    ),
    form(
        CODEX,
        r"(?:Codex ran out of room in the model's context window\.|Quota exceeded\. Check your "
        r"plan and billing details\.|You've hit your usage limit\.|To use Codex with your "
        r"ChatGPT plan, upgrade to Plus|We're currently experiencing high demand|stream "
        r"disconnected before completion: |Connection failed: |turn aborted\. )[^\n]*",
        None,
        "codex/ran-out-of-room-answer",
    ),
    # Hermes (agent/conversation_loop.py): its final_response after giving up.
    form(
        HERMES,
        r"API call failed after \d+ retries: (?:HTTP (?P<status>[1-5]\d\d): )?(?P<message>.+)",
        None,
        "hermes/api-call-failed-429",
    ),
    form(
        HERMES,
        r"Billing or credits exhausted: .+",
        K.QUOTA,
        "hermes/billing-or-credits-exhausted",
    ),
    form(
        HERMES,
        r"(?:Context length exceeded: max compression attempts \(\d+\) reached\.|Context "
        r"length exceeded \([\d,]+ tokens\)\. Cannot compress further\.|Request payload too "
        r"large: max compression attempts \(\d+\) reached\.)",
        None,
        "hermes/context-length-exceeded",
    ),
    form(
        HERMES,
        r"Invalid API response after \d+ retries: [^\n]+",
        K.PROVIDER_UNAVAILABLE,
        "hermes/invalid-api-response",
    ),
    form(
        HERMES,
        r"(?:Error: |I apologize, but I encountered (?:repeated errors|an error while processing "
        r"the model response): )(?P<message>[^\n]+)",
        None,
        "hermes/error-prefix",
    ),
)

_HARNESS_ALIASES: dict[str, str] = {
    "claude-code": "claude-code",
    "claude": "claude-code",
    "claude-agent-acp": "claude-code",
    "claude-code-acp": "claude-code",
    "claudecode": "claude-code",
    "codex": "codex",
    "codex-acp": "codex",
    "gemini": "gemini-cli",
    "gemini-cli": "gemini-cli",
    "opencode": "opencode",
    "pi": "pi",
    "pi-acp": "pi",
    "hermes": "hermes",
    "hermes-agent": "hermes",
    "openclaw": "openclaw",
}


def canonical_harness(name: str | None) -> str | None:
    if name is None:
        return None
    return _HARNESS_ALIASES.get(name.strip().lower())


_BY_HARNESS: dict[str | None, tuple[AnswerForm, ...]] = {}


def forms_for(harness: str | None) -> tuple[AnswerForm, ...]:
    """A known harness: its own forms only. Unknown or unnamed: every form."""
    name = canonical_harness(harness)
    found = _BY_HARNESS.get(name)
    if found is None:
        found = FORMS if name is None else tuple(f for f in FORMS if name in f.harnesses)
        _BY_HARNESS[name] = found
    return found
