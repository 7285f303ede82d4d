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

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus

from cards import Attempt, Kind
from roombot.normalise import retry
from roombot.normalise.answers import AnswerForm, forms_for
from roombot.normalise.bodies import Parsed, parse_aws_sentence, parse_body, parse_object, strings
from roombot.normalise.engine import Case, Signals, canonical_provider, decide, judge
from roombot.normalise.extract import HEAD, extract, find_values, window
from roombot.normalise.ironflow import VARIANTS, sentence, variant
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
    case: Case | None = None  # what the engine was given, when it decided (for --explain)


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
_ANSWER_MAX = 65536  # the longest text a harness's whole-message error form is tried on
# Words of an answer that explains an error; a provider's own sentence has none of them.
_EXPLAINS = re.compile(
    r"\b(?:means?|meaning|indicates?|is (?:returned|raised|thrown|sent) when|happens when|"
    r"occurs when|this error)\b",
    re.IGNORECASE,
)


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
    # A failure's JSON: the keys present say the form (a missing one is None, cheap to test).
    if "status" in error:
        return _http(
            _int(error.get("status")),
            _str(error.get("body")) or "",
            _headers(error.get("headers")),
            provider,
            model,
        )
    acp = error.get("acp")
    if acp is not None and isinstance(acp, Mapping):
        return _acp(acp, harness, provider, model)
    if "ironflow" in error:
        return _ironflow(error.get("ironflow"), harness, provider, model)
    ex = error.get("exit")
    if ex is not None and isinstance(ex, Mapping):
        return _exit(ex, provider, model)
    report = error.get("report")
    if report is not None and isinstance(report, Mapping):
        return _report(report, harness, provider, model)
    stop = error.get("stop_reason")
    if isinstance(stop, str):
        return _stop(stop, provider, model)
    offline = error.get("offline")
    if offline is not None and isinstance(offline, Mapping):
        return _offline(offline, provider, model)
    text = error.get("text")
    if isinstance(text, str):
        return _text(text, harness, provider, model, form="text")
    raw = _dump(dict(error))
    return Normalised(Attempt(Kind.UNKNOWN, raw, provider, model), raw, "unknown", None)


# --- one failure's text: extraction, then the engine's tiers ---------------------------------


def _body(text: str, values: tuple[object, ...], headers: Mapping[str, str]) -> Parsed | None:
    """The provider body in a text: the text itself, an embedded value, or an AWS sentence.

    A body whose sentence is itself a body (OpenCode's wrapper, a proxy relaying an
    error) gives the innermost one, keeping the outer provider when the inner has none.
    """
    found: Parsed | None = None
    for v in values:
        obj = v[0] if isinstance(v, list) and v and isinstance(v[0], dict) else v
        if isinstance(obj, dict):
            p = parse_object(obj, headers)
            if p is not None and p.shape != "text":
                found = p
                break
    if found is None and ("x-amzn-errortype" in headers or text.startswith("An error")):
        whole = parse_body(text, headers)  # a Bedrock answer told by its header or sentence
        if whole.shape != "text":
            found = whole
    if found is None:
        return parse_aws_sentence(text)
    if found.kind is None and "{" in found.message and len(found.message) < HEAD:
        inner = _body(found.message, tuple(find_values(found.message)), {})
        if inner is not None:
            return inner if inner.provider else dataclasses.replace(inner, provider=found.provider)
    return found


