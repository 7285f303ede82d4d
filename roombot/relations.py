"""How a card is tied to another event: a thread with the reply fallback, or a reply. Pure.

The room stage says where a card goes (roombot.room.Place); the shell resolves each
end to an event id and asks here for the `m.relates_to` to send. A card in a thread
carries the spec's reply fallback (`is_falling_back` and `m.in_reply_to` the message
it answers), so a client without threads shows it as a reply to that message.
"""

from __future__ import annotations

from typing import Any, Final

# What a card says when it could not go where the stage put it (a line of its note).
TRIGGER_MISSING: Final = (
    "The message that started this turn is not in this room (redacted, unknown or in "
    "another room), so this card is in the timeline."
)
ROOT_MISSING: Final = "Its group card could not be sent, so this card is in the timeline."


def relation(thread: str | None, reply: str | None) -> dict[str, Any] | None:
    """`m.relates_to` for a card in `thread` (answering `reply`), or replying to `reply`."""
    if thread is not None:
        return {
            "rel_type": "m.thread",
            "event_id": thread,
            "is_falling_back": True,
            "m.in_reply_to": {"event_id": reply or thread},
        }
    if reply is not None:
        return {"m.in_reply_to": {"event_id": reply}}
    return None


def with_note(note: str | None, line: str) -> str:
    """The card's note with roombot's line about its placement added."""
    return f"{note}\n{line}" if note else line
