"""`roombot classify` end to end, and classify never raising on hostile input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards import Attempt, Kind
from roombot.commands.classify import check_error
from roombot.normalise import classify, classify_answer
from tests.normalise.hostile import hostile


def _run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roombot", "classify", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_prints_one_json_line() -> None:
    body = json.dumps(
        {
            "error": {
                "message": "You exceeded your current quota, please check your plan and billing "
                "details.",
                "type": "insufficient_quota",
                "code": "insufficient_quota",
            }
        }
    )
    form = {"status": 429, "body": body, "provider": "openai", "model": "gpt-4o"}
    out = _run(["-"], json.dumps(form))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 1
    got = json.loads(lines[0])
    assert got == {
        "kind": "quota",
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "provider": "openai",
        "model": "gpt-4o",
        "status": 429,
        "retry_after": None,
    }


def test_cli_reads_what_a_user_pastes() -> None:
    """Words that are not JSON are a failure's text, as copied from a log or an issue."""
    pasted = (
        "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's "
        "maximum context length is 8192 tokens. However, your messages resulted in 9000 "
        "tokens. Please reduce the length of the messages.\", 'type': "
        "'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}"
    )
    out = _run(["-"], pasted)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["kind"] == "context_exhausted" and got["status"] == 400
    assert got["message"].startswith("This model's maximum context length is 8192 tokens.")
    # The same words given on the command line, with where they came from.
    flag = _run(["--text", pasted, "--provider", "openai", "--model", "gpt-4"], "")
    assert json.loads(flag.stdout) == {**got, "provider": "openai", "model": "gpt-4"}


def test_cli_stop_reason_and_explain() -> None:
    stop = _run(["--stop-reason", "refusal"], "")
    assert json.loads(stop.stdout)["kind"] == "refusal"
    bad = _run(["--stop-reason", "napping"], "")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    out = _run(["--explain", "--text", "API Error: 429 Rate limit exceeded. Please retry."], "")
    got = json.loads(out.stdout)
    assert got["kind"] == "rate_limit"
    tiers = got["explain"]["tiers"]
    assert list(tiers) == [
        "provider rule",
        "cause phrase",
        "provider code",
        "loose code",
        "exception",
        "status",
        "request words",
        "cause words",
    ]
    # The phrase decided; the status alone would have said the same.
    assert got["explain"]["rule"] == tiers["cause phrase"] is not None
    assert tiers["status"] == "status/429"


def test_cli_reads_a_file(tmp_path: Path) -> None:
    f = tmp_path / "e.json"
    f.write_text(json.dumps({"exit": {"code": 137, "stderr": "Killed"}}))
    out = _run([str(f)], "")
    assert out.returncode == 0
    assert json.loads(out.stdout)["kind"] == "harness_exited"


def test_cli_answer_mode() -> None:
    posing = _run(
        ["--answer", "-"], json.dumps({"harness": "claude-code", "text": "Prompt is too long"})
    )
    assert json.loads(posing.stdout)["kind"] == "context_exhausted"
    real = _run(
        ["--answer"], json.dumps({"harness": "claude-code", "text": "429 means slow down."})
    )
    assert real.returncode == 0 and real.stdout.strip() == "null"


def test_cli_bad_input_names_what_is_wrong() -> None:
    cases = {
        "[1, 2]": "expected a JSON object",
        '{"foo": 1}': "no error form",
        '{"status": "429"}': "status: expected an HTTP status",
        '{"status": 429, "body": {"a": 1}}': "body: expected a string",
        '{"acp": {"code": "x", "message": "m"}}': "acp.code: expected an integer",
        '{"exit": {"code": 1.5}}': "exit.code",
        '{"text": 5}': "text: expected a string",
    }
    for stdin, words in cases.items():
        out = _run(["-"], stdin)
        assert out.returncode == 2, stdin
        assert words in out.stderr, (stdin, out.stderr)
        assert out.stdout == ""
    empty = _run(["-"], "  \n")
    assert empty.returncode == 2 and "nothing to classify" in empty.stderr
    blank = _run(["--text", " "], "")
    assert blank.returncode == 2 and "nothing to classify" in blank.stderr
    missing = _run(["/nonexistent/file.json"], "")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    no_text = _run(["--answer", "-"], '{"harness": "x"}')
    assert no_text.returncode == 2 and "text: expected a string" in no_text.stderr


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
forms = st.sampled_from(
    [
        "status",
        "acp",
        "ironflow",
        "exit",
        "report",
        "stop_reason",
        "offline",
        "text",
        "body",
        "headers",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(forms, json_values, max_size=4))
def test_classify_never_raises(error: dict[str, object]) -> None:
    got = classify(error)
    assert isinstance(got, Attempt) and isinstance(got.kind, Kind)
    assert isinstance(got.message, str)
    assert got.retry_after is None or (isinstance(got.retry_after, int) and got.retry_after >= 0)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(forms, json_values, max_size=4))
def test_a_valid_form_is_read_not_caught(error: dict[str, object]) -> None:
    """Where the form is valid (`roombot classify` would take it), the normaliser reads it:
    it never falls back on the catch-all that says the error could not be read."""
    if check_error(error) is None:
        assert "could not be read" not in classify(error).message


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_gets_a_sentence(text: str) -> None:
    got = classify({"text": text})
    assert got.message.strip(), repr(text)
    assert "could not be read" not in got.message


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=999), st.text(max_size=200))
def test_any_status_and_body(status: int, body: str) -> None:
    got = classify({"status": status, "body": body, "headers": {"retry-after": body[:5]}})
    assert got.status == status


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.sampled_from([None, "claude-code", "codex", "hermes", "x"]))
def test_classify_answer_never_raises(text: str, harness: str | None) -> None:
    got = classify_answer(harness, text)
    assert got is None or isinstance(got.kind, Kind)


@pytest.mark.parametrize("name", sorted(hostile()))
def test_a_megabyte_of_hostile_text_classifies(name: str) -> None:
    """Every form a hostile megabyte can arrive in gives an Attempt, never an exception.

    How long each takes is a figure of bench/bench_normalise.py (under 50 ms), not a test.
    """
    text = hostile()[name]
    assert len(text) == 1 << 20
    for error in (
        {"text": text},
        {"status": 400, "body": text},
        {"acp": {"code": -32603, "message": text, "data": text}},
        {"exit": {"code": 1, "stderr": text}},
        {"report": {"message": text}},
        {"ironflow": {"Api": {"status": 500, "message": text}}},
    ):
        got = classify(error, harness="claude-code")
        assert isinstance(got.kind, Kind) and isinstance(got.message, str)
    assert classify_answer(None, text) is None  # far longer than any error posing as one


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["{", "}", "[", "]", "'", '"', "\\", ":", ",", " ", "a", "429", "Error: "])
        | st.text(max_size=6),
        max_size=400,
    ).map("".join),
    st.integers(min_value=1, max_value=2000),
)
def test_hostile_shapes_of_any_size(piece: str, times: int) -> None:
    text = piece * times
    got = classify({"text": text})
    assert isinstance(got.kind, Kind)
    got = classify({"status": 502, "body": text})
    assert got.status == 502
