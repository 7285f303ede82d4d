// The OpenClaw plugin against what the Gateway really passes its hooks (fixtures recorded
// from openclaw 2026.9.6 through `openclaw acp` in the harness lab) and a report API
// stand-in on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import plugin, { createReporter, failureOf, sessionOf, PLUGIN_ID } from "../index.js";
import { FAST, startServer } from "../../common/test/helpers.js";

const load = (name) => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const llmOutput = load("llm_output-rate_limit.json");
const agentEnd = load("agent_end-rate_limit.json");
const ACP_SESSION = llmOutput.ctx.sessionKey.split("acp-bridge:")[1];
const manifest = JSON.parse(fs.readFileSync(new URL("../openclaw.plugin.json", import.meta.url)));

function config(url) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "oc-reporter-"));
  const file = path.join(dir, "token");
  fs.writeFileSync(file, "tok-openclaw-reporter-0\n");
  return { url, tokenFile: file };
}

test("the session key of an ACP bridge session gives the ACP session id", () => {
  assert.equal(sessionOf("agent:main:acp-bridge:79cc5a90-937b-44f5-8c24-4105ca8f90b2"), "79cc5a90-937b-44f5-8c24-4105ca8f90b2");
  assert.equal(sessionOf("acp-bridge:abc"), "abc");
  assert.equal(sessionOf("agent:main:telegram:42"), null);
  assert.equal(sessionOf("agent:main:telegram:42", { onlyAcp: false }), "agent:main:telegram:42");
  assert.equal(sessionOf(undefined), null);
});

test("llm_output with a failed call is reported with the provider's body", async () => {
  const server = await startServer();
  const reporter = createReporter(config(server.url), { senderOptions: FAST, log: () => {}, now: () => 1796065987660 });
  reporter.onLlmOutput(llmOutput.event, llmOutput.ctx);
  await reporter.sender.flush(2000);
  assert.equal(server.requests.length, 1);
  const { body } = server.requests[0];
  assert.equal(body.turn, `session:${ACP_SESSION}`);
  assert.equal(body.source, "roombot-openclaw-reporter");
  const rep = body.error.report;
  assert.equal(rep.harness, "openclaw");
  assert.equal(rep.status, 429);
  assert.equal(rep.body, llmOutput.event.lastAssistant.errorBody);
  assert.equal(rep.message, llmOutput.event.lastAssistant.errorMessage);
  assert.equal(rep.retry_after, 1);
  assert.equal(rep.provider, "lab");
  assert.equal(rep.model, "lab-large");
  await server.close();
});

test("agent_end adds nothing when the model's failure was reported; alone it reports the run", async () => {
  const server = await startServer();
  const reporter = createReporter(config(server.url), { senderOptions: FAST, log: () => {} });
  // agent_end came first in the Gateway (success true there: nothing to add anyway).
  reporter.onAgentEnd(agentEnd.event, agentEnd.ctx);
  reporter.onLlmOutput(llmOutput.event, llmOutput.ctx);
  reporter.onLlmOutput(llmOutput.event, llmOutput.ctx); // the same call twice: once
  const failedRun = { ...agentEnd.event, runId: "run-2", success: false, error: "401 Incorrect API key provided: sk-lab-0000." };
  reporter.onAgentEnd(failedRun, { ...agentEnd.ctx, runId: "run-2" });
  await new Promise((r) => setTimeout(r, 300));
  await reporter.sender.flush(2000);
  assert.equal(server.requests.length, 2);
  const second = server.requests[1].body.error.report;
  assert.equal(second.status, 401);
  assert.equal(second.message, failedRun.error);
  assert.equal(second.provider, "lab");
  await server.close();
});

test("answers, channel sessions and an unconfigured plugin send nothing", async () => {
  const server = await startServer();
  const reporter = createReporter(config(server.url), { senderOptions: FAST, log: () => {} });
  const answered = { ...llmOutput.event, lastAssistant: { ...llmOutput.event.lastAssistant, stopReason: "stop" } };
  reporter.onLlmOutput(answered, llmOutput.ctx);
  reporter.onLlmOutput(llmOutput.event, { ...llmOutput.ctx, sessionKey: "agent:main:telegram:42" });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(server.requests.length, 0);
  const lines = [];
  assert.equal(createReporter({}, { log: (l) => lines.push(l) }).sender, null);
  assert.equal(createReporter({ url: server.url, token: "x" }, { log: (l) => lines.push(l) }).sender, null);
  assert.match(lines.join("\n"), /token in clear is refused/);
  await server.close();
});

test("failureOf prefers errorBody; without it the sentence after the status", () => {
  const f = failureOf({ role: "assistant", stopReason: "error", errorMessage: "529 Overloaded", provider: "a", model: "b" });
  assert.equal(f.status, 529);
  assert.equal(f.body, "Overloaded");
  assert.equal(failureOf({ role: "assistant", stopReason: "stop" }), null);
});

test("the plugin registers its hooks through api.on; its manifest validates its config", async () => {
  assert.equal(plugin.id, PLUGIN_ID);
  assert.equal(manifest.id, PLUGIN_ID);
  assert.deepEqual(Object.keys(manifest.configSchema.properties).sort(), ["caFile", "insecure", "onlyAcp", "tokenEnv", "tokenFile", "url"]);
  assert.equal(manifest.configSchema.additionalProperties, false);
  const server = await startServer();
  const hooks = {};
  const warnings = [];
  plugin.register({ pluginConfig: config(server.url), logger: { warn: (l) => warnings.push(l) }, on: (n, fn) => (hooks[n] = fn) });
  assert.deepEqual(Object.keys(hooks).sort(), ["agent_end", "gateway_stop", "llm_output"]);
  assert.equal(hooks.llm_output(llmOutput.event, llmOutput.ctx), undefined);
  assert.equal(hooks.llm_output(null, null), undefined); // never throws into the Gateway
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(server.requests.length, 1);
  assert.deepEqual(warnings, []);
  await server.close();
});
