"""The test suite's Synapse: re-exports `roombot.devserver` (the demo uses it at runtime too).

Use it directly (`with DevServer.temporary() as hs: hs.register_user("bot")`) or
through the fixtures in tests/conftest.py (`synapse`, `synapse_factory`).
"""

from __future__ import annotations

from roombot.devserver import DevServer, DevServerError, User, free_port, synapse_available

__all__ = ["DevServer", "DevServerError", "User", "free_port", "synapse_available"]
