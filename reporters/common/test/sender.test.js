import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";

import { Sender, isLoopback, resolveConfig, tlsRefusal } from "../sender.js";
import { buildReport, retryAfterIn, splitStatus } from "../report.js";
import { FAST, startServer } from "./helpers.js";

const event = (n) => ({ type: "turn.report", turn: "session:s1", event_id: `e${n}`, source: "t", error: { text: "x" } });

test("posts one event to /v1/events with the bearer token", async () => {
  const server = await startServer();
  const lines = [];
  const sender = new Sender({ url: server.url, token: "tok-0123456789abcdef", log: (l) => lines.push(l), ...FAST });
  sender.enqueue(event(1));
  assert.equal(await sender.flush(2000), true);
  assert.equal(server.requests.length, 1);
  const [req] = server.requests;
  assert.equal(req.method, "POST");
  assert.equal(req.url, "/v1/events");
  assert.equal(req.headers.authorization, "Bearer tok-0123456789abcdef");
  assert.equal(req.headers["content-type"], "application/json");
  assert.deepEqual(req.body, event(1));
  assert.deepEqual(lines, []);
  await server.close();
});

test("enqueue returns before any I/O: the harness's hook never waits", async () => {
  const server = await startServer([{ status: 202, hold: true }]);
  const sender = new Sender({ url: server.url, token: "t", ...FAST });
  sender.enqueue(event(1));
  // Nothing has reached the server when enqueue has returned.
  assert.equal(server.requests.length, 0);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(server.requests.length, 1); // sent in the background, still unanswered
  server.release();
  assert.equal(await sender.flush(2000), true);
  assert.equal(sender.counts.sent, 1);
  await server.close();
});

test("retries on 503 and 429, then sends", async () => {
  const server = await startServer([{ status: 503 }, { status: 429, headers: { "Retry-After": "0" } }, { status: 202 }]);
  const sender = new Sender({ url: server.url, token: "t", ...FAST });
  sender.enqueue(event(1));
  assert.equal(await sender.flush(3000), true);
  assert.equal(server.requests.length, 3);
  assert.equal(sender.counts.sent, 1);
  assert.equal(sender.counts.retries, 2);
  await server.close();
});

test("a final refusal drops that report with a log line and goes on", async () => {
  const server = await startServer([{ status: 400, body: { error: "bad_request", field: "error" } }, { status: 202 }]);
  const lines = [];
  const sender = new Sender({ url: server.url, token: "t", log: (l) => lines.push(l), ...FAST });
  sender.enqueue(event(1));
  sender.enqueue(event(2));
  await sender.flush(2000);
  assert.equal(server.requests.length, 2);
  assert.equal(sender.counts.dropped, 1);
  assert.match(lines[0], /dropped report e1 .*HTTP 400/);
  assert.equal(server.requests[1].body.event_id, "e2");
  await server.close();
});

test("roombot unreachable: a bounded number of tries, then a drop with a log line", async () => {
  // A port nothing listens on.
  const probe = net.createServer();
  await new Promise((r) => probe.listen(0, "127.0.0.1", r));
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  const lines = [];
  const sender = new Sender({ url: `http://127.0.0.1:${port}`, token: "t", log: (l) => lines.push(l), ...FAST, maxTries: 3 });
  sender.enqueue(event(1));
  assert.equal(await sender.flush(3000), true);
  assert.equal(sender.counts.dropped, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /dropped report e1 .*ECONNREFUSED.*after 3 tries/);
});

test("the queue is bounded: the oldest report is dropped first, with a log line", async () => {
  const server = await startServer([{ status: 202, hold: true }]);
  const lines = [];
  const sender = new Sender({ url: server.url, token: "t", log: (l) => lines.push(l), ...FAST, maxQueue: 3 });
  for (let n = 1; n <= 6; n++) sender.enqueue(event(n));
  // All six come before the first post starts: e1, e2, e3 make room for e4, e5, e6.
  assert.equal(sender.queue.length, 3);
  assert.equal(lines.filter((l) => /queue full/.test(l)).length, 3);
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  server.release();
  await sender.flush(2000);
  const sent = server.requests.map((r) => r.body.event_id);
  assert.deepEqual(sent, ["e4", "e5", "e6"]);
  await server.close();
});

