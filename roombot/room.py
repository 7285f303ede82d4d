"""The room stage: where each card goes and what the room's timeline shows. Sans-I/O.

Between the turn rules and the outbox: the rules say which turn gets a card
(`Post`) or had a false alarm (`Retract`); this stage decides where the card goes
(beside the message that started the turn, in a group card's thread, nowhere
because a silence holds it back) and what else the room shows (the group card and
its edits, reactions on the triggering message, a silence's summary). It does no
I/O and reads no clock: every call gets `now` from the caller and answers with room
actions, plain values the outbox delivers durably and exactly once. The same calls
with the same clock give the same actions, so the pipeline rebuilds the stage by
replaying its journal like the rules.

Rule 1 still holds: every failed turn gets its own card, except a silenced one
(counted, and summed up when its silence ends) and one past the group card's
thread bound (counted by the group card; the report API still has it).

What the stage does with a `Post` is the table `ROUTES` (situation -> where the
turn's own card goes, and what happens to the group); reactions are the table
`REACTIONS`; inhibition is the table `INHIBITIONS`. docs/room.md prints the three
and explains every case; a test holds the docs to these tables.

Where a card goes needs ids the stage cannot know (a group card's event id exists
only once it is sent), so a place names either a Matrix event id (the trigger) or
the key of an earlier action (the group card); the shell resolves a key to the
event it was sent as.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, TypeAlias

from cards.kinds import Kind
from cards.shape import Group, TurnError
from roombot.silences import Silence, facts_of
from roombot.turns import Post, Retract

__all__ = [
    "GROUP_FIELDS",
    "INHIBITIONS",
    "REACTIONS",
    "ROUTES",
    "Card",
    "GroupEdit",
    "Inhibition",
    "Opened",
    "Place",
    "Placement",
    "React",
    "Ref",
    "RoomAction",
    "RoomPolicy",
    "RoomStage",
    "Route",
    "Situation",
    "Summary",
    "Unreact",
]

GROUP_FIELDS: Final = ("kind", "provider", "harness", "model", "node")
MODELS_MAX: Final = 20  # distinct models and harnesses a group card names
TURNS_MAX: Final = 50  # turn ids a group card lists
OPEN_MAX: Final = 100_000  # opened turns remembered at most (oldest forgotten first)


class Placement(StrEnum):
    THREAD = "thread"  # in the trigger's thread (m.thread, with the reply fallback)
    REPLY = "reply"  # a rich reply to the trigger
    TIMELINE = "timeline"  # at the bottom of the room, as before


@dataclass(frozen=True, slots=True)
class RoomPolicy:
    """A room's settings for this stage; every time in seconds of the caller's clock."""

    placement: Placement = Placement.THREAD
    reactions: bool = False
    group_by: tuple[str, ...] = ("kind", "provider", "harness")  # () turns grouping off
    group_window: float = 600.0
    group_interval: float = 30.0
    group_thread_max: int = 50
    inhibit_for: float = 3600.0  # a node_offline card inhibits at most this long

    def __post_init__(self) -> None:
        for name in ("group_window", "group_interval", "inhibit_for"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name}: expected a finite number of seconds >= 0")
        if not isinstance(self.group_thread_max, int) or self.group_thread_max < 0:
            raise ValueError("group_thread_max: expected a whole number >= 0")
        unknown = [f for f in self.group_by if f not in GROUP_FIELDS]
        if unknown or len(set(self.group_by)) != len(self.group_by):
            raise ValueError(f"group_by: expected distinct fields of {', '.join(GROUP_FIELDS)}")


# --- what the stage is told -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opened:
    """A turn began (from turn.started): what the stage needs to place and mark it."""

    turn: str
    room: str
    harness: str
    provider: str | None = None
    model: str | None = None
    node: str | None = None
    trigger: str | None = None  # the room message that started the turn
    thread: str | None = None  # that message's thread root, if it was in a thread


# --- what the stage answers: room actions -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ref:
    """An event in the room: by its id, or as the event an earlier action was sent as."""

    event: str | None = None
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class Place:
    """Where a new card goes: the timeline (neither set), a thread, or a reply."""

    thread: Ref | None = None  # the thread root
    reply: Ref | None = None  # the event replied to (in a thread: the fallback for old clients)
    why: str | None = None  # why not where its policy would put it (e.g. past a bound)


TIMELINE: Final = Place()


@dataclass(frozen=True, slots=True)
class Card:
    """Send a card: a turn's own, or a group card (turn `group:...`)."""

    room: str
    key: str
    turn: str
    error: TurnError
    place: Place = TIMELINE


