"""The name of the node this process runs on: one function, so that heartbeats
(`roombot node run`) and turns (`roombot acp-proxy`'s turn.started `node`) name a node
the same way, and node.offline finds the turns of the node that went silent.

The host name, as the kernel gives it (`socket.gethostname()`, what `hostname` prints);
each command takes a flag to override it, and two commands on one machine must then be
given the same name.
"""

from __future__ import annotations

import re
import socket
from typing import Final

# What a node may be called (heartbeats, GET /v1/nodes/{node}/..., room commands): a
# host name's letters, 1 to 128, a letter or digit first. heartbeat.v1.json says the same
# (tests/nodes holds the two together).
NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}")


def node_name() -> str:
    return socket.gethostname()