def _failure(
    text: str,
    provider: str | None,
    model: str | None,
    *,
    form: str,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
    codes: tuple[str, ...] = (),
    anchored: bool = False,
) -> Normalised:
    """Text known to be a failure -> Normalised: whatever wraps it, the same evidence decides."""
    headers = headers or {}
    ev = extract(text)
    seen = window(text)  # what extract read
    parsed = _body(seen.strip(), ev.values, headers)
    found = provider or (parsed.provider if parsed is not None else None)
    if status is None:
        status = parsed.status if parsed is not None and parsed.status is not None else ev.status
    sentence = parsed.message if parsed is not None and parsed.message else ev.sentence
    message = sentence or text.strip() or (f"HTTP {status}" if status is not None else text)
    retry_after = retry.from_headers(headers) if headers else None
    if retry_after is None and parsed is not None:
        retry_after = parsed.retry_after
    if retry_after is None:
        retry_after = retry.from_message(seen)
        if retry_after is None and message not in seen:
            retry_after = retry.from_message(message)
    if parsed is not None and parsed.kind is not None:
        attempt = Attempt(parsed.kind, message, found, model, status, retry_after)
        return Normalised(attempt, text, form, "finish/" + parsed.code)
    body = (
        Signals(status, parsed.code, parsed.type, parsed.message, parsed.detail, retry_after)
        if parsed is not None
        else None
    )
    case = Case(
        body=body,
        shape=parsed.shape if parsed is not None else "text",
        provider=found,
        sentence=message,
        haystack=ev.haystack,
        codes=codes + ev.codes,
        status=status,
        retry_after=retry_after,
    )
    r = judge(case, anchored=anchored)
    kind = r.kind if r is not None else Kind.UNKNOWN
    attempt = Attempt(kind, message, found, model, status, retry_after)
    return Normalised(attempt, text, form, r.example if r is not None else None, case=case)


# --- HTTP answers ---------------------------------------------------------------------------


def _http(
    status: int | None,
    body: str,
    headers: Mapping[str, str],
    provider: str | None,
    model: str | None,
) -> Normalised:
    if status == 0:
        # A transport failure: the client library's own sentence, never a provider body.
        message = body.strip() or "the provider could not be reached"
        header_retry = retry.from_headers(headers) if headers else None
        sig = Signals(0, "", "", message, "", header_retry)
        case = Case(sig, "transport", None, message, extract(message).haystack, status=0)
        r = judge(case)
        kind = r.kind if r is not None else Kind.PROVIDER_UNAVAILABLE
        attempt = Attempt(kind, message, provider, model, 0, header_retry)
        return Normalised(attempt, body, "http", r.example if r is not None else None, case=case)
    n = _failure(body, provider, model, form="http", status=status, headers=headers)
    if not body.strip():
        a = n.attempt
        described = _status_sentence(status)
        n = Normalised(dataclasses.replace(a, message=described), body, "http", n.rule, case=n.case)
    return n


def _status_sentence(status: int | None) -> str:
    """A readable sentence for an answer that came with a status and no body."""
    if status is None:
        return "The provider answered with an empty body."
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    return f"HTTP {status} {phrase} (the answer had no body).".replace("  ", " ")


# --- words: a harness's whole-message form, or any failure text -------------------------------


def _adds(f: AnswerForm) -> bool:
    """Whether a form says more of a failure than the engine reads in its words: a kind of
    its own, a status with its body, or Gemini CLI's status beside its sentence."""
    groups = f.pattern.groupindex
    return f.kind is not None or "status" in groups or "gstatus" in groups


_FAILURE_FORMS: dict[tuple[str | None, str], tuple[AnswerForm, ...]] = {}


def _failure_forms(harness: str | None, first: str) -> tuple[AnswerForm, ...]:
    """The forms a text known to be a failure is tried with (see _answer_form): those that
    say more than the engine would and need no confirming. Worked out once per harness
    name and first character, as forms_for is."""
    key = (harness, first)
    found = _FAILURE_FORMS.get(key)
    if found is None:
        found = tuple(f for f in forms_for(harness, first) if not f.confirmed and _adds(f))
        if len(_FAILURE_FORMS) < 4096:
            _FAILURE_FORMS[key] = found
    return found


def _answer_form(
    text: str,
    harness: str | None,
    provider: str | None,
    model: str | None,
    *,
    failure: bool = False,
) -> Normalised | None:
    """The harness's whole-message error form the text is, else None.

    Only whole-message shapes count here, never a phrase inside: an answer that talks
    about errors must never be taken for one. `failure`: the text is known to be a
    failure, so a shape that must first be confirmed as one is left to the engine, which
    reads the same words without the doubt (and without reading them twice).
    """
    stripped = text.strip()
    # A harness's whole-message form is short; a longer text is read by the engine alone.
    if not 0 < len(stripped) <= _ANSWER_MAX:
        return None
    forms = _failure_forms(harness, stripped[0]) if failure else forms_for(harness, stripped[0])
    for f in forms:
        m = f.pattern.fullmatch(stripped)
        if m is None:
            continue
        found = _form(f, m.groupdict(), text, stripped, provider, model)
        if found is not None:
            return found
    return None