@dataclass(frozen=True, slots=True)
class GroupEdit:
    """Replace the group card (the event sent for action `target`) with `error`."""

    room: str
    key: str
    turn: str
    target: str
    error: TurnError


@dataclass(frozen=True, slots=True)
class React:
    room: str
    key: str
    turn: str
    target: str  # the trigger's event id
    emoji: str
    after: str | None = None  # send only once this action is settled (the card it stands for)


@dataclass(frozen=True, slots=True)
class Unreact:
    """Take back (redact) the reaction sent for action `reaction`."""

    room: str
    key: str
    turn: str
    reaction: str


@dataclass(frozen=True, slots=True)
class Summary:
    """A silence ended: what it held back, as (kind, provider, count), and when."""

    room: str
    key: str
    turn: str
    silence: Silence
    held: tuple[tuple[str, str | None, int], ...]
    first: float | None  # the first and last failure held back
    last: float | None
    ended: float


RoomAction: TypeAlias = Card | Retract | GroupEdit | React | Unreact | Summary


# --- the tables ------------------------------------------------------------------------------


class Situation(StrEnum):
    SILENCED = "silenced"  # an active silence of the room matches the failure
    INHIBITED = "inhibited"  # a node_offline card of its node is open (INHIBITIONS)
    ALONE = "alone"  # no open group of its key: it opens one
    JOINS = "joins"  # an open group of its key, thread not full
    JOINS_FULL = "joins_full"  # an open group of its key, its thread full
    UNGROUPED = "ungrouped"  # the room groups nothing (group_by = [])


class Where(StrEnum):
    NOWHERE = "no card; counted by the silence"
    OWN = "its placement (trigger's thread / reply / timeline)"
    INHIBITOR = "the node_offline card's thread"
    TRIGGER_OR_GROUP = "its trigger's thread (placement thread), else the group card's thread"
    TRIGGER_OR_COUNTED = "its trigger's thread (placement thread), else counted only"


class GroupStep(StrEnum):
    NONE = "-"
    OPEN = "open a group; its card is this card, or a timeline group card when this one is not in the timeline"  # noqa: E501
    COUNT = "count it; edit the group card (at most once per group_interval)"


@dataclass(frozen=True, slots=True)
class Route:
    where: Where
    group: GroupStep


ROUTES: Final[Mapping[Situation, Route]] = {
    Situation.SILENCED: Route(Where.NOWHERE, GroupStep.NONE),
    Situation.INHIBITED: Route(Where.INHIBITOR, GroupStep.NONE),
    Situation.ALONE: Route(Where.OWN, GroupStep.OPEN),
    Situation.JOINS: Route(Where.TRIGGER_OR_GROUP, GroupStep.COUNT),
    Situation.JOINS_FULL: Route(Where.TRIGGER_OR_COUNTED, GroupStep.COUNT),
    Situation.UNGROUPED: Route(Where.OWN, GroupStep.NONE),
}


class Moment(StrEnum):
    OPENED = "the turn opens (with a trigger)"
    FAILED = "its card is decided (posted, folded or held back)"
    ANSWERED = "it ends well"
    CANCELLED = "it is cancelled (no card)"


EYES: Final = "👀"
DONE: Final = "✅"
FAILED: Final = "❌"

# moment -> (reaction put on the trigger or None, whether 👀 is taken back)
REACTIONS: Final[Mapping[Moment, tuple[str | None, bool]]] = {
    Moment.OPENED: (EYES, False),
    Moment.FAILED: (FAILED, True),
    Moment.ANSWERED: (DONE, True),
    Moment.CANCELLED: (None, True),
}


