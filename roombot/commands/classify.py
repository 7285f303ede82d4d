"""`roombot classify`: one raw error (or answer text) -> the normalised error, one JSON line.

    roombot classify [FILE|-]           {"status": 429, "body": "...", "provider": "openai"}
    roombot classify --answer [FILE|-]  {"harness": "claude-code", "text": "API Error: ..."}

Prints kind, message, provider, model, status, retry_after (or `null` for an
answer that is a real answer). Bad input: a message naming what is wrong, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cards import Attempt
from roombot.normalise import classify, classify_answer

# form key -> (field, accepted types, what it must be); the first key found names the form.
_FORMS: dict[str, str] = {
    "status": "an HTTP answer",
    "acp": "a JSON-RPC error",
    "ironflow": "an ironflow AgentError",
    "exit": "a harness exit",
    "report": "a reporter's report",
    "stop_reason": "an ACP stop reason",
    "offline": "a node that went offline",
    "text": "words",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="JSON file, or - for stdin")
    parser.add_argument(
        "--answer",
        action="store_true",
        help='read {"harness": ..., "text": ...}: is this answer an error posing as one?',
    )


def _fail(message: str) -> int:
    print(f"roombot classify: {message}", file=sys.stderr)
    return 2


def _load(path: str) -> object:
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        where = "stdin" if path == "-" else path
        raise ValueError(f"{where} is not valid JSON: {str(exc).splitlines()[0][:200]}") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_error(obj: object) -> str | None:
    """What is wrong with an error form (naming the field), or None when it can be read."""
    if not isinstance(obj, dict):
        return f"expected a JSON object (an error form), got {type(obj).__name__}"
    forms = [k for k in _FORMS if k in obj]
    if not forms:
        known = ", ".join(_FORMS)
        return f"no error form in the object: expected one of the keys {known}"
    for key in ("harness", "provider", "model"):
        if key in obj and obj[key] is not None and not isinstance(obj[key], str):
            return f"{key}: expected a string"
    if "status" in obj:
        if not _is_int(obj["status"]) or not 0 <= obj["status"] <= 999:
            return "status: expected an HTTP status 0..999 (0 for a transport failure)"
        if "body" in obj and not isinstance(obj["body"], str):
            return "body: expected a string (the body as it came, JSON included)"
        headers = obj.get("headers")
        if headers is not None and not (
            isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())
        ):
            return "headers: expected an object of string values"
    if "acp" in obj:
        acp = obj["acp"]
        if not isinstance(acp, dict):
            return "acp: expected a JSON-RPC error object {code, message, data}"
        if not _is_int(acp.get("code")):
            return "acp.code: expected an integer"
        if not isinstance(acp.get("message"), str):
            return "acp.message: expected a string"
    if "ironflow" in obj and not isinstance(obj["ironflow"], dict | str):
        return "ironflow: expected an externally tagged AgentError (a name or {Variant: ...})"
    if "exit" in obj:
        ex = obj["exit"]
        if not isinstance(ex, dict):
            return "exit: expected an object {code, stderr}"
        if ex.get("code") is not None and not _is_int(ex["code"]):
            return "exit.code: expected an integer or null"
        if ex.get("stderr") is not None and not isinstance(ex["stderr"], str):
            return "exit.stderr: expected a string"
    if "report" in obj and not isinstance(obj["report"], dict):
        return "report: expected an object (docs/error-forms.md)"
    if "stop_reason" in obj and not isinstance(obj["stop_reason"], str):
        return "stop_reason: expected a string"
    if "offline" in obj and not isinstance(obj["offline"], dict):
        return "offline: expected an object {node, reason}"
    if "text" in obj and not isinstance(obj["text"], str):
        return "text: expected a string"
    return None


def _line(a: Attempt) -> str:
    out: dict[str, Any] = {
        "kind": a.kind.value,
        "message": a.message,
        "provider": a.provider,
        "model": a.model,
        "status": a.status,
        "retry_after": a.retry_after,
    }
    return json.dumps(out, ensure_ascii=False)


def run(args: argparse.Namespace) -> int:
    try:
        obj = _load(args.file)
    except ValueError as exc:
        return _fail(str(exc))
    if args.answer:
        if not isinstance(obj, dict):
            return _fail(f'expected a JSON object {{"harness", "text"}}, got {type(obj).__name__}')
        text, harness = obj.get("text"), obj.get("harness")
        if not isinstance(text, str):
            return _fail("text: expected a string (the agent's answer)")
        if harness is not None and not isinstance(harness, str):
            return _fail("harness: expected a string or null")
        posing = classify_answer(harness, text)
        print("null" if posing is None else _line(posing))
        return 0
    problem = check_error(obj)
    if problem is not None:
        return _fail(problem)
    assert isinstance(obj, dict)
    attempt = classify(
        obj, harness=obj.get("harness"), provider=obj.get("provider"), model=obj.get("model")
    )
    print(_line(attempt))
    return 0
