// roombot's reporter for Pi (@earendil-works/pi-coding-agent), as a Pi extension.
//
// Pi ends a turn whose model call failed as an ordinary end over ACP (pi-acp answers
// stopReason end_turn with no text); the provider's words stay in the assistant message
// (stopReason "error", errorMessage). This extension sees that message at `message_end` and
// sends it to roombot as a turn.report naming the session, whose id is the ACP session id
// pi-acp hands out. Settings (settings.json, written by `roombot reporters enable pi`):
//   "roombotReporter": {"url": "http://127.0.0.1:8450", "tokenFile": "/path"}  (or "tokenEnv")
// and for another machine {"url": "https://roombot.example.org:8450", "caFile": "/ca.pem", ...}:
// https is verified, plain http:// is for loopback only unless "insecure": true (warned).
// Without them it sends nothing. Handlers never throw and never wait for the network.
import { Sender, resolveConfig } from "../common/sender.js";
import { Seen, buildReport, kindOf, retryAfterIn, splitStatus } from "../common/report.js";

export const SOURCE = "roombot-pi-reporter";
export const HARNESS = "pi";
export const SETTINGS_KEY = "roombotReporter";

/** The failure in one finished assistant message, or null when it did not fail. */
export function failureOf(message) {
  if (!message || message.role !== "assistant" || message.stopReason !== "error") return null;
  const text = typeof message.errorMessage === "string" ? message.errorMessage : "";
  const { status, rest } = splitStatus(text);
  return {
    provider: message.provider,
    model: message.model,
    status,
    // pi-ai writes "{status}: {the provider's error body}"; the body is kept whole.
    body: status !== null ? rest : undefined,
    message: text || "the model call failed with no message",
    retryAfter: retryAfterIn(text),
    kind: kindOf(message.rawStopReason),
  };
}

export function createReporter({ log = (line) => console.error(line), now = Date.now, senderOptions = {} } = {}) {
  let sender = null;
  let configured = false;
  const seen = new Seen();

  function configure(settings) {
    if (configured) return;
    configured = true;
    const { config, problem } = resolveConfig(settings);
    if (problem) log(`roombot reporter: not sending: ${SETTINGS_KEY}: ${problem}`);
    if (config) sender = new Sender({ ...config, log, ...senderOptions });
  }

  function onMessageEnd(event, sessionId) {
    if (!sender || !sessionId) return;
    const message = event && event.message;
    const failure = failureOf(message);
    if (!failure) return;
    if (!seen.first(`${sessionId}/${message.timestamp}/${message.model}`)) return;
    sender.enqueue(buildReport({ source: SOURCE, harness: HARNESS, session: sessionId, at: now(), failure }));
  }

  return {
    configure,
    onMessageEnd,
    get sender() {
      return sender;
    },
  };
}

export default function roombotReporter(pi) {
  const reporter = createReporter();
  const guard = (name, fn) => (event, ctx) => {
    try {
      fn(event, ctx);
    } catch (e) {
      console.error(`roombot reporter: ${name}: ${e && e.message}`);
    }
    return undefined; // never changes what Pi does
  };
  // Settings can be read once the runtime is up, not while the extension loads.
  pi.on("session_start", guard("session_start", () => reporter.configure(pi.getSettings()[SETTINGS_KEY])));
  pi.on(
    "message_end",
    guard("message_end", (event, ctx) => reporter.onMessageEnd(event, ctx.sessionManager.getSessionId())),
  );
  pi.on(
    "session_shutdown",
    guard("session_shutdown", () => {
      reporter.sender?.flush(1000);
    }),
  );
}
