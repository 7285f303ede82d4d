// The turn.report event a reporter sends (roombot event format v1, docs/reporters.md).
//
// `turn` is "session:{id}": the reporter knows its session, not the ACP request id that the
// proxy puts in its turn ids, so roombot joins the report to the turn of that session that
// was running at `at`. `error` is the normaliser's `report` form (docs/error-forms.md) with
// the model beside it, so the rules file it under the right try.
import crypto from "node:crypto";

export const SESSION_REF = "session:";

/** "429: {...}", "429 Rate limit ...", "Error: 503 ..." -> {status, rest} (status null if none). */
export function splitStatus(text) {
  const m = /^(?:[A-Za-z][\w .]{0,40}: )?([1-5]\d\d)(?::\s*|\s+)([\s\S]*)$/.exec(text || "");
  if (!m) return { status: null, rest: text || "" };
  return { status: Number(m[1]), rest: m[2] };
}

/** A retry-after in whole seconds named in a harness's sentence ("Retry-After: 1 seconds"). */
export function retryAfterIn(text) {
  const m = /retry-after:?\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|seconds?)?/i.exec(text || "");
  if (!m) return null;
  const value = Number(m[1]);
  const ms = /^m/i.test(m[2] || "");
  return Math.ceil(ms ? value / 1000 : value);
}

// Finish reasons a provider gives for a safety block. A harness that turns one into a
// failed message keeps only "finish_reason: content_filter"; the report says what it is.
const REFUSALS = new Set(["content_filter", "refusal", "safety", "prohibited_content", "blocklist"]);

/** The kind a reporter can state itself (used by roombot only when its rules find none). */
export function kindOf(rawStopReason) {
  return typeof rawStopReason === "string" && REFUSALS.has(rawStopReason.toLowerCase()) ? "refusal" : undefined;
}

/**
 * One report. `failure` holds what the harness knew: provider, model, status, body (the
 * provider's own, untrimmed), headers, message (the harness's sentence), retryAfter.
 */
export function buildReport({ source, harness, session, at, failure }) {
  const report = { v: 1, harness };
  for (const [key, value] of [
    ["provider", failure.provider],
    ["model", failure.model],
    ["status", failure.status],
    ["body", failure.body],
    ["headers", failure.headers],
    ["message", failure.message],
    ["retry_after", failure.retryAfter],
    ["kind", failure.kind],
  ]) {
    if (value !== undefined && value !== null && value !== "") report[key] = value;
  }
  // The model beside the report files it under the try that asked that model (a fallback's
  // failure under the fallback). The provider stays inside: the harness's provider names
  // need not be the ones the ACP source was told (`--provider`), and a name that differs
  // would make the report a try of its own.
  const error = { report };
  if (failure.model) error.model = failure.model;
  return {
    type: "turn.report",
    turn: SESSION_REF + session,
    event_id: `${source}/${crypto.randomUUID()}`,
    at: at / 1000,
    source,
    error,
  };
}

/** Remembers what was already reported (bounded), so two hooks never report one failure twice. */
export class Seen {
  constructor(limit = 512) {
    this.limit = limit;
    this.keys = new Set();
  }

  /** True the first time `key` is offered. */
  first(key) {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.limit) this.keys.delete(this.keys.values().next().value);
    return true;
  }
}
