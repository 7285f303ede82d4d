"""The in-harness reporters: which exist, where each is installed, and how to switch one on.

A reporter runs inside a harness that drops its errors from the ACP answer (the harness
lab shows which: OpenClaw and Pi), and sends each failure to roombot's report API as a
`turn.report` naming its session (docs/reporters.md). The code lives in `reporters/NAME/`
of this checkout; enabling one means editing the harness's own configuration so that the
harness loads it from there, with roombot's URL and a reference to the token (a file or an
environment variable, never the token itself).

`plan_enable` / `plan_disable` compute the change as (path, old text, new text) without
touching anything; `render_plan` shows it as unified diffs; `apply_plan` writes it
atomically. Both plans are idempotent: a second enable (or disable) plans no change. A
configuration file that is not plain JSON, or holds the wrong type where the change goes,
is refused with `ConfigFileError` naming the file and the place; nothing is written.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roombot import yaml_config
from roombot.report_tls import CannotSend, check_url

__all__ = [
    "REPORTERS",
    "YAML",
    "Change",
    "Codec",
    "ConfigFileError",
    "Reporter",
    "ReporterStatus",
    "Settings",
    "apply_plan",
    "plan_disable",
    "plan_enable",
    "render_plan",
    "reporter_map",
    "reporters_dir",
    "status",
]

Json = dict[str, Any]


class ConfigFileError(ValueError):
    """The harness's configuration cannot be edited safely; the message says where and why."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What the reporter needs to send: roombot's URL, where its token is, the CA to trust.

    The URL rule is the one every client keeps (roombot.report_tls): plain http:// to a
    host other than loopback only with `insecure`.
    """

    url: str
    token_file: str | None = None
    token_env: str | None = None
    ca_file: str | None = None
    insecure: bool = False

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"--url: expected an http(s) URL, got {self.url!r}")
        if (self.token_file is None) == (self.token_env is None):
            raise ValueError("give exactly one of --token-file and --token-env")
        try:
            check_url(self.url, insecure=self.insecure, warn=False)
        except CannotSend as e:
            raise ValueError(f"--url: {e}") from None

    def as_json(self) -> Json:
        out: Json = {"url": self.url.rstrip("/")}
        if self.token_file is not None:
            out["tokenFile"] = self.token_file
        else:
            out["tokenEnv"] = self.token_env
        if self.ca_file is not None:
            out["caFile"] = self.ca_file
        if self.insecure:
            out["insecure"] = True
        return out


@dataclass(frozen=True, slots=True)
class Change:
    """One file the plan writes: its text before (None: it does not exist) and after."""

    path: Path
    old: str | None
    new: str


@dataclass(frozen=True, slots=True)
class ReporterStatus:
    name: str
    harness: str
    config: Path
    installed: bool  # the reporter's files are in the reporters directory
    enabled: bool  # the harness's configuration loads it
    url: str | None  # where it sends, when enabled and configured
    problem: str | None = None  # why the configuration could not be read


@dataclass(frozen=True, slots=True)
class Codec:
    """How a configuration that is not plain JSON is read and written back.

    `parse(text)` gives the tree (ValueError: the file is refused); `render(old text, old
    tree, new tree)` gives the new text (ValueError: it cannot be written safely).
    """

    name: str
    parse: Callable[[str], Json]
    render: Callable[[str | None, Json, Json], str]


@dataclass(frozen=True, slots=True)
class Reporter:
    name: str
    harness: str  # the harness name in events (lab/setups.py, `--harness` of the proxy)
    source: str  # the `source` of its turn.report events
    entry: str  # the file the harness loads, inside reporters/NAME/
    find_config: Callable[[Mapping[str, str]], Path]
    enable: Callable[[Json, Path, Settings | None], Json]
    disable: Callable[[Json, Path], Json]
    is_enabled: Callable[[Json, Path], tuple[bool, str | None]]
    after: str  # what happens next: nothing is restarted by roombot
    codec: Codec | None = None  # None: the file is plain JSON
    # Files `enable` writes beside the configuration: (config path, code dir) -> (path, text)
    files: Callable[[Path, Path], list[tuple[Path, str]]] | None = None


def reporters_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the reporters are: $ROOMBOT_REPORTERS_DIR, else reporters/ of this checkout."""
    env = os.environ if env is None else env
    given = env.get("ROOMBOT_REPORTERS_DIR")
    if given:
        return Path(given).resolve()
    return Path(__file__).resolve().parent.parent / "reporters"


