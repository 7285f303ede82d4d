"""The observer process: frames from the relay on stdin, events to the sink.

Started by `roombot acp-proxy` as `python -m roombot.acp.observe_main CONFIG`
(CONFIG is JSON, see `observer_config`). It runs apart from the relay so
that parsing never takes time from relaying; when it falls behind, the relay
drops copies and this side resynchronises.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

from roombot.acp import frames
from roombot.acp.lines import LineBuffer, parse_line
from roombot.acp.observer import Observer, ObserverSettings, Sender
from roombot.acp.rooms import RoomRules
from roombot.acp.sinks import JsonLinesSink, ReportSink, Sink

_SENDERS: dict[bytes, Sender] = {frames.CLIENT: "client", frames.AGENT: "agent"}


def observer_config(
    settings: ObserverSettings, sink: dict[str, str], drain_seconds: float
) -> dict[str, Any]:
    rules = settings.rules
    return {
        "settings": {
            "command_name": settings.command_name,
            "harness": settings.harness,
            "provider": settings.provider,
            "model": settings.model,
            "run": settings.run,
        },
        "rules": {
            "room": rules.room,
            "by_cwd": [list(p) for p in rules.by_cwd],
            "by_harness": dict(rules.by_harness),
        },
        "sink": sink,
        "drain_seconds": drain_seconds,
    }


def _settings(config: dict[str, Any]) -> ObserverSettings:
    r = config["rules"]
    rules = RoomRules(
        room=r["room"],
        by_cwd=tuple((a, b) for a, b in r["by_cwd"]),
        by_harness=r["by_harness"],
    )
    return ObserverSettings(rules=rules, **config["settings"])


def _sink(config: dict[str, Any]) -> Sink:
    spec = config["sink"]
    if "events" in spec:
        return JsonLinesSink(spec["events"])
    with open(spec["token_file"], encoding="utf-8") as f:  # never on a command line
        token = f.read().strip()
    sink = ReportSink(spec["url"], token, spec["spool"])
    sink.start()
    return sink


async def observe(config: dict[str, Any]) -> int:
    settings = _settings(config)
    observer = Observer(settings)
    sink = _sink(config)
    lines = {frames.CLIENT: LineBuffer(), frames.AGENT: LineBuffer()}
    reader = frames.FrameReader()
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(0, "rb", buffering=0)
    )
    done = False
    while not done:
        try:
            data = await asyncio.wait_for(stream.read(1 << 16), settings.flush_seconds)
        except TimeoutError:
            data = None
        if data == b"":  # the relay went away without an exit frame
            sink.emit(observer.exited(None, "roombot acp-proxy stopped first", time.time()))
            break
        for tag, at, payload in reader.feed(data or b""):
            if tag in _SENDERS:
                for line in lines[tag].feed(payload):
                    ok, value = parse_line(line)
                    if ok:
                        sink.emit(observer.feed(_SENDERS[tag], value, at))
            elif tag == frames.GAP:
                lines[payload].gap()
            elif tag == frames.EXIT:
                info = json.loads(payload)
                sink.emit(observer.exited(info["code"], info["stderr"], at))
                done = True
        sink.emit(observer.tick(time.time()))
    await sink.close(loop.time() + float(config["drain_seconds"]))
    return 0


def main(argv: list[str]) -> int:
    config = json.loads(argv[1])
    return asyncio.run(observe(config))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
