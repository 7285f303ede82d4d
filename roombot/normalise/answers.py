"""Errors that pose as the answer: the whole-message shapes each harness writes.

Some harnesses report a failed turn by writing the error into an ordinary
agent message chunk and ending the turn normally. Each form below is the
whole message (matched against the stripped text with fullmatch), never a
phrase inside it, so a real answer that talks about errors never fires.

A form either gives its kind itself, or (kind None) carries the provider's
status and body in named groups (`status`, `body`) or a provider sentence
(`message`) for the rules to decide. A form that gives its kind may name the
message to keep: the group `said` (the provider's or model's own words), else
`lead` (the harness's sentence without its decoration).

A form marked `confirmed` is a shape a real answer could also take ("HTTP 401:
<a sentence>"): it fires only when the words inside are a provider sentence some
rule recognises, never on the status alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cards import Kind
from roombot.normalise.patterns import alternatives, group_end

__all__ = ["FORMS", "AnswerForm", "canonical_harness", "forms_for"]

K = Kind


@dataclass(frozen=True, slots=True)
class AnswerForm:
    harnesses: frozenset[str]  # canonical harness names that write this form
    pattern: re.Pattern[str]  # fullmatch against the stripped whole message
    kind: Kind | None  # None: the groups decide (status/body, or message)
    example: str  # the corpus entry it was written from
    confirmed: bool = False  # fires only when a provider rule (not status alone) decides
    first: frozenset[str] | None = None  # the characters a matching message begins with


def _union(branches: list[str]) -> frozenset[str] | None:
    every: set[str] = set()
    for branch in branches:
        first = _first_chars(branch)
        if first is None:
            return None
        every |= first
    return frozenset(every)


def _first_chars(pattern: str) -> frozenset[str] | None:
    """The characters a form's whole message can begin with, where the pattern says."""
    top = alternatives(pattern)
    if len(top) > 1:
        return _union(top)
    if pattern.startswith("(?:"):
        i = group_end(pattern)
        if i is None or pattern[i + 1 : i + 2] in ("?", "*", "{"):
            return None
        return _union(alternatives(pattern[3:i]))
    if pattern[:1] == "\\" and pattern[1:2] in "[]().*+?{}|^$\\":
        return frozenset(pattern[1])
    if pattern[:1] and pattern[:1] not in "\\[](){}.*+?|^$" and pattern[1:2] not in "?*{":
        return frozenset(pattern[0])
    return None


