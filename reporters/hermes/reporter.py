"""The Hermes reporter's rules: which hook call becomes which roombot event.

Two ways Hermes runs, told apart by the hook's `platform`:

- **Under the ACP proxy** (`platform == "acp"`, `hermes-acp`): the proxy owns the turn and
  sees its start, its answer and its end. Each failed provider call becomes a `turn.report`
  naming the session (`session:{id}`; Hermes's session id is the ACP session id), which
  roombot joins to the turn running then, exactly as the OpenClaw and Pi reporters do.
- **On its own** (the gateway talking to Matrix itself, `hermes chat`, `hermes -z`, cron):
  nobody else tells roombot about the turn, so the reporter owns it: `turn.started` when
  Hermes starts the turn (with the Matrix room and the triggering event when the gateway
  knows them), `turn.attempt` when it moves to another provider or model (a fallback),
  `turn.failed_attempt` for each failed call, `turn.output` with the first answer text,
  and `turn.ended` at the turn's end.

Hermes 0.19.0 fires `on_session_end` only when a turn reaches its normal end: a turn that
fails for good (retries and fallbacks spent) returns without it. Such a turn is ended by
whatever comes next: the session's next turn, the session's finalize or reset, Hermes's
exit, or `endAfter` seconds with no hook call for it (Hermes waits at most 60 s plus
jitter between retries, so the default is 120 s).

Pure apart from the queue it hands events to; the clock is passed in. An event is handed
over as a dict, or as a function giving it (built later, on the sender's thread).
"""

from __future__ import annotations

import collections
import functools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import report

# A delegated subagent's calls: its outcome reaches the parent turn as a tool result, and the
# parent's own calls are what the person is waiting on.
IGNORED_PLATFORMS = frozenset({"subagent"})
MAX_OPEN = 256  # own turns followed at once; the oldest is ended first beyond that
END_AFTER = 120.0


@dataclass
class _Turn:
    turn: str
    session: str
    last: float  # the last hook call about it
    pair: tuple[str | None, str | None] = (None, None)  # provider, model of the last call
    answered: bool = False


@dataclass
class Stats:
    hooks: int = 0
    errors: int = 0  # exceptions swallowed in the hooks
    no_room: int = 0  # own turns not reported: no room to name


Context = Callable[[], Mapping[str, str]]
Event = dict[str, Any] | Callable[[], dict[str, Any]]


def no_context() -> Mapping[str, str]:
    return {}


