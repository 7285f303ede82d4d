"""The one small engine: the signals read from a failure, and the first rule that holds.

`Signals` is what a provider body is reduced to before the rules look at it;
`Case` is everything known about one failure (a body's signals where a body
was found, the provider's sentence, the whole text, codes, exception class
names, the status). `judge(case)` applies the precedence, one tier after the
other, and the first rule that holds in a tier decides:

  1. provider rule   a provider's own rule that joins a code or a status to a
                     sentence or a detail (rules.py, the tables of the body's shape)
  2. cause phrase    causes.CAUSES, searched in the provider's sentence, then in
                     the whole text (phrases.py: how, quickly)
  3. provider code   the rest of the provider's tables: a code, a type, a status
                     that means something for that provider
  4. loose code      a code, type or gRPC status name found anywhere in the text,
                     read by every family's code rules
  5. exception       causes.EXCEPTIONS: the SDK's exception class name
  6. status          rules.BY_STATUS: the HTTP status alone
  7. request words   causes.WEAK: words that a request was malformed ("invalid
                     parameter", "not allowed"), and a bare "exited": they decide
                     only where nothing else does
  8. cause words     causes.WORDS: single words that name a cause, counted per
                     kind; the kind with the most decides, a tie stays unknown

A cause phrase beats a provider code or type, which beats an exception class,
which beats a status (docs/kinds-by-provider.md); the generic words of a bad
request come last, since a code, a class or a status is the better evidence.
Tables are built once per (shape, provider) and cached.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from cards import Kind
from roombot.normalise import rules as R
from roombot.normalise.causes import CAUSES, EXCEPTIONS, WEAK, WORDS
from roombot.normalise.extract import names_in
from roombot.normalise.phrases import (
    CAUSE_TABLE,
    WEAK_TABLE,
    WORDS_TABLE,
    first_match,
    most_held,
    prepare,
)
from roombot.normalise.rules import Rule

__all__ = ["Case", "Signals", "canonical_provider", "decide", "explain", "judge", "tiers"]


@dataclass(frozen=True, slots=True)
class Signals:
    status: int | None  # HTTP status; 0 for a transport failure
    code: str  # lower-case; "" when absent
    type: str  # lower-case; "" when absent
    message: str  # the provider's own sentence
    detail: str  # the body's other strings (quota ids, reasons, inner codes), newline-joined
    retry_after: int | None


def decide(rules: tuple[Rule, ...], sig: Signals, *, anchored: bool = False) -> Rule | None:
    """The first rule whose every condition holds, or None.

    `anchored`: a message pattern must hold at the start of the sentence, not anywhere
    in it (for words that must be a provider's sentence, not a text about one).
    """
    for r in rules:
        if r.status and sig.status not in r.status:
            continue
        if r.code and sig.code not in r.code:
            continue
        if r.type and sig.type not in r.type:
            continue
        if r.min_retry is not None and (sig.retry_after is None or sig.retry_after < r.min_retry):
            continue
        if r.max_retry is not None and (sig.retry_after is None or sig.retry_after > r.max_retry):
            continue
        if r.message is not None:
            found = r.message.match(sig.message) if anchored else r.message.search(sig.message)
            if found is None:
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
}
# A provider's own rules, tried before its family's.
_OWN: dict[str, tuple[Rule, ...]] = {
    "openrouter": R.OPENROUTER,
    "deepseek": R.DEEPSEEK,
    "xai": R.XAI,
    "mistral": R.MISTRAL,
    "ollama": R.OLLAMA,
}
_TIERS: dict[tuple[str, str | None], tuple[tuple[Rule, ...], tuple[Rule, ...]]] = {}


def _specific(r: Rule) -> bool:
    """A rule that reads words (a sentence, a detail) or a delay, not a code alone."""
    return (
        r.message is not None
        or r.detail is not None
        or r.min_retry is not None
        or r.max_retry is not None
    )


def tiers(shape: str, provider: str | None) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
    """A body's tables as (provider rules with words, provider codes), in the order tried."""
    key = (shape, provider)
    found = _TIERS.get(key)
    if found is not None:
        return found
    own = _OWN.get(provider or "", ()) if shape in ("openai", "plain", "xai") else ()
    if shape == "transport":
        rules = R.TRANSPORT
    elif shape in ("plain", "xai"):
        # {"error": "<sentence>"} (Ollama, xAI): every such provider's own rules may apply.
        rules = (own if own else R.OLLAMA + R.XAI) + R.OPENAI
    else:
        rules = own + _FAMILY.get(shape, R.OPENAI)
    found = (tuple(r for r in rules if _specific(r)), tuple(r for r in rules if not _specific(r)))
    _TIERS[key] = found
    return found


# Every family's code rules, for a code found loosely in words (no body to say whose).
LOOSE: tuple[Rule, ...] = tuple(
    r
    for table in (R.ANTHROPIC, R.OPENAI, R.GOOGLE, R.BEDROCK, R.HARNESS_ERRORS)
    for r in table
    if not _specific(r) and (r.code or r.type)
)
# The same by code: a rule of LOOSE can hold only for a code among its codes or types, so
# a code found loosely is read by those alone, in LOOSE's order.
_LOOSE_BY_CODE: dict[str, tuple[Rule, ...]] = {
    c: tuple(r for r in LOOSE if c in r.code or c in r.type)
    for c in {c for r in LOOSE for c in r.code | r.type}
}


@dataclass(frozen=True)
class Case:
    """Everything known about one failure, for `judge`."""

    body: Signals | None  # a provider body's fields, when one was found
    shape: str  # the body's shape ("text" when none)
    provider: str | None
    sentence: str  # the provider's own sentence
    haystack: str  # the whole text, where cause phrases are searched after the sentence
    codes: tuple[str, ...] = ()  # codes of embedded values (and ones a caller knows)
    status: int | None = None
    retry_after: int | None = None

    @cached_property
    def names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The gRPC names and the exception classes in the text (read when needed)."""
        return names_in(self.haystack)


def _words(text: str, status: int | None, retry_after: int | None) -> Signals:
    return Signals(status, "", "", text, "", retry_after)


TIER_NAMES = (
    "provider rule",
    "cause phrase",
    "provider code",
    "loose code",
    "exception",
    "status",
    "request words",
    "cause words",
)


def _tiers(case: Case, anchored: bool) -> Iterator[tuple[str, Rule | None]]:
    """Each tier's first rule that holds, lazily, in the order of precedence."""
    specific, codes = tiers(case.shape, case.provider)
    yield TIER_NAMES[0], decide(specific, case.body) if case.body is not None else None
    sig = _words(case.sentence, case.status, case.retry_after)
    prepared = None if anchored else prepare(case.sentence, case.haystack)
    if prepared is None:
        phrase = decide(CAUSES, sig, anchored=True)
    else:
        phrase = first_match(CAUSE_TABLE, prepared, case.retry_after)
    yield TIER_NAMES[1], phrase
    yield TIER_NAMES[2], decide(codes, case.body) if case.body is not None else None
    grpc, exceptions = case.names
    loose = (
        decide(read_by, Signals(case.status, code, code, case.sentence, "", None))
        for code in (*case.codes, *grpc)
        if (read_by := _LOOSE_BY_CODE.get(code))
    )
    # A server's error type found loose in the text ("api_error") says less than a 4xx
    # status beside it: an OpenAI-shaped 400 from Ollama carries that type too.
    refused = case.status is not None and 400 <= case.status < 500
    yield (
        TIER_NAMES[3],
        next(
            (
                r
                for r in loose
                if r is not None and not (refused and r.kind is Kind.PROVIDER_UNAVAILABLE)
            ),
            None,
        ),
    )
    # In the table's order, not the text's: "litellm.BadRequestError:
    # litellm.ContentPolicyViolationError" is the more specific class's.
    classes = frozenset(exceptions)
    found = next((r for r in EXCEPTIONS if r.code & classes), None) if classes else None
    yield TIER_NAMES[4], found
    if prepared is None:
        # Confirming a provider's sentence: its words must decide, before any status.
        yield TIER_NAMES[6], decide(WEAK, sig, anchored=True)
    status = case.status
    said = _words(case.sentence or case.haystack, status, None)
    yield TIER_NAMES[5], decide(R.BY_STATUS, said) if status is not None else None
    if prepared is not None:
        yield TIER_NAMES[6], first_match(WEAK_TABLE, prepared, case.retry_after)
        yield TIER_NAMES[7], most_held(WORDS_TABLE, prepared)


def judge(case: Case, *, anchored: bool = False) -> Rule | None:
    """The deciding rule for one failure, tier by tier (the module docstring), or None.

    `anchored`: cause phrases must open the sentence (see `decide`), and the rest of the
    text is not searched; used to confirm that words are a provider's own sentence.
    """
    for _, r in _tiers(case, anchored):
        if r is not None:
            return r
    return None


def explain(case: Case) -> dict[str, Rule | None]:
    """Every tier's first rule that holds, deciding or not (`roombot classify --explain`)."""
    return dict(_tiers(case, False))


def all_chains() -> dict[str, tuple[Rule, ...]]:
    """Every table by name (for the docs and the tests)."""
    return {
        **_FAMILY,
        **_OWN,
        "causes": CAUSES,
        "weak": WEAK,
        "words": WORDS,
        "exceptions": EXCEPTIONS,
        "status": R.BY_STATUS,
        "harness": R.HARNESS_ERRORS,
    }
