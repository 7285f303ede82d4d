"""The bot's stored session: `credentials.json` in the state directory.

Written by the Matrix shell after the first login (user id, device id, access
token; mode 0600) and read at every later start instead of logging in again.
Read here too by `roombot run --check`, which must know whether `run` will need
the password, without touching the file.
"""

from __future__ import annotations

import json
from pathlib import Path

CREDENTIALS_FILE = "credentials.json"


def credentials_path(state_dir: Path) -> Path:
    return state_dir / CREDENTIALS_FILE


def read_credentials(path: Path) -> dict[str, str] | None:
    """The stored session as written, or None when there is none (missing or unreadable)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
