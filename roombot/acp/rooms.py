"""Which room a session's turns go to.

Decided here because the issue leaves it open: `--room` wins outright;
otherwise the proxy's config file (TOML) maps the session's working directory
(from session/new's `cwd`, longest matching prefix first), then the harness
name, then falls back to its top-level `room`:

    room = "!team:example.org"

    [cwd]
    "/home/me/src/web" = "!web:example.org"

    [harness]
    codex = "!codex:example.org"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath


class RoomConfigError(ValueError):
    """The room configuration is wrong; the message names the key."""


@dataclass(frozen=True)
class RoomRules:
    room: str | None = None
    by_cwd: tuple[tuple[str, str], ...] = ()  # (directory, room), longest first
    by_harness: Mapping[str, str] = field(default_factory=dict)

    def resolve(self, *, harness: str, cwd: str | None) -> str | None:
        if cwd is not None:
            path = PurePosixPath(cwd)
            for prefix, room in self.by_cwd:
                base = PurePosixPath(prefix)
                if path == base or base in path.parents:
                    return room
        return self.by_harness.get(harness, self.room)

    @property
    def empty(self) -> bool:
        return self.room is None and not self.by_cwd and not self.by_harness


def _room(value: object, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RoomConfigError(f"{key}: expected a room id or alias (a non-empty string)")
    return value


def rules_from_toml(doc: Mapping[str, object], *, room: str | None = None) -> RoomRules:
    """Build the rules from a parsed TOML document; `room` is the --room option."""
    known = {"room", "cwd", "harness"}
    for key in doc:
        if key not in known:
            raise RoomConfigError(f"{key}: unknown key (expected one of {sorted(known)})")
    default = _room(doc["room"], "room") if "room" in doc else None
    tables: dict[str, dict[str, str]] = {}
    for name in ("cwd", "harness"):
        table = doc.get(name, {})
        if not isinstance(table, Mapping):
            raise RoomConfigError(f"{name}: expected a table of name = room")
        tables[name] = {str(k): _room(v, f"{name}.{k}") for k, v in table.items()}
    by_cwd = tuple(sorted(tables["cwd"].items(), key=lambda kv: len(kv[0]), reverse=True))
    if room is not None:
        return RoomRules(room=_room(room, "--room"))
    return RoomRules(room=default, by_cwd=by_cwd, by_harness=tables["harness"])
