// The sender every roombot reporter uses: a bounded queue in memory, one POST at a time to
// roombot's report API, retries with backoff, then a drop with a log line. Nothing here may
// slow or break the harness it runs in: `enqueue` returns at once, every timer and socket is
// unref'd (an unsent report never keeps the harness alive), and no error escapes.
//
// The URL rule is roombot's (roombot/report_tls.py): https:// is verified (the chain against
// node's CAs, or only those in `caFile`, and the host name), never loosened; plain http:// goes
// only to loopback (127.0.0.0/8, ::1, localhost) unless `insecure: true`, which logs a warning.
// A refused URL is refused in resolveConfig, before any connection. The token is never logged.
import http from "node:http";
import https from "node:https";
import fs from "node:fs";
import net from "node:net";

/** Statuses worth another try (the bot is busy, starting or rate limiting, or the token is
 * being fixed); any other refusal is final for that report. */
const RETRY = new Set([401, 408, 425, 429, 500, 502, 503, 504]);

export const DEFAULTS = Object.freeze({
  maxQueue: 64, // reports held while roombot is unreachable; the oldest is dropped first
  maxTries: 6, // posts of one report before it is dropped
  baseDelayMs: 250, // first backoff; doubles up to maxDelayMs
  maxDelayMs: 8000,
  timeoutMs: 5000, // one POST
});

/** True for a host that is this machine: localhost, 127.0.0.0/8, ::1. */
export function isLoopback(hostname) {
  const host = String(hostname).replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  if (host === "localhost") return true;
  if (net.isIPv4(host)) return host.split(".")[0] === "127";
  if (net.isIPv6(host)) return /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(host);
  return false;
}

// node's codes for the certificate refusals a reporter meets, in roombot's words.
const UNKNOWN_ISSUER = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
]);

/** A TLS failure in words (never retried), or null for any other error. */
export function tlsRefusal(error, host) {
  const code = error && error.code;
  if (UNKNOWN_ISSUER.has(code)) {
    return `${host}: the certificate is not signed by a CA we trust (unknown issuer; wrong caFile?): ${code}`;
  }
  if (code === "CERT_HAS_EXPIRED") return `${host}: the server's certificate has expired: ${code}`;
  if (code === "CERT_NOT_YET_VALID") return `${host}: the server's certificate is not valid yet: ${code}`;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return `${host}: the certificate is for another host (host name mismatch): ${error.reason || code}`;
  }
  // node reports an answer that is not TLS as EPROTO with OpenSSL's words in the message.
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || (code === "EPROTO" && /wrong version number/.test(error.message))) {
    return `${host}: the server does not speak TLS on this port (is it plain http?)`;
  }
  // Any other certificate verdict is a refusal too; other TLS errors (a handshake cut short)
  // are transport failures, retried.
  if (typeof code === "string" && /^(ERR_TLS_CERT|CERT_)/.test(code)) {
    return `${host}: the server's certificate was refused: ${code}`;
  }
  return null;
}

/**
 * The reporter's settings -> {url, token, ca, insecure} or null (send nothing).
 * The token comes from a file (`tokenFile`) or an environment variable (`tokenEnv`), never
 * from the settings themselves: a `token` written in clear is refused.
 */
export function resolveConfig(settings, { env = process.env, readFile = fs.readFileSync } = {}) {
  if (!settings || typeof settings !== "object") return { config: null, problem: null };
  const url = typeof settings.url === "string" ? settings.url.trim() : "";
  if (!url) return { config: null, problem: null };
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol)) {
    return { config: null, problem: "url is not an https:// (or loopback http://) URL" };
  }
  if (parsed.username || parsed.password) {
    return { config: null, problem: "url holds credentials (user@ or user:password@): give the token apart" };
  }
  const insecure = settings.insecure === true;
  if (parsed.protocol === "http:" && !isLoopback(parsed.hostname) && !insecure) {
    return {
      config: null,
      problem:
        `url is plain http:// to a non-loopback host (${parsed.hostname}): the token would cross the ` +
        "network in the clear; use https://, or insecure: true to allow it anyway",
    };
  }
  let ca;
  if (typeof settings.caFile === "string" && settings.caFile) {
    try {
      ca = String(readFile(settings.caFile, "utf8"));
    } catch (e) {
      return { config: null, problem: `caFile ${settings.caFile}: ${e.code || e.message}` };
    }
    if (!ca.includes("-----BEGIN CERTIFICATE-----")) {
      return { config: null, problem: `caFile ${settings.caFile} holds no PEM certificate` };
    }
  }
  if ("token" in settings) {
    return { config: null, problem: "a token in clear is refused: use tokenFile or tokenEnv" };
  }
  let token = "";
  if (typeof settings.tokenFile === "string" && settings.tokenFile) {
    try {
      token = String(readFile(settings.tokenFile, "utf8")).trim();
    } catch (e) {
      return { config: null, problem: `tokenFile ${settings.tokenFile}: ${e.code || e.message}` };
    }
  } else if (typeof settings.tokenEnv === "string" && settings.tokenEnv) {
    token = (env[settings.tokenEnv] || "").trim();
    if (!token) return { config: null, problem: `tokenEnv ${settings.tokenEnv} is not set` };
  } else {
    return { config: null, problem: "no tokenFile or tokenEnv" };
  }
  if (!token) return { config: null, problem: "the token is empty" };
  return { config: { url: url.replace(/\/+$/, ""), token, ca, insecure }, problem: null };
}

