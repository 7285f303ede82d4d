"""Reading the source of a regular expression: its top-level alternatives, where a group ends.

The phrase tables and the harness forms are written as regular expressions; the
engine splits them into alternatives and looks at how each begins (engine.py,
answers.py). One scanner for both: escapes and character classes are skipped,
parentheses counted.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["alternatives", "group_end"]


def _operators(pattern: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, depth before it) of every `(`, `)` and `|` that is an operator."""
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch in "()|":
            yield i, ch, depth
            depth += {"(": 1, ")": -1}.get(ch, 0)
        i += 1


def alternatives(pattern: str) -> list[str]:
    """A pattern's top-level alternatives (split at `|` outside groups and classes)."""
    cuts = [i for i, ch, depth in _operators(pattern) if ch == "|" and depth == 0]
    starts = [0, *(c + 1 for c in cuts)]
    ends = [*cuts, len(pattern)]
    return [pattern[a:b] for a, b in zip(starts, ends, strict=True)]


def group_end(s: str) -> int | None:
    """The index of the `)` closing the group that opens at s[0], or None."""
    for i, ch, depth in _operators(s):
        if ch == ")" and depth == 1:
            return i
    return None
