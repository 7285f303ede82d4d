"""Redaction at the edge: credentials out of provider and harness text before it is kept.

Every source's events pass one `Redactor` before they are journaled (the pipeline) or
spooled (the ACP proxy), and every log line passes it before it is written, so nothing
later (the card, the attachment, the outbox) ever holds what it hid. A credential becomes
a visible marker that still says which key it was, `sk-proj-...a1b2 [redacted]`, and the
words around it stay, so the card still says what happened. The shapes are data, in
`patterns.SHAPES`; a value someone already masked (`sk-lab-****0000`) is left as it is.

Pure: no I/O, no clock. What it did is counted on the instance for `/metrics`:
`redacted` by shape name, `kept` by reason (`masked`, `allowed`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from roombot.redact.patterns import MARKER, MASK_LETTERS, PLACEHOLDER, SECRET_FIELDS, SHAPES, Shape

__all__ = ["MARKER", "SHAPES", "RedactError", "Redactor", "Shape"]

_PLACEHOLDER = re.compile(PLACEHOLDER)
_MASK_LETTERS = re.compile(MASK_LETTERS)
_KEY_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----")
# Base64 with its line ends (raw or JSON-escaped), on the reversed text.
_BASE64_BACKWARDS = re.compile(r"(?:n\\|\r?\n|\n\r|[A-Za-z0-9+/=])+")
# The scheme word of an authorization value, kept: "Bearer [redacted]" still says how.
_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest)\s+")

# An event's fields that are identifiers, not text: never rewritten.
_IDENTIFIERS = frozenset({"type", "turn", "event_id", "at", "room", "trigger", "thread", "node"})

T = TypeVar("T")
# The shapes of keys themselves (they have a prefix to show), to name a value found by
# a header, a parameter or a field name.
_KEYS = {f"k{i}": s for i, s in enumerate(SHAPES) if s.prefix}
_KNOWN = re.compile(
    "|".join(
        f"(?P<{g}>{re.sub(r'[(][?]<[!=][^)]*[)]', '', s.pattern)})" for g, s in _KEYS.items()
    ).replace("(?P<secret>", "(?:")
)
_WORD = re.compile(r"[a-z_]+")
# A key's published prefix and nothing after it ("api_key": "sk-or-v1-"): an empty key.
_PREFIX_ONLY = re.compile("|".join(f"(?:{s.prefix})" for s in SHAPES if s.prefix))
# A field named for a credential: its whole value is the secret (see patterns.SECRET_FIELDS).
_WHOLE_FIELD = Shape("credential_field", "", "", True, "patterns.SECRET_FIELDS")


class RedactError(ValueError):
    """An extra pattern or an allow-list entry that is not usable; `key` names it."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


@dataclass(frozen=True, slots=True)
class _Compiled:
    shape: Shape
    regex: re.Pattern[str]
    groups: tuple[str, ...]  # the names of its secret groups (one per alternative)


def _compiled(shape: Shape) -> _Compiled:
    pieces = shape.pattern.split("(?P<secret>")
    pattern, groups = pieces[0], []
    for j, piece in enumerate(pieces[1:]):  # a shape may have several alternatives
        groups.append(f"secret{j}")
        pattern += f"(?P<secret{j}>" + piece
    return _Compiled(shape, re.compile(pattern), tuple(groups))


def _extra_shape(i: int, pattern: str) -> Shape:
    try:
        compiled = re.compile(pattern)
    except re.error as e:
        raise RedactError(f"redact.patterns[{i}]", f"not a regular expression: {e}") from e
    if compiled.groupindex and set(compiled.groupindex) != {"secret"}:
        raise RedactError(
            f"redact.patterns[{i}]", "the only named group it may have is (?P<secret>...)"
        )
    if compiled.match(""):
        raise RedactError(f"redact.patterns[{i}]", "matches the empty text (it would hide nothing)")
    if "secret" not in compiled.groupindex:
        pattern = f"(?P<secret>{pattern})"
    # An operator's pattern is its own shape, matched anywhere and shown without a tail.
    return Shape(f"extra_{i}", pattern, "", False, "config: redact.patterns")


