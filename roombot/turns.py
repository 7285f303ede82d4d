"""The rules of a turn: one sans-I/O state machine, the whole behaviour in this module.

Everything that decides whether a turn gets a card, and which card, lives
here. The machine does no I/O and reads no clock: `feed(event, now)` and
`tick(now)` get the time from the caller and answer with decisions, which are
plain values (`Post`, `Retract`). The same events with the same clock give
the same decisions, whenever `tick` happens to be called, so the pipeline can
rebuild the machine after a restart by replaying its journal.

The four rules (docs/design.md):
1. One card per failed turn, led by the model asked for: the card's provider
   and model are those of `turn.started`; `attempts` has one entry per try
   that failed, in order.
2. An error is held until the turn ends, and dropped if the agent answers.
3. A recovered fallback is no error.
4. A run that ended well is no error, whenever a report about it arrives.

How a turn moves is the table `TRANSITIONS` below: (state, input) -> (next
state, action). Inputs are what an event or a timer means for the turn at
that moment; an ended turn's events are judged (`_judge`) into OK / FAIL /
EMPTY / QUIET. docs/turns.md prints the table and explains every case.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import itertools
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeAlias

from cards import Attempt, Kind, TurnError
from roombot.events import (
    Event,
    HarnessExited,
    NodeOffline,
    StopReason,
    TurnAttempt,
    TurnEnded,
    TurnFailedAttempt,
    TurnOutput,
    TurnReport,
    TurnStarted,
)
from roombot.normalise import classify, classify_answer, is_failure

__all__ = [
    "SESSION_REF",
    "TRANSITIONS",
    "Action",
    "Decision",
    "Input",
    "Post",
    "Retract",
    "TurnMachine",
    "TurnRules",
    "TurnState",
    "TurnView",
]


# --- configuration -------------------------------------------------------------

# A turn.report whose `turn` is "session:{id}" names a session, not a turn: an in-harness
# reporter knows its session but not the ACP request id in the proxy's turn id. The machine
# joins it to the turn of that session that was running at the report's `at`
# (docs/reporters.md). Only turn.report is read this way.
SESSION_REF = "session:"
PENDING_REPORTS = 256  # session reports waiting for their turn.started, at most (oldest dropped)


@dataclass(frozen=True, slots=True)
class TurnRules:
    """The knobs of the rules; every time in seconds of the caller's clock."""

    grace: float = 2.0  # an empty end waits this long for a reporter's turn.report
    settle: float = 1.0  # the out-of-order window: a failed end waits this long for late events
    turn_timeout: float = 1800.0  # a turn not ended this long after it was first seen: timeout
    post_cancelled: bool = False  # the person who cancelled knows; set to post a card anyway
    retract_window: float = 3600.0  # how long a timed-out/exited turn may still recover
    dedup_horizon: float = 86400.0  # how long closed turn ids and event ids are remembered
    max_remembered: int = 200_000  # and at most this many of each (oldest forgotten first)
    answer_keep: int = 16_384  # answer characters kept to tell an error posing as the answer
    max_signals: int = 64  # attempt starts + failures kept per turn; more are dropped, counted

    def __post_init__(self) -> None:
        for name in ("grace", "settle", "turn_timeout", "retract_window", "dedup_horizon"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name}: expected a finite number of seconds >= 0")
        for name in ("max_remembered", "answer_keep", "max_signals"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name}: expected a whole number >= 1")


# --- decisions: the machine's only output ------------------------------------------


@dataclass(frozen=True, slots=True)
class Post:
    """Post this card to this room (at most once per turn)."""

    room: str
    turn: str
    error: TurnError

    @property
    def key(self) -> str:
        return f"{self.turn}/post"


@dataclass(frozen=True, slots=True)
class Retract:
    """The posted card was a false alarm: edit it to say the turn recovered."""

    room: str
    turn: str
    error: TurnError  # the posted card with recovered=True

    @property
    def key(self) -> str:
        return f"{self.turn}/retract"


Decision: TypeAlias = Post | Retract


# --- the table -----------------------------------------------------------------------


