"""The observer process: frames from the relay on stdin, events to the sink.

Started by `roombot acp-proxy` as `python -m roombot.acp.observe_main CONFIG`
(CONFIG is JSON, see `settings.to_json`). It runs apart from the relay so
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
from roombot.acp.observer import Observer, Sender
from roombot.acp.settings import from_json
from roombot.acp.sinks import JsonLinesSink, RedactingSink, Sink
from roombot.redact import Redactor

_SENDERS: dict[bytes, Sender] = {frames.CLIENT: "client", frames.AGENT: "agent"}


def _sink(config: dict[str, Any]) -> Sink:
    spec = config["sink"]
    if "events" in spec:
        return JsonLinesSink(spec["events"])
    from roombot.acp.report import ReportSink  # only when events go to the bot

    if spec.get("token_file"):
        with open(spec["token_file"], encoding="utf-8") as f:  # never on a command line
            token = f.read().strip()
    else:  # the proxy checked it is set
        token = os.environ[spec["token_env"]].strip()
    sink = ReportSink(
        spec["url"],
        token,
        spec["spool"],
        ca_file=spec.get("ca_file"),
        insecure=bool(spec.get("insecure")),
    )
    sink.start()
    return sink


async def observe(config: dict[str, Any]) -> int:
    settings = from_json(config)
    observer = Observer(settings)
    sink = RedactingSink(_sink(config), Redactor())
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
                        for note in observer.notes:
                            print(f"roombot acp-proxy: {note}", file=sys.stderr)
                        observer.notes.clear()
            elif tag == frames.GAP:
                side = payload[:1]
                lines[side].gap(at_line_end=payload[1:] == b"\n")
                observer.gap(_SENDERS[side])
            elif tag == frames.EXIT:
                info = json.loads(payload)
                sink.emit(observer.exited(info["code"], info["stderr"], at))
                done = True
        sink.emit(observer.tick(time.time()))
    if observer.stats["uncertain"]:
        print(
            f"roombot acp-proxy: {observer.stats['uncertain']} turn(s) not reported: "
            "the observer fell behind while they were open",
            file=sys.stderr,
        )
    await sink.close(loop.time() + float(config["drain_seconds"]))
    return 0


def main(argv: list[str]) -> int:
    config = json.loads(argv[1])
    try:
        return asyncio.run(observe(config))
    except Exception as exc:  # the relay goes on without us; say why, briefly
        print(f"roombot acp-proxy: the observer stopped: {exc!r}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
