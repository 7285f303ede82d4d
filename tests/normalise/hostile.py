"""Hostile failure texts of a megabyte each, for the robustness test and the benchmark.

Deep brackets, unbalanced quotes, 100,000 nested braces, bait for backtracking in
the extraction layer and the cause phrases, and text whose case folding is odd.
"""

from __future__ import annotations

MB = 1 << 20


def _fill(seed: str, head: str = "") -> str:
    """`head`, then `seed` repeated, to exactly one megabyte."""
    return (head + seed * (MB // len(seed) + 1))[:MB]


def hostile() -> dict[str, str]:
    """Name -> a text of exactly one megabyte (in characters)."""
    return {
        "open braces": _fill("{"),
        "100,000 nested braces": _fill("x", "{" * 100_000 + "}" * 100_000),
        "nested JSON keys": _fill('{"error": '),
        "open brackets": _fill("["),
        "unbalanced quotes in a dict": _fill("a \\' ", "{'message': '"),
        "quotes": _fill("'\""),
        "backslashes": _fill("\\"),
        "JSON in JSON strings": _fill('{"message": "{\\"message\\": \\"'),
        "a body that never ends": _fill("rate limit ", '{"error": {"message": "'),
        "phrase bait": _fill("context window rate limit quota exceeded per day error "),
        "words without end": _fill("a "),
        "one long word": _fill("overloaded"),
        "statuses": _fill("Error: 429 status 500 HTTP 503 "),
        "digits in a repr": _fill("{'n': " + "1" * 40 + "x} "),
        "prefixes": _fill("Error: API Error: litellm.RateLimitError: "),
        "urls": _fill("https://example.com/a/b?c=d "),
        "stack frames": _fill("\n    at f (file.js:1:2)"),
        "exception names": _fill("a.b.RateLimitError: "),
        "case folding": _fill("İſı rate limit "),
        "emoji and marks": _fill("⎿ ✕ ⚠️ · "),
        "lines": _fill("\n"),
    }
