// The Pi reporter, as Pi loads it, sending one recorded failure with the settings given as
// JSON in argv[2]; prints {lines, counts, flushed} as JSON. Driven by tests/api/test_tls.py.
import fs from "node:fs";

import { createReporter } from "../../reporters/pi/index.js";

const fixture = JSON.parse(
  fs.readFileSync(new URL("../../reporters/pi/test/fixtures/message_end-rate_limit.json", import.meta.url)),
);
const lines = [];
const reporter = createReporter({
  log: (line) => lines.push(line),
  senderOptions: { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5000, maxTries: 2 },
});
// The sender unrefs its sockets and timers (a harness must never wait on it); this script has
// nothing else to do, so it holds the process open until the flush ends.
const keepAlive = setInterval(() => {}, 1000);
reporter.configure(JSON.parse(process.argv[2]));
reporter.onMessageEnd(fixture.event, fixture.sessionId);
const flushed = reporter.sender ? await reporter.sender.flush(8000) : null;
clearInterval(keepAlive);
console.log(JSON.stringify({ lines, counts: reporter.sender ? reporter.sender.counts : null, flushed, session: fixture.sessionId }));
