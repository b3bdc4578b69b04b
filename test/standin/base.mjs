// What every small service stand-in shares (runs in Node, vitest globalSetup): a loopback HTTP
// server that records each request (path, headers, JSON body) for GET /requests?contains=<marker>
// (DELETE /requests clears), and the scripted behaviours the chat stand-ins agree on.
import { createServer } from "node:http";

/**
 * Starts a stand-in. `handle(ctx)` answers; ctx = {req, res, url, body, raw, bytes, record, json(status, value)}.
 * Resolves {url, requests, close}.
 */
export function serveStandin(handle) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    try {
      for await (const c of req) chunks.push(c);
    } catch {
      // The client gave up mid-upload (a deadline, a reset): nothing to answer. Left uncaught, the
      // rejection would end the test run's whole process.
      return res.destroy();
    }
    const raw = Buffer.concat(chunks).toString("utf8");
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests") {
      if (req.method === "DELETE") requests.length = 0;
      const marker = url.searchParams.get("contains");
      const list = marker ? requests.filter((r) => r.raw.includes(marker)) : requests;
      return json(
        200,
        list.map(({ raw: _raw, ...r }) => r),
      );
    }
    let body;
    // Protobuf bodies (OTLP's application/x-protobuf) reach the handler as `bytes`; it decodes them into record.body.
    const binary = (req.headers["content-type"] ?? "").includes("protobuf");
    if (raw && !binary) {
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, { error: { message: "body is not JSON" } });
      }
    }
    const record = { method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, body, raw };
    requests.push(record);
    try {
      await handle({ req, res, url, body, raw, bytes: Buffer.concat(chunks), record, json });
    } catch (err) {
      if (!res.headersSent) json(500, { error: { message: String(err) } });
      else res.destroy();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}

/** Waits until the client gives up (or 30 s, without keeping the process alive), then drops the connection. */
export async function hang(res) {
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 30_000);
    timer.unref();
    res.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  res.destroy();
}

/**
 * The chat stand-ins' script, from the last user text and the tool results after it:
 *   [fail] → {fail: 500}; [fail-once] → {fail: 500} the first time this exact text is asked, then as
 *   usual; [bad-request] → {fail: 400}; [hang] → {hang: true};
 *   [call NAME {json}] (one or more, tools offered) → {calls: [{name, args}]} one per turn (all remaining
 *     with [parallel]), then {text: "tools said: r1 | r2"} once each has its result;
 *   otherwise {text: "echo: <last user text>"}.
 */
const failedOnce = new Set();

export function chatScript(last, toolResults, toolsOffered) {
  if (last.includes("[fail]")) return { fail: 500 };
  if (last.includes("[fail-once]") && !failedOnce.has(last)) {
    failedOnce.add(last);
    return { fail: 500 };
  }
  if (last.includes("[bad-request]")) return { fail: 400 };
  if (last.includes("[hang]")) return { hang: true };
  const planned = [...last.matchAll(/\[call (\S+?) (\{.*?\})\]/g)].map((m) => ({ name: m[1], args: JSON.parse(m[2]) }));
  if (planned.length && toolsOffered) {
    if (toolResults.length < planned.length) {
      return { calls: last.includes("[parallel]") ? planned.slice(toolResults.length) : [planned[toolResults.length]] };
    }
    return { text: `tools said: ${toolResults.join(" | ")}` };
  }
  return { text: `echo: ${last}` };
}

/** Words of an answer, each keeping its trailing space: the stream's tokens. */
export const tokensOf = (text) => text.split(/(?<=\s)/);

export function sse(res, frames) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const f of frames) res.write(f);
  res.end();
}

/** Arguments made up from a JSON schema: the first enum value, 1, true, or "echo: <the prompt's start>". */
export function fromSchema(schema, last) {
  if (!schema || typeof schema !== "object") return null;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (schema.type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fromSchema(v, last)]));
    case "array":
      return [fromSchema(schema.items ?? { type: "string" }, last)];
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    default:
      return `echo: ${last.slice(0, 60)}`;
  }
}

/**
 * A forced call (structured output, a supervisor's route) in the native stand-ins: to `name`, with the
 * arguments of `[so {json}]` in the last user text, else made up from the tool's `parameters`.
 */
export function forcedCall(name, parameters, last) {
  const given = /\[so (\{.*\})\]/s.exec(last)?.[1];
  return { calls: [{ name, args: given ? JSON.parse(given) : fromSchema(parameters, last) }] };
}
