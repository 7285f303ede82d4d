"""Hypothesis strategies for the error shape and for arbitrary JSON."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cards.codec import MAX_INT
from cards.kinds import Kind
from cards.shape import Attempt, TurnError

kinds = st.sampled_from(list(Kind))
# Any text a provider could send, controls, bidi marks and astral characters included
# (hypothesis leaves out lone surrogates, which JSON text cannot carry as UTF-8).
texts = st.text(max_size=300)
names = st.text(min_size=1, max_size=40)
whole = st.integers(min_value=0, max_value=MAX_INT)


def opt(s: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | s


attempts = st.builds(
    Attempt,
    kind=kinds,
    message=texts,
    provider=opt(names),
    model=opt(names),
    status=opt(st.integers(min_value=0, max_value=999)),
    retry_after=opt(whole),
)

turn_errors = st.builds(
    TurnError,
    kind=kinds,
    message=texts,
    harness=names,
    provider=opt(names),
    model=opt(names),
    retry_after=opt(whole),
    attempts=st.lists(attempts, max_size=5).map(tuple),
    turn=opt(names),
    session=opt(names),
    node=opt(names),
    started_at=opt(whole),
    failed_at=opt(whole),
    note=opt(texts),
    recovered=st.booleans(),
    message_file=opt(names),
    message_truncated=st.booleans(),
)

# Any JSON value (floats included: a hostile card may hold them, NaN and infinities too).
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=25,
)


def _card_like(draw: st.DrawFn) -> dict[str, Any]:
    """A card with some fields replaced by arbitrary JSON: the reader's hard cases."""
    from cards.codec import to_payload

    payload = to_payload(draw(turn_errors))
    keys = [*sorted(payload), "attempts.0", "extra"]
    for key in draw(st.lists(st.sampled_from(keys), max_size=4, unique=True)):
        value = draw(json_values)
        if key == "attempts.0":
            if isinstance(payload.get("attempts"), list) and payload["attempts"]:
                payload["attempts"][0] = value if draw(st.booleans()) else {"kind": value}
        elif draw(st.booleans()):
            payload[key] = value
        else:
            payload.pop(key, None)
    return payload


card_like = st.composite(_card_like)()


# Values a buggy or hostile source could put in the shape: any integer, lone surrogates.
raw_texts = st.text(alphabet=st.characters(codec=None), max_size=50) | st.just("a\ud800b")
raw_ints = st.none() | st.integers() | st.sampled_from([-1, 2**53, 2**64, 10**30])

raw_attempts = st.builds(
    Attempt,
    kind=kinds,
    message=raw_texts,
    provider=opt(raw_texts),
    model=opt(raw_texts),
    status=raw_ints,
    retry_after=raw_ints,
)

raw_turn_errors = st.builds(
    TurnError,
    kind=kinds,
    message=raw_texts,
    harness=raw_texts,
    provider=opt(raw_texts),
    model=opt(raw_texts),
    retry_after=raw_ints,
    attempts=st.lists(raw_attempts, max_size=3).map(tuple),
    turn=opt(raw_texts),
    note=opt(raw_texts),
    started_at=raw_ints,
    failed_at=raw_ints,
    message_file=opt(raw_texts),
)
