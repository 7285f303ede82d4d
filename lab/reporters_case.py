"""One lab case with the in-harness reporter enabled, run INSIDE a fresh network namespace.

`unshare -n -- python -m lab.reporters_case --harness H --scenario S --out DIR [--fallback |
--recover]` is `lab.case` with the whole of roombot's intake in the namespace:

- the provider simulator and the harness's setup, as `lab.case` does;
- roombot's real report API (`roombot.api.make_app`) in front of the real journal, turn
  rules and SQLite outbox (`roombot.pipeline.Pipeline`), on 127.0.0.1, with two sources:
  the ACP proxy and the reporter, each with its own token in a file;
- the reporter switched on with `roombot reporters enable NAME --apply`, as an operator
  would, pointed at that API with the reporter's token file;
- `roombot acp-proxy --url ... --token-file ...` in front of the harness, one prompt.

DIR/result.json gets how the turn showed on the wire, and the decisions the rules made (the
card as `cards.codec.to_payload` gives it), read from what the pipeline handed the outbox.
`--recover` makes the first model call fail and the harness's own retry answer (Pi's
`retry` setting, Hermes's `agent.api_max_retries`); `--fallback` makes the fallback model
answer (OpenClaw's chain). `--chain` (Hermes) makes the fallback fail too, with `--then`:
Hermes's ACP adapter passes no fallback to its agent, so that case runs Hermes on its own
(`hermes chat -q`, no ACP proxy), and the reporter tells roombot the whole turn itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from cards.codec import to_payload
from lab import case, setups, simulator
from lab.client import AcpClient
from roombot.api import ApiSettings, SourceSettings, make_app
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.reporters import REPORTERS, reporter_map
from roombot.room import Card
from roombot.turns import CLOSED, Post, Retract, TurnMachine, TurnRules

ROOT = Path(__file__).resolve().parent.parent
PROXY_TOKEN = "lab-proxy-token-00000000000000000"
REPORTER_TOKEN = "lab-reporter-token-000000000000000"
SETTLE_WAIT = 8.0  # seconds after the prompt's end for the grace, settle and any late report


class FirstFails(simulator.Script):
    """The first model call fails with the scenario; every later one answers."""

    calls = 0

    def for_model(self, model: str | None) -> str:
        self.calls += 1
        return self.scenario if self.calls == 1 else "answer"


class RecordingOutbox(Outbox):
    """The real SQLite outbox, also keeping the decisions in order for the lab to read."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.decisions: list[Any] = []

    def enqueue(self, decision: Any) -> bool:
        # What the rules decided, read back from the room stage's actions: a turn's own
        # card is its Post (group cards, edits and reactions are the room's view).
        if isinstance(decision, Card) and not decision.turn.startswith("group:"):
            self.decisions.append(Post(decision.room, decision.turn, decision.error))
        elif isinstance(decision, Post | Retract):
            self.decisions.append(decision)
        return super().enqueue(decision)


def _config_env(name: str, env: dict[str, str]) -> dict[str, str]:
    """Where the harness keeps its configuration, as the harness itself finds it."""
    keep = (
        "HOME", "PI_CODING_AGENT_DIR", "OPENCLAW_CONFIG_PATH", "OPENCLAW_STATE_DIR", "HERMES_HOME",
    )  # fmt: skip
    return {k: v for k, v in env.items() if k in keep}


