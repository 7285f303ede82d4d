"""The fast path for cause phrases (phrases.py) reads every text exactly as the phrases say.

Each alternative of causes.CAUSES is tried only on texts whose words have one of its
triggers, lower-cased and with a leading `\\b` checked by hand: these tests hold that
shortcut to the phrases as written, on every text of the corpus and on hostile ones.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from roombot.normalise import phrases
from tests.normalise.entries import failures, real_answers


def _texts() -> list[str]:
    out: list[str] = []
    for e in (*failures(), *real_answers()):
        d = e.data
        error = d.get("error", {})
        for value in (d.get("answer"), error.get("text"), error.get("body"), error.get("acp")):
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, dict) and isinstance(value.get("message"), str):
                out.append(value["message"])
    return out


TEXTS = _texts()
REFERENCE = [re.compile(p.source, re.IGNORECASE) for p in phrases.phrases()]


def _agrees(text: str) -> None:
    low = phrases.lowered(text)
    index = phrases.word_index(text.lower())
    for p, ref in zip(phrases.phrases(), REFERENCE, strict=True):
        want = ref.search(text) is not None
        if want:
            assert p.triggers is None or p.triggers & index, (p.source, text[:200])
            assert p.words <= index, (p.source, p.words - index, text[:200])
            assert all(g & index for g in p.groups), (p.source, text[:200])
            assert not low or p.literal in low, (p.source, p.literal, text[:200])
        assert p.search(text, low) == want, (p.source, text[:200])


def test_every_phrase_finds_what_it_says_on_every_corpus_text() -> None:
    assert len(TEXTS) > 900
    for text in TEXTS:
        _agrees(text)


def test_most_phrases_have_a_trigger() -> None:
    """Alternatives with no trigger run on every text; keep them few (and literal-led)."""
    always = [p for p in phrases.phrases() if p.triggers is None]
    # Each is screened by its leading letters first (a substring test), so it must have some;
    # most are CJK words, which have no word starts to index.
    assert all(len(p.literal) >= 2 for p in always), [p.source for p in always if not p.literal]
    latin = [p.source for p in always if p.literal.isascii()]
    assert len(latin) <= 12, latin


def test_no_phrase_holds_a_control_character() -> None:
    """A `\\b` written in a plain string is a backspace, not a word boundary: such a phrase
    can never hold on real text, and nothing else would notice."""
    bad = [p.source for p in phrases.phrases() if any(ord(c) < 32 for c in p.source)]
    assert not bad, bad


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "rate limit",
                "Rate_Limit_Exceeded",
                "quota",
                "per day",
                "perday",
                "API key",
                "api_key",
                "x-api-key",
                "timed out",
                "process exited",
                "content filter",
                "max turns",
                "Connection aborted",
                "SIGKILL",
                "failed to login",  # an optional space inside a word: "log ?in"
                "timeout",
                " ",
                "_",
                "-",
                ".",
                "\n",
                "error",
                "İ",
                "ß",
            ]
        )
        | st.text(max_size=8),
        max_size=12,
    ).map("".join)
)
def test_the_fast_path_agrees_on_any_text(text: str) -> None:
    _agrees(text)
