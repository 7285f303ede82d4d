"""The reference client renderer: any m.room.message content -> what to draw.

A valid card is drawn from the card; anything else falls back to the event's
own formatted_body, reduced to the Matrix allowlist, or its escaped body. The
content is hostile input: nothing in it is trusted or allowed to raise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from cards.codec import CARD_KEY, CardError, read_payload
from cards.html import sanitize, text_block
from cards.notice import HTML_FORMAT
from cards.render import render_matrix_html, render_plain
from cards.shape import TurnError
from cards.text import shown, valid_text

# Matrix refuses events over 64 KiB, so a longer formatted_body cannot come from a
# real event; the sanitiser's time grows with nesting depth, so it is not fed one.
MAX_FORMATTED_BYTES: Final = 65_536


@dataclass(frozen=True, slots=True)
class RenderedEvent:
    """What a client shows: plain text, safe HTML, and the card when there was a valid one."""

    plain: str
    html: str
    card: TurnError | None = None
    card_error: CardError | None = None  # a card key was there but unreadable


def render_event(content: object) -> RenderedEvent:
    """What to draw for any m.room.message content (or anything else). Never raises."""
    if not isinstance(content, dict):
        return RenderedEvent(plain="", html="")
    # An edit replaces the whole content with m.new_content.
    relates = content.get("m.relates_to")
    new = content.get("m.new_content")
    is_edit = isinstance(relates, dict) and relates.get("rel_type") == "m.replace"
    if is_edit and isinstance(new, dict):
        content = new
    card_error: CardError | None = None
    if CARD_KEY in content:
        card = read_payload(content[CARD_KEY])
        if isinstance(card, TurnError):
            return RenderedEvent(render_plain(card), render_matrix_html(card), card=card)
        card_error = card
    body = content.get("body")
    # The event's own text is drawn like a card's: control characters as symbols.
    plain = shown(valid_text(body)) if isinstance(body, str) else ""
    formatted = content.get("formatted_body")
    if (
        content.get("format") == HTML_FORMAT
        and isinstance(formatted, str)
        and len(formatted) <= MAX_FORMATTED_BYTES
        and len(formatted.encode("utf-8", "surrogatepass")) <= MAX_FORMATTED_BYTES
    ):
        # Shown after sanitising: the sanitiser decodes entities (&#x202e; becomes U+202E).
        html = shown(sanitize(valid_text(formatted)))
        return RenderedEvent(plain, html, card_error=card_error)
    return RenderedEvent(plain, text_block(plain), card_error=card_error)
