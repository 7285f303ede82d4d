"""Every content the builder returns passes Synapse's own canonical-JSON check, so a plain
(unencrypted) room accepts it exactly as an encrypted one does: no floats, no big integers."""

from __future__ import annotations

import dataclasses
import json

import canonicaljson
from hypothesis import given, settings
from synapse.events.utils import validate_canonicaljson

from cards.codec import CARD_KEY, read_payload, sendable, to_payload
from cards.notice import build_edit, build_notice
from cards.shape import TurnError
from tests.cards.strategies import raw_turn_errors, turn_errors
from tests.cards.test_codec import VALIDATOR


@settings(max_examples=60, deadline=None)
@given(turn_errors)
def test_notices_and_edits_are_canonical_json(err: TurnError) -> None:
    notice = build_notice(err, msgtype="m.text", mentions=["@alice:example.org"])
    validate_canonicaljson(notice.content)
    canonicaljson.encode_canonical_json(notice.content)
    edit = build_edit("$e:example.org", dataclasses.replace(err, recovered=True))
    validate_canonicaljson(edit)
    canonicaljson.encode_canonical_json(edit)


@settings(max_examples=80, deadline=None)
@given(raw_turn_errors)
def test_whatever_a_source_puts_in_the_shape_is_sent_as_a_valid_card(err: TurnError) -> None:
    payload = to_payload(err)
    VALIDATOR.validate(payload)
    assert read_payload(payload) == sendable(err)
    notice = build_notice(err)
    validate_canonicaljson(notice.content)
    canonicaljson.encode_canonical_json(notice.content)
    json.dumps(notice.content, ensure_ascii=False).encode("utf-8")
    if notice.full_message is None:
        assert read_payload(notice.content[CARD_KEY]) == sendable(err)