# --- editing JSON trees (pure) -------------------------------------------------------------


def _obj(tree: Json, key: str, where: str) -> Json:
    """tree[key] as an object, created when missing; the wrong type is refused."""
    value = tree.get(key)
    if value is None:
        value = tree[key] = {}
    if not isinstance(value, dict):
        raise ConfigFileError(f"{where}{key}: expected an object, found {_kind(value)}")
    return value


def _list(tree: Json, key: str, where: str) -> list[Any]:
    value = tree.get(key)
    if value is None:
        value = tree[key] = []
    if not isinstance(value, list):
        raise ConfigFileError(f"{where}{key}: expected a list, found {_kind(value)}")
    return value


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else "null"
    )


def _prune(tree: Json, *keys: str) -> None:
    """Remove tree[k1][k2]... containers left empty by a disable, innermost first."""
    chain = [tree]
    for key in keys:
        nxt = chain[-1].get(key)
        if not isinstance(nxt, dict | list):
            break
        chain.append(nxt)  # type: ignore[arg-type]
    for depth in range(len(chain) - 1, 0, -1):
        if not chain[depth]:
            del chain[depth - 1][keys[depth - 1]]


# --- OpenClaw ------------------------------------------------------------------------------

OPENCLAW_PLUGIN_ID = "roombot-reporter"


def _openclaw_config(env: Mapping[str, str]) -> Path:
    if env.get("OPENCLAW_CONFIG_PATH"):
        return Path(env["OPENCLAW_CONFIG_PATH"])
    state = env.get("OPENCLAW_STATE_DIR") or str(Path(env.get("HOME", "~")) / ".openclaw")
    return Path(state).expanduser() / "openclaw.json"


def _openclaw_enable(tree: Json, code: Path, settings: Settings | None) -> Json:
    plugins = _obj(tree, "plugins", "")
    paths = _list(_obj(plugins, "load", "plugins."), "paths", "plugins.load.")
    if str(code) not in paths:
        paths.append(str(code))
    allow = plugins.get("allow")
    if isinstance(allow, list) and OPENCLAW_PLUGIN_ID not in allow:
        allow.append(OPENCLAW_PLUGIN_ID)  # an allowlist would keep it from loading
    entries = _obj(plugins, "entries", "plugins.")
    entry = _obj(entries, OPENCLAW_PLUGIN_ID, "plugins.entries.")
    entry["enabled"] = True
    # llm_output and agent_end are conversation hooks: a non-bundled plugin needs consent.
    _obj(entry, "hooks", f"plugins.entries.{OPENCLAW_PLUGIN_ID}.")["allowConversationAccess"] = True
    if settings is not None:
        entry["config"] = settings.as_json()
    elif not isinstance(entry.get("config"), dict) or not entry["config"].get("url"):
        raise ConfigFileError("the reporter has no settings yet: give --url and a token reference")
    return tree


def _openclaw_disable(tree: Json, code: Path) -> Json:
    plugins = tree.get("plugins")
    if not isinstance(plugins, dict):
        return tree
    load = plugins.get("load")
    if isinstance(load, dict) and isinstance(load.get("paths"), list):
        load["paths"] = [p for p in load["paths"] if p != str(code)]
    entries = plugins.get("entries")
    if isinstance(entries, dict):
        entries.pop(OPENCLAW_PLUGIN_ID, None)
    allow = plugins.get("allow")
    if isinstance(allow, list) and OPENCLAW_PLUGIN_ID in allow:
        allow.remove(OPENCLAW_PLUGIN_ID)
    _prune(tree, "plugins", "load", "paths")
    _prune(tree, "plugins", "entries")
    return tree


def _openclaw_enabled(tree: Json, code: Path) -> tuple[bool, str | None]:
    plugins = tree.get("plugins")
    if not isinstance(plugins, dict) or plugins.get("enabled") is False:
        return False, None
    load = plugins.get("load")
    paths = load.get("paths") if isinstance(load, dict) else None
    entries = plugins.get("entries")
    entry = entries.get(OPENCLAW_PLUGIN_ID) if isinstance(entries, dict) else None
    if not isinstance(paths, list) or str(code) not in paths or not isinstance(entry, dict):
        return False, None
    config = entry.get("config")
    url = config.get("url") if isinstance(config, dict) else None
    return entry.get("enabled") is True, url if isinstance(url, str) else None


# --- Pi ------------------------------------------------------------------------------------

PI_SETTINGS_KEY = "roombotReporter"


