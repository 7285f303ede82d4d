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


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _name(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _seconds(limit: object) -> str | None:
    """A serde Duration ({"secs", "nanos"}) or plain seconds -> "600 s"."""
    if isinstance(limit, dict):
        secs, nanos = _num(limit.get("secs")), _num(limit.get("nanos")) or 0.0
        if secs is None:
            return None
        return f"{secs + nanos / 1e9:g} s"
    n = _num(limit)
    return f"{n:g} s" if n is not None else None


def sentence(name: str, fields: dict[str, object] | object) -> str:
    """A readable sentence for a variant that carries fields but no words of its own.

    Built from the fields the way ironflow's own display text reads; the raw
    serde JSON stays beside it (Normalised.raw).
    """
    f: dict[str, object] = fields if isinstance(fields, dict) else {}
    said: str | None = None
    if name == "BudgetExceeded":
        spent = _num(f.get("spent_usd", f.get("cost_usd")))
        limit = _num(f.get("limit_usd", f.get("max_budget_usd")))
        if spent is not None and limit is not None:
            said = f"budget exceeded: spent {spent:.2f} USD of the {limit:.2f} USD limit"
        elif limit is not None:
            said = f"budget exceeded: the {limit:.2f} USD limit is spent"
        else:
            said = "budget exceeded"
    elif name == "RateLimited":
        who = _name(f.get("provider"))
        wait = _num(f.get("retry_after_secs"))
        said = f"rate limited by {who}" if who else "rate limited"
        if wait is not None and wait >= 0:
            said += f", retry after {wait:g} s"
    elif name in ("NoCapacity", "CapacityWait"):
        who, when = _name(f.get("kind")), _name(f.get("next_reset") or f.get("wake_at"))
        what = "no capacity" if name == "NoCapacity" else "waiting for capacity"
        said = f"{what} for {who}" if who else what
        if when:
            said += f", next reset at {when}" if name == "NoCapacity" else f" until {when}"
    elif name == "PromptTooLarge":
        tokens, limit = _num(f.get("estimated_tokens")), _num(f.get("model_limit"))
        chars = _num(f.get("chars"))
        if tokens is not None and limit is not None:
            size = f"about {tokens:,.0f} tokens"
            if chars is not None:
                size += f" ({chars:,.0f} characters)"
            said = f"prompt too large: {size}, over the model's limit of {limit:,.0f} tokens"
        else:
            said = "prompt too large for the model's context window"
    elif name == "Timeout":
        limit_text = _seconds(f.get("limit"))
        said = f"timed out after {limit_text}" if limit_text else "timed out"
    elif name == "ProcessFailed":
        code = _num(f.get("exit_code"))
        said = f"the agent process exited with code {code:g}" if code is not None else None
    elif name == "SchemaValidation":
        expected, got = _name(f.get("expected")), _name(f.get("got"))
        if expected and got:
            said = f"schema validation failed: expected {expected}, got {got}"
    elif name == "UnknownToolProfile":
        profile = _name(f.get("profile"))
        available = f.get("available")
        names = [a for a in available if isinstance(a, str)] if isinstance(available, list) else []
        if profile:
            said = f"unknown tool profile '{profile}' (available: {', '.join(names) or 'none'})"
    elif name == "ToolProfileUnsupported":
        who, profile = _name(f.get("provider")), _name(f.get("profile"))
        if who and profile:
            said = f"{who} does not support tool profiles (the step asked for '{profile}')"
    elif name == "AccountNotFound":
        account = _name(f.get("name"))
        said = f"account '{account}' not found" if account else "account not found"
    return said or f"{name}: {VARIANTS[name][1]}" if name in VARIANTS else (said or name)