test("an unsent report never keeps the process alive", async () => {
  // A child process that queues a report to a server that never answers must still exit.
  const server = await startServer([{ status: 202, hold: true }]);
  const { spawn } = await import("node:child_process");
  const code = `import {Sender} from ${JSON.stringify(new URL("../sender.js", import.meta.url).href)};
    const s = new Sender({url: ${JSON.stringify(server.url)}, token: "t", timeoutMs: 60000});
    s.enqueue({event_id: "e1"});
    setTimeout(() => {}, 300);  // the post is in flight, unanswered, when this ends`;
  const started = Date.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: "inherit" });
  const status = await new Promise((r) => child.on("exit", r));
  assert.equal(status, 0);
  assert.ok(Date.now() - started < 20000);
  assert.equal(server.requests.length, 1); // it was sent, and left unanswered
  server.release();
  await server.close();
});

test("resolveConfig: nothing configured sends nothing; a token only by file or env", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reporter-"));
  const file = path.join(dir, "token");
  fs.writeFileSync(file, "tok-from-file-0000\n");
  assert.deepEqual(resolveConfig(undefined), { config: null, problem: null });
  assert.deepEqual(resolveConfig({}), { config: null, problem: null });
  assert.deepEqual(resolveConfig({ url: "http://127.0.0.1:8450/", tokenFile: file }).config, {
    url: "http://127.0.0.1:8450",
    token: "tok-from-file-0000",
    ca: undefined,
    insecure: false,
  });
  const local = "http://localhost:8450";
  assert.equal(resolveConfig({ url: local, tokenEnv: "RB_T" }, { env: { RB_T: "abc" } }).config.token, "abc");
  assert.match(resolveConfig({ url: local, token: "secret" }).problem, /in clear is refused/);
  assert.match(resolveConfig({ url: local }).problem, /no tokenFile or tokenEnv/);
  assert.match(resolveConfig({ url: local, tokenEnv: "NOPE" }, { env: {} }).problem, /NOPE is not set/);
  assert.match(resolveConfig({ url: local, tokenFile: path.join(dir, "missing") }).problem, /ENOENT/);
  assert.match(resolveConfig({ url: "ftp://x", tokenEnv: "A" }).problem, /not an https:\/\//);
});

test("the URL rule: plain http:// only to loopback unless insecure (with a warning)", () => {
  for (const host of ["localhost", "LOCALHOST.", "127.0.0.1", "127.9.8.7", "[::1]"]) assert.equal(isLoopback(host), true, host);
  for (const host of ["roombot.example.org", "10.0.0.1", "128.0.0.1", "[::2]", "localhost.example.org", "[::ffff:7f00:1]"]) {
    assert.equal(isLoopback(host), false, host);
  }
  const env = { env: { RB_T: "tok-0123456789abcdef" } };
  const far = resolveConfig({ url: "http://roombot.example.org:8450", tokenEnv: "RB_T" }, env);
  assert.equal(far.config, null);
  assert.match(far.problem, /plain http:\/\/ to a non-loopback host \(roombot\.example\.org\)/);
  assert.doesNotMatch(far.problem, /tok-0123/);
  const allowed = resolveConfig({ url: "http://roombot.example.org:8450", tokenEnv: "RB_T", insecure: true }, env);
  assert.equal(allowed.problem, null);
  const lines = [];
  new Sender({ ...allowed.config, log: (l) => lines.push(l) });
  assert.equal(lines.length, 1);
  assert.match(lines[0], /warning: plain http:\/\/ to a non-loopback host \(roombot\.example\.org\)/);
  assert.doesNotMatch(lines[0], /tok-0123/);
  const quiet = [];
  new Sender({ url: "http://127.0.0.1:1", token: "t", insecure: true, log: (l) => quiet.push(l) });
  assert.deepEqual(quiet, []); // loopback needs no warning
  // https is always allowed; the token never goes into the URL
  assert.equal(resolveConfig({ url: "https://roombot.example.org", tokenEnv: "RB_T" }, env).problem, null);
  assert.match(resolveConfig({ url: "https://u:p@roombot.example.org", tokenEnv: "RB_T" }, env).problem, /holds credentials/);
});

