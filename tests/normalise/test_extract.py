"""The extraction layer on its own: what it finds in a wrapped failure, and what it leaves.

The strings are shaped like the wrappers the wild corpus holds (an SDK's prefix, a
Python dict repr, a body in a sentence); the corpus tests hold the real ones.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from roombot.normalise import classify, normalise_full
from roombot.normalise.extract import (
    _CLOSERS,
    _JSON_START,
    _MAX_DEPTH,
    _MAX_LITERAL,
    _TOKENS,
    HEAD,
    TAIL,
    _literal_end,
    extract,
    find_values,
    names_in,
    window,
)


def test_json_and_python_literals_are_found_inside_words() -> None:
    text = "Error: 400 {\"a\": 1} then {'b': None, 'c': [True, 'x']} and [1, 2]"
    assert find_values(text) == [{"a": 1}, {"b": None, "c": [True, "x"]}, [1, 2]]
    assert find_values("no brackets at all") == []
    assert find_values("[API Error: words only]") == []  # brackets around words: no value


def test_fields_at_any_depth_and_json_inside_strings() -> None:
    inner = '{\\"error\\": {\\"code\\": \\"insufficient_quota\\", \\"message\\": \\"m\\"}}'
    ev = extract('{"error": {"message": "' + inner + '", "type": "server_error"}}')
    assert "server_error" in ev.codes and "insufficient_quota" in ev.codes
    assert "m" in ev.messages


def test_status_from_the_words_and_not_from_inside_a_body() -> None:
    cases = {
        "openai.BadRequestError: Error code: 400 - {'error': {}}": 400,
        "Request failed with status code 502": 502,
        "HTTP 429: slow down": 429,
        "got status: 429 Too Many Requests.": 429,
        "API Error: 529 Overloaded. This is a server-side issue": 529,
        "google.genai.errors.ClientError: 400 INVALID_ARGUMENT. {'error': {}}": 400,
        "exceeded retry limit, last status: 429 Too Many Requests": 429,
        "503 UNAVAILABLE. {'error': {'code': 503}}": 503,
        "request id req_429": None,
    }
    for text, status in cases.items():
        assert extract(text).status == status, text
    # A status written inside the body is the body's own field.
    assert extract('{"error": {"code": 429, "message": "x"}}').status == 429


def test_exception_classes_and_grpc_names() -> None:
    grpc, classes = names_in(
        "litellm.exceptions.RateLimitError: x (Status: RESOURCE_EXHAUSTED) botocore.errorfactory"
        ".ThrottlingException KeyboardInterrupt litellm.Timeout internal"
    )
    assert grpc == ("resource_exhausted",)  # "internal" in lower case is a word, not a name
    assert set(classes) == {"ratelimiterror", "throttlingexception", "keyboardinterrupt", "timeout"}


def test_the_sentence_without_its_prefixes() -> None:
    assert extract("  ⎿  API Error: Connection error.").sentence == "Connection error."
    assert extract("ACP protocol error: Internal error: boom").sentence == "boom"
    assert extract("litellm.Timeout: Connection timed out after 600.0 seconds.").sentence == (
        "Connection timed out after 600.0 seconds."
    )
    assert extract("[API Error: quota spent (Status: RESOURCE_EXHAUSTED)]").sentence == (
        "quota spent"
    )
    assert extract("Error:").sentence == ""  # nothing after the prefix: nothing kept


def test_urls_keep_only_their_host_and_stack_frames_go() -> None:
    ev = extract("boom https://docs.example.com/rate-limits?x=1\n    at f (a.js:1:2)\nend")
    assert "docs.example.com" in ev.haystack and "rate-limits" not in ev.haystack
    assert "a.js" not in ev.haystack


def test_a_long_text_is_read_at_its_head_and_its_tail() -> None:
    text = "quota " + "x" * (HEAD + TAIL + 10) + " tail"
    seen = window(text)
    assert seen.startswith("quota ") and seen.endswith(" tail")
    assert len(seen) == HEAD + TAIL + 1


def test_the_message_is_the_providers_sentence_and_the_raw_keeps_everything() -> None:
    text = (
        'litellm.BadRequestError: AnthropicException - {"type":"error","error":{"type":'
        '"invalid_request_error","message":"Your credit balance is too low to access the '
        'Anthropic API."}}'
    )
    n = normalise_full({"text": text})
    assert n.attempt.kind.value == "quota"  # the cause beats the 400-ish type
    assert n.attempt.message == "Your credit balance is too low to access the Anthropic API."
    assert n.attempt.provider == "anthropic"
    assert n.raw == text


def test_precedence_a_phrase_beats_a_code_beats_a_class_beats_a_status() -> None:
    # code rate_limit_exceeded, but the words say the day's budget is spent
    said = (
        "Error code: 429 - {'error': {'message': 'Rate limit reached for model in organization"
        " org-x on tokens per day (TPD): Limit 500000', 'code': 'rate_limit_exceeded'}}"
    )
    assert classify({"text": said}).kind.value == "quota"
    # no words of a cause: the code decides over the class and the status
    coded = "RateLimitError: Error code: 400 - {'error': {'code': 'insufficient_quota'}}"
    assert classify({"text": coded}).kind.value == "quota"
    # no phrase, no code: the class decides over the status
    assert classify({"text": "openai.APITimeoutError: (status 500)"}).kind.value == "timeout"
    # only a status
    assert classify({"text": "Request failed with status code 401"}).kind.value == "auth"


def test_unknown_stays_deliberate() -> None:
    for text in ("Something went wrong.", "Internal error", "An unexpected error occurred"):
        assert classify({"text": text}).kind.value == "unknown", text


def _literal_end_step_by_step(text: str, start: int, budget: list[int]) -> int | None:
    """The literal scanner as first written: one step per bracket, quote and backslash."""
    stack: list[str] = []
    quote: str | None = None
    escaped_at = -1
    for m in _TOKENS.finditer(text, start, min(len(text), start + _MAX_LITERAL)):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        ch, at = m.group(), m.start()
        if quote is not None:
            if ch == "\\" and at != escaped_at:
                escaped_at = at + 1
            elif ch == quote and at != escaped_at:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[(":
            stack.append(ch)
            if len(stack) > _MAX_DEPTH:
                return None
        elif ch in _CLOSERS:
            if not stack or stack.pop() != _CLOSERS[ch]:
                return None
            if not stack:
                return at + 1
    return None


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.sampled_from(["{", "}", "[", "]", "(", ")", "'", '"', "\\", "a", " ", "\n", "\\'"]),
        max_size=60,
    ).map("".join),
    st.integers(min_value=0, max_value=40),
)
def test_the_literal_scanner_spends_and_finds_as_one_step_per_token(text: str, budget: int) -> None:
    """Strings skipped whole (extract._literal_end): the same end and the same budget spent
    as visiting every bracket, quote and backslash in turn."""
    for start in [i for i, ch in enumerate(text) if ch in "{[("][:4]:
        ours, theirs = [budget], [budget]
        found = _literal_end(text, start, ours)
        assert found == _literal_end_step_by_step(text, start, theirs)
        assert (ours[0] < 0) == (theirs[0] < 0)
        assert ours[0] < 0 or ours[0] == theirs[0]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(_JSON, max_size=3) | st.dictionaries(st.text(max_size=3), _JSON),
    st.sampled_from([None, 0, 2, "\t"]),
)
def test_every_json_body_opens_as_the_decoder_is_asked_to_read_it(
    value: object, indent: int | str | None
) -> None:
    text = json.dumps(value, indent=indent)
    assert _JSON_START.match(text) is not None
    assert find_values(f"Error: {text}") == ([value] if value else [])
