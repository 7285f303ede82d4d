// The sender every roombot reporter uses: a bounded queue in memory, one POST at a time to
// roombot's report API, retries with backoff, then a drop with a log line. Nothing here may
// slow or break the harness it runs in: `enqueue` returns at once, every timer and socket is
// unref'd (an unsent report never keeps the harness alive), and no error escapes.
import http from "node:http";
import https from "node:https";
import fs from "node:fs";

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

/**
 * The reporter's settings -> {url, token} or null (send nothing).
 * The token comes from a file (`tokenFile`) or an environment variable (`tokenEnv`), never
 * from the settings themselves: a `token` written in clear is refused.
 */
export function resolveConfig(settings, { env = process.env, readFile = fs.readFileSync } = {}) {
  if (!settings || typeof settings !== "object") return { config: null, problem: null };
  const url = typeof settings.url === "string" ? settings.url.trim() : "";
  if (!url) return { config: null, problem: null };
  if (!/^https?:\/\//.test(url)) return { config: null, problem: `url ${JSON.stringify(url)} is not http(s)` };
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
  return { config: { url: url.replace(/\/+$/, ""), token }, problem: null };
}

export class Sender {
  constructor({ url, token, log = (line) => console.error(line), ...opts }) {
    this.url = new URL(url + "/v1/events");
    this.token = token;
    this.log = log;
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
      req.on("error", (e) => resolve({ ok: false, retry: true, why: `${this.url.origin}: ${e.code || e.message}` }));
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
