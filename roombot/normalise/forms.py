"""Every `error` form of event format v1 -> one `Normalised` (the Attempt and how it was read).

Forms (docs/error-forms.md describes each):
  {"status", "body", "headers"}      an HTTP answer; status 0 a transport failure
  {"acp": {"code", "message", "data"}}  a JSON-RPC error answering session/prompt
  {"ironflow": <AgentError>}         the ironflow engine's error, serde externally tagged
  {"exit": {"code", "signal", "stderr"}}  the harness process exited
  {"report": {...}}                  what an in-harness reporter recovered
  {"stop_reason": "..."}             an ACP stop reason that ended the turn
  {"offline": {"node", "reason"}}    a node that went away
  {"text": "..."}                    just words
each with optional "provider" and "model" beside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from cards import Attempt, Kind
from roombot.normalise import retry
from roombot.normalise.answers import forms_for
from roombot.normalise.bodies import parse_body, strings
from roombot.normalise.engine import Signals, canonical_provider, chain, decide
from roombot.normalise.ironflow import VARIANTS, variant
from roombot.normalise.rules import BY_STATUS, HARNESS_ERRORS

__all__ = ["STOP_REASONS", "Normalised", "normalise", "normalise_answer"]


@dataclass(frozen=True, slots=True)
class Normalised:
    """The Attempt, the raw text it was read from, and what decided its kind."""

    attempt: Attempt
    raw: str  # the body, stderr or text exactly as it came
    form: str  # which error form it was
    rule: str | None  # the deciding rule or answer form (its corpus example id), if any
    via: str | None = None  # the harness answer form the words were found in, if any


STOP_REASONS: dict[str, Kind | None] = {
    "end_turn": None,
    "max_tokens": Kind.MAX_TOKENS,
    "max_turn_requests": Kind.MAX_TOKENS,
    "refusal": Kind.REFUSAL,
    "cancelled": Kind.CANCELLED,
}

_STOP_MESSAGES: dict[str, str] = {
    "max_tokens": "The agent stopped: the model hit its output-token limit "
    "(stopReason max_tokens).",
    "max_turn_requests": "The agent stopped: the turn used up its model requests "
    "(stopReason max_turn_requests).",
    "refusal": "The agent refused to continue (stopReason refusal).",
    "cancelled": "The turn was cancelled (stopReason cancelled).",
}

# ACP / JSON-RPC codes that say enough on their own.
_ACP_CODES: dict[int, Kind] = {
    -32000: Kind.AUTH,  # auth_required
    -32800: Kind.CANCELLED,  # request cancelled
    -32700: Kind.BAD_REQUEST,
    -32600: Kind.BAD_REQUEST,
    -32601: Kind.BAD_REQUEST,
    -32602: Kind.BAD_REQUEST,
    -32002: Kind.BAD_REQUEST,  # resource not found (an unknown session)
}
_ACP_PREFIX = re.compile(r"^(?:Internal error|Invalid params|Invalid request): ", re.DOTALL)
_STATUS_RULES = frozenset(r.example for r in BY_STATUS)
_ACP_TITLES = frozenset({"Internal error", "Invalid params", "Invalid request"})


def _harness_error_name(data: Mapping[str, object]) -> str | None:
    """The harness's own name for the failure: OpenCode's errorName, Codex's error info."""
    name = data.get("errorName")
    if isinstance(name, str):
        return name
    info = data.get("codex_error_info")
    if isinstance(info, str):
        return info
    if isinstance(info, Mapping) and len(info) == 1:
        key = next(iter(info))
        return key if isinstance(key, str) else None
    return None


# "429 {...}" / "Error: 429 {...}" / "429 Too Many Requests: {...}": a status and a JSON body
# written as one line by an SDK.
_STATUS_LINES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"^(?:[A-Za-z][\w .]{0,40}: )?(?P<status>[1-5]\d\d)(?: [A-Z][A-Za-z ]{2,30})?:? "
        r"(?P<body>[\[{].*[\]}])$",
        re.DOTALL,
    ),
    # openai-python's APIStatusError: "Error code: 401 - {'error': {...}}"
    re.compile(r"^Error code: (?P<status>[1-5]\d\d) - (?P<body>.*)$", re.DOTALL),
    # "HTTP 429: <the provider's sentence>" (Hermes' summary of an API error)
    re.compile(r"^HTTP (?P<status>[1-5]\d\d): (?P<body>.*)$", re.DOTALL),
)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _headers(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k).lower(): v for k, v in value.items() if isinstance(v, str)}