def _enable(name: str, env: dict[str, str], api_url: str, token_file: Path) -> str:
    cmd = [
        sys.executable, "-m", "roombot", "reporters", "enable", name,
        "--url", api_url, "--token-file", str(token_file), "--apply",
    ]  # fmt: skip
    res = subprocess.run(
        cmd,
        env={**os.environ, **_config_env(name, env)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    if res.returncode != 0:
        raise SystemExit(f"roombot reporters enable {name} failed: {res.stderr}")
    return res.stdout


def _pi_retries(home: Path) -> None:
    """Pi's own retry setting on: the first 429 is retried (after its retry-after)."""
    path = home / ".pi" / "agent" / "settings.json"
    settings = json.loads(path.read_text())
    settings["retry"] = {
        "enabled": True,
        "maxRetries": 2,
        "baseDelayMs": 100,
        "provider": {"maxRetries": 0},
    }
    path.write_text(json.dumps(settings, indent=2))


def _hermes_config(home: Path, change: dict[str, Any]) -> None:
    """Merge `change` into the lab's Hermes config.yaml (JSON, which is YAML)."""
    path = home / ".hermes" / "config.yaml"
    config = json.loads(path.read_text())
    for key, value in change.items():
        config[key] = {**config.get(key, {}), **value} if isinstance(value, dict) else value
    path.write_text(json.dumps(config, indent=2))


async def _hermes_alone(launch: setups.Launch, home: Path, timeout: float) -> dict[str, Any]:
    """One prompt through `hermes chat -q` (no ACP): how it ended, and what it printed."""
    cmd = [str(setups.HERMES_BIN / "hermes"), "chat", "-q", case.PROMPT, "-Q"]
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        env=launch.env,
        cwd=str(home / "work"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), 4 * timeout)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        return {"wire": "no_end", "text": "hermes chat did not end", "exit_code": None}
    text = out.decode("utf-8", "replace").strip()
    return {
        "wire": "alone",  # no ACP: Hermes answered the terminal itself
        "text": text,
        "stderr": err.decode("utf-8", "replace")[-1500:],
        "exit_code": proc.returncode,
    }


async def _start_api(bot: Path, proxy_token: Path, reporter_token: Path) -> tuple[Any, ...]:
    bot.mkdir(parents=True, exist_ok=True)
    proxy_token.write_text(PROXY_TOKEN)
    reporter_token.write_text(REPORTER_TOKEN)
    outbox = RecordingOutbox(bot / "outbox.sqlite3")
    machine = TurnMachine(TurnRules(), reporter_map())
    pipeline = Pipeline(bot / "journal.sqlite3", machine, outbox)
    await pipeline.start()
    settings = ApiSettings(
        host="127.0.0.1",
        port=0,
        journal=bot / "journal.sqlite3",
        sources=(
            SourceSettings("acp-proxy", PROXY_TOKEN, frozenset({"*"})),
            SourceSettings("reporter", REPORTER_TOKEN, frozenset({"*"})),
        ),
    )
    runner = web.AppRunner(make_app(settings, pipeline), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server = site._server
    assert server is not None
    port = int(server.sockets[0].getsockname()[1])  # type: ignore[union-attr]
    return runner, pipeline, outbox, port


def _journal(path: Path) -> list[dict[str, Any]]:
    """The events the bot took, in journal order (a reader beside the pipeline's writer)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT body FROM journal WHERE kind = 'event' ORDER BY seq").fetchall()
    finally:
        db.close()
    return [json.loads(body) for (body,) in rows]


async def _wait_decided(pipeline: Pipeline, journal: Path, deadline: float) -> None:
    """Until every turn the journal holds is decided (or the deadline)."""
    while time.monotonic() < deadline:
        turns = {e["turn"] for e in _journal(journal) if e.get("type") == "turn.started"}
        views = [pipeline.machine.state(t) for t in turns]
        if turns and all(v is None or v.state in CLOSED for v in views):
            return
        await asyncio.sleep(0.2)


async def run_case(args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = out / "home"
    harness = setups.HARNESSES_BY_NAME[args.harness]
    reporter = next(r for r in REPORTERS.values() if r.harness == harness.name)
    script_cls = FirstFails if args.recover else simulator.Script
    script = script_cls(args.scenario, log_path=out / "requests.jsonl")
    sim_runner, port = await simulator.start(script)
    launch = harness.write(home, port, args.fallback or args.chain)
    script.extra_headers.update(launch.failure_headers)
    if args.fallback or args.chain:
        if launch.fallback is None:
            raise SystemExit(f"{args.harness} has no fallback model in the lab")
        script.models[launch.fallback] = args.then if args.chain else "answer"
    if args.chain:
        if harness.name != "hermes":
            raise SystemExit("--chain runs Hermes on its own (hermes chat -q)")
        # Outside ACP and the gateway no room is known: the operator names the team room.
        _hermes_config(home, {"roombot_reporter": {"room": case.ROOM}})
    if args.recover:
        if harness.name == "pi":
            _pi_retries(home)
        elif harness.name == "hermes":
            # Hermes counts the first call among its tries: 2 is one retry.
            _hermes_config(home, {"agent": {"api_max_retries": 2}})
        else:
            raise SystemExit("--recover uses Pi's and Hermes's retry settings")
    bot = out / "bot"
    runner, pipeline, outbox, api_port = await _start_api(
        bot, home / "proxy.token", home / "reporter.token"
    )
    api_url = f"http://127.0.0.1:{api_port}"
    result: dict[str, Any] = {
        "harness": harness.name,
        "package": harness.package,
        "scenario": args.scenario,
        "fallback": args.fallback,
        "recover": args.recover,
        "chain": args.then if args.chain else None,
        "fallback_model": launch.fallback,
        "provider": launch.provider,
        "model": launch.model,
        "reporter": reporter.name,
        "enable": _enable(reporter.name, launch.env, api_url, home / "reporter.token"),
    }
    cmd = [
        sys.executable, "-m", "roombot", "acp-proxy", "--room", case.ROOM,
        "--harness", harness.name, "--provider", launch.provider, "--model", launch.model,
        "--url", api_url, "--token-file", str(home / "proxy.token"),
        "--spool", str(bot / "spool.sqlite3"), "--drain-seconds", "3", "--", *launch.cmd,
    ]  # fmt: skip
    started = time.monotonic()
    client: AcpClient | None = None
    try:
        if launch.prepare is not None:
            await asyncio.to_thread(launch.prepare)  # the gateway loads the plugin at its start
        env = {**launch.env, "PYTHONPATH": str(ROOT)}
        if args.chain:
            result.update(await _hermes_alone(launch, home, args.timeout))
            (out / "stderr.txt").write_text(result.pop("stderr", ""), encoding="utf-8")
        else:
            with (out / "stderr.txt").open("wb") as err:
                proc = await case.start_agent(cmd, env, home / "work", err)
                client = AcpClient(proc)
                try:
                    result.update(await case._drive(client, str(home / "work"), args.timeout))
                finally:
                    await client.close()
                    await case._stop(proc)  # the proxy drains its spool to the API first
                    result["exit_code"] = proc.returncode
        await _wait_decided(pipeline, bot / "journal.sqlite3", time.monotonic() + SETTLE_WAIT)
        await asyncio.sleep(0.5)
    finally:
        result["seconds"] = round(time.monotonic() - started, 2)
        events = _journal(bot / "journal.sqlite3")
        (out / "events.jsonl").write_text(
            "".join(json.dumps(e) + "\n" for e in events), encoding="utf-8"
        )
        result["events"] = [
            {k: e.get(k) for k in ("type", "turn", "source", "stop_reason")} for e in events
        ]
        result["decisions"] = [
            {"turn": d.turn, "action": type(d).__name__.lower(), "card": to_payload(d.error)}
            for d in outbox.decisions
        ]
        result["reported_types"] = [  # what the reporter sent, in the journal's order
            e.get("type")
            for e in events
            if str(e.get("event_id", "")).startswith(reporter.source + "/")
        ]
        result["rule_counts"] = dict(pipeline.machine.counts)
        await runner.cleanup()
        await pipeline.stop()
        outbox.close()
        await sim_runner.cleanup()
    lines = client.wire.lines if client is not None else []
    result["wire_lines"] = len(lines)
    (out / "wire.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result["requests"] = [
        {k: r[k] for k in ("method", "path", "model", "scenario")}
        for r in case.script_requests(out)
    ]
    result["stderr_tail"] = (out / "stderr.txt").read_bytes()[-1500:].decode("utf-8", "replace")
    for log in (home / "gateway.log", home / ".hermes" / "logs" / "agent.log"):
        if log.exists():
            logged = log.read_text("utf-8", "replace").splitlines()
            result["reporter_log"] = [line for line in logged if "roombot" in line][-20:]
    (out / "result.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description="one lab case with the reporter enabled")
    parser.add_argument("--harness", required=True, choices=sorted(setups.HARNESSES_BY_NAME))
    parser.add_argument("--scenario", required=True, choices=simulator.SCENARIOS)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--fallback", action="store_true", help="the fallback model answers")
    mode.add_argument("--recover", action="store_true", help="the harness's retry answers")
    mode.add_argument(
        "--chain", action="store_true", help="Hermes alone; its fallback fails too (--then)"
    )
    parser.add_argument("--then", default="overloaded", choices=simulator.SCENARIOS)
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=float, default=25.0, help="seconds per request")
    args = parser.parse_args()
    case._lo_up()
    try:
        result = asyncio.run(run_case(args))
    finally:
        case._end_namespace()
    summary = {k: result.get(k) for k in ("harness", "scenario", "wire", "seconds")}
    summary["cards"] = [d["card"].get("kind") for d in result.get("decisions", [])]
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
