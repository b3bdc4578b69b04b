// Tracing backends' ingestion APIs, as edgeflow sends traces to them (services/tracing), in Node
// (vitest globalSetup), routed by a path prefix the tests put in each credential's endpoint:
//   POST /langfuse/api/public/ingestion   Langfuse: Basic auth (pk:sk) required → 207 {successes, errors}
//   POST /langsmith/runs/batch            LangSmith: x-api-key required → 202 {}
//   POST /otlp/v1/traces                  an OTLP/HTTP collector (JSON only: 415 otherwise) → 200 {partialSuccess: {}}
//   POST /langwatch/api/collector         LangWatch: X-Auth-Token required, {trace_id, spans[]} → 200 {message: "Trace received successfully."}
//   POST /lunary/v1/runs/ingest           Lunary: Authorization Bearer <project id> required, {events[]} → 200 {results}
//   ANY  /slow/…                          never answers (until the client gives up)
//   ANY  /fail/…                          500
// GET /requests?contains=<marker> lists what was received (method, path, headers, JSON body).
import { hang, serveStandin } from "./base.mjs";

export function startTracingStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const path = url.pathname;
    if (path.startsWith("/slow/")) return hang(res);
    if (path.startsWith("/fail/")) return json(500, { message: "the tracing backend is having a bad day" });
    if (req.method !== "POST") return json(405, { message: "POST only" });
    if (path === "/langfuse/api/public/ingestion") {
      if (!/^Basic [A-Za-z0-9+/=]+$/.test(req.headers.authorization ?? "")) return json(401, { message: "No authorization header" });
      const batch = Array.isArray(body?.batch) ? body.batch : [];
      return json(207, { successes: batch.map((e) => ({ id: e.id, status: 201 })), errors: [] });
    }
    if (path === "/langsmith/runs/batch") {
      if (!req.headers["x-api-key"]) return json(401, { detail: "Missing API key" });
      return json(202, {});
    }
    if (path === "/langwatch/api/collector") {
      if (!req.headers["x-auth-token"]) return json(401, { message: "X-Auth-Token header is required." });
      if (typeof body?.trace_id !== "string" || !Array.isArray(body?.spans)) return json(400, { message: "trace_id and spans required" });
      return json(200, { message: "Trace received successfully." });
    }
    if (path === "/lunary/v1/runs/ingest") {
      if (!/^Bearer \S+$/.test(req.headers.authorization ?? "")) return json(401, { message: "Invalid project id" });
      const events = Array.isArray(body?.events) ? body.events : null;
      if (!events) return json(400, { message: "events required" });
      return json(200, { results: events.map((e) => ({ id: e.runId, success: true })) });
    }
    if (path === "/otlp/v1/traces") {
      if (!(req.headers["content-type"] ?? "").includes("application/json")) return json(415, { message: "JSON only here" });
      if (!Array.isArray(body?.resourceSpans)) return json(400, { message: "not an ExportTraceServiceRequest" });
      return json(200, { partialSuccess: {} });
    }
    return json(404, { message: `no route ${path}` });
  });
}
