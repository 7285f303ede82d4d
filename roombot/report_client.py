"""A tiny client of the report API (stdlib only): post events, a batch or a one-shot report.

    from roombot.report_client import ReportClient
    client = ReportClient("https://roombot.example.org:8787", token, ca_file="ca.pem")
    client.send_event({"type": "turn.started", "turn": "t1", "room": "!r:example.org",
                       "harness": "ironflow"})
    client.send_report(turn="run-42", room="!r:example.org", harness="ironflow",
                       error={"text": "the run failed: provider overloaded"})

Every event gets an `event_id` if it has none, before the first try, so that a
retry after a lost answer is answered `duplicate` instead of being taken twice.
Retried: connection failures, 429 (after its Retry-After) and 5xx, a few times
with backoff. Any other refusal raises `Refused` with the bot's JSON error; a
certificate that fails verification raises `Untrusted`, untried again. The URL
rule (https verified, plain http only to loopback unless `insecure`) is
`roombot.report_tls`'s, applied when the client is made: a refused URL raises
`CannotSend` before anything is sent. The token is never part of an error.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from roombot.report_tls import CannotSend, check_url, client_context, explain

__all__ = [
    "CannotSend",
    "Refused",
    "ReportClient",
    "ReportError",
    "Unreachable",
    "Untrusted",
    "with_event_id",
]


class ReportError(Exception):
    """The post did not get through: the bot refused it (Refused) or could not be reached."""


class Refused(ReportError):
    def __init__(self, status: int, body: Mapping[str, Any]) -> None:
        self.status = status
        self.body = dict(body)
        field = f" ({body['field']})" if body.get("field") else ""
        super().__init__(f"{status} {body.get('error', '?')}{field}: {body.get('message', '')}")


class Unreachable(ReportError):
    pass


class Untrusted(ReportError):
    """TLS refused: an unknown issuer, an expired certificate, another host's name."""


_RETRY = frozenset({429, 500, 502, 503, 504})


def with_event_id(event: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(event)
    if not out.get("event_id"):
        out["event_id"] = str(uuid.uuid4())
    return out


class ReportClient:
    def __init__(
        self,
        url: str,
        token: str,
        *,
        ca_file: str | Path | None = None,
        insecure: bool = False,
        timeout: float = 10.0,
        tries: int = 4,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = check_url(url, insecure=insecure)
        self.url = url.rstrip("/")
        self.host = parts.hostname or ""
        self._context = client_context(ca_file) if parts.scheme == "https" else None
        self.token = token
        self.timeout = timeout
        self.tries = max(1, tries)
        self._sleep = sleep

    def send_event(self, event: Mapping[str, Any]) -> dict[str, Any]:
        return self.post("/v1/events", with_event_id(event))

    def send_batch(self, events: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
        return self.post("/v1/batch", {"events": [with_event_id(e) for e in events]})

    def send_report(
        self,
        *,
        turn: str,
        room: str,
        harness: str,
        error: Mapping[str, Any],
        provider: str | None = None,
        model: str | None = None,
        event_id: str | None = None,
        at: float | None = None,
        trigger: str | None = None,
        thread: str | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"turn": turn, "room": room, "harness": harness, "error": error}
        for key, value in (
            ("provider", provider),
            ("model", model),
            ("event_id", event_id),
            ("at", at),
            ("trigger", trigger),
            ("thread", thread),
        ):
            if value is not None:
                body[key] = value
        return self.post("/v1/reports", body)

    def turn(self, turn: str) -> dict[str, Any]:
        return self._request("GET", "/v1/turns/" + urllib.parse.quote(turn, safe=""), None)

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._request("POST", path, json.dumps(body).encode())

    def _request(self, method: str, path: str, data: bytes | None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        delay = 0.5
        last = "no try made"
        for attempt in range(self.tries):
            if attempt:
                self._sleep(delay)
                delay = min(delay * 2, 30.0)
            req = urllib.request.Request(self.url + path, data, headers, method=method)
            try:
                with urllib.request.urlopen(
                    req, timeout=self.timeout, context=self._context
                ) as resp:
                    answer: dict[str, Any] = json.loads(resp.read() or b"{}")
                    return answer
            except urllib.error.HTTPError as e:
                try:
                    err = json.loads(e.read() or b"{}")
                except ValueError:
                    err = {"message": e.reason}
                if not isinstance(err, dict):
                    err = {"message": str(err)}
                if e.code not in _RETRY:
                    raise Refused(e.code, err) from None
                last = str(Refused(e.code, err))
                retry_after = e.headers.get("Retry-After")
                if retry_after and retry_after.isdigit():
                    delay = max(delay, float(retry_after))
            except (urllib.error.URLError, OSError, TimeoutError) as e:
                reason = getattr(e, "reason", e)
                why = explain(reason, self.host) if isinstance(reason, BaseException) else None
                if why is not None:
                    raise Untrusted(why) from None
                last = f"{self.url}: {reason}"
        raise Unreachable(f"gave up after {self.tries} tries: {last}")
