// Tracing backends' ingestion APIs, as edgeflow sends traces to them (services/tracing), in Node
// (vitest globalSetup), routed by a path prefix the tests put in each credential's endpoint:
//   POST /langfuse/api/public/ingestion   Langfuse: Basic auth (pk:sk) required → 207 {successes, errors}
//   POST /langsmith/runs/batch            LangSmith: x-api-key required → 202 {}
//   POST /otlp/v1/traces                  an OTLP/HTTP collector (JSON only: 415 otherwise) → 200 {partialSuccess: {}}
//   POST /langwatch/api/collector         LangWatch: X-Auth-Token required, {trace_id, spans[]} → 200 {message: "Trace received successfully."}
//   POST /lunary/v1/runs/ingest           Lunary: Authorization Bearer <project id> required, {events[]} → 200 {results}
//   POST /arize/v1/traces                Arize (OTLP/HTTP protobuf): headers api_key and space_id required → 200
//   POST /phoenix/v1/traces              Phoenix (OTLP/HTTP protobuf): Authorization Bearer required → 200
//   POST /opik/v1/private/otel/v1/traces Opik (OTLP/HTTP protobuf): Authorization, projectName, Comet-Workspace → 200
//     (protobuf only: 415 otherwise; the body decoded as OTLP/JSON's object: ids hex, nanos strings)
//   ANY  /slow/…                          never answers (until the client gives up)
//   ANY  /fail/…                          500
// GET /requests?contains=<marker> lists what was received (method, path, headers, JSON body).
import { hang, serveStandin } from "./base.mjs";

// opentelemetry-proto's ExportTraceServiceRequest: field number → [JSON key, type, repeated?].
const PROTO = {
  Request: { 1: ["resourceSpans", "ResourceSpans", true] },
  ResourceSpans: { 1: ["resource", "Resource"], 2: ["scopeSpans", "ScopeSpans", true] },
  Resource: { 1: ["attributes", "KeyValue", true] },
  ScopeSpans: { 1: ["scope", "Scope"], 2: ["spans", "Span", true] },
  Scope: { 1: ["name", "string"], 2: ["version", "string"] },
  Span: {
    1: ["traceId", "hex"],
    2: ["spanId", "hex"],
    4: ["parentSpanId", "hex"],
    5: ["name", "string"],
    6: ["kind", "varint"],
    7: ["startTimeUnixNano", "fixed64"],
    8: ["endTimeUnixNano", "fixed64"],
    9: ["attributes", "KeyValue", true],
    11: ["events", "Event", true],
    15: ["status", "Status"],
  },
  Event: { 1: ["timeUnixNano", "fixed64"], 2: ["name", "string"], 3: ["attributes", "KeyValue", true] },
  Status: { 2: ["message", "string"], 3: ["code", "varint"] },
  KeyValue: { 1: ["key", "string"], 2: ["value", "AnyValue"] },
  AnyValue: {
    1: ["stringValue", "string"],
    2: ["boolValue", "bool"],
    3: ["intValue", "int64"],
    4: ["doubleValue", "double"],
    5: ["arrayValue", "Values"],
    6: ["kvlistValue", "KeyValues"],
  },
  Values: { 1: ["values", "AnyValue", true] },
  KeyValues: { 1: ["values", "KeyValue", true] },
};

/** A generic protobuf walker (varint, fixed64, length-delimited, fixed32) reading `type` by PROTO. */
function decode(buf, type = "Request") {
  const out = {};
  let i = 0;
  const varint = () => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++];
      if (b === undefined) throw new Error("truncated varint");
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const [no, wire] = [tag >> 3, tag & 7];
    let raw;
    if (wire === 0) raw = varint();
    else if (wire === 1) raw = buf.subarray(i, (i += 8));
    else if (wire === 2) {
      const n = Number(varint());
      raw = buf.subarray(i, (i += n));
    } else if (wire === 5) raw = buf.subarray(i, (i += 4));
    else throw new Error(`wire type ${wire}`);
    if (i > buf.length) throw new Error("truncated");
    const spec = PROTO[type][no];
    if (!spec) continue;
    const [key, kind, repeated] = spec;
    const value =
      kind === "string"
        ? raw.toString("utf8")
        : kind === "hex"
          ? raw.toString("hex")
          : kind === "varint"
            ? Number(raw)
            : kind === "int64"
              ? String(BigInt.asIntN(64, raw))
              : kind === "bool"
                ? raw !== 0n
                : kind === "fixed64"
                  ? String(raw.readBigUInt64LE(0))
                  : kind === "double"
                    ? raw.readDoubleLE(0)
                    : decode(raw, kind);
    if (repeated) (out[key] ??= []).push(value);
    else out[key] = value;
  }
  return out;
}

const PROTO_ROUTES = {
  "/arize/v1/traces": (h) => (h.api_key && h.space_id ? undefined : "api_key and space_id headers are required"),
  "/phoenix/v1/traces": (h) => (/^Bearer \S+$/.test(h.authorization ?? "") ? undefined : "Invalid API key"),
  "/opik/v1/private/otel/v1/traces": (h) =>
    h.authorization && h.projectname && h["comet-workspace"] ? undefined : "Authorization, projectName and Comet-Workspace required",
};

export function startTracingStandin() {
  return serveStandin(async ({ req, res, url, body, bytes, record, json }) => {
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
    const protoRoute = PROTO_ROUTES[path];
    if (protoRoute) {
      if (!(req.headers["content-type"] ?? "").includes("application/x-protobuf")) return json(415, { message: "protobuf only here" });
      const refused = protoRoute(req.headers);
      if (refused) return json(401, { message: refused });
      try {
        record.body = decode(bytes);
      } catch (err) {
        return json(400, { message: `not an ExportTraceServiceRequest: ${err.message}` });
      }
      if (!Array.isArray(record.body.resourceSpans)) return json(400, { message: "no resourceSpans" });
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      return res.end();
    }
    if (path === "/otlp/v1/traces") {
      if (!(req.headers["content-type"] ?? "").includes("application/json")) return json(415, { message: "JSON only here" });
      if (!Array.isArray(body?.resourceSpans)) return json(400, { message: "not an ExportTraceServiceRequest" });
      return json(200, { partialSuccess: {} });
    }
    return json(404, { message: `no route ${path}` });
  });
}
