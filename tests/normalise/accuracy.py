"""How right the normaliser is on failure text from the wild, per split, clarity and kind.

    .venv/bin/python -m tests.normalise.accuracy         print the figures
    .venv/bin/python -m tests.normalise.docs_sections    rewrite them (and the cause
                                                         phrases) in docs/kinds-by-provider.md

Reads the wild entries (tests/normalise/corpus/wild_*.json) of both splits
(tests/normalise/entries.py) and classifies each as `roombot classify` would.
It prints counts and confusion tables only, never an entry of the check split:
the rules are written from the train split, and the check split is the figure
that counts.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass

from cards import Kind
from roombot.normalise import classify, classify_answer
from tests.normalise.entries import Entry, failures

KINDS = [k.value for k in Kind]


def predict(e: Entry) -> str:
    d = e.data
    if e.is_answer:
        got = classify_answer(d.get("harness"), d["answer"])
        return got.kind.value if got is not None else "(answer)"
    return classify(d["error"], harness=d.get("harness")).kind.value


@dataclass(frozen=True)
class Figures:
    right: int
    total: int

    @property
    def percent(self) -> float:
        return 100.0 * self.right / self.total if self.total else 0.0

    def __str__(self) -> str:
        return f"{self.right}/{self.total} ({self.percent:.1f}%)"


def score(pairs: list[tuple[Entry, str]]) -> Figures:
    return Figures(sum(1 for e, got in pairs if got == e.kind), len(pairs))


def wild_pairs() -> list[tuple[Entry, str]]:
    return [(e, predict(e)) for e in failures() if e.wild]


def split(pairs: list[tuple[Entry, str]], check: bool, clarity: str | None = None) -> list:
    return [
        (e, g) for e, g in pairs if e.check == check and (clarity is None or e.clarity == clarity)
    ]


def report(pairs: list[tuple[Entry, str]]) -> str:
    out: list[str] = []
    out.append("| split | clear | ambiguous | all |")
    out.append("|---|---|---|---|")
    for name, check in (("check (counts)", True), ("train", False)):
        row = [score(split(pairs, check, c)) for c in ("clear", "ambiguous", None)]
        out.append(f"| {name} | " + " | ".join(str(f) for f in row) + " |")
    out.append("")
    out.append("Per kind (entries whose recorded kind is this one):")
    out.append("")
    out.append("| kind | check | train |")
    out.append("|---|---|---|")
    for k in KINDS:
        cells = []
        for check in (True, False):
            sub = [(e, g) for e, g in split(pairs, check) if e.kind == k]
            cells.append(str(score(sub)) if sub else "-")
        out.append(f"| {k} | {cells[0]} | {cells[1]} |")
    out.append("")
    out.append("Confusion, check split (rows: recorded kind; columns: what classify said):")
    out.append("")
    check = split(pairs, True)
    said = sorted({g for _, g in check} | {e.kind for e, _ in check}, key=_order)
    out.append("| recorded \\ said | " + " | ".join(_short(s) for s in said) + " |")
    out.append("|---|" + "---|" * len(said))
    counts = Counter((e.kind, g) for e, g in check)
    for k in said:
        if not any(e.kind == k for e, _ in check):
            continue
        cells = [str(counts[(k, s)]) if counts[(k, s)] else "." for s in said]
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _order(kind: str) -> int:
    return KINDS.index(kind) if kind in KINDS else len(KINDS)


def _short(kind: str) -> str:
    return {"provider_unavailable": "unavail.", "context_exhausted": "context"}.get(kind, kind)


def figures_text() -> str:
    pairs = wild_pairs()
    every = failures()
    checked = sum(1 for e in every if e.check)
    return (
        f"{len(pairs)} wild entries, {sum(1 for e, _ in pairs if e.check)} of them in the check "
        f"split; the whole corpus has {len(every)} failure entries, {checked} "
        f"({100.0 * checked / len(every):.1f}%) in the check split.\n\n" + report(pairs)
    )


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    print(figures_text())


if __name__ == "__main__":
    main()