def _pi_config(env: Mapping[str, str]) -> Path:
    agent = env.get("PI_CODING_AGENT_DIR") or str(Path(env.get("HOME", "~")) / ".pi" / "agent")
    return Path(agent).expanduser() / "settings.json"


def _pi_enable(tree: Json, code: Path, settings: Settings | None) -> Json:
    extensions = _list(tree, "extensions", "")
    if str(code) not in extensions:
        extensions.append(str(code))
    if settings is not None:
        tree[PI_SETTINGS_KEY] = settings.as_json()
    elif not isinstance(tree.get(PI_SETTINGS_KEY), dict) or not tree[PI_SETTINGS_KEY].get("url"):
        raise ConfigFileError("the reporter has no settings yet: give --url and a token reference")
    return tree


def _pi_disable(tree: Json, code: Path) -> Json:
    if isinstance(tree.get("extensions"), list):
        tree["extensions"] = [e for e in tree["extensions"] if e != str(code)]
        _prune(tree, "extensions")
    tree.pop(PI_SETTINGS_KEY, None)
    return tree


def _pi_enabled(tree: Json, code: Path) -> tuple[bool, str | None]:
    extensions = tree.get("extensions")
    if not isinstance(extensions, list) or str(code) not in extensions:
        return False, None
    settings = tree.get(PI_SETTINGS_KEY)
    url = settings.get("url") if isinstance(settings, dict) else None
    return True, url if isinstance(url, str) else None


# --- Hermes --------------------------------------------------------------------------------

HERMES_PLUGIN_ID = "roombot-reporter"  # the name in its plugin.yaml and in plugins.enabled
HERMES_SETTINGS_KEY = "roombot_reporter"
# Keys of the reporter's block an operator sets by hand; `enable` keeps them.
HERMES_OWN_KEYS = ("room", "node", "endAfter")


def _hermes_config(env: Mapping[str, str]) -> Path:
    home = env.get("HERMES_HOME") or str(Path(env.get("HOME", "~")) / ".hermes")
    return Path(home).expanduser() / "config.yaml"


def _hermes_enable(tree: Json, code: Path, settings: Settings | None) -> Json:
    plugins = _obj(tree, "plugins", "")
    enabled = _list(plugins, "enabled", "plugins.")
    if HERMES_PLUGIN_ID not in enabled:
        enabled.append(HERMES_PLUGIN_ID)  # Hermes loads a user plugin only when listed
    disabled = plugins.get("disabled")
    if isinstance(disabled, list) and HERMES_PLUGIN_ID in disabled:
        disabled.remove(HERMES_PLUGIN_ID)  # plugins.disabled wins over plugins.enabled
    block = tree.get(HERMES_SETTINGS_KEY)
    if block is not None and not isinstance(block, dict):
        raise ConfigFileError(f"{HERMES_SETTINGS_KEY}: expected an object, found {_kind(block)}")
    if settings is not None:
        kept = {k: v for k, v in (block or {}).items() if k in HERMES_OWN_KEYS}
        tree[HERMES_SETTINGS_KEY] = {**settings.as_json(), **kept}
    elif not block or not block.get("url"):
        raise ConfigFileError("the reporter has no settings yet: give --url and a token reference")
    return tree


def _hermes_disable(tree: Json, code: Path) -> Json:
    plugins = tree.get("plugins")
    if isinstance(plugins, dict) and isinstance(plugins.get("enabled"), list):
        plugins["enabled"] = [p for p in plugins["enabled"] if p != HERMES_PLUGIN_ID]
        _prune(tree, "plugins", "enabled")
    tree.pop(HERMES_SETTINGS_KEY, None)
    return tree


def _hermes_enabled(tree: Json, code: Path) -> tuple[bool, str | None]:
    plugins = tree.get("plugins")
    enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
    disabled = plugins.get("disabled") if isinstance(plugins, dict) else None
    if not isinstance(enabled, list) or HERMES_PLUGIN_ID not in enabled:
        return False, None
    if isinstance(disabled, list) and HERMES_PLUGIN_ID in disabled:
        return False, None
    block = tree.get(HERMES_SETTINGS_KEY)
    url = block.get("url") if isinstance(block, dict) else None
    return True, url if isinstance(url, str) else None


