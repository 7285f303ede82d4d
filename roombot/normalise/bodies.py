"""Reading a provider's HTTP body: its shape, its own sentence, codes and details.

The shape is told from the body itself, so the provider need not be named:
  anthropic  {"type": "error", "error": {"type", "message"}}
  google     {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message", "details"}}
             (also inside a one-element array, as the streaming endpoints send it)
  openai     {"error": {"message", "type", "code", "param"}} and {"object": "error", ...}
  xai        {"code": "<gRPC status text>", "error": "<sentence>"}
  plain      {"error": "<sentence>"} (Ollama and other local servers)
  bedrock    {"message": ...} with x-amzn-ErrorType, or {"__type": ...}, or the AWS SDK's
             "An error occurred (ThrottlingException) when calling ..." sentence
  finish     a 200 answer that stopped for a reason that is a failure (a safety block,
             the output-token limit): promptFeedback.blockReason, finishReason,
             finish_reason, stop_reason, incomplete_details
  text       anything else: the body is the message, whole
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from cards import Kind
from roombot.normalise.retry import duration

__all__ = ["Parsed", "parse_aws_sentence", "parse_body", "parse_object", "strings"]


@dataclass(frozen=True, slots=True)
class Parsed:
    shape: str
    provider: str | None  # told by the body or headers; None when the shape is shared
    message: str
    code: str = ""
    type: str = ""
    detail: str = ""
    status: int | None = None  # a status the body states (Google's error.code)
    retry_after: int | None = None  # a delay the body states (Gemini RetryInfo)
    kind: Kind | None = None  # set only for `finish`: the stop reason decides


_AWS_SENTENCE = re.compile(
    r"^An error occurred \((?P<code>\w+)\) when calling the \w+ operation"
    r"(?: \(reached max retries: \d+\))?: (?P<message>.*)$",
    re.DOTALL,
)
# The same sentence inside other words ("botocore.errorfactory.ValidationException: An
# error occurred (...) when calling the Converse operation: ..."): the message is its line.
_AWS_ANYWHERE = re.compile(
    r"\bAn error occurred \((?P<code>\w+)\) when calling the \w+ operation"
    r"(?: \(reached max retries: \d+\))?: (?P<message>[^\n]*)"
)

# Stop reasons of a 200 answer that are failures, by provider field.
_FINISH: dict[str, Kind] = {
    # Gemini finishReason / promptFeedback.blockReason
    "SAFETY": Kind.REFUSAL,
    "PROHIBITED_CONTENT": Kind.REFUSAL,
    "BLOCKLIST": Kind.REFUSAL,
    "SPII": Kind.REFUSAL,
    "RECITATION": Kind.REFUSAL,
    "IMAGE_SAFETY": Kind.REFUSAL,
    "OTHER": Kind.REFUSAL,  # a blockReason of OTHER: blocked for a reason not disclosed
    "MAX_TOKENS": Kind.MAX_TOKENS,
    # OpenAI finish_reason, Responses incomplete_details.reason, Anthropic stop_reason
    "content_filter": Kind.REFUSAL,
    "length": Kind.MAX_TOKENS,
    "max_output_tokens": Kind.MAX_TOKENS,
    "refusal": Kind.REFUSAL,
    "max_tokens": Kind.MAX_TOKENS,
    "model_context_window_exceeded": Kind.CONTEXT_EXHAUSTED,
}


def strings(value: object, out: list[str], depth: int = 0) -> None:
    """Every string inside a JSON value (keys that say something included), bounded."""
    if depth > 6 or len(out) > 64:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, bool | int | float) and not isinstance(v, bool):
                out.append(f"{k}: {v}")
            else:
                strings(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            strings(v, out, depth + 1)


def _s(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return ""


def load_json(text: str) -> object | None:
    """The JSON value of a body: whole, or the first `data:` line of an SSE stream."""
    t = text.strip()
    if not t:
        return None
    if t[0] in "{[":
        try:
            value: object = json.loads(t)
        except (ValueError, RecursionError):
            return None
        return value
    if "data:" in t:
        for line in t.splitlines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data.startswith("{"):
                    try:
                        found: object = json.loads(data)
                        return found
                    except (ValueError, RecursionError):
                        return None
    return None


def parse_body(body: str, headers: Mapping[str, str]) -> Parsed:
    """One body (and its lower-cased headers) -> its shape and fields."""
    obj = load_json(body)
    if isinstance(obj, list) and obj and isinstance(obj[0], dict):
        obj = obj[0]
    if isinstance(obj, dict):
        parsed = parse_object(obj, headers)
        if parsed is not None:
            return parsed
    aws = _AWS_SENTENCE.match(body.strip())
    if aws is not None:
        return Parsed("bedrock", "bedrock", aws.group("message"), code=aws.group("code").lower())
    amzn = headers.get("x-amzn-errortype")
    if amzn:
        return Parsed("bedrock", "bedrock", body, code=amzn.split(":", 1)[0].lower())
    return Parsed("text", None, body)


def parse_aws_sentence(text: str) -> Parsed | None:
    """The AWS SDK's "An error occurred (Code) when calling the X operation: ..." anywhere."""
    if "An error occurred (" not in text:
        return None  # a substring test first: the leading \b keeps the regex from skipping ahead
    m = _AWS_ANYWHERE.search(text)
    if m is None:
        return None
    return Parsed("bedrock", "bedrock", m.group("message").strip(), code=m.group("code").lower())