class Redactor:
    """Takes credentials out of text, values and events; counts what it did."""

    def __init__(
        self,
        *,
        enabled: bool = True,
        patterns: Iterable[str] = (),
        allow: Iterable[str] = (),
    ) -> None:
        self.enabled = enabled
        extra = tuple(_extra_shape(i, p) for i, p in enumerate(patterns))
        self._shapes = tuple(_compiled(s) for s in SHAPES + extra)
        # Which shapes each hint calls for (a substring test per hint is a fast scan in C,
        # on a megabyte too, where one regex of every hint would try each at every place).
        self._hints = tuple(sorted({h for s in self._shapes for h in s.shape.hints}))
        self._wants = {
            h: frozenset(i for i, c in enumerate(self._shapes) if h in c.shape.hints)
            for h in self._hints
        }
        self._always = frozenset(i for i, c in enumerate(self._shapes) if not c.shape.hints)
        allowed = []
        for i, a in enumerate(allow):
            try:
                allowed.append(re.compile(a))
            except re.error as e:
                raise RedactError(f"redact.allow[{i}]", f"not a regular expression: {e}") from e
        self._allow = tuple(allowed)
        self.redacted: Counter[str] = Counter()
        self.kept: Counter[str] = Counter()

    # -- text ------------------------------------------------------------------

    def text(self, text: str) -> str:
        """The text with every credential replaced by its marker."""
        if not self.enabled or not text:
            return text
        low = text.lower()
        wanted = set(self._always)
        for hint in [h for h in self._hints if h in low]:
            wanted |= self._wants[hint]
        found: list[tuple[int, int, re.Match[str], _Compiled]] = []
        for order in sorted(wanted):
            c = self._shapes[order]
            found += [(m.start(), order, m, c) for m in c.regex.finditer(text)]
        if found:
            text = self._hide(text, found)
        return self._key_tails(text) if "PRIVATE KEY-----" in text else text

    def _hide(self, text: str, found: list[tuple[int, int, re.Match[str], _Compiled]]) -> str:
        # Leftmost first; where two shapes start together, the earlier in the table.
        found.sort(key=lambda f: (f[0], f[1]))
        out: list[str] = []
        hidden: dict[str, str] = {}  # secret -> its marker
        end = 0
        for start, _, m, c in found:
            if start < end:
                continue  # inside a credential already hidden
            out += [text[end:start], self._replace(m, c, hidden)]
            end = m.end()
        text = "".join(out) + text[end:]
        # The same secret said again where nothing marks it ("the `eC1h...` bit is the
        # token, base64-encoded"): hidden there too, longest first.
        for secret in sorted(hidden, key=len, reverse=True):
            if len(secret) >= 8 and secret in text:
                self.redacted["repeated"] += text.count(secret)
                text = text.replace(secret, hidden[secret])
        return text

    def _key_tails(self, text: str) -> str:
        """The body of a private key whose BEGIN line was cut off (a log's excerpt): the
        base64 run before its END line. Read backwards, so a long run costs one pass."""
        out: list[str] = []
        last = 0
        for m in _KEY_END.finditer(text):
            run = _BASE64_BACKWARDS.match(text[last : m.start()][::-1])
            n = run.end() if run else 0
            if n >= 64:
                out += [text[last : m.start() - n], MARKER]
                self.redacted["private_key_block"] += 1
            else:
                out.append(text[last : m.start()])
            out.append(m.group())
            last = m.end()
        return "".join(out) + text[last:]

    def _replace(self, m: re.Match[str], c: _Compiled, hidden: dict[str, str]) -> str:
        group = next(g for g in c.groups if m.group(g) is not None)
        secret = m.group(group)
        start, end = m.span(group)
        whole = m.group()
        head, tail = whole[: start - m.start()], whole[end - m.start() :]
        kept = "masked" if c.shape.random and _WORD.fullmatch(secret) else self._kept(secret)
        if kept is not None:
            self.kept[kept] += 1
            return whole
        self.redacted[c.shape.name] += 1
        hidden[secret] = marker = self._marker(secret, c.shape)
        return head + marker + tail

    def _kept(self, secret: str) -> str | None:
        """Why a matched value stays as it is, or None: masked already, or allowed."""
        if _PLACEHOLDER.search(secret) or _PREFIX_ONLY.fullmatch(secret):
            return "masked"
        masked = sum(len(m) for m in _MASK_LETTERS.findall(secret))
        if masked and 3 * masked >= len(secret):
            return "masked"
        if any(a.fullmatch(secret) for a in self._allow):
            return "allowed"
        return None

    def _marker(self, secret: str, shape: Shape) -> str:
        # A header, a parameter or a field whose value is itself a known key shows what
        # that key would: its published prefix, and its tail where the key has one.
        known = _KNOWN.fullmatch(secret)
        if known is not None and known.lastgroup is not None:
            shape = _KEYS[known.lastgroup]
        head = re.match(shape.prefix, secret) if shape.prefix else None
        shown = head.group() if head else ""
        rest = len(secret) - len(shown)
        if shape.tail and rest >= 16:
            return f"{shown}...{secret[-4:]} {MARKER}"
        return f"{shown}... {MARKER}" if shown else MARKER

    # -- structures ------------------------------------------------------------

    def value(self, value: T) -> T:
        """A JSON-like value with every string redacted, and the whole value of a field
        named for a credential (`authorization`, `x-api-key`, ...) replaced."""
        if not self.enabled:
            return value
        return self._value(value)  # type: ignore[no-any-return]

    def _value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {k: self._field(k, v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._value(v) for v in value]
        return value

    def _field(self, key: object, value: Any) -> Any:
        if isinstance(key, str) and key.lower() in SECRET_FIELDS and isinstance(value, str):
            if not value:
                return value
            kept = self._kept(value)
            if kept is not None:
                self.kept[kept] += 1
                return value
            self.redacted["credential_field"] += 1
            scheme = _SCHEME.match(value)
            head = scheme.group() if scheme else ""
            return head + self._marker(value[len(head) :], _WHOLE_FIELD)
        return self._value(value)

    def event_json(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """A JSON event (format v1) with its texts redacted; its identifiers as they are."""
        return {k: v if k in _IDENTIFIERS else self._field(k, v) for k, v in event.items()}

    def event(self, event: T) -> T:
        """A typed event (roombot.events) with its `error` and `text` redacted."""
        if not self.enabled or not dataclasses.is_dataclass(event):
            return event
        changes: dict[str, Any] = {}
        error = getattr(event, "error", None)
        if error is not None:
            new = self._value(error)
            if new != error:
                changes["error"] = new
        text = getattr(event, "text", None)
        if isinstance(text, str):
            new_text = self.text(text)
            if new_text != text:
                changes["text"] = new_text
        if not changes:
            return event
        return dataclasses.replace(event, **changes)  # type: ignore[type-var]
