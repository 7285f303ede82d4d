"""Text from hostile JSON, and how the prose forms show it.

`json.loads` happily returns lone surrogates ("\\ud800"), which no UTF-8 encoder,
HTML sanitiser or terminal accepts: every string read from outside passes through
`valid_text` first. Then every rendering shows provider text through `shown`, which
makes each character that a terminal or client would obey, or draw as nothing,
visible; the card itself keeps the exact text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD; unchanged otherwise."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


@dataclass(frozen=True, slots=True)
class Hidden:
    """Code points `first`..`last` that the prose forms never show raw.

    A C0 control or DEL is drawn as its Unicode control picture (ESC as ␛); any other
    as a marker, ⟦name⟧ with the character's Unicode abbreviation (`names`, one per
    code point from `first`, as far as they go) or ⟦U+XXXX⟧ without one.
    """

    first: int
    last: int
    why: str
    names: tuple[str, ...] = ()


# fmt: off
# The C1 controls' abbreviations, U+0080 to U+009F.
_C1_NAMES: Final = (
    "PAD", "HOP", "BPH", "NBH", "IND", "NEL", "SSA", "ESA",
    "HTS", "HTJ", "VTS", "PLD", "PLU", "RI", "SS2", "SS3",
    "DCS", "PU1", "PU2", "STS", "CCH", "MW", "SPA", "EPA",
    "SOS", "SGC", "SCI", "CSI", "ST", "OSC", "PM", "APC",
)
# fmt: on

# The one table. Every code point of category Cf is in it (tests/cards/test_spoof.py
# checks against unicodedata), and so is every Default_Ignorable_Code_Point: the
# characters a font draws as nothing.
HIDDEN: Final[tuple[Hidden, ...]] = (
    Hidden(0x00, 0x08, "C0 controls: a terminal acts on them"),
    Hidden(0x0B, 0x1F, "C0 controls (tab and newline are kept)"),
    Hidden(0x7F, 0x7F, "DEL"),
    Hidden(
        0x80,
        0x9F,
        "C1 controls: CSI and OSC restyle some terminals",
        _C1_NAMES,
    ),
    Hidden(0xAD, 0xAD, "soft hyphen: drawn only at a line break", ("SHY",)),
    Hidden(0x034F, 0x034F, "combining grapheme joiner: invisible", ("CGJ",)),
    Hidden(0x0600, 0x0605, "Arabic number signs (format characters)"),
    Hidden(0x061C, 0x061C, "Arabic letter mark: bidi", ("ALM",)),
    Hidden(0x06DD, 0x06DD, "Arabic end of ayah (format character)"),
    Hidden(0x070F, 0x070F, "Syriac abbreviation mark (format character)"),
    Hidden(0x0890, 0x0891, "Arabic pound and piastre marks (format characters)"),
    Hidden(0x08E2, 0x08E2, "Arabic disputed end of ayah (format character)"),
    Hidden(0x115F, 0x1160, "Hangul fillers: blank letters"),
    Hidden(0x17B4, 0x17B5, "Khmer inherent vowels: invisible"),
    Hidden(0x180B, 0x180D, "Mongolian variation selectors", ("FVS1", "FVS2", "FVS3")),
    Hidden(0x180E, 0x180E, "Mongolian vowel separator: invisible", ("MVS",)),
    Hidden(0x180F, 0x180F, "Mongolian variation selector", ("FVS4",)),
    Hidden(
        0x200B,
        0x200F,
        "zero-width characters and bidi marks",
        ("ZWSP", "ZWNJ", "ZWJ", "LRM", "RLM"),
    ),
    Hidden(0x202A, 0x202E, "bidi embeddings and overrides", ("LRE", "RLE", "PDF", "LRO", "RLO")),
    Hidden(0x2060, 0x2064, "word joiner and invisible operators", ("WJ",)),
    Hidden(0x2065, 0x2065, "reserved, drawn as nothing"),
    Hidden(0x2066, 0x2069, "bidi isolates", ("LRI", "RLI", "FSI", "PDI")),
    Hidden(
        0x206A,
        0x206F,
        "deprecated format characters",
        ("ISS", "ASS", "IAFS", "AAFS", "NADS", "NODS"),
    ),
    Hidden(0x3164, 0x3164, "Hangul filler: a blank letter"),
    Hidden(0xFE00, 0xFE0F, "variation selectors", tuple(f"VS{i}" for i in range(1, 17))),
    Hidden(0xFEFF, 0xFEFF, "zero-width no-break space (byte order mark)", ("BOM",)),
    Hidden(0xFFA0, 0xFFA0, "halfwidth Hangul filler: a blank letter"),
    Hidden(0xFFF0, 0xFFF8, "reserved, drawn as nothing"),
    Hidden(0xFFF9, 0xFFFB, "interlinear annotation controls", ("IAA", "IAS", "IAT")),
    Hidden(0x110BD, 0x110BD, "Kaithi number sign (format character)"),
    Hidden(0x110CD, 0x110CD, "Kaithi number sign above (format character)"),
    Hidden(0x13430, 0x1343F, "Egyptian hieroglyph format controls"),
    Hidden(0x1BCA0, 0x1BCA3, "shorthand format controls"),
    Hidden(0x1D173, 0x1D17A, "musical symbol format controls"),
    Hidden(0xE0000, 0xE0000, "reserved, drawn as nothing"),
    Hidden(0xE0001, 0xE0001, "language tag (deprecated)", ("LANGUAGE TAG",)),
    Hidden(0xE0002, 0xE001F, "reserved, drawn as nothing"),
    # Tags mirror ASCII and are drawn as nothing: a known way to hide text from readers
    # (and to pass it to a model). The marker says which letter each one hides.
    Hidden(
        0xE0020,
        0xE007F,
        "tags",
        ("TAG SPACE", *(f"TAG {chr(c)}" for c in range(0x21, 0x7F)), "CANCEL TAG"),
    ),
    Hidden(0xE0080, 0xE00FF, "reserved, drawn as nothing"),
    Hidden(0xE0100, 0xE01EF, "variation selectors", tuple(f"VS{i}" for i in range(17, 257))),
    Hidden(0xE01F0, 0xE0FFF, "reserved, drawn as nothing"),
)

# The marker's opening bracket, when the text itself holds one, is shown as a marker
# too, so ⟦RLO⟧ in the output always means a real U+202E was there.
MARK_OPEN: Final = "\u27e6"
MARK_CLOSE: Final = "\u27e7"

_ZWJ: Final = "\u200d"
# Variation selectors pick a glyph for the one character before them (⚠ as the emoji
# ⚠️, a CJK variant); one after a visible character is kept. A run of them carries
# nothing a reader sees (a known way to hide data after an emoji), so the rest show.
_SELECTORS: Final = frozenset(
    [
        *map(chr, range(0xFE00, 0xFE10)),
        *map(chr, range(0xE0100, 0xE01F0)),
        *("\u180b", "\u180c", "\u180d", "\u180f"),
    ]
)
# What may stand between an emoji and the ZWJ that joins it to the next: its
# presentation selector or a skin tone.
_EMOJI_SUFFIX: Final = frozenset(["\ufe0f", *map(chr, range(0x1F3FB, 0x1F400))])
# The only tag sequences drawn as something: the flags of England, Scotland and Wales
# (black flag, tags "gbeng" / "gbsct" / "gbwls", cancel tag). Any other tag is shown.
_FLAGS: Final = tuple(
    "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in code) + "\U000e007f"
    for code in ("gbeng", "gbsct", "gbwls")
)


def _names() -> dict[str, str]:
    out = {}
    for row in HIDDEN:
        for code in range(row.first, row.last + 1):
            i = code - row.first
            if code < 0x20 or code == 0x7F:
                out[chr(code)] = chr(0x2421 if code == 0x7F else 0x2400 + code)
            else:
                name = row.names[i] if i < len(row.names) else f"U+{code:04X}"
                out[chr(code)] = f"{MARK_OPEN}{name}{MARK_CLOSE}"
    out[MARK_OPEN] = f"{MARK_OPEN}U+{ord(MARK_OPEN):04X}{MARK_CLOSE}"
    return out


# Each hidden character (and the marker's bracket) -> what is drawn in its place.
SHOWN_AS: Final[dict[str, str]] = _names()


def _class(rows: tuple[Hidden, ...]) -> str:
    return "".join(
        re.escape(chr(r.first)) + ("" if r.first == r.last else "-" + re.escape(chr(r.last)))
        for r in rows
    )


_CLASS: Final = _class(HIDDEN)
# ASCII text (most of it) is scanned for the ASCII rows alone, which is several times faster.
_ASCII_HIDDEN: Final = re.compile(f"[{_class(tuple(r for r in HIDDEN if r.last < 0x80))}]")
_HIDDEN: Final = re.compile(f"[{_CLASS}{re.escape(MARK_OPEN)}]")
_TAGS: Final = frozenset(map(chr, range(0xE0020, 0xE0080)))
_FLAG_LENGTH: Final = len(_FLAGS[0])
_LINE_END: Final = re.compile("\r\n?|[\u2028\u2029]")
# For JSON: every hidden character, and the line separators, with no exception.
_ANY_HIDDEN: Final = re.compile(f"[{_CLASS}\u2028\u2029]+")


def _symbol(char: str) -> bool:
    """A pictograph or other symbol, or a code point this Python's Unicode does not
    know yet in the emoji blocks (newer emoji)."""
    if char.isascii():  # ASCII takes no part in an emoji sequence (nor does markup's <>)
        return False
    category = unicodedata.category(char)
    return category in ("So", "Sm") or (category == "Cn" and 0x1F000 <= ord(char) <= 0x1FAFF)


def _joins_emoji(text: str, at: int) -> bool:
    """The ZWJ at `at` joins two emoji (👩‍💻): drawn as one glyph, or as both."""
    before = at - 1
    if before > 0 and text[before] in _EMOJI_SUFFIX:
        before -= 1
    after = at + 1
    return before >= 0 and after < len(text) and _symbol(text[before]) and _symbol(text[after])


def _selects(text: str, at: int) -> bool:
    """The variation selector at `at` follows a visible letter, digit, symbol or mark:
    of ASCII only a letter, a digit, # or * (keycaps), never markup's <>."""
    if at == 0:
        return False
    base = text[at - 1]
    if base.isascii():
        return base.isalnum() or base in "#*"
    return unicodedata.category(base)[0] in "LNSP"