def _words(text: str, harness: str | None, provider: str | None, model: str | None) -> Normalised:
    """Words known to be a failure: a harness's form where they are one, else the engine's
    reading of them (`_failure`; kind unknown when nothing names a cause)."""
    found = _answer_form(text, harness, provider, model, failure=True)
    if found is not None:
        return found
    n = _failure(text, provider, model, form="text")
    if not text.strip():  # a card needs a sentence, as an empty HTTP body gets one
        n = dataclasses.replace(n, attempt=dataclasses.replace(n.attempt, message=_NO_TEXT))
    return n


_NO_TEXT = "The failure came with no text."


def _form(
    f: AnswerForm,
    groups: dict[str, str | None],
    text: str,
    stripped: str,
    provider: str | None,
    model: str | None,
) -> Normalised | None:
    """One harness form that matched the whole message -> Normalised (None: not confirmed)."""
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
    if status is not None and (body is not None or not f.confirmed):
        payload = body if body is not None else (inner or "")
        if payload == "status code (no body)":
            payload = ""
        n = _http(int(status), payload, {}, provider, model)
        a = dataclasses.replace(n.attempt, message=n.attempt.message if payload else stripped)
        return Normalised(a, text, "answer", n.rule or f.example, f.example, case=n.case)
    if f.confirmed:
        # A shape a real answer may take too: it counts only when the words inside open
        # with a provider's sentence that some rule knows, never on the status alone, and
        # never when they explain an error rather than report one.
        if inner is None or _EXPLAINS.search(inner):
            return None
        n = _failure(
            inner,
            provider,
            model,
            form="answer",
            status=int(status) if status is not None else None,
            anchored=True,
        )
        if n.rule is None or n.rule in _STATUS_RULES:
            return None
        return Normalised(n.attempt, text, "answer", n.rule, f.example, case=n.case)
    n = _failure(stripped, provider, model, form="answer")
    a = n.attempt
    if inner is not None and groups.get("gstatus"):
        a = dataclasses.replace(a, message=inner)  # Gemini CLI's sentence without its status
    elif n.rule is not None and inner is not None:
        a = dataclasses.replace(a, message=stripped)
    return Normalised(a, text, "answer", n.rule or f.example, f.example, case=n.case)


def _text(
    text: str, harness: str | None, provider: str | None, model: str | None, *, form: str
) -> Normalised:
    n = _words(text, harness, provider, model)
    return Normalised(n.attempt, text, form, n.rule, case=n.case)


def normalise_answer(harness: str | None, text: str) -> Normalised | None:
    """Answer text that is an error posing as the answer -> Normalised, else None."""
    if len(text) > _ANSWER_MAX:
        return None  # an error posing as the answer is short
    return _answer_form(text, harness, None, None)


# --- ACP ------------------------------------------------------------------------------------


