"""The request desk: room commands for a node, queued until the node fetches them. Pure.

A moderator's `!roombot reporters plan|apply` becomes a `Request` here; the node's
loop (`roombot/node_requests.py`) fetches the requests for its name over the report
API (`GET /v1/nodes/{node}/requests`) and posts what it did
(`POST /v1/nodes/{node}/results`); what comes back, or the silence after `timeout`
seconds, becomes a `Finished` for the room. The clock is passed in; nothing here
does I/O, and nothing survives a restart (a plan made before a restart must be made
again before it can be applied; docs/room-commands.md).

Who may manage what (the report API's sources are room-scoped, so the rule is theirs):
- a node is *here* for a room when, within `seen_for` seconds, it asked for work with
  the token of a source allowed to post to that room; a command for a node that is
  not here is refused at once, saying so;
- a node name belongs to the source that polls for it: another source asking for
  the same name while the first still polls (within `bound_for`) is refused, so no
  token can take another's node;
- a request is handed only to a poller whose source may post to the request's room,
  and its result is taken only from such a poller for that node;
- `apply NODE DIGEST` is passed on only when this room saw that digest planned by
  that node (within `plan_keep`): a digest seen elsewhere, or never, is refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

REQUEST_TIMEOUT: Final = 60.0
SEEN_FOR: Final = 30.0
BOUND_FOR: Final = 120.0
PLAN_KEEP: Final = 3600.0
PLANS_PER_NODE: Final = 16
PENDING_PER_NODE: Final = 16
MAX_NODES: Final = 1000  # node names remembered at once (a source may name any)
LATE_KEEP: Final = 600.0  # how long a timed-out request still takes its late answer


@dataclass(frozen=True, slots=True)
class Request:
    id: str
    node: str
    room: str  # the room id the command came from (answers go there)
    refs: frozenset[str]  # the room's id and every alias the config names it by
    command: str  # the command's event id
    op: str  # "plan" | "apply"
    reporter: str
    action: str  # "enable" | "disable"
    digest: str | None  # apply only
    created: float
    fetched: bool = False

    def wire(self) -> dict[str, str]:
        """What the node gets (GET /v1/nodes/{node}/requests)."""
        out = {"id": self.id, "op": self.op, "reporter": self.reporter, "action": self.action}
        if self.digest is not None:
            out["digest"] = self.digest
        return out


@dataclass(frozen=True, slots=True)
class ResultIn:
    """One result as the node posted it (already checked against the schema)."""

    id: str
    ok: bool
    text: str = ""
    digest: str | None = None  # plan only
    diff: str = ""
    versions: Mapping[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Finished:
    """What the room is told about one request."""

    request: Request
    ok: bool
    text: str
    late: bool = False  # after its timeout notice
    timed_out: bool = False  # no answer within the timeout
    digest: str | None = None
    diff: str = ""
    versions: Mapping[str, str | None] = field(default_factory=dict)


class Refused(Exception):
    """The desk will not take this (the message says why, in one sentence)."""


@dataclass(frozen=True, slots=True)
class _Poller:
    source: str
    last: float
    allows: Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class _Planned:
    reporter: str
    action: str
    at: float


def request_id(command: str) -> str:
    """The request of one command event: the same id for the same event, always."""
    return "rq" + hashlib.sha256(command.encode()).hexdigest()[:24]


class NodeDesk:
    def __init__(
        self,
        *,
        timeout: float = REQUEST_TIMEOUT,
        seen_for: float = SEEN_FOR,
        bound_for: float = BOUND_FOR,
        plan_keep: float = PLAN_KEEP,
    ) -> None:
        self.timeout = timeout
        self.seen_for = seen_for
        self.bound_for = bound_for
        self.plan_keep = plan_keep
        self._pending: dict[str, Request] = {}
        self._expired: dict[str, Request] = {}
        self._pollers: dict[str, _Poller] = {}  # node -> who polls for it
        self._plans: dict[tuple[str, str], dict[str, _Planned]] = {}  # (room, node) -> digest

    # -- from the room -------------------------------------------------------------

    def _here(self, node: str, refs: frozenset[str], now: float) -> None:
        poller = self._pollers.get(node)
        if poller is None or now - poller.last > self.seen_for:
            raise Refused(
                f"node {node} has not asked this bot for work in the last {self.seen_for:g} s "
                "(is `roombot node run` running there, with the report API's URL and a token?)"
            )
        if not any(poller.allows(r) for r in refs):
            raise Refused(
                f"node {node} polls with the token of source {poller.source!r}, which may not "
                "post to this room; a room manages only nodes whose source may report to it"
            )
        if sum(r.node == node for r in self._pending.values()) >= PENDING_PER_NODE:
            raise Refused(f"node {node} has {PENDING_PER_NODE} requests waiting already")

    def _add(self, request: Request) -> Request:
        if request.id in self._pending or request.id in self._expired:
            raise Refused("this command was taken already")
        self._pending[request.id] = request
        return request

    def plan(
        self,
        *,
        room: str,
        refs: frozenset[str],
        command: str,
        node: str,
        reporter: str,
        action: str,
        now: float,
    ) -> Request:
        self._here(node, refs | {room}, now)
        return self._add(
            Request(
                request_id(command),
                node,
                room,
                refs | {room},
                command,
                "plan",
                reporter,
                action,
                None,
                now,
            )
        )

    def apply(
        self, *, room: str, refs: frozenset[str], command: str, node: str, digest: str, now: float
    ) -> Request:
        planned = self._plans.get((room, node), {}).get(digest)
        if planned is None or now - planned.at > self.plan_keep:
            raise Refused(
                f"plan {digest[:12]}… was not planned by node {node} in this room within the "
                f"last {self.plan_keep / 60:g} minutes (nor since the bot started): "
                f"run !roombot reporters plan {node} NAME enable|disable and apply its digest"
            )
        self._here(node, refs | {room}, now)
        return self._add(
            Request(
                request_id(command),
                node,
                room,
                refs | {room},
                command,
                "apply",
                planned.reporter,
                planned.action,
                digest,
                now,
            )
        )

    # -- from the node -------------------------------------------------------------

    def poll(
        self, *, source: str, allows: Callable[[str], bool], node: str, now: float
    ) -> list[Request]:
        """The requests this poller may have; it is remembered as the node's poller."""
        poller = self._pollers.get(node)
        if poller is not None and poller.source != source and now - poller.last <= self.bound_for:
            raise Refused(
                f"node {node} is served by another source; one node name belongs to one "
                f"source while it polls (wait {self.bound_for:g} s after it stopped)"
            )
        if node not in self._pollers and len(self._pollers) >= MAX_NODES:
            for name in [n for n, p in self._pollers.items() if now - p.last > self.bound_for]:
                del self._pollers[name]
            if len(self._pollers) >= MAX_NODES:
                raise Refused(f"this bot already serves {MAX_NODES} nodes")
        self._pollers[node] = _Poller(source, now, allows)
        out = []
        for rid, r in list(self._pending.items()):
            if r.node == node and any(allows(ref) for ref in r.refs):
                if not r.fetched:
                    r = self._pending[rid] = replace(r, fetched=True)
                out.append(r)
        return out

    def results(
        self,
        *,
        source: str,
        allows: Callable[[str], bool],
        node: str,
        results: Sequence[ResultIn],
        now: float,
    ) -> tuple[list[Finished], list[str]]:
        """The requests these results finish, and the ids not taken (unknown here)."""
        poller = self._pollers.get(node)
        if poller is None or poller.source != source:
            raise Refused(f"node {node} did not ask this source's token for work")
        self._pollers[node] = replace(poller, last=now)
        done: list[Finished] = []
        unknown: list[str] = []
        for res in results:
            request = self._pending.get(res.id)
            late = request is None
            if request is None:
                request = self._expired.get(res.id)
            if (
                request is None
                or request.node != node
                or not any(allows(ref) for ref in request.refs)
            ):
                unknown.append(res.id)
                continue
            self._pending.pop(res.id, None)
            self._expired.pop(res.id, None)
            if res.ok and request.op == "plan" and res.digest and res.diff:
                plans = self._plans.setdefault((request.room, node), {})
                plans[res.digest] = _Planned(request.reporter, request.action, now)
                for old in sorted(plans, key=lambda d: plans[d].at)[:-PLANS_PER_NODE]:
                    del plans[old]
            done.append(
                Finished(
                    request,
                    res.ok,
                    res.text,
                    late=late,
                    digest=res.digest,
                    diff=res.diff,
                    versions=dict(res.versions),
                )
            )
        return done, unknown

    # -- the clock -----------------------------------------------------------------

    def expire(self, now: float) -> list[Finished]:
        """Requests unanswered for `timeout` seconds: each told once, kept a while for
        a late answer (an apply may still have happened)."""
        out = []
        for rid, r in list(self._pending.items()):
            if now - r.created >= self.timeout:
                del self._pending[rid]
                self._expired[rid] = r
                out.append(Finished(r, False, "", timed_out=True))
        for rid, r in list(self._expired.items()):
            if now - r.created >= self.timeout + LATE_KEEP:
                del self._expired[rid]
        for key, plans in list(self._plans.items()):
            for digest in [d for d, p in plans.items() if now - p.at > self.plan_keep]:
                del plans[digest]
            if not plans:
                del self._plans[key]
        return out

    def next_deadline(self) -> float | None:
        return min((r.created + self.timeout for r in self._pending.values()), default=None)

    def polled(self, node: str) -> bool:
        """Whether `node` has asked for work at least once (since this bot started)."""
        return node in self._pollers

    def knows(self, request_id: str) -> bool:
        """Still awaited, or timed out but still taking a late answer."""
        return request_id in self._pending or request_id in self._expired

    def pending(self) -> list[Request]:
        return list(self._pending.values())
