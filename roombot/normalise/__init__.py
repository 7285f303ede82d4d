"""Normalisers: raw failures (the `error` forms of event format v1) -> the error shape.

Pure functions, no I/O. PLACEHOLDER API (issue 3 replaces the bodies, keeps
the signatures): the turn rules call exactly these two functions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from cards import Attempt, Kind


def classify(
    error: Mapping[str, object],
    *,
    harness: str | None = None,
    provider: str | None = None,
    model: str | None = None,
) -> Attempt:
    """One raw `error` form -> an Attempt. Never raises on any mapping."""
    provider = provider if provider is not None else _str(error.get("provider"))
    model = model if model is not None else _str(error.get("model"))
    text = error.get("text")
    message = text if isinstance(text, str) else json.dumps(dict(error), default=str)
    return Attempt(kind=Kind.UNKNOWN, message=message, provider=provider, model=model)


def classify_answer(harness: str | None, text: str) -> Attempt | None:
    """Answer text that is really an error posing as the answer -> its Attempt, else None."""
    return None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
