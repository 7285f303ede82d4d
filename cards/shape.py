"""The error shape: one immutable value per failed turn, whatever the harness.

Numbers are integers only (Matrix's canonical JSON refuses floats):
retry-after in whole seconds, times in milliseconds since the epoch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cards.kinds import Kind


@dataclass(frozen=True, slots=True)
class Attempt:
    """One try at one provider/model within a turn, and how it failed."""

    kind: Kind
    message: str
    provider: str | None = None
    model: str | None = None
    status: int | None = None  # HTTP status; 0 for a transport failure
    retry_after: int | None = None  # whole seconds


@dataclass(frozen=True, slots=True)
class Group:
    """A storm folded into one card: the failed turns that share a group key.

    The card that carries it is the group's latest failure, so a reader that does
    not know groups still draws something true.
    """

    count: int  # failed turns in the group, the latest included
    first_at: int  # ms since the epoch: the group's first failure
    last_at: int  # ms since the epoch: its latest
    # (field, value) pairs, e.g. (("harness", "codex"), ("kind", "quota")); a field
    # whose value is unknown is left out.
    key: tuple[tuple[str, str], ...]
    models: tuple[str, ...]  # distinct, in first-seen order, at most 20
    harnesses: tuple[str, ...]  # distinct, in first-seen order, at most 20
    turns: tuple[str, ...]  # turn ids, the first ones, at most 50
    threaded: int  # own cards posted in the group card's thread
    recovered_at: int | None = None  # ms: a later turn of the same key answered well
    retracted: int = 0  # turns of the group that recovered later

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Group:
        """The value back from `dataclasses.asdict(group)` once through JSON (tuples came
        back as lists). Exact, for a trusted store: no bounds, and a missing or
        misshapen field raises (KeyError, TypeError, ValueError) rather than guessing."""

        def strings(name: str) -> tuple[str, ...]:
            values = tuple(d[name])
            if not all(isinstance(v, str) for v in values):
                raise TypeError(f"group.{name}: expected a list of strings")
            return values

        def whole(value: object, name: str) -> int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"group.{name}: expected an integer, got {value!r}")
            return value

        key = []
        for pair in d["key"]:
            field_name, value = pair  # a pair of exactly two, or ValueError
            if not isinstance(field_name, str) or not isinstance(value, str):
                raise TypeError("group.key: expected (field, value) pairs of strings")
            key.append((field_name, value))
        recovered_at = d.get("recovered_at")
        return cls(
            count=whole(d["count"], "count"),
            first_at=whole(d["first_at"], "first_at"),
            last_at=whole(d["last_at"], "last_at"),
            key=tuple(key),
            models=strings("models"),
            harnesses=strings("harnesses"),
            turns=strings("turns"),
            threaded=whole(d["threaded"], "threaded"),
            recovered_at=None if recovered_at is None else whole(recovered_at, "recovered_at"),
            retracted=whole(d.get("retracted", 0), "retracted"),
        )


@dataclass(frozen=True, slots=True)
class TurnError:
    """A failed turn: led by the model that was asked for.

    `kind`, `message`, `provider` and `model` are those of the failure of the
    requested model; `attempts` lists every try in order, that first included
    (a single-try turn may list one attempt or none).
    """

    kind: Kind
    message: str  # the provider's or harness's own words, untrimmed
    harness: str
    provider: str | None = None
    model: str | None = None
    retry_after: int | None = None  # whole seconds
    attempts: tuple[Attempt, ...] = field(default=())
    turn: str | None = None
    session: str | None = None
    node: str | None = None
    started_at: int | None = None  # ms since the epoch
    failed_at: int | None = None  # ms since the epoch
    # roombot's own remark, never the provider's words (e.g. which reporter
    # would have recovered a dropped reason).
    note: str | None = None
    # Set by a later edit when the turn recovered after all (a retract).
    recovered: bool = False
    # When the message is too large for one event: where the whole text went
    # (an mxc:// URI of the uploaded file), and the message holds a preview.
    message_file: str | None = None
    message_truncated: bool = False
    # Set on a group card (a storm folded into one card): the group, while every
    # other field is the latest failure's.
    group: Group | None = None
