"""The error shape: one immutable value per failed turn, whatever the harness.

Numbers are integers only (Matrix's canonical JSON refuses floats):
retry-after in whole seconds, times in milliseconds since the epoch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    """A group card's part: several failed turns of one group key (docs/card.md)."""

    count: int
    first_at: int
    last_at: int
    key: tuple[tuple[str, str], ...] = ()
    models: tuple[str, ...] = ()
    harnesses: tuple[str, ...] = ()
    turns: tuple[str, ...] = ()
    threaded: int = 0
    recovered_at: int | None = None
    retracted: int = 0


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
    group: Group | None = None
