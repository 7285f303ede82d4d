"""Observability: structured logs, and `/healthz` + Prometheus `/metrics` over HTTP.

Logs are one JSON object per line by default (`log.format = "json"`): time,
level, logger, message, and every `extra=` field the code passes. The HTTP
endpoint listens on a local port (`[metrics] port`, 0 = off).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from roombot.logs import quiet_expected, route_uncaught
from roombot.redact import Redactor

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line; every text passes the redactor first (a provider's words
    quoted in an error, an exception's repr of a request with its headers)."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = Redactor() if redactor is None else redactor

    def format(self, record: logging.LogRecord) -> str:
        text = self.redactor.text
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": text(message_of(record)),
        }
        for k, v in record.__dict__.items():
            if k not in _STANDARD and not k.startswith("_"):
                out[k] = text(v if isinstance(v, str) else str(v)) if not _plain(v) else v
        if record.exc_info:
            out["exc"] = text(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False)


def message_of(record: logging.LogRecord) -> str:
    """The record's message; a library's malformed one (arguments its text has no
    place for) is shown as it came instead of as logging's own traceback on stderr."""
    try:
        return record.getMessage()
    except (TypeError, ValueError):
        return f"{record.msg} {record.args!r}"


def _plain(value: object) -> bool:
    """A value a JSON line carries as it is: numbers, booleans, null."""
    return isinstance(value, int | float | bool) or value is None


class TextFormatter(logging.Formatter):
    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = Redactor() if redactor is None else redactor

    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(
            f"{k}={v}"
            for k, v in record.__dict__.items()
            if k not in _STANDARD and not k.startswith("_")
        )
        base = f"{self.formatTime(record)} {record.levelname:<7} {record.name}: "
        line = base + message_of(record) + (f"  {extras}" if extras else "")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return self.redactor.text(line)


def setup_logging(level: str = "info", fmt: str = "json", redactor: Redactor | None = None) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(redactor) if fmt == "json" else TextFormatter(redactor))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.captureWarnings(True)  # a Python warning is a log line too, in the same format
    route_uncaught()  # and so is an exception nobody caught
    quiet_expected()  # nio's warnings about normal operation: one debug line of ours each
    # nio logs every 429 and timeout itself; the outbox logs them once, with context.
    logging.getLogger("nio").setLevel(max(logging.WARNING, root.level))
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    kind: str  # "counter" or "gauge"
    help: str
    value: float
    labels: tuple[tuple[str, str], ...] = ()  # one series of a family; label values are ours


def prometheus_text(metrics: list[Metric]) -> str:
    lines: list[str] = []
    named = ""
    for m in metrics:
        if m.name != named:  # a family's series follow one another: one HELP and TYPE
            lines.append(f"# HELP {m.name} {m.help}")
            lines.append(f"# TYPE {m.name} {m.kind}")
            named = m.name
        value = int(m.value) if float(m.value).is_integer() else m.value
        labels = ",".join(f'{k}="{v}"' for k, v in m.labels)
        lines.append(f"{m.name}{{{labels}}} {value}" if labels else f"{m.name} {value}")
    return "\n".join(lines) + "\n"


def redactor_metrics(redactor: Redactor) -> list[Metric]:
    """What the redactor did since start: values hidden by shape, values kept by reason."""
    out = [
        Metric(
            "roombot_redactions_total",
            "counter",
            "Credentials hidden from provider and harness text, by shape",
            n,
            (("shape", shape),),
        )
        for shape, n in sorted(redactor.redacted.items())
    ]
    out += [
        Metric(
            "roombot_redactions_kept_total",
            "counter",
            "Credential-shaped values left as they were (already masked, or allowed)",
            n,
            (("reason", reason),),
        )
        for reason, n in sorted(redactor.kept.items())
    ]
    return out


def make_observe_app(
    metrics: Callable[[], list[Metric]], health: Callable[[], tuple[bool, dict[str, Any]]]
) -> web.Application:
    async def healthz(_: web.Request) -> web.Response:
        ok, detail = health()
        return web.json_response({"ok": ok, **detail}, status=200 if ok else 503)

    async def metrics_handler(_: web.Request) -> web.Response:
        return web.Response(
            text=prometheus_text(metrics()), content_type="text/plain", charset="utf-8"
        )

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_handler)
    return app


async def serve(app: web.Application, host: str, port: int) -> web.AppRunner:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


def now() -> float:
    return time.time()