def form(
    harnesses: Iterable[str],
    pattern: str,
    kind: Kind | None,
    example: str,
    *,
    confirmed: bool = False,
) -> AnswerForm:
    return AnswerForm(
        frozenset(harnesses),
        re.compile(pattern, re.DOTALL),
        kind,
        example,
        confirmed,
        _first_chars(pattern),
    )


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
    # Hermes (run_agent.py _summarize_api_error) for an error it does not retry: the
    # summary alone, "HTTP <status>: <the provider's error.message, at most 300 chars>"
    # (the raw error text, at most 500, when the body had no message). One line.
    form(
        HERMES,
        r"HTTP (?P<status>[1-5]\d\d): (?P<message>[^\n]{1,500})",
        None,
        "hermes/http-401-incorrect-api-key",
        confirmed=True,
    ),
    # The same summary of a proxy's HTML page: "HTTP <status> — <its title>[ — Ray <id>]";
    # a Cloudflare title reads "<host> | <status>: <reason>".
    form(
        HERMES,
        r"HTTP (?P<status>[1-5]\d\d) — (?:[^\n|—]{1,200} \| (?P=status): [^\n—]{1,100}"
        r"(?: — Ray [0-9a-f]{8,20}(?:-[A-Z]{3})?)?|[^\n—]{1,200} — Ray [0-9a-f]{8,20}"
        r"(?:-[A-Z]{3})?)",
        None,
        "hermes/http-502-cloudflare-title",
    ),
    form(
        HERMES,
        r"Malformed provider streaming response: [^\n]{1,300}",
        K.PROVIDER_UNAVAILABLE,
        "hermes/malformed-streaming-response",
    ),
    # agent/conversation_loop.py: a refusal (finish_reason content_filter) and a provider's
    # safety filter, each with the model's or provider's words between fixed sentences.
    form(
        HERMES,
        r"⚠️\s+(?P<lead>The model declined to respond to this request \(safety refusal — not a "
        r"Hermes/gateway failure\)\.)\n\n(?:Model's explanation: (?P<said>.+?)|The model "
        r"returned no explanation\.)\n\nTry rephrasing the request, narrowing the context, or "
        r"adding a fallback provider with `hermes fallback add`\.",
        K.REFUSAL,
        "hermes/safety-refusal-no-explanation",
    ),
    form(
        HERMES,
        r"⚠️\s+(?P<lead>The model provider's safety filter blocked this request \(not a "
        r"Hermes/gateway failure\)\.)\n\nProvider message: (?:HTTP [1-5]\d\d: )?(?P<said>.+?)"
        r"\n\nTry rephrasing the request, narrowing the context, or adding a fallback "
        r"provider with `hermes fallback add`\.",
        K.REFUSAL,
        "hermes/provider-safety-filter",
    ),
    form(
        HERMES,
        r"⚠️ \*\*Thinking Budget Exhausted\*\*\n\n(?P<lead>The model used all its output "
        r"tokens on reasoning and had none left for the actual response\.)\n\nTo fix this:\n"
        r"→ Lower reasoning effort: `/thinkon low` or `/thinkon minimal`\n"
        r"→ Or switch to a larger/non-reasoning model with `/model`",
        K.MAX_TOKENS,
        "hermes/thinking-budget-exhausted",
    ),
    form(
        HERMES,
        r"(?:First response|Response) truncated due to output length limit",
        K.MAX_TOKENS,
        "hermes/response-truncated",
    ),
    form(
        HERMES,
        r"Request payload too large \(413\)\. Cannot compress further\.|Context overflow and "
        r"auto-compaction is disabled \(compression\.enabled: false\)\. Run /compress to "
        r"compact manually, /new to start fresh, or switch to a larger-context model\."
        r"|(?P<lead>Ollama loaded `[^`\n]{1,200}` with only [\d,]+ tokens of runtime context, "
        r"but Hermes needs at least [\d,]+ tokens for reliable tool use\.)\n\nIncrease the "
        r"Ollama context for this model [^\n]+",
        K.CONTEXT_EXHAUSTED,
        "hermes/payload-too-large-413",
    ),
    form(
        HERMES,
        r"max_tokens exceeds the provider's output cap for this model\. Lower "
        r"model\.max_tokens in config\.yaml\.",
        K.BAD_REQUEST,
        "hermes/max-tokens-over-output-cap",
    ),
    form(
        HERMES,
        r"Stream repeatedly dropped mid tool-call \(network\); the tool was not executed",
        K.PROVIDER_UNAVAILABLE,
        "hermes/stream-dropped-mid-tool-call",
    ),
    form(
        HERMES,
        r"⏳ (?P<said>Nous Portal rate limit active — resets in [^\n]{1,40}\.)\n\nNo fallback "
        r"provider available\. Try again after the reset, or add a fallback provider in "
        r"config\.yaml\.",
        K.RATE_LIMIT,
        "hermes/nous-rate-limit",
    ),
    # Failures Hermes gives up on that no kind describes: the answer was malformed.
    form(
        HERMES,
        r"Incomplete REASONING_SCRATCHPAD after \d+ retries|Codex response remained incomplete "
        r"after \d+ continuation attempts|Model generated invalid tool call: [^\n]{1,100}",
        K.UNKNOWN,
        "hermes/invalid-tool-call",
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
_BY_FIRST: dict[tuple[str | None, str], tuple[AnswerForm, ...]] = {}


def forms_for(harness: str | None, first: str | None = None) -> tuple[AnswerForm, ...]:
    """A known harness: its own forms only. Unknown or unnamed: every form.

    With `first`, the first character of the message: only the forms a message opening
    with it can match (a form is a whole-message shape, so most are ruled out at once).
    """
    name = canonical_harness(harness)
    found = _BY_HARNESS.get(name)
    if found is None:
        found = FORMS if name is None else tuple(f for f in FORMS if name in f.harnesses)
        _BY_HARNESS[name] = found
    if first is None:
        return found
    key = (name, first)
    narrowed = _BY_FIRST.get(key)
    if narrowed is None:
        narrowed = tuple(f for f in found if f.first is None or first in f.first)
        if len(_BY_FIRST) < 4096:
            _BY_FIRST[key] = narrowed
    return narrowed
