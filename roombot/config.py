"""The bot's configuration: one TOML file, validated whole at start.

Every error names the key (dotted, with list indexes: `rooms[1].mention[0]`)
and says what was expected. Unknown keys are errors too, so a typo never
silently falls back to a default. Secrets (password, access token, API token)
are never read from the TOML itself: each comes from an environment variable
(`*_env`) or a file (`*_file`); the TOML only names where. `config.example.toml`
documents every key.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from roombot import env_names
from roombot.api.settings import ApiSettings, parse_api_settings
from roombot.configerror import ConfigError as ConfigError  # raised by every section
from roombot.nodes import DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_OFFLINE_AFTER
from roombot.redact import RedactError, Redactor
from roombot.room import GROUP_FIELDS, Placement, RoomPolicy
from roombot.store.db import redact_url
from roombot.turns import TurnRules

TrustPolicy = Literal["ignore_unverified", "verified_only", "cross_signed"]
TRUST_POLICIES: tuple[TrustPolicy, ...] = ("ignore_unverified", "verified_only", "cross_signed")
LOG_FORMATS: tuple[str, ...] = ("json", "text")
LOG_LEVELS: tuple[str, ...] = ("debug", "info", "warning", "error")

_USER_ID = re.compile(r"^@[^:\s]+:[^\s]+$")
_ROOM_REF = re.compile(r"^[!#][^\s]+$")
_DEVICE = re.compile(r"^@[^:\s]+:\S+\s+\S+$")
_SERVER = re.compile(r"^[A-Za-z0-9.\-\[\]:]+$")
_ANY = re.compile(r"(?s).+")


@dataclass(frozen=True, slots=True)
class Secret:
    """Where a secret comes from, resolved only when it is needed."""

    key: str  # the config key, for error messages
    env: str | None = None
    file: Path | None = None

    def get(self) -> str | None:
        """The secret, or None when neither source is set. Raises ConfigError when unreadable."""
        if self.file is not None:
            try:
                return self.file.read_text().strip()
            except OSError as e:
                raise ConfigError(f"{self.key}_file", f"cannot read {self.file}: {e}") from e
        if self.env is not None:
            return os.environ.get(self.env) or None
        return None

    def describe(self) -> str:
        if self.file is not None:
            return f"file {self.file}"
        if self.env is not None:
            return f"environment variable {self.env}"
        return "nowhere"


@dataclass(frozen=True, slots=True)
class MatrixConfig:
    homeserver: str
    user_id: str
    password: Secret
    access_token: Secret
    device_name: str = "roombot"
    trust: TrustPolicy = "cross_signed"
    # Devices that get keys under "verified_only" (the only ones) and "cross_signed" (also
    # when not cross-signed), as (user id, device id).
    trusted_devices: tuple[tuple[str, str], ...] = ()
    request_timeout: float = 30.0
    sync_timeout_ms: int = 30000


@dataclass(frozen=True, slots=True)
class RoomConfig:
    room: str  # a room id (!...) or an alias (#...)
    loud: bool = False
    mention: tuple[str, ...] = ()
    # The power level a member needs to run `!roombot ...` here (50: a moderator).
    command_power: int = 50
    # Where cards go and how the timeline shows them (roombot.room, docs/room.md).
    view: RoomPolicy = field(default_factory=RoomPolicy)


@dataclass(frozen=True, slots=True)
class InviteConfig:
    users: tuple[str, ...] = ()
    servers: tuple[str, ...] = ()

    def allows(self, user_id: str) -> bool:
        server = user_id.partition(":")[2]
        return user_id in self.users or server in self.servers


@dataclass(frozen=True, slots=True)
class OutboxConfig:
    path: Path
    backoff_initial: float = 1.0
    backoff_max: float = 60.0
    poll_interval: float = 1.0
    keep_days: float = 7.0  # sent notices are remembered this long (must outlive the journal)


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """[store]: PostgreSQL instead of the SQLite files (docs/scaling.md)."""

    url: str  # postgresql://user@host:port/db, without its password
    password: Secret
    # How long a delivering process's lease outlives its last renewal (roombot.store.lease).
    failover_after: float = 15.0

    def dsn(self) -> str:
        """The URL to connect with: the password, when one is set, as a query parameter."""
        secret = self.password.get()
        if not secret:
            return self.url
        sep = "&" if "?" in self.url else "?"
        return f"{self.url}{sep}password={quote(secret, safe='')}"


@dataclass(frozen=True, slots=True)
class Listen:
    host: str = "127.0.0.1"
    port: int = 0  # 0: disabled


@dataclass(frozen=True, slots=True)
class LogConfig:
    level: str = "info"
    format: str = "json"


@dataclass(frozen=True, slots=True)
class RedactConfig:
    """[redact]: credentials out of provider text before it is kept (roombot.redact)."""

    enabled: bool = True
    patterns: tuple[str, ...] = ()  # extra shapes: regexes, (?P<secret>...) the part hidden
    allow: tuple[str, ...] = ()  # values never hidden (a regex each, matched whole)

    def build(self) -> Redactor:
        return Redactor(enabled=self.enabled, patterns=self.patterns, allow=self.allow)


@dataclass(frozen=True, slots=True)
class NodesConfig:
    """[nodes]: node agents' heartbeats (docs/nodes.md)."""

    heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL  # told to agents without --interval
    offline_after: float = DEFAULT_OFFLINE_AFTER  # silence after which a node is offline


