"""An agent written with the `agent-client-protocol` SDK, so the proxy also meets
the SDK's own framing. Prompt text decides what it does: "fail" rejects the
prompt with a JSON-RPC error, "die" exits 7 mid-turn, anything else answers."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, run_agent, update_agent_message_text
from acp.schema import Implementation, InitializeResponse, NewSessionResponse, PromptResponse


class Agent:
    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_info=Implementation(name="sdk-agent", version="1.0"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="sdk-session-1")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = prompt[0].text
        await self.conn.session_update(session_id, update_agent_message_text("thinking... "))
        if text == "fail":
            raise RequestError(-32603, "Internal error", {"details": "credit balance is too low"})
        if text == "die":
            await asyncio.sleep(0.05)  # let the chunk go out first
            os._exit(7)
        await self.conn.session_update(session_id, update_agent_message_text("hello"))
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(Agent()))  # type: ignore[arg-type]
