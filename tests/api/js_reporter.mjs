// One of roombot's JS reporters (argv[2]: "pi" or "openclaw"), as its harness loads it, sending
// one recorded failure with the settings given as JSON in argv[3]; prints {lines, counts,
// flushed} as JSON. Driven by tests/api/test_tls.py.
import fs from "node:fs";

import * as pi from "../../reporters/pi/index.js";
import * as openclaw from "../../reporters/openclaw/index.js";

const [name, settingsJson] = process.argv.slice(2);
const settings = JSON.parse(settingsJson);
const fixture = (file) => JSON.parse(fs.readFileSync(new URL(`../../reporters/${name}/test/fixtures/${file}`, import.meta.url)));
const lines = [];
const options = {
  log: (line) => lines.push(line),
  senderOptions: { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5000, maxTries: 2 },
};
// The sender unrefs its sockets and timers (a harness must never wait on it); this script has
// nothing else to do, so it holds the process open until the flush ends.
const keepAlive = setInterval(() => {}, 1000);
let sender;
if (name === "pi") {
  const recorded = fixture("message_end-rate_limit.json");
  const reporter = pi.createReporter(options);
  reporter.configure(settings);
  reporter.onMessageEnd(recorded.event, recorded.sessionId);
  sender = reporter.sender;
} else {
  const recorded = fixture("llm_output-rate_limit.json");
  const reporter = openclaw.createReporter(settings, options);
  reporter.onLlmOutput(recorded.event, recorded.ctx);
  sender = reporter.sender;
}
const flushed = sender ? await sender.flush(8000) : null;
clearInterval(keepAlive);
console.log(JSON.stringify({ lines, counts: sender ? sender.counts : null, flushed }));
