"""Normalisers: raw failures (the `error` forms of event format v1) -> the error shape.

Pure functions, no I/O. The turn rules call `classify` and `classify_answer`;
`normalise_full` also hands back the raw text and the deciding rule (each
rule is traceable to its corpus example). How it is built: `forms` reads each
error form; `extract` finds what a wrapped text holds (bodies, codes, statuses,
exception classes, the provider's sentence), with `pyliteral` reading the Python
reprs SDKs print; `bodies` reads a provider's body;
`rules` (per-provider tables) and `causes` (cause phrases, request words,
exception classes, cause words) are the data; `engine` applies the precedence, with
`phrases` as its fast path for the phrase tables and `patterns` reading their
sources; `answers` holds the harness error-as-answer forms. docs/error-forms.md
and docs/kinds-by-provider.md describe the inputs and signals.
"""

from __future__ import annotations

from collections.abc import Mapping

from cards import Attempt, Kind
from roombot.normalise.forms import Normalised, normalise, normalise_answer
from roombot.normalise.ironflow import NOT_FAILURES, variant

__all__ = ["Normalised", "classify", "classify_answer", "is_failure", "normalise_full"]


def normalise_full(
    error: Mapping[str, object],
    *,
    harness: str | None = None,
    provider: str | None = None,
    model: str | None = None,
) -> Normalised:
    """One raw `error` form -> the Attempt, the raw text beside it, and the deciding rule."""
    try:
        return normalise(error, harness=harness, provider=provider, model=model)
    except Exception as exc:  # never raise on hostile input; say what could not be read
        message = f"the error could not be read ({type(exc).__name__}): {error!r}"[:4096]
        return Normalised(Attempt(Kind.UNKNOWN, message, provider, model), "", "unknown", None)


def classify(
    error: Mapping[str, object],
    *,
    harness: str | None = None,
    provider: str | None = None,
    model: str | None = None,
) -> Attempt:
    """One raw `error` form -> an Attempt. Never raises on any mapping."""
    return normalise_full(error, harness=harness, provider=provider, model=model).attempt


def classify_answer(harness: str | None, text: str) -> Attempt | None:
    """Answer text that is really an error posing as the answer -> its Attempt, else None."""
    try:
        n = normalise_answer(harness, text)
    except Exception:
        return None
    return n.attempt if n is not None else None


def is_failure(error: Mapping[str, object]) -> bool:
    """False for an error form that is no failure (ironflow's CapacityWait); True otherwise."""
    v = variant(error.get("ironflow")) if "ironflow" in error else None
    return not (v is not None and v[0] in NOT_FAILURES)
