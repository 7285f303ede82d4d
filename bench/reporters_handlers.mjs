// The handler timings for bench/bench_reporters.py (run under node 24 from the lab).
import http from "node:http";
import net from "node:net";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createReporter as piReporter } from "../reporters/pi/index.js";
import { createReporter as ocReporter } from "../reporters/openclaw/index.js";

const N = Number(process.argv[2]);
const pi = JSON.parse(fs.readFileSync(new URL("../reporters/pi/test/fixtures/message_end-rate_limit.json", import.meta.url)));
const oc = JSON.parse(fs.readFileSync(new URL("../reporters/openclaw/test/fixtures/llm_output-rate_limit.json", import.meta.url)));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-rep-"));
fs.writeFileSync(path.join(dir, "t"), "bench-token-0000000000");
const server = http.createServer((req, res) => { req.resume(); req.on("end", () => { res.writeHead(202); res.end("{}"); }); });
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const up = `http://127.0.0.1:${server.address().port}`;
const probe = net.createServer(); await new Promise((r) => probe.listen(0, "127.0.0.1", r));
const down = `http://127.0.0.1:${probe.address().port}`; await new Promise((r) => probe.close(r));
const quiet = { log: () => {} };

function median(xs) { xs.sort((a, b) => a - b); return xs[xs.length >> 1]; }
function time(call) {
  const out = [];
  for (let i = 0; i < N; i++) {
    const msg = { ...pi.event.message, timestamp: i };   // a new failure each call
    const t0 = process.hrtime.bigint(); call(msg, i); out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return median(out);
}
const result = {};
for (const [name, settings] of [["baseline", undefined], ["reachable", { url: up, tokenFile: path.join(dir, "t") }], ["unreachable", { url: down, tokenFile: path.join(dir, "t") }]]) {
  const p = piReporter(quiet); p.configure(settings);
  result[`pi ${name}`] = time((msg) => p.onMessageEnd({ message: msg }, pi.sessionId));
  const o = ocReporter(settings || {}, quiet);
  result[`openclaw ${name}`] = time((msg, i) => o.onLlmOutput({ ...oc.event, runId: `r${i}`, lastAssistant: { ...oc.event.lastAssistant, timestamp: i } }, oc.ctx));
  await new Promise((r) => setTimeout(r, 200));
}
const p = piReporter(quiet); p.configure({ url: up, tokenFile: path.join(dir, "t") });
result["pi answered turn"] = time((msg) => p.onMessageEnd({ message: { ...msg, stopReason: "stop" } }, pi.sessionId));
console.log(JSON.stringify(result));
server.close();
process.exit(0);
