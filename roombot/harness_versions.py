"""Which harness versions the lab tested, and which ones this node has installed.

TESTED is the table of versions the harness lab pins (lab/harnesses/npm/package.json and
its lock, `HERMES_PIN` in lab/install.sh) and ran its cases with; a test holds it equal to
those files, because an installed roombot has no lab/ to read. `found()` reads the version
of each installed harness from the package's own metadata, looking where the harness's
command is found: the first one on PATH (a symlink followed to its npm package, or to the
Python environment its script belongs to), else the places the usual installers put it
(npm's global prefixes, Hermes's installer and pipx). It runs nothing, so it is quick
and never starts a harness. docs/reporters.md, "Reviewed plans".
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["INSTALLS", "SYSTEM_PREFIXES", "TESTED", "Install", "found", "is_tested"]


@dataclass(frozen=True, slots=True)
class Install:
    harness: str  # the harness name in events (lab/setups.py)
    registry: str  # "npm" | "pypi"
    package: str  # the package whose version is the harness's
    command: str  # the command it installs, looked up on PATH


INSTALLS: tuple[Install, ...] = (
    Install("claude-code", "npm", "@zed-industries/claude-agent-acp", "claude-agent-acp"),
    Install("codex", "npm", "@zed-industries/codex-acp", "codex-acp"),
    Install("gemini-cli", "npm", "@google/gemini-cli", "gemini"),
    Install("opencode", "npm", "opencode-ai", "opencode"),
    # Pi's version is the coding agent's: it loads the extension (pi-acp only bridges ACP).
    Install("pi", "npm", "@earendil-works/pi-coding-agent", "pi"),
    Install("hermes", "pypi", "hermes-agent", "hermes"),
    Install("openclaw", "npm", "openclaw", "openclaw"),
)

TESTED: Mapping[str, frozenset[str]] = {
    "claude-code": frozenset({"0.23.1"}),
    "codex": frozenset({"0.16.0"}),
    "gemini-cli": frozenset({"0.61.0"}),
    "opencode": frozenset({"1.18.33"}),
    "pi": frozenset({"1.6.0"}),
    "hermes": frozenset({"0.19.0"}),
    "openclaw": frozenset({"2026.9.6"}),
}

# Where npm (`npm install -g`) and root installers put things when not under HOME.
SYSTEM_PREFIXES: tuple[Path, ...] = (Path("/usr/local"), Path("/usr"))
_PARENTS = 6  # a command's file sits at most this deep inside its npm package


def is_tested(harness: str, version: str | None) -> bool:
    return version is not None and version in TESTED.get(harness, frozenset())


def found(
    env: Mapping[str, str] = os.environ,
    home: Path | None = None,
    system: Sequence[Path] = SYSTEM_PREFIXES,
) -> dict[str, str | None]:
    """harness -> the version installed on this node (None: not found, or unreadable)."""
    home = home if home is not None else Path(env.get("HOME") or Path.home())
    path = [Path(p) for p in env.get("PATH", "").split(os.pathsep) if p]
    return {i.harness: _version(i, path, env, home, system) for i in INSTALLS}


def _version(
    install: Install, path: list[Path], env: Mapping[str, str], home: Path, system: Sequence[Path]
) -> str | None:
    command = _which(install.command, path)
    if install.registry == "npm":
        if command is not None:
            # The one on PATH is the one that runs: its version or none, never another's.
            return _npm_from_command(command, install)
        for prefix in _npm_prefixes(env, home, system):
            version = _npm_package(prefix / "lib" / "node_modules" / install.package, install)
            if version is not None:
                return version
        return None
    if command is not None:
        return _pypi_from_command(command, install.package)
    for prefix in _python_prefixes(env, home, system):
        version = _dist_version(prefix, install.package)
        if version is not None:
            return version
    return None


def _which(command: str, path: list[Path]) -> Path | None:
    for directory in path:
        candidate = directory / command
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


# --- npm -----------------------------------------------------------------------------------


def _npm_package(directory: Path, install: Install) -> str | None:
    try:
        meta = json.loads((directory / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("name") != install.package:
        return None
    version = meta.get("version")
    return version if isinstance(version, str) else None


def _npm_from_command(command: Path, install: Install) -> str | None:
    # npm links the command to a file inside the package (node_modules/.bin/x or
    # PREFIX/bin/x -> ../lib/node_modules/PKG/...): walk up from where the link points.
    real = command.resolve()
    for parent in list(real.parents)[:_PARENTS]:
        version = _npm_package(parent, install)
        if version is not None:
            return version
    # A wrapper script rather than a link: the package beside the bin directory.
    up = command.parent.parent
    for directory in (up / install.package, up / "lib" / "node_modules" / install.package):
        version = _npm_package(directory, install)
        if version is not None:
            return version
    return None


def _npm_prefixes(env: Mapping[str, str], home: Path, system: Sequence[Path]) -> Iterator[Path]:
    for name in ("NPM_CONFIG_PREFIX", "npm_config_prefix"):
        if env.get(name):
            yield Path(env[name]).expanduser()
    yield home / ".npm-global"
    yield home / ".local"
    nvm = home / ".nvm" / "versions" / "node"
    if nvm.is_dir():
        yield from sorted(nvm.iterdir(), reverse=True)
    yield from system


# --- Python (Hermes) -------------------------------------------------------------------------


def _dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _dist_version(prefix: Path, package: str) -> str | None:
    """The installed distribution's version in PREFIX's site-packages (a venv or ~/.local)."""
    want = _dist_name(package)
    lib = prefix / "lib"
    if not lib.is_dir():
        return None
    for site in sorted(lib.glob("python3*/*-packages"), reverse=True):
        for info in sorted(site.glob("*.dist-info")):
            if _dist_name(info.name.split("-", 1)[0]) != want:  # NAME-VERSION.dist-info
                continue
            version = _metadata_version(info / "METADATA", want)
            if version is not None:
                return version
    return None


def _metadata_version(path: Path, want: str) -> str | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            head = [next(f, "") for _ in range(20)]
    except OSError:
        return None
    fields = dict(line.rstrip("\n").split(": ", 1) for line in head if ": " in line)
    if _dist_name(fields.get("Name", "")) != want:
        return None
    return fields.get("Version") or None


def _pypi_from_command(command: Path, package: str) -> str | None:
    # A console script lives in its environment's bin/ (a venv, ~/.local, /usr/local);
    # pipx and Hermes's installer link it there from elsewhere: follow the link first.
    real = command.resolve()
    prefixes = [real.parent.parent, command.parent.parent]
    interpreter = _shebang(real)
    if interpreter is not None:
        prefixes.insert(0, interpreter.parent.parent)  # not resolved: a venv's python is a link
    for prefix in dict.fromkeys(prefixes):
        version = _dist_version(prefix, package)
        if version is not None:
            return version
    return None


def _shebang(script: Path) -> Path | None:
    try:
        with script.open("rb") as f:
            first = f.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    return Path(words[0]) if words and words[0].startswith("/") else None


def _python_prefixes(env: Mapping[str, str], home: Path, system: Sequence[Path]) -> Iterator[Path]:
    # Hermes's installer: ~/.hermes/hermes-agent (or $HERMES_INSTALL_DIR) with its venv inside;
    # as root /usr/local/lib/hermes-agent; pipx keeps one venv per package.
    roots = [Path(env["HERMES_INSTALL_DIR"])] if env.get("HERMES_INSTALL_DIR") else []
    roots.append(home / ".hermes" / "hermes-agent")
    roots.extend(p / "lib" / "hermes-agent" for p in system)
    for root in roots:
        yield root / "venv"
        yield root / ".venv"
    yield home / ".local" / "pipx" / "venvs" / "hermes-agent"
    yield home / ".local" / "share" / "pipx" / "venvs" / "hermes-agent"
    yield home / ".local"
    yield from system