class TurnState(StrEnum):
    WAITING_START = "waiting_start"  # events seen, turn.started not yet (out of order)
    OPEN = "open"  # started, not ended
    GRACE = "grace"  # ended with no answer and no reason: waiting for a report
    SETTLING = "settling"  # ended failed: waiting out the out-of-order window
    POSTED_RETRACTABLE = "posted_retractable"  # card posted by timeout/exit/offline
    POSTED_SETTLING = "posted_settling"  # ...then an end that is not good: late answer text?
    # closed states: the turn is decided; later events are dropped and counted
    ANSWERED = "answered"  # ended well: no card
    QUIET = "quiet"  # cancelled, and cancelled turns get no card
    POSTED = "posted"  # card posted, final
    RETRACTED = "retracted"  # card posted, then the turn recovered
    ORPHANED = "orphaned"  # never started within turn_timeout: nowhere to post


CLOSED = frozenset(
    {TurnState.ANSWERED, TurnState.QUIET, TurnState.POSTED, TurnState.RETRACTED, TurnState.ORPHANED}
)


_POSTED = frozenset({TurnState.POSTED_RETRACTABLE, TurnState.POSTED_SETTLING})


class Input(StrEnum):
    STARTED = "started"  # turn.started (the turn has not ended)
    NOTE = "note"  # attempt, failed attempt, output or report before the end
    OK = "ok"  # ended: a real answer and a normal stop
    FAIL = "fail"  # ended: a failure with a reason
    EMPTY = "empty"  # ended: no answer, no reason
    QUIET = "quiet"  # ended: cancelled, and post_cancelled is off
    TIMER = "timer"  # the state's deadline passed
    GONE = "gone"  # harness.exited / node.offline matching the turn


class Action(StrEnum):
    NONE = "-"
    POST_FAILURE = "post the failure"
    POST_NO_REPLY = "post 'completed without a reply'"
    POST_TIMEOUT = "post timeout"
    POST_GONE = "post harness_exited / node_offline"
    RETRACT = "retract the posted card"


S, In, A = TurnState, Input, Action
_JUDGED = {In.OK: S.ANSWERED, In.FAIL: S.SETTLING, In.EMPTY: S.GRACE, In.QUIET: S.QUIET}

# (state, input) -> (next state, action). Pairs missing here cannot happen
# (e.g. GONE never reaches WAITING_START: without turn.started the harness is unknown).
TRANSITIONS: dict[tuple[TurnState, Input], tuple[TurnState, Action]] = {
    (S.WAITING_START, In.STARTED): (S.OPEN, A.NONE),
    (S.WAITING_START, In.NOTE): (S.WAITING_START, A.NONE),
    # the end came before turn.started: judged when turn.started arrives
    **{(S.WAITING_START, i): (s, A.NONE) for i, s in _JUDGED.items()},
    (S.WAITING_START, In.TIMER): (S.ORPHANED, A.NONE),
    (S.OPEN, In.STARTED): (S.OPEN, A.NONE),
    (S.OPEN, In.NOTE): (S.OPEN, A.NONE),
    **{(S.OPEN, i): (s, A.NONE) for i, s in _JUDGED.items()},
    (S.OPEN, In.TIMER): (S.POSTED_RETRACTABLE, A.POST_TIMEOUT),
    (S.OPEN, In.GONE): (S.POSTED_RETRACTABLE, A.POST_GONE),
    (S.GRACE, In.OK): (S.ANSWERED, A.NONE),  # the answer arrived late, within the window
    (S.GRACE, In.FAIL): (S.SETTLING, A.NONE),  # a report (or failure) gave the reason
    (S.GRACE, In.EMPTY): (S.GRACE, A.NONE),
    (S.GRACE, In.QUIET): (S.QUIET, A.NONE),
    (S.GRACE, In.TIMER): (S.POSTED, A.POST_NO_REPLY),
    (S.GRACE, In.GONE): (S.GRACE, A.NONE),  # it had ended already; keep waiting
    (S.SETTLING, In.OK): (S.ANSWERED, A.NONE),  # late answer text turned it into an answer
    (S.SETTLING, In.FAIL): (S.SETTLING, A.NONE),
    (S.SETTLING, In.EMPTY): (S.SETTLING, A.NONE),
    (S.SETTLING, In.QUIET): (S.QUIET, A.NONE),
    (S.SETTLING, In.TIMER): (S.POSTED, A.POST_FAILURE),
    (S.SETTLING, In.GONE): (S.SETTLING, A.NONE),
    (S.POSTED_RETRACTABLE, In.STARTED): (S.POSTED_RETRACTABLE, A.NONE),
    (S.POSTED_RETRACTABLE, In.NOTE): (S.POSTED_RETRACTABLE, A.NONE),  # output is still kept
    (S.POSTED_RETRACTABLE, In.OK): (S.RETRACTED, A.RETRACT),
    # an end that is not good may still turn good with answer text arriving late
    (S.POSTED_RETRACTABLE, In.FAIL): (S.POSTED_SETTLING, A.NONE),
    (S.POSTED_RETRACTABLE, In.EMPTY): (S.POSTED_SETTLING, A.NONE),
    (S.POSTED_RETRACTABLE, In.QUIET): (S.POSTED, A.NONE),
    (S.POSTED_RETRACTABLE, In.TIMER): (S.POSTED, A.NONE),  # the retract window is over
    (S.POSTED_RETRACTABLE, In.GONE): (S.POSTED_RETRACTABLE, A.NONE),
    (S.POSTED_SETTLING, In.OK): (S.RETRACTED, A.RETRACT),
    (S.POSTED_SETTLING, In.FAIL): (S.POSTED_SETTLING, A.NONE),
    (S.POSTED_SETTLING, In.EMPTY): (S.POSTED_SETTLING, A.NONE),
    (S.POSTED_SETTLING, In.QUIET): (S.POSTED, A.NONE),
    (S.POSTED_SETTLING, In.TIMER): (S.POSTED, A.NONE),
}
del S, In, A


