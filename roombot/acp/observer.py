"""JSON-RPC messages in, event-format-v1 events out. Pure: no I/O, clock passed in.

What the observer reads on the wire (ACP over stdio, one JSON-RPC message per
line; who sent it is given with each message):

- initialize response: the agent's own name (`agentInfo.name`), used as the
  harness name when `--harness` is not given.
- session/new, session/load, session/resume, session/fork responses: the
  session id and the model the agent reports (`models.currentModelId`, a
  `configOptions` select of category "model", or `_meta`).
- session/set_model and session/set_config_option (of a model option)
  requests, once the agent accepts them: the model the client chose.
- session/prompt request: opens a turn. Its response ends it (`stopReason`,
  or a JSON-RPC error). Its `_meta["dev.roombot"]` (`META_KEY`) may name the
  room message that started the turn: `{"trigger": "$...", "thread": "$..."}`.
  A value that is not a Matrix event id (or a thread without a trigger) is
  dropped and said once in `notes`; the turn goes on without it.
- session/update `agent_message_chunk` with text content: answer text, held
  briefly and sent as one `turn.output` per batch.
- The process exit (`exited`): every turn still open fails.

Everything else, including what does not parse, is ignored here: the relay
has already passed it on untouched.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from acp.schema import InitializeResponse, PromptResponse
from pydantic import ValidationError

from roombot.acp import build
from roombot.acp.settings import ObserverSettings
from roombot.events import is_matrix_event_id

Sender = Literal["client", "agent"]

# Requests from the client whose responses the observer needs.
_SESSION_OPENERS = frozenset({"session/new", "session/load", "session/resume", "session/fork"})
_WATCHED = _SESSION_OPENERS | {
    "initialize",
    "session/prompt",
    "session/set_model",
    "session/set_config_option",
}
_META_MODEL_KEYS = ("model", "modelId", "currentModelId")
# The prompt's `_meta` key a client (a Matrix hub) puts roombot's fields under.
META_KEY = "dev.roombot"


@dataclass
class _Session:
    id: str
    created_here: bool
    cwd: str | None = None
    reported_model: str | None = None  # what the agent said when the session opened
    chosen_model: str | None = None  # what the client switched to during this run
    model_option: str | None = None  # configId of the agent's model select, if any


@dataclass
class _Turn:
    key: str  # the prompt request's id, as _id_key spells it
    request_id: object
    session: str
    at: float  # when the client sent the prompt
    id: str | None = None  # set when turn.started goes out
    text: list[str] = field(default_factory=list)
    text_len: int = 0  # held, not yet sent
    text_total: int = 0  # held or sent
    text_at: float = 0.0
    seq: int = 0
    uncertain: bool = False  # copies of the agent's side were lost while it was open
    trigger: str | None = None  # the room message that started the turn
    thread: str | None = None  # its thread root


@dataclass(frozen=True)
class _Pending:
    method: str
    params: Mapping[str, Any]


def _id_key(value: object) -> str:
    # 1 and "1" are different JSON-RPC ids.
    return json.dumps(value, sort_keys=True)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _model_from_result(result: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(model, configId of the model option) from a session-opening result."""
    option_id: str | None = None
    model: str | None = None
    options = result.get("configOptions")
    if isinstance(options, list):
        for opt in options:
            if (
                isinstance(opt, Mapping)
                and opt.get("type") == "select"
                and (opt.get("category") == "model" or opt.get("id") == "model")
            ):
                option_id = _str(opt.get("id"))
                model = _str(opt.get("currentValue"))
                break
    models = result.get("models")
    if model is None and isinstance(models, Mapping):
        model = _str(models.get("currentModelId"))
    meta = result.get("_meta")
    if model is None and isinstance(meta, Mapping):
        model = next((m for k in _META_MODEL_KEYS if (m := _str(meta.get(k)))), None)
    return model, option_id


def _chunk_text(update: Mapping[str, Any]) -> str | None:
    """The text of an agent_message_chunk (acp.schema.AgentMessageChunk with a
    TextContentBlock), read straight from the dict: this runs for every chunk
    of every answer, and validating the model costs several times the parse."""
    if update.get("sessionUpdate") != "agent_message_chunk":
        return None
    content = update.get("content")
    if not isinstance(content, Mapping) or content.get("type") != "text":
        return None
    text = content.get("text")
    return text if isinstance(text, str) else None


