"""Every content the builder returns passes Synapse's own canonical-JSON check, so a plain
(unencrypted) room accepts it exactly as an encrypted one does: no floats, no big integers."""

from __future__ import annotations

import dataclasses

import canonicaljson
from hypothesis import given, settings
from synapse.events.utils import validate_canonicaljson

from cards.notice import build_edit, build_notice
from cards.shape import TurnError
from tests.cards.strategies import turn_errors


@settings(max_examples=60, deadline=None)
@given(turn_errors)
def test_notices_and_edits_are_canonical_json(err: TurnError) -> None:
    notice = build_notice(err, msgtype="m.text", mentions=["@alice:example.org"])
    validate_canonicaljson(notice.content)
    canonicaljson.encode_canonical_json(notice.content)
    edit = build_edit("$e:example.org", dataclasses.replace(err, recovered=True))
    validate_canonicaljson(edit)
    canonicaljson.encode_canonical_json(edit)