class Reporter:
    """Hook calls in, events out (to `emit`). Every public method catches everything."""

    def __init__(
        self,
        emit: Callable[[Event], None],
        *,
        room: str | None = None,
        node: str | None = None,
        end_after: float = END_AFTER,
        context: Context = no_context,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.emit = emit
        self.room = room  # where own turns go when the gateway names no Matrix room
        self.node = node
        self.end_after = end_after
        self.context = context  # the gateway's session variables (HERMES_SESSION_*)
        self.log = log
        self.stats = Stats()
        self._lock = threading.Lock()
        self._turns: dict[str, _Turn] = {}  # Hermes turn_id -> the turn, oldest first
        # Turns already ended: a hook call after the end (a background review of the same
        # turn) must not start it again.
        self._ended: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._said_no_room = False

    # -- the hooks (Hermes calls them with keyword arguments) --

    def hook(self, name: str, now: float, kwargs: Mapping[str, Any]) -> None:
        try:
            self.stats.hooks += 1
            handler = _HANDLERS.get(name)
            if handler is not None and kwargs.get("platform") not in IGNORED_PLATFORMS:
                with self._lock:
                    handler(self, now, kwargs)
        except Exception:
            self.stats.errors += 1

    def tick(self, now: float) -> None:
        """End own turns with no hook call for `end_after` seconds (a failed turn's end)."""
        try:
            with self._lock:
                for key, t in list(self._turns.items()):
                    if now - t.last >= self.end_after:
                        self._end(key, t.last)
        except Exception:
            self.stats.errors += 1

    def close(self) -> None:
        """Hermes is exiting: end every own turn at its last hook call."""
        try:
            with self._lock:
                for key, t in list(self._turns.items()):
                    self._end(key, t.last)
        except Exception:
            self.stats.errors += 1

    def open_turns(self) -> int:
        return len(self._turns)

    # -- handlers (under the lock) --

    def _pre_llm_call(self, now: float, kw: Mapping[str, Any]) -> None:
        if _acp(kw):
            return
        session = _s(kw.get("session_id"))
        # A turn of this session still open failed for good (no on_session_end came).
        for key, t in list(self._turns.items()):
            if t.session == session:
                self._end(key, t.last)
        self._open(now, kw)

    def _pre_api_request(self, now: float, kw: Mapping[str, Any]) -> None:
        if _acp(kw):
            return
        t = self._own(now, kw)
        if t is None:
            return
        pair = (_s(kw.get("provider")), _s(kw.get("model")))
        if pair != t.pair:
            t.pair = pair
            self.emit(report.attempt(t.turn, pair[0], pair[1], now))

    def _api_request_error(self, now: float, kw: Mapping[str, Any]) -> None:
        # The event is built on the sender's thread (reading the provider's body back is the
        # costly part): the hook keeps only the few small values it needs.
        failure = _failure(kw)
        if _acp(kw):
            session = _s(kw.get("session_id"))
            if session:
                self.emit(functools.partial(report.session_report, session, failure, now))
            return
        t = self._own(now, kw)
        if t is None:
            return
        pair = (_s(kw.get("provider")), _s(kw.get("model")))
        if pair != t.pair:  # no pre_api_request seen for this call
            t.pair = pair
            self.emit(report.attempt(t.turn, pair[0], pair[1], now))
        self.emit(functools.partial(report.failed_attempt, t.turn, failure, now))

    def _post_api_request(self, now: float, kw: Mapping[str, Any]) -> None:
        if _acp(kw):
            return
        t = self._own(now, kw)
        if t is None or t.answered:
            return
        text = report.answer_text(kw)
        if text is not None:
            t.answered = True
            self.emit(report.output(t.turn, text, now))

    def _on_session_end(self, now: float, kw: Mapping[str, Any]) -> None:
        if _acp(kw):
            return
        interrupted = kw.get("interrupted") is True
        key = _s(kw.get("turn_id"))
        if key and key in self._turns:
            self._end(key, now, interrupted=interrupted)
            return
        session = _s(kw.get("session_id"))  # the CLI's exit names no turn
        for k, t in list(self._turns.items()):
            if t.session == session:
                self._end(k, now, interrupted=interrupted)

    def _session_closed(self, now: float, kw: Mapping[str, Any]) -> None:
        session = _s(kw.get("session_id"))
        for key, t in list(self._turns.items()):
            if t.session == session:
                self._end(key, t.last)

    # -- own turns --

    def _own(self, now: float, kw: Mapping[str, Any]) -> _Turn | None:
        key = _s(kw.get("turn_id"))
        if key is None or key in self._ended:
            return None
        t = self._turns.get(key)
        if t is None:
            t = self._open(now, kw)  # the reporter came in mid-turn
        if t is not None:
            t.last = now
        return t

    def _open(self, now: float, kw: Mapping[str, Any]) -> _Turn | None:
        key = _s(kw.get("turn_id"))
        if key is None:
            return None
        gateway = self.context()
        room, trigger, thread = self._where(gateway, kw)
        if room is None:
            self.stats.no_room += 1
            if not self._said_no_room:
                self._said_no_room = True
                self.log(
                    "roombot reporter: a turn outside ACP with no Matrix room (platform "
                    f"{_s(kw.get('platform')) or '?'}): set roombot_reporter.room to report such "
                    "turns; not reporting them"
                )
            return None
        while len(self._turns) >= MAX_OPEN:
            oldest = next(iter(self._turns))
            self._end(oldest, self._turns[oldest].last)
        session = _s(kw.get("session_id")) or ""
        t = self._turns[key] = _Turn(report.TURN_PREFIX + key, session, now)
        self.emit(
            report.started(
                t.turn,
                room=room,
                at=now,
                model=_s(kw.get("model")),
                session=session or None,
                node=self.node,
                trigger=trigger,
                thread=thread,
            )
        )
        return t

    def _where(
        self, gateway: Mapping[str, str], kw: Mapping[str, Any]
    ) -> tuple[str | None, str | None, str | None]:
        """The room, triggering event and thread root: the gateway's when it is Matrix."""
        platform = gateway.get("HERMES_SESSION_PLATFORM") or _s(kw.get("platform")) or ""
        chat = gateway.get("HERMES_SESSION_CHAT_ID") or ""
        if platform == "matrix" and chat.startswith("!"):
            trigger = report.matrix_event_id(gateway.get("HERMES_SESSION_MESSAGE_ID"))
            # A thread root goes only beside its triggering message (roombot refuses it alone).
            thread = report.matrix_event_id(gateway.get("HERMES_SESSION_THREAD_ID"))
            return chat, trigger, thread if trigger is not None else None
        return self.room, None, None

    def _end(self, key: str, at: float, *, interrupted: bool = False) -> None:
        t = self._turns.pop(key, None)
        if t is not None:
            self._ended[key] = None
            if len(self._ended) > 4 * MAX_OPEN:
                self._ended.popitem(last=False)
            self.emit(report.ended(t.turn, at, interrupted=interrupted))


_HANDLERS: dict[str, Callable[[Reporter, float, Mapping[str, Any]], None]] = {
    "pre_llm_call": Reporter._pre_llm_call,
    "pre_api_request": Reporter._pre_api_request,
    "api_request_error": Reporter._api_request_error,
    "post_api_request": Reporter._post_api_request,
    "on_session_end": Reporter._on_session_end,
    "on_session_finalize": Reporter._session_closed,
    "on_session_reset": Reporter._session_closed,
}
HOOKS = tuple(_HANDLERS)


def _failure(kw: Mapping[str, Any]) -> dict[str, Any]:
    """What report.failure_of reads of an api_request_error call, copied (small values)."""
    error = kw.get("error")
    error = error if isinstance(error, Mapping) else {}
    return {
        "provider": kw.get("provider"),
        "model": kw.get("model"),
        "status_code": kw.get("status_code"),
        "reason": kw.get("reason"),
        "error": {"type": error.get("type"), "message": error.get("message")},
    }


def _acp(kw: Mapping[str, Any]) -> bool:
    return kw.get("platform") == "acp"


def _s(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
