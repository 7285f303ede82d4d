"""Which rooms a post touches, and whether its source may post there. Pure.

A source is allowed a set of rooms. An event names its room directly
(`turn.started`) or through its turn (every other turn event: the room the turn
was started in, earlier in the same post or before). Decisions:
- a turn the bot does not know yet can only be named by a source allowed every
  room (`["*"]`); others must send the turn's `turn.started` first (in the same
  batch is fine), so that no source can speak about another room's turns;
- `turn.started` for a turn already known in another room needs both rooms;
- `harness.exited` and `node.offline` end every open turn of a harness or node,
  whichever room it is in, so only a source allowed every room may send them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from roombot.api.settings import SourceSettings
from roombot.events import Event, HarnessExited, NodeOffline, TurnStarted


class RoomRefused(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def check_rooms(
    source: SourceSettings,
    events: Sequence[Event],
    room_of: Callable[[str], str | None],
    *,
    prefix: str = "",
) -> None:
    """Raise RoomRefused (with the field) unless `source` may post every one of `events`."""
    here: dict[str, str] = {}
    for i, ev in enumerate(events):
        at = f"{prefix}[{i}]" if prefix else ""
        field = f"{at}.type" if at else "type"
        if isinstance(ev, HarnessExited | NodeOffline):
            if not source.all_rooms:
                raise RoomRefused(
                    field,
                    f"{type(ev).__name__} ends turns in every room; source {source.name!r} "
                    'is not allowed every room (rooms = ["*"])',
                )
            continue
        known = here.get(ev.turn) or room_of(ev.turn)
        if isinstance(ev, TurnStarted):
            for room, name in ((ev.room, "room"), (known, "turn")):
                if room is not None and not source.allows(room):
                    raise RoomRefused(
                        f"{at}.{name}" if at else name,
                        f"source {source.name!r} may not post to room {room}",
                    )
            here.setdefault(ev.turn, ev.room)
            continue
        if known is None:
            if not source.all_rooms:
                raise RoomRefused(
                    f"{at}.turn" if at else "turn",
                    f"turn {ev.turn!r} is not known to the bot; source {source.name!r} must "
                    "send its turn.started first",
                )
        elif not source.allows(known):
            raise RoomRefused(
                f"{at}.turn" if at else "turn",
                f"turn {ev.turn!r} is in room {known}, where source {source.name!r} may not post",
            )
