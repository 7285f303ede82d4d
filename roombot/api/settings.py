"""The `[api]` section of the bot's configuration: where the report API listens and who may post.

With `tls_cert_file` and `tls_key_file` (both or neither) the API serves HTTPS only;
the pair is loaded here once, so a bad file stops the start with the key that names it.

Each source is named and has its own bearer token, read from an environment variable
(`token_env`) or a file (`token_file`), never from the TOML itself. Each is allowed a set
of rooms (`["*"]` for every room) and a rate (a token bucket: `rate` events per second
sustained, `burst` at once). Errors name the dotted key, like the rest of the config.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roombot.api.tls import TlsError, server_context
from roombot.configerror import ConfigError

ALL_ROOMS = "*"
DEFAULT_MAX_BODY = 1024 * 1024
DEFAULT_RATE = 50.0
DEFAULT_BURST = 500.0
# A room id (!opaque, with ":server" before room version 12) or an alias (#name:server).
_ROOM = re.compile(r"^[!#][^\s]+$")
_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
# A token shorter than this is a typo or a placeholder, not a secret.
MIN_TOKEN_LENGTH = 16


@dataclass(frozen=True, slots=True)
class SourceSettings:
    """One named source: its token (already read), its rooms and its rate."""

    name: str
    token: str
    rooms: frozenset[str]
    rate: float = DEFAULT_RATE
    burst: float = DEFAULT_BURST

    def __repr__(self) -> str:  # never print the token
        return f"SourceSettings(name={self.name!r}, rooms={sorted(self.rooms)!r})"

    def allows(self, room: str) -> bool:
        return ALL_ROOMS in self.rooms or room in self.rooms

    @property
    def all_rooms(self) -> bool:
        return ALL_ROOMS in self.rooms


@dataclass(frozen=True, slots=True)
class ApiSettings:
    host: str = "127.0.0.1"
    port: int = 0  # 0: the API is off
    journal: Path = Path("journal.sqlite3")
    max_body: int = DEFAULT_MAX_BODY
    sources: tuple[SourceSettings, ...] = ()
    tls_cert_file: Path | None = None  # with tls_key_file: HTTPS only
    tls_key_file: Path | None = None

    @property
    def scheme(self) -> str:
        return "https" if self.tls_cert_file is not None else "http"


def _kind(value: object) -> str:
    return type(value).__name__


def _text(t: Mapping[str, Any], key: str, where: str) -> str | None:
    value = t.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}.{key}", f"expected a non-empty string, got {_kind(value)}")
    return value


def _number(t: Mapping[str, Any], key: str, where: str, default: float, minimum: float) -> float:
    value = t.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}.{key}", f"expected a number, got {_kind(value)}")
    if value < minimum:
        raise ConfigError(f"{where}.{key}", f"expected a number >= {minimum}, got {value}")
    return float(value)


def _check_keys(t: Mapping[str, Any], where: str, known: set[str]) -> None:
    unknown = sorted(set(t) - known)
    if unknown:
        raise ConfigError(
            f"{where}.{unknown[0]}", f"unknown key (known here: {', '.join(sorted(known))})"
        )


def _read_token(t: Mapping[str, Any], where: str, base: Path) -> str:
    if "token" in t:
        raise ConfigError(
            f"{where}.token",
            f"tokens are not read from the TOML; set {where}.token_env (an environment "
            f"variable name) or {where}.token_file (a file path)",
        )
    env, file = _text(t, "token_env", where), _text(t, "token_file", where)
    if (env is None) == (file is None):
        raise ConfigError(f"{where}.token_env", "set exactly one of token_env and token_file")
    if file is not None:
        path = Path(file).expanduser()
        path = path if path.is_absolute() else base / path
        try:
            token = path.read_text().strip()
        except OSError as e:
            raise ConfigError(f"{where}.token_file", f"cannot read {path}: {e}") from e
        origin = f"file {path}"
    else:
        assert env is not None
        token = os.environ.get(env, "").strip()
        origin = f"environment variable {env}"
    if len(token) < MIN_TOKEN_LENGTH:
        raise ConfigError(
            f"{where}.token_{'file' if file else 'env'}",
            f"{origin} must hold a token of at least {MIN_TOKEN_LENGTH} characters "
            f"(got {len(token)})",
        )
    return token


def parse_api_settings(
    data: object, *, base: Path, state_dir: Path, problems: list[ConfigError] | None = None
) -> ApiSettings:
    """Validate the `[api]` table; relative paths are taken from `base`.

    With `problems`, what the environment and the files hold (each token, the TLS
    pair) is appended there instead of raised, and the rest is still read: so
    `roombot run --check` reports every one of them, not the first.
    """
    if not isinstance(data, Mapping):
        raise ConfigError("api", f"expected a table, got {_kind(data)}")
    _check_keys(
        data,
        "api",
        {"host", "port", "journal", "max_body", "sources", "tls_cert_file", "tls_key_file"},
    )
    host = _text(data, "host", "api") or "127.0.0.1"
    port = data.get("port", 0)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError("api.port", f"expected an integer from 0 to 65535, got {port!r}")
    journal_text = _text(data, "journal", "api")
    journal = state_dir / "journal.sqlite3"
    if journal_text is not None:
        p = Path(journal_text).expanduser()
        journal = p if p.is_absolute() else base / p
    max_body = data.get("max_body", DEFAULT_MAX_BODY)
    if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body < 1024:
        raise ConfigError("api.max_body", f"expected an integer >= 1024 (bytes), got {max_body!r}")

    try:
        cert, key = _tls_files(data, base)
    except ConfigError as e:
        if problems is None:
            raise
        problems.append(e)
        cert = key = None

    raw_sources = data.get("sources", [])
    if not isinstance(raw_sources, list):
        raise ConfigError("api.sources", "expected an array of tables ([[api.sources]])")
    sources: list[SourceSettings] = []
    for i, item in enumerate(raw_sources):
        where = f"api.sources[{i}]"
        if not isinstance(item, Mapping):
            raise ConfigError(where, f"expected a table, got {_kind(item)}")
        _check_keys(item, where, {"name", "token_env", "token_file", "rooms", "rate", "burst"})
        name = _text(item, "name", where)
        if name is None or not _NAME.match(name):
            raise ConfigError(
                f"{where}.name", f"expected a name of letters, digits, '_.-' (1-64), got {name!r}"
            )
        if any(s.name == name for s in sources):
            raise ConfigError(f"{where}.name", f"source {name!r} is listed twice")
        rooms = item.get("rooms")
        if not isinstance(rooms, list) or not rooms:
            raise ConfigError(
                f"{where}.rooms", 'expected a non-empty list of room ids (or ["*"] for all rooms)'
            )
        for j, room in enumerate(rooms):
            if not isinstance(room, str) or not (room == ALL_ROOMS or _ROOM.match(room)):
                raise ConfigError(
                    f"{where}.rooms[{j}]",
                    f'expected a room id like !abc:example.org or "*", got {room!r}',
                )
        try:
            token = _read_token(item, where, base)
        except ConfigError as e:
            if problems is None:
                raise
            problems.append(e)
            token = ""  # reported above; never served (the check does not start the API)
        if token and any(s.token == token for s in sources):
            raise ConfigError(f"{where}.token_env", "two sources share one token")
        sources.append(
            SourceSettings(
                name=name,
                token=token,
                rooms=frozenset(rooms),
                rate=_number(item, "rate", where, DEFAULT_RATE, 0.001),
                burst=_number(item, "burst", where, DEFAULT_BURST, 1.0),
            )
        )
    return ApiSettings(
        host=host,
        port=port,
        journal=journal,
        max_body=max_body,
        sources=tuple(sources),
        tls_cert_file=cert,
        tls_key_file=key,
    )


def _tls_files(data: Mapping[str, Any], base: Path) -> tuple[Path | None, Path | None]:
    cert_text, key_text = _text(data, "tls_cert_file", "api"), _text(data, "tls_key_file", "api")
    if (cert_text is None) != (key_text is None):
        given, missing = ("tls_cert_file", "tls_key_file")[:: 1 if cert_text else -1]
        raise ConfigError(f"api.{missing}", f"api.{given} is set: set both or neither")
    if cert_text is None or key_text is None:
        return None, None
    cert, key = (Path(t).expanduser() for t in (cert_text, key_text))
    cert, key = (p if p.is_absolute() else base / p for p in (cert, key))
    try:
        server_context(cert, key)
    except TlsError as e:
        raise ConfigError(f"api.tls_{e.part}_file", str(e)) from None
    return cert, key
