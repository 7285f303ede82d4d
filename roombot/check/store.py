"""The PostgreSQL store as `run --check` sees it: its password is readable, the server
answers, and the role may create the schema `run` applies at start (or it is there)."""

from __future__ import annotations

from roombot.check.finding import Finding
from roombot.check.local import read_secret
from roombot.config import Config


def findings(config: Config) -> list[Finding]:
    store = config.store
    if store is None:
        return []
    found: list[Finding] = []
    read_secret(store.password, found)
    if found:
        return found
    from roombot.store.db import PostgresDatabase, StoreUnavailable
    from roombot.store.migrations import pending

    try:
        db = PostgresDatabase(store.dsn(), connect_timeout=5)
    except StoreUnavailable as e:  # refused, unknown host, bad password
        return [Finding("store.url", f"{e}; check the URL and the password")]
    try:
        missing = pending(db)
        if missing:
            may = db.execute(
                "SELECT has_database_privilege(current_user, current_database(), 'CREATE')"
            ).fetchone()[0]
            if not may:
                found.append(
                    Finding(
                        "store.url",
                        f"the schema lacks {len(missing)} migrations and this role may not "
                        "create tables: run `roombot store migrate` as the database's owner",
                    )
                )
    finally:
        db.close()
    return found
