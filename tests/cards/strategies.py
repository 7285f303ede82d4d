"""Hypothesis strategies for the error shape and for arbitrary JSON."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cards.codec import (
    MAX_GROUP_HARNESSES,
    MAX_GROUP_KEY,
    MAX_GROUP_MODELS,
    MAX_GROUP_TEXT,
    MAX_GROUP_TURNS,
    MAX_INT,
)
from cards.kinds import Kind
from cards.shape import Attempt, Group, TurnError

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

group_texts = st.text(max_size=MAX_GROUP_TEXT)


def _distinct(limit: int) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(group_texts, max_size=limit, unique=True).map(tuple)


# Groups within the group part's bounds: what the codec writes and reads back exactly.
groups = st.builds(
    Group,
    count=st.integers(min_value=1, max_value=MAX_INT),
    first_at=whole,
    last_at=whole,
    key=st.lists(st.tuples(group_texts, group_texts), max_size=MAX_GROUP_KEY).map(tuple),
    models=_distinct(MAX_GROUP_MODELS),
    harnesses=_distinct(MAX_GROUP_HARNESSES),
    turns=_distinct(MAX_GROUP_TURNS),
    threaded=whole,
    recovered_at=opt(whole),
    retracted=whole,
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
    group=opt(groups),
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

raw_group_texts = st.text(alphabet=st.characters(codec=None), max_size=20) | st.sampled_from(
    ["a\ud800b", "a\udfffb", "x" * (MAX_GROUP_TEXT + 1), "y" * 5_000]
)
raw_groups = st.builds(
    Group,
    count=st.integers() | st.sampled_from([0, 1, 2**53]),
    first_at=st.integers() | st.sampled_from([-1, 2**53, 2**64]),
    last_at=st.integers(),
    key=st.lists(st.tuples(raw_group_texts, raw_group_texts), max_size=12).map(tuple),
    models=st.lists(raw_group_texts, max_size=30).map(tuple),
    harnesses=st.lists(raw_group_texts | st.just("same"), max_size=30).map(tuple),
    turns=st.lists(raw_group_texts, max_size=70).map(tuple),
    threaded=st.integers(min_value=-2, max_value=2**54),
    recovered_at=raw_ints,
    retracted=st.integers(min_value=-2, max_value=2**54),
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
    group=opt(raw_groups),
)


def _group_like(draw: st.DrawFn) -> dict[str, Any]:
    """A group part with some fields (or list items) replaced by arbitrary JSON."""
    from cards.codec import group_payload

    payload = group_payload(draw(groups))
    keys = [*sorted(payload), "recovered_at", "retracted", "key.0", "models.0", "extra"]
    for key in draw(st.lists(st.sampled_from(keys), max_size=3, unique=True)):
        value = draw(json_values | whole | st.just(0) | st.text(min_size=MAX_GROUP_TEXT + 1))
        name, _, index = key.partition(".")
        if index:
            items = payload.get(name)
            if isinstance(items, list) and items:
                items[0] = value if draw(st.booleans()) else [value, "v"]
        elif draw(st.booleans()):
            payload[key] = value
        else:
            payload.pop(key, None)
    return payload


group_like = st.composite(_group_like)()
