"""The ironflow engine's AgentError variants: each one's kind, and why.

serde writes the enum externally tagged: a unit variant as its name
("Timeout"), any other as {"Variant": payload}. docs/error-forms.md prints
this table; keep the reasons there and here the same by generating from here.
"""

from __future__ import annotations

from cards import Kind

# variant -> (kind, or None when the variant's own fields decide; the reason)
VARIANTS: dict[str, tuple[Kind | None, str]] = {
    "ProcessFailed": (
        Kind.HARNESS_EXITED,
        "the agent CLI process ended with a failure status: the harness exited mid-turn.",
    ),
    "SchemaValidation": (
        Kind.UNKNOWN,
        "the model answered, but its answer did not fit the step's output schema. The "
        "provider did not reject anything and no limit was hit: no kind of the vocabulary "
        "describes a malformed answer, so it is reported as not fitting rather than squeezed "
        "into bad_request (which means the provider refused the request).",
    ),
    "BudgetExceeded": (
        Kind.QUOTA,
        "the run spent the money cap it was given (the CLI's max budget in USD). Like a "
        "provider spend limit, retrying will not help until someone raises the budget.",
    ),
    "Api": (
        None,
        "a model API error relayed by the agent CLI: its status, code and message are read "
        "by the same rules as an HTTP answer (status alone when the message says nothing).",
    ),
    "PromptTooLarge": (
        Kind.CONTEXT_EXHAUSTED,
        "the prompt was estimated larger than the model's context window before sending.",
    ),
    "Timeout": (
        Kind.TIMEOUT,
        "the step ran past its time limit and was given up.",
    ),
    "RateLimited": (
        Kind.RATE_LIMIT,
        "the provider throttled the step; retry_after_secs becomes retry_after.",
    ),
    "HttpProvider": (
        None,
        "an HTTP provider's answer: status_code and message are read as an HTTP answer from "
        "that provider; status 0 is a transport failure (provider_unavailable, or timeout for "
        "a read timeout).",
    ),
    "UnknownToolProfile": (
        Kind.BAD_REQUEST,
        "the step asked for a tool profile the provider does not have: the request itself "
        "is wrong and fails the same way every time, which is what bad_request means.",
    ),
    "ToolProfileUnsupported": (
        Kind.BAD_REQUEST,
        "the step asked a provider that has no tool profiles (the Claude CLI) for one: a "
        "request this provider cannot take, the same every time.",
    ),
    "NoCapacity": (
        Kind.QUOTA,
        "every account of the wanted kind is at its usage limit (next_reset says when a "
        "window resets): a subscription window, not per-minute throttling.",
    ),
    "CapacityWait": (
        None,
        "not a failure: the engine is waiting for capacity and will run the step later. It "
        "never becomes a card (is_failure() says False; classify gives unknown if asked).",
    ),
    "AccountNotFound": (
        Kind.AUTH,
        "the step names an account (a set of credentials) that is not configured: the "
        "credentials to call the provider are missing, which auth covers.",
    ),
}

NOT_FAILURES: frozenset[str] = frozenset({"CapacityWait"})


def variant(value: object) -> tuple[str, object] | None:
    """The variant name and its payload from serde's externally tagged form."""
    if isinstance(value, str) and value:
        return value, None
    if isinstance(value, dict) and len(value) == 1:
        ((name, payload),) = value.items()
        if isinstance(name, str):
            return name, payload
    return None