# --- what the caller may look at -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnView:
    """A read-only look at one turn (closed turns: only `turn` and `state`)."""

    turn: str
    state: TurnState
    room: str | None = None
    harness: str | None = None
    provider: str | None = None
    model: str | None = None
    node: str | None = None
    signals: int = 0  # attempt starts, failures and reports held
    answer_chars: int = 0
    ended: bool = False
    deadline: float | None = None


# --- internals -------------------------------------------------------------------------

_Key: TypeAlias = tuple[float, int]  # (the event's time, arrival number): order within a turn


class _Signal:
    """Something that says which try is running or how it failed, with its order key."""

    __slots__ = ("error", "fixed", "key", "kind", "model", "provider", "start")

    def __init__(
        self,
        key: _Key,
        provider: str | None,
        model: str | None,
        *,
        start: bool = False,
        error: Mapping[str, Any] | None = None,
        fixed: Attempt | None = None,
        kind: Kind | None = None,
    ) -> None:
        self.key = key
        self.provider = provider
        self.model = model
        self.start = start  # a turn.attempt: a new try began
        self.error = error  # a raw error form, classified when the card is built
        self.fixed = fixed  # an already classified failure (answer posing, machine-made)
        self.kind = kind  # the machine decides the kind (harness_exited, node_offline)