@dataclass(frozen=True, slots=True)
class Config:
    state_dir: Path
    matrix: MatrixConfig
    rooms: tuple[RoomConfig, ...]
    invites: InviteConfig
    outbox: OutboxConfig
    metrics: Listen
    api: ApiSettings  # validated by roombot.api.settings (the report API's own section)
    log: LogConfig
    redact: RedactConfig = field(default_factory=RedactConfig)
    turns: TurnRules = field(default_factory=TurnRules)
    # reporter name -> how to enable it (named in a card's note by the turn rules)
    reporters: Mapping[str, str] = field(default_factory=dict)
    nodes: NodesConfig = field(default_factory=NodesConfig)
    store: StoreConfig | None = None  # None: the SQLite files (outbox.path, api.journal)

    @property
    def outbox_at(self) -> str | Path:
        """Where the outbox and the silences live: their SQLite file, or PostgreSQL."""
        return self.store.dsn() if self.store is not None else self.outbox.path

    @property
    def journal_at(self) -> str | Path:
        """Where the report API's journal lives: its SQLite file, or PostgreSQL."""
        return self.store.dsn() if self.store is not None else self.api.journal

    def room(self, ref: str) -> RoomConfig | None:
        return next((r for r in self.rooms if r.room == ref), None)


_GROUP_FIELD = re.compile("^(" + "|".join(GROUP_FIELDS) + ")$")


def _room_view(t: _Table) -> RoomPolicy:
    d = RoomPolicy()
    group_by = (
        d.group_by
        if t.raw("group_by") is None
        else t.strings("group_by", _GROUP_FIELD, f"one of {', '.join(GROUP_FIELDS)}")
    )
    if len(set(group_by)) != len(group_by):
        raise ConfigError(t.key("group_by"), "expected each field at most once")
    return RoomPolicy(
        placement=Placement(t.choice("placement", d.placement, tuple(Placement))),
        reactions=t.flag("reactions", d.reactions),
        group_by=group_by,
        group_window=t.number("group_window", d.group_window),
        group_interval=t.number("group_interval", d.group_interval),
        group_thread_max=t.integer("group_thread_max", d.group_thread_max, maximum=10_000),
    )