def _room_message(params: Mapping[str, Any]) -> tuple[str | None, str | None, list[str]]:
    """(trigger, thread, what was dropped) from a prompt's `_meta[META_KEY]`."""
    meta = params.get("_meta")
    ours = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    if ours is None:
        return None, None, []
    if not isinstance(ours, Mapping):
        return None, None, ["all of it (not an object)"]
    dropped: list[str] = []
    found: dict[str, str | None] = {}
    for key in ("trigger", "thread"):
        value = ours.get(key)
        found[key] = value if is_matrix_event_id(value) else None
        if value is not None and found[key] is None:
            dropped.append(f"{key} (not a Matrix event id: {_brief(value)})")
    if found["thread"] is not None and found["trigger"] is None:
        # A thread root is known only for a triggering message.
        dropped.append("thread (no trigger beside it)")
        found["thread"] = None
    return found["trigger"], found["thread"], dropped


def _brief(value: object) -> str:
    """A bad value for a log line: short, one line, no control characters."""
    if isinstance(value, Mapping | list):
        return "an object" if isinstance(value, Mapping) else "an array"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _stop_reason(result: object) -> str | None:
    if not isinstance(result, Mapping):
        return None
    try:
        return PromptResponse.model_validate(result).stop_reason
    except ValidationError:
        # A stop reason newer than our schema is still the agent's word.
        return _str(result.get("stopReason"))


