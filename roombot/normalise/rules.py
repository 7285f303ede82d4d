"""The classification rules, as data: one table per provider family, read top to bottom.

A rule names what must hold (HTTP status, error code, error type, an anchored
pattern on the provider's sentence or on the body's details) and the kind it
gives. The first rule of a chain that holds decides. Every rule carries
`example`, the id of the corpus entry (tests/normalise/corpus/) it was written
from; a test checks that this very entry is decided by this very rule.

Patterns are compiled once, case-insensitive. Message patterns are phrases the
provider writes at a fixed place (most start with `^`); a bare word such as
"quota" never decides alone.

Codes and types are compared lower-cased. For Google bodies `code` is the
canonical status (RESOURCE_EXHAUSTED), for Bedrock the exception name
(ThrottlingException), for OpenAI-shaped bodies `error.code`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cards import Kind

K = Kind


@dataclass(frozen=True, slots=True)
class Rule:
    kind: Kind
    example: str  # the corpus entry this rule was written from
    status: frozenset[int] = frozenset()  # empty: any status
    code: frozenset[str] = frozenset()  # lower-case; empty: any
    type: frozenset[str] = frozenset()  # lower-case; empty: any
    message: re.Pattern[str] | None = None  # searched in the provider's sentence
    detail: re.Pattern[str] | None = None  # searched in the body's other strings
    min_retry: int | None = None  # holds only when retry_after >= this many seconds
    max_retry: int | None = None  # holds only when retry_after <= this many seconds

    @property
    def name(self) -> str:
        return self.example


def rule(
    kind: Kind,
    example: str,
    *,
    status: Iterable[int] = (),
    code: Iterable[str] = (),
    type: Iterable[str] = (),
    message: str | None = None,
    detail: str | None = None,
    min_retry: int | None = None,
    max_retry: int | None = None,
) -> Rule:
    return Rule(
        kind=kind,
        example=example,
        status=frozenset(status),
        code=frozenset(c.lower() for c in code),
        type=frozenset(t.lower() for t in type),
        message=re.compile(message, re.IGNORECASE) if message is not None else None,
        detail=re.compile(detail, re.IGNORECASE) if detail is not None else None,
        min_retry=min_retry,
        max_retry=max_retry,
    )


# --- Anthropic: {"type": "error", "error": {"type": ..., "message": ...}} ------------------

ANTHROPIC: tuple[Rule, ...] = (
    rule(K.PROVIDER_UNAVAILABLE, "anthropic/overloaded-529", type=["overloaded_error"]),
    # A spend cap arrives as 429 rate_limit_error too; its wording (or a details code
    # such as enforced_spend_limit_reached) tells it apart.
    rule(
        K.QUOTA,
        "anthropic/spend-limit-429",
        type=["rate_limit_error"],
        detail=r"spend_limit",
    ),
    rule(
        K.QUOTA,
        "anthropic/usage-limits-400",
        message=r"^you have reached your specified (?:api )?usage limits",
    ),
    rule(K.RATE_LIMIT, "anthropic/rate-limit-input-tokens", type=["rate_limit_error"]),
    rule(K.AUTH, "anthropic/invalid-x-api-key", type=["authentication_error"]),
    rule(K.AUTH, "anthropic/permission-error", type=["permission_error"]),
    rule(K.BAD_REQUEST, "anthropic/model-not-found", type=["not_found_error"]),
    rule(K.QUOTA, "anthropic/billing-error-402", type=["billing_error"]),
    rule(
        K.CONTEXT_EXHAUSTED,
        "anthropic/prompt-too-long",
        type=["invalid_request_error"],
        message=r"^prompt is too long\b|^input length and `max_tokens` exceed context limit",
    ),
    rule(
        K.QUOTA,
        "anthropic/credit-balance-too-low",
        type=["invalid_request_error"],
        message=r"^your credit balance is too low",
    ),
    rule(
        K.REFUSAL,
        "anthropic/output-blocked-policy",
        message=r"^output blocked by content filtering policy",
    ),
    rule(K.BAD_REQUEST, "anthropic/max-tokens-too-large", type=["invalid_request_error"]),
    rule(K.BAD_REQUEST, "anthropic/request-too-large-413", type=["request_too_large"]),
    rule(K.TIMEOUT, "anthropic/timeout-error-504", type=["timeout_error"]),
    rule(K.PROVIDER_UNAVAILABLE, "anthropic/api-error-500", type=["api_error"]),
)

# --- OpenAI and every server speaking its shape: {"error": {"message", "type", "code"}} ------
# Azure OpenAI, Groq, DeepSeek, xAI, Mistral, OpenRouter, vLLM, LM Studio, llama.cpp.

OPENAI: tuple[Rule, ...] = (
    rule(K.QUOTA, "openai/insufficient-quota", code=["insufficient_quota"]),
    rule(K.QUOTA, "openai/insufficient-quota-type", type=["insufficient_quota"]),
    rule(K.QUOTA, "openai/billing-hard-limit", code=["billing_hard_limit_reached"]),
    rule(K.QUOTA, "openai/billing-not-active", code=["billing_not_active"]),
    rule(
        K.CONTEXT_EXHAUSTED,
        "openai/context-length-exceeded",
        code=["context_length_exceeded", "string_above_max_length"],
    ),
    rule(
        K.CONTEXT_EXHAUSTED,
        "local/llamacpp-exceed-context",
        type=["exceed_context_size_error"],
    ),
    rule(
        K.CONTEXT_EXHAUSTED,
        "local/vllm-max-context",
        message=r"^this model's maximum context length is \d+ tokens"
        r"|^your input exceeds the context window of this model"
        r"|^the request exceeds the available context size"
        r"|^(?:the )?(?:input|prompt) (?:is )?too long"
        r"|^trying to keep the first \d+ tokens when context the overflows",
    ),
    # Daily windows (Groq "tokens per day (TPD)", OpenRouter "free-models-per-day")
    # come as 429 rate limits, but retrying within minutes will not help.
    rule(
        K.QUOTA,
        "groq/tokens-per-day",
        message=r" per day \((?:rpd|tpd|asd|ash)\)|^rate limit exceeded: free-models-per-day",
    ),
    rule(K.RATE_LIMIT, "openai/rate-limit-tpm", code=["rate_limit_exceeded"]),
    rule(K.RATE_LIMIT, "openai/rate-limit-rpm-type", status=[429], type=["requests", "tokens"]),
    rule(
        K.REFUSAL,
        "azure/content-filter-prompt",
        code=["content_filter", "content_policy_violation", "responsibleaipolicyviolation"],
    ),
    rule(
        K.REFUSAL,
        "openai/safety-system-rejected",
        message=r"^your request was rejected as a result of our safety system",
    ),
    # a key used with another project's OpenAI-Project header is the key's fault, not the body's
    rule(
        K.AUTH,
        "openai/invalid-api-key",
        code=["invalid_api_key", "invalid_authentication", "mismatched_project"],
    ),
    rule(K.AUTH, "openai/incorrect-api-key-message", message=r"^incorrect api key provided"),
    rule(K.AUTH, "openai/unsupported-country", code=["unsupported_country_region_territory"]),
    rule(K.BAD_REQUEST, "openai/model-not-found", code=["model_not_found"]),
    # A parameter the API refuses: decided here, since a relayed body may come without
    # its status (codex-acp hands on the body alone).
    rule(
        K.BAD_REQUEST,
        "openai/invalid-value-temperature",
        code=["invalid_value", "unsupported_parameter"],
    ),
    # Servers with an OpenAI-shaped body, each with its own type for a request it will not
    # take, whatever the status: llama.cpp's 501 for a feature not enabled, Mistral's 400.
    rule(
        K.BAD_REQUEST,
        "wild/harvest17_sdk/rig-cassette-llamacpp-embeddings-not-enabled-501",
        type=["not_supported_error"],
    ),
    rule(
        K.BAD_REQUEST,
        "wild/harvest17_sdk/rig-cassette-mistral-too-many-inputs-batch",
        type=["invalid_request_prompt"],
    ),
    rule(K.PROVIDER_UNAVAILABLE, "openai/server-error", type=["server_error"]),
    rule(K.PROVIDER_UNAVAILABLE, "openai/server-error-code", code=["server_error"]),
    rule(K.AUTH, "openai/authentication-error-type", type=["authentication_error"]),
)

# OpenRouter adds its own codes and words in front of the OpenAI shape.
OPENROUTER: tuple[Rule, ...] = (
    rule(
        K.QUOTA,
        "openrouter/insufficient-credits-402",
        status=[402],
    ),
    rule(
        K.REFUSAL,
        "openrouter/moderation-403",
        status=[403],
        message=r"requires moderation|was flagged",
    ),
    rule(
        K.RATE_LIMIT,
        "openrouter/upstream-rate-limited",
        status=[429],
        detail=r"temporarily rate-limited upstream",
    ),
    rule(K.QUOTA, "openrouter/key-limit-exceeded", message=r"^key limit exceeded"),
    rule(
        K.BAD_REQUEST,
        "openrouter/no-endpoints",
        message=r"^no endpoints found that support\b",
    ),
)

# DeepSeek: 402 "Insufficient Balance" in an OpenAI-shaped body.
DEEPSEEK: tuple[Rule, ...] = (
    rule(K.QUOTA, "deepseek/insufficient-balance-402", message=r"^insufficient balance"),
)

# xAI: {"code": "<gRPC status text>", "error": "<sentence>"}.
XAI: tuple[Rule, ...] = (
    rule(
        K.QUOTA,
        "xai/credits-or-spending-limit",
        message=r"has either used all available credits or reached its monthly spending limit",
    ),
    rule(
        K.AUTH,
        "xai/incorrect-api-key",
        message=r"^incorrect api key provided",
    ),
    rule(
        K.BAD_REQUEST,
        "xai/model-not-found",
        message=r"^the model \S+ does not exist or your team",
    ),
    rule(
        K.CONTEXT_EXHAUSTED,
        "xai/maximum-prompt-length",
        message=r"^this model's maximum prompt length is \d+",
    ),
)

# Mistral: {"object": "error", "message": ..., "type": ..., "code": ...}.
MISTRAL: tuple[Rule, ...] = (
    rule(
        K.PROVIDER_UNAVAILABLE,
        "mistral/capacity-exceeded",
        code=["3505", "service_tier_capacity_exceeded"],
    ),
    rule(K.RATE_LIMIT, "mistral/requests-rate-limit", message=r"^requests rate limit exceeded"),
    rule(K.AUTH, "mistral/unauthorized", status=[401], message=r"^unauthorized"),
    rule(
        K.CONTEXT_EXHAUSTED,
        "mistral/prompt-too-large",
        message=r"^prompt contains \d+ tokens.{0,40}too large for model with \d+ maximum context",
    ),
)

# Ollama: {"error": "<sentence>"}.
OLLAMA: tuple[Rule, ...] = (
    rule(
        K.BAD_REQUEST,
        "ollama/model-not-found-pull",
        message=r"^model ['\"]?[^'\"]+['\"]? not found",
    ),
    rule(
        K.PROVIDER_UNAVAILABLE,
        "ollama/runner-terminated",
        message=r"^llama runner process (?:has terminated|no longer running)"
        r"|^model requires more system memory",
    ),
    rule(
        K.CONTEXT_EXHAUSTED,
        "ollama/input-exceeds-context",
        message=r"^(?:the )?input length exceeds the context length",
    ),
)

# --- Google Gemini API and Vertex AI: {"error": {"code": 429, "message", "status", "details"}} --

GOOGLE: tuple[Rule, ...] = (
    # RESOURCE_EXHAUSTED covers per-minute and per-day limits alike; the details decide.
    rule(
        K.QUOTA,
        "gemini/resource-exhausted-per-day",
        code=["resource_exhausted"],
        detail=r"PerDay|per_day|PerMonth",
    ),
    rule(
        K.RATE_LIMIT,
        "gemini/resource-exhausted-per-minute",
        code=["resource_exhausted"],
        detail=r"PerMinute|per_minute|PerSecond",
    ),
    rule(
        K.QUOTA,
        "gemini/resource-exhausted-limit-0",
        code=["resource_exhausted"],
        message=r"\blimit: 0\b",
    ),
    rule(
        K.QUOTA,
        "gemini/resource-exhausted-long-delay",
        code=["resource_exhausted"],
        min_retry=600,
    ),
    rule(K.QUOTA, "gemini/billing-disabled", detail=r"BILLING_DISABLED"),
    rule(K.QUOTA, "gemini/prepayment-credits-depleted", message=r"prepayment credits are depleted"),
    rule(K.RATE_LIMIT, "vertex/resource-exhausted-429", code=["resource_exhausted"]),
    rule(K.AUTH, "gemini/api-key-invalid-400", detail=r"API_KEY_INVALID|API_KEY_EXPIRED"),
    rule(K.AUTH, "gemini/api-key-not-valid-message", message=r"^API key (?:not valid|expired)"),
    rule(
        K.CONTEXT_EXHAUSTED,
        "gemini/input-token-count-exceeds",
        code=["invalid_argument"],
        message=r"^the input token count(?: \(\d+\))? exceeds the maximum number of tokens",
    ),
    rule(K.AUTH, "gemini/user-location-not-supported", message=r"^user location is not supported"),
    rule(K.AUTH, "gemini/permission-denied", code=["permission_denied"]),
    rule(K.AUTH, "gemini/unauthenticated", code=["unauthenticated"]),
    rule(K.BAD_REQUEST, "gemini/not-found-model", code=["not_found"]),
    rule(
        K.BAD_REQUEST, "gemini/invalid-argument", code=["invalid_argument", "failed_precondition"]
    ),
    rule(K.TIMEOUT, "gemini/deadline-exceeded", code=["deadline_exceeded"]),
    rule(K.PROVIDER_UNAVAILABLE, "gemini/unavailable-overloaded", code=["unavailable"]),
    rule(K.PROVIDER_UNAVAILABLE, "gemini/internal-500", code=["internal"]),
    rule(K.CANCELLED, "gemini/cancelled-499", code=["cancelled"]),
)

# --- AWS Bedrock: the exception name (x-amzn-ErrorType, __type, or the SDK's sentence) --------

BEDROCK: tuple[Rule, ...] = (
    rule(
        K.QUOTA,
        "bedrock/too-many-tokens-per-day",
        code=["throttlingexception"],
        message=r"^too many tokens per day",
    ),
    rule(K.RATE_LIMIT, "bedrock/throttling", code=["throttlingexception"]),
    rule(K.QUOTA, "bedrock/service-quota-exceeded", code=["servicequotaexceededexception"]),
    rule(
        K.CONTEXT_EXHAUSTED,
        "bedrock/input-too-long",
        code=["validationexception"],
        message=r"^input is too long for requested model"
        r"|^prompt is too long\b|too many input tokens|exceeds? (?:the )?(?:model's )?"
        r"(?:maximum )?context (?:window|length)",
    ),
    rule(K.BAD_REQUEST, "bedrock/validation-model-identifier", code=["validationexception"]),
    rule(
        K.AUTH,
        "bedrock/access-denied-model",
        code=[
            "accessdeniedexception",
            "unrecognizedclientexception",
            "expiredtokenexception",
            "invalidsignatureexception",
            "missingauthenticationtokenexception",
        ],
    ),
    rule(K.BAD_REQUEST, "bedrock/resource-not-found", code=["resourcenotfoundexception"]),
    rule(K.PROVIDER_UNAVAILABLE, "bedrock/model-not-ready", code=["modelnotreadyexception"]),
    rule(
        K.PROVIDER_UNAVAILABLE,
        "bedrock/service-unavailable",
        code=[
            "serviceunavailableexception",
            "internalserverexception",
            "modelerrorexception",
            "modelstreamerrorexception",
        ],
    ),
    rule(K.TIMEOUT, "bedrock/model-timeout", code=["modeltimeoutexception"]),
)

# --- Transport failures (HTTP status 0): the client library's own sentence ------------------

TRANSPORT: tuple[Rule, ...] = (
    # A read timeout means the request went out and no answer came in time: timeout.
    # Failing to connect at all (refused, DNS, TLS, connect timeout) is provider_unavailable.
    rule(
        K.TIMEOUT,
        "transport/read-timeout-python",
        status=[0],
        message=r"read timed? ?out|\bETIMEDOUT\b.*\bread\b|^read ETIMEDOUT|^ReadTimeout"
        r"|^request timed out\.?$|^timeout awaiting 'request' for \d+ms"
        r"|^(?:the )?operation timed out$|headers timeout|^UND_ERR_HEADERS_TIMEOUT"
        r"|^UND_ERR_BODY_TIMEOUT|body timeout",
    ),
    rule(
        K.CANCELLED,
        "transport/request-aborted",
        status=[0],
        message=r"^request was aborted\.?$|^the operation was aborted\.?$|^AbortError",
    ),
    rule(K.PROVIDER_UNAVAILABLE, "transport/econnrefused", status=[0]),
)

# --- Status alone, when no rule above spoke: the last links of every chain ------------------

BY_STATUS: tuple[Rule, ...] = (
    rule(K.AUTH, "status/401", status=[401, 403, 407, 451]),  # 451: a block for legal reasons
    rule(K.QUOTA, "status/402", status=[402]),
    rule(K.TIMEOUT, "status/408", status=[408]),
    rule(K.CONTEXT_EXHAUSTED, "status/413-context", status=[413], message=r"context|tokens"),
    rule(K.BAD_REQUEST, "status/404", status=[400, 404, 405, 409, 413, 415, 422]),
    rule(K.RATE_LIMIT, "status/429", status=[429]),
    rule(K.CANCELLED, "status/499", status=[499]),
    # A gateway that gave up waiting (504; Cloudflare's 524): the answer took too long.
    rule(
        K.TIMEOUT,
        "wild/wild_harvest8_frontends/cherry-studio-504-status-code-no-body",
        status=[504, 524],
    ),
    rule(K.PROVIDER_UNAVAILABLE, "status/503", status=range(500, 600)),
)

# --- A harness's own name for the failure, in the JSON-RPC error's data --------------------
# OpenCode puts its error class in data.errorName; codex-acp its CodexErrorInfo in
# data.codex_error_info (a string, or an object keyed by the variant). The name is the
# harness's own judgement, made from the provider's answer it saw whole, so it decides
# before the words; names that say nothing definite (APIError, UnknownError, "other")
# are left to the words. `code` is the name, lower-cased.

HARNESS_ERRORS: tuple[Rule, ...] = (
    rule(K.CONTEXT_EXHAUSTED, "opencode/context-overflow", code=["contextoverflowerror"]),
    rule(
        K.CONTEXT_EXHAUSTED,
        "codex/error-info-context-window",
        code=["context_window_exceeded"],
    ),
    rule(K.QUOTA, "codex/error-info-usage-limit", code=["usage_limit_exceeded"]),
    rule(K.PROVIDER_UNAVAILABLE, "codex/error-info-server-overloaded", code=["server_overloaded"]),
)
