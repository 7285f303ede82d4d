"""One lab case, run INSIDE a fresh network namespace that has only loopback.

`unshare -n -- python -m lab.case --harness H --scenario S --out DIR` brings
up `lo`, starts the simulator, writes the harness's setup into a fresh HOME,
runs `roombot acp-proxy --events DIR/events.jsonl -- <harness ACP command>`,
drives one prompt through it with the scripted client, and writes
DIR/result.json (how the failure showed on the wire) beside the proxy's
events, the simulator's request log and the harness's stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from lab import setups, simulator
from lab.client import AcpClient, RpcError

ROOM = "!lab:roombot.test"
PROMPT = "Say hello in one short sentence."
FALLBACK_MODEL_SCENARIO = "answer"


def _lo_up() -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)


async def run_case(args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = out / "home"
    harness = setups.HARNESSES_BY_NAME[args.harness]
    script = simulator.Script(args.scenario, log_path=out / "requests.jsonl")
    runner, port = await simulator.start(script)
    launch = harness.write(home, port, args.fallback)
    script.extra_headers.update(launch.failure_headers)
    if args.fallback:
        if launch.fallback is None:
            raise SystemExit(f"{args.harness} has no fallback model in the lab")
        script.models[launch.fallback] = FALLBACK_MODEL_SCENARIO
    result: dict[str, Any] = {
        "harness": harness.name,
        "package": harness.package,
        "scenario": args.scenario,
        "fallback": args.fallback,
        "provider": launch.provider,
        "model": launch.model,
        "fallback_model": launch.fallback,
    }
    events = out / "events.jsonl"
    stderr_path = out / "stderr.txt"
    cmd = [
        sys.executable,
        "-m",
        "roombot",
        "acp-proxy",
        "--room",
        ROOM,
        "--harness",
        harness.name,
        "--provider",
        launch.provider,
        "--model",
        launch.model,
        "--events",
        str(events),
        "--drain-seconds",
        "1",
        "--",
        *launch.cmd,
    ]
    started = time.monotonic()
    if launch.prepare is not None:
        await asyncio.to_thread(launch.prepare)
    env = dict(launch.env)
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    with stderr_path.open("wb") as err:
        proc = await start_agent(cmd, env, home / "work", err)
        client = AcpClient(proc)
        try:
            result.update(await _drive(client, str(home / "work"), args.timeout))
        finally:
            await client.close()
            await _stop(proc)
            result["exit_code"] = proc.returncode
            await runner.cleanup()
    result["seconds"] = round(time.monotonic() - started, 2)
    result["wire_lines"] = len(client.wire.lines)
    result["thoughts"] = "".join(client.wire.thoughts)[:2000]
    result["updates"] = sorted(set(client.wire.other_updates))
    result["agent_requests"] = client.wire.agent_requests
    (out / "wire.jsonl").write_text("\n".join(client.wire.lines) + "\n", encoding="utf-8")
    result["requests"] = [
        {k: r[k] for k in ("method", "path", "model", "scenario")} for r in script_requests(out)
    ]
    result["stderr_tail"] = stderr_path.read_bytes()[-1500:].decode("utf-8", "replace")
    (out / "result.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


async def start_agent(
    cmd: list[str], env: dict[str, str], cwd: Path, err: Any
) -> asyncio.subprocess.Process:
    """The proxy and its harness, with pipes for the ACP client; its own session so
    the case can end the whole process group."""
    return await asyncio.create_subprocess_exec(
        *cmd,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=err,
        env=env,
        cwd=str(cwd),
        limit=16 * 1024 * 1024,  # one ACP line may be large
        start_new_session=True,
    )


def script_requests(out: Path) -> list[dict[str, Any]]:
    path = out / "requests.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def _drive(client: AcpClient, cwd: str, timeout: float) -> dict[str, Any]:
    """initialize, session/new, one prompt; returns how the turn showed on the wire."""
    try:
        init = await client.initialize(timeout)
        session = await client.new_session(cwd, timeout)
    except RpcError as exc:
        return {"wire": "setup_failed", "text": json.dumps(exc.error)}
    except (TimeoutError, EOFError) as exc:
        return {"wire": "setup_failed", "text": f"{type(exc).__name__} before the prompt"}
    info = (init or {}).get("agentInfo") or {}
    session_id = str((session or {}).get("sessionId"))
    base: dict[str, Any] = {"agent_info": info}
    try:
        response = await client.prompt(session_id, PROMPT, timeout)
    except RpcError as exc:
        return {**base, "wire": "rejected", "text": _rpc_text(exc.error), "answer": _answer(client)}
    except TimeoutError:
        await client.cancel(session_id)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(_wait_pending(client), 3)
        return {
            **base,
            "wire": "no_end",
            "text": f"no prompt response within {timeout:g} s",
            "answer": _answer(client),
        }
    except EOFError:
        return {
            **base,
            "wire": "exited",
            "text": "agent exited mid-turn",
            "answer": _answer(client),
        }
    stop = (response or {}).get("stopReason")
    answer = _answer(client)
    return {
        **base,
        "wire": "answered" if answer.strip() else "dropped",
        "stop_reason": stop,
        "text": answer,
        "answer": answer,
    }


async def _wait_pending(client: AcpClient) -> None:
    while client._pending:
        await asyncio.sleep(0.05)


def _answer(client: AcpClient) -> str:
    return "".join(client.wire.answer)


def _rpc_text(error: dict[str, Any]) -> str:
    text = str(error.get("message", ""))
    data = error.get("data")
    if data not in (None, "", {}):
        text += " | data: " + (data if isinstance(data, str) else json.dumps(data))
    return text


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """End the proxy (it passes SIGTERM on), then the whole process group."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 4)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), 2)


def _end_namespace() -> None:
    """Kill every process left in this case's network namespace (a gateway, a daemon):
    they are all the lab's own, started for this case, and nothing may outlive it."""
    me = os.getpid()
    mine = os.readlink("/proc/self/ns/net")
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            if os.readlink(f"/proc/{entry}/ns/net") == mine:
                os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError):
            continue


def main() -> None:
    parser = argparse.ArgumentParser(description="one lab case (run inside unshare -n)")
    parser.add_argument("--harness", required=True, choices=sorted(setups.HARNESSES_BY_NAME))
    parser.add_argument("--scenario", required=True, choices=simulator.SCENARIOS)
    parser.add_argument("--fallback", action="store_true", help="the fallback model answers")
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=float, default=25.0, help="seconds per request")
    args = parser.parse_args()
    _lo_up()
    try:
        result = asyncio.run(run_case(args))
    finally:
        _end_namespace()
    print(
        json.dumps({k: result.get(k) for k in ("harness", "scenario", "wire", "text", "seconds")})
    )


if __name__ == "__main__":
    main()
