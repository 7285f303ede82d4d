"""The OpenAPI document stays true: same routes as the app, same schemas as the files."""

from __future__ import annotations

import json
import re
from typing import Any

from jsonschema import Draft202012Validator

from roombot.api import ROUTES, make_app
from roombot.api.openapi import PATH, build, render
from roombot.api.settings import ApiSettings
from roombot.api.validation import BODY_SCHEMAS, RESPONSE_SCHEMAS, load_schema
from tests.api.conftest import sources


class _NoSink:
    """Only the router is looked at here; no request is served."""


def _app_routes() -> set[tuple[str, str]]:
    app = make_app(ApiSettings(sources=sources()), _NoSink())  # type: ignore[arg-type]
    out = set()
    for route in app.router.routes():
        if route.method == "HEAD":  # aiohttp adds HEAD beside every GET
            continue
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or info.get("formatter")
        out.add((route.method, path))
    return out


def test_the_document_in_the_repo_is_the_built_one() -> None:
    assert PATH.read_text() == render(), "run: python -m roombot.api.openapi"


def test_every_route_is_documented_and_every_documented_route_exists() -> None:
    doc = json.loads(PATH.read_text())
    documented = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    assert _app_routes() == documented
    assert {(m, p) for m, p, _ in ROUTES} == documented


def test_every_path_parameter_is_declared() -> None:
    doc = json.loads(PATH.read_text())
    for path, ops in doc["paths"].items():
        names = set(re.findall(r"{(\w+)}", path))
        for op in ops.values():
            declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert declared == names, path


def test_documented_bodies_are_the_shipped_schemas() -> None:
    doc = build()
    schemas: dict[str, Any] = doc["components"]["schemas"]
    for name in (*BODY_SCHEMAS, *RESPONSE_SCHEMAS):
        shipped = load_schema(name)
        documented = schemas[name.capitalize()]
        assert documented["title"] == shipped["title"]
        assert set(documented.get("properties", {})) == set(shipped.get("properties", {}))
        Draft202012Validator.check_schema(shipped)
    event = load_schema("event")
    assert schemas["RawError"]["properties"].keys() == event["$defs"]["error"]["properties"].keys()
    # every $ref of the document resolves inside it
    text = json.dumps(doc)
    for ref in set(re.findall(r'"\$ref": "#/components/schemas/(\w+)"', text)):
        assert ref in schemas, ref
    assert "roombot.invalid" not in text.replace(doc["info"]["description"], "")


def test_every_post_documents_every_refusal_the_api_makes() -> None:
    doc = build()
    for path in ("/v1/events", "/v1/batch", "/v1/reports"):
        statuses = set(doc["paths"][path]["post"]["responses"])
        assert {"202", "400", "401", "403", "413", "415", "429", "503"} <= statuses, path
    assert "409" in doc["paths"]["/v1/reports"]["post"]["responses"]
