"""What the report API's node routes talk to: `roombot.room_reader.RoomReader` satisfies it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from roombot.node_desk import Request, ResultIn


class Desk(Protocol):
    def poll(self, *, source: str, allows: Callable[[str], bool], node: str) -> list[Request]:
        """The requests for `node` this source may have (raises node_desk.Refused)."""
        ...

    def results(
        self,
        *,
        source: str,
        allows: Callable[[str], bool],
        node: str,
        results: Sequence[ResultIn],
    ) -> list[str]:
        """Take the node's results; the ids not taken (raises node_desk.Refused)."""
        ...
