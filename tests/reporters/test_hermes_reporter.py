"""The Hermes reporter (reporters/hermes/): its events, its sender, and what roombot makes of them.

Against roombot's real report API (`roombot.api.make_app`) in front of the real journal, turn
rules and outbox, on 127.0.0.1: the reporter is fed the hook arguments Hermes 0.19.0 passes
(tests/reporters/hermes_plugin.py, as the lab saw them) and the cards are read from what the
pipeline handed the outbox. The plugin inside the real Hermes is test_hermes_in_hermes.py.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import sqlite3
import ssl
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.reporters_case import RecordingOutbox
from roombot.api import ApiSettings, SourceSettings, make_app
from roombot.events import is_matrix_event_id, parse_event
from roombot.pipeline import Pipeline
from roombot.reporters import reporter_map
from roombot.turns import TurnMachine, TurnRules
from tests.api.pki import make_pki
from tests.reporters import hermes_plugin as h
from tests.reporters.conftest import Scripted

plugin = h.load()
report, sender_mod, rules_mod = plugin.report, plugin.sender, plugin.reporter
ROOM = "!team:example.org"
TOKEN = "hermes-reporter-token-0123456789"
FAST = sender_mod.Options(base_delay=0.01, max_delay=0.05, timeout=2.0)


@dataclass
class Bot:
    url: str
    pipeline: Pipeline
    outbox: RecordingOutbox
    journal: Path

    def cards(self) -> list[Any]:
        return [d.error for d in self.outbox.decisions if type(d).__name__ == "Post"]


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Bot]:
    outbox = RecordingOutbox(tmp_path / "outbox.sqlite3")
    machine = TurnMachine(TurnRules(grace=0.2, settle=0.2), reporter_map())
    pipeline = Pipeline(tmp_path / "journal.sqlite3", machine, outbox)
    await pipeline.start()
    settings = ApiSettings(
        journal=tmp_path / "journal.sqlite3",
        sources=(SourceSettings("hermes", TOKEN, frozenset({"*"})),),
    )
    runner = web.AppRunner(make_app(settings, pipeline), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield Bot(f"http://127.0.0.1:{port}", pipeline, outbox, tmp_path / "journal.sqlite3")
    await runner.cleanup()
    await pipeline.stop()
    outbox.close()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


def start(url: str, token_file: Path, lines: list[str] | None = None, **extra: Any) -> Any:
    got = lines if lines is not None else []
    running = plugin.start(
        {"url": url, "tokenFile": str(token_file), **extra},
        options=FAST,
        context=extra.pop("context", rules_mod.no_context),
        log=got.append,
    )
    assert running is not None, got
    return running


async def decided(bot: Bot, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if bot.outbox.decisions and bot.pipeline.machine.next_deadline() is None:
            return
        await asyncio.sleep(0.05)


# --- what one failed call says -------------------------------------------------------------


def test_the_sdk_sentence_gives_the_status_and_the_providers_body_as_json() -> None:
    error = report.failure_of(h.api_request_error("rate_limit"))
    assert error["status"] == 429
    assert error["provider"] == "custom" and error["model"] == "lab-large"
    assert error["name"] == "RateLimitError"
    body = json.loads(error["body"])  # the Python literal read back, sent as JSON
    assert body["error"]["message"] == h.RATE_LIMIT_SENTENCE
    assert body["error"]["code"] == "rate_limit_exceeded"
    assert error["message"].startswith("Error code: 429 - {'error'")  # untrimmed
    assert h.RATE_LIMIT_SENTENCE in error["message"]


def test_a_message_that_is_no_literal_is_kept_as_it_came() -> None:
    hook = {**h.api_request_error(), "status_code": None}
    hook["error"] = {"type": "APIError", "message": "Error code: 502 - <html>bad gateway</html>"}
    error = report.failure_of(hook)
    assert error["status"] == 502 and error["body"] == "<html>bad gateway</html>"
    # __import__ and friends are not literals: never evaluated, kept as text
    hook["error"] = {"type": "X", "message": "Error code: 500 - {'a': __import__('os')}"}
    assert report.failure_of(hook)["body"] == "{'a': __import__('os')}"
    hook["error"] = {"type": "ContentPolicyBlocked", "message": "model declined"}
    hook["reason"] = "content_policy_blocked"
    blocked = report.failure_of(hook)
    assert blocked["kind"] == "refusal" and "status" not in blocked


# --- Hermes on its own: the reporter tells the whole turn ----------------------------------


async def test_a_model_and_its_fallback_failing_give_one_card_with_both(
    bot: Bot, token_file: Path
) -> None:
    running = start(bot.url, token_file, room=ROOM, node="gpu-1")
    hook, now = running.rules.hook, time.time()
    hook("pre_llm_call", now, h.pre_llm_call())
    hook("pre_api_request", now + 0.01, h.pre_api_request("lab-large"))
    hook("api_request_error", now + 0.3, h.api_request_error("rate_limit"))
    hook("pre_api_request", now + 0.5, h.pre_api_request("lab-small"))
    hook("api_request_error", now + 0.7, h.api_request_error("overloaded"))
    # Hermes exits: no on_session_end came for the failed turn
    await asyncio.to_thread(running.close, 5.0)
    assert running.sender.counts.sent == 6 and running.sender.counts.dropped == 0
    await decided(bot)
    [card] = bot.cards()
    assert card.harness == "hermes" and card.node == "gpu-1" and card.session == h.SESSION
    assert [(a.model, a.status, a.kind.value) for a in card.attempts] == [
        ("lab-large", 429, "rate_limit"),
        ("lab-small", 503, "provider_unavailable"),
    ]
    assert card.attempts[0].message == h.RATE_LIMIT_SENTENCE
    assert card.attempts[1].message == h.OVERLOADED_SENTENCE
    assert bot.outbox.decisions[0].room == ROOM


async def test_a_retry_that_answers_gives_no_card(bot: Bot, token_file: Path) -> None:
    running = start(bot.url, token_file, room=ROOM)
    hook, now = running.rules.hook, time.time()
    hook("pre_llm_call", now, h.pre_llm_call())
    hook("api_request_error", now + 0.1, h.api_request_error("rate_limit"))
    hook("post_api_request", now + 1.2, h.post_api_request("Hello from the lab simulator."))
    hook("post_api_request", now + 1.3, h.post_api_request("a second answer is not sent"))
    hook("on_session_end", now + 1.4, h.on_session_end(completed=True))
    assert await asyncio.to_thread(running.sender.flush, 5.0)
    assert running.rules.open_turns() == 0
    await asyncio.sleep(0.8)  # past grace and settle
    assert bot.cards() == []
    types = [e["type"] for e in _journal(bot)]
    assert types == [
        "turn.started", "turn.attempt", "turn.failed_attempt", "turn.output", "turn.ended",
    ]  # fmt: skip


async def test_a_failed_turn_with_no_end_is_ended_after_end_after(
    bot: Bot, token_file: Path
) -> None:
    running = start(bot.url, token_file, room=ROOM, endAfter=0.5)
    now = time.time()
    running.rules.hook("pre_llm_call", now, h.pre_llm_call())
    running.rules.hook("api_request_error", now, h.api_request_error("rate_limit"))
    await asyncio.sleep(2.5)  # the sender's thread ticks about once a second
    assert running.rules.open_turns() == 0
    await decided(bot)
    [card] = bot.cards()
    assert card.kind.value == "rate_limit"


async def test_the_gateway_names_the_matrix_room_and_the_triggering_event(
    bot: Bot, token_file: Path
) -> None:
    gateway = {
        "HERMES_SESSION_PLATFORM": "matrix",
        "HERMES_SESSION_CHAT_ID": "!gateway:example.org",
        "HERMES_SESSION_MESSAGE_ID": "$trigger-event",
        "HERMES_SESSION_THREAD_ID": "$thread-root",
    }
    running = start(bot.url, token_file, room=ROOM, context=lambda: gateway)
    now = time.time()
    running.rules.hook("pre_llm_call", now, h.pre_llm_call(platform="matrix"))
    running.rules.hook("api_request_error", now, h.api_request_error(platform="matrix"))
    await asyncio.to_thread(running.close, 5.0)
    started = _journal(bot)[0]
    assert started["room"] == "!gateway:example.org"
    # the triggering event and its thread root, as the bot took and journalled them
    assert (started["trigger"], started["thread"]) == ("$trigger-event", "$thread-root")
    await decided(bot)
    assert bot.outbox.decisions[0].room == "!gateway:example.org"
    sent: list[dict[str, Any]] = []
    # a gateway that is not Matrix names no room of ours: the configured room, no trigger
    other = {**gateway, "HERMES_SESSION_PLATFORM": "telegram", "HERMES_SESSION_CHAT_ID": "42"}
    rules = rules_mod.Reporter(sent.append, room=ROOM, context=lambda: other)
    rules.hook("pre_llm_call", now, h.pre_llm_call(platform="telegram"))
    assert sent[-1]["room"] == ROOM and "trigger" not in sent[-1]


async def test_ids_the_bot_would_refuse_are_left_out_and_the_turn_still_arrives(
    bot: Bot, token_file: Path
) -> None:
    """A garbled id would make the bot refuse the whole turn.started: it is not sent."""
    cases = [
        ("$ok", "$a b", ("$ok", None)),  # a space in the thread root: the trigger alone
        ("not-an-id", "$root", (None, None)),  # no trigger: no thread either
        ("$" + "x" * 255, None, (None, None)),  # over 255 characters
        ("$a\x00b", "$root", (None, None)),
        ("$fine", "$root", ("$fine", "$root")),
    ]
    for n, (message, thread, _) in enumerate(cases):
        gateway = {
            "HERMES_SESSION_PLATFORM": "matrix",
            "HERMES_SESSION_CHAT_ID": "!gateway:example.org",
            "HERMES_SESSION_MESSAGE_ID": message,
            "HERMES_SESSION_THREAD_ID": thread or "",
        }
        running = start(bot.url, token_file, room=ROOM, context=lambda g=gateway: g)
        running.rules.hook("pre_llm_call", time.time(), h.pre_llm_call("matrix", f"t{n}"))
        await asyncio.to_thread(running.close, 5.0)
        assert running.sender.counts.dropped == 0  # the bot refused nothing
    started = [e for e in _journal(bot) if e["type"] == "turn.started"]
    assert [(e.get("trigger"), e.get("thread")) for e in started] == [c[2] for c in cases]


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=6), st.sampled_from(["$", "$a", "", "$" + "z" * 250]))
def test_the_reporter_takes_the_ids_roombot_takes(tail: str, head: str) -> None:
    value = head + tail
    assert (report.matrix_event_id(value) is not None) == is_matrix_event_id(value), value


def test_outside_acp_with_no_room_nothing_is_sent_and_it_is_said_once() -> None:
    sent: list[dict[str, Any]] = []
    lines: list[str] = []
    rules = rules_mod.Reporter(sent.append, log=lines.append)
    for _ in range(3):
        rules.hook("pre_llm_call", 1.0, h.pre_llm_call(platform="telegram"))
        rules.hook("api_request_error", 1.1, h.api_request_error(platform="telegram"))
    assert sent == [] and rules.stats.no_room == 6
    assert len(lines) == 1 and "roombot_reporter.room" in lines[0]


def test_a_hook_call_after_the_end_does_not_start_the_turn_again() -> None:
    sent: list[Any] = []
    rules = rules_mod.Reporter(sent.append, room=ROOM)
    rules.hook("pre_llm_call", 1.0, h.pre_llm_call())
    rules.hook("on_session_end", 2.0, h.on_session_end())
    rules.hook("pre_api_request", 3.0, h.pre_api_request("lab-small"))  # e.g. a review
    rules.hook("api_request_error", 3.1, h.api_request_error("overloaded"))
    assert [e["type"] for e in built(sent)] == ["turn.started", "turn.ended"]
    assert rules.open_turns() == 0


def test_a_subagents_calls_are_left_to_its_parent() -> None:
    sent: list[Any] = []
    rules = rules_mod.Reporter(sent.append, room=ROOM)
    rules.hook("pre_llm_call", 1.0, h.pre_llm_call(platform="subagent"))
    rules.hook("api_request_error", 1.1, h.api_request_error(platform="subagent"))
    assert sent == [] and rules.open_turns() == 0


def test_a_next_turn_of_the_session_ends_the_one_left_open() -> None:
    sent: list[dict[str, Any]] = []
    rules = rules_mod.Reporter(sent.append, room=ROOM)
    rules.hook("pre_llm_call", 1.0, h.pre_llm_call())
    rules.hook("api_request_error", 2.0, h.api_request_error())
    rules.hook("pre_llm_call", 9.0, h.pre_llm_call(turn_id=h.SESSION + ":next:turn"))
    types = [(e["type"], e["turn"].rsplit(":", 1)[-1], e["at"]) for e in built(sent)]
    assert types[-2:] == [("turn.ended", "586a5c7a", 2.0), ("turn.started", "turn", 9.0)]


# --- under the ACP proxy: a report joined by session ----------------------------------------


async def test_under_acp_a_failed_call_is_a_report_joined_to_the_proxys_turn(
    bot: Bot, token_file: Path
) -> None:
    session = "6badb0e0-b8a7-4823-aa0a-5fe0065b433a"
    turn = f"acp/{session}/3"
    now = time.time()
    await bot.pipeline.accept(
        [_event({"type": "turn.started", "turn": turn, "room": ROOM, "harness": "hermes",
                 "provider": "openai", "model": "lab-large", "session": session, "at": now})]
    )  # fmt: skip
    running = start(bot.url, token_file)
    running.rules.hook("pre_llm_call", now, h.pre_llm_call(platform="acp"))
    running.rules.hook(
        "api_request_error", now + 0.1, h.api_request_error(platform="acp", session=session)
    )
    running.rules.hook("on_session_end", now + 0.2, {**h.on_session_end(), "platform": "acp"})
    assert await asyncio.to_thread(running.sender.flush, 5.0)
    assert [e["type"] for e in _journal(bot)] == ["turn.started", "turn.report"]
    await bot.pipeline.accept(
        [_event({"type": "turn.ended", "turn": turn, "stop_reason": "end_turn", "at": now + 0.3})]
    )
    await decided(bot)
    [card] = bot.cards()
    assert card.turn == turn and card.kind.value == "rate_limit"
    assert card.attempts[0].status == 429 and card.attempts[0].message == h.RATE_LIMIT_SENTENCE


# --- the sender: never in Hermes's way ------------------------------------------------------


def test_a_busy_bot_is_retried_and_a_refusal_dropped_at_once(
    scripted: tuple[str, type[Scripted]], token_file: Path
) -> None:
    url, handler = scripted
    handler.answers = [503, 429, 202, 400]
    lines: list[str] = []
    running = start(url, token_file, lines)
    running.sender.enqueue({"type": "turn.report", "event_id": "a", "turn": "session:s"})
    running.sender.enqueue({"type": "turn.report", "event_id": "b", "turn": "session:s"})
    assert running.sender.flush(5.0)
    counts = running.sender.counts
    assert (counts.sent, counts.retries, counts.dropped) == (1, 2, 1)
    assert [b["event_id"] for b in handler.bodies] == ["a", "a", "a", "b"]
    assert any("dropped turn.report b" in line and "HTTP 400" in line for line in lines)
    assert not any(TOKEN in line for line in lines)


def test_an_unreachable_bot_costs_the_hook_nothing_and_is_counted(token_file: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    lines: list[str] = []
    running = start(f"http://127.0.0.1:{port}", token_file, lines, room=ROOM)
    opts = sender_mod.Options(max_queue=4, max_tries=2, base_delay=0.01, timeout=0.5)
    running.sender.options = opts
    began = time.perf_counter()
    for i in range(50):
        running.rules.hook("pre_llm_call", float(i), h.pre_llm_call(turn_id=f"s{i}:t:{i}"))
    assert time.perf_counter() - began < 0.5  # 50 hook calls never waited for the network
    assert running.sender.flush(10.0)
    counts = running.sender.counts
    assert counts.sent == 0 and counts.dropped >= 46  # the full queue dropped the oldest
    assert any("queue full (4 reports)" in line for line in lines)
    assert len(lines) < 20  # said by the thread in a few lines, never once per hook call
    assert any("ConnectionRefusedError" in line for line in lines)


def test_the_url_rule_and_the_token_reference(tmp_path: Path, token_file: Path) -> None:
    def why(**settings: Any) -> str:
        with pytest.raises(sender_mod.NotSending) as e:
            sender_mod.resolve(settings, {})
        return str(e.value)

    assert "non-loopback" in why(url="http://roombot.example.org:8450", tokenFile=str(token_file))
    assert "credentials" in why(url="https://u:p@roombot.example.org", tokenFile=str(token_file))
    assert "in clear is refused" in why(url="http://127.0.0.1:1", token="x", tokenFile="f")
    assert "tokenEnv ROOMBOT_API_TOKEN is not set" in why(
        url="http://127.0.0.1:1", tokenEnv="ROOMBOT_API_TOKEN"
    )
    assert "no PEM" in why(url="https://h:1", tokenFile=str(token_file), caFile=str(token_file))
    assert sender_mod.resolve({}, {}) is None  # no settings: nothing to do, nothing said
    insecure = sender_mod.resolve(
        {"url": "http://roombot.lan:8450/", "tokenEnv": "T", "insecure": True}, {"T": "tok"}
    )
    assert insecure is not None and insecure.url == "http://roombot.lan:8450"
    lines: list[str] = []
    assert plugin.start({"url": "http://roombot.lan:1", "tokenEnv": "T"}, log=lines.append) is None
    assert lines and "not sending" in lines[0]


def test_a_hook_that_meets_garbage_swallows_it_and_counts() -> None:
    def boom(event: dict[str, Any]) -> None:
        raise RuntimeError("queue broke")

    rules = rules_mod.Reporter(boom, room=ROOM)
    rules.hook("pre_llm_call", 1.0, h.pre_llm_call())  # emit raises: swallowed, counted
    rules.hook("api_request_error", 1.0, {"platform": "cli", "turn_id": 5, "error": object()})
    rules.hook("post_api_request", 1.0, {"turn_id": "x", "response": "not a mapping"})
    assert rules.stats.errors == 2 and rules.stats.hooks == 3  # the turn_id 5 is no turn


# --- helpers --------------------------------------------------------------------------------


def built(sent: list[Any]) -> list[dict[str, Any]]:
    """The events as the sender's thread builds them (a failure's is built there, lazily)."""
    return [e() if callable(e) else e for e in sent]


def _event(body: dict[str, Any]) -> Any:
    return parse_event(body)


def _journal(bot: Bot) -> list[dict[str, Any]]:
    db = sqlite3.connect(f"file:{bot.journal}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT body FROM journal WHERE kind = 'event' ORDER BY seq").fetchall()
    finally:
        db.close()
    return [json.loads(body) for (body,) in rows]


# --- TLS: verified against the CA file, never loosened --------------------------------------


@pytest.fixture
def tls_api(tmp_path: Path) -> Iterator[tuple[str, Path, type[Scripted]]]:
    pki = make_pki(tmp_path / "pki")
    cert, key = pki.leaf("api", "localhost", "127.0.0.1")
    handler = type("Handler", (Scripted,), {"answers": [], "bodies": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://localhost:{server.server_address[1]}", pki.ca_file, handler
    server.shutdown()
    server.server_close()


def test_https_is_verified_against_the_ca_file(
    tls_api: tuple[str, Path, type[Scripted]], token_file: Path
) -> None:
    url, ca_file, handler = tls_api
    running = start(url, token_file, caFile=str(ca_file))
    running.sender.enqueue({"type": "turn.report", "event_id": "over-tls", "turn": "session:s"})
    assert running.sender.flush(5.0)
    assert running.sender.counts.sent == 1
    assert [b["event_id"] for b in handler.bodies] == ["over-tls"]
    # the system's CAs do not know this one: refused once, not retried, nothing sent
    lines: list[str] = []
    refused = start(url, token_file, lines)
    refused.sender.enqueue({"type": "turn.report", "event_id": "refused", "turn": "session:s"})
    assert refused.sender.flush(5.0)
    assert refused.sender.counts.dropped == 1 and refused.sender.counts.retries == 0
    assert any("TLS refused" in line and "unknown issuer" in line for line in lines)
    assert [b["event_id"] for b in handler.bodies] == ["over-tls"]
