"""The ACP source: `roombot acp-proxy` stands between an ACP client and a harness.

Layout, in the order the bytes flow:

- `relay`: the I/O shell. Runs the harness, copies every byte both ways
  unchanged, hands a copy of each chunk to the observer without ever waiting.
- `frames`: how those copies travel from the relay to the observer process.
- `lines`: reassembles newline-delimited JSON-RPC messages from the copies.
- `observer`: pure. JSON-RPC messages in, event-format-v1 events out.
- `build`: the one place the events' shapes and ids are spelled.
- `rooms`: which room a session's turns go to (options and config file).
- `sinks`, `spool`: where events go (a JSON Lines file, or the bot's report
  API with a SQLite spool in front of it).
- `observe_main`: the observer process's entry point.
"""
