"""The configuration `roombot init` writes: config.example.toml's own text, values filled in.

Starting from the example's text (not from a template of our own) keeps every key
documented exactly as the example documents it, and leaves one place to change a
comment. Only the values init knows are set: the state directory, the homeserver
and the user, where the password comes from, one report API source per token file,
one `[[rooms]]` table per room the bot is in or invited to; the example's
placeholders (its rooms, its inviters) are taken out, so the result passes `--check`.
Pure: text in, text out. A key the example no longer has raises ValueError, which
the tests turn into a failure the day the example changes shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

HEADER = "# Written by `roombot init` from config.example.toml; every key is documented below.\n"
_HEADER_LINE = re.compile(r"^\[")


@dataclass(frozen=True, slots=True)
class FoundRoom:
    """A room the bot is in ("join") or invited to ("invite"), as its sync showed it."""

    room_id: str
    membership: str
    name: str | None = None
    alias: str | None = None
    inviter: str | None = None

    def describe(self) -> str:
        parts = [f'"{printable(self.name)}"' if self.name else "(no name)"]
        if self.alias:
            parts.append(printable(self.alias))
        if self.membership == "invite":
            parts.append(f"invited by {printable(self.inviter or 'someone')}")
        else:
            parts.append("joined")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class SourceToken:
    name: str
    token_file: str  # as written in the config: relative to the config's directory


@dataclass(frozen=True, slots=True)
class Answers:
    homeserver: str
    user_id: str
    state_dir: str
    sources: tuple[SourceToken, ...]
    rooms: tuple[FoundRoom, ...] = ()
    password_env: str = "ROOMBOT_PASSWORD"
    password_file: str | None = None  # set: the config names it instead of password_env


def printable(text: str) -> str:
    """Room names are other people's text: no control character reaches a comment or a terminal."""
    return "".join(c if c.isprintable() else "?" for c in text)


def toml_string(text: str) -> str:
    """A TOML basic string: quote, backslash and control characters escaped."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\t" or (c.isprintable() and c != "\x7f"):
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'


def toml_strings(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(toml_string(i) for i in items) + "]"


class _Doc:
    """The example's lines, addressed by table: a table is its header and the lines up to
    the comments that lead into the next header."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def headers(self) -> list[int]:
        return [i for i, line in enumerate(self.lines) if _HEADER_LINE.match(line)]

    def _lead(self, i: int) -> int:
        """Where the comment block right above line `i` starts (i when there is none)."""
        while i > 0 and self.lines[i - 1].startswith("#"):
            i -= 1
        return i

    def span(self, header: str) -> tuple[int, int]:
        """The lines after the first `header` line up to the lead of the next other header."""
        heads = self.headers()
        found = [i for i in heads if self.lines[i].strip() == header]
        if not found:
            raise ValueError(f"config.example.toml has no {header} table")
        start = found[0]
        after = [i for i in heads if i > start and self.lines[i].strip() != header]
        end = self._lead(after[0]) if after else len(self.lines)
        return start, end

    def top(self) -> tuple[int, int]:
        heads = self.headers()
        return 0, self._lead(heads[0]) if heads else len(self.lines)

    def set(self, where: tuple[int, int], key: str, value: str) -> None:
        """`key = value` on the key's line (uncommented first, else its commented form)."""
        start, end = where
        plain = re.compile(rf"^{re.escape(key)}\s*=")
        commented = re.compile(rf"^#\s?{re.escape(key)}\s*=")
        for pattern in (plain, commented):
            for i in range(start, end):
                if pattern.match(self.lines[i]):
                    self.lines[i] = f"{key} = {value}"
                    return
        raise ValueError(f"config.example.toml has no line for {key} here")

    def comment_out(self, where: tuple[int, int], key: str) -> None:
        start, end = where
        pattern = re.compile(rf"^{re.escape(key)}\s*=")
        for i in range(start, end):
            if pattern.match(self.lines[i]):
                self.lines[i] = "# " + self.lines[i]

    def replace_tables(self, header: str, make: Callable[[list[str]], list[str]]) -> None:
        """Every `header` table (they follow one another) replaced by make(first table's lines)."""
        start, end = self.span(header)
        template = self.lines[start:end]
        while template and not template[-1].strip():
            template.pop()
        # The first table's own lines: up to the next `header` line.
        nxt = [i for i, line in enumerate(template) if i and line.strip() == header]
        first = template[: nxt[0]] if nxt else template
        while first and not first[-1].strip():
            first.pop()
        self.lines[start:end] = [*make(first), ""]

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _table(template: list[str], values: dict[str, str], *, documented: bool) -> list[str]:
    """One array table from the example's first one: its key lines set, its comments kept
    only for the first table written (`documented`)."""
    doc = _Doc("\n".join(template))
    for key, value in values.items():
        doc.set((0, len(doc.lines)), key, value)
    if documented:
        return doc.lines
    return [line for line in doc.lines if not line.startswith("#")]


def fill_example(example: str, answers: Answers) -> str:
    """config.example.toml's text with init's answers in place of its example values."""
    doc = _Doc(example)
    doc.set(doc.top(), "state_dir", toml_string(answers.state_dir))

    m = doc.span("[matrix]")
    doc.set(m, "homeserver", toml_string(answers.homeserver))
    doc.set(m, "user_id", toml_string(answers.user_id))
    if answers.password_file is not None:
        doc.comment_out(m, "password_env")
        doc.set(m, "password_file", toml_string(answers.password_file))
    else:
        doc.set(m, "password_env", toml_string(answers.password_env))

    def rooms(template: list[str]) -> list[str]:
        if not answers.rooms:
            return [
                "# The bot is in no room yet: invite it, then add a [[rooms]] table per room",
                "# (`roombot init` run again lists the rooms it is in or invited to). For example:",
                *(line if line.startswith("#") else "# " + line for line in template),
            ]
        out: list[str] = []
        for n, room in enumerate(answers.rooms):
            values = {"room": toml_string(room.room_id), "loud": "false", "mention": "[]"}
            if n:
                out.append("")
            out.append(f"# {room.describe()}")
            out.extend(_table(template, values, documented=n == 0))
        return out

    doc.replace_tables("[[rooms]]", rooms)

    inv = doc.span("[invites]")
    doc.set(inv, "users", "[]")
    doc.set(inv, "servers", "[]")

    def sources(template: list[str]) -> list[str]:
        out: list[str] = []
        for n, source in enumerate(answers.sources):
            if n:
                out.append("")
            values = {
                "name": toml_string(source.name),
                "token_file": toml_string(source.token_file),
                "rooms": toml_strings(["*"]),
            }
            for line in _table(template, values, documented=n == 0):
                if not re.match(r"^token_env\s*=", line):
                    out.append(line)
                elif n == 0:  # the documented table keeps the other way, commented
                    out.append("# " + line)
        return out

    doc.replace_tables("[[api.sources]]", sources)
    return HEADER + doc.text()
