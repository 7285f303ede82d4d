"""Redaction: its cost beside the normaliser's own, on the same failures, in the same run.

    .venv/bin/python bench/bench_redact.py [--rounds 50] [--hostile-runs 3]

Every failure entry of tests/normalise/corpus/ (what the pipeline really sees) is passed
through `Redactor.value` and through `classify`, `--rounds` times each; printed are both
rates and the share redaction adds to classifying (the aim: at most 25%). Then the texts
that carry credentials (tests/redact/corpus/), where every shape is tried, and each hostile
megabyte of tests/normalise/hostile.py, beside `str.lower()` of the same text.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from roombot.normalise import classify  # noqa: E402
from roombot.redact import Redactor  # noqa: E402
from tests.normalise.hostile import hostile  # noqa: E402
from tests.redact.figures import credentials, failures  # noqa: E402


def _rate(fn: Any, items: list[Any], rounds: int) -> float:
    for item in items:  # warm up
        fn(item)
    t0 = time.perf_counter()
    for _ in range(rounds):
        for item in items:
            fn(item)
    return len(items) * rounds / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--hostile-runs", type=int, default=3)
    args = parser.parse_args()
    redactor = Redactor()
    errors = [(e["error"], e.get("harness")) for _, e in failures()]
    redact = _rate(lambda c: redactor.value(c[0]), errors, args.rounds)
    judge = _rate(lambda c: classify(c[0], harness=c[1]), errors, args.rounds)
    print(f"failure corpus: {len(errors)} errors, {args.rounds} rounds")
    print(f"redact:    {redact:12,.0f} /s")
    print(f"classify:  {judge:12,.0f} /s  (same errors, same run)")
    print(f"redaction adds {judge / redact:.1%} to the cost of classifying (aim: at most 25%)")

    texts = [e["text"] for e in credentials()]
    with_keys = _rate(redactor.text, texts, args.rounds)
    lower = _rate(str.lower, texts, args.rounds)
    ratio = lower / with_keys
    print(f"\ncredential texts: {len(texts)}: {with_keys:,.0f} /s ({ratio:.1f}x str.lower)")

    print(f"\nhostile texts (1 MiB each, best of {args.hostile_runs}):")
    worst = 0.0
    for name, text in hostile().items():
        best = base = float("inf")
        for _ in range(args.hostile_runs):
            s = time.perf_counter()
            redactor.text(text)
            best = min(best, time.perf_counter() - s)
            s = time.perf_counter()
            text.lower()
            base = min(base, time.perf_counter() - s)
        worst = max(worst, best)
        print(f"  {name:28s} {best * 1000:7.2f} ms   ({best / base:6.1f}x str.lower)")
    print(f"slowest hostile text: {worst * 1000:.2f} ms")


if __name__ == "__main__":
    main()
