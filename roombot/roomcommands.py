"""Commands read from a room: `!roombot ...` parsed, screened, permitted, and answered. Pure.

Everything here is hostile input: the body of a room message, the names in it, and
the texts a node sends back. The parser accepts only short, plainly shaped words
(node names, reporter names, digests) and answers anything else with the usage;
the answers show foreign text through `cards.text.shown` (every hidden character
made visible), escaped in the HTML, inside code blocks, and every answer carries
an empty `m.mentions`, so no text it repeats can ping a member or the room.

Which messages are read at all (`screen`):
- `m.text` only (an `m.notice` is another bot's: never answered, as the spec asks);
- never the bot's own, never an edit (an edited command is not run again);
- never one older than `MAX_AGE_MS` by the bot's clock, nor one from before the
  bot first read commands (`since_ms`, kept in its state): a sync from scratch,
  a newly joined room's history or a restart never runs an old command again;
- the event id is claimed durably before anything is done (the caller's store),
  so one event runs at most once, across restarts.

Who may run a command (`permitted`): a member whose power level in the room is at
least the room's `command_power` (default 50, a moderator). `help` too: its
answer tells a member what they could do, and costs a notice.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from cards.html import escape
from cards.text import cut_shown, shown, shown_name, valid_text
from roombot.node_name import NAME

PREFIX: Final = "!roombot"
DEFAULT_POWER: Final = 50
MAX_BODY: Final = 1_000  # characters of a command message; longer is refused unread
MAX_AGE_MS: Final = 10 * 60 * 1000
NODE: Final = NAME  # a node as the agent names itself
REPORTER: Final = re.compile(r"[a-z][a-z0-9\-]{0,31}")
DIGEST: Final = re.compile(r"[0-9a-f]{64}")
ACTIONS: Final = ("enable", "disable")
# What an answer shows of a node's texts: a diff up to this many lines and characters,
# a sentence up to this many characters.
DIFF_LINES: Final = 120
DIFF_CHARS: Final = 8_000
TEXT_CHARS: Final = 1_000
HTML_FORMAT: Final = "org.matrix.custom.html"


class Op(StrEnum):
    HELP = "help"
    PLAN = "plan"
    APPLY = "apply"


@dataclass(frozen=True, slots=True)
class Help:
    op: Op = Op.HELP


@dataclass(frozen=True, slots=True)
class Plan:
    node: str
    reporter: str
    action: str  # "enable" | "disable"
    op: Op = Op.PLAN


@dataclass(frozen=True, slots=True)
class Apply:
    node: str
    digest: str
    op: Op = Op.APPLY


@dataclass(frozen=True, slots=True)
class Usage:
    """A message addressed to the bot that is no command it knows: what was wrong."""

    problem: str
    op: None = None


Command = Help | Plan | Apply | Usage


def _word(text: str, limit: int = 40) -> str:
    """A word from the message, for a usage answer: shown, cut."""
    return cut_shown(shown_name(text), limit) + ("…" if len(text) > limit else "")


def parse(body: str, reporters: Collection[str]) -> Command | None:
    """The command in a message body; None when the message is not addressed to the bot.

    `reporters`: the reporter names this bot knows (roombot.reporters.REPORTERS).
    """
    body = valid_text(body)
    stripped = body.strip()
    head = stripped.split(None, 1)[0] if stripped else ""
    if head.lower() != PREFIX:
        return None
    if len(body) > MAX_BODY:
        return Usage(f"the message is longer than {MAX_BODY} characters")
    words = stripped.split()[1:]
    if not words or words == ["help"]:
        return Help()
    if words[0] != "reporters":
        return Usage(f"unknown command {_word(words[0])!r}")
    rest = words[1:]
    if not rest:
        return Usage("`reporters` needs `plan` or `apply`")
    if rest[0] == "plan":
        if len(rest) != 4:
            return Usage("`reporters plan` takes NODE NAME enable|disable")
        node, name, action = rest[1:]
        if not NODE.fullmatch(node):
            return Usage(f"{_word(node)!r} is not a node name (letters, digits, '_.-', 1-64)")
        if name not in reporters:
            known = ", ".join(sorted(reporters)) or "none"
            return Usage(f"no reporter named {_word(name)!r} (known: {known})")
        if action not in ACTIONS:
            return Usage(f"{_word(action)!r} is not enable or disable")
        return Plan(node, name, action)
    if rest[0] == "apply":
        if len(rest) != 3:
            return Usage("`reporters apply` takes NODE DIGEST")
        node, digest = rest[1:]
        if not NODE.fullmatch(node):
            return Usage(f"{_word(node)!r} is not a node name (letters, digits, '_.-', 1-64)")
        if not DIGEST.fullmatch(digest):
            return Usage(f"{_word(digest, 70)!r} is not a plan digest (64 hex digits)")
        return Apply(node, digest)
    return Usage(f"unknown reporters command {_word(rest[0])!r}")


# -- which messages are read ------------------------------------------------------------


class Ignored(StrEnum):
    NOT_TEXT = "not an m.text message"
    OWN = "the bot's own message"
    EDIT = "an edit"
    OLD = "older than the bot's command horizon"


@dataclass(frozen=True, slots=True)
class Incoming:
    """One room message as the Matrix shell read it (decrypted when it was encrypted)."""

    room: str
    event_id: str
    sender: str
    body: str
    msgtype: str
    ts_ms: int  # origin_server_ts
    edit: bool = False  # it replaces another event (m.replace) or carries m.new_content
    encrypted: bool = False


def screen(msg: Incoming, *, me: str, now_ms: int, since_ms: int) -> Ignored | None:
    """Why the message is not read as a command, or None when it is."""
    if msg.msgtype != "m.text":
        return Ignored.NOT_TEXT
    if msg.sender == me:
        return Ignored.OWN
    if msg.edit:
        return Ignored.EDIT
    if msg.ts_ms < since_ms or msg.ts_ms < now_ms - MAX_AGE_MS:
        return Ignored.OLD
    return None


def permitted(level: int, needed: int) -> bool:
    return level >= needed


# Room versions before "privileged creators" (MSC4289, room version 12): there the
# creator is listed in m.room.power_levels like anyone else.
_LISTED_CREATORS: Final = frozenset(str(v) for v in range(1, 12))
CREATOR_LEVEL: Final = 2**53  # above any level a power_levels event can hold


def level_of(sender: str, listed: int, *, creators: Collection[str], room_version: str) -> int:
    """The sender's power level: from m.room.power_levels (`listed`), except that from
    room version 12 on, the room's creators (the create event's sender and its
    `additional_creators`) outrank everyone and are not listed."""
    if room_version not in _LISTED_CREATORS and sender in creators:
        return CREATOR_LEVEL
    return listed


# -- answers ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answer:
    """A notice's two forms: plain text and Matrix HTML (already safe)."""

    plain: str
    html: str
    extra: Mapping[str, Any] = field(default_factory=dict)  # more content keys