def _hermes_files(config: Path, code: Path) -> list[tuple[Path, str]]:
    """The plugin directory Hermes scans ($HERMES_HOME/plugins/NAME): a loader of `code`."""
    where = config.parent / "plugins" / HERMES_PLUGIN_ID
    loader = f"""# Written by `roombot reporters enable hermes`: loads roombot's Hermes reporter
# from its checkout. Hermes runs it only while {HERMES_PLUGIN_ID} is in plugins.enabled.
import importlib.util
import sys

_CODE = {json.dumps(str(code))}
_spec = importlib.util.spec_from_file_location(
    "roombot_hermes_reporter", _CODE + "/__init__.py", submodule_search_locations=[_CODE]
)
_module = importlib.util.module_from_spec(_spec)
sys.modules["roombot_hermes_reporter"] = _module
_spec.loader.exec_module(_module)
register = _module.register
"""
    manifest = (code / "plugin.yaml").read_text(encoding="utf-8")
    return [(where / "plugin.yaml", manifest), (where / "__init__.py", loader)]


def _yaml_parse(text: str) -> Json:
    try:
        tree = json.loads(text)  # JSON is YAML: such a file is edited as JSON
    except ValueError:
        return yaml_config.parse(text)
    if not isinstance(tree, dict):
        raise ValueError(f"expected an object at the top, found {_kind(tree)}")
    return tree


def _yaml_render(old: str | None, old_tree: Json, new_tree: Json) -> str:
    if old is not None and old.strip():
        try:
            json.loads(old)
        except ValueError:
            return yaml_config.render(old, old_tree, new_tree, lists_under="plugins")
        return _dump(new_tree, old)
    return yaml_config.render(old, old_tree, new_tree, lists_under="plugins")


YAML = Codec("YAML", _yaml_parse, _yaml_render)


# --- the registry --------------------------------------------------------------------------

REPORTERS: dict[str, Reporter] = {
    r.name: r
    for r in (
        Reporter(
            name="openclaw",
            harness="openclaw",
            source="roombot-openclaw-reporter",
            entry="openclaw.plugin.json",
            find_config=_openclaw_config,
            enable=_openclaw_enable,
            disable=_openclaw_disable,
            is_enabled=_openclaw_enabled,
            after=(
                "OpenClaw: the Gateway's default (hybrid) reload mode loads plugin changes by "
                "itself; with reloads off, restart it yourself: openclaw gateway restart"
            ),
        ),
        Reporter(
            name="pi",
            harness="pi",
            source="roombot-pi-reporter",
            entry="index.js",
            find_config=_pi_config,
            enable=_pi_enable,
            disable=_pi_disable,
            is_enabled=_pi_enabled,
            after=(
                "Pi: each new Pi session (every pi-acp session) loads the extension by itself; "
                "sessions already running keep what they loaded."
            ),
        ),
        Reporter(
            name="hermes",
            harness="hermes",
            source="roombot-hermes-reporter",
            entry="plugin.yaml",
            find_config=_hermes_config,
            enable=_hermes_enable,
            disable=_hermes_disable,
            is_enabled=_hermes_enabled,
            after=(
                "Hermes: each Hermes process loads its plugins when it starts (every hermes-acp "
                "the proxy starts, every hermes chat); a running gateway keeps what it loaded: "
                "restart it yourself: hermes gateway restart"
            ),
            codec=YAML,
            files=_hermes_files,
        ),
    )
}


def reporter_map() -> dict[str, str]:
    """harness -> reporter name, for TurnMachine's `reporters` (the 'would have' note)."""
    return {r.harness: r.name for r in REPORTERS.values()}


# --- reading and writing the files ---------------------------------------------------------


def _read(path: Path, codec: Codec | None = None) -> tuple[str | None, Json]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except UnicodeDecodeError as e:
        raise ConfigFileError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    if codec is not None:
        try:
            return text, codec.parse(text)
        except ValueError as e:
            raise ConfigFileError(f"{path}: {e}; nothing was changed") from None
    try:
        tree = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigFileError(
            f"{path}: not valid JSON at line {e.lineno} column {e.colno} ({e.msg}); roombot "
            "edits only plain JSON (comments and trailing commas included: fix or remove them "
            "first); nothing was changed"
        ) from None
    if not isinstance(tree, dict):
        raise ConfigFileError(f"{path}: expected a JSON object at the top, found {_kind(tree)}")
    return text, tree


