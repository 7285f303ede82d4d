"""What the report API hands events to: `roombot.pipeline.Pipeline` satisfies it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from roombot.events import Event
from roombot.nodes import NodeInfo, NodeState
from roombot.pipeline import Ack, TurnStatus


class Sink(Protocol):
    async def accept(self, events: Sequence[Event]) -> list[Ack]:
        """Durable on return; one Ack per event (duplicate=True for a known event_id)."""
        ...

    def room_of(self, turn: str) -> str | None:
        """The room a turn was started in, if the bot knows the turn."""
        ...

    def started_by(self, turn: str) -> str | None:
        """The event_id of the turn.started that opened the turn."""
        ...

    def status(self, turn: str) -> TurnStatus | None: ...

    def heartbeat(
        self, node: str, info: NodeInfo, *, source: str, rooms: frozenset[str] | None = None
    ) -> NodeState:
        """Raises roombot.nodes.NodeClaimed when another source holds the node."""
        ...

    def node_states(self) -> list[NodeState]: ...

    @property
    def offline_after(self) -> float: ...

    @property
    def heartbeat_interval(self) -> float: ...

    @property
    def started(self) -> bool: ...

    @property
    def backlog(self) -> int: ...