export class Sender {
  constructor({ url, token, ca, insecure = false, log = (line) => console.error(line), ...opts }) {
    this.url = new URL(url + "/v1/events");
    this.token = token;
    this.ca = ca; // PEM text: these CAs only, instead of node's
    this.log = log;
    if (this.url.protocol === "http:" && !isLoopback(this.url.hostname) && insecure) {
      this.log(
        `roombot reporter: warning: plain http:// to a non-loopback host (${this.url.hostname}): ` +
          "the token and the reports cross the network unencrypted (insecure: true)",
      );
    }
    this.opts = { ...DEFAULTS, ...opts };
    this.queue = []; // {event, tries}
    this.busy = false;
    this.counts = { sent: 0, dropped: 0, retries: 0 };
    this._idle = [];
  }

  /** Hold one event for sending; returns at once. */
  enqueue(event) {
    try {
      if (this.queue.length >= this.opts.maxQueue) {
        const old = this.queue.shift();
        this._drop(old.event, `queue full (${this.opts.maxQueue} reports)`);
      }
      this.queue.push({ event, tries: 0 });
      if (!this.busy) {
        this.busy = true;
        // Started on a later tick: the harness's hook returns before any I/O begins.
        setImmediate(() => this._pump()).unref?.();
      }
    } catch (e) {
      this.log(`roombot reporter: could not queue a report: ${e && e.message}`);
    }
  }

  /** Resolves when the queue is empty or after `ms` (for shutdown and tests). */
  flush(ms = 2000) {
    if (!this.busy && this.queue.length === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      timer.unref?.();
      this._idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async _pump() {
    try {
      while (this.queue.length > 0) {
        const item = this.queue[0];
        const outcome = await this._post(item.event);
        if (this.queue[0] !== item) continue; // dropped meanwhile (queue full)
        if (outcome.ok) {
          this.queue.shift();
          this.counts.sent += 1;
          continue;
        }
        if (!outcome.retry) {
          this.queue.shift();
          this._drop(item.event, outcome.why);
          continue;
        }
        item.tries += 1;
        if (item.tries >= this.opts.maxTries) {
          this.queue.shift();
          this._drop(item.event, `${outcome.why}, after ${item.tries} tries`);
          continue;
        }
        this.counts.retries += 1;
        const backoff = Math.min(this.opts.baseDelayMs * 2 ** (item.tries - 1), this.opts.maxDelayMs);
        await sleep(Math.max(backoff, outcome.retryAfterMs || 0));
      }
    } catch (e) {
      this.log(`roombot reporter: sender stopped: ${e && e.message}`);
      this.queue.length = 0;
    } finally {
      this.busy = false;
      const waiting = this._idle.splice(0);
      for (const done of waiting) done();
    }
  }

  _drop(event, why) {
    this.counts.dropped += 1;
    this.log(`roombot reporter: dropped report ${event && event.event_id} for ${event && event.turn}: ${why}`);
  }

  _post(event) {
    return new Promise((resolve) => {
      let body;
      try {
        body = Buffer.from(JSON.stringify(event), "utf8");
      } catch (e) {
        resolve({ ok: false, retry: false, why: `not JSON: ${e.message}` });
        return;
      }
      const lib = this.url.protocol === "https:" ? https : http;
      const req = lib.request(
        this.url,
        {
          method: "POST",
          headers: {
            Authorization: `Bearer ${this.token}`,
            "Content-Type": "application/json",
            "Content-Length": body.length,
            Accept: "application/json",
          },
          timeout: this.opts.timeoutMs,
          ...(this.ca !== undefined ? { ca: this.ca } : {}),
        },
        (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => {
            const status = res.statusCode || 0;
            if (status >= 200 && status < 300) {
              resolve({ ok: true });
              return;
            }
            const text = Buffer.concat(chunks).toString("utf8").slice(0, 300);
            const retryAfter = Number(res.headers["retry-after"]);
            resolve({
              ok: false,
              retry: RETRY.has(status),
              why: `HTTP ${status} ${text}`,
              retryAfterMs: Number.isFinite(retryAfter) ? retryAfter * 1000 : 0,
            });
          });
          res.on("error", (e) => resolve({ ok: false, retry: true, why: e.message }));
        },
      );
      req.on("socket", (socket) => socket.unref());
      req.on("timeout", () => req.destroy(new Error(`no answer within ${this.opts.timeoutMs} ms`)));
      req.on("error", (e) => {
        const refusal = tlsRefusal(e, this.url.hostname);
        // A refused certificate stays refused for this report: said once, not retried.
        if (refusal) resolve({ ok: false, retry: false, why: `TLS refused: ${refusal}` });
        else resolve({ ok: false, retry: true, why: `${this.url.origin}: ${e.code || e.message}` });
      });
      req.end(body);
    });
  }
}

function sleep(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
}
