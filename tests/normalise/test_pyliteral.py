"""pyliteral.read gives what ast.literal_eval gives, on every repr and on any text."""

from __future__ import annotations

import ast
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roombot.normalise import pyliteral
from roombot.normalise.pyliteral import MISSING, read


def _eval(source: str) -> object:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape warns, and is read all the same
            return ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return MISSING


def _same(a: object, b: object) -> bool:
    # repr tells 1 from 1.0 from True, -0.0 from 0.0, and a NaN equals itself there
    return a is b or (a is not MISSING and b is not MISSING and repr(a) == repr(b))


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()  # any code point: quotes, backslashes, control characters, surrogates
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8) | st.integers() | st.none(), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=800, deadline=None)
@given(st.lists(values, max_size=3) | st.dictionaries(st.text(max_size=8), values, max_size=4))
def test_every_repr_reads_as_python_reads_it(value: object) -> None:
    source = repr(value)
    assert _same(read(source), _eval(source)), source


# Texts built from the characters a repr is made of, so that near-misses are common.
near = st.text(alphabet=list("{}[](),: '\"\\xunbtN0123456789.eE+-TrueFalseNo\n\t/"), max_size=40)


@settings(max_examples=1500, deadline=None)
@given(near | st.text(max_size=40))
def test_any_text_reads_as_python_reads_it(source: str) -> None:
    assert _same(read(source), _eval(source)), source


def test_escapes_read_alike_or_go_to_python() -> None:
    cases = [
        r"""{'a': 'it\'s', 'b': "say 'hi' \"twice\"", 'c': '\x41\u00e9', 'd': "\\"}""",
        r"['\/', '\a', '\0', '\N{BULLET}', '\U0001F600', '\ud83d\ude00']",
        r"{'a': (1, 2), 'b': u'x', 'c': 1_000, 'd': 0x10, 'e': .5, 'f': [1,]}",
        "{'a': NaN, 'b': Infinity}",  # JSON reads these; Python does not
        "{'a': 'line\\\ncontinued'}",
        # names: refused at once where Python refuses them, left to Python where it may not
        "[error]",
        "[SSL: CERTIFICATE_VERIFY_FAILED]",
        "[é, ß]",
        "[set(), b'x', u'y', rb'z', f'{1}']",
        "['''a\nb''', \"\"\"c\nd\"\"\"]",
        "[1, # a comment\n 2]",
        "[1 if True else 2, not 1, -1, +1]",
        "[1e5, 1.e5, 0x1f, 0o7, 0b1, 1j, 1_000, ...]",
    ]
    for source in cases:
        assert _same(read(source), _eval(source)), source
    assert read("{'error': {'code': None, 'ok': True}}") == {"error": {"code": None, "ok": True}}
    assert read("{'a': ") is MISSING
    assert _eval("['''a\nb''']") == ["a\nb"] and _eval("[1, # a comment\n 2]") == [1, 2]


def test_sdk_reprs_and_bracketed_words_are_read_without_compiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(source: str) -> object:
        raise AssertionError("ast.literal_eval was reached for " + source)

    monkeypatch.setattr(pyliteral.ast, "literal_eval", refuse)
    source = (
        "{'error': {'message': 'Your credit balance is too low to access the \"Claude\" API.',"
        " 'type': 'invalid_request_error', 'param': None, 'code': None, 'retry': False}}"
    )
    assert read(source) == {
        "error": {
            "message": 'Your credit balance is too low to access the "Claude" API.',
            "type": "invalid_request_error",
            "param": None,
            "code": None,
            "retry": False,
        }
    }
    # a bracketed word in a log line is no literal, and is known not to be one at once
    for text in ("[error]", "[SSL: CERTIFICATE_VERIFY_FAILED]", "[agent/embedded]"):
        assert read(text) is MISSING


def test_a_long_number_before_a_stray_character_is_refused_at_once() -> None:
    # A nested repeat in the check of the parts between strings once backtracked
    # exponentially here (26 digits took seconds, 40 would take days); it must fail in
    # one pass. Python refuses the text too.
    source = "{'n': " + "1" * 40 + "x}"
    assert read(source) is MISSING
    assert read("0\n ") is MISSING  # Python reads an indent where JSON reads blank space
