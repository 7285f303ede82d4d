"""Which nodes are alive: a pure tracker of heartbeats (no I/O, the clock passed in).

A node agent (`roombot node run`) sends a heartbeat every `interval` seconds; the
tracker keeps, for each node, the last one and when it came. `tick(now)` returns one
`NodeOffline` event for each node silent for `offline_after` seconds, once per
outage; the pipeline journals those events like any other, and the turn rules give
every open turn of that node a node_offline card. The next heartbeat of a node that
was offline makes it online again (its turns that then end well have their cards
edited as recovered by the turn rules, within their retract window).

Decisions (docs/nodes.md repeats them):
- Restart rule. The tracker is rebuilt from the stored `NodeState`s with
  `started_at`, the bot's start: a node's silence is counted from its last heartbeat
  or from `started_at`, whichever is later, because heartbeats sent while the bot was
  down could not arrive. A node that died while the bot was down therefore becomes
  offline `offline_after` after the start, and a live one heartbeats before that.
- Once per outage. A node stored as offline stays offline, silently, until it
  heartbeats again; its `NodeOffline` carries an `event_id` made of the node and the
  time of its last heartbeat, so the journal answers a second one as a duplicate.
- A node name is held by the source whose token sent its heartbeats while the node
  is online: a heartbeat for it from another source is refused (`NodeClaimed`), so
  no source can keep another's node alive or speak for it. Once the node is offline
  another source may take the name over.
- Rooms. A heartbeat carries the rooms its source may post to (None: every room);
  the node's `NodeOffline` names them, so a source allowed some rooms can end only
  the turns in its own rooms, as a posted node.offline needs every room.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from roombot.events import NodeOffline

__all__ = [
    "DEFAULT_HEARTBEAT_INTERVAL",
    "DEFAULT_OFFLINE_AFTER",
    "NodeClaimed",
    "NodeInfo",
    "NodeState",
    "NodeTracker",
    "info_from_json",
    "info_to_json",
    "offline_event_id",
]

DEFAULT_HEARTBEAT_INTERVAL = 10.0
DEFAULT_OFFLINE_AFTER = 45.0


class NodeClaimed(Exception):
    """A heartbeat for a node that another source holds; str(e) says which."""

    def __init__(self, node: str, holder: str, source: str) -> None:
        super().__init__(
            f"node {node!r} is online under source {holder!r}; source {source!r} may not "
            "send its heartbeats (use another node name, or stop the other agent first)"
        )
        self.node = node
        self.holder = holder


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """What a heartbeat says about its node (validated at the API's edge)."""

    interval: float  # seconds between the agent's heartbeats
    harnesses: Mapping[str, str | None] = field(default_factory=dict)  # name -> version found
    reporters: Mapping[str, bool] = field(default_factory=dict)  # name -> enabled
    plugin_management: bool = False
    version: str | None = None  # the agent's roombot version


@dataclass(frozen=True, slots=True)
class NodeState:
    node: str
    source: str  # the source whose token sent the heartbeats
    info: NodeInfo
    rooms: frozenset[str] | None  # the source's rooms; None: every room
    last_seen: float  # the bot's clock at the last heartbeat
    online: bool
    since: float  # when it last became online or offline
    # Silence is counted from here: last_seen, or the bot's start when later.
    watch_from: float

    def deadline(self, offline_after: float) -> float | None:
        """When the node is taken for offline, unless a heartbeat comes first."""
        return self.watch_from + offline_after if self.online else None


def info_to_json(info: NodeInfo) -> dict[str, Any]:
    return {
        "interval": info.interval,
        "harnesses": dict(info.harnesses),
        "reporters": dict(info.reporters),
        "plugin_management": info.plugin_management,
        "version": info.version,
    }


def info_from_json(obj: Mapping[str, Any]) -> NodeInfo:
    """The inverse of info_to_json (for rows this bot wrote itself)."""
    return NodeInfo(
        interval=float(obj["interval"]),
        harnesses=dict(obj.get("harnesses", {})),
        reporters=dict(obj.get("reporters", {})),
        plugin_management=bool(obj.get("plugin_management", False)),
        version=obj.get("version"),
    )


def offline_event_id(node: str, last_seen: float) -> str:
    """One id per outage: the node and its last heartbeat (in milliseconds)."""
    return f"node.offline/{node}/{round(last_seen * 1000)}"


def _utc(at: float) -> str:
    moment = datetime.datetime.fromtimestamp(at, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


class NodeTracker:
    def __init__(
        self,
        offline_after: float = DEFAULT_OFFLINE_AFTER,
        *,
        started_at: float = 0.0,
        known: Iterable[NodeState] = (),
    ) -> None:
        if not (math.isfinite(offline_after) and offline_after > 0):
            raise ValueError(f"offline_after: expected a number > 0, got {offline_after!r}")
        self.offline_after = offline_after
        self._nodes: dict[str, NodeState] = {}
        for state in known:
            # The restart rule: silence the bot could not hear does not count.
            self._nodes[state.node] = replace(
                state, watch_from=max(state.last_seen, state.watch_from, started_at)
            )

    def heartbeat(
        self,
        node: str,
        info: NodeInfo,
        now: float,
        *,
        source: str,
        rooms: frozenset[str] | None = None,
    ) -> NodeState:
        """Record a heartbeat; raises NodeClaimed when another source holds the node."""
        old = self._nodes.get(node)
        if old is not None and old.online and old.source != source:
            raise NodeClaimed(node, old.source, source)
        back = old is None or not old.online
        state = NodeState(
            node=node,
            source=source,
            info=info,
            rooms=rooms,
            last_seen=now,
            online=True,
            since=old.since if old is not None and not back else now,
            watch_from=now,
        )
        self._nodes[node] = state
        return state

    def tick(self, now: float) -> list[NodeOffline]:
        """The nodes silent for offline_after, each marked offline and reported once."""
        out = []
        for node, state in sorted(self._nodes.items()):
            deadline = state.deadline(self.offline_after)
            if deadline is None or now < deadline:
                continue
            self._nodes[node] = replace(state, online=False, since=now)
            silent = now - state.last_seen
            text = (
                f"The node {node} sent no heartbeat for {silent:.0f} s (its last one at "
                f"{_utc(state.last_seen)}; it counts as offline after "
                f"{self.offline_after:g} s of silence)."
            )
            out.append(
                NodeOffline(
                    node=node,
                    error={"text": text},
                    rooms=None if state.rooms is None else tuple(sorted(state.rooms)),
                    event_id=offline_event_id(node, state.last_seen),
                    at=now,
                )
            )
        return out

    def next_deadline(self) -> float | None:
        deadlines = [
            d for s in self._nodes.values() if (d := s.deadline(self.offline_after)) is not None
        ]
        return min(deadlines, default=None)

    def get(self, node: str) -> NodeState | None:
        return self._nodes.get(node)

    def nodes(self) -> list[NodeState]:
        """Every node known, by name."""
        return [self._nodes[n] for n in sorted(self._nodes)]