def parse_object(obj: dict[str, object], headers: Mapping[str, str]) -> Parsed | None:
    """One JSON object -> its shape and fields, or None when it is no provider body."""
    err = obj.get("error")
    if isinstance(err, dict):
        if obj.get("type") == "error":
            return _anthropic(err)
        if isinstance(err.get("status"), str) and isinstance(err.get("code"), int):
            return _google(err)
        return _openai(obj, err, headers)
    if isinstance(err, str):
        code = obj.get("code")
        if isinstance(code, str):
            return Parsed("xai", "xai", err, code=code.lower())
        return Parsed("plain", None, err)
    amzn = headers.get("x-amzn-errortype") or _s(obj.get("__type"))
    if amzn:
        name = amzn.split(":", 1)[0].rsplit("#", 1)[-1]
        msg = _s(obj.get("message")) or _s(obj.get("Message"))
        return Parsed("bedrock", "bedrock", msg, code=name.lower())
    if obj.get("object") == "error" or isinstance(obj.get("message"), str):
        out: list[str] = []
        strings(obj.get("detail"), out)
        return Parsed(
            "openai",
            None,
            _s(obj.get("message")),
            code=_s(obj.get("code")).lower(),
            type=_s(obj.get("type")).lower(),
            detail="\n".join(out),
        )
    return _finish(obj)


def _anthropic(err: dict[str, object]) -> Parsed:
    out: list[str] = []
    for k, v in err.items():
        if k not in ("message", "type"):
            strings(v, out)
    return Parsed(
        "anthropic",
        "anthropic",
        _s(err.get("message")),
        type=_s(err.get("type")).lower(),
        detail="\n".join(out),
    )


def _google(err: dict[str, object]) -> Parsed:
    out: list[str] = []
    retry: int | None = None
    details = err.get("details")
    if isinstance(details, list):
        for d in details:
            if isinstance(d, dict):
                delay = d.get("retryDelay")
                if isinstance(delay, str):
                    retry = duration(delay)
                strings(d, out)
    code = err.get("code")
    msg = _s(err.get("message"))
    # Vertex AI names itself in its help links; the Gemini API in its own.
    provider = "vertex" if "vertex-ai" in msg or "aiplatform" in msg else "gemini"
    return Parsed(
        "google",
        provider,
        msg,
        code=_s(err.get("status")).lower(),
        detail="\n".join(out),
        status=code if isinstance(code, int) else None,
        retry_after=retry,
    )


_URL_PROVIDERS: tuple[tuple[str, str], ...] = (
    ("console.groq.com", "groq"),
    ("groq.com", "groq"),
    ("platform.openai.com", "openai"),
    ("openrouter.ai", "openrouter"),
    ("console.x.ai", "xai"),
    ("docs.mistral.ai", "mistral"),
    ("deepseek.com", "deepseek"),
    ("go.microsoft.com", "azure"),
    ("azure", "azure"),
)


def _openai(obj: dict[str, object], err: dict[str, object], headers: Mapping[str, str]) -> Parsed:
    out: list[str] = []
    for key in ("metadata", "innererror", "param", "details"):
        strings(err.get(key), out)
    msg = _s(err.get("message"))
    provider: str | None = None
    if "metadata" in err or "user_id" in obj:
        provider = "openrouter"
    elif "innererror" in err or "apim-request-id" in headers or "x-ms-region" in headers:
        provider = "azure"
    elif "openai-organization" in headers or "openai-processing-ms" in headers:
        provider = "openai"
    else:
        low = msg.lower()
        provider = next((p for marker, p in _URL_PROVIDERS if marker in low), None)
    code = err.get("code")
    inner = err.get("innererror")
    if isinstance(inner, dict) and isinstance(inner.get("code"), str) and not _s(code):
        code = inner["code"]
    return Parsed(
        "openai",
        provider,
        msg,
        code=_s(code).lower(),
        type=_s(err.get("type")).lower(),
        detail="\n".join(out),
        status=code if isinstance(code, int) and 100 <= code <= 599 else None,
    )


def _finish(obj: dict[str, object]) -> Parsed | None:
    feedback = obj.get("promptFeedback")
    if isinstance(feedback, dict):
        reason = _s(feedback.get("blockReason"))
        if reason in _FINISH:
            text = _s(feedback.get("blockReasonMessage")) or f"blockReason: {reason}"
            return Parsed("finish", "gemini", text, code=reason.lower(), kind=_FINISH[reason])
    candidates = obj.get("candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
        reason = _s(candidates[0].get("finishReason"))
        if reason in _FINISH:
            text = _s(candidates[0].get("finishMessage")) or f"finishReason: {reason}"
            return Parsed("finish", "gemini", text, code=reason.lower(), kind=_FINISH[reason])
    choices = obj.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        reason = _s(choices[0].get("finish_reason"))
        if reason in ("content_filter", "length"):
            return Parsed(
                "finish", None, f"finish_reason: {reason}", code=reason, kind=_FINISH[reason]
            )
    incomplete = obj.get("incomplete_details")
    if isinstance(incomplete, dict):
        reason = _s(incomplete.get("reason"))
        if reason in ("content_filter", "max_output_tokens"):
            text = f"incomplete_details.reason: {reason}"
            return Parsed("finish", "openai", text, code=reason, kind=_FINISH[reason])
    bedrock_stop = _s(obj.get("stopReason"))
    if bedrock_stop in ("max_tokens", "guardrail_intervened", "content_filtered"):
        kind = Kind.MAX_TOKENS if bedrock_stop == "max_tokens" else Kind.REFUSAL
        return Parsed(
            "finish", "bedrock", f"stopReason: {bedrock_stop}", code=bedrock_stop, kind=kind
        )
    if obj.get("type") == "message":
        reason = _s(obj.get("stop_reason"))
        if reason in ("refusal", "max_tokens", "model_context_window_exceeded"):
            return Parsed(
                "finish", "anthropic", f"stop_reason: {reason}", code=reason, kind=_FINISH[reason]
            )
    return None
