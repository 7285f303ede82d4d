"""What the observer is told at start; light to import, so the relay starts fast.

The relay's process never imports the observer (nor pydantic, nor the report client):
it hands these settings over as JSON to the observer process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roombot.acp.rooms import RoomRules


@dataclass(frozen=True)
class ObserverSettings:
    rules: RoomRules
    command_name: str  # basename of the harness command: the harness name of last resort
    harness: str | None = None
    provider: str | None = None
    model: str | None = None
    node: str | None = None  # the machine's name (roombot.node_name), for node.offline
    run: str = "run"  # this proxy run's id, for turns on sessions it did not create
    flush_bytes: int = 16 * 1024
    flush_seconds: float = 1.0
    # Answer text reported per turn, in characters: enough to see an error
    # posing as the answer (an answer longer than that is an answer), and
    # small enough that every event fits the report API's body limit.
    max_text: int = 64 * 1024


def to_json(
    settings: ObserverSettings, sink: dict[str, Any], drain_seconds: float
) -> dict[str, Any]:
    rules = settings.rules
    return {
        "settings": {
            "command_name": settings.command_name,
            "harness": settings.harness,
            "provider": settings.provider,
            "model": settings.model,
            "run": settings.run,
            "node": settings.node,
        },
        "rules": {
            "room": rules.room,
            "by_cwd": [list(p) for p in rules.by_cwd],
            "by_harness": dict(rules.by_harness),
        },
        "sink": sink,
        "drain_seconds": drain_seconds,
    }


def from_json(config: dict[str, Any]) -> ObserverSettings:
    r = config["rules"]
    rules = RoomRules(
        room=r["room"],
        by_cwd=tuple((a, b) for a, b in r["by_cwd"]),
        by_harness=r["by_harness"],
    )
    return ObserverSettings(rules=rules, **config["settings"])