def _dump(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def normalise(
    error: Mapping[str, object],
    *,
    harness: str | None,
    provider: str | None,
    model: str | None,
) -> Normalised:
    """One `error` form -> Normalised. Never raises on any mapping."""
    provider = canonical_provider(provider or _str(error.get("provider")))
    model = model or _str(error.get("model"))
    if "status" in error:
        return _http(
            _int(error.get("status")),
            _str(error.get("body")) or "",
            _headers(error.get("headers")),
            provider,
            model,
        )
    acp = error.get("acp")
    if isinstance(acp, Mapping):
        return _acp(acp, harness, provider, model)
    if "ironflow" in error:
        return _ironflow(error.get("ironflow"), harness, provider, model)
    ex = error.get("exit")
    if isinstance(ex, Mapping):
        return _exit(ex, provider, model)
    report = error.get("report")
    if isinstance(report, Mapping):
        return _report(report, harness, provider, model)
    stop = error.get("stop_reason")
    if isinstance(stop, str):
        return _stop(stop, provider, model)
    offline = error.get("offline")
    if isinstance(offline, Mapping):
        return _offline(offline, provider, model)
    text = error.get("text")
    if isinstance(text, str):
        return _text(text, harness, provider, model, form="text")
    raw = _dump(dict(error))
    return Normalised(Attempt(Kind.UNKNOWN, raw, provider, model), raw, "unknown", None)


# --- HTTP answers ---------------------------------------------------------------------------


def _http(
    status: int | None,
    body: str,
    headers: Mapping[str, str],
    provider: str | None,
    model: str | None,
) -> Normalised:
    header_retry = retry.from_headers(headers) if headers else None
    if status == 0:
        message = body.strip() or "the provider could not be reached"
        sig = Signals(0, "", "", message, "", header_retry)
        r = decide(chain("transport", None), sig)
        kind = r.kind if r is not None else Kind.PROVIDER_UNAVAILABLE
        attempt = Attempt(kind, message, provider, model, 0, header_retry)
        return Normalised(attempt, body, "http", r.example if r is not None else None)
    parsed = parse_body(body, headers)
    found = provider or parsed.provider
    if status is None:
        status = parsed.status
    message = parsed.message or body or (f"HTTP {status}" if status is not None else "")
    retry_after = header_retry
    if retry_after is None:
        retry_after = parsed.retry_after
    if retry_after is None and message:
        retry_after = retry.from_message(message)
    if parsed.kind is not None:
        attempt = Attempt(parsed.kind, message, found, model, status, retry_after)
        return Normalised(attempt, body, "http", "finish/" + parsed.code)
    sig = Signals(status, parsed.code, parsed.type, message, parsed.detail, retry_after)
    r = decide(chain(parsed.shape, found), sig)
    kind = r.kind if r is not None else Kind.UNKNOWN
    attempt = Attempt(kind, message, found, model, status, retry_after)
    return Normalised(attempt, body, "http", r.example if r is not None else None)


# --- words: a harness's form, a status-and-body line, or a provider sentence ---------------


def _words(
    text: str, harness: str | None, provider: str | None, model: str | None, *, answer: bool
) -> Normalised | None:
    """Words that are recognisably an error, else None.

    With `answer` only the harness's whole-message forms count; otherwise the
    anchored provider sentences (the TEXT rules) and "status {body}" lines too.
    """
    stripped = text.strip()
    for f in forms_for(harness):
        m = f.pattern.fullmatch(stripped)
        if m is None:
            continue
        groups = m.groupdict()
        status, body, inner = groups.get("status"), groups.get("body"), groups.get("message")
        if f.kind is not None:
            got = (
                _http(int(status), body or "", {}, provider, model).attempt
                if status is not None
                else None
            )
            kept = groups.get("said") or groups.get("lead")
            attempt = Attempt(
                f.kind,
                kept or (got.message if got is not None else stripped),
                provider or (got.provider if got is not None else None),
                model,
                int(status) if status is not None else None,
                (got.retry_after if got is not None else None) or retry.from_message(stripped),
            )
            return Normalised(attempt, text, "answer", f.example, f.example)
        if status is not None:
            payload = body if body is not None else (inner or "")
            if payload == "status code (no body)":
                payload = ""
            n = _http(int(status), payload, {}, provider, model)
            if f.confirmed and (n.rule is None or n.rule in _STATUS_RULES):
                continue  # status alone: a real answer may take this shape too
            a = n.attempt
            a = Attempt(
                a.kind,
                a.message if payload else stripped,
                a.provider,
                model,
                a.status,
                a.retry_after,
            )
            return Normalised(a, text, "answer", n.rule or f.example, f.example)
        gstatus = groups.get("gstatus")
        sentence = inner if inner is not None else stripped
        if inner is not None and not gstatus:
            # The harness wrapped a sentence that may itself be a status line or SDK text.
            found = _words(inner, None, provider, model, answer=False)
            if found is not None:
                a = found.attempt
                return Normalised(
                    Attempt(a.kind, stripped, a.provider, model, a.status, a.retry_after),
                    text,
                    "answer",
                    found.rule or f.example,
                    f.example,
                )
        sig = Signals(
            None, gstatus.lower() if gstatus else "", "", sentence, "", retry.from_message(stripped)
        )
        r = decide(chain("google" if gstatus else "text", None), sig)
        kind = r.kind if r is not None else Kind.UNKNOWN
        message = inner if inner is not None and gstatus else stripped
        attempt = Attempt(kind, message, provider, model, None, sig.retry_after)
        return Normalised(attempt, text, "answer", r.example if r else f.example, f.example)
    if answer:
        return None
    for line in _STATUS_LINES:
        m2 = line.match(stripped)
        if m2 is not None:
            n = _http(int(m2.group("status")), m2.group("body"), {}, provider, model)
            if n.rule is not None:
                return Normalised(n.attempt, text, "text", n.rule)
    parsed = parse_body(stripped, {})
    if parsed.shape == "bedrock":
        return _http(None, stripped, {}, provider, model)
    if parsed.shape != "text":
        # A provider's JSON body handed on as a string (codex-acp's data.message): its
        # own rules decide and its own sentence is kept.
        n = _http(None, stripped, {}, provider, model)
        if n.rule is not None and n.attempt.kind is not Kind.UNKNOWN:
            return Normalised(n.attempt, text, "text", n.rule)
    sig = Signals(None, "", "", stripped, "", None)
    r = decide(chain("text", None), sig)
    if r is None:
        return None
    attempt = Attempt(r.kind, stripped, provider, model, None, retry.from_message(stripped))
    return Normalised(attempt, text, "text", r.example)


def _text(
    text: str, harness: str | None, provider: str | None, model: str | None, *, form: str
) -> Normalised:
    n = _words(text, harness, provider, model, answer=False)
    if n is not None:
        return Normalised(n.attempt, text, form, n.rule)
    attempt = Attempt(Kind.UNKNOWN, text, provider, model, None, retry.from_message(text))
    return Normalised(attempt, text, form, None)


def normalise_answer(harness: str | None, text: str) -> Normalised | None:
    """Answer text that is an error posing as the answer -> Normalised, else None."""
    if len(text) > 65536:
        return None  # an error posing as the answer is short
    return _words(text, harness, None, None, answer=True)


# --- ACP ------------------------------------------------------------------------------------


def _acp(
    acp: Mapping[str, object], harness: str | None, provider: str | None, model: str | None
) -> Normalised:
    code = _int(acp.get("code"))
    message = _str(acp.get("message")) or ""
    data = acp.get("data")
    raw = _dump(dict(acp))
    said = _ACP_PREFIX.sub("", message, count=1)  # the sentence without the SDK's wrapper
    if isinstance(data, Mapping) and said in _ACP_TITLES:
        # A bare JSON-RPC title ("Internal error"): the harness's sentence is in the data.
        said = _str(data.get("message")) or said
    candidates = [said]
    if isinstance(data, str):
        candidates.append(data)
    elif isinstance(data, Mapping):
        name = _harness_error_name(data)
        if name:
            sig = Signals(None, name.lower(), "", said, "", retry.from_message(said))
            r = decide(HARNESS_ERRORS, sig)
            if r is not None:
                attempt = Attempt(r.kind, said, provider, model, None, sig.retry_after)
                return Normalised(attempt, raw, "acp", r.example)
        nested = data.get("error")
        if isinstance(nested, Mapping) and ("status" in nested or "text" in nested):
            n = normalise(nested, harness=harness, provider=provider, model=model)
            if n.attempt.kind is not Kind.UNKNOWN:
                return Normalised(n.attempt, raw, "acp", n.rule)
        out: list[str] = []
        strings(data, out)
        candidates.extend(out[:8])
    for text in candidates:
        if not text.strip():
            continue
        found = _words(text, harness, provider, model, answer=False)
        if found is not None and found.attempt.kind is not Kind.UNKNOWN:
            return Normalised(found.attempt, raw, "acp", found.rule)
    if code is not None and 100 <= code <= 599:
        # Gemini CLI answers with the provider's HTTP status as the JSON-RPC code.
        n = _http(code, _ACP_PREFIX.sub("", message, count=1), {}, provider, model)
        return Normalised(n.attempt, raw, "acp", n.rule)
    kind = _ACP_CODES.get(code, Kind.UNKNOWN) if code is not None else Kind.UNKNOWN
    kept = said if kind is Kind.UNKNOWN and said.strip() else message
    attempt = Attempt(kind, kept or raw, provider, model, None, retry.from_message(message))
    return Normalised(attempt, raw, "acp", f"acp/{code}" if kind is not Kind.UNKNOWN else None)


# --- ironflow ---------------------------------------------------------------------------------


def _ironflow(
    value: object, harness: str | None, provider: str | None, model: str | None
) -> Normalised:
    raw = _dump(value)
    v = variant(value)
    if v is None:
        return Normalised(Attempt(Kind.UNKNOWN, raw, provider, model), raw, "ironflow", None)
    name, payload = v
    fields: Mapping[str, object] = payload if isinstance(payload, Mapping) else {}
    provider = provider or canonical_provider(_str(fields.get("provider")))
    message = (
        _str(fields.get("message"))
        or _str(fields.get("stderr"))
        or (payload if isinstance(payload, str) else None)
        or (f"{name} {_dump(payload)}" if payload is not None else name)
    )
    if name == "Api":
        status = _int(fields.get("status"))
        n = _words(message, harness, provider, model, answer=False)
        if n is not None and n.attempt.kind is not Kind.UNKNOWN:
            return Normalised(n.attempt, raw, "ironflow", n.rule)
        code = (_str(fields.get("code")) or "").lower()
        sig = Signals(status, code, "", message, "", retry.from_message(message))
        r = decide(chain("openai", provider), sig)
        api_kind = r.kind if r is not None else Kind.UNKNOWN
        attempt = Attempt(api_kind, message, provider, model, status, sig.retry_after)
        return Normalised(attempt, raw, "ironflow", r.example if r is not None else None)
    if name == "HttpProvider":
        status = _int(fields.get("status_code"))
        n = _http(status, message, {}, provider, model)
        return Normalised(n.attempt, raw, "ironflow", n.rule)
    kind, _reason = VARIANTS.get(name, (Kind.UNKNOWN, ""))
    retry_after = _int(fields.get("retry_after_secs")) if name == "RateLimited" else None
    if name == "RateLimited" and retry_after is not None and retry_after < 0:
        retry_after = None
    attempt = Attempt(kind or Kind.UNKNOWN, message, provider, model, None, retry_after)
    return Normalised(attempt, raw, "ironflow", "ironflow/" + name if name in VARIANTS else None)


# --- exits, stop reasons, nodes, reports ------------------------------------------------------


def _exit(ex: Mapping[str, object], provider: str | None, model: str | None) -> Normalised:
    code = _int(ex.get("code"))
    stderr = _str(ex.get("stderr")) or ""
    sig = _str(ex.get("signal"))
    if stderr.strip():
        message = stderr.strip()
    elif sig:
        message = f"The harness was killed by {sig}."
    elif code is not None:
        message = f"The harness exited with status {code}."
    else:
        message = "The harness exited."
    attempt = Attempt(Kind.HARNESS_EXITED, message, provider, model)
    return Normalised(attempt, stderr, "exit", "exit")


def _stop(stop: str, provider: str | None, model: str | None) -> Normalised:
    kind = STOP_REASONS.get(stop, Kind.UNKNOWN)
    message = _STOP_MESSAGES.get(stop, f"The agent ended the turn with stopReason {stop!r}.")
    attempt = Attempt(kind or Kind.UNKNOWN, message, provider, model)
    return Normalised(
        attempt, stop, "stop_reason", "stop/" + stop if stop in STOP_REASONS else None
    )


def _offline(off: Mapping[str, object], provider: str | None, model: str | None) -> Normalised:
    node = _str(off.get("node"))
    reason = _str(off.get("reason"))
    message = reason or (f"Node {node} went offline." if node else "The node went offline.")
    attempt = Attempt(Kind.NODE_OFFLINE, message, provider, model)
    return Normalised(attempt, reason or "", "offline", "offline")


def _report(
    rep: Mapping[str, object], harness: str | None, provider: str | None, model: str | None
) -> Normalised:
    harness = _str(rep.get("harness")) or harness
    provider = provider or canonical_provider(_str(rep.get("provider")))
    model = model or _str(rep.get("model"))
    status = _int(rep.get("status"))
    body = _str(rep.get("body"))
    message = _str(rep.get("message")) or ""
    raw = _dump(dict(rep))
    if status is not None or body is not None:
        n = _http(
            status,
            body if body is not None else message,
            _headers(rep.get("headers")),
            provider,
            model,
        )
    else:
        n = _text(message, harness, provider, model, form="report")
    attempt = n.attempt
    stated = _int(rep.get("retry_after"))
    if attempt.retry_after is None and stated is not None and stated >= 0:
        attempt = Attempt(
            attempt.kind, attempt.message, attempt.provider, attempt.model, attempt.status, stated
        )
    hint = rep.get("kind")
    # The reporter's own judgement is used only when the rules find nothing.
    if attempt.kind is Kind.UNKNOWN and isinstance(hint, str) and hint in Kind.__members__.values():
        attempt = Attempt(
            Kind(hint),
            attempt.message,
            attempt.provider,
            attempt.model,
            attempt.status,
            attempt.retry_after,
        )
        return Normalised(attempt, raw, "report", "report/kind")
    return Normalised(attempt, raw, "report", n.rule)
