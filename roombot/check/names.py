"""The names a configuration holds: placeholders left from the example, room references.

config.example.toml is written with documentation names (RFC 2606 reserves
example.org, .com, .net and the .example domain) and one made-up room id. A
file that still holds one was copied and not filled in; `roombot run` would
only find out later (a login to nowhere, a join that logs a warning). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from roombot.check.finding import Finding
from roombot.config import Config

# The example's room id, which names no room (room ids are the server's to mint).
EXAMPLE_ROOM_IDS = frozenset({"!AbCdEfGhIjKlMnOpQr"})
RESERVED_DOMAINS = ("example.org", "example.com", "example.net", "example")

_ALIAS = re.compile(r"^#[^:\s]+:(?P<server>\S+)$")
_ROOM_ID = re.compile(r"^![^:\s]+(:(?P<server>\S+))?$")  # no server part since room v12
_SERVER = re.compile(r"^([A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$")


def host_of(server: str) -> str:
    """`matrix.org:8448` -> `matrix.org`; `[::1]:8448` -> `[::1]`."""
    if server.startswith("["):
        return server[: server.find("]") + 1]
    return server.partition(":")[0]


def reserved(server: str) -> bool:
    """A server name under a domain reserved for documentation."""
    host = host_of(server).lower().rstrip(".")
    return any(host == d or host.endswith("." + d) for d in RESERVED_DOMAINS)


def _server(ref: str) -> str:
    return ref.partition(":")[2]


def _room(key: str, ref: str) -> Iterator[Finding]:
    if ref in EXAMPLE_ROOM_IDS:
        yield Finding(
            key,
            f"{ref} is the example's placeholder room id; put your room's id "
            "(the client's room settings show it) or its alias (#name:your.server)",
        )
        return
    match = (_ALIAS if ref.startswith("#") else _ROOM_ID).match(ref)
    if match is None or (match["server"] is not None and not _SERVER.match(match["server"])):
        shape = "#name:server" if ref.startswith("#") else "!opaque or !opaque:server"
        yield Finding(key, f"{ref!r} is not a well-formed room reference ({shape}); fix it")
    elif match["server"] is not None and reserved(match["server"]):
        yield Finding(
            key,
            f"{ref} is the example's placeholder ({host_of(match['server'])} is reserved for "
            "documentation); put your room's id or alias",
        )


def _user(key: str, user_id: str, what: str) -> Iterator[Finding]:
    if reserved(_server(user_id)):
        yield Finding(
            key,
            f"{user_id} is the example's placeholder ({host_of(_server(user_id))} is reserved "
            f"for documentation); {what}",
        )


def placeholders_and_rooms(config: Config) -> list[Finding]:
    """Every name left from the example, and every room reference `run` could not join."""
    found: list[Finding] = []
    m = config.matrix
    host = urlsplit(m.homeserver).hostname or ""
    if reserved(host):
        found.append(
            Finding(
                "matrix.homeserver",
                f"{m.homeserver} is the example's placeholder ({host} is reserved for "
                "documentation); put your homeserver's client API URL (the one your Matrix "
                "client signs in to)",
            )
        )
    found += _user("matrix.user_id", m.user_id, "put the bot account's full user id")
    for i, (user, _) in enumerate(m.trusted_devices):
        found += _user(f"matrix.trusted_devices[{i}]", user, "list a real device or none")
    for i, room in enumerate(config.rooms):
        found += _room(f"rooms[{i}].room", room.room)
        for j, user in enumerate(room.mention):
            found += _user(f"rooms[{i}].mention[{j}]", user, "put a real user id or remove it")
    for i, user in enumerate(config.invites.users):
        found += _user(f"invites.users[{i}]", user, "put a real user id or remove it")
    for i, server in enumerate(config.invites.servers):
        if reserved(server):
            found.append(
                Finding(
                    f"invites.servers[{i}]",
                    f"{server} is the example's placeholder (reserved for documentation); "
                    "put a real server name or remove it",
                )
            )
    return found