class Observer:
    """Follows sessions and prompts; `feed`, `tick` and `exited` return events.

    A prompt's turn.started waits until what it needs is known: a client may
    send session/new and session/prompt back to back, and the copies of the
    two directions reach the observer in any order. It goes out once the
    session is known and no initialize or model switch for it is unanswered,
    or when the agent first says anything about the session, or after
    `flush_seconds`, whichever is first; always before the turn's other events.
    """

    def __init__(self, settings: ObserverSettings) -> None:
        self.settings = settings
        self.agent_name: str | None = None
        self._sessions: dict[str, _Session] = {}
        self._pending: dict[str, _Pending] = {}
        self._turns: dict[str, _Turn] = {}  # open turns by prompt request key
        self.notes: list[str] = []  # one line each, for stderr; the caller empties it
        self.stats: dict[str, int] = {
            "messages": 0,
            "not_jsonrpc": 0,
            "unmatched": 0,
            "gaps": 0,
            "uncertain": 0,
        }

    # -- what the relay tells us -------------------------------------------------

    def feed(self, sender: Sender, message: object, at: float) -> list[build.Event]:
        """One parsed JSON value from `sender`'s side of the wire."""
        if isinstance(message, list):  # a batch: not used by ACP, tolerated
            return [ev for item in message for ev in self.feed(sender, item, at)]
        if not isinstance(message, Mapping):
            self.stats["not_jsonrpc"] += 1
            return []
        self.stats["messages"] += 1
        method = message.get("method")
        has_id = "id" in message and message["id"] is not None
        if isinstance(method, str):
            params = message.get("params")
            params = params if isinstance(params, Mapping) else {}
            if sender == "client" and has_id:
                self._client_request(method, message["id"], params, at)
                return self._announce(at, force=False)
            if sender == "agent" and not has_id and method == "session/update":
                return self._session_update(params, at)
            return []
        if sender == "agent" and has_id and ("result" in message or "error" in message):
            return self._agent_response(message, at)
        if not has_id and "result" not in message and "error" not in message:
            self.stats["not_jsonrpc"] += 1
        return []

    def tick(self, at: float) -> list[build.Event]:
        """Announces turns and sends answer text that waited `flush_seconds`."""
        wait = self.settings.flush_seconds
        out = self._announce(at, force=False, older_than=at - wait)
        for turn in self._turns.values():
            if turn.text and at - turn.text_at >= wait:
                out.append(self._flush(turn))
        return out

    def gap(self, sender: Sender) -> None:
        """Copies from `sender` were lost (the relay outran us): whatever the agent
        said about the open turns may be among them, their end included."""
        if sender == "agent":
            for turn in self._turns.values():
                turn.uncertain = True
        self.stats["gaps"] += 1

    def exited(self, code: int | None, stderr: str, at: float) -> list[build.Event]:
        """The harness process ended: every open turn failed with it.

        Except a turn whose end may have been among lost copies: it is not
        claimed as failed (a false card is worse than none); it is counted.
        """
        out = self._announce(at, force=True)
        for turn in self._turns.values():
            assert turn.id is not None  # announced just above
            if turn.text:
                out.append(self._flush(turn))
            if turn.uncertain:
                self.stats["uncertain"] += 1
                continue
            out.append(
                build.harness_exited(
                    turn.id,
                    at,
                    harness=self.harness,
                    session=turn.session,
                    code=code,
                    stderr=stderr,
                )
            )
        self._turns.clear()
        self._pending.clear()
        return out

    @property
    def open_turns(self) -> list[str]:
        return [t.id or f"(unannounced {t.key})" for t in self._turns.values()]

    @property
    def harness(self) -> str:
        return self.settings.harness or self.agent_name or self.settings.command_name

    # -- the messages that matter ---------------------------------------------------

    def _client_request(
        self, method: str, rid: object, params: Mapping[str, Any], at: float
    ) -> None:
        if method not in _WATCHED:
            return
        key = _id_key(rid)
        self._pending[key] = _Pending(method, params)
        if method == "session/prompt":
            session_id = _str(params.get("sessionId"))
            if session_id is not None and key not in self._turns:
                # A turn whose end we may have missed is over once its session prompts again.
                for old in [k for k, t in self._turns.items() if t.session == session_id]:
                    if self._turns[old].uncertain:
                        self.stats["uncertain"] += 1
                        del self._turns[old]
                trigger, thread, dropped = _room_message(params)
                self._turns[key] = _Turn(key, rid, session_id, at, trigger=trigger, thread=thread)
                if dropped:
                    self.notes.append(
                        f'session/prompt {_brief(rid)}: _meta["{META_KEY}"]: dropped '
                        + ", ".join(dropped)
                    )

    def _agent_response(self, message: Mapping[str, Any], at: float) -> list[build.Event]:
        key = _id_key(message["id"])
        pending = self._pending.pop(key, None)
        if pending is None:
            self.stats["unmatched"] += 1
            return []
        error = message.get("error")
        result = message.get("result")
        result = result if isinstance(result, Mapping) else {}
        if pending.method == "session/prompt":
            return self._prompt_done(key, message, at)
        if error is None:
            if pending.method == "initialize":
                self._initialized(result)
            elif pending.method in _SESSION_OPENERS:
                self._session_opened(pending, result)
            elif pending.method == "session/set_model":
                session = self._known(pending.params.get("sessionId"))
                if session is not None:
                    session.chosen_model = _str(pending.params.get("modelId"))
            elif pending.method == "session/set_config_option":
                self._config_set(pending, result)
        return self._announce(at, force=False)

    def _session_update(self, params: Mapping[str, Any], at: float) -> list[build.Event]:
        session_id = params.get("sessionId")
        update = params.get("update")
        if not isinstance(session_id, str) or not isinstance(update, Mapping):
            return []
        if self._opening(session_id):  # session/load replaying history: no turn of ours
            return []
        # The agent speaks of the session: its running turn is under way.
        turn = self._open_turn_of(session_id)
        out = self._announce(at, force=False, turn=turn)
        session = self._known(session_id)
        if session is not None and update.get("sessionUpdate") == "config_option_update":
            model, option = _model_from_result(update)
            if model is not None:
                session.reported_model, session.model_option = model, option
            return out
        text = _chunk_text(update)
        # Chunks outside a prompt (session/load replays history) are not answers.
        if text is None or turn is None:
            return out
        left = self.settings.max_text - turn.text_total
        if left <= 0:
            return out
        text = text[:left]
        if not turn.text:
            turn.text_at = at
        turn.text.append(text)
        turn.text_len += len(text)
        turn.text_total += len(text)
        if turn.text_len >= self.settings.flush_bytes:
            out.append(self._flush(turn))
        return out

    # -- turn.started --------------------------------------------------------------

    def _opening(self, session_id: str) -> bool:
        return any(
            p.method in _SESSION_OPENERS and p.params.get("sessionId") == session_id
            for p in self._pending.values()
        )

    def _ready(self, turn: _Turn) -> bool:
        if turn.session not in self._sessions:
            return False
        for p in self._pending.values():
            if p.method == "initialize" or p.method in _SESSION_OPENERS:
                return False
            if p.method.startswith("session/set_") and p.params.get("sessionId") == turn.session:
                return False
        return True

    def _announce(
        self,
        at: float,
        *,
        force: bool,
        turn: _Turn | None = None,
        older_than: float | None = None,
    ) -> list[build.Event]:
        out: list[build.Event] = []
        for t in self._turns.values():
            if t.id is not None:
                continue
            if (
                force
                or t is turn
                or (older_than is not None and t.at <= older_than)
                or self._ready(t)
            ):
                out.append(self._started(t))
        return out

    def _started(self, turn: _Turn) -> build.Event:
        s = self.settings
        session = self._sessions.get(turn.session)
        if session is None:  # its opening was never seen (copies dropped): not ours
            session = self._sessions[turn.session] = _Session(turn.session, created_here=False)
        run = None if session.created_here else s.run
        turn.id = build.turn_id(turn.session, turn.request_id, run)
        room = s.rules.resolve(harness=self.harness, cwd=session.cwd) or ""
        model = session.chosen_model or s.model or session.reported_model
        return build.started(
            turn.id,
            turn.at,
            room=room,
            harness=self.harness,
            session=session.id,
            provider=s.provider,
            model=model,
            node=s.node,
            trigger=turn.trigger,
            thread=turn.thread,
        )

    # -- helpers ----------------------------------------------------------------------

    def _initialized(self, result: Mapping[str, Any]) -> None:
        try:
            info = InitializeResponse.model_validate(result).agent_info
        except ValidationError:
            return
        if info is not None and info.name:
            self.agent_name = info.name

    def _session_opened(self, pending: _Pending, result: Mapping[str, Any]) -> None:
        # session/new and session/fork mint a new id; load and resume reuse one.
        fresh = pending.method in ("session/new", "session/fork")
        session_id = _str(result.get("sessionId")) if fresh else None
        session_id = session_id or _str(pending.params.get("sessionId"))
        if session_id is None:
            return
        session = _Session(session_id, created_here=fresh, cwd=_str(pending.params.get("cwd")))
        session.reported_model, session.model_option = _model_from_result(result)
        self._sessions[session_id] = session

    def _config_set(self, pending: _Pending, result: Mapping[str, Any]) -> None:
        session = self._known(pending.params.get("sessionId"))
        if session is None:
            return
        config_id = pending.params.get("configId")
        if config_id is not None and config_id in (session.model_option, "model"):
            session.chosen_model = _str(pending.params.get("value"))
        model, option = _model_from_result(result)  # the agent's full, current options
        if option is not None and option == config_id and model is not None:
            session.chosen_model = model

    def _prompt_done(self, key: str, message: Mapping[str, Any], at: float) -> list[build.Event]:
        turn = self._turns.get(key)
        if turn is None:
            return []
        out = self._announce(at, force=False, turn=turn)  # this turn included
        del self._turns[key]
        assert turn.id is not None
        if turn.text:
            out.append(self._flush(turn))
        error = message.get("error")
        if error is not None:
            out.append(build.ended_error(turn.id, at, build.rpc_error(error)))
            return out
        reason = _stop_reason(message.get("result"))
        if reason is None:
            text = "session/prompt answered with no stopReason: " + json.dumps(
                message.get("result")
            )
            out.append(build.ended_error(turn.id, at, {"text": text}))
        else:
            out.append(build.ended(turn.id, at, reason))
        return out

    def _flush(self, turn: _Turn) -> build.Event:
        assert turn.id is not None
        ev = build.output(turn.id, turn.seq, turn.text_at, "".join(turn.text))
        turn.seq += 1
        turn.text.clear()
        turn.text_len = 0
        return ev

    def _known(self, session_id: object) -> _Session | None:
        return self._sessions.get(session_id) if isinstance(session_id, str) else None

    def _open_turn_of(self, session_id: str) -> _Turn | None:
        # ACP runs one prompt at a time per session: if a client sends the
        # next before the last is answered, the oldest is the one running.
        return next((t for t in self._turns.values() if t.session == session_id), None)
