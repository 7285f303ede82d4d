"""The environment variables that hold roombot's secrets: one name for each.

The config's defaults, `roombot report` and the docs all take their names from
here. A name we retired is still read for one release, with a warning naming
its successor, so a deployment that set the old one keeps working while its
operator renames it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

# The bot account's password, read for its first login only.
PASSWORD = "ROOMBOT_PASSWORD"
# An existing access token for the bot account, instead of a password.
ACCESS_TOKEN = "ROOMBOT_ACCESS_TOKEN"
# A source's bearer token for the report API: what the config's [[api.sources]]
# token_env names and what every client of the API (`roombot report`, the
# reporters' tokenEnv) reads.
API_TOKEN = "ROOMBOT_API_TOKEN"

# Old name -> the name that replaced it. Each is read for one release (0.2) and
# dropped in the next.
RETIRED: Mapping[str, str] = {"ROOMBOT_TOKEN": API_TOKEN}


def read_secret(name: str, env: Mapping[str, str], warn: Callable[[str], None]) -> str | None:
    """The value of `name` (stripped), else of a retired name that `name` replaced
    (with one warning naming `name`), else None."""
    value = env.get(name, "").strip()
    if value:
        return value
    for old, new in RETIRED.items():
        if new == name and env.get(old, "").strip():
            warn(f"${old} is a retired name, still read for this release only: set ${name}")
            return env[old].strip()
    return None
