"""`roombot classify`: one raw error (or answer text) -> the normalised error, one JSON line.

    roombot classify [FILE|-]           {"status": 429, "body": "...", "provider": "openai"}
    roombot classify [FILE|-]           API Error: 429 {"type":"error",...}   (not JSON: words)
    roombot classify --text "..."       the same words, given on the command line
    roombot classify --stop-reason refusal
    roombot classify --answer [FILE|-]  {"harness": "claude-code", "text": "API Error: ..."}

Input that is not JSON is read as a failure's text, as a user pastes it from a
log or an issue; `--harness`, `--provider`, `--model` say where it came from.
Prints kind, message, provider, model, status, retry_after (or `null` for an
answer that is a real answer); `--explain` adds what decided and what each
tier of the engine would have said. Bad input: a message naming what is wrong,
exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cards import Attempt
from cards.text import json_shown
from roombot.normalise import Normalised, classify_answer, normalise_full
from roombot.normalise.engine import explain
from roombot.normalise.forms import STOP_REASONS

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
    parser.add_argument(
        "file", nargs="?", default="-", help="an error form (JSON) or a failure's words; - stdin"
    )
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--text", help="classify these words (a failure's text) instead of FILE")
    given.add_argument(
        "--stop-reason",
        choices=sorted(STOP_REASONS),
        help="classify an ACP stop reason that ended the turn",
    )
    parser.add_argument(
        "--answer",
        action="store_true",
        help='read {"harness": ..., "text": ...}: is this answer an error posing as one?',
    )
    parser.add_argument("--harness", help="the harness the words came from (claude-code, ...)")
    parser.add_argument("--provider", help="the provider that was asked (anthropic, ...)")
    parser.add_argument("--model", help="the model that was asked")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also print what decided the kind and what each tier of the engine said",
    )


def _fail(message: str) -> int:
    print(f"roombot classify: {message}", file=sys.stderr)
    return 2


def _read(path: str) -> str:
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    return raw.decode("utf-8", errors="replace")


def _load(path: str) -> object:
    """The input as JSON, or {"text": ...} when it is not JSON (a failure as pasted)."""
    raw = _read(path)
    if not raw.strip():
        where = "stdin" if path == "-" else path
        raise ValueError(f"{where} is empty: nothing to classify")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return {"text": raw}


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


def _fields(a: Attempt) -> dict[str, Any]:
    return {
        "kind": a.kind.value,
        "message": a.message,
        "provider": a.provider,
        "model": a.model,
        "status": a.status,
        "retry_after": a.retry_after,
    }


def _line(a: Attempt) -> str:
    # Provider text goes to a terminal: its hidden characters as escapes, the JSON exact.
    return json_shown(json.dumps(_fields(a), ensure_ascii=False))


def _explained(n: Normalised) -> str:
    out = _fields(n.attempt)
    tiers = explain(n.case) if n.case is not None else {}
    out["explain"] = {
        "form": n.form,
        "rule": n.rule,
        "answer_form": n.via,
        "tiers": {name: (r.example if r is not None else None) for name, r in tiers.items()},
    }
    return json_shown(json.dumps(out, ensure_ascii=False))


def run(args: argparse.Namespace) -> int:
    if args.text is not None:
        if not args.text.strip():
            return _fail("--text: nothing to classify")
        obj: object = {"text": args.text}
    elif args.stop_reason is not None:
        obj = {"stop_reason": args.stop_reason}
    else:
        try:
            obj = _load(args.file)
        except ValueError as exc:
            return _fail(str(exc))
    if isinstance(obj, dict):
        for key in ("harness", "provider", "model"):
            if getattr(args, key) is not None and obj.get(key) is None:
                obj[key] = getattr(args, key)
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
    n = normalise_full(
        obj, harness=obj.get("harness"), provider=obj.get("provider"), model=obj.get("model")
    )
    print(_explained(n) if args.explain else _line(n.attempt))
    return 0