def content(answer: Answer) -> dict[str, Any]:
    """The m.notice content of an answer: never a mention, whatever the text holds."""
    return {
        "msgtype": "m.notice",
        "body": answer.plain,
        "format": HTML_FORMAT,
        "formatted_body": answer.html,
        "m.mentions": {},
        **answer.extra,
    }


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def _para(*parts: str) -> str:
    return "<p>" + "".join(parts) + "</p>"


def foreign(text: str, chars: int = TEXT_CHARS) -> str:
    """A sentence from a node or a room: every hidden character shown, cut with a mark."""
    text = shown(valid_text(text))
    if len(text) <= chars:
        return text
    return cut_shown(text, chars) + f"… [{len(text) - chars:,} more characters not shown]"


def _commands_plain(power: int) -> list[str]:
    return [
        "!roombot help — this list",
        "!roombot reporters plan NODE NAME enable|disable — the node plans the change "
        "and the bot posts its diff and digest (nothing is written)",
        "!roombot reporters apply NODE DIGEST — the node applies that plan, only if its "
        "files still hash as planned (a backup of each file first; nothing is restarted)",
        f"Commands are taken from members with power level {power} or more in this room; "
        "a node takes them only once it has opted in "
        "(roombot node plugin-management enable).",
    ]


def help_answer(power: int, reporters: Collection[str]) -> Answer:
    lines = _commands_plain(power)
    names = ", ".join(sorted(reporters)) or "none"
    plain = "roombot commands:\n" + "\n".join(f"  {line}" for line in lines[:3])
    plain += f"\nReporters: {names}.\n{lines[3]}"
    items = "".join(
        f"<li>{_code(line.split(' — ')[0])} — {escape(line.split(' — ')[1])}</li>"
        for line in lines[:3]
    )
    html = (
        "<p><b>roombot commands</b></p>"
        f"<ul>{items}</ul>" + _para("Reporters: ", escape(names), ".") + _para(escape(lines[3]))
    )
    return Answer(plain, html)


def usage_answer(problem: str, power: int, reporters: Collection[str]) -> Answer:
    first = f"Not a roombot command: {problem}."
    usage = help_answer(power, reporters)
    return Answer(f"{first}\n{usage.plain}", _para(escape(first)) + usage.html.split("</p>", 1)[1])


