"""HTML checks by parsing (html.parser), never by regular expressions."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

from cards.html import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, LINK_SCHEMES

# What the standalone page may hold beyond the Matrix subset: the document itself.
PAGE_TAGS = ALLOWED_TAGS | {"html", "head", "meta", "title", "style", "body", "article", "bdi"}
PAGE_ATTRIBUTES = {
    "html": {"lang"},
    "meta": {"charset", "name", "content"},
    "article": {"class", "dir"},
    "p": {"class"},
    "pre": {"dir"},
}


@dataclass
class Parsed:
    tags: list[str] = field(default_factory=list)
    attrs: list[tuple[str, str, str | None]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)  # character data, entities decoded
    other: list[str] = field(default_factory=list)  # comments, declarations, PIs

    @property
    def data(self) -> str:
        return "".join(self.text)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = Parsed()
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.tags.append(tag)
        self.out.attrs.extend((tag, k, v) for k, v in attrs)
        self._in_style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self._in_style = False

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if not self._in_style:
            self.out.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.out.other.append(f"comment:{data}")

    def handle_decl(self, decl: str) -> None:
        self.out.other.append(f"decl:{decl}")

    def handle_pi(self, data: str) -> None:
        self.out.other.append(f"pi:{data}")

    def unknown_decl(self, data: str) -> None:
        self.out.other.append(f"unknown:{data}")


def parse(markup: str) -> Parsed:
    collector = _Collector()
    collector.feed(markup)
    collector.close()
    return collector.out


def check_matrix_html(markup: str) -> Parsed:
    """Only the Matrix formatted_body subset: tags, attributes, link schemes."""
    parsed = parse(markup)
    assert not parsed.other, parsed.other
    for tag in parsed.tags:
        assert tag in ALLOWED_TAGS, f"tag <{tag}> is not allowed"
    for tag, name, value in parsed.attrs:
        assert name in ALLOWED_ATTRIBUTES.get(tag, frozenset()), f"<{tag} {name}> not allowed"
        if tag == "a" and name == "href":
            assert value is not None and urlsplit(value).scheme in LINK_SCHEMES, value
        if tag == "img" and name == "src":
            assert value is not None and value.startswith("mxc://"), value
    return parsed


def check_page(markup: str) -> Parsed:
    """The standalone page: the document tags, then the same subset inside."""
    parsed = parse(markup)
    assert [o for o in parsed.other if o != "decl:DOCTYPE html"] == []
    for tag in parsed.tags:
        assert tag in PAGE_TAGS, f"tag <{tag}> is not allowed in the page"
    for tag, name, value in parsed.attrs:
        allowed = ALLOWED_ATTRIBUTES.get(tag, frozenset()) | PAGE_ATTRIBUTES.get(tag, set())
        assert name in allowed, f"<{tag} {name}> not allowed in the page"
        if tag == "a" and name == "href":
            assert value is not None and urlsplit(value).scheme in LINK_SCHEMES, value
    return parsed


def flat(text: str) -> str:
    """Text with line breaks removed: <br> and newlines both end a line."""
    return text.replace("\n", "")
