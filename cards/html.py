"""HTML safety: the Matrix formatted_body allowlist (the one copy of it), escaping,
sanitising untrusted HTML, and prose-to-HTML through markdown-it with raw HTML off.
"""

from __future__ import annotations

import html
from typing import Final
from urllib.parse import urlsplit

import nh3
from markdown_it import MarkdownIt

from cards.text import valid_text

# Tags the Matrix spec (client-server API, m.room.message formats) allows in formatted_body.
ALLOWED_TAGS: Final = frozenset(
    [
        "del",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "p",
        "a",
        "ul",
        "ol",
        "sup",
        "sub",
        "li",
        "b",
        "i",
        "u",
        "strong",
        "em",
        "s",
        "code",
        "hr",
        "br",
        "div",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "caption",
        "pre",
        "span",
        "img",
        "details",
        "summary",
    ]
)
# Attributes per tag; a tag not named here takes none.
ALLOWED_ATTRIBUTES: Final[dict[str, frozenset[str]]] = {
    "a": frozenset({"href", "target"}),
    "img": frozenset({"width", "height", "alt", "title", "src"}),
    "ol": frozenset({"start"}),
    "code": frozenset({"class"}),
    "span": frozenset({"data-mx-color", "data-mx-bg-color", "data-mx-spoiler"}),
}
# Link schemes for <a href>: the spec also allows ftp and magnet, but nothing we draw
# needs them and a reader's client may hand them to other programs. <img src> is mxc:// only.
LINK_SCHEMES: Final = frozenset({"http", "https", "mailto"})
IMAGE_SCHEMES: Final = frozenset({"mxc"})


def escape(text: str) -> str:
    """Escape untrusted text for HTML text and attribute values alike."""
    return html.escape(text, quote=True)


def text_block(text: str) -> str:
    """Untrusted text as inert HTML: escaped, line breaks kept, nothing made live."""
    return "<br>".join(escape(line) for line in text.split("\n"))


def safe_link(url: str) -> bool:
    """Only the schemes Matrix allows in a link."""
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return False
    return scheme in LINK_SCHEMES


def _attribute_filter(tag: str, attr: str, value: str) -> str | None:
    if attr not in ALLOWED_ATTRIBUTES.get(tag, frozenset()):
        return None
    if tag == "a" and attr == "href":
        return value if safe_link(value) else None
    if tag == "img" and attr == "src":
        return value if value.lower().startswith("mxc://") else None
    if tag == "code" and attr == "class":
        return value if value.startswith("language-") and " " not in value else None
    return value


def sanitize(untrusted_html: str) -> str:
    """Reduce any HTML to the Matrix allowlist (the reference client's fallback path)."""
    return nh3.clean(
        valid_text(untrusted_html),  # the sanitiser needs text that UTF-8 can encode
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(attrs) for tag, attrs in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(LINK_SCHEMES | IMAGE_SCHEMES),
        attribute_filter=_attribute_filter,
        link_rel=None,
        strip_comments=True,
    )


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False})
    md.disable("image")  # an image would need an mxc:// source
    md.validateLink = safe_link  # type: ignore[method-assign]
    return md


_MD: Final = _markdown()


def prose(markdown_text: str) -> str:
    """Our own prose (notes, hints) as HTML: markdown-it with raw HTML off, then the allowlist."""
    return sanitize(_MD.render(markdown_text)).strip()