def what(command: Command) -> str:
    if isinstance(command, Plan):
        return "reporters plan"
    if isinstance(command, Apply):
        return "reporters apply"
    return "roombot commands"


def refusal(command: Command, level: int, needed: int) -> Answer:
    text = (
        f"Refused: only members with power level {needed} or more may run "
        f"{'!roombot ' + what(command) if isinstance(command, Plan | Apply) else what(command)}"
        " in this room; "
        f"your power level here is {level}."
    )
    return Answer(text, _para(escape(text)))


def refused(command: Command, why: str) -> Answer:
    """A command the bot will not pass on (node unknown here, digest never planned...)."""
    node = getattr(command, "node", None)
    head = f"Refused: !roombot {what(command)}" + (f" on node {node}" if node else "")
    text = f"{head}: {foreign(why)}"
    return Answer(text, _para(escape(head), ": ", escape(foreign(why))))


def timeout_answer(command: Plan | Apply, timeout: float, fetched: bool) -> Answer:
    why = (
        "it fetched the request but sent no result"
        if fetched
        else "it did not ask the bot for work (is `roombot node run` running there?)"
    )
    text = (
        f"Node {command.node} did not answer !roombot {what(command)} within {timeout:g} s: {why}."
    )
    if fetched and isinstance(command, Apply):
        text += " Whether the change was applied is not known; plan again to see."
    return Answer(text, _para(escape(text)))


def node_refused(command: Plan | Apply, text: str, late: bool = False) -> Answer:
    head = f"Node {command.node} refused !roombot {what(command)}" + (" (late)" if late else "")
    body = foreign(text)
    return Answer(f"{head}: {body}", _para(escape(head), ": ", escape(body)))


def _versions(versions: Mapping[str, str | None]) -> str:
    if not versions:
        return "none reported"
    return ", ".join(
        f"{shown_name(k)[:40]} {shown_name(v)[:40] if v else 'not found'}"
        for k, v in sorted(versions.items())
    )


def cut_diff(diff: str) -> tuple[str, str | None]:
    """The diff as the notice shows it, and a note when it was cut (whole lines)."""
    text = shown(valid_text(diff))
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    size = 0
    for line in lines:
        if len(kept) >= DIFF_LINES or size + len(line) > DIFF_CHARS:
            break
        kept.append(line)
        size += len(line)
    if len(kept) == len(lines):
        return text, None
    if not kept:  # one enormous line: cut inside it
        kept = [cut_shown(text, DIFF_CHARS)]
    rest = len(lines) - len(kept)
    return "".join(kept), (
        f"the diff is cut here: {rest:,} more lines not shown "
        "(the node prints it whole: roombot reporters plan NAME)"
    )


def plan_answer(
    command: Plan,
    digest: str,
    diff: str,
    versions: Mapping[str, str | None],
    note: str = "",
    late: bool = False,
) -> Answer:
    where = f"node {command.node}"
    head = f"Plan: {command.action} the {command.reporter} reporter on {where}" + (
        " (late)" if late else ""
    )
    found = _versions(versions)
    shown_note = foreign(note) if note else ""
    if not diff:
        text = f"{head}: nothing to change (it is already so). Versions found: {found}."
        if shown_note:
            text += f"\n{shown_note}"
        return Answer(text, _para(escape(text)).replace("\n", "<br>"))
    body, cut = cut_diff(diff)
    apply = f"!roombot reporters apply {command.node} {digest}"
    plain = [
        head,
        f"Digest: {digest}",
        f"Versions found: {found}",
        *([shown_note] if shown_note else []),
        f"To apply exactly this: {apply}",
        "",
        body.rstrip("\n"),
        *([f"[{cut}]"] if cut else []),
    ]
    html = (
        _para("<b>", escape(head), "</b>")
        + _para("Digest: ", _code(digest), "<br>Versions found: ", escape(found))
        + (_para(escape(shown_note)) if shown_note else "")
        + _para("To apply exactly this: ", _code(apply))
        + f'<pre><code class="language-diff">{escape(body)}</code></pre>'
        + (_para("<i>", escape(cut), "</i>") if cut else "")
    )
    return Answer("\n".join(plain), html)


def applied_answer(command: Apply, text: str, late: bool = False) -> Answer:
    head = f"Applied on node {command.node}: plan {command.digest[:12]}…" + (
        " (late)" if late else ""
    )
    body = foreign(text)
    return Answer(f"{head}\n{body}", _para("<b>", escape(head), "</b><br>", escape(body)))
