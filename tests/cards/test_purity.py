"""`cards` stands alone: a client can depend on it without the bot or any network code."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("roombot", "aiohttp", "nio", "sqlite3", "socket", "asyncio", "subprocess", "ssl")


def test_cards_imports_nothing_of_the_bot_and_no_io() -> None:
    code = (
        "import sys, json; before = set(sys.modules); import cards; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=True, timeout=60
    ).stdout
    loaded = json.loads(out)
    top = {name.split(".")[0] for name in loaded}
    assert "cards" in top
    assert not top & set(FORBIDDEN), sorted(top & set(FORBIDDEN))
