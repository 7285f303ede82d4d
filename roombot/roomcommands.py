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
answer tells a member what they could do, and costs a notice. So do `silences`
(what is held back in a room is the room's moderators' business) and `unsilence`.

Silences (`silence`, `silences`, `unsilence`): the matchers and the duration are
parsed by `roombot.silences`; the reason is the rest of the message's words, up to
`silences.MAX_REASON` characters, stored as typed and shown through `foreign`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from cards.html import escape
from cards.text import cut_shown, shown, shown_name, valid_text
from roombot import silences
from roombot.node_name import NAME
from roombot.silence_store import ID_SHAPE
from roombot.silences import Silence, SilenceError

PREFIX: Final = "!roombot"
DEFAULT_POWER: Final = 50
MAX_BODY: Final = 1_000  # characters of a command message; longer is refused unread
MAX_AGE_MS: Final = 10 * 60 * 1000
NODE: Final = NAME  # a node as the agent names itself
REPORTER: Final = re.compile(r"[a-z][a-z0-9\-]{0,31}")
DIGEST: Final = re.compile(r"[0-9a-f]{64}")
SILENCE_ID: Final = ID_SHAPE  # a silence's id, as roombot.silence_store makes them
LISTED: Final = 30  # silences one `!roombot silences` answer lists at most
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
    SILENCE = "silence"
    SILENCES = "silences"
    UNSILENCE = "unsilence"


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
class SetSilence:
    matchers: tuple[tuple[str, str], ...]
    duration: float  # seconds
    reason: str = ""
    op: Op = Op.SILENCE


@dataclass(frozen=True, slots=True)
class ListSilences:
    op: Op = Op.SILENCES


@dataclass(frozen=True, slots=True)
class Unsilence:
    id: str
    op: Op = Op.UNSILENCE


@dataclass(frozen=True, slots=True)
class Usage:
    """A message addressed to the bot that is no command it knows: what was wrong."""

    problem: str
    op: None = None


Command = Help | Plan | Apply | SetSilence | ListSilences | Unsilence | Usage


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
    if words[0] in (Op.SILENCE, Op.SILENCES, Op.UNSILENCE):
        return _parse_silence(words[0], words[1:])
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


def _parse_silence(op: str, rest: list[str]) -> Command:
    if op == Op.SILENCES:
        return ListSilences() if not rest else Usage("`silences` takes nothing more")
    if op == Op.UNSILENCE:
        if len(rest) != 1:
            return Usage("`unsilence` takes one silence ID, as `silences` lists them")
        if not SILENCE_ID.fullmatch(rest[0].lower()):
            return Usage(f"{_word(rest[0])!r} is not a silence ID (like s4k2m9q)")
        return Unsilence(rest[0].lower())
    at = next((i for i, w in enumerate(rest) if silences.is_duration(w.lower())), None)
    if at is None:
        return Usage(
            "`silence` takes MATCHER... DURATION [REASON], "
            "e.g. kind=quota provider=openai 2h; no duration like 30m, 2h or 1d was given"
        )
    try:
        matchers = silences.parse_matchers(rest[:at])
        duration = silences.parse_duration(rest[at].lower())
    except SilenceError as e:
        return Usage(shown_name(str(e)))
    reason = " ".join(rest[at + 1 :])
    if len(reason) > silences.MAX_REASON:
        return Usage(f"the reason is longer than {silences.MAX_REASON} characters")
    return SetSilence(matchers, duration, reason)


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


_COMMANDS: Final = (
    ("!roombot help", "this list"),
    (
        "!roombot reporters plan NODE NAME enable|disable",
        "the node plans the change and the bot posts its diff and digest (nothing is written)",
    ),
    (
        "!roombot reporters apply NODE DIGEST",
        "the node applies that plan, only if its files still hash as planned (a backup of "
        "each file first; nothing is restarted)",
    ),
    (
        "!roombot silence MATCHER... DURATION [REASON]",
        "post no card for the failures that match, for 1m to 30d (e.g. kind=quota "
        "provider=openai 2h); one notice sums up what it held back when it ends",
    ),
    ("!roombot silences", "the silences active in this room, with their IDs"),
    ("!roombot unsilence ID", "lift a silence now"),
)


def _notes(power: int) -> list[str]:
    return [
        f"Matchers: field=value with field one of {', '.join(silences.FIELDS)}; a value may "
        "use * and ?.",
        f"Commands are taken from members with power level {power} or more in this room; "
        "a node takes reporters commands only once it has opted in "
        "(roombot node plugin-management enable).",
    ]


def help_answer(power: int, reporters: Collection[str]) -> Answer:
    names = ", ".join(sorted(reporters)) or "none"
    notes = _notes(power)
    plain = "roombot commands:\n" + "\n".join(f"  {c} — {d}" for c, d in _COMMANDS)
    plain += f"\nReporters: {names}.\n" + "\n".join(notes)
    items = "".join(f"<li>{_code(c)} — {escape(d)}</li>" for c, d in _COMMANDS)
    html = (
        "<p><b>roombot commands</b></p>"
        f"<ul>{items}</ul>"
        + _para("Reporters: ", escape(names), ".")
        + "".join(_para(escape(n)) for n in notes)
    )
    return Answer(plain, html)


