"""The one small engine: the signals read from a failure, and the first rule that holds.

`Signals` is what every error form is reduced to before the rules look at it.
`chain(shape, provider)` picks the tables for a body shape and a provider (its
own rules first, then its family's, then status alone), built once and cached.
"""

from __future__ import annotations

from dataclasses import dataclass

from roombot.normalise import rules as R
from roombot.normalise.rules import Rule

__all__ = ["Signals", "canonical_provider", "chain", "decide"]


@dataclass(frozen=True, slots=True)
class Signals:
    status: int | None  # HTTP status; 0 for a transport failure
    code: str  # lower-case; "" when absent
    type: str  # lower-case; "" when absent
    message: str  # the provider's own sentence
    detail: str  # the body's other strings (quota ids, reasons, inner codes), newline-joined
    retry_after: int | None


def decide(rules: tuple[Rule, ...], sig: Signals) -> Rule | None:
    """The first rule whose every condition holds, or None."""
    for r in rules:
        if r.status and sig.status not in r.status:
            continue
        if r.code and sig.code not in r.code:
            continue
        if r.type and sig.type not in r.type:
            continue
        if r.min_retry is not None and (sig.retry_after is None or sig.retry_after < r.min_retry):
            continue
        if r.message is not None and r.message.search(sig.message) is None:
            continue
        if r.detail is not None and r.detail.search(sig.detail) is None:
            continue
        return r
    return None


# Names a provider goes by -> the one name cards use.
_ALIASES: dict[str, str] = {
    "anthropic": "anthropic",
    "claude": "anthropic",
    "openai": "openai",
    "azure": "azure",
    "azure-openai": "azure",
    "azure_openai": "azure",
    "azureopenai": "azure",
    "gemini": "gemini",
    "google": "gemini",
    "google-gemini": "gemini",
    "vertex": "vertex",
    "vertex-ai": "vertex",
    "vertex_ai": "vertex",
    "vertexai": "vertex",
    "google-vertex": "vertex",
    "bedrock": "bedrock",
    "amazon-bedrock": "bedrock",
    "aws-bedrock": "bedrock",
    "aws": "bedrock",
    "openrouter": "openrouter",
    "mistral": "mistral",
    "mistralai": "mistral",
    "groq": "groq",
    "deepseek": "deepseek",
    "xai": "xai",
    "x-ai": "xai",
    "grok": "xai",
    "ollama": "ollama",
    "lmstudio": "lmstudio",
    "lm-studio": "lmstudio",
    "vllm": "vllm",
    "llamacpp": "llamacpp",
    "llama.cpp": "llamacpp",
    "llama-cpp": "llamacpp",
}


def canonical_provider(name: str | None) -> str | None:
    """The card's name for a provider; an unknown name is kept as given."""
    if name is None:
        return None
    return _ALIASES.get(name.strip().lower(), name)


_FAMILY: dict[str, tuple[Rule, ...]] = {
    "anthropic": R.ANTHROPIC,
    "openai": R.OPENAI,
    "google": R.GOOGLE,
    "bedrock": R.BEDROCK,
    "transport": R.TRANSPORT,
    "text": R.TEXT,
}
# A provider's own rules, tried before its family's.
_OWN: dict[str, tuple[Rule, ...]] = {
    "openrouter": R.OPENROUTER,
    "deepseek": R.DEEPSEEK,
    "xai": R.XAI,
    "mistral": R.MISTRAL,
    "ollama": R.OLLAMA,
}
_CHAINS: dict[tuple[str, str | None], tuple[Rule, ...]] = {}


def chain(shape: str, provider: str | None) -> tuple[Rule, ...]:
    """The rules for a body of this shape from this provider, in the order they are tried."""
    key = (shape, provider)
    found = _CHAINS.get(key)
    if found is not None:
        return found
    own = _OWN.get(provider or "", ()) if shape in ("openai", "plain", "xai") else ()
    if shape == "text":
        rules = R.TEXT + R.BY_STATUS
    elif shape == "transport":
        rules = R.TRANSPORT
    elif shape in ("plain", "xai"):
        # {"error": "<sentence>"} (Ollama, xAI): every provider's own rules may apply.
        extra = own if own else R.OLLAMA + R.XAI
        rules = extra + R.OPENAI + R.TEXT + R.BY_STATUS
    else:
        rules = own + _FAMILY.get(shape, R.OPENAI) + R.BY_STATUS
    _CHAINS[key] = rules
    return rules


def all_chains() -> dict[str, tuple[Rule, ...]]:
    """Every table by name (for the docs and the tests)."""
    return {**_FAMILY, **_OWN, "status": R.BY_STATUS, "harness": R.HARNESS_ERRORS}
