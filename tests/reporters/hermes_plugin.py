"""The Hermes reporter (reporters/hermes/) imported as the package it is inside Hermes,
and the hook arguments Hermes 0.19.0 passes, as the lab saw them (lab/reporters_case.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

CODE = Path(__file__).resolve().parents[2] / "reporters" / "hermes"
NAME = "roombot_hermes_reporter"


def load() -> ModuleType:
    """reporters/hermes as a package (its modules import each other relatively)."""
    if NAME in sys.modules:
        return sys.modules[NAME]
    spec = importlib.util.spec_from_file_location(
        NAME, CODE / "__init__.py", submodule_search_locations=[str(CODE)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    spec.loader.exec_module(module)
    return module


SESSION = "20261201_172713_ce8fa8"
TURN_ID = f"{SESSION}:152ce10f-985b-4f1d-aad9-604e2f53b0b6:586a5c7a"
RATE_LIMIT_SENTENCE = (
    "Rate limit reached for lab-large in organization org-lab on tokens per min (TPM): Limit "
    "30000, Used 29840, Requested 1203. Please try again in 1s. Visit "
    "https://platform.openai.com/account/rate-limits to learn more."
)
OVERLOADED_SENTENCE = "The server is overloaded or not ready yet."


def pre_llm_call(platform: str = "cli", turn_id: str = TURN_ID) -> dict[str, Any]:
    return {
        "session_id": turn_id.split(":")[0],
        "task_id": "152ce10f-985b-4f1d-aad9-604e2f53b0b6",
        "turn_id": turn_id,
        "user_message": "Say hello in one short sentence.",
        "conversation_history": [],
        "is_first_turn": True,
        "model": "lab-large",
        "platform": platform,
        "sender_id": "",
        "telemetry_schema_version": "hermes.observer.v1",
    }


def pre_api_request(model: str = "lab-large", platform: str = "cli") -> dict[str, Any]:
    return {
        "task_id": "152ce10f",
        "turn_id": TURN_ID,
        "api_request_id": f"{TURN_ID}:api:1",
        "session_id": SESSION,
        "platform": platform,
        "model": model,
        "provider": "custom",
        "base_url": "http://127.0.0.1:36883/v1",
        "api_mode": "chat_completions",
        "api_call_count": 1,
    }


def api_request_error(
    scenario: str = "rate_limit", platform: str = "cli", session: str = SESSION
) -> dict[str, Any]:
    """As run_agent.AIAgent._invoke_api_request_error_hook passes them (openai SDK errors)."""
    if scenario == "rate_limit":
        status, model, cls, reason = 429, "lab-large", "RateLimitError", "rate_limit"
        body = (
            f"{{'error': {{'message': '{RATE_LIMIT_SENTENCE}', 'type': 'tokens', "
            "'param': None, 'code': 'rate_limit_exceeded'}}"
        )
    else:
        status, model, cls, reason = 503, "lab-small", "InternalServerError", "overloaded"
        body = (
            f"{{'error': {{'message': '{OVERLOADED_SENTENCE}', 'type': 'server_error', "
            "'param': None, 'code': None}}"
        )
    return {
        **pre_api_request(model, platform),
        "session_id": session,
        "api_duration": 0.3,
        "started_at": 1796145632.15,
        "ended_at": 1796145632.45,
        "status_code": status,
        "retry_count": 0,
        "max_retries": 1,
        "retryable": True,
        "reason": reason,
        "error": {"type": cls, "message": f"Error code: {status} - {body}"},
        "request": {"method": "POST", "body": {"model": model}},
    }


def post_api_request(text: str = "Hello from the lab simulator.") -> dict[str, Any]:
    return {
        **pre_api_request(),
        "finish_reason": "stop",
        "response": {
            "model": "lab-large",
            "finish_reason": "stop",
            "assistant_message": {"role": "assistant", "content": text, "tool_calls": []},
        },
    }


def on_session_end(completed: bool = True, interrupted: bool = False) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "task_id": "152ce10f",
        "turn_id": TURN_ID,
        "completed": completed,
        "interrupted": interrupted,
        "model": "lab-large",
        "platform": "cli",
    }
