"""The extraction layer: whatever wraps a failure, the same evidence comes out.

Failure text reaches a hub in many wrappings: an SDK prefix ("Error: 400 {...}",
"openai.BadRequestError: Error code: 400 - {'error': ...}"), a harness's
decoration ("[API Error: ...]", "ACP protocol error: Internal error: ..."), a
Python dict repr instead of JSON, a body inside a sentence, JSON inside a JSON
string, a stack trace. `extract(text)` looks through all of it and returns:

  values      every embedded JSON value and Python literal (balanced brackets;
              JSON first, then a safe literal parse: pyliteral), JSON inside
              strings unwrapped
  codes       every `code`, `type`, `status`, `reason`, ... string found at any depth
              (and, from `names_in`, the gRPC status names written in the words)
  status      the HTTP status a body states, else one the words state
              ("Error code: 400", "status 429", "HTTP 503", "429 Too Many Requests")
  names_in    exception class names (RateLimitError, ThrottlingException, ...)
  sentence    the provider's own sentence: the innermost message of a body, else the
              text without its known prefixes; "" when nothing better than the text
  haystack    where cause phrases are searched: the text with URLs reduced to their
              host and stack-trace frames dropped

Pure and bounded: a megabyte of hostile text costs milliseconds, never an
exception. Only the first 32 KiB and the last 8 KiB of a longer text are read
(a failure says what it is near its start or its end); the card keeps it all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from roombot.normalise import pyliteral

__all__ = ["Evidence", "extract", "find_values", "names_in", "window"]

HEAD = 32768
TAIL = 8192
_MAX_VALUES = 8  # embedded values kept per text
_MAX_TRIES = 24  # opening brackets tried per text
_MAX_SCAN = 65536  # characters the literal scanner may visit per text, all tries together
_MAX_LITERAL = 16384  # the longest Python literal read (pyliteral.read)
_MAX_DEPTH = 64  # bracket depth a literal may have
_MAX_NODES = 400  # nodes visited when collecting fields
_UNWRAP_DEPTH = 3  # JSON inside JSON strings, this many levels

_DECODER = json.JSONDecoder(strict=False)  # a terminal may wrap a body inside its strings
_OPEN = re.compile(r"[{\[]")
# How a JSON object or array opens (its first key, or its first value, or its end): the
# decoder reads only a bracket so followed, and raising its error costs far more.
_JSON_START = re.compile(r"""\{[ \t\n\r]*["}]|\[[ \t\n\r]*[-"0-9{\[\]tfnNI]""")
_TOKENS = re.compile(r"""[{}\[\]()"'\\]""")
# One step of the literal scanner: a whole quoted string (a backslash escapes the
# character after it), a bracket, or a quote that opens a string never closed. Each bracket
# and quote is an alternative of its own, not a class: when every alternative opens with
# one character, re skips ahead in C to the next of them instead of trying each position.
_STEPS = re.compile(
    r"""'[^'\\]*(?:\\[\s\S][^'\\]*)*'"""  # a string in single quotes
    r"""|"[^"\\]*(?:\\[\s\S][^"\\]*)*\""""  # in double quotes
    r"""|\{|\}|\[|\]|\(|\)|'|\""""
)
_CLOSERS = {"}": "{", "]": "[", ")": "("}


def window(text: str) -> str:
    """The part of a text that is read: all of it, or its head and its tail."""
    if len(text) <= HEAD + TAIL:
        return text
    return text[:HEAD] + "\n" + text[-TAIL:]


def _literal_end(text: str, start: int, budget: list[int]) -> int | None:
    """The end of the bracketed Python literal opening at `start`, quote-aware, or None.

    Every bracket, quote and backslash from `start` on is one step of the budget (the
    scan of all tries together is bounded); a quoted string is skipped in one regex step
    and its steps counted after, so the budget spent is that of visiting each in turn.
    """
    limit = min(len(text), start + _MAX_LITERAL)
    stack: list[str] = []
    decided: int | None = None
    at = limit  # where the scan stops: the deciding bracket, else the end of the range
    for m in _STEPS.finditer(text, start, limit):
        ch = m.group()
        if len(ch) > 1:
            continue  # a whole quoted string
        if ch in "\"'":
            break  # a quote that is never closed: the rest is inside it
        if ch in "{[(":
            stack.append(ch)
            if len(stack) > _MAX_DEPTH:
                at = m.start()
                break
        elif not stack or stack.pop() != _CLOSERS[ch]:
            at = m.start()
            break
        elif not stack:
            at, decided = m.start(), m.start() + 1
            break
    steps = len(_TOKENS.findall(text, start, min(at + 1, limit)))
    budget[0] -= steps
    if budget[0] < 0:
        return None
    return decided


def find_values(text: str) -> list[object]:
    """Every JSON value or Python literal (a dict or a list) embedded in the text, in order."""
    return [v for v, _ in _find(text)]


def _find(text: str) -> list[tuple[object, int]]:
    """The embedded values and where each starts."""
    found: list[tuple[object, int]] = []
    budget = [_MAX_SCAN]
    pos = 0
    for _ in range(_MAX_TRIES):
        m = _OPEN.search(text, pos)
        if m is None or len(found) >= _MAX_VALUES:
            break
        start = m.start()
        value: object = pyliteral.MISSING
        end = start + 1
        try:
            if _JSON_START.match(text, start) is None:
                raise ValueError  # no JSON opens so ("{'a': 1}"): a Python literal may
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            stop = _literal_end(text, start, budget)
            if stop is not None:
                value, end = pyliteral.read(text[start:stop]), stop
        if isinstance(value, dict | list) and value:
            found.append((value, start))
            pos = end
        else:
            pos = start + 1
    return found


# --- fields at any depth ---------------------------------------------------------------------

# Keys whose string value names the failure (a code, a type, a reason, a status text).
_CODE_KEYS = frozenset(
    {
        "code",
        "type",
        "status",
        "reason",
        "error_code",
        "errorcode",
        "error_type",
        "errortype",
        "__type",
        "errorname",
        "name",
        "finish_reason",
        "finishreason",
        "stop_reason",
        "stopreason",
        "blockreason",
        "codex_error_info",
    }
)
_STATUS_KEYS = frozenset({"status", "status_code", "statuscode", "http_status", "code"})
_MESSAGE_KEYS = ("message", "error", "msg", "detail", "error_message", "errormessage")
_CODE_VALUE = re.compile(r"^[A-Za-z][\w.:#-]{1,80}$")


@dataclass(slots=True)
class _Fields:
    codes: list[str]
    statuses: list[int]
    messages: list[str]
    nodes: int = 0


def _collect(value: object, out: _Fields, depth: int) -> None:
    out.nodes += 1
    if out.nodes > _MAX_NODES or depth > 12:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            key = str(k).lower()
            if isinstance(v, str):
                if key in _CODE_KEYS and _CODE_VALUE.match(v):
                    out.codes.append(v.lower())
                elif key in _MESSAGE_KEYS and v.strip():
                    out.messages.append(v)
                if "{" in v and depth < _UNWRAP_DEPTH + 4:
                    for inner in find_values(v):
                        _collect(inner, out, depth + 1)
            elif isinstance(v, int) and not isinstance(v, bool):
                if key in _STATUS_KEYS and 100 <= v <= 599:
                    out.statuses.append(v)
            elif isinstance(v, dict) and key == "codex_error_info" and len(v) == 1:
                out.codes.append(str(next(iter(v))).lower())
                _collect(v, out, depth + 1)
            else:
                _collect(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value[:32]:
            _collect(v, out, depth + 1)


# --- words ------------------------------------------------------------------------------------

_REASONS = (
    "Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not Allowed|"
    "Request Timeout|Conflict|Payload Too Large|Request Entity Too Large|"
    "Unprocessable Entity|Unprocessable Content|Too Many Requests|Internal Server Error|"
    "Bad Gateway|Service Unavailable|Gateway Timeout|Overloaded|Client Closed Request"
)
# The HTTP status stated in words, most explicit forms first; matched on the lower-cased
# words (a case-insensitive search costs several times as much). A search opening with \b
# tries every position in turn, so each is tried only where the words it needs are present,
# and from where its match can first open (see _status_match).
_STATUS_NAMED = re.compile(
    r"\b(?:error code|status code|status_code|statuscode|http status|http code|"
    r"last status|status)\b\W{0,3}([1-5]\d\d)\b"
)
_STATUS_HTTP = re.compile(r"\bhttp(?:/\d(?:\.\d)?)?[ :]\s?([1-5]\d\d)\b")
_STATUS_REASON = re.compile(rf"\b([1-5]\d\d)[ :(-]{{1,3}}(?:{_REASONS.lower()})\b")
# Python requests: "422 Client Error: Unprocessable Entity for url: ..."
_STATUS_REQUESTS = re.compile(r"\b([1-5]\d\d) (?:client|server) error\b")
_STATUS_CODE_AFTER = re.compile(r"\b([1-5]\d\d) status code\b")
# "Error: 400 {...}", "API Error: 529 Overloaded", "ClientError: 400 INVALID_ARGUMENT",
# "API Error (529 {...})", "unexpected status 401"
_AFTER_ERROR = r"([1-5]\d\d)(?= [{\[a-z]|[.:,)\]]|$)"
_STATUS_AFTER_ERROR = re.compile(
    r"(?:(?:error|exception|\bfailed|\bfailure|\bunexpected status)\W{0,3}|\(|\[)" + _AFTER_ERROR
)
# The same without the alternatives that open with \b, for words that hold none of theirs:
# it finds the same match, and re can skip ahead to the letters and brackets it opens with.
_STATUS_AFTER_ERROR_PLAIN = re.compile(r"(?:(?:error|exception)\W{0,3}|\(|\[)" + _AFTER_ERROR)
# a status that ends the text after a colon: "Failed to list models: 403"
_STATUS_AT_END = re.compile(r": ([1-5]\d\d)\s*$")
# a status at the very start: "429 {...}", "503 UNAVAILABLE. {...}"
_STATUS_AT_START = re.compile(r"^\W{0,4}([1-5]\d\d)(?= [{\[a-z(]|:|$)")
# Three digits a status could be: every form above holds them. Opening with a character
# class, this search skips ahead in C (a lookbehind first would try every position).
_DIGITS = re.compile(r"[1-5]\d\d")
# gRPC status names, as words in a text (case matters: "INTERNAL", not "internal").
_GRPC = frozenset(
    {
        "RESOURCE_EXHAUSTED",
        "DEADLINE_EXCEEDED",
        "UNAVAILABLE",
        "INVALID_ARGUMENT",
        "PERMISSION_DENIED",
        "UNAUTHENTICATED",
        "NOT_FOUND",
        "FAILED_PRECONDITION",
        "INTERNAL",
        "CANCELLED",
        "OUT_OF_RANGE",
    }
)
# Exception class names, qualified or not (botocore...ThrottlingException is its last
# word): a capitalised word ending so.
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXCEPTION_ENDS = (
    "Error",
    "Exception",
    "Exceeded",
    "Timeout",
    "Interrupt",
    "Cancelled",
    "Canceled",
    "Unavailable",
    "Aborted",
)
# Some letters one of those names must hold: an exception class's ending, a gRPC name.
_NAME_HINT = re.compile("|".join(_EXCEPTION_ENDS + tuple(sorted(_GRPC))))
_URL = re.compile(r"\b(?:https?|wss?)://([^\s/\"'<>)\]]+)[^\s\"'<>)\]]*", re.IGNORECASE)
_FRAME = re.compile(r"^[ \t]+(?:at [^\n]*|File \"[^\n]*)$\n?", re.MULTILINE)

# Prefixes a harness, an SDK or a hub puts in front of the provider's words, stripped one
# after another from the start (the card keeps the sentence, the raw keeps everything).
_PREFIX = re.compile(
    # the marks harnesses print before an error line (box corner, crosses, warning, dots)
    "^(?:[\\s\u23bf\u2715\u2717\u2718\u00d7\u274c\u26a0\ufe0f\u23fa\u25cf\u2022>*-]+"
    r"|(?:ACP protocol error|Internal error|Invalid params|Invalid request)\s*:\s*"
    r"|(?:[A-Za-z_]\w*\.){0,6}[A-Z]\w*(?:Error|Exception)(?: \[\w+\])?\s*:\s*(?!$)"
    r"|(?:[a-z_]\w*\.){1,6}[A-Z]\w*\s*:\s*(?!$)"
    r"|(?:API Error|Error|ERROR|error|Fatal error|FATAL)(?: \(\S+\))?\s*:\s*"
    r"|Error code: [1-5]\d\d - "
    r"|[A-Z]\w*Exception - )"
)
_BRACKETED = re.compile(r"^\[API Error: (.*?)(?: \(Status: [A-Z_]+\))?\]", re.DOTALL)


def _strip_prefixes(text: str) -> str:
    s = text.strip()
    m = _BRACKETED.match(s)
    if m is not None:
        s = m.group(1).strip()
    for _ in range(8):
        m = _PREFIX.match(s)
        if m is None or not m.end():
            break
        s = s[m.end() :]
    return s


@dataclass(frozen=True, slots=True)
class Evidence:
    values: tuple[object, ...]
    codes: tuple[str, ...]  # the codes, types, reasons of the embedded values
    status: int | None
    messages: tuple[str, ...]  # every message-like string of the embedded values, in order
    sentence: str  # the text without the prefixes a harness, an SDK or a hub puts first
    haystack: str


def names_in(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The gRPC status names and the exception class names a text writes, lower-cased.

    Read only when the tiers get that far (engine.Case), since most failures are decided
    by a phrase or a code first.
    """
    if _NAME_HINT.search(text) is None:
        return (), ()  # no name can end so, nor be a gRPC status: most texts
    names = dict.fromkeys(_IDENTIFIER.findall(text))  # each name once, in order
    grpc = tuple(dict.fromkeys(n.lower() for n in names if n in _GRPC))
    exceptions = tuple(
        dict.fromkeys(n.lower() for n in names if n[0].isupper() and n.endswith(_EXCEPTION_ENDS))
    )
    return grpc, exceptions


def _status_in_words(text: str) -> int | None:
    if _DIGITS.search(text) is None:
        return None  # no status number at all: most texts
    m = _status_match(text.lower())
    return int(m.group(1)) if m is not None else None


def _status_match(low: str) -> re.Match[str] | None:
    """The match of the first status form that matches the lower-cased words.

    The same as searching with each form in turn: a form is skipped only when words it
    cannot match without are absent, and searched from no later than its first match can
    open (a search from a position finds the first match opening there or after).
    """
    digits = _DIGITS.search(low)
    if digits is None:
        return None
    named = [i for i in (low.find("status"), low.find("code")) if i >= 0]
    if named:  # each name ends in "status" or "code", at most 6 characters in ("error code")
        m = _STATUS_NAMED.search(low, max(0, min(named) - 6))
        if m is not None:
            return m
    http = low.find("http")
    if http >= 0:  # the match opens at "http"
        m = _STATUS_HTTP.search(low, http)
        if m is not None:
            return m
    # These open at the status number, so no earlier than the first three digits.
    m = _STATUS_REASON.search(low, digits.start())
    if m is not None:
        return m
    if "client error" in low or "server error" in low:
        m = _STATUS_REQUESTS.search(low, digits.start())
        if m is not None:
            return m
    if "status code" in low:
        m = _STATUS_CODE_AFTER.search(low, digits.start())
        if m is not None:
            return m
    if "fail" in low or "unexpected status" in low:
        m = _STATUS_AFTER_ERROR.search(low)
    else:
        m = _STATUS_AFTER_ERROR_PLAIN.search(low)
    if m is not None:
        return m
    return _STATUS_AT_END.search(low) or _STATUS_AT_START.match(low)  # "^": the start only


def _hosts(text: str) -> str:
    """The text with each URL reduced to its host: `_URL.sub`, searching only near a "://".

    A URL's "://" is 2 to 5 characters into it ("ws", "https"), so no match opens more
    than 5 before the next "://"; a search from there finds the same match as `sub`
    would, without trying (\\b first, case ignored) every position of the words between.
    """
    parts: list[str] = []
    last = 0  # the end of the previous URL
    at = text.find("://")
    while at >= 0:
        m = _URL.search(text, max(last, at - 5))
        if m is None:
            break  # none from here on
        parts += (text[last : m.start()], " ", m.group(1), " ")
        last = m.end()
        at = text.find("://", last)
    parts.append(text[last:])
    return "".join(parts)


def extract(text: str) -> Evidence:
    """Everything a failure's text says about its cause, whatever wraps it."""
    seen = window(text)
    spans = _find(seen) if "{" in seen or "[" in seen else []
    values = [v for v, _ in spans]
    fields = _Fields([], [], [])
    for v in values:
        _collect(v, fields, 0)
    # The words before the first body (and its opening bracket, which some status forms
    # look at): a status written inside a body's JSON is read from the body's fields.
    words = seen[: spans[0][1] + 1] if spans else seen
    status = _status_in_words(words)
    if status is None and fields.statuses:
        status = fields.statuses[0]
    haystack = seen
    if "\n" in haystack and ("at " in haystack or 'File "' in haystack):
        haystack = _FRAME.sub("", haystack)
    if "://" in haystack:
        haystack = _hosts(haystack)
    return Evidence(
        values=tuple(values),
        codes=tuple(dict.fromkeys(fields.codes)),
        status=status,
        messages=tuple(fields.messages),
        sentence=_strip_prefixes(seen),
        haystack=haystack,
    )
