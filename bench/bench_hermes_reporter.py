"""What the Hermes reporter's hook costs Hermes, beside a hook that does nothing, in one run.

Inside Hermes's own interpreter (lab/.harnesses/hermes, hermes-agent 0.19.0), through
Hermes's own `PluginManager.invoke_hook` (the way the agent loop calls every plugin), each
hook call is timed N times in these settings:

1. baseline: one plugin callback that does nothing;
2. the reporter, sending to roombot's real report API on 127.0.0.1 (this process serves it:
   `roombot.api.make_app` in front of the real journal and turn rules);
3. the reporter while roombot is unreachable (a closed port: refused connections, retries,
   a full queue dropping the oldest).

The calls are `api_request_error` under ACP (one `turn.report` each) and for Hermes on its
own (one `turn.failed_attempt` each, the turn opened once before), and `pre_api_request`
on its own (no event: the same model as the call before). Each figure is the median of one
call in microseconds, with its ratio to the baseline and to the reachable bot.

    .venv/bin/python bench/bench_hermes_reporter.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab import setups  # noqa: E402
from roombot.api import ApiSettings, SourceSettings, make_app  # noqa: E402
from roombot.outbox import Outbox  # noqa: E402
from roombot.pipeline import Pipeline  # noqa: E402
from roombot.turns import TurnMachine  # noqa: E402

TOKEN = "bench-hermes-reporter-token-0123456789"

# Run by Hermes's python: argv = code dir, url or "", token file, calls.
DRIVER = r"""
import importlib.util, json, statistics, sys, time
from hermes_cli.plugins import PluginContext, PluginManager, PluginManifest

code, url, token_file, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
spec = importlib.util.spec_from_file_location(
    "roombot_hermes_reporter", code + "/__init__.py", submodule_search_locations=[code])
plugin = importlib.util.module_from_spec(spec)
sys.modules["roombot_hermes_reporter"] = plugin
spec.loader.exec_module(plugin)

def manager(register):
    pm = PluginManager()
    register(PluginContext(PluginManifest(name="bench"), pm))
    return pm

def nothing(**kwargs):
    return None

error = {"type": "RateLimitError", "message": "Error code: 429 - {'error': {'message': "
         "'Rate limit reached for lab-large in organization org-lab on tokens per min (TPM): "
         "Limit 30000, Used 29840, Requested 1203.', 'type': 'tokens', 'param': None, "
         "'code': 'rate_limit_exceeded'}}"}
def kwargs(platform):
    return dict(task_id="t", turn_id="s1:t:1", api_request_id="s1:t:1:api:1", session_id="s1",
                platform=platform, model="lab-large", provider="custom",
                base_url="http://127.0.0.1:1/v1", api_mode="chat_completions",
                api_call_count=1, status_code=429, retry_count=0, max_retries=3,
                retryable=True, reason="rate_limit", error=error, request={})

def median_us(pm, name, kw):
    pm.invoke_hook(name, **kw)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        pm.invoke_hook(name, **kw)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000.0

out = {}
if url:
    running = plugin.start({"url": url, "tokenFile": token_file, "room": "!bench:example.org"},
                           log=lambda line: None)
    pm = manager(lambda ctx: [ctx.register_hook(n, running.callback(n))
                              for n in plugin.reporter.HOOKS])
    pm.invoke_hook("pre_llm_call", session_id="s1", turn_id="s1:t:1", platform="cli",
                   model="lab-large", user_message="hi")
    pm.invoke_hook("pre_api_request", **{**kwargs("cli"), "error": None})
else:
    running = None
    pm = manager(lambda ctx: [ctx.register_hook(n, nothing) for n in
                              ("api_request_error", "pre_api_request")])
out["api_request_error, ACP"] = median_us(pm, "api_request_error", kwargs("acp"))
out["api_request_error, alone"] = median_us(pm, "api_request_error", kwargs("cli"))
out["pre_api_request, alone"] = median_us(pm, "pre_api_request", {**kwargs("cli"), "error": None})
if running is not None:
    running.sender.flush(10.0)
    c = running.sender.counts
    out["counts"] = {"sent": c.sent, "dropped": c.dropped, "retries": c.retries, "errors": c.errors}
print(json.dumps(out))
"""


async def _api(where: Path) -> tuple[web.AppRunner, Pipeline, Outbox, int]:
    outbox = Outbox(where / "outbox.sqlite3")
    pipeline = Pipeline(where / "journal.sqlite3", TurnMachine(), outbox)
    await pipeline.start()
    source = SourceSettings("hermes", TOKEN, frozenset({"*"}), rate=1e9, burst=1e9)
    settings = ApiSettings(journal=where / "journal.sqlite3", sources=(source,))
    runner = web.AppRunner(make_app(settings, pipeline), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]
    return runner, pipeline, outbox, port


async def _drive(url: str, token_file: Path, calls: int) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        str(setups.HERMES_BIN / "python"),
        "-c",
        DRIVER,
        str(ROOT / "reporters" / "hermes"),
        url,
        str(token_file),
        str(calls),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"the driver failed: {err.decode()[-2000:]}")
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def run(calls: int) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="bench-hermes-") as tmp:
        where = Path(tmp)
        token_file = where / "token"
        token_file.write_text(TOKEN)
        runner, pipeline, outbox, port = await _api(where)
        try:
            figures = {
                "baseline": await _drive("", token_file, calls),
                "reachable": await _drive(f"http://127.0.0.1:{port}", token_file, calls),
            }
        finally:
            await runner.cleanup()
            await pipeline.stop()
            outbox.close()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed = s.getsockname()[1]  # nothing listens there once the block ends
        figures["unreachable"] = await _drive(f"http://127.0.0.1:{closed}", token_file, calls)
        return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    if not (setups.HERMES_BIN / "python").exists():
        print("Hermes not installed: run lab/install.sh (make harnesses)", file=sys.stderr)
        return 2
    figures = asyncio.run(run(args.calls))
    print(f"one hook call through Hermes's invoke_hook, median of {args.calls} calls")
    print(f"| {'hook':26} | {'setting':11} | {'us/call':>8} | {'vs nothing':>10} | {'vs up':>6} |")
    print(f"|{'-' * 28}|{'-' * 13}|{'-' * 10}|{'-' * 12}|{'-' * 8}|")
    hooks = [k for k in figures["baseline"] if k != "counts"]
    for hook in hooks:
        base, up = figures["baseline"][hook], figures["reachable"][hook]
        for setting in ("baseline", "reachable", "unreachable"):
            value = figures[setting][hook]
            print(
                f"| {hook:26} | {setting:11} | {value:8.2f} | {value / base:9.1f}x "
                f"| {value / up:5.2f}x |"
            )
    for setting in ("reachable", "unreachable"):
        print(f"{setting}: sender {figures[setting].get('counts')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
