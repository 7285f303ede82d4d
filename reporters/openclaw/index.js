// roombot's reporter for OpenClaw, as a native OpenClaw plugin (runs in the Gateway).
//
// Through `openclaw acp`, a turn whose model call failed ends as an ordinary end over ACP
// with no text; the provider's words reach only the Gateway's log and the run's assistant
// message (stopReason "error", errorMessage, errorBody). This plugin sees that message in
// `llm_output` (and a failed run without one in `agent_end`) and sends it to roombot as a
// turn.report naming the ACP session: the bridge's session key is
// "agent:{agent}:acp-bridge:{ACP session id}". Settings: plugins.entries["roombot-reporter"]
// .config = {url, tokenFile | tokenEnv, caFile, insecure, onlyAcp}; without url and a token it
// sends nothing. An https:// url is verified (against caFile when given); plain http:// is for
// loopback only unless insecure is true.
// Handlers return at once and never throw.
import { Sender, resolveConfig } from "../common/sender.js";
import { Seen, buildReport, kindOf, retryAfterIn, splitStatus } from "../common/report.js";

export const SOURCE = "roombot-openclaw-reporter";
export const HARNESS = "openclaw";
export const PLUGIN_ID = "roombot-reporter";

const ACP_KEY = /(?:^|:)acp-bridge:(.+)$/;

/** The session id roombot knows the turn by: the ACP session id for bridge sessions. */
export function sessionOf(sessionKey, { onlyAcp = true } = {}) {
  if (typeof sessionKey !== "string" || !sessionKey) return null;
  const m = ACP_KEY.exec(sessionKey);
  if (m) return m[1];
  return onlyAcp ? null : sessionKey;
}

/** The failure in one assistant message, or null when it did not fail. */
export function failureOf(message, { provider, model } = {}) {
  if (!message || message.role !== "assistant" || message.stopReason !== "error") return null;
  const text = typeof message.errorMessage === "string" ? message.errorMessage : "";
  const { status, rest } = splitStatus(text);
  const body = typeof message.errorBody === "string" && message.errorBody ? message.errorBody : undefined;
  return {
    provider: message.provider || provider,
    model: message.model || model,
    status,
    // errorBody is the provider's own error object; without it the sentence after the status.
    body: body !== undefined ? body : status !== null ? rest : undefined,
    message: text || "the model call failed with no message",
    retryAfter: retryAfterIn(text),
    kind: kindOf(message.rawStopReason),
  };
}

export function createReporter(pluginConfig, { log = (line) => console.error(line), now = Date.now, senderOptions = {} } = {}) {
  const cfg = pluginConfig || {};
  const onlyAcp = cfg.onlyAcp !== false;
  const { config, problem } = resolveConfig(cfg);
  if (problem) log(`roombot reporter: not sending: ${problem}`);
  const sender = config ? new Sender({ ...config, log, ...senderOptions }) : null;
  const seen = new Seen();
  const runsReported = new Seen(); // runs whose model failure went out (agent_end adds nothing)

  function send(sessionKey, runId, message, failure) {
    const session = sessionOf(sessionKey, { onlyAcp });
    if (!sender || !session || !failure) return;
    if (!seen.first(`${sessionKey}/${runId}/${message ? message.timestamp : "run"}`)) return;
    if (runId) runsReported.first(runId);
    sender.enqueue(buildReport({ source: SOURCE, harness: HARNESS, session, at: now(), failure }));
  }

  function onLlmOutput(event, ctx) {
    const message = event && event.lastAssistant;
    const failure = failureOf(message, event || {});
    send((ctx && ctx.sessionKey) || (event && event.sessionKey), event && event.runId, message, failure);
  }

  function onAgentEnd(event, ctx) {
    // A run that failed before any model answer (no llm_output error), e.g. no auth at all.
    if (!event || event.success !== false || !event.error) return;
    const runId = event.runId || (ctx && ctx.runId);
    const fire = () => {
      if (runId && runsReported.keys.has(runId)) return;
      const { status, rest } = splitStatus(event.error);
      send(ctx && ctx.sessionKey, runId, null, {
        provider: ctx && ctx.modelProviderId,
        model: ctx && ctx.modelId,
        status,
        body: status !== null ? rest : undefined,
        message: event.error,
        retryAfter: retryAfterIn(event.error),
      });
    };
    // agent_end can come before llm_output; let the model's own failure win.
    setTimeout(fire, 200).unref?.();
  }

  return { onLlmOutput, onAgentEnd, sender };
}

export default {
  id: PLUGIN_ID,
  name: "roombot reporter",
  description: "Sends each failed model call to roombot's report API.",
  register(api) {
    const log = (line) => {
      try {
        (api.logger && api.logger.warn ? api.logger.warn.bind(api.logger) : console.error)(line);
      } catch {
        // a logger that fails must not break registration
      }
    };
    let reporter = null;
    try {
      reporter = createReporter(api.pluginConfig, { log });
    } catch (e) {
      log(`roombot reporter: disabled: ${e && e.message}`);
      return;
    }
    const guard = (name, fn) => (event, ctx) => {
      try {
        fn(event, ctx);
      } catch (e) {
        log(`roombot reporter: ${name}: ${e && e.message}`);
      }
    };
    api.on("llm_output", guard("llm_output", reporter.onLlmOutput));
    api.on("agent_end", guard("agent_end", reporter.onAgentEnd));
    api.on("gateway_stop", guard("gateway_stop", () => reporter.sender?.flush(1000)));
  },
};