test("caFile: read as PEM; a missing or non-PEM file is a clear problem", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reporter-"));
  const env = { env: { RB_T: "tok-0123456789abcdef" } };
  const pem = path.join(dir, "ca.pem");
  fs.writeFileSync(pem, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  const junk = path.join(dir, "junk.pem");
  fs.writeFileSync(junk, "not a certificate");
  const url = "https://roombot.example.org";
  assert.match(resolveConfig({ url, tokenEnv: "RB_T", caFile: pem }, env).config.ca, /BEGIN CERTIFICATE/);
  assert.match(resolveConfig({ url, tokenEnv: "RB_T", caFile: path.join(dir, "nope") }, env).problem, /caFile .*ENOENT/);
  assert.match(resolveConfig({ url, tokenEnv: "RB_T", caFile: junk }, env).problem, /holds no PEM certificate/);
});

test("tlsRefusal names each certificate refusal; other errors are not TLS", () => {
  assert.match(tlsRefusal({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }, "h"), /unknown issuer/);
  assert.match(tlsRefusal({ code: "SELF_SIGNED_CERT_IN_CHAIN" }, "h"), /unknown issuer/);
  assert.match(tlsRefusal({ code: "CERT_HAS_EXPIRED" }, "h"), /has expired/);
  assert.match(tlsRefusal({ code: "ERR_TLS_CERT_ALTNAME_INVALID", reason: "IP: 127.0.0.1 is not in the cert's list" }, "h"), /host name mismatch/);
  assert.match(tlsRefusal({ code: "EPROTO", message: "write EPROTO ...:wrong version number:..." }, "h"), /does not speak TLS/);
  assert.equal(tlsRefusal({ code: "EPROTO", message: "write EPROTO ...:unexpected eof while reading" }, "h"), null);
  assert.equal(tlsRefusal({ code: "ECONNREFUSED" }, "h"), null);
});

test("splitStatus and retryAfterIn read the harnesses' sentences", () => {
  assert.deepEqual(splitStatus('429: {"message":"x"}'), { status: 429, rest: '{"message":"x"}' });
  assert.deepEqual(splitStatus("529 Overloaded"), { status: 529, rest: "Overloaded" });
  assert.deepEqual(splitStatus("Error: 503 busy"), { status: 503, rest: "busy" });
  assert.deepEqual(splitStatus("Connection error."), { status: null, rest: "Connection error." });
  assert.equal(retryAfterIn("Please wait.; Retry-After: 1 seconds"), 1);
  assert.equal(retryAfterIn("retry-after-ms: 1500ms"), null);
  assert.equal(retryAfterIn("Retry-After: 1500 ms"), 2);
  assert.equal(retryAfterIn("no hint"), null);
});

test("buildReport: the session ref, seconds, the report form with the model beside", () => {
  const ev = buildReport({
    source: "src",
    harness: "pi",
    session: "abc",
    at: 1796065930956,
    failure: { provider: "lab", model: "m", status: 429, body: "{}", message: "429: {}", retryAfter: null },
  });
  assert.equal(ev.type, "turn.report");
  assert.equal(ev.turn, "session:abc");
  assert.equal(ev.at, 1796065930.956);
  assert.match(ev.event_id, /^src\/[0-9a-f-]{36}$/);
  assert.deepEqual(ev.error, {
    report: { v: 1, harness: "pi", provider: "lab", model: "m", status: 429, body: "{}", message: "429: {}" },
    model: "m",
  });
});
