"""`roombot run --check`: everything `run` needs, looked at without side effects.

`check(path)` returns every problem as a Finding (the key, what is wrong and
what to do), not just the first: the file's shape (roombot.config; a shape
error stops there, as the rest is read from it), the secrets and TLS files it
names, the placeholders left from the example and the room references
(`names`), this machine (`local`: session or first-login credentials, state
directory, ports) and, unless offline, the PostgreSQL store (`store`) and the
homeserver (`network`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from roombot.check import local, names, network, store
from roombot.check.finding import Finding
from roombot.config import ConfigError, load_config

__all__ = ["Finding", "check"]


def check(path: str | Path, *, offline: bool = False) -> list[Finding]:
    problems: list[ConfigError] = []
    try:
        config = load_config(path, problems=problems)
    except ConfigError as e:
        return [*map(Finding.of, problems), Finding.of(e)]
    found = [Finding.of(e) for e in problems]
    found += names.placeholders_and_rooms(config)
    session = local.stored_session(config)
    found += local.findings(config, session)
    if not offline:
        found += store.findings(config)
    if not offline and not any(f.key == "matrix.homeserver" for f in found):
        found += asyncio.run(network.findings(config, session))
    return found
