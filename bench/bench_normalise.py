"""Normalisers: time per classification over the corpus, beside json.loads; hostile megabytes.

    .venv/bin/python bench/bench_normalise.py [--rounds 200] [--hostile-runs 3]

Every failure entry of tests/normalise/corpus/ (canonical bodies and the wild
text alike) is classified `--rounds` times; the baseline, in the same run, is
`json.loads` of each entry's raw input (the HTTP body, or the JSON of the
error form when there is no body), the least any normaliser of JSON bodies
must do. Printed: both rates, their ratio, and the median and 99th percentile
microseconds of one classification (each entry timed alone, many times); the
aims are a median under 20 us and a 99th percentile under 100 us.

Then each hostile text of tests/normalise/hostile.py (one megabyte each: deep
brackets, unbalanced quotes, backtracking bait) is classified in every error
form; printed is the slowest form per text in milliseconds (the aim: under
50 ms) beside `str.lower()` of the same megabyte in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from roombot.normalise import classify, classify_answer  # noqa: E402
from tests.normalise.hostile import hostile  # noqa: E402

CORPUS = ROOT / "tests" / "normalise" / "corpus"


def load() -> tuple[list[dict[str, Any]], list[tuple[str | None, str]]]:
    errors: list[dict[str, Any]] = []
    answers: list[tuple[str | None, str]] = []
    for path in sorted(CORPUS.glob("*.json")):
        for e in json.loads(path.read_text()):
            if "error" in e:
                errors.append(e)
            else:
                answers.append((e.get("harness"), e["answer"]))
    return errors, answers


def raw_of(e: dict[str, Any]) -> str:
    body = e["error"].get("body")
    if isinstance(body, str):
        try:
            json.loads(body)
            return body
        except ValueError:
            pass
    return json.dumps(e["error"])


def corpus(rounds: int) -> None:
    errors, answers = load()
    raws = [raw_of(e) for e in errors]
    calls = [(e["error"], e.get("harness")) for e in errors]

    for error, harness in calls:  # warm up: compiled patterns, cached chains
        classify(error, harness=harness)

    t0 = time.perf_counter()
    for _ in range(rounds):
        for error, harness in calls:
            classify(error, harness=harness)
    t_classify = time.perf_counter() - t0

    t0 = time.perf_counter()
    for _ in range(rounds):
        for raw in raws:
            json.loads(raw)
    t_json = time.perf_counter() - t0

    t0 = time.perf_counter()
    for _ in range(rounds):
        for harness, text in answers:
            classify_answer(harness, text)
    t_answers = time.perf_counter() - t0

    per_entry: list[float] = []
    clock = time.perf_counter_ns
    for error, harness in calls:
        samples = []
        for _ in range(51):
            s = clock()
            classify(error, harness=harness)
            samples.append(clock() - s)
        per_entry.append(statistics.median(samples) / 1000.0)
    per_entry.sort()

    n = len(calls) * rounds
    rate = n / t_classify
    json_rate = n / t_json
    print(f"corpus: {len(calls)} errors, {len(answers)} answers, {rounds} rounds")
    print(f"classify:        {rate:12,.0f} /s")
    print(f"json.loads:      {json_rate:12,.0f} /s  (same inputs, same run)")
    print(f"ratio:           classify takes {json_rate / rate:.1f}x the time of json.loads")
    print(f"classify_answer: {len(answers) * rounds / t_answers:12,.0f} /s")
    p99 = per_entry[min(len(per_entry) - 1, int(len(per_entry) * 0.99))]
    print(f"per classification: median {statistics.median(per_entry):.1f} us, p99 {p99:.1f} us")


def _best_ms(fn: Any, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        s = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - s)
    return best * 1000.0


def hostile_texts(runs: int) -> None:
    print(f"\nhostile texts (1 MiB each; the slowest error form, best of {runs}):")
    worst = 0.0
    for name, text in hostile().items():
        forms: list[dict[str, object]] = [
            {"text": text},
            {"status": 400, "body": text},
            {"acp": {"code": -32603, "message": text, "data": text}},
            {"exit": {"code": 1, "stderr": text}},
        ]
        slowest = max(_best_ms(lambda f=f: classify(f), runs) for f in forms)
        slowest = max(slowest, _best_ms(lambda t=text: classify_answer(None, t), runs))
        base = _best_ms(text.lower, runs)
        worst = max(worst, slowest)
        print(f"  {name:28s} {slowest:7.2f} ms   ({slowest / base:6.1f}x str.lower: {base:.2f} ms)")
    print(f"slowest hostile text: {worst:.2f} ms (aim: under 50 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--hostile-runs", type=int, default=3)
    args = parser.parse_args()
    corpus(args.rounds)
    hostile_texts(args.hostile_runs)


if __name__ == "__main__":
    main()
