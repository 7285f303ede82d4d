"""The corpus (tests/normalise/corpus/*.json), loaded once, with its fixed check split.

Two kinds of files:
  - canonical bodies and harness forms, collected with the rules they shaped
    (every file not named wild_*), and
  - `wild_*.json`: failure text as it really reaches a hub, a log or a report,
    copied verbatim from public issue reports, SDK tests and harness source.

The check split is chosen by a hash of each entry's source address (its
first word: the URL or the repository path), never by hand, so entries from
one source stay together and nobody picks which side an entry falls on. Rules
are written from the train split only; the check split is read by the
accuracy figures (tests/normalise/accuracy.py) and nothing else.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parent / "corpus"

# An entry is in the check split when the first 32 bits of the SHA-256 of its source
# address, modulo 100, fall below this. 35 leaves a margin above the 30% the split must
# hold, since entries come in clumps of one source.
CHECK_PERCENT = 35

ANSWER_FILES = ("answers_errors.json",)
OK_FILES = ("wild_answers_ok.json",)


def address(source: str) -> str:
    """The source's address: its first word, without trailing punctuation or a fragment
    (lines of one file, `#L10` and `#L90`, are one source and stay on one side)."""
    words = source.strip().split()
    return words[0].split("#")[0].rstrip(".,;:)") if words else ""


def in_check_split(source: str) -> bool:
    digest = hashlib.sha256(address(source).encode()).hexdigest()
    return int(digest[:8], 16) % 100 < CHECK_PERCENT


@dataclass(frozen=True)
class Entry:
    data: dict[str, Any]
    file: str

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def wild(self) -> bool:
        return self.file.startswith("wild_")

    @property
    def check(self) -> bool:
        return in_check_split(str(self.data.get("source", "")))

    @property
    def clarity(self) -> str:
        """clear / ambiguous for wild entries; canonical for the others."""
        return str(self.data.get("clarity", "clear")) if self.wild else "canonical"

    @property
    def is_answer(self) -> bool:
        return "answer" in self.data


def _load(path: Path) -> list[Entry]:
    entries: list[dict[str, Any]] = json.loads(path.read_text())
    return [Entry(e, path.name) for e in entries]


@cache
def failures() -> tuple[Entry, ...]:
    """Every failure entry: error forms and errors posing as the answer."""
    out: list[Entry] = []
    for path in sorted(CORPUS.glob("*.json")):
        if path.name not in OK_FILES:
            out.extend(_load(path))
    return tuple(out)


@cache
def real_answers() -> tuple[Entry, ...]:
    """Real answers that talk about errors: none may be taken for an error."""
    out: list[Entry] = []
    for name in OK_FILES:
        path = CORPUS / name
        if path.exists():
            out.extend(_load(path))
    return tuple(out)


def train() -> tuple[Entry, ...]:
    return tuple(e for e in failures() if not e.check)


def by_id() -> dict[str, Entry]:
    return {e.id: e for e in failures()}
