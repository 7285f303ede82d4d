"""The provider simulator speaks each API's real wire: statuses, bodies, headers, streams."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from lab import simulator
from lab.simulator import Script

FAILURES = ("rate_limit", "quota", "auth", "bad_request", "context", "overloaded", "server_error")
ENDPOINTS = {
    "anthropic": "/v1/messages",
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "gemini": "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
}
STATUS = {
    "anthropic": {
        "rate_limit": 429,
        "quota": 400,
        "auth": 401,
        "bad_request": 400,
        "context": 400,
        "overloaded": 529,
        "server_error": 500,
    },
    "openai": {
        "rate_limit": 429,
        "quota": 429,
        "auth": 401,
        "bad_request": 400,
        "context": 400,
        "overloaded": 503,
        "server_error": 500,
    },
    "gemini": {
        "rate_limit": 429,
        "quota": 429,
        "auth": 400,
        "bad_request": 400,
        "context": 400,
        "overloaded": 503,
        "server_error": 500,
    },
}


@pytest.fixture
async def sim() -> AsyncIterator[tuple[Script, str]]:
    script = Script()
    runner, port = await simulator.start(script)
    try:
        yield script, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


def _body(api: str, model: str, stream: bool = True) -> dict[str, Any]:
    if api == "gemini":
        return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    if api == "responses":
        return {"model": model, "input": "hi", "stream": stream}
    return {
        "model": model,
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": stream,
    }


async def _post(
    base: str, api: str, model: str = "m", stream: bool = True
) -> tuple[int, dict[str, str], str]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(base + ENDPOINTS[api], json=_body(api, model, stream)) as resp,
    ):
        # Header names compared case-insensitively, as HTTP says.
        return resp.status, {k.lower(): v for k, v in resp.headers.items()}, await resp.text()


@pytest.mark.parametrize("scenario", FAILURES)
@pytest.mark.parametrize("api", list(ENDPOINTS))
async def test_failure_status_and_body_shape(
    sim: tuple[Script, str], api: str, scenario: str
) -> None:
    script, base = sim
    script.scenario = scenario
    status, headers, text = await _post(base, api)
    family = "openai" if api in ("chat", "responses") else api
    assert status == STATUS[family][scenario]
    body = json.loads(text)
    if family == "anthropic":
        assert body["type"] == "error" and body["error"]["type"].endswith("_error")
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]
        assert headers["request-id"] == body["request_id"]
    elif family == "openai":
        assert set(body["error"]) == {"message", "type", "param", "code"}
    else:
        assert body["error"]["code"] == status and body["error"]["status"].isupper()
    if scenario == "rate_limit" and family != "gemini":
        assert headers["retry-after"] == str(simulator.RETRY_AFTER)
    if scenario == "rate_limit" and family == "gemini":
        retry = [d for d in body["error"]["details"] if d["@type"].endswith("RetryInfo")]
        assert retry == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]


def _sse_events(text: str) -> list[tuple[str | None, str]]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        if not block.strip():
            continue
        name = None
        data = []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        events.append((name, "\n".join(data)))
    return events


async def test_anthropic_stream(sim: tuple[Script, str]) -> None:
    _, base = sim
    status, headers, text = await _post(base, "anthropic", "claude-x")
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    events = _sse_events(text)
    names = [n for n, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    for name, data in events:
        assert json.loads(data)["type"] == name  # the event line and the payload agree
    deltas = [json.loads(d)["delta"]["text"] for n, d in events if n == "content_block_delta"]
    assert "".join(deltas) == simulator.ANSWER_TEXT


async def test_chat_stream_ends_with_done(sim: tuple[Script, str]) -> None:
    _, base = sim
    status, _, text = await _post(base, "chat")
    assert status == 200
    events = _sse_events(text)
    assert events[-1] == (None, "[DONE]")
    chunks = [json.loads(d) for _, d in events[:-1]]
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert content == simulator.ANSWER_TEXT
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


async def test_responses_stream_sequence(sim: tuple[Script, str]) -> None:
    _, base = sim
    _, _, text = await _post(base, "responses")
    events = _sse_events(text)
    payloads = [json.loads(d) for _, d in events]
    assert [p["sequence_number"] for p in payloads] == list(range(len(payloads)))
    assert payloads[0]["type"] == "response.created"
    assert payloads[-1]["type"] == "response.completed"
    assert payloads[-1]["response"]["usage"]["total_tokens"] == 21
    text_out = "".join(p["delta"] for p in payloads if p["type"] == "response.output_text.delta")
    assert text_out == simulator.ANSWER_TEXT


async def test_gemini_stream_and_safety(sim: tuple[Script, str]) -> None:
    script, base = sim
    _, _, text = await _post(base, "gemini")
    chunks = [json.loads(d) for _, d in _sse_events(text)]
    words = "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks)
    assert words == simulator.ANSWER_TEXT
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    script.scenario = "refusal"
    _, _, text = await _post(base, "gemini")
    (chunk,) = [json.loads(d) for _, d in _sse_events(text)]
    assert chunk["candidates"][0]["finishReason"] == "SAFETY"


async def test_fail_first_model_answer_second(sim: tuple[Script, str]) -> None:
    script, base = sim
    script.scenario = "overloaded"
    script.models["backup"] = "answer"
    first, _, _ = await _post(base, "chat", "primary")
    second, _, text = await _post(base, "chat", "backup")
    assert (first, second) == (503, 200)
    assert simulator.ANSWER_TEXT.split()[0] in text
    assert [r["scenario"] for r in simulator_requests(script, base)] == []  # no log file set


def simulator_requests(script: Script, base: str) -> list[dict[str, Any]]:
    if script.log_path is None:
        return []
    return [json.loads(line) for line in script.log_path.read_text().splitlines()]


async def test_refusals_in_each_stream(sim: tuple[Script, str]) -> None:
    script, base = sim
    script.scenario = "refusal"
    _, _, text = await _post(base, "anthropic")
    delta = next(json.loads(d) for n, d in _sse_events(text) if n == "message_delta")
    assert delta["delta"]["stop_reason"] == "refusal"
    _, _, text = await _post(base, "chat")
    finish = [json.loads(d) for _, d in _sse_events(text)[:-1]][-1]
    assert finish["choices"][0]["finish_reason"] == "content_filter"
    _, _, text = await _post(base, "responses")
    types = [json.loads(d)["type"] for _, d in _sse_events(text)]
    assert "response.refusal.delta" in types


async def test_hang_never_answers(sim: tuple[Script, str]) -> None:
    script, base = sim
    script.scenario = "hang"
    timeout = aiohttp.ClientTimeout(total=0.5)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        with pytest.raises(asyncio.TimeoutError):
            async with session.post(base + ENDPOINTS["chat"], json=_body("chat", "m")) as resp:
                await resp.read()


async def test_request_log_and_extra_headers(sim: tuple[Script, str], tmp_path: Any) -> None:
    script, base = sim
    script.log_path = tmp_path / "requests.jsonl"
    script.scenario = "server_error"
    script.extra_headers["retry-after-ms"] = "50"
    status, headers, _ = await _post(base, "chat", "lab-x")
    assert status == 500 and headers["retry-after-ms"] == "50"
    (entry,) = simulator_requests(script, base)
    assert (entry["path"], entry["model"], entry["scenario"]) == (
        "/v1/chat/completions",
        "lab-x",
        "server_error",
    )