def _data_status(data: object) -> int | None:
    """An HTTP status a JSON-RPC error's data states at its top level."""
    if not isinstance(data, Mapping):
        return None
    for key in ("status", "statusCode", "status_code", "httpStatus", "http_status"):
        value = _int(data.get(key))
        if value is not None and 100 <= value <= 599:
            return value
    return None


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
                return Normalised(n.attempt, raw, "acp", n.rule, case=n.case)
        out: list[str] = []
        strings(data, out)
        candidates.extend(out[:8])
    # Gemini CLI answers with the provider's HTTP status as the JSON-RPC code; other
    # harnesses put it in the data ({"status": 429}, {"statusCode": 503}).
    http_status = code if code is not None and 100 <= code <= 599 else _data_status(data)
    for text in candidates:
        if not text.strip():
            continue
        found = _words(text, harness, provider, model)
        if found.attempt.kind is not Kind.UNKNOWN:
            a = found.attempt
            if a.status is None and http_status is not None:
                a = dataclasses.replace(a, status=http_status)
            if text is not said and text.endswith(f": {a.status}") and said.strip():
                a = dataclasses.replace(a, message=said)  # "statusCode: 503" is no sentence
            return Normalised(a, raw, "acp", found.rule, case=found.case)
    if isinstance(data, Mapping | list):
        # The data's codes and status (no sentence of their own): "Rate limit exceeded" with
        # {"status": 429} beside it, a provider's code without its words.
        n = _failure(f"{said}\n{_dump(data)}", provider, model, form="acp")
        if n.rule is not None and n.rule not in _STATUS_RULES:
            a = dataclasses.replace(n.attempt, message=said or n.attempt.message)
            return Normalised(a, raw, "acp", n.rule, case=n.case)
    if http_status is not None:
        n = _http(http_status, _ACP_PREFIX.sub("", message, count=1), {}, provider, model)
        return Normalised(n.attempt, raw, "acp", n.rule, case=n.case)
    kind = _ACP_CODES.get(code, Kind.UNKNOWN) if code is not None else Kind.UNKNOWN
    kept = said if kind is Kind.UNKNOWN and said.strip() else message
    if not kept.strip():
        # No words at all: say what came, the raw JSON stays beside it.
        kept = f"The agent answered with JSON-RPC error {code} and no message."
    attempt = Attempt(kind, kept, provider, model, None, retry.from_message(message))
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
        or sentence(name, fields)
    )
    if name == "Api":
        status = _int(fields.get("status"))
        n = _words(message, harness, provider, model)
        if n.attempt.kind is not Kind.UNKNOWN:
            return Normalised(n.attempt, raw, "ironflow", n.rule, case=n.case)
        code = (_str(fields.get("code")) or "").lower()
        n = _failure(message, provider, model, form="ironflow", status=status, codes=(code,))
        a = dataclasses.replace(n.attempt, message=message)
        return Normalised(a, raw, "ironflow", n.rule, case=n.case)
    if name == "HttpProvider":
        status = _int(fields.get("status_code"))
        n = _http(status, message, {}, provider, model)
        return Normalised(n.attempt, raw, "ironflow", n.rule, case=n.case)
    kind, _reason = VARIANTS.get(name, (Kind.UNKNOWN, ""))
    retry_after = _int(fields.get("retry_after_secs")) if name == "RateLimited" else None
    if name == "RateLimited" and retry_after is not None and retry_after < 0:
        retry_after = None
    attempt = Attempt(kind or Kind.UNKNOWN, message, provider, model, None, retry_after)
    return Normalised(attempt, raw, "ironflow", "ironflow/" + name if name in VARIANTS else None)


# --- exits, stop reasons, nodes, reports ------------------------------------------------------

# What a harness's last words may say instead of harness_exited: it exited *because* the
# provider refused (a spent quota, a bad key, a prompt over the window). Lifecycle words
# (cancelled, offline, exited) and "unknown" leave the kind harness_exited.
_CAUSE_OF_EXIT = frozenset(
    {
        Kind.QUOTA,
        Kind.RATE_LIMIT,
        Kind.AUTH,
        Kind.BAD_REQUEST,
        Kind.CONTEXT_EXHAUSTED,
        Kind.TIMEOUT,
        Kind.PROVIDER_UNAVAILABLE,
        Kind.REFUSAL,
        Kind.MAX_TOKENS,
    }
)


def _exit(ex: Mapping[str, object], provider: str | None, model: str | None) -> Normalised:
    code = _int(ex.get("code"))
    stderr = _str(ex.get("stderr")) or ""
    sig = _str(ex.get("signal"))
    if stderr.strip():
        n = _failure(stderr, provider, model, form="exit")
        if n.attempt.kind in _CAUSE_OF_EXIT:
            return Normalised(n.attempt, stderr, "exit", n.rule, case=n.case)
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
    return Normalised(attempt, raw, "report", n.rule, case=n.case)
