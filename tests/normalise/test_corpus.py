"""Every corpus entry is classified as recorded; every rule and form is traced to its example.

The corpus (tests/normalise/corpus/*.json) holds real error bodies and
messages, each with its source and expected kind; answers_ok.json holds real
answers that talk about errors, none of which may be taken for an error.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cards import Kind
from roombot.normalise import classify, classify_answer, is_failure, normalise_full
from roombot.normalise.answers import FORMS
from roombot.normalise.engine import all_chains
from roombot.normalise.forms import normalise_answer

CORPUS = Path(__file__).parent / "corpus"


def _load(name: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((CORPUS / name).read_text())
    return entries


ERRORS = [
    e
    for p in sorted(CORPUS.glob("*.json"))
    if p.name not in ("answers_errors.json", "answers_ok.json")
    for e in _load(p.name)
]
ANSWER_ERRORS = _load("answers_errors.json")
ANSWERS_OK = _load("answers_ok.json")
BY_ID = {e["id"]: e for e in ERRORS + ANSWER_ERRORS}


def test_ids_are_unique_and_every_entry_has_a_source_and_a_real_kind() -> None:
    ids = [e["id"] for e in ERRORS + ANSWER_ERRORS + ANSWERS_OK]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    for e in ERRORS + ANSWER_ERRORS:
        assert e["source"].strip(), e["id"]
        Kind(e["kind"])  # raises on a kind outside the vocabulary


def _check(e: dict[str, Any], got: Any) -> None:
    assert got.kind.value == e["kind"], (e["id"], got)
    for field, want in e.get("expect", {}).items():
        assert getattr(got, field) == want, (e["id"], field, got)
    assert isinstance(got.message, str) and got.message, e["id"]


@pytest.mark.parametrize("entry", ERRORS, ids=[e["id"] for e in ERRORS])
def test_error_corpus(entry: dict[str, Any]) -> None:
    got = classify(entry["error"], harness=entry.get("harness"))
    _check(entry, got)


@pytest.mark.parametrize("entry", ANSWER_ERRORS, ids=[e["id"] for e in ANSWER_ERRORS])
def test_errors_posing_as_the_answer(entry: dict[str, Any]) -> None:
    got = classify_answer(entry["harness"], entry["answer"])
    assert got is not None, entry["id"]
    _check(entry, got)
    # The same words arriving as a plain `text` error read the same.
    assert classify({"text": entry["answer"]}, harness=entry["harness"]).kind == got.kind


@pytest.mark.parametrize("entry", ANSWERS_OK, ids=[e["id"] for e in ANSWERS_OK])
def test_real_answers_are_never_errors(entry: dict[str, Any]) -> None:
    assert classify_answer(entry["harness"], entry["answer"]) is None
    # Nor when the harness is not named: every harness's forms are tried then.
    assert classify_answer(None, entry["answer"]) is None


def test_every_rule_is_traced_to_a_corpus_example_it_decides() -> None:
    for table, rules in all_chains().items():
        for r in rules:
            entry = BY_ID.get(r.example)
            assert entry is not None, f"{table}: rule {r.example} has no corpus entry"
            if "error" in entry:
                n = normalise_full(entry["error"], harness=entry.get("harness"))
            else:
                answered = normalise_answer(entry["harness"], entry["answer"])
                assert answered is not None
                n = answered
            assert n.rule == r.example, (table, r.example, n.rule)
            assert n.attempt.kind is r.kind


def test_every_answer_form_is_traced_to_an_example_it_matches() -> None:
    for f in FORMS:
        entry = BY_ID.get(f.example)
        assert entry is not None and "answer" in entry, f.example
        n = normalise_answer(entry["harness"], entry["answer"])
        assert n is not None and n.via == f.example, (f.example, n)


def test_corpus_size_per_kind() -> None:
    counts = Counter(e["kind"] for e in ERRORS + ANSWER_ERRORS)
    # Where real examples are plentiful, at least 8 each.
    for kind in (
        "quota",
        "rate_limit",
        "auth",
        "bad_request",
        "context_exhausted",
        "timeout",
        "provider_unavailable",
        "refusal",
        "max_tokens",
        "cancelled",
        "harness_exited",
        "unknown",
    ):
        assert counts[kind] >= 8, (kind, counts[kind])
    # node_offline has only the offline form and its variants (docs/error-forms.md).
    assert counts["node_offline"] >= 3
    assert len(ANSWERS_OK) >= 30


def test_capacity_wait_is_not_a_failure() -> None:
    assert not is_failure({"ironflow": {"CapacityWait": {"kind": "claude"}}})
    assert is_failure({"ironflow": {"NoCapacity": {"kind": "claude", "next_reset": None}}})
    assert is_failure({"status": 429, "body": ""})
