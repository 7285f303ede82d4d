"""The closed vocabulary of failure kinds: the one place they are defined.

Every other module (codec, renderers, normalisers, README table) reads this
enum; nothing else may spell a kind.
"""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """Why a turn failed. No other value exists; `UNKNOWN` means "fits none"."""

    QUOTA = "quota"
    RATE_LIMIT = "rate_limit"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    CONTEXT_EXHAUSTED = "context_exhausted"
    TIMEOUT = "timeout"
    PROVIDER_UNAVAILABLE = "provider_unavailable"
    REFUSAL = "refusal"
    MAX_TOKENS = "max_tokens"
    CANCELLED = "cancelled"
    NODE_OFFLINE = "node_offline"
    HARNESS_EXITED = "harness_exited"
    UNKNOWN = "unknown"

    @property
    def label(self) -> str:
        return _TITLES[self][0]

    @property
    def meaning(self) -> str:
        return _TITLES[self][1]

    @classmethod
    def read(cls, value: object) -> Kind:
        """A kind from a card: anything not in the vocabulary reads as UNKNOWN."""
        if isinstance(value, str):
            try:
                return cls(value)
            except ValueError:
                pass
        return cls.UNKNOWN


# (short human label, one-line meaning); the README's table is made from this.
_TITLES: dict[Kind, tuple[str, str]] = {
    Kind.QUOTA: (
        "Quota exhausted",
        "Billing, credits or a hard or daily limit ran out: retrying will not help "
        "until someone pays or the window resets.",
    ),
    Kind.RATE_LIMIT: (
        "Rate limited",
        "Per-minute or per-second throttling: the same request will pass if retried later.",
    ),
    Kind.AUTH: (
        "Authentication failed",
        "The key or token is missing, invalid, expired or lacks permission for this model.",
    ),
    Kind.BAD_REQUEST: (
        "Bad request",
        "The provider rejected the request itself (unknown model, invalid parameter, "
        "malformed input).",
    ),
    Kind.CONTEXT_EXHAUSTED: (
        "Context window exhausted",
        "The prompt and history are larger than the model's context window.",
    ),
    Kind.TIMEOUT: (
        "Timed out",
        "The provider or the turn took longer than its limit and was given up.",
    ),
    Kind.PROVIDER_UNAVAILABLE: (
        "Provider unavailable",
        "The provider is overloaded, down, answered 5xx, or could not be reached.",
    ),
    Kind.REFUSAL: (
        "Refused",
        "A safety system or content policy blocked the request or the answer.",
    ),
    Kind.MAX_TOKENS: (
        "Answer cut off",
        "The model hit its output-token or turn-request limit before finishing.",
    ),
    Kind.CANCELLED: (
        "Cancelled",
        "Someone cancelled the turn before it finished.",
    ),
    Kind.NODE_OFFLINE: (
        "Node offline",
        "The machine running the harness went away while the turn was open.",
    ),
    Kind.HARNESS_EXITED: (
        "Harness exited",
        "The harness process ended while the turn was open.",
    ),
    Kind.UNKNOWN: (
        "Unknown failure",
        "The turn failed in a way that fits no other kind; the message says what is known.",
    ),
}
