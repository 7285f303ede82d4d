"""The OpenAPI 3.1 document of the report API, built from the shipped JSON Schemas.

`python -m roombot.api.openapi` rewrites roombot/api/openapi.json. The schemas are
the one place each body is spelled; this module only adds the operations around
them. tests/api/test_openapi.py fails when the file, the schemas or the routes
(roombot.api.app.ROUTES) drift apart, and tests/api/test_fuzz.py checks every
answer of the running server against the document.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from roombot.api.validation import load_schema
from roombot.node_name import NAME

PATH = Path(__file__).with_name("openapi.json")
EVENT_ID = "https://roombot.invalid/schemas/event.v1.json"
_NAMES = {
    "batch": "Batch",
    "report": "Report",
    "ack": "Ack",
    "error": "Error",
    "turn": "Turn",
    "health": "Health",
    "heartbeat": "Heartbeat",
    "beat": "Beat",
    "nodes": "Nodes",
    "requests": "Requests",
    "results": "Results",
    "taken": "Taken",
    "silences": "Silences",
}


def _rewrite(node: Any) -> Any:
    """Point the schemas' $refs at components (and drop their own $id/$schema)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in ("$id", "$schema"):
                continue
            if k == "$ref" and isinstance(v, str):
                if v in (f"{EVENT_ID}#/$defs/error", "#/$defs/error"):
                    v = "#/components/schemas/RawError"
                elif v in (f"{EVENT_ID}#/$defs/matrix_event_id", "#/$defs/matrix_event_id"):
                    v = "#/components/schemas/MatrixEventId"
                elif v == EVENT_ID:
                    v = "#/components/schemas/Event"
            out[k] = _rewrite(v)
        return out
    if isinstance(node, list):
        return [_rewrite(v) for v in node]
    return node


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _errors(*statuses: int, **said: str) -> dict[str, Any]:
    """The refusals of an operation; `said` (`s409=...`) words one for this operation."""
    why = {
        400: "the body is not JSON or does not fit the schema: `field` and `expected` say where",
        401: "no bearer token, or not one of the bot's sources",
        403: "the source may not post to the room (or about the turn) named in `field`",
        404: "no such turn that this source may see",
        409: "the report names a turn the bot already follows: post a turn.report event",
        # (the heartbeat's own 409 and 400 are described beside it)
        413: "the body is over the limit (api.max_body, 1 MB by default)",
        415: "the body is not application/json (UTF-8)",
        429: "the source is over its rate: wait Retry-After seconds",
        503: "the bot is starting or stopping: nothing was taken, retry",
    }
    out: dict[str, Any] = {}
    for s in statuses:
        out[str(s)] = _json("Error", said.get(f"s{s}", why[s]))
        if s == 429:
            out[str(s)]["headers"] = {
                "Retry-After": {"schema": {"type": "string"}, "description": "seconds"}
            }
    return out


def _post(summary: str, description: str, body: str, *extra: int) -> dict[str, Any]:
    return {
        "post": {
            "summary": summary,
            "description": description,
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": _ref(body)}},
            },
            "responses": {
                "202": _json(
                    "Ack", "durable: the bot acts on these events even if it dies right now"
                ),
                **_errors(400, 401, 403, *extra, 413, 415, 429, 503),
            },
        }
    }


_NODE: dict[str, Any] = {
    "name": "node",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": f"^{NAME.pattern}$"},
}


