"""Setting an asyncio.Event from any thread: the one way the engines are woken."""

from __future__ import annotations

import asyncio


def wake(loop: asyncio.AbstractEventLoop | None, event: asyncio.Event) -> None:
    """Set `event`, which belongs to `loop`, from the loop's thread or any other; a loop
    not yet running or already closed is left alone (it looks for work when it starts)."""
    if loop is None or loop.is_closed():
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        event.set()
    else:
        loop.call_soon_threadsafe(event.set)