def _in_flag(text: str, at: int) -> bool:
    """The tag at `at` is part of one of the three flag sequences."""
    start = text.rfind("\U0001f3f4", max(0, at - _FLAG_LENGTH + 1), at)
    return start >= 0 and text[start : start + _FLAG_LENGTH] in _FLAGS


def _mark(match: re.Match[str]) -> str:
    found = match.group()
    at = match.start()
    if found == _ZWJ and _joins_emoji(match.string, at):
        return found
    if found in _SELECTORS and _selects(match.string, at):
        return found
    if found in _TAGS and _in_flag(match.string, at):
        return found
    return SHOWN_AS[found]


def shown(text: str) -> str:
    """Provider text as the prose forms show it: line ends unified (CR, CR LF and the
    Unicode line and paragraph separators read as one), every hidden character visible."""
    if "\r" in text or "\u2028" in text or "\u2029" in text:
        text = _LINE_END.sub("\n", text)
    if text.isascii():
        return _ASCII_HIDDEN.sub(_mark, text)
    return _HIDDEN.sub(_mark, text)


def cut_shown(text: str, chars: int) -> str:
    """Shown text cut to at most `chars`, never inside a marker (half of one would
    read as something else)."""
    cut = text[:chars]
    open_at = cut.rfind(MARK_OPEN)
    if open_at > cut.rfind(MARK_CLOSE) and len(text) > chars:
        return cut[:open_at]
    return cut


def shown_name(text: str) -> str:
    """A name (harness, provider, model) on one line, every hidden character visible."""
    return shown(text).replace("\n", " ").replace("\t", " ")


def json_shown(dumped: str) -> str:
    """JSON text for a terminal: each hidden character (no exception, not even a
    joiner) written as its \\u escape, so the JSON still holds the exact text."""

    def escape(match: re.Match[str]) -> str:
        out = []
        for char in match.group():
            code = ord(char)
            if code > 0xFFFF:  # UTF-16 surrogate pair, as JSON writes astral characters
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
        return "".join(out)

    return _ANY_HIDDEN.sub(escape, dumped)
