"""Commands read from the rooms, acted on once, answered through the outbox.

The Matrix shell hands every `m.room.message` it reads (decrypted in encrypted rooms)
to `RoomReader.read` with the sender's power level; this is the one place room
commands are taken. For each message:
screen it (roomcommands.screen), claim its event id in the outbox's SQLite (a
command runs at most once, across restarts), parse it, check the sender's power
level against the room's `command_power`, then answer at once (help, usage,
refusals) or hand a request to the node desk (plan, apply) and answer when the node
does or after its timeout. Every answer is an outbox notice (`Action.ANSWER`) keyed
by the command's event id, so it is sent exactly once like a card.

Silences are set, listed and lifted here in the `SilenceStore` (roombot/silence_store.py)
the bot opened on the outbox's file; a silence covers the room's id and every name the
configuration gives it. The store is told the command's event id, so a crash between
the silence and its answer gives, at the next start, the answer of the silence that
was set rather than a second silence.

It is also what the report API's node routes talk to (`roombot.api.desk.Desk`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence

from roombot import roomcommands as rc
from roombot.config import RoomConfig
from roombot.node_desk import Finished, NodeDesk, Refused, Request, ResultIn
from roombot.outbox import Outbox
from roombot.redact import Redactor
from roombot.silence_store import SilenceStore

log = logging.getLogger("roombot.commands")

# What becomes of a command taken: answered by the bot (help, usage), refused for the
# sender's power level, refused by the node desk (node unknown here, digest never
# planned), passed to its node, answered by the node (ok or refused), timed out.
OUTCOMES = (
    "answered",
    "refused_power",
    "refused_desk",
    "passed",
    "node_ok",
    "node_refused",
    "timed_out",
    "silence_set",
    "silence_lifted",
)
# Active silences one room may hold: each is looked at for every failure in the room.
MAX_ACTIVE_SILENCES = 100


def _reporter_names() -> tuple[str, ...]:
    from roombot.reporters import REPORTERS

    return tuple(REPORTERS)


class RoomReader:
    def __init__(
        self,
        outbox: Outbox,
        rooms: Sequence[RoomConfig] = (),
        desk: NodeDesk | None = None,
        *,
        reporters: Collection[str] | None = None,
        clock: Callable[[], float] = time.time,
        redactor: Redactor | None = None,
        silences: SilenceStore | None = None,
    ) -> None:
        self.rooms = tuple(rooms)
        self.silences = silences  # None: this reader sets no silences (it says so)
        # A node's texts are a harness's configuration: the context lines of a diff can
        # hold a provider's key. They pass the bot's redaction before any notice holds them.
        self.redactor = redactor or Redactor()
        self.outbox = outbox
        self.desk = desk or NodeDesk()
        self.reporters = tuple(_reporter_names() if reporters is None else reporters)
        self.clock = clock
        self.since = outbox.commands_since(clock())
        self.read_count = 0  # commands taken
        self.replayed = 0  # commands seen again and left alone
        # what became of each command taken, for /metrics (OUTCOMES)
        self.outcomes: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        self._commands: dict[str, rc.Plan | rc.Apply] = {}  # request id -> its command
        # A command claimed but never answered: the bot stopped while a node's answer
        # was awaited. The room hears so instead of waiting forever.
        for event_id, room in outbox.unanswered_commands():
            made = None if silences is None else silences.by_command(event_id)
            if made is not None:  # the silence was set; only its answer was not stored
                self._answer(room, event_id, rc.silence_answer(made))
                continue
            self._answer(
                room,
                event_id,
                rc.Answer(
                    "The bot restarted before a node answered an earlier !roombot command; "
                    "nothing is known of its outcome: send the command again (plan again "
                    "before an apply).",
                    "<p>The bot restarted before a node answered an earlier "
                    "<code>!roombot</code> command; nothing is known of its outcome: send "
                    "the command again (plan again before an apply).</p>",
                ),
                "restarted",
            )

    # -- reading ----------------------------------------------------------------

    def power_needed(self, room: str, refs: Collection[str]) -> int:
        for cfg in self.rooms:
            if cfg.room == room or cfg.room in refs:
                return cfg.command_power
        return rc.DEFAULT_POWER

    def read(
        self, msg: rc.Incoming, *, me: str, level: int, refs: frozenset[str] = frozenset()
    ) -> bool:
        """Act on one message; True when it was taken as a command (answered or passed on)."""
        now = self.clock()
        if rc.screen(msg, me=me, now_ms=int(now * 1000), since_ms=int(self.since * 1000)):
            return False
        command = rc.parse(msg.body, self.reporters)
        if command is None:
            return False
        if not self.outbox.claim_command(msg.event_id, msg.room):
            self.replayed += 1
            return False  # read before (a replayed sync, a restart): never again
        self.read_count += 1
        needed = self.power_needed(msg.room, refs)
        fields = {"room": msg.room, "event_id": msg.event_id, "command": rc.what(command)}
        if not rc.permitted(level, needed):
            log.warning(
                "room command refused: power level too low",
                extra={**fields, "sender": msg.sender, "level": level, "needed": needed},
            )
            self._answer(msg.room, msg.event_id, rc.refusal(command, level, needed))
            self.outcomes["refused_power"] += 1
            return True
        log.info("room command", extra={**fields, "sender": msg.sender})
        match command:
            case rc.Help():
                self._answer(msg.room, msg.event_id, rc.help_answer(needed, self.reporters))
                self.outcomes["answered"] += 1
            case rc.Usage(problem):
                self._answer(
                    msg.room, msg.event_id, rc.usage_answer(problem, needed, self.reporters)
                )
                self.outcomes["answered"] += 1
            case rc.Plan() | rc.Apply():
                self._pass_on(msg, command, refs | {msg.room}, now)
            case rc.SetSilence() | rc.ListSilences() | rc.Unsilence():
                self._silence(msg, command, refs | {msg.room}, now)
        return True

    def _silence(
        self,
        msg: rc.Incoming,
        command: rc.SetSilence | rc.ListSilences | rc.Unsilence,
        refs: frozenset[str],
        now: float,
    ) -> None:
        store = self.silences
        if store is None:
            self._answer(msg.room, msg.event_id, rc.refused(command, "this bot keeps no silences"))
            self.outcomes["refused_desk"] += 1
            return
        mine = [s for s in store.snapshot() if s.rooms & refs]
        match command:
            case rc.SetSilence(matchers, duration, reason):
                if sum(s.active(now) for s in mine) >= MAX_ACTIVE_SILENCES:
                    self._answer(msg.room, msg.event_id, rc.too_many_silences(MAX_ACTIVE_SILENCES))
                    self.outcomes["refused_desk"] += 1
                    return
                made = store.add(
                    rooms=refs,
                    matchers=matchers,
                    duration=duration,
                    reason=reason,
                    by=msg.sender,
                    command=msg.event_id,
                )
                log.info(
                    "silence set",
                    extra={
                        "room": msg.room,
                        "silence": made.id,
                        "matchers": made.describe(),
                        "until": made.ends,
                        "sender": msg.sender,
                    },
                )
                self._answer(msg.room, msg.event_id, rc.silence_answer(made))
                self.outcomes["silence_set"] += 1
            case rc.ListSilences():
                active = [s for s in mine if s.active(now)]
                self._answer(msg.room, msg.event_id, rc.silences_answer(active))
                self.outcomes["answered"] += 1
            case rc.Unsilence(silence_id):
                found = next((s for s in mine if s.id == silence_id), None)
                if found is None:
                    self._answer(msg.room, msg.event_id, rc.no_silence(silence_id))
                    self.outcomes["refused_desk"] += 1
                    return
                fresh = found.lifted is None and found.active(now)
                lifted = store.lift(silence_id, msg.sender) if fresh else found
                if lifted is None:  # pruned in between
                    self._answer(msg.room, msg.event_id, rc.no_silence(silence_id))
                    self.outcomes["refused_desk"] += 1
                    return
                fresh = fresh and lifted.lifted_by == msg.sender and lifted.lifted is not None
                if fresh:
                    log.info(
                        "silence lifted",
                        extra={"room": msg.room, "silence": silence_id, "sender": msg.sender},
                    )
                    self.outcomes["silence_lifted"] += 1
                else:
                    self.outcomes["answered"] += 1
                self._answer(msg.room, msg.event_id, rc.lifted_answer(lifted, fresh))

    def _pass_on(
        self, msg: rc.Incoming, command: rc.Plan | rc.Apply, refs: frozenset[str], now: float
    ) -> None:
        try:
            if isinstance(command, rc.Plan):
                request = self.desk.plan(
                    room=msg.room,
                    refs=refs,
                    command=msg.event_id,
                    node=command.node,
                    reporter=command.reporter,
                    action=command.action,
                    now=now,
                )
            else:
                request = self.desk.apply(
                    room=msg.room,
                    refs=refs,
                    command=msg.event_id,
                    node=command.node,
                    digest=command.digest,
                    now=now,
                )
        except Refused as e:
            self._answer(msg.room, msg.event_id, rc.refused(command, str(e)))
            self.outcomes["refused_desk"] += 1
            return
        self._commands[request.id] = command
        self.outcomes["passed"] += 1
        log.info(
            "room command passed to its node",
            extra={"room": msg.room, "node": command.node, "request": request.id},
        )

    # -- answers ----------------------------------------------------------------

    def _answer(self, room: str, command: str, answer: rc.Answer, part: str = "") -> None:
        key = f"answer:{command}" + (f":{part}" if part else "")
        self.outbox.add_answer(key=key, room=room, command=command, content=rc.content(answer))

    def _finish(self, done: Finished) -> None:
        r = done.request
        command = self._commands.get(r.id)
        if command is None:  # the desk holds only what this reader gave it
            return
        if done.timed_out:
            self._answer(
                r.room, r.command, rc.timeout_answer(command, self.desk.timeout, r.fetched)
            )
            self.outcomes["timed_out"] += 1
            return
        self._commands.pop(r.id, None)
        part = "late" if done.late else ""
        text, diff = self.redactor.text(done.text), self.redactor.text(done.diff)
        self.outcomes["node_ok" if done.ok else "node_refused"] += 1
        if not done.ok:
            answer = rc.node_refused(command, text, late=done.late)
        elif isinstance(command, rc.Plan):
            answer = rc.plan_answer(
                command, done.digest or "", diff, done.versions, text, late=done.late
            )
        else:
            answer = rc.applied_answer(command, text, late=done.late)
        self._answer(r.room, r.command, answer, part)

    def tick(self) -> None:
        for done in self.desk.expire(self.clock()):
            self._finish(done)
        for rid in [rid for rid in self._commands if not self.desk.knows(rid)]:
            del self._commands[rid]  # its late answer can no longer come

    # -- the report API's side (roombot.api.desk.Desk) --------------------------------

    def poll(self, *, source: str, allows: Callable[[str], bool], node: str) -> list[Request]:
        return self.desk.poll(source=source, allows=allows, node=node, now=self.clock())

    def results(
        self,
        *,
        source: str,
        allows: Callable[[str], bool],
        node: str,
        results: Sequence[ResultIn],
    ) -> list[str]:
        """Take a node's results; the ids not taken."""
        done, unknown = self.desk.results(
            source=source, allows=allows, node=node, results=results, now=self.clock()
        )
        for d in done:
            self._finish(d)
        return unknown
