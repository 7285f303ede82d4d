"""A scripted ACP client: drives one agent over stdio for one prompt and records the wire.

Plain JSON-RPC 2.0 lines, written by hand on purpose: the lab must see exactly
what the harness sent (including what a typed client would reject), so every
line read is kept raw in `Wire.lines`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

PROTOCOL_VERSION = 1


class RpcError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(str(error.get("message")))
        self.error = error


@dataclass
class Wire:
    """What the agent said: every line read, and the parts the lab reads back."""

    lines: list[str] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)  # agent_message_chunk text during the prompt
    thoughts: list[str] = field(default_factory=list)
    other_updates: list[str] = field(default_factory=list)  # sessionUpdate kinds seen
    agent_requests: list[str] = field(default_factory=list)  # methods the agent called on us


class AcpClient:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc = proc
        self.stdin = proc.stdin
        self.stdout = proc.stdout
        self.wire = Wire()
        self._next = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._in_prompt = False
        self._reader = asyncio.create_task(self._read())

    async def _send(self, obj: dict[str, Any]) -> None:
        self.stdin.write((json.dumps(obj) + "\n").encode())
        await self.stdin.drain()

    async def request(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        self._next += 1
        rid = self._next
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        await self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._pending.pop(rid, None)

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def _read(self) -> None:
        while True:
            try:
                raw = await self.stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not raw:
                break
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.wire.lines.append(line)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                await self._dispatch(msg)
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(EOFError("agent closed its stdout"))

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" not in msg:
            fut = self._pending.get(msg.get("id"))  # type: ignore[arg-type]
            if fut is not None and not fut.done():
                if "error" in msg:
                    fut.set_exception(
                        RpcError(msg["error"] if isinstance(msg["error"], dict) else {})
                    )
                else:
                    fut.set_result(msg.get("result"))
            return
        method = msg["method"]
        params = msg.get("params") or {}
        if method == "session/update":
            update = params.get("update") or {}
            kind = update.get("sessionUpdate")
            content = update.get("content") or {}
            text = content.get("text") if isinstance(content, dict) else None
            if kind == "agent_message_chunk" and isinstance(text, str) and self._in_prompt:
                self.wire.answer.append(text)
            elif kind == "agent_thought_chunk" and isinstance(text, str):
                self.wire.thoughts.append(text)
            elif isinstance(kind, str):
                self.wire.other_updates.append(kind)
            return
        if "id" in msg:
            self.wire.agent_requests.append(method)
            await self._send({"jsonrpc": "2.0", "id": msg["id"], **self._answer(method, params)})

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "session/request_permission":
            # The lab's prompts need no tools: refuse politely, the turn goes on.
            return {"result": {"outcome": {"outcome": "cancelled"}}}
        return {"error": {"code": -32601, "message": f"lab client does not offer {method}"}}

    async def initialize(self, timeout: float) -> Any:
        return await self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "clientCapabilities": {
                    "fs": {"readTextFile": False, "writeTextFile": False},
                    "terminal": False,
                },
                "clientInfo": {"name": "roombot-lab", "version": "1"},
            },
            timeout,
        )

    async def new_session(self, cwd: str, timeout: float) -> Any:
        return await self.request("session/new", {"cwd": cwd, "mcpServers": []}, timeout)

    async def prompt(self, session_id: str, text: str, timeout: float) -> Any:
        self._in_prompt = True
        try:
            return await self.request(
                "session/prompt",
                {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
                timeout,
            )
        finally:
            self._in_prompt = False

    async def cancel(self, session_id: str) -> None:
        await self.notify("session/cancel", {"sessionId": session_id})

    async def close(self) -> None:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            self.stdin.close()
        self._reader.cancel()


def now() -> float:
    return time.time()