def _indent(text: str | None) -> int | str:
    """The file's own indentation, so that the diff shows only what changes."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) != len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def _dump(tree: Json, old: str | None) -> str:
    end = "" if old is not None and old and not old.endswith("\n") else "\n"  # keep the file's
    return json.dumps(tree, indent=_indent(old), ensure_ascii=False) + end


def _plan(reporter: Reporter, path: Path, edit: Callable[[Json], Json]) -> list[Change]:
    old, tree = _read(path, reporter.codec)
    try:
        new_tree = edit(json.loads(json.dumps(tree)))  # edit a copy
    except ConfigFileError as e:
        raise ConfigFileError(f"{path}: {e}") from None
    if old is not None and new_tree == tree:
        return []  # already so: nothing to write, whatever the file's formatting
    if reporter.codec is None:
        new = _dump(new_tree, old)
    else:
        try:
            new = reporter.codec.render(old, tree, new_tree)
        except ValueError as e:
            raise ConfigFileError(f"{path}: {e}; nothing was changed") from None
    return [] if new == old else [Change(path, old, new)]


def _files(reporter: Reporter, path: Path, code: Path) -> list[Change]:
    """The files beside the configuration that `enable` writes (Hermes's plugin directory)."""
    out: list[Change] = []
    for where, text in reporter.files(path, code) if reporter.files else []:
        try:
            old: str | None = where.read_text(encoding="utf-8")
        except FileNotFoundError:
            old = None
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigFileError(f"{where}: cannot be read ({type(e).__name__})") from None
        if old != text:
            out.append(Change(where, old, text))
    return out


def code_dir(reporter: Reporter, env: Mapping[str, str] | None = None) -> Path:
    return reporters_dir(env) / reporter.name


def plan_enable(
    reporter: Reporter,
    settings: Settings | None,
    *,
    env: Mapping[str, str] | None = None,
    config: Path | None = None,
    before: Callable[[Json], Json] = lambda tree: tree,
) -> list[Change]:
    """`before` sees the file's tree first (roombot.reviewed looks there for other copies)."""
    env = os.environ if env is None else env
    code = code_dir(reporter, env)
    if not (code / reporter.entry).is_file():
        raise ConfigFileError(
            f"{code}: the {reporter.name} reporter is not there ({reporter.entry})"
        )
    path = config or reporter.find_config(env)
    changes = _plan(reporter, path, lambda tree: reporter.enable(before(tree), code, settings))
    return changes + _files(reporter, path, code)


def plan_disable(
    reporter: Reporter,
    *,
    env: Mapping[str, str] | None = None,
    config: Path | None = None,
    before: Callable[[Json], Json] = lambda tree: tree,
) -> list[Change]:
    env = os.environ if env is None else env
    path = config or reporter.find_config(env)
    if not path.exists():
        return []
    code = code_dir(reporter, env)
    return _plan(reporter, path, lambda tree: reporter.disable(before(tree), code))


def render_plan(changes: list[Change]) -> str:
    """The change as unified diffs, one per file ('' when there is nothing to do)."""
    out: list[str] = []
    for ch in changes:
        before = (ch.old or "").splitlines(keepends=True)
        after = ch.new.splitlines(keepends=True)
        label_a = "/dev/null" if ch.old is None else f"a{ch.path}"
        for line in difflib.unified_diff(before, after, label_a, f"b{ch.path}"):
            # as diff(1) does, so that patch(1) takes the output as it is
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def apply_plan(changes: list[Change]) -> list[Path]:
    """Write each file atomically (same directory, then rename), keeping its mode."""
    written: list[Path] = []
    for ch in changes:
        current = ch.path.read_text(encoding="utf-8") if ch.path.exists() else None
        if current != ch.old:
            raise ConfigFileError(f"{ch.path}: changed since the plan was made; nothing written")
        ch.path.parent.mkdir(parents=True, exist_ok=True)
        mode = ch.path.stat().st_mode & 0o7777 if ch.path.exists() else 0o600
        fd, tmp = tempfile.mkstemp(prefix=f".{ch.path.name}.", dir=ch.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(ch.new)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, ch.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(ch.path)
    return written


def status(
    reporter: Reporter, *, env: Mapping[str, str] | None = None, config: Path | None = None
) -> ReporterStatus:
    env = os.environ if env is None else env
    code = code_dir(reporter, env)
    path = config or reporter.find_config(env)
    installed = (code / reporter.entry).is_file()
    try:
        _, tree = _read(path, reporter.codec)
    except ConfigFileError as e:
        return ReporterStatus(reporter.name, reporter.harness, path, installed, False, None, str(e))
    enabled, url = reporter.is_enabled(tree, code)
    return ReporterStatus(reporter.name, reporter.harness, path, installed, enabled, url)
