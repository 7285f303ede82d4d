"""The whole text of a long message as its own `m.file` event, a reply to the card.

No client makes an `mxc://` URI in a card's text clickable; a file event is drawn
by every client as something to open. The card says where that file is (the
text below); this module names the file and builds the event's content.
"""

from __future__ import annotations

import re
from typing import Any, Final

FILE_MIMETYPE: Final = "text/plain"
# A turn id is the source's text: only these characters reach a file name, so no
# client or download folder meets a path separator, a control or a bidi override.
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")
NAME_CHARS: Final = 64


def file_name(turn: str | None) -> str:
    """`roombot-<turn>.txt`, the turn id reduced to safe characters and cut."""
    safe = _UNSAFE.sub("-", turn or "").strip(".-")[:NAME_CHARS].strip(".-")
    return f"roombot-{safe or 'message'}.txt"


def file_line(turn: str | None) -> str:
    """What the card's prose says instead of a URI no client would open."""
    return (
        f"The message is shortened here; the whole text is in the file {file_name(turn)}, "
        "sent as a reply to this card."
    )


def file_content(
    *,
    turn: str | None,
    url: str,
    size: int,
    reply_to: str,
    encrypted_file: dict[str, Any] | None = None,
    thread: str | None = None,
) -> dict[str, Any]:
    """The `m.file` event: named for the turn, text/plain, a rich reply to `reply_to`
    (the card). In an encrypted room the spec's EncryptedFile object (`file`: url,
    key, iv, hashes, v) replaces the plain `url`. A card in a thread (`thread`, its
    root) has its file in the same thread, the reply kept as the fallback."""
    name = file_name(turn)
    content: dict[str, Any] = {
        "msgtype": "m.file",
        "body": name,
        "filename": name,
        "info": {"mimetype": FILE_MIMETYPE, "size": size},
        "m.relates_to": {"m.in_reply_to": {"event_id": reply_to}},
        "m.mentions": {},
    }
    if thread is not None:
        content["m.relates_to"] = {
            "rel_type": "m.thread",
            "event_id": thread,
            "is_falling_back": True,
            "m.in_reply_to": {"event_id": reply_to},
        }
    if encrypted_file is not None:
        content["file"] = dict(encrypted_file)
    else:
        content["url"] = url
    return content
