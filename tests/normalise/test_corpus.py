"""Every corpus entry is classified as recorded; every rule and form is traced to its example.

The corpus (tests/normalise/corpus/*.json) holds real error bodies and
messages, each with its source and expected kind; answers_ok.json holds real
answers that talk about errors, none of which may be taken for an error.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from cards import Kind
from roombot.commands.classify import check_error
from roombot.normalise import classify, classify_answer, is_failure, normalise_full
from roombot.normalise.answers import FORMS
from roombot.normalise.engine import all_chains, explain
from roombot.normalise.extract import names_in
from roombot.normalise.forms import normalise_answer
from tests.normalise.entries import address, by_id, failures, real_answers, train

ERRORS = [e.data for e in failures() if not e.is_answer and not e.wild]
ANSWER_ERRORS = [e.data for e in failures() if e.is_answer and not e.wild]
ANSWERS_OK = [e.data for e in real_answers()]
# Wild entries of the train split are held to the same standard as the canonical ones;
# those of the check split only count towards the figures (test_accuracy.py).
WILD_TRAIN = [e.data for e in train() if e.wild]
BY_ID = {k: v.data for k, v in by_id().items()}


def test_ids_are_unique_and_every_entry_has_a_source_and_a_real_kind() -> None:
    every = [e.data for e in (*failures(), *real_answers())]
    ids = [e["id"] for e in every]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    for e in every:
        assert e["source"].strip(), e["id"]
    for e in failures():
        Kind(e.kind)  # raises on a kind outside the vocabulary


def test_wild_entries_are_whole_and_traceable() -> None:
    """Each names its address, its clarity, and holds an error form `roombot classify` reads."""
    texts: Counter[str] = Counter()
    for e in failures():
        if not e.wild:
            continue
        d = e.data
        assert d["id"].startswith("wild/"), d["id"]
        assert e.clarity in ("clear", "ambiguous"), d["id"]
        assert address(d["source"]).startswith("https://"), d["id"]
        assert check_error(d["error"]) is None, (d["id"], check_error(d["error"]))
        texts[json.dumps(d["error"], sort_keys=True)] += 1
    repeated = [t[:80] for t, n in texts.items() if n > 1]
    assert not repeated, repeated  # the same words twice would count twice


def test_the_check_split_is_big_enough() -> None:
    every = failures()
    assert sum(1 for e in every if e.check) >= 0.30 * len(every)
    wild = [e for e in every if e.wild]
    assert sum(1 for e in wild if e.check) >= 0.30 * len(wild)


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
    assert classify_answer(entry.get("harness"), entry["answer"]) is None
    # Nor when the harness is not named: every harness's forms are tried then.
    assert classify_answer(None, entry["answer"]) is None


def _text_of(entry: dict[str, Any]) -> str:
    if "answer" in entry:
        return str(entry["answer"])
    error = entry["error"]
    return str(error["text"]) if "text" in error else json.dumps(error)


def test_every_rule_is_traced_to_a_corpus_example_it_holds_on() -> None:
    check = {e.id for e in failures() if e.wild and e.check}
    for table, rules in all_chains().items():
        for r in rules:
            entry = BY_ID.get(r.example)
            assert entry is not None, f"{table}: rule {r.example} has no corpus entry"
            # Rules are written from the train split; a wild check entry is never read.
            assert r.example not in check, f"{table}: rule {r.example} names a check entry"
            if table == "exceptions":
                # The last tier before the status: its example shows one of its classes
                # (a phrase or a code in the same text may decide first).
                names = set(names_in(_text_of(entry))[1])
                assert names & r.code, (table, r.example, names)
                continue
            if "error" in entry:
                n = normalise_full(entry["error"], harness=entry.get("harness"))
            else:
                answered = normalise_answer(entry["harness"], entry["answer"])
                assert answered is not None
                n = answered
            assert n.attempt.kind is r.kind, (table, r.example, n.attempt)
            if n.rule != r.example:
                # A higher tier decided the same kind first (a phrase before a code): the
                # rule must still be the one its own tier would apply.
                assert n.case is not None, (table, r.example, n.rule)
                assert r in explain(n.case).values(), (table, r.example, n.rule)


def test_every_answer_form_is_traced_to_an_example_it_matches() -> None:
    for f in FORMS:
        entry = BY_ID.get(f.example)
        assert entry is not None and "answer" in entry, f.example
        n = normalise_answer(entry["harness"], entry["answer"])
        assert n is not None and n.via == f.example, (f.example, n)


def test_corpus_size_per_kind() -> None:
    wild = [e for e in failures() if e.wild]
    assert len(wild) >= 600
    counts = Counter(e.kind for e in wild)
    # Real failure text of every kind, at least 20 each.
    for kind in Kind:
        assert counts[kind.value] >= 20, (kind.value, counts[kind.value])
    assert len(ANSWERS_OK) >= 60


def test_capacity_wait_is_not_a_failure() -> None:
    assert not is_failure({"ironflow": {"CapacityWait": {"kind": "claude"}}})
    assert is_failure({"ironflow": {"NoCapacity": {"kind": "claude", "next_reset": None}}})
    assert is_failure({"status": 429, "body": ""})
