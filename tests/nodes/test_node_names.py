"""A node's name is one rule: the heartbeat's schema, the node routes and room commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

from roombot import roomcommands
from roombot.api import validation
from roombot.api.validation import BodyError
from roombot.node_name import NAME

SCHEMA = Path(validation.__file__).with_name("schemas") / "heartbeat.v1.json"
NAMES = ["gpu-1", "a", "A.b_c-d", "9" * 128, "9" * 129, "-x", ".x", "x y", "x/y", "", "é"]


def test_the_heartbeat_schema_and_the_routes_and_commands_accept_the_same_names() -> None:
    pattern = json.loads(SCHEMA.read_text())["properties"]["node"]["pattern"]
    for name in NAMES:
        by_schema = re.search(pattern, name) is not None
        assert (NAME.fullmatch(name) is not None) == by_schema, name
        assert (roomcommands.NODE.fullmatch(name) is not None) == by_schema, name
        try:
            validation.parse_node(name)
            by_route = True
        except BodyError:
            by_route = False
        assert by_route == by_schema, name