def build() -> dict[str, Any]:
    event = load_schema("event")
    components: dict[str, Any] = {
        "RawError": _rewrite(event["$defs"]["error"]),
        "MatrixEventId": _rewrite(event["$defs"]["matrix_event_id"]),
        "Event": _rewrite({k: v for k, v in event.items() if k != "$defs"}),
    }
    for name, title in _NAMES.items():
        components[title] = _rewrite(load_schema(name))
    paths: dict[str, Any] = {
        "/v1/events": _post(
            "Post one event",
            "One event of format v1. A repeated event_id is answered as a duplicate.",
            "Event",
        ),
        "/v1/batch": _post(
            "Post a batch of events",
            "Up to 1000 events, taken whole or refused whole (one bad event refuses all, "
            "and the error names it as events[i]).",
            "Batch",
        ),
        "/v1/reports": _post(
            "Post a one-shot failure report",
            "An engine that only knows a run failed. Recorded as turn.started + turn.ended "
            "with the error; posting it again is a duplicate.",
            "Report",
            409,
        ),
        "/v1/turns/{turn}": {
            "get": {
                "summary": "What the bot knows about a turn",
                "parameters": [
                    {"name": "turn", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": _json("Turn", "open or decided, and the card if one was posted"),
                    **_errors(401, 404),
                },
            }
        },
        "/v1/nodes/heartbeat": {
            "post": {
                "summary": "A node agent's heartbeat",
                "description": "Sent every `interval` seconds by `roombot node run`. A node "
                "silent for offline_after seconds is taken for offline: every open turn "
                "whose turn.started named it gets a node_offline card. Not journalled. "
                "See docs/nodes.md.",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("Heartbeat")}},
                },
                "responses": {
                    "200": _json("Beat", "recorded: the bot's offline_after and interval"),
                    **_errors(400, 401),
                    "409": _json(
                        "Error",
                        "the node is online under another source: its heartbeats come "
                        "from that source's token only while it is online",
                    ),
                    **_errors(413, 415, 429, 503),
                },
            }
        },
        "/v1/nodes": {
            "get": {
                "summary": "The nodes this source may see, online or not",
                "description": "A source allowed every room sees every node; another "
                "source sees the nodes whose heartbeats it sends.",
                "responses": {
                    "200": _json("Nodes", "each node's state and what its last heartbeat said"),
                    **_errors(401),
                },
            }
        },
        "/v1/nodes/{node}/requests": {
            "get": {
                "summary": "A node asks for the room commands it is to carry out",
                "description": "The node agent's loop (roombot/node_requests.py) polls this "
                "every few seconds. A request stays here until its result is posted or it "
                "times out (60 s); a node name belongs to the source that polls for it. "
                "See docs/room-commands.md.",
                "parameters": [_NODE],
                "responses": {
                    "200": _json("Requests", "the requests waiting (possibly none)"),
                    **_errors(
                        400,
                        401,
                        409,
                        503,
                        s400="the node name is not letters, digits, '_.-' (1-128)",
                        s409="another source polls for this node name",
                        s503="this server does not serve room commands",
                    ),
                },
            }
        },
        "/v1/nodes/{node}/results": {
            "post": {
                "summary": "A node says what it did with its requests",
                "description": "Each result finishes one request and becomes a notice in "
                "the room the command came from. Ids of no waiting request are listed in "
                "`unknown`, not refused.",
                "parameters": [_NODE],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("Results")}},
                },
                "responses": {
                    "200": _json("Taken", "the results taken"),
                    **_errors(
                        400,
                        401,
                        409,
                        413,
                        415,
                        429,
                        503,
                        s409="this source's token did not ask for this node's work",
                        s503="this server does not serve room commands",
                    ),
                },
            }
        },
        "/v1/silences": {
            "get": {
                "summary": "The silences set from the rooms this source may post to",
                "description": "Active silences, and those that ended (or were lifted) "
                "within the last hour, marked by `state`, earliest first. A source allowed "
                "every room sees every silence; another source those of its rooms. Set from "
                "the room with `!roombot silence`; see docs/room-commands.md.",
                "responses": {
                    "200": _json("Silences", "the silences (possibly none)"),
                    **_errors(401, 503, s503="this server keeps no silences"),
                },
            }
        },
        "/healthz": {
            "get": {
                "summary": "Liveness of the API and its pipeline",
                "security": [],
                "responses": {
                    "200": _json("Health", "running"),
                    "503": _json("Health", "the pipeline is not running"),
                },
            }
        },
        "/metrics": {
            "get": {
                "summary": "The bot's Prometheus metrics (the same registry as the metrics port)",
                "security": [],
                "responses": {
                    "200": {
                        "description": "Prometheus text format",
                        "content": {"text/plain": {"schema": {"type": "string"}}},
                    }
                },
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "roombot report API",
            "version": "1",
            "description": "How hubs, engines and in-harness reporters tell roombot about "
            "turns. See docs/report-api.md.",
        },
        "servers": [{"url": "http://127.0.0.1:8787"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": components,
        },
    }


def render() -> str:
    return json.dumps(build(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if PATH.read_text() == render() else 1)
    PATH.write_text(render())