@dataclass(frozen=True, slots=True)
class Inhibition:
    """While a card of kind `source` is open, failures of `targets` that share `equal`
    fold into its thread instead of posting on their own."""

    source: Kind
    targets: frozenset[Kind]
    equal: tuple[str, ...]


INHIBITIONS: Final[tuple[Inhibition, ...]] = (
    Inhibition(Kind.NODE_OFFLINE, frozenset({Kind.HARNESS_EXITED, Kind.TIMEOUT}), ("node",)),
)


# --- the stage's state -----------------------------------------------------------------------

GroupKey: TypeAlias = tuple[str, tuple[tuple[str, str | None], ...]]  # (room, key pairs)


@dataclass(slots=True)
class _Group:
    gid: str
    room: str
    key: tuple[tuple[str, str | None], ...]
    root: str  # the action key of the group card
    root_turn: str  # the turn whose card is the group card ("group:..." for its own card)
    promoted: bool  # the group card is the first turn's own card, edited
    first_now: float
    last_now: float
    latest: TurnError
    count: int = 1
    first_at: int = 0
    last_at: int = 0
    models: list[str] = field(default_factory=list)
    harnesses: list[str] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)
    threaded: int = 0
    retracted: int = 0
    last_edit: float = -math.inf
    dirty: bool = False
    recovered_at: float | None = None
    card_sent: bool = False  # the group card is in the room (or owed to it)


@dataclass(slots=True)
class _Inhibitor:
    root: str  # the action key of the node_offline card
    turns: set[str]  # its node_offline turns still open (not retracted)
    since: float


@dataclass(slots=True)
class _Held:
    counts: dict[tuple[str, str | None], int] = field(default_factory=dict)
    first: float | None = None
    last: float | None = None


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _add_distinct(values: list[str], value: str | None) -> None:
    if value is not None and value not in values and len(values) < MODELS_MAX:
        values.append(value)


