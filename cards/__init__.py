"""cards: the turn-error card, its payload codec and the reference renderers.

Pure: no I/O, and nothing from `roombot`. A Matrix client can depend on this
package alone to draw roombot's cards: `render_event(content)` is all it needs.
"""

from cards.codec import CARD_KEY, CardError, loads_payload, read_payload, to_payload
from cards.event import RenderedEvent, render_event
from cards.kinds import Kind
from cards.notice import Notice, build_edit, build_notice
from cards.render import render_html_fragment, render_html_page, render_matrix_html, render_plain
from cards.shape import Attempt, Group, TurnError

__all__ = [
    "CARD_KEY",
    "Attempt",
    "CardError",
    "Group",
    "Kind",
    "Notice",
    "RenderedEvent",
    "TurnError",
    "build_edit",
    "build_notice",
    "loads_payload",
    "read_payload",
    "render_event",
    "render_html_fragment",
    "render_html_page",
    "render_matrix_html",
    "render_plain",
    "to_payload",
]
