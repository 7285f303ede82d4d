// A report API stand-in on 127.0.0.1 for the reporters' own tests: it records each POST and
// answers with the statuses a test scripts (the real API is exercised in tests/lab).
import http from "node:http";

export async function startServer(script = []) {
  const requests = [];
  const answers = [...script];
  let release = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body) });
      const next = answers.length ? answers.shift() : { status: 202 };
      if (next.hold) await new Promise((r) => (release = r));
      res.writeHead(next.status, { "Content-Type": "application/json", ...(next.headers || {}) });
      res.end(JSON.stringify(next.body || { events: [] }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    release: () => release && release(),
    close: () => new Promise((r) => server.close(r)),
  };
}

export const FAST = { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 };
