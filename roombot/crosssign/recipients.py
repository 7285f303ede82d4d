"""Which devices of a room's members get room keys, under `trust = "cross_signed"` or
`"verified_only"`: the decision per device, the cached verdicts, what is news to log.

Sans-I/O: the Matrix shell asks `ask(users)` which users' keys it must fetch,
passes the `/keys/query` answer to `learn`, marks users stale when a sync says
their device lists changed (`changed`), and asks `decide` for each device nio
holds. A verdict stays cached until its user's device list changes, so a send
costs no request unless someone's keys moved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from roombot.crosssign.devices import CrossSigned, DeviceRef, cross_signed

NOT_LISTED = "it is not listed in matrix.trusted_devices"


@dataclass(frozen=True, slots=True)
class Ask:
    """Users whose keys to fetch, with the change count each had when asked."""

    users: tuple[str, ...]
    generations: Mapping[str, int]


class Recipients:
    def __init__(self, *, cross_signing: bool, listed: Iterable[DeviceRef] = ()) -> None:
        self.cross_signing = cross_signing  # False: only the listed devices (verified_only)
        self.listed = frozenset(listed)
        self._verdicts: dict[str, CrossSigned] = {}
        # Bumped for each device-list change, so an answer asked for before a change
        # is not kept as fresh after it.
        self._generation: dict[str, int] = {}
        self._told: dict[DeviceRef, str | None] = {}  # what was last logged per device
        self.changes_seen: dict[str, int] = {}  # user -> device-list changes seen (tests, status)

    def changed(self, users: Iterable[str]) -> None:
        """A sync said these users' devices or keys changed: fetch them again before a send."""
        for user in users:
            self._verdicts.pop(user, None)
            self._generation[user] = self._generation.get(user, 0) + 1
            self.changes_seen[user] = self.changes_seen.get(user, 0) + 1

    def ask(self, users: Iterable[str]) -> Ask:
        if not self.cross_signing:
            return Ask((), {})
        wanted = tuple(sorted({u for u in users if u not in self._verdicts}))
        return Ask(wanted, {u: self._generation.get(u, 0) for u in wanted})

    def learn(self, ask: Ask, answer: Mapping[str, Any]) -> tuple[str, ...]:
        """Keep the verdicts of the answer; return the users whose keys changed while it
        was on its way (asked for again at once: the answer is not theirs any more)."""
        verdicts = cross_signed(answer)
        stale = []
        for user in ask.users:
            # A user missing from the answer (their server did not answer ours, say) is
            # asked for again at the next send rather than refused until they change.
            if self._generation.get(user, 0) != ask.generations[user]:
                stale.append(user)
            elif user in verdicts.users:
                self._verdicts[user] = verdicts
        return tuple(stale)

    def decide(self, user_id: str, device_id: str, ed25519: str, curve25519: str) -> str | None:
        """None when the device gets room keys, else why not (a sentence about the device)."""
        if (user_id, device_id) in self.listed:
            return None
        if not self.cross_signing:
            return NOT_LISTED
        verdicts = self._verdicts.get(user_id)
        if verdicts is None:
            return "the bot could not fetch its owner's cross-signing keys"
        why = verdicts.reason(user_id, device_id)
        if why is not None:
            return why
        signed = verdicts.signed[(user_id, device_id)]
        if (signed.ed25519, signed.curve25519) != (ed25519, curve25519):
            # The keys nio would encrypt to are not the ones the owner signed.
            return "the keys the bot holds for it are not the ones its owner cross-signed"
        return None

    def news(self, user_id: str, device_id: str, reason: str | None) -> bool:
        """Is this decision new for the device (log it), or was it already told?"""
        ref = (user_id, device_id)
        if self._told.get(ref) == reason:
            return False
        self._told[ref] = reason
        return True