class _Turn:
    """One turn's facts. Small on purpose: lists stay None until needed."""

    __slots__ = (
        "answer_len",
        "chunks",
        "deadline",
        "end",
        "end_key",
        "end_now",
        "first_now",
        "gen",
        "harness",
        "model",
        "node",
        "posted",
        "provider",
        "room",
        "session",
        "signals",
        "started_at",
        "state",
        "turn",
    )

    def __init__(self, turn: str, now: float) -> None:
        self.turn = turn
        self.state = TurnState.WAITING_START
        self.room: str | None = None
        self.harness: str | None = None
        self.provider: str | None = None
        self.model: str | None = None
        self.node: str | None = None
        self.session: str | None = None
        self.started_at: float | None = None
        self.first_now = now
        self.signals: list[_Signal] | None = None
        self.chunks: list[tuple[_Key, str]] | None = None
        self.answer_len = 0
        self.end: TurnEnded | None = None
        self.end_key: _Key | None = None
        self.end_now = 0.0
        self.deadline: float | None = None
        self.gen = 0
        self.posted: TurnError | None = None


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _num(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


# Machine-made failures for stop reasons: (kind, roombot's sentence).
_STOP_FAILURES: dict[StopReason, tuple[Kind, str]] = {
    StopReason.MAX_TOKENS: (
        Kind.MAX_TOKENS,
        "The agent stopped at its output-token limit (stop reason max_tokens): "
        "the answer is cut off.",
    ),
    StopReason.MAX_TURN_REQUESTS: (
        Kind.MAX_TOKENS,
        "The agent stopped at its limit of model requests for one turn "
        "(stop reason max_turn_requests): the answer is incomplete.",
    ),
    StopReason.REFUSAL: (Kind.REFUSAL, "The model refused to answer (stop reason refusal)."),
    StopReason.CANCELLED: (Kind.CANCELLED, "The turn was cancelled (stop reason cancelled)."),
}


# --- the machine -------------------------------------------------------------------------


class TurnMachine:
    """Feed it events and the time; it answers with decisions. Never raises on an event."""

    def __init__(self, config: TurnRules | None = None, reporters: Mapping[str, str] = {}) -> None:
        self.config = config if config is not None else TurnRules()
        self.reporters = dict(reporters)  # harness -> the reporter that can recover its reasons
        self._turns: dict[str, _Turn] = {}
        self._closed: dict[str, tuple[TurnState, float]] = {}  # insertion order = age
        self._seen_events: dict[str, float] = {}
        self._timers: list[tuple[float, int, str, int]] = []  # (deadline, seq, turn, gen)
        self._seq = itertools.count()
        self._now = -math.inf
        self._next_forget = math.inf  # no remembered id can expire before this
        self.counts: Counter[str] = Counter()
        # Session reports (SESSION_REF): the turns of each session by start, each turn's
        # session, reports waiting for their turn.started, and the turn each ref joined last.
        self._sessions: dict[str, list[tuple[float, str]]] = {}
        self._session_of: dict[str, str] = {}
        self._pending: list[tuple[float, str, TurnReport]] = []  # (arrived, session, report)
        self._ref_turn: dict[str, str] = {}

    # -- the interface --

    def feed(self, event: Event, now: float) -> list[Decision]:
        """One event at time `now` (due timers run first, exactly as `tick(now)` would)."""
        now = self._now = max(self._now, now)  # a clock going back stands still
        out: list[Decision] = []
        self._run_timers(now, out)
        if event.event_id is not None:
            if event.event_id in self._seen_events:
                self.counts["duplicate_events"] += 1
                return out
            self._seen_events[event.event_id] = now
            self._next_forget = min(self._next_forget, now + self.config.dedup_horizon)
        if isinstance(event, HarnessExited | NodeOffline):
            self._gone(event, now, out)
        elif isinstance(event, TurnReport) and event.turn.startswith(SESSION_REF):
            self._session_report(event, now, out)
        else:
            self._event(event, now, out)
            if isinstance(event, TurnStarted) and event.session is not None:
                self._index_session(event, now, out)
        self._expire_pending(now)
        self._run_timers(now, out)  # a transition may have armed a deadline already due
        if now >= self._next_forget or self._remembered() > self.config.max_remembered:
            self._forget(now)
        return out

    def tick(self, now: float) -> list[Decision]:
        """Run every deadline up to `now`."""
        self._now = max(self._now, now)  # a clock going back is treated as standing still
        out: list[Decision] = []
        self._run_timers(self._now, out)
        self._expire_pending(self._now)
        if self._now >= self._next_forget or self._remembered() > self.config.max_remembered:
            self._forget(self._now)
        return out

    def next_deadline(self) -> float | None:
        """When `tick` next has work (never later than the real next deadline)."""
        while self._timers:
            deadline, _, turn_id, gen = self._timers[0]
            turn = self._turns.get(turn_id)
            if turn is not None and turn.gen == gen:
                return deadline
            heapq.heappop(self._timers)  # stale: the turn moved on
        return None

    def state(self, turn_id: str) -> TurnView | None:
        turn = self._turns.get(turn_id)
        if turn is None and turn_id.startswith(SESSION_REF):
            return self._ref_state(turn_id)
        if turn is None:
            closed = self._closed.get(turn_id)
            return TurnView(turn_id, closed[0]) if closed is not None else None
        return TurnView(
            turn=turn_id,
            state=turn.state,
            room=turn.room,
            harness=turn.harness,
            provider=turn.provider,
            model=turn.model,
            node=turn.node,
            signals=len(turn.signals or ()),
            answer_chars=turn.answer_len,
            ended=turn.end is not None,
            deadline=turn.deadline,
        )

    @property
    def open_turns(self) -> int:
        return len(self._turns)

    # -- events --

    def _event(self, event: Event, now: float, out: list[Decision]) -> None:
        assert not isinstance(event, HarnessExited | NodeOffline)
        closed = self._closed.get(event.turn)
        if closed is not None:
            self.counts["dropped_after_decision"] += 1
            return
        turn = self._turns.get(event.turn)
        if turn is None:
            turn = self._turns[event.turn] = _Turn(event.turn, now)
            self._arm(turn, now + self.config.turn_timeout)
        key: _Key = (event.at if event.at is not None else now, next(self._seq))
        self._absorb(turn, event, key, now)
        self._step(turn, self._input(turn, event), now, out)

    def _absorb(self, turn: _Turn, event: Event, key: _Key, now: float) -> None:
        """Add what the event says to the turn's facts."""
        late = turn.state in _POSTED
        if isinstance(event, TurnStarted):
            if turn.room is not None:
                self.counts["repeated_events"] += 1  # the first turn.started wins
                return
            turn.room, turn.harness = event.room, event.harness
            turn.provider, turn.model = event.provider, event.model
            turn.node, turn.session = event.node, event.session
            turn.started_at = key[0]
        elif isinstance(event, TurnOutput):
            kept = min(turn.answer_len, self.config.answer_keep)  # chunks hold up to the cap
            turn.answer_len += len(event.text)
            if kept < self.config.answer_keep and event.text:
                turn.chunks = turn.chunks or []
                turn.chunks.append((key, event.text[: self.config.answer_keep - kept]))
        elif isinstance(event, TurnEnded):
            if turn.end is not None:
                self.counts["repeated_events"] += 1  # the first turn.ended wins
                return
            turn.end, turn.end_key, turn.end_now = event, key, now
        elif late:
            self.counts["dropped_after_decision"] += 1  # attempts and reports after the card
        elif isinstance(event, TurnAttempt):
            self._signal(turn, _Signal(key, event.provider, event.model, start=True))
        elif isinstance(event, TurnFailedAttempt | TurnReport) and not is_failure(event.error):
            self.counts["not_failures"] += 1  # e.g. ironflow's CapacityWait: a wait, no failure
        elif isinstance(event, TurnFailedAttempt):
            provider = event.provider or _text(event.error.get("provider"))
            model = event.model or _text(event.error.get("model"))
            self._signal(turn, _Signal(key, provider, model, error=event.error))
        elif isinstance(event, TurnReport):
            error = event.error
            self._signal(
                turn,
                _Signal(key, _text(error.get("provider")), _text(error.get("model")), error=error),
            )

    def _signal(self, turn: _Turn, signal: _Signal) -> None:
        if turn.signals is None:
            turn.signals = []
        if len(turn.signals) >= self.config.max_signals:
            self.counts["dropped_signals"] += 1
            return
        turn.signals.append(signal)

    def _input(self, turn: _Turn, event: Event) -> Input:
        if turn.room is None:
            return Input.NOTE  # nothing can be judged before turn.started
        if turn.end is not None:
            return self._judge(turn)
        return Input.STARTED if isinstance(event, TurnStarted) else Input.NOTE

    def _judge(self, turn: _Turn) -> Input:
        """What an ended turn amounts to, from everything known so far."""
        end = turn.end
        assert end is not None
        if end.error is not None:
            return Input.FAIL
        stop = end.stop_reason
        if stop is StopReason.CANCELLED:
            return Input.FAIL if self.config.post_cancelled else Input.QUIET
        if stop is not StopReason.END_TURN:
            return Input.FAIL  # max_tokens, max_turn_requests, refusal: even after output
        if turn.answer_len > self.config.answer_keep:
            return Input.OK  # an error posing as the answer is short; this is an answer
        text = self._answer(turn)
        if text.strip():
            return Input.FAIL if self._posing(turn, text) is not None else Input.OK
        if any(not s.start for s in turn.signals or ()):
            return Input.FAIL  # no answer, and a failure or a report says why
        return Input.EMPTY

    def _answer(self, turn: _Turn) -> str:
        return "".join(text for _, text in sorted(turn.chunks or (), key=lambda c: c[0]))

    def _posing(self, turn: _Turn, text: str) -> Attempt | None:
        try:
            return classify_answer(turn.harness, text)
        except Exception:  # a faulty normaliser must not lose the turn
            self.counts["classifier_errors"] += 1
            return None

    def _gone(self, event: HarnessExited | NodeOffline, now: float, out: list[Decision]) -> None:
        key: _Key = (event.at if event.at is not None else now, next(self._seq))
        for turn in list(self._turns.values()):
            if turn.state is not TurnState.OPEN and turn.state is not TurnState.GRACE:
                continue
            if isinstance(event, NodeOffline):
                hit = turn.node == event.node and (event.rooms is None or turn.room in event.rooms)
            else:
                hit = (
                    turn.harness == event.harness
                    and (event.node is None or turn.node == event.node)
                    and (event.session is None or turn.session == event.session)
                )
            if hit:
                self._step(turn, Input.GONE, now, out, gone=(event, key))

    # -- reports that name a session (SESSION_REF) --

    def _session_report(self, event: TurnReport, now: float, out: list[Decision]) -> None:
        session = event.turn[len(SESSION_REF) :]
        joined = self._join(session, event.at if event.at is not None else now)
        if joined is None:
            # Its turn.started has not come yet (the proxy's events travel separately).
            if len(self._pending) >= PENDING_REPORTS:
                self._pending.pop(0)
                self.counts["unjoined_reports"] += 1
            self._pending.append((now, session, event))
            return
        self._ref_turn[event.turn] = joined
        self._event(dataclasses.replace(event, turn=joined), now, out)

    def _join(self, session: str, at: float) -> str | None:
        """The turn of `session` running at `at`: the latest started at or before it, else
        (clocks of two machines) the first started at most `settle` after it."""
        turns = self._sessions.get(session)
        if not turns:
            return None
        i = bisect.bisect_right(turns, (at, "\U0010ffff"))
        if i > 0:
            return turns[i - 1][1]
        start, turn = turns[0]
        return turn if start <= at + self.config.settle else None

    def _index_session(self, event: TurnStarted, now: float, out: list[Decision]) -> None:
        assert event.session is not None
        if event.turn in self._session_of:
            return  # a repeated turn.started: the first one counts
        self._session_of[event.turn] = event.session
        start = event.at if event.at is not None else now
        bisect.insort(self._sessions.setdefault(event.session, []), (start, event.turn))
        waiting = [p for p in self._pending if p[1] == event.session]
        for item in waiting:
            arrived, session, report = item
            joined = self._join(session, report.at if report.at is not None else arrived)
            if joined is not None:
                self._pending.remove(item)
                self._ref_turn[report.turn] = joined
                self._event(dataclasses.replace(report, turn=joined), now, out)

    def _unindex_session(self, turn_id: str) -> None:
        session = self._session_of.pop(turn_id, None)
        if session is None:
            return
        turns = [t for t in self._sessions.get(session, ()) if t[1] != turn_id]
        if turns:
            self._sessions[session] = turns
        else:
            self._sessions.pop(session, None)
        ref = SESSION_REF + session
        if self._ref_turn.get(ref) == turn_id:
            del self._ref_turn[ref]

    def _expire_pending(self, now: float) -> None:
        """A report whose turn never started within turn_timeout has nowhere to go."""
        while self._pending and self._pending[0][0] + self.config.turn_timeout <= now:
            self._pending.pop(0)
            self.counts["unjoined_reports"] += 1

    def _ref_state(self, ref: str) -> TurnView | None:
        """A session ref is open while a report waits on it, else it is the turn it joined."""
        session = ref[len(SESSION_REF) :]
        if any(p[1] == session for p in self._pending):
            return TurnView(ref, TurnState.WAITING_START)
        joined = self._ref_turn.get(ref)
        view = self.state(joined) if joined is not None else None
        return dataclasses.replace(view, turn=ref) if view is not None else None

    # -- transitions and timers --

    def _step(
        self,
        turn: _Turn,
        inp: Input,
        now: float,
        out: list[Decision],
        gone: tuple[HarnessExited | NodeOffline, _Key] | None = None,
    ) -> None:
        before = turn.state
        after, action = TRANSITIONS[(before, inp)]
        if action is Action.POST_TIMEOUT:
            card = self._card(turn, self._timeout_signal(turn, now), now)
        elif action is Action.POST_GONE:
            assert gone is not None
            card = self._card(turn, self._gone_signal(turn, *gone), gone[1][0])
        elif action is Action.POST_NO_REPLY:
            card = self._card(
                turn, self._no_reply_signal(turn), self._end_time(turn), self._no_reply_note(turn)
            )
        elif action is Action.POST_FAILURE:
            card = self._card(turn, self._end_signal(turn), self._end_time(turn))
        else:
            card = None
        if card is not None:
            assert turn.room is not None
            out.append(Post(turn.room, turn.turn, card))
            turn.posted = card
        elif action is Action.RETRACT:
            assert turn.room is not None and turn.posted is not None
            out.append(
                Retract(turn.room, turn.turn, dataclasses.replace(turn.posted, recovered=True))
            )
        turn.state = after
        if after in CLOSED:
            del self._turns[turn.turn]
            turn.gen += 1  # any pending timer is stale now
            self._closed[turn.turn] = (after, now)
            self._next_forget = min(self._next_forget, now + self.config.dedup_horizon)
            if after is TurnState.ORPHANED:
                self.counts["orphaned_turns"] += 1
        elif after is not before:
            if after is TurnState.GRACE:
                self._arm(turn, turn.end_now + self.config.grace)
            elif after is TurnState.SETTLING:
                self._arm(turn, turn.end_now + self.config.settle)
            elif after is TurnState.POSTED_RETRACTABLE:
                self._arm(turn, now + self.config.retract_window)
            elif after is TurnState.POSTED_SETTLING:  # the window a normal end would get
                window = self.config.grace if inp is Input.EMPTY else self.config.settle
                self._arm(turn, turn.end_now + window)
            # WAITING_START -> OPEN keeps the turn_timeout deadline armed at first sight

    def _arm(self, turn: _Turn, deadline: float) -> None:
        turn.gen += 1
        turn.deadline = deadline
        heapq.heappush(self._timers, (deadline, next(self._seq), turn.turn, turn.gen))

    def _run_timers(self, now: float, out: list[Decision]) -> None:
        while self._timers and self._timers[0][0] <= now:
            deadline, _, turn_id, gen = heapq.heappop(self._timers)
            turn = self._turns.get(turn_id)
            if turn is None or turn.gen != gen:
                continue
            # the deadline, not the caller's now: the outcome must not depend on tick timing
            self._step(turn, Input.TIMER, deadline, out)

    def _remembered(self) -> int:
        return max(len(self._closed), len(self._seen_events))

    def _forget(self, now: float) -> None:
        """Closed turns and event ids are kept for dedup only, within bounds."""
        horizon, limit = self.config.dedup_horizon, self.config.max_remembered
        closed, seen = self._closed, self._seen_events
        while closed:
            oldest = next(iter(closed))
            if closed[oldest][1] + horizon > now and len(closed) <= limit:
                break
            del closed[oldest]
            self._unindex_session(oldest)
        while seen:
            oldest = next(iter(seen))
            if seen[oldest] + horizon > now and len(seen) <= limit:
                break
            del seen[oldest]
        # insertion order is (nearly) time order, so the fronts expire first
        fronts = [closed[next(iter(closed))][1]] if closed else []
        fronts += [seen[next(iter(seen))]] if seen else []
        self._next_forget = min(fronts) + horizon if fronts else math.inf

    # -- the card --

    def _end_time(self, turn: _Turn) -> float:
        return turn.end_key[0] if turn.end_key is not None else turn.end_now

    def _end_signal(self, turn: _Turn) -> _Signal | None:
        """The failure the turn.ended itself states (None: the failures held say it)."""
        end, key = turn.end, turn.end_key
        assert end is not None and key is not None
        if end.error is not None:
            err = end.error
            return _Signal(key, _text(err.get("provider")), _text(err.get("model")), error=err)
        stop = end.stop_reason
        assert stop is not None
        if stop in _STOP_FAILURES:
            kind, message = _STOP_FAILURES[stop]
            return _Signal(key, None, None, fixed=Attempt(kind=kind, message=message))
        posing = self._posing(turn, self._answer(turn)) if turn.answer_len else None
        if posing is not None:
            return _Signal(key, posing.provider, posing.model, fixed=posing)
        return None

    def _no_reply_signal(self, turn: _Turn) -> _Signal:
        message = (
            f"The agent completed without a reply: {turn.harness} ended the turn "
            "with no answer and no error."
        )
        return _Signal(
            turn.end_key or (turn.end_now, 0),
            None,
            None,
            fixed=Attempt(kind=Kind.UNKNOWN, message=message),
        )

    def _no_reply_note(self, turn: _Turn) -> str | None:
        """Which reporter would have recovered the reason, when one exists for the harness."""
        reporter = self.reporters.get(turn.harness or "")
        if reporter is None:
            return None
        return (
            f"The {reporter} reporter for {turn.harness} would have recovered the reason; "
            "it is not installed or did not report in time."
        )

    def _timeout_signal(self, turn: _Turn, now: float) -> _Signal:
        message = (
            f"The turn did not end within {_num(self.config.turn_timeout)} s; "
            "roombot stopped waiting for it."
        )
        return _Signal((math.inf, 0), None, None, fixed=Attempt(kind=Kind.TIMEOUT, message=message))

    def _gone_signal(self, turn: _Turn, event: HarnessExited | NodeOffline, key: _Key) -> _Signal:
        if isinstance(event, NodeOffline):
            kind = Kind.NODE_OFFLINE
            message = f"The node {event.node} went offline while the turn was open."
        else:
            kind = Kind.HARNESS_EXITED
            message = f"The {event.harness} process exited while the turn was open."
        if event.error is not None:
            return _Signal(key, None, None, error=event.error, kind=kind)
        return _Signal(key, None, None, fixed=Attempt(kind=kind, message=message))

    def _card(
        self, turn: _Turn, last: _Signal | None, failed_at: float, note: str | None = None
    ) -> TurnError:
        """The card: led by the requested provider/model, one attempt per failed try."""
        assert turn.room is not None and turn.harness is not None
        signals = sorted([*(turn.signals or ()), *([last] if last is not None else [])],
                         key=lambda s: s.key)  # fmt: skip
        # tries: [provider, model, failures]; the requested one first
        tries: list[tuple[str | None, str | None, list[_Signal]]] = [
            (turn.provider, turn.model, [])
        ]
        for sig in signals:
            current = tries[-1]
            if sig.start:
                if (sig.provider, sig.model) != current[:2] or current[2]:
                    tries.append((sig.provider, sig.model, []))
                continue
            target = next((t for t in reversed(tries) if _matches(t, sig)), None)
            if target is None:
                target = (sig.provider, sig.model, [])
                tries.append(target)
            target[2].append(sig)
        attempts = tuple(
            self._attempt(turn, provider, model, failures)
            for provider, model, failures in tries
            if failures
        )
        lead = attempts[0]
        return TurnError(
            kind=lead.kind,
            message=lead.message,
            harness=turn.harness,
            provider=turn.provider,
            model=turn.model,
            retry_after=lead.retry_after,
            attempts=attempts,
            turn=turn.turn,
            session=turn.session,
            node=turn.node,
            started_at=_ms(turn.started_at) if turn.started_at is not None else None,
            failed_at=_ms(failed_at) if math.isfinite(failed_at) else None,
            note=note,
        )

    def _attempt(
        self, turn: _Turn, provider: str | None, model: str | None, failures: list[_Signal]
    ) -> Attempt:
        """One try's failure: the last one with a known kind, else the last one."""
        classified = [self._classify(turn, provider, model, s) for s in failures]
        known = [a for a in classified if a.kind is not Kind.UNKNOWN]
        chosen = (known or classified)[-1]
        if chosen.provider != provider or chosen.model != model:
            chosen = dataclasses.replace(chosen, provider=provider, model=model)
        return chosen

    def _classify(
        self, turn: _Turn, provider: str | None, model: str | None, sig: _Signal
    ) -> Attempt:
        if sig.fixed is not None:
            return sig.fixed
        assert sig.error is not None
        try:
            attempt = classify(sig.error, harness=turn.harness, provider=provider, model=model)
        except Exception:  # a faulty normaliser must not lose the card
            self.counts["classifier_errors"] += 1
            attempt = Attempt(kind=Kind.UNKNOWN, message=repr(dict(sig.error)))
        if sig.kind is not None:
            attempt = dataclasses.replace(attempt, kind=sig.kind)
        return attempt


def _matches(t: tuple[str | None, str | None, list[_Signal]], sig: _Signal) -> bool:
    """A failure belongs to a try when what it names agrees (an unnamed one: the current try)."""
    return (sig.provider is None or sig.provider == t[0]) and (
        sig.model is None or sig.model == t[1]
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