class _Table:
    """A TOML table being read: typed getters that name the key, and a check for leftovers."""

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, dict):
            raise ConfigError(path or "(top level)", f"expected a table, got {_kind(data)}")
        self.data: dict[str, Any] = data
        self.path = path
        self.seen: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def raw(self, name: str) -> Any:
        self.seen.add(name)
        return self.data.get(name)

    def text(self, name: str, default: str | None = None, *, required: bool = False) -> str | None:
        value = self.raw(name)
        if value is None:
            if required:
                raise ConfigError(self.key(name), "is required (a string)")
            return default
        if not isinstance(value, str) or not value:
            raise ConfigError(self.key(name), f"expected a non-empty string, got {_kind(value)}")
        return value

    def req(self, name: str) -> str:
        value = self.text(name, required=True)
        assert value is not None
        return value

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.text(name, default)
        if value not in choices:
            raise ConfigError(
                self.key(name), f"expected one of {', '.join(choices)}; got {value!r}"
            )
        return value

    def flag(self, name: str, default: bool) -> bool:
        value = self.raw(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ConfigError(self.key(name), f"expected true or false, got {_kind(value)}")
        return value

    def number(self, name: str, default: float, *, minimum: float = 0.0) -> float:
        value = self.raw(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(self.key(name), f"expected a number, got {_kind(value)}")
        if value < minimum:
            raise ConfigError(self.key(name), f"expected a number >= {minimum}, got {value}")
        return float(value)

    def integer(self, name: str, default: int, *, minimum: int = 0, maximum: int = 2**31) -> int:
        value = self.raw(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(self.key(name), f"expected an integer, got {_kind(value)}")
        if not minimum <= value <= maximum:
            raise ConfigError(
                self.key(name), f"expected an integer from {minimum} to {maximum}, got {value}"
            )
        return value

    def strings(self, name: str, pattern: re.Pattern[str], what: str) -> tuple[str, ...]:
        value = self.raw(name)
        if value is None:
            return ()
        if not isinstance(value, list):
            raise ConfigError(self.key(name), f"expected a list of {what}, got {_kind(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str) or not pattern.match(item):
                raise ConfigError(f"{self.key(name)}[{i}]", f"expected {what}, got {item!r}")
        return tuple(value)

    def table(self, name: str) -> _Table:
        value = self.raw(name)
        return _Table({} if value is None else value, self.key(name))

    def path_(self, name: str, base: Path, default: Path) -> Path:
        value = self.text(name)
        if value is None:
            return default
        p = Path(value).expanduser()
        return p if p.is_absolute() else base / p

    def secret(self, name: str, base: Path, default_env: str | None) -> Secret:
        if name in self.data:
            self.seen.add(name)
            raise ConfigError(
                self.key(name),
                f"secrets are not read from the TOML; set {self.key(name)}_env "
                f"(an environment variable name) or {self.key(name)}_file (a file path)",
            )
        env = self.text(f"{name}_env")
        file = self.text(f"{name}_file")
        if env is not None and file is not None:
            raise ConfigError(
                self.key(f"{name}_file"), f"set only one of {name}_env and {name}_file"
            )
        path = None
        if file is not None:
            path = Path(file).expanduser()
            path = path if path.is_absolute() else base / path
        return Secret(self.key(name), env if env or path else default_env, path)

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.seen)
        if unknown:
            known = ", ".join(sorted(self.seen))
            raise ConfigError(self.key(unknown[0]), f"unknown key (known here: {known})")


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"a string ({value!r})" if value else "an empty string"
    return f"{type(value).__name__} ({value!r})"


def _turn_rules(t: _Table) -> TurnRules:
    """The [turns] table: each key a field of TurnRules, with the type of its default."""
    defaults = TurnRules()
    values: dict[str, Any] = {}
    for f in dataclasses.fields(TurnRules):
        default = getattr(defaults, f.name)
        if isinstance(default, bool):
            values[f.name] = t.flag(f.name, default)
        elif isinstance(default, int):
            values[f.name] = t.integer(f.name, default, minimum=1)
        else:
            values[f.name] = t.number(f.name, float(default))
    t.finish()
    try:
        return TurnRules(**values)
    except ValueError as e:
        name = str(e).partition(":")[0]
        raise ConfigError(t.key(name), str(e).partition(":")[2].strip()) from e


_PG_URL = re.compile(r"^postgres(?:ql)?://[^\s]*$")


def _store(t: _Table, base: Path, outbox: _Table, api: object) -> StoreConfig | None:
    url = t.text("url")
    password = t.secret("password", base, None)
    failover_after = t.number("failover_after", 15.0, minimum=3.0)
    t.finish()
    if url is None:
        if password.env is not None or password.file is not None:
            raise ConfigError(t.key("url"), "a store password is set but no store.url")
        return None
    if not _PG_URL.match(url):
        raise ConfigError(t.key("url"), f"expected a postgresql:// URL, got {redact_url(url)!r}")
    if re.match(r"^[a-z]+://[^/@?#]*:[^/@?#]*@", url) or re.search(r"[?&]password=", url):
        raise ConfigError(
            t.key("url"),
            "the URL holds a password; set store.password_env (an environment variable "
            "name) or store.password_file (a file path) instead",
        )
    # One store for everything: a path set beside it would be silently unused.
    if outbox.raw("path") is not None:
        raise ConfigError("outbox.path", "is unused when store.url is set: remove one of them")
    if isinstance(api, Mapping) and api.get("journal") is not None:
        raise ConfigError("api.journal", "is unused when store.url is set: remove one of them")
    return StoreConfig(url=url, password=password, failover_after=failover_after)


def load_config(path: str | Path, *, problems: list[ConfigError] | None = None) -> Config:
    """Read and validate the TOML file at `path`; raises ConfigError naming the key.

    `problems`: see parse_api_settings (what `roombot run --check` collects).
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError("(file)", f"cannot read {path}: {e}") from e
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("(syntax)", f"{path} is not valid TOML: {e}") from e
    return parse_config(data, base=path.parent.resolve(), problems=problems)


def parse_config(
    data: Mapping[str, Any], *, base: Path, problems: list[ConfigError] | None = None
) -> Config:
    """Validate an already-parsed TOML document; relative paths are taken from `base`."""
    top = _Table(dict(data), "")
    state_dir = top.path_("state_dir", base, base / "roombot-state")

    m = top.table("matrix")
    homeserver = m.req("homeserver")
    if not re.match(r"^https?://[^\s/]+", homeserver):
        raise ConfigError(m.key("homeserver"), f"expected an http(s) URL, got {homeserver!r}")
    user_id = m.req("user_id")
    if not _USER_ID.match(user_id):
        raise ConfigError(
            m.key("user_id"), f"expected a user id like @bot:example.org, got {user_id!r}"
        )
    trust = m.choice("trust", "cross_signed", TRUST_POLICIES)
    trusted = m.strings("trusted_devices", _DEVICE, "'@user:server DEVICEID'")
    matrix = MatrixConfig(
        homeserver=homeserver.rstrip("/"),
        user_id=user_id,
        password=m.secret("password", base, env_names.PASSWORD),
        access_token=m.secret("access_token", base, None),
        device_name=m.text("device_name", "roombot") or "roombot",
        trust=next(p for p in TRUST_POLICIES if p == trust),
        trusted_devices=tuple((d.split()[0], d.split()[1]) for d in trusted),
        request_timeout=m.number("request_timeout", 30.0, minimum=1.0),
        sync_timeout_ms=m.integer("sync_timeout_ms", 30000, minimum=0, maximum=600000),
    )
    m.finish()

    rooms_raw = top.raw("rooms")
    rooms: list[RoomConfig] = []
    if rooms_raw is not None and not isinstance(rooms_raw, list):
        raise ConfigError("rooms", "expected an array of tables ([[rooms]])")
    for i, item in enumerate(rooms_raw or []):
        t = _Table(item, f"rooms[{i}]")
        ref = t.req("room")
        if not _ROOM_REF.match(ref):
            raise ConfigError(
                t.key("room"), f"expected a room id (!...) or alias (#...), got {ref!r}"
            )
        if any(r.room == ref for r in rooms):
            raise ConfigError(t.key("room"), f"{ref} is listed twice")
        rooms.append(
            RoomConfig(
                room=ref,
                loud=t.flag("loud", False),
                mention=t.strings("mention", _USER_ID, "a user id like @alice:example.org"),
                command_power=t.integer("command_power", 50, minimum=0, maximum=2**53),
                view=_room_view(t),
            )
        )
        t.finish()

    inv = top.table("invites")
    invites = InviteConfig(
        users=inv.strings("users", _USER_ID, "a user id like @alice:example.org"),
        servers=inv.strings("servers", _SERVER, "a server name like example.org"),
    )
    inv.finish()

    o = top.table("outbox")
    backoff_initial = o.number("backoff_initial", 1.0, minimum=0.01)
    outbox = OutboxConfig(
        path=o.path_("path", base, state_dir / "outbox.sqlite3"),
        backoff_initial=backoff_initial,
        backoff_max=o.number("backoff_max", 60.0, minimum=backoff_initial),
        poll_interval=o.number("poll_interval", 1.0, minimum=0.01),
        keep_days=o.number("keep_days", 7.0, minimum=0.0),
    )
    o.finish()

    mt = top.table("metrics")
    metrics = Listen(
        mt.text("host", "127.0.0.1") or "127.0.0.1", mt.integer("port", 0, maximum=65535)
    )
    mt.finish()

    api_raw = top.raw("api")
    api = parse_api_settings(
        {} if api_raw is None else api_raw, base=base, state_dir=state_dir, problems=problems
    )

    lg = top.table("log")
    log = LogConfig(
        level=lg.choice("level", "info", LOG_LEVELS),
        format=lg.choice("format", "json", LOG_FORMATS),
    )
    lg.finish()

    rd = top.table("redact")
    redact = RedactConfig(
        enabled=rd.flag("enabled", True),
        patterns=rd.strings("patterns", _ANY, "a regular expression (a string)"),
        allow=rd.strings("allow", _ANY, "a regular expression (a string)"),
    )
    rd.finish()
    try:
        redact.build()
    except RedactError as e:
        raise ConfigError(e.key, e.problem) from e

    nd = top.table("nodes")
    nodes = NodesConfig(
        heartbeat_interval=nd.number("heartbeat_interval", DEFAULT_HEARTBEAT_INTERVAL, minimum=0.1),
        offline_after=nd.number("offline_after", DEFAULT_OFFLINE_AFTER, minimum=0.5),
    )
    if nodes.offline_after <= nodes.heartbeat_interval:
        raise ConfigError(
            nd.key("offline_after"),
            f"must be longer than nodes.heartbeat_interval ({nodes.heartbeat_interval:g} s), "
            "or every node is taken for offline between two heartbeats",
        )
    nd.finish()

    store = _store(top.table("store"), base, o, api_raw)

    turns = _turn_rules(top.table("turns"))
    reporters = top.raw("reporters") or {}
    if not isinstance(reporters, dict):
        raise ConfigError("reporters", f"expected a table, got {_kind(reporters)}")
    for name, value in reporters.items():
        if not isinstance(value, str):
            raise ConfigError(f"reporters.{name}", f"expected a string, got {_kind(value)}")
    top.finish()

    if outbox.keep_days * 86400 <= turns.dedup_horizon:
        raise ConfigError(
            "outbox.keep_days",
            f"must be longer than turns.dedup_horizon ({turns.dedup_horizon:g} s): a decision "
            "replayed from the journal must still find its sent notice, or it is sent again",
        )
    return Config(
        state_dir=state_dir,
        matrix=matrix,
        rooms=tuple(rooms),
        invites=invites,
        outbox=outbox,
        metrics=metrics,
        api=api,
        log=log,
        redact=redact,
        turns=turns,
        reporters=dict(reporters),
        nodes=nodes,
        store=store,
    )