def usage_answer(problem: str, power: int, reporters: Collection[str]) -> Answer:
    first = f"Not a roombot command: {problem}."
    usage = help_answer(power, reporters)
    return Answer(f"{first}\n{usage.plain}", _para(escape(first)) + usage.html.split("</p>", 1)[1])


_WHAT: Final = {
    Plan: "reporters plan",
    Apply: "reporters apply",
    SetSilence: "silence",
    ListSilences: "silences",
    Unsilence: "unsilence",
}


def what(command: Command) -> str:
    return _WHAT.get(type(command), "roombot commands")


def refusal(command: Command, level: int, needed: int) -> Answer:
    name = what(command)
    text = (
        f"Refused: only members with power level {needed} or more may run "
        f"{'!roombot ' + name if type(command) in _WHAT else name} in this room; "
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


# -- silences -----------------------------------------------------------------------------


def utc(seconds: float) -> str:
    """A time as the answers show it: `2026-12-01 14:00 UTC`."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))


def span(seconds: float) -> str:
    """A duration as it would be typed: `2h`, `1h30m`, `3d`, `45s`."""
    rest = round(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        n, rest = divmod(rest, size)
        if n:
            parts.append(f"{n}{unit}")
    return "".join(parts) or "0s"


def _member(user: str) -> str:
    return cut_shown(shown_name(user), 120)


def _reason(silence: Silence) -> str:
    return foreign(silence.reason, silences.MAX_REASON) if silence.reason else ""


def silence_answer(silence: Silence) -> Answer:
    """A silence just set (or found set by the same command at a restart)."""
    what_ = silence.describe()
    head = (
        f"Silenced {what_} in this room for {span(silence.ends - silence.starts)}, "
        f"until {utc(silence.ends)} (ID {silence.id})."
    )
    tail = (
        "Matching failures post no card while it holds; one notice sums them up when it "
        f"ends. Lift it sooner with: !roombot unsilence {silence.id}"
    )
    why = _reason(silence)
    plain = head + (f"\nReason: {why}" if why else "") + "\n" + tail
    html = (
        _para(
            "Silenced ",
            _code(what_),
            f" in this room for {escape(span(silence.ends - silence.starts))}, until "
            f"{escape(utc(silence.ends))} (ID {_code(silence.id)}).",
        )
        + (_para("Reason: ", escape(why)) if why else "")
        + _para(
            "Matching failures post no card while it holds; one notice sums them up when it "
            "ends. Lift it sooner with: ",
            _code(f"!roombot unsilence {silence.id}"),
        )
    )
    return Answer(plain, html)


def silences_answer(active: Sequence[Silence]) -> Answer:
    """The room's active silences, earliest first, at most LISTED of them."""
    if not active:
        text = "No silence is active in this room."
        return Answer(text, _para(escape(text)))
    head = f"Silences active in this room ({len(active)}):"
    shown_ = active[:LISTED]
    lines: list[str] = []
    items: list[str] = []
    for s in shown_:
        why = _reason(s)
        by = _member(s.by)
        lines.append(
            f"  {s.id}  {s.describe()} — until {utc(s.until)} — by {by}"
            + (f" — {why}" if why else "")
        )
        items.append(
            f"<li>{_code(s.id)} {_code(s.describe())} — until {escape(utc(s.until))} — by "
            f"{escape(by)}" + (f" — {escape(why)}" if why else "") + "</li>"
        )
    more = len(active) - len(shown_)
    note = f"… and {more} more (the report API lists them all: GET /v1/silences)" if more else ""
    plain = "\n".join([head, *lines, *([note] if note else [])])
    html = (
        _para("<b>", escape(head), "</b>")
        + f"<ul>{''.join(items)}</ul>"
        + (_para(escape(note)) if note else "")
    )
    return Answer(plain, html)


def lifted_answer(silence: Silence, fresh: bool) -> Answer:
    """The answer to `unsilence`: lifted by this command (`fresh`), or over already."""
    what_ = silence.describe()
    if fresh:
        text = (
            f"Lifted silence {silence.id} ({what_}), set by {_member(silence.by)} "
            f"until {utc(silence.ends)}; what it held back is summed up next."
        )
    elif silence.lifted is not None:
        text = (
            f"Silence {silence.id} ({what_}) was lifted already, at {utc(silence.lifted)} "
            f"by {_member(silence.lifted_by or '')}."
        )
    else:
        text = f"Silence {silence.id} ({what_}) has ended already, at {utc(silence.ends)}."
    return Answer(text, _para(escape(text)))


def no_silence(silence_id: str) -> Answer:
    text = (
        f"Refused: !roombot unsilence: no silence {silence_id} in this room "
        "(!roombot silences lists them)."
    )
    return Answer(text, _para(escape(text)))


def too_many_silences(limit: int) -> Answer:
    text = (
        f"Refused: !roombot silence: this room has {limit} silences active already; "
        "lift one first (!roombot silences lists them)."
    )
    return Answer(text, _para(escape(text)))
