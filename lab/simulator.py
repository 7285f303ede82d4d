"""A provider simulator on 127.0.0.1: four real wire APIs, failures scripted per case.

Speaks the Anthropic Messages API (`/v1/messages`), OpenAI Chat Completions
(`/v1/chat/completions`) and Responses (`/v1/responses`), and the Gemini API
(`/v1beta/models/M:generateContent` and `:streamGenerateContent`). Each case
gives a `Script`: the scenario for every request, and optionally another
scenario for named models ("fail the first model, answer with the second").

Scenarios are the failures a provider really sends, with each provider's own
status, body shape, words and headers (texts as the providers word them), a
streamed answer in each API's own event format, a refusal, and a hang.
Every request is logged (method, path, model, scenario) for the lab's table.

Run alone: `python -m lab.simulator --port 8700 --scenario rate_limit`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

SCENARIOS = (
    "answer",
    "rate_limit",
    "quota",
    "auth",
    "bad_request",
    "context",
    "overloaded",
    "server_error",
    "refusal",
    "hang",
)
ANSWER_TEXT = "Hello from the lab simulator. Everything is fine."
RETRY_AFTER = 1  # seconds: real enough to be seen, short enough for harnesses that honour it


@dataclass
class Script:
    """What the simulator answers: `scenario` for every request, `models` overriding per model."""

    scenario: str = "answer"
    models: dict[str, str] = field(default_factory=dict)
    log_path: Path | None = None
    retry_after: int = RETRY_AFTER
    # Added to every failure: lets the lab shorten harnesses that retry with no setting
    # to turn it down (e.g. `retry-after-ms`), without touching the provider's body.
    extra_headers: dict[str, str] = field(default_factory=dict)

    def for_model(self, model: str | None) -> str:
        if model is not None:
            for name, scenario in self.models.items():
                # Gemini paths carry "models/NAME"; harnesses may add a provider prefix.
                if model == name or model.endswith("/" + name):
                    return scenario
        return self.scenario


# --- the providers' own failures -------------------------------------------------


@dataclass(frozen=True)
class Failure:
    status: int
    body: dict[str, Any]
    headers: dict[str, str]


def _rid() -> str:
    return uuid.uuid4().hex[:24]


def anthropic_failure(scenario: str, model: str, retry_after: int) -> Failure:
    def err(status: int, etype: str, message: str, **headers: str) -> Failure:
        body = {"type": "error", "error": {"type": etype, "message": message}}
        body["request_id"] = "req_lab" + _rid()
        return Failure(status, body, {"request-id": str(body["request_id"]), **headers})

    if scenario == "rate_limit":
        return err(
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization "
            "(8f3c2a41-lab) of 50,000 input tokens per minute. For details, refer to: "
            "https://docs.claude.com/en/api/rate-limits. You can see the response headers "
            "for current usage. Please reduce the prompt length or the maximum tokens "
            "requested, or try again later. You may also contact sales at "
            "https://www.anthropic.com/contact-sales to discuss your options for a rate "
            "limit increase.",
            **{
                "retry-after": str(retry_after),
                "anthropic-ratelimit-input-tokens-limit": "50000",
                "anthropic-ratelimit-input-tokens-remaining": "0",
            },
        )
    if scenario == "quota":
        return err(
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to "
            "Plans & Billing to upgrade or purchase credits.",
        )
    if scenario == "auth":
        return err(401, "authentication_error", "invalid x-api-key")
    if scenario == "bad_request":
        return err(
            400,
            "invalid_request_error",
            f"max_tokens: 640000 > 64000, which is the maximum allowed number of output "
            f"tokens for {model}",
        )
    if scenario == "context":
        return err(
            400, "invalid_request_error", "prompt is too long: 212894 tokens > 200000 maximum"
        )
    if scenario == "overloaded":
        return err(529, "overloaded_error", "Overloaded")
    return err(500, "api_error", "Internal server error")


def openai_failure(scenario: str, model: str, retry_after: int, *, responses: bool) -> Failure:
    def err(
        status: int,
        message: str,
        etype: str,
        code: str | None,
        param: str | None = None,
        **headers: str,
    ) -> Failure:
        body = {"error": {"message": message, "type": etype, "param": param, "code": code}}
        return Failure(status, body, {"x-request-id": "req_" + _rid(), **headers})

    if scenario == "rate_limit":
        return err(
            429,
            f"Rate limit reached for {model} in organization org-lab on tokens per min "
            f"(TPM): Limit 30000, Used 29840, Requested 1203. Please try again in "
            f"{retry_after}s. Visit https://platform.openai.com/account/rate-limits to "
            f"learn more.",
            "tokens",
            "rate_limit_exceeded",
            **{
                "retry-after": str(retry_after),
                "x-ratelimit-limit-tokens": "30000",
                "x-ratelimit-remaining-tokens": "0",
                "x-ratelimit-reset-tokens": f"{retry_after}s",
            },
        )
    if scenario == "quota":
        return err(
            429,
            "You exceeded your current quota, please check your plan and billing details. "
            "For more information on this error, read the docs: "
            "https://platform.openai.com/docs/guides/error-codes/api-errors.",
            "insufficient_quota",
            "insufficient_quota",
        )
    if scenario == "auth":
        return err(
            401,
            "Incorrect API key provided: sk-lab-***********************0000. You can find "
            "your API key at https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        )
    if scenario == "bad_request":
        return err(
            400,
            "Invalid value for 'temperature': expected a number between 0 and 2.",
            "invalid_request_error",
            "invalid_value",
            "temperature",
        )
    if scenario == "context":
        if responses:
            return err(
                400,
                "Your input exceeds the context window of this model. Please adjust your "
                "input and try again.",
                "invalid_request_error",
                "context_length_exceeded",
                "input",
            )
        return err(
            400,
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 131072 tokens. Please reduce the length of the messages.",
            "invalid_request_error",
            "context_length_exceeded",
            "messages",
        )
    if scenario == "overloaded":
        return err(
            503,
            "The server is overloaded or not ready yet.",
            "server_error",
            None,
        )
    return err(
        500,
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        None,
    )


def gemini_failure(scenario: str, model: str, retry_after: int) -> Failure:
    def err(code: int, status: str, message: str, details: list[dict[str, Any]]) -> Failure:
        body = {"error": {"code": code, "message": message, "status": status, "details": details}}
        return Failure(code, body, {})

    help_link = {
        "@type": "type.googleapis.com/google.rpc.Help",
        "links": [
            {
                "description": "Learn more about Gemini API quotas",
                "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
            }
        ],
    }

    def quota_failure(quota_id: str, metric: str) -> dict[str, Any]:
        return {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {
                    "quotaMetric": f"generativelanguage.googleapis.com/{metric}",
                    "quotaId": quota_id,
                    "quotaDimensions": {"location": "global", "model": model},
                    "quotaValue": "15",
                }
            ],
        }

    exceeded = (
        "You exceeded your current quota, please check your plan and billing details. For "
        "more information on this error, head to: https://ai.google.dev/gemini-api/docs/"
        "rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. "
    )
    if scenario == "rate_limit":
        return err(
            429,
            "RESOURCE_EXHAUSTED",
            exceeded + f"Please retry in {retry_after}.0s.",
            [
                quota_failure(
                    "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                    "generate_content_free_tier_requests",
                ),
                help_link,
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{retry_after}s",
                },
            ],
        )
    if scenario == "quota":
        return err(
            429,
            "RESOURCE_EXHAUSTED",
            exceeded,
            [
                quota_failure(
                    "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                    "generate_content_free_tier_requests",
                ),
                help_link,
            ],
        )
    if scenario == "auth":
        return err(
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                },
                {
                    "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                    "locale": "en-US",
                    "message": "API key not valid. Please pass a valid API key.",
                },
            ],
        )
    if scenario == "bad_request":
        return err(
            400,
            "INVALID_ARGUMENT",
            "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \"hot\"",
            [],
        )
    if scenario == "context":
        return err(
            400,
            "INVALID_ARGUMENT",
            "The input token count (1196265) exceeds the maximum number of tokens allowed "
            "(1048576).",
            [],
        )
    if scenario == "overloaded":
        return err(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", [])
    return err(
        500,
        "INTERNAL",
        "An internal error has occurred. Please retry or report in "
        "https://developers.generativeai.google/guide/troubleshooting",
        [],
    )


# --- the providers' own streams --------------------------------------------------


def _words(text: str) -> list[str]:
    parts = text.split(" ")
    return [p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)]


REFUSAL_TEXT = "I'm sorry, but I can't help with that request."


async def _sse(resp: web.StreamResponse, data: Any, event: str | None = None) -> None:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    await resp.write(f"{head}data: {payload}\n\n".encode())


async def _start_sse(request: web.Request) -> web.StreamResponse:
    resp = web.StreamResponse(
        status=200,
        headers={"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"},
    )
    await resp.prepare(request)
    return resp


async def anthropic_answer(
    request: web.Request, body: dict[str, Any], refusal: bool
) -> web.StreamResponse:
    model = str(body.get("model", "claude"))
    mid = "msg_lab" + _rid()
    text = "" if refusal else ANSWER_TEXT
    stop = "refusal" if refusal else "end_turn"
    usage_in = {"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if not body.get("stream"):
        content = [{"type": "text", "text": text}] if text else []
        return web.json_response(
            {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {**usage_in, "output_tokens": 9},
            }
        )
    resp = await _start_sse(request)
    message = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage_in, "output_tokens": 1},
    }
    await _sse(resp, {"type": "message_start", "message": message}, "message_start")
    if text:
        block = {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "text", "text": ""},
        }
        await _sse(resp, block, "content_block_start")
        await _sse(resp, {"type": "ping"}, "ping")
        for word in _words(text):
            delta = {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": word},
            }
            await _sse(resp, delta, "content_block_delta")
        await _sse(resp, {"type": "content_block_stop", "index": 0}, "content_block_stop")
    end = {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": 9},
    }
    await _sse(resp, end, "message_delta")
    await _sse(resp, {"type": "message_stop"}, "message_stop")
    await resp.write_eof()
    return resp


async def chat_answer(
    request: web.Request, body: dict[str, Any], refusal: bool
) -> web.StreamResponse:
    model = str(body.get("model", "gpt"))
    cid = "chatcmpl-lab" + _rid()
    created = int(time.time())
    finish = "content_filter" if refusal else "stop"
    if not body.get("stream"):
        message: dict[str, Any] = {"role": "assistant", "content": None if refusal else ANSWER_TEXT}
        message["refusal"] = REFUSAL_TEXT if refusal else None
        return web.json_response(
            {
                "id": cid,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21},
            }
        )
    resp = await _start_sse(request)

    def chunk(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
        return {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_lab",
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }

    await _sse(resp, chunk({"role": "assistant", "content": "", "refusal": None}, None))
    if refusal:
        await _sse(resp, chunk({"refusal": REFUSAL_TEXT}, None))
    else:
        for word in _words(ANSWER_TEXT):
            await _sse(resp, chunk({"content": word}, None))
    await _sse(resp, chunk({}, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": {"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21},
        }
        await _sse(resp, usage)
    await _sse(resp, "[DONE]")
    await resp.write_eof()
    return resp


async def responses_answer(
    request: web.Request, body: dict[str, Any], refusal: bool
) -> web.StreamResponse:
    model = str(body.get("model", "gpt"))
    rid = "resp_lab" + _rid()
    item_id = "msg_lab" + _rid()
    created = int(time.time())
    text = REFUSAL_TEXT if refusal else ANSWER_TEXT
    part_type = "refusal" if refusal else "output_text"
    usage = {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 9,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 21,
    }

    def response(status: str, output: list[dict[str, Any]], with_usage: bool) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "response",
            "created_at": created,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "model": model,
            "output": output,
            "usage": usage if with_usage else None,
        }

    done_part: dict[str, Any] = (
        {"type": "refusal", "refusal": text}
        if refusal
        else {"type": "output_text", "text": text, "annotations": []}
    )
    item_done = {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [done_part],
    }
    if not body.get("stream"):
        return web.json_response(response("completed", [item_done], True))
    resp = await _start_sse(request)
    seq = 0

    async def ev(kind: str, **fields: Any) -> None:
        nonlocal seq
        await _sse(resp, {"type": kind, "sequence_number": seq, **fields}, kind)
        seq += 1

    await ev("response.created", response=response("in_progress", [], False))
    await ev("response.in_progress", response=response("in_progress", [], False))
    item = {
        "id": item_id,
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    await ev("response.output_item.added", output_index=0, item=item)
    empty: dict[str, Any] = (
        {"type": "refusal", "refusal": ""}
        if refusal
        else {"type": "output_text", "text": "", "annotations": []}
    )
    at = {"item_id": item_id, "output_index": 0, "content_index": 0}
    await ev("response.content_part.added", **at, part=empty)
    if refusal:
        await ev("response.refusal.delta", **at, delta=text)
        await ev("response.refusal.done", **at, refusal=text)
    else:
        for word in _words(text):
            await ev("response.output_text.delta", **at, delta=word, logprobs=[])
        await ev("response.output_text.done", **at, text=text, logprobs=[])
    await ev("response.content_part.done", **at, part=done_part)
    await ev("response.output_item.done", output_index=0, item=item_done)
    await ev("response.completed", response=response("completed", [item_done], True))
    del part_type
    await resp.write_eof()
    return resp


async def gemini_answer(
    request: web.Request, model: str, stream: bool, refusal: bool
) -> web.StreamResponse:
    usage = {"promptTokenCount": 12, "candidatesTokenCount": 9, "totalTokenCount": 21}
    rid = _rid()

    def chunk(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        if finish == "SAFETY":
            cand["safetyRatings"] = [
                {
                    "category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                    "probability": "HIGH",
                    "blocked": True,
                }
            ]
            cand.pop("content")
        return {
            "candidates": [cand],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": rid,
        }

    if not stream:
        if refusal:
            return web.json_response(chunk([], "SAFETY"))
        return web.json_response(chunk([{"text": ANSWER_TEXT}], "STOP"))
    resp = await _start_sse(request)
    if refusal:
        await resp.write(("data: " + json.dumps(chunk([], "SAFETY")) + "\r\n\r\n").encode())
    else:
        words = _words(ANSWER_TEXT)
        for i, word in enumerate(words):
            finish = "STOP" if i == len(words) - 1 else None
            await resp.write(
                ("data: " + json.dumps(chunk([{"text": word}], finish)) + "\r\n\r\n").encode()
            )
    await resp.write_eof()
    return resp


# --- the server ------------------------------------------------------------------


class Simulator:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []

    def _log(self, request: web.Request, api: str, model: str | None, scenario: str) -> None:
        entry = {
            "at": time.time(),
            "method": request.method,
            "path": request.path,
            "api": api,
            "model": model,
            "scenario": scenario,
        }
        self.requests.append(entry)
        if self.script.log_path is not None:
            with self.script.log_path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")

    async def _hang(self) -> web.Response:
        # Never answers: the harness's own timeout (or the lab's) must end the turn.
        await asyncio.sleep(3600)
        return web.Response(status=504)

    async def _serve(
        self,
        request: web.Request,
        api: str,
        model: str | None,
        failure: Callable[[str, str, int], Failure],
        answer: Callable[[bool], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        scenario = self.script.for_model(model)
        self._log(request, api, model, scenario)
        if scenario == "hang":
            return await self._hang()
        if scenario in ("answer", "refusal"):
            return await answer(scenario == "refusal")
        f = failure(scenario, model or "unknown", self.script.retry_after)
        headers = {**f.headers, **self.script.extra_headers}
        return web.json_response(f.body, status=f.status, headers=headers)

    async def anthropic(self, request: web.Request) -> web.StreamResponse:
        body = await _json(request)
        model = _str(body.get("model"))
        return await self._serve(
            request,
            "anthropic",
            model,
            anthropic_failure,
            lambda refusal: anthropic_answer(request, body, refusal),
        )

    async def anthropic_count(self, request: web.Request) -> web.Response:
        self._log(request, "anthropic", None, "count_tokens")
        return web.json_response({"input_tokens": 12})

    async def chat(self, request: web.Request) -> web.StreamResponse:
        body = await _json(request)
        model = _str(body.get("model"))
        return await self._serve(
            request,
            "openai-chat",
            model,
            lambda s, m, r: openai_failure(s, m, r, responses=False),
            lambda refusal: chat_answer(request, body, refusal),
        )

    async def responses(self, request: web.Request) -> web.StreamResponse:
        body = await _json(request)
        model = _str(body.get("model"))
        return await self._serve(
            request,
            "openai-responses",
            model,
            lambda s, m, r: openai_failure(s, m, r, responses=True),
            lambda refusal: responses_answer(request, body, refusal),
        )

    async def models(self, request: web.Request) -> web.Response:
        self._log(request, "models", None, "list")
        names = list(self.script.models) or ["lab-model"]
        if request.path.startswith("/v1beta"):
            return web.json_response({"models": [{"name": f"models/{n}"} for n in names]})
        data = [
            {"id": n, "object": "model", "created": 1700000000, "owned_by": "lab"} for n in names
        ]
        return web.json_response({"object": "list", "data": data})

    async def gemini(self, request: web.Request) -> web.StreamResponse:
        target = request.match_info["target"]
        model, _, method = target.partition(":")
        if method == "countTokens":
            self._log(request, "gemini", model, "count_tokens")
            return web.json_response({"totalTokens": 12})
        if method == "embedContent":
            self._log(request, "gemini", model, "embed")
            return web.json_response({"embedding": {"values": [0.0] * 8}})
        stream = method == "streamGenerateContent"
        await _json(request)
        return await self._serve(
            request,
            "gemini",
            model,
            gemini_failure,
            lambda refusal: gemini_answer(request, model, stream, refusal),
        )

    async def fallback(self, request: web.Request) -> web.Response:
        self._log(request, "other", None, "not_found")
        if request.method == "HEAD" or request.path == "/":
            return web.Response(status=200)  # Claude Code's reachability probe
        return web.json_response(
            {
                "error": {
                    "message": f"Unknown request URL: {request.method} {request.path}",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "unknown_url",
                }
            },
            status=404,
        )

    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/messages", self.anthropic)
        app.router.add_post("/v1/messages/count_tokens", self.anthropic_count)
        for prefix in ("", "/v1"):
            app.router.add_post(prefix + "/chat/completions", self.chat)
            app.router.add_post(prefix + "/responses", self.responses)
            app.router.add_get(prefix + "/models", self.models)
        app.router.add_get("/v1beta/models", self.models)
        app.router.add_post("/v1beta/models/{target}", self.gemini)
        app.router.add_post("/v1/models/{target}", self.gemini)
        app.router.add_route("*", "/{tail:.*}", self.fallback)
        return app


async def _json(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (ValueError, UnicodeDecodeError):
        return {}
    return body if isinstance(body, dict) else {}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


async def start(script: Script, port: int = 0) -> tuple[web.AppRunner, int]:
    """Start on 127.0.0.1 (port 0: any free port); returns the runner and the port."""
    runner = web.AppRunner(Simulator(script).app(), access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    server = site._server
    assert server is not None
    sock = server.sockets[0]  # type: ignore[union-attr]
    return runner, int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8700)
    parser.add_argument("--scenario", choices=SCENARIOS, default="answer")
    parser.add_argument("--model", action="append", default=[], metavar="MODEL=SCENARIO")
    args = parser.parse_args()
    models = dict(item.split("=", 1) for item in args.model)

    async def serve() -> None:
        runner, port = await start(Script(args.scenario, models), args.port)
        print(f"simulator on http://127.0.0.1:{port}", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
