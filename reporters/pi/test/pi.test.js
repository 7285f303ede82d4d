// The Pi extension against what Pi really emits (fixtures recorded from Pi 1.6.0 through
// pi-acp 0.0.34 in the harness lab) and a report API stand-in on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import roombotReporter, { createReporter, failureOf, SETTINGS_KEY } from "../index.js";
import { FAST, startServer } from "../../common/test/helpers.js";

const fixture = JSON.parse(fs.readFileSync(new URL("./fixtures/message_end-rate_limit.json", import.meta.url)));

function tokenFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-reporter-"));
  const file = path.join(dir, "token");
  fs.writeFileSync(file, "tok-pi-reporter-000000\n");
  return file;
}

test("a failed model call is reported whole, joined by the ACP session id", async () => {
  const server = await startServer();
  const reporter = createReporter({ now: () => 1796065930956, senderOptions: FAST, log: () => {} });
  reporter.configure({ url: server.url, tokenFile: tokenFile() });
  reporter.onMessageEnd(fixture.event, fixture.sessionId);
  await reporter.sender.flush(2000);
  assert.equal(server.requests.length, 1);
  const { body, headers } = server.requests[0];
  assert.equal(headers.authorization, "Bearer tok-pi-reporter-000000");
  assert.equal(body.type, "turn.report");
  assert.equal(body.turn, `session:${fixture.sessionId}`);
  assert.equal(body.source, "roombot-pi-reporter");
  assert.equal(body.at, 1796065930.956);
  const rep = body.error.report;
  assert.equal(rep.harness, "pi");
  assert.equal(rep.provider, "lab");
  assert.equal(rep.model, "lab-large");
  assert.equal(rep.status, 429);
  // the provider's body, untrimmed: exactly what followed "429: " in Pi's errorMessage
  assert.equal(rep.body, fixture.event.message.errorMessage.slice("429: ".length));
  assert.match(JSON.parse(rep.body).message, /^Rate limit reached for lab-large/);
  assert.equal(rep.message, fixture.event.message.errorMessage);
  assert.equal(body.error.provider, undefined); // the proxy may name the provider otherwise
  assert.equal(body.error.model, "lab-large");
  await server.close();
});

test("the same message seen twice is reported once; answers and aborts are not reported", async () => {
  const server = await startServer();
  const reporter = createReporter({ senderOptions: FAST, log: () => {} });
  reporter.configure({ url: server.url, tokenFile: tokenFile() });
  reporter.onMessageEnd(fixture.event, fixture.sessionId);
  reporter.onMessageEnd(fixture.event, fixture.sessionId);
  const answer = { message: { ...fixture.event.message, stopReason: "stop", errorMessage: undefined } };
  const aborted = { message: { ...fixture.event.message, stopReason: "aborted" } };
  const user = { message: { role: "user", content: [] } };
  for (const ev of [answer, aborted, user, {}, null]) reporter.onMessageEnd(ev, fixture.sessionId);
  await reporter.sender.flush(2000);
  assert.equal(server.requests.length, 1);
  await server.close();
});

test("not configured: nothing is sent, and a token in clear is refused with a log line", () => {
  const lines = [];
  const reporter = createReporter({ log: (l) => lines.push(l) });
  reporter.configure(undefined);
  reporter.onMessageEnd(fixture.event, fixture.sessionId);
  assert.equal(reporter.sender, null);
  const clear = createReporter({ log: (l) => lines.push(l) });
  clear.configure({ url: "http://127.0.0.1:1", token: "secret" });
  assert.equal(clear.sender, null);
  assert.match(lines.join("\n"), new RegExp(`${SETTINGS_KEY}: a token in clear is refused`));
});

test("failureOf reads status and body from Pi's errorMessage, or keeps the words", () => {
  const f = failureOf(fixture.event.message);
  assert.equal(f.status, 429);
  const words = failureOf({ role: "assistant", stopReason: "error", errorMessage: "Connection error.", provider: "p", model: "m" });
  assert.deepEqual(words, {
    provider: "p",
    model: "m",
    status: null,
    body: undefined,
    message: "Connection error.",
    retryAfter: null,
    kind: undefined,
  });
  // a safety block Pi turned into a failed message (recorded: the lab's refusal case)
  const refusal = failureOf({
    role: "assistant",
    stopReason: "error",
    rawStopReason: "content_filter",
    errorMessage: "Provider finish_reason: content_filter",
    provider: "lab",
    model: "lab-large",
  });
  assert.equal(refusal.kind, "refusal");
  assert.equal(refusal.status, null);
  assert.equal(refusal.message, "Provider finish_reason: content_filter");
});

test("the extension registers on Pi's events and never throws into Pi", async () => {
  // Pi's ExtensionAPI surface the extension uses: on() and getSettings().
  const handlers = {};
  const server = await startServer();
  const pi = {
    on: (name, fn) => (handlers[name] = fn),
    getSettings: () => ({ [SETTINGS_KEY]: { url: server.url, tokenFile: tokenFile() } }),
  };
  roombotReporter(pi);
  assert.deepEqual(Object.keys(handlers).sort(), ["message_end", "session_shutdown", "session_start"]);
  const ctx = { sessionManager: { getSessionId: () => fixture.sessionId } };
  assert.equal(handlers.session_start({ type: "session_start", reason: "startup" }, ctx), undefined);
  assert.equal(handlers.message_end(fixture.event, ctx), undefined); // the message is not replaced
  // A broken context is logged, not thrown.
  assert.equal(handlers.message_end(fixture.event, { sessionManager: null }), undefined);
  handlers.session_shutdown({}, ctx);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(server.requests.length, 1);
  await server.close();
});
