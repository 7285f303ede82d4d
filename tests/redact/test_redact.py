"""The redactor, without a server: every real credential shape hidden, nothing else moved."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from roombot.acp.sinks import JsonLinesSink, RedactingSink
from roombot.config import ConfigError, parse_config
from roombot.events import parse_event
from roombot.metrics import Scraped, redactor_families, render
from roombot.observe import JsonFormatter, TextFormatter
from roombot.redact import MARKER, SHAPES, Redactor
from tests.prom import value
from tests.redact.figures import credentials, measure, must_hide

ENTRIES = credentials()
HIDE = [e for e in ENTRIES if must_hide(e)]
MASKED = [e for e in ENTRIES if e["format"] == "masked"]


def test_the_corpus_is_real_and_well_formed() -> None:
    for e in ENTRIES:
        assert e["source"].strip(), e
        assert all(s in e["text"] for s in e["secrets"]), e["source"]
    assert {e["format"] for e in HIDE} and MASKED


@pytest.mark.parametrize("entry", HIDE, ids=[f"{e['format']}-{i}" for i, e in enumerate(HIDE)])
def test_every_secret_in_real_error_text_is_hidden(entry: dict[str, Any]) -> None:
    out = Redactor().text(entry["text"])
    for secret in entry["secrets"]:
        assert secret not in out, (secret, out)
    assert MARKER in out


@pytest.mark.parametrize("entry", MASKED, ids=[f"masked-{i}" for i in range(len(MASKED))])
def test_a_key_its_printer_masked_stays_as_it_is(entry: dict[str, Any]) -> None:
    assert Redactor().text(entry["text"]) == entry["text"]


def test_no_failure_of_the_normaliser_corpus_changes_kind() -> None:
    f = measure(Redactor())
    assert f.failures > 2000
    assert f.kind_changed == []
    # Real failure text hardly ever holds a credential: what changes is listed by the
    # figures script; more than a handful means a shape fires on ordinary words.
    assert len(f.altered) <= f.failures // 200, f.altered


def test_the_marker_names_the_key_and_keeps_the_words() -> None:
    key = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" + "Q7a1"
    said = f"Incorrect API key provided: {key}. You can find your API key at https://x"
    out = Redactor().text(said)
    assert out == (
        "Incorrect API key provided: sk-proj-...Q7a1 [redacted]. You can find your API key at "
        "https://x"
    )
    # A header keeps its name and scheme; a known key inside it keeps its prefix.
    anthropic = "sk-ant-api03-" + "x1Y2z3" * 8
    out = Redactor().text(f"headers={{'Authorization': 'Bearer {anthropic}'}}")
    assert out == "headers={'Authorization': 'Bearer sk-ant-api03-...Y2z3 [redacted]'}"
    # A password shows nothing of itself.
    assert Redactor().text("proxy http://bob:hunter2hunter2@p:3128 refused") == (
        "proxy http://bob:[redacted]@p:3128 refused"
    )


def test_a_field_named_for_a_credential_is_hidden_whole() -> None:
    r = Redactor()
    error = {
        "status": 401,
        "headers": {"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz", "Cookie": "s=1"},
        "body": '{"error": {"message": "bad key"}}',
    }
    out = r.value(error)
    assert out["headers"] == {"Authorization": "Bearer ...wxyz [redacted]", "Cookie": MARKER}
    assert out["status"] == 401 and out["body"] == error["body"]
    assert r.redacted["credential_field"] == 2


def test_redacting_twice_changes_nothing_more() -> None:
    r = Redactor()
    for e in ENTRIES:
        once = r.text(e["text"])
        assert r.text(once) == once, e["source"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_any_text_redacts_without_raising_and_is_stable(text: str) -> None:
    r = Redactor()
    once = r.text(text)
    assert r.text(once) == once


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([s.name for s in SHAPES]), st.text(max_size=60), st.text(max_size=60))
def test_a_key_between_any_words_is_hidden(name: str, before: str, after: str) -> None:
    keys = {
        "openai_key": "sk-svcacct-" + "Zq8" * 12,
        "anthropic_key": "sk-ant-admin01-" + "Pw4" * 12,
        "google_api_key": "AIza" + "SyB" * 11 + "xy",
        "github_token": "ghp_" + "Tk9" * 12,
        "aws_access_key_id": "AKIA" + "Q7Z2" * 4,
        "gitlab_token": "glpat-" + "aB3" * 7,
        "npm_token": "npm_" + "Zx9" * 12,
        "stripe_key": "rk_live_" + "Qe4" * 8,
        "google_oauth_token": "ya29." + "a0Af" * 10,
        "databricks_token": "dapi" + "0a1b2c3d" * 4,
        "replicate_token": "r8_" + "Kq7" * 12,
        "perplexity_key": "pplx-" + "Wm3" * 16,
        "langsmith_key": "lsv2_pt_" + "c0ffee" * 6,
        # The token of the Bot API's own example, in its URL.
        "telegram_bot_token": "/bot123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11/getMe",
    }
    if name not in keys:
        return
    key = keys[name]
    # Words that end or start with key letters would make the key a longer word.
    text = f"{before} {key} {after}"
    out = Redactor().text(text)
    secret = key.split("/")[1][3:] if name == "telegram_bot_token" else key
    assert secret not in out


def test_extra_patterns_and_the_allow_list() -> None:
    r = Redactor(patterns=[r"ourco_[a-z0-9]{12}", r"X-Internal: (?P<secret>\S+)"],
                 allow=[r"sk-test-0{24}"])  # fmt: skip
    out = r.text("ourco_abcdef123456 failed; X-Internal: hunter2 sent; sk-test-" + "0" * 24)
    assert out == f"{MARKER} failed; X-Internal: {MARKER} sent; sk-test-" + "0" * 24
    assert r.kept["allowed"] == 1 and r.redacted["extra_0"] == 1
    off = Redactor(enabled=False)
    assert off.text("sk-proj-" + "a" * 40) == "sk-proj-" + "a" * 40


def _config(redact: dict[str, Any]) -> dict[str, Any]:
    return {"matrix": {"homeserver": "http://hs", "user_id": "@b:hs"}, "redact": redact}


@pytest.mark.parametrize(
    ("redact", "message"),
    [
        ({"patterns": ["("]}, "redact.patterns[0]: not a regular expression"),
        ({"patterns": ["x*"]}, "redact.patterns[0]: matches the empty text"),
        ({"patterns": ["(?P<key>x)"]}, "redact.patterns[0]: the only named group"),
        ({"allow": [1]}, "redact.allow[0]: expected a regular expression"),
        ({"enabled": "yes"}, "redact.enabled: expected true or false"),
        ({"patern": []}, "redact.patern: unknown key"),
    ],
)
def test_a_bad_redact_table_is_refused_by_name(redact: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_config(_config(redact), base=Path("."))


def test_the_redact_table_defaults_to_on() -> None:
    config = parse_config(_config({}), base=Path("."))
    assert config.redact.enabled and config.redact.build().enabled


KEY = "sk-proj-" + "Xk3LmN8pQr2StUv5WxYz7AbCdEf9GhIj"
GOOGLE = "AIza" + "Qw3" * 11 + "zz"
URL = f"https://generativelanguage.googleapis.com/v1beta/models/g:gen?key={GOOGLE}"


def _event(turn: str) -> dict[str, Any]:
    return {
        "type": "turn.ended",
        "turn": turn,
        "event_id": f"{turn}-e",
        "error": {"status": 401, "body": f"Incorrect API key provided: {KEY} at {URL}"},
    }


def test_events_keep_their_identifiers_and_lose_their_secrets() -> None:
    r = Redactor()
    raw = {**_event("t-" + KEY), "room": "!room"}  # an id is never rewritten
    out = r.event_json(raw)
    assert out["turn"] == raw["turn"] and out["room"] == "!room"
    assert KEY not in out["error"]["body"] and GOOGLE not in out["error"]["body"]
    typed = r.event(parse_event(_event("t1")))
    assert KEY not in json.dumps(typed.error)  # type: ignore[attr-defined]


def test_a_node_spool_file_never_holds_the_secret(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    sink = RedactingSink(JsonLinesSink(path), Redactor())
    sink.emit([_event("t1")])
    data = path.read_bytes()
    assert KEY.encode() not in data and GOOGLE.encode() not in data
    assert b"sk-proj-..." in data


def _record(msg: str, **extra: Any) -> logging.LogRecord:
    record = logging.makeLogRecord({"msg": msg, "levelname": "WARNING", "name": "t"})
    record.__dict__.update(extra)
    return record


def test_log_lines_never_hold_the_secret() -> None:
    r = Redactor()
    record = _record(f"send failed: {KEY}", error=f"GET {URL} (400)", status=400)
    line = JsonFormatter(r).format(record)
    assert KEY not in line and GOOGLE not in line
    parsed = json.loads(line)
    assert parsed["status"] == 400 and parsed["error"].endswith("[redacted] (400)")
    assert KEY not in TextFormatter(r).format(record)
    assert r.redacted["openai_key"] == 2


def test_the_metrics_count_what_was_hidden() -> None:
    r = Redactor()
    r.text(f"{KEY} and Authorization: Bearer YOUR_API_KEY")
    registry = CollectorRegistry()
    Scraped(lambda: redactor_families(r), registry)
    text = render(registry).decode()
    assert value(text, "roombot_redactions_total", shape="openai_key") == 1
    assert value(text, "roombot_redactions_kept_total", reason="masked") == 1
    assert text.count("# TYPE roombot_redactions_total counter") == 1