class RoomStage:
    """Feed it what the rules decided and the time; it answers with room actions."""

    def __init__(
        self,
        policies: Mapping[str, RoomPolicy] = {},
        default: RoomPolicy | None = None,
    ) -> None:
        self.policies = dict(policies)  # room (as sources name it) -> its policy
        self.default = default if default is not None else RoomPolicy()
        self._opened: dict[str, Opened] = {}  # insertion order = age
        self._cards: dict[str, str] = {}  # turn -> the action key of its own card (bounded)
        self._roots: set[str] = set()  # turns whose own card became a group card
        self._groups: dict[GroupKey, _Group] = {}  # open groups
        self._group_of: dict[str, _Group] = {}  # turn -> the group it was counted in
        self._inhibitors: dict[tuple[str, str], _Inhibitor] = {}  # (room, node) -> open
        self._held: dict[str, _Held] = {}  # silence id -> what it held back
        self._summed: set[str] = set()  # silences summed up already
        self._reacted: set[str] = set()  # turns with 👀 on their trigger
        self._now = -math.inf
        self.counts: dict[str, int] = {s.value: 0 for s in Situation}

    def policy(self, room: str) -> RoomPolicy:
        return self.policies.get(room, self.default)

    # -- the interface --

    def opened(self, turn: Opened, now: float) -> list[RoomAction]:
        """A turn began. 👀 on its trigger when the room wants reactions."""
        self._clock(now)
        if turn.turn in self._opened:
            return []
        self._opened[turn.turn] = turn
        if len(self._opened) > OPEN_MAX:
            oldest = next(iter(self._opened))
            del self._opened[oldest]
            self._reacted.discard(oldest)
        return self._react(turn.turn, Moment.OPENED, None)

    def decided(
        self, decision: Post | Retract, now: float, silences: Sequence[Silence] = ()
    ) -> list[RoomAction]:
        """A decision of the rules: place the card, fold it, or hold it back."""
        now = self._clock(now)
        out: list[RoomAction] = []
        self._expire(now, silences, out)
        if isinstance(decision, Retract):
            self._retract(decision, now, out)
        else:
            self._post(decision, now, silences, out)
        return out

    def closed(self, turn: str, answered: bool, now: float) -> list[RoomAction]:
        """The rules closed a turn with no card: it answered, or it was cancelled."""
        now = self._clock(now)
        out: list[RoomAction] = []
        opened = self._opened.pop(turn, None)
        if opened is None:
            return out
        out += self._react(turn, Moment.ANSWERED if answered else Moment.CANCELLED, None, opened)
        if answered:
            self._recover(opened, now, out)
        return out

    def tick(self, now: float, silences: Sequence[Silence] = ()) -> list[RoomAction]:
        """Due group edits, groups whose window passed, silences that ended."""
        now = self._clock(now)
        out: list[RoomAction] = []
        self._expire(now, silences, out)
        return out

    def owed(self) -> int:
        """Group card edits due and not yet made (the end of a burst is still coming)."""
        return sum(1 for g in self._groups.values() if g.dirty)

    def next_deadline(self, silences: Sequence[Silence] = ()) -> float | None:
        """When `tick` next has work."""
        due: list[float] = []
        for g in self._groups.values():
            policy = self.policy(g.room)
            if g.dirty:
                due.append(g.last_edit + policy.group_interval)
            due.append(g.last_now + policy.group_window)
        for (room, _node), inh in self._inhibitors.items():
            due.append(inh.since + self.policy(room).inhibit_for)
        for s in silences:
            if s.id not in self._summed:
                due.append(s.until)
        return min(due) if due else None

    # -- posts --

    def _post(
        self, post: Post, now: float, silences: Sequence[Silence], out: list[RoomAction]
    ) -> None:
        err = post.error
        opened = self._opened.pop(post.turn, None)
        policy = self.policy(post.room)
        situation, group, inhibitor = self._situation(post, now, silences, policy)
        self.counts[situation] += 1
        route = ROUTES[situation]
        own = self._own_place(opened, policy)
        place: Place | None
        match route.where:
            case Where.NOWHERE:
                place = None
            case Where.OWN:
                place = own
            case Where.INHIBITOR:
                assert inhibitor is not None
                place = Place(thread=Ref(notice=inhibitor.root), reply=Ref(notice=inhibitor.root))
            case Where.TRIGGER_OR_GROUP | Where.TRIGGER_OR_COUNTED:
                assert group is not None
                if own.thread is not None and policy.placement is Placement.THREAD:
                    place = own
                elif route.where is Where.TRIGGER_OR_GROUP:
                    root = Ref(notice=group.root)
                    place = Place(thread=root, reply=root)
                    group.threaded += 1
                else:
                    place = None
        if route.group is GroupStep.COUNT:
            assert group is not None
            self._count(group, post, now, policy, out)  # a new group card goes first
        if place is not None:
            out.append(Card(post.room, post.key, post.turn, err, place))
            self._cards[post.turn] = post.key
            if len(self._cards) > OPEN_MAX:
                self._roots.discard(next(iter(self._cards)))
                del self._cards[next(iter(self._cards))]
            if err.kind is Kind.NODE_OFFLINE and err.node is not None:
                self._inhibit(post, now)
        if route.group is GroupStep.OPEN:
            self._open_group(post, place, now, policy)
        if opened is not None:
            out += self._react(post.turn, Moment.FAILED, post.key if place else None, opened)

    def _situation(
        self, post: Post, now: float, silences: Sequence[Silence], policy: RoomPolicy
    ) -> tuple[Situation, _Group | None, _Inhibitor | None]:
        err = post.error
        for s in silences:
            if s.active(now) and s.matches(post.room, err):
                held = self._held.setdefault(s.id, _Held())
                k = (str(err.kind), err.provider)
                held.counts[k] = held.counts.get(k, 0) + 1
                held.first = now if held.first is None else held.first
                held.last = now
                return Situation.SILENCED, None, None
        inhibitor = self._inhibitor_for(post.room, err)
        if inhibitor is not None:
            return Situation.INHIBITED, None, inhibitor
        if not policy.group_by:
            return Situation.UNGROUPED, None, None
        group = self._groups.get(self._group_key(post.room, err, policy))
        if group is None:
            return Situation.ALONE, None, None
        if group.threaded < policy.group_thread_max:
            return Situation.JOINS, group, None
        return Situation.JOINS_FULL, group, None

    def _own_place(self, opened: Opened | None, policy: RoomPolicy) -> Place:
        if opened is None or opened.trigger is None or policy.placement is Placement.TIMELINE:
            return TIMELINE
        trigger = Ref(event=opened.trigger)
        if policy.placement is Placement.REPLY:
            return Place(reply=trigger)
        return Place(thread=Ref(event=opened.thread or opened.trigger), reply=trigger)

    @staticmethod
    def _group_key(room: str, err: TurnError, policy: RoomPolicy) -> GroupKey:
        facts = facts_of(err)
        return room, tuple((f, facts[f]) for f in policy.group_by)

    # -- groups --

    def _open_group(self, post: Post, place: Place | None, now: float, policy: RoomPolicy) -> None:
        # The group card belongs in the timeline: the first card is it when it went there
        # (no trigger, or a reply); otherwise the group card is posted when a second
        # failure makes it a group.
        promoted = place is not None and place.thread is None
        err = post.error
        g = _Group(
            gid=post.turn,
            room=post.room,
            key=self._group_key(post.room, err, policy)[1],
            root=post.key if promoted else f"group:{post.turn}/card",
            root_turn=post.turn if promoted else f"group:{post.turn}",
            promoted=promoted,
            first_now=now,
            last_now=now,
            latest=err,
            last_edit=now if promoted else -math.inf,
            card_sent=promoted,
            first_at=err.failed_at or _ms(now),
            last_at=err.failed_at or _ms(now),
        )
        _add_distinct(g.models, err.model)
        _add_distinct(g.harnesses, err.harness)
        g.turns.append(post.turn)
        self._groups[(post.room, g.key)] = g
        self._group_of[post.turn] = g

    def _count(
        self, g: _Group, post: Post, now: float, policy: RoomPolicy, out: list[RoomAction]
    ) -> None:
        err = post.error
        g.count += 1
        g.last_now = now
        g.latest = err
        g.last_at = max(g.last_at, err.failed_at or _ms(now))
        _add_distinct(g.models, err.model)
        _add_distinct(g.harnesses, err.harness)
        if len(g.turns) < TURNS_MAX:
            g.turns.append(post.turn)
        self._group_of[post.turn] = g
        if g.promoted:
            self._roots.add(g.root_turn)
        if not g.card_sent:
            # The second failure makes it a group: its card goes into the timeline now.
            out.append(Card(g.room, g.root, g.root_turn, self._group_card(g)))
            g.card_sent = True
            g.last_edit = now
            return
        g.dirty = True
        if now - g.last_edit >= policy.group_interval:
            self._edit(g, now, out)

    def _edit(self, g: _Group, now: float, out: list[RoomAction], last: str | None = None) -> None:
        if not g.card_sent:  # a group of one in a thread has no group card to edit
            g.dirty = False
            return
        g.last_edit = now
        g.dirty = False
        # Named for the state it shows, not for its number: a replay that ticks at other
        # moments (ticks not yet journalled died with the process) shows the same state
        # under the same key, and a new state under a new one.
        key = f"group:{g.gid}/{last}" if last else f"group:{g.gid}/edit/{g.count}.{g.retracted}"
        out.append(GroupEdit(g.room, key, g.root_turn, g.root, self._group_card(g)))

    def _group_card(self, g: _Group) -> TurnError:
        group = Group(
            count=g.count,
            first_at=g.first_at,
            last_at=g.last_at,
            key=tuple((k, v) for k, v in g.key if v is not None),
            models=tuple(g.models),
            harnesses=tuple(g.harnesses),
            turns=tuple(g.turns),
            threaded=g.threaded,
            recovered_at=None if g.recovered_at is None else _ms(g.recovered_at),
            retracted=g.retracted,
        )
        return dataclasses.replace(g.latest, group=group)

    def _close(self, g: _Group) -> None:
        self._groups.pop((g.room, g.key), None)
        for t in g.turns:
            if self._group_of.get(t) is g:
                del self._group_of[t]

    def _recover(self, opened: Opened, now: float, out: list[RoomAction]) -> None:
        """A turn that answered well recovers the groups of its room that it shares every
        key field but the kind with (a group keyed by kind alone is never recovered so)."""
        facts: dict[str, str | None] = {
            "provider": opened.provider,
            "harness": opened.harness,
            "model": opened.model,
            "node": opened.node,
        }
        for g in list(self._groups.values()):
            fields = [(k, v) for k, v in g.key if k != "kind"]
            if g.room != opened.room or g.count < 2 or not fields:
                continue
            if all(facts.get(k) == v for k, v in fields):
                g.recovered_at = now
                self._edit(g, now, out, last="recovered")
                self._close(g)

    # -- retracts, inhibition, silences --

    def _retract(self, r: Retract, now: float, out: list[RoomAction]) -> None:
        g = self._group_of.get(r.turn)
        if r.turn in self._cards and r.turn not in self._roots:
            out.append(r)
        # else its card is a group card now (never edited back into one turn's), or it
        # has none (held back, past the bound): the group counts it as recovered.
        if g is not None and g.gid == r.turn and g.count == 1:
            self._close(g)  # a group of one that was a false alarm is no group
        elif g is not None:
            g.retracted += 1
            g.dirty = True
            if now - g.last_edit >= self.policy(g.room).group_interval:
                self._edit(g, now, out)
        for key, inh in list(self._inhibitors.items()):
            inh.turns.discard(r.turn)
            if not inh.turns:
                del self._inhibitors[key]

    def _inhibit(self, post: Post, now: float) -> None:
        node = post.error.node
        assert node is not None
        inh = self._inhibitors.get((post.room, node))
        if inh is None:
            self._inhibitors[(post.room, node)] = _Inhibitor(post.key, {post.turn}, now)
        else:
            inh.turns.add(post.turn)
            inh.since = now

    def _inhibitor_for(self, room: str, err: TurnError) -> _Inhibitor | None:
        for rule in INHIBITIONS:
            if err.kind not in rule.targets:
                continue
            if rule.equal == ("node",) and err.node is not None:
                inh = self._inhibitors.get((room, err.node))
                if inh is not None and rule.source is Kind.NODE_OFFLINE:
                    return inh
        return None

    def _expire(self, now: float, silences: Sequence[Silence], out: list[RoomAction]) -> None:
        for g in list(self._groups.values()):
            policy = self.policy(g.room)
            if g.dirty and now >= g.last_edit + policy.group_interval:
                self._edit(g, now, out)
            if now >= g.last_now + policy.group_window:
                if g.dirty:
                    self._edit(g, now, out)
                self._close(g)
        for key, inh in list(self._inhibitors.items()):
            if now >= inh.since + self.policy(key[0]).inhibit_for:
                del self._inhibitors[key]
        # A silence the store forgot never comes back: nor need its mark here.
        self._summed &= {s.id for s in silences}
        for s in silences:
            if s.id in self._summed or now < s.until:
                continue
            self._summed.add(s.id)
            held = self._held.pop(s.id, _Held())
            room = min(s.rooms)
            out.append(
                Summary(
                    room=room,
                    key=f"silence:{s.id}/summary",
                    turn=f"silence:{s.id}",
                    silence=s,
                    held=tuple((k, p, n) for (k, p), n in sorted(held.counts.items(), key=str)),
                    first=held.first,
                    last=held.last,
                    ended=s.until,
                )
            )

    # -- reactions --

    def _react(
        self, turn: str, moment: Moment, after: str | None, opened: Opened | None = None
    ) -> list[RoomAction]:
        opened = opened or self._opened.get(turn)
        if opened is None or opened.trigger is None or not self.policy(opened.room).reactions:
            return []
        emoji, take_back = REACTIONS[moment]
        out: list[RoomAction] = []
        room = opened.room
        if emoji is not None:
            name = "eyes" if emoji == EYES else "end"
            out.append(React(room, f"{turn}/react/{name}", turn, opened.trigger, emoji, after))
            if emoji == EYES:
                self._reacted.add(turn)
        if take_back and turn in self._reacted:
            self._reacted.discard(turn)
            out.append(Unreact(room, f"{turn}/unreact/eyes", turn, f"{turn}/react/eyes"))
        return out

    def _clock(self, now: float) -> float:
        self._now = max(self._now, now)  # a clock going back stands still
        return self._now
