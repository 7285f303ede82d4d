"""Normalisers: classifications per second over the corpus, beside json.loads of the same bodies.

    .venv/bin/python bench/bench_normalise.py [--rounds 200]

Every error entry of tests/normalise/corpus/ is classified `--rounds` times;
the baseline, in the same run, is `json.loads` of each entry's raw input (the
HTTP body, or the JSON of the error form when there is no body), the least
any normaliser of JSON bodies must do. Printed: both rates, their ratio, and
the median and 99th percentile microseconds of one classification (each
entry timed alone, many times). The aim is a median under 20 us.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from roombot.normalise import classify, classify_answer

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "normalise" / "corpus"


def load() -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    errors: list[dict[str, Any]] = []
    answers: list[tuple[str, str]] = []
    for path in sorted(CORPUS.glob("*.json")):
        for e in json.loads(path.read_text()):
            if "error" in e:
                errors.append(e)
            else:
                answers.append((e["harness"], e["answer"]))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    errors, answers = load()
    raws = [raw_of(e) for e in errors]
    calls = [(e["error"], e.get("harness")) for e in errors]

    for error, harness in calls:  # warm up: compiled patterns, cached chains
        classify(error, harness=harness)

    t0 = time.perf_counter()
    for _ in range(args.rounds):
        for error, harness in calls:
            classify(error, harness=harness)
    t_classify = time.perf_counter() - t0

    t0 = time.perf_counter()
    for _ in range(args.rounds):
        for raw in raws:
            json.loads(raw)
    t_json = time.perf_counter() - t0

    t0 = time.perf_counter()
    for _ in range(args.rounds):
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

    n = len(calls) * args.rounds
    rate = n / t_classify
    json_rate = n / t_json
    print(f"corpus: {len(calls)} errors, {len(answers)} answers, {args.rounds} rounds")
    print(f"classify:        {rate:12,.0f} /s")
    print(f"json.loads:      {json_rate:12,.0f} /s  (same inputs, same run)")
    print(f"ratio:           classify takes {json_rate / rate:.1f}x the time of json.loads")
    print(f"classify_answer: {len(answers) * args.rounds / t_answers:12,.0f} /s")
    p99 = per_entry[min(len(per_entry) - 1, int(len(per_entry) * 0.99))]
    print(f"per classification: median {statistics.median(per_entry):.1f} us, p99 {p99:.1f} us")


if __name__ == "__main__":
    main()
