// Tracing backends' ingestion APIs, as edgeflow sends traces to them (services/tracing), in Node
// (vitest globalSetup), routed by a path prefix the tests put in each credential's endpoint:
//   POST /langfuse/api/public/ingestion   Langfuse: Basic auth (pk:sk) required → 207 {successes, errors}
//   POST /langsmith/runs/batch            LangSmith: x-api-key required → 202 {}
//   POST /otlp/v1/traces                  an OTLP/HTTP collector (JSON only: 415 otherwise) → 200 {partialSuccess: {}}
//   POST /langwatch/api/collector         LangWatch: X-Auth-Token (or Bearer) required, {trace_id, spans[]} → 200
//   POST /lunary/v1/runs/ingest           Lunary: Authorization Bearer <project id, a UUID> → 200 {results}
//   POST /arize/v1/traces                Arize (OTLP/HTTP protobuf): headers api_key and space_id required → 200
//   POST /phoenix/v1/traces              Phoenix (OTLP/HTTP protobuf): Authorization Bearer required → 200
//   POST /opik/v1/private/otel/v1/traces Opik (OTLP/HTTP protobuf): Authorization, projectName, Comet-Workspace → 200
//     (protobuf only: 415 otherwise; the body decoded as OTLP/JSON's object: ids hex, nanos strings)
//   ANY  /slow/…                          never answers (until the client gives up)
//   ANY  /fail/…                          500
// GET /requests?contains=<marker> lists what was received (method, path, headers, JSON body, `size` in bytes)
// and `answer` ({status, body}: what the stand-in replied), so a test sees a refusal, not only the request.
//
// Each backend refuses what the real one refuses, as its source or reference says (no rule guessed; where
// the source gives no status for a refusal, the check says so):
//   Langfuse  web/src/pages/api/public/ingestion.ts and packages/shared/src/server/ingestion/types.ts: a body
//             over Next's 4.5mb bodyParser limit is a 413; no `batch` array a 400; an event failing the zod
//             schema is answered inside the 207 as {id, status: 400, message: "Invalid request data", error}.
//   LangSmith its API's 400s on dotted_order (timestamp format, parts for root/child runs, trace_id, a child
//             earlier than its parent), the run_type enum of its reference, its advertised 20 MiB a request.
//   LangWatch langwatch/src/pages/api/collector.ts and server/tracer/types: content-type exactly
//             application/json, 10mb, at most 200 spans (429), one trace id, each span's zod schema (400).
//   Lunary    packages/backend/src/api/v1/runs/ingest.ts, auth/utils.ts, index.ts: a non-UUID project id is a
//             402, a body over koa-bodyparser's 20mb a 413, a run started twice a per-event failure.
//   OTLP      opentelemetry-proto's specification.md and trace.proto: ids of 16/8 bytes, not all zero, hex in
//             JSON; enums as integers in range; bad data a 400; over the recommended 20 MiB a 413.
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

const MiB = 1024 * 1024;
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const nullish = (v) => v === undefined || v === null;
const optString = (v) => nullish(v) || typeof v === "string";
const nonNegInt = (v) => Number.isInteger(v) && v >= 0;
const stringList = (v) => Array.isArray(v) && v.every((x) => typeof x === "string");
/** The first key of `keys` whose value fails `ok`. */
const firstBad = (obj, keys, ok) => keys.find((k) => !ok(obj[k]));

// ---- Langfuse ----

const LANGFUSE_LIMIT = 4.5 * MiB;
const LANGFUSE_TYPES = new Set([
  ...["trace-create", "score-create", "event-create", "span-create", "span-update", "generation-create", "generation-update"],
  ...["sdk-log", "observation-create", "observation-update"],
]);
/** zod's string().datetime({offset: true}): ISO 8601 with a Z or ±hh:mm offset. */
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;
const optDate = (v) => nullish(v) || (typeof v === "string" && ISO_DATETIME.test(v));
/** idSchema: 1 to 800 characters, no carriage return. */
const langfuseId = (v) => typeof v === "string" && v.length >= 1 && v.length <= 800 && !v.includes("\r");
const LEVELS = new Set(["DEBUG", "DEFAULT", "WARNING", "ERROR"]);
const environmentOk = (v) => v === undefined || (typeof v === "string" && v.length <= 40 && /^(?!langfuse)[a-z0-9-_]+$/.test(v));
/** modelParameters' values: string, number, boolean, string[] or a string map. */
const mapValue = (v) =>
  nullish(v) ||
  ["string", "number", "boolean"].includes(typeof v) ||
  stringList(v) ||
  (isObj(v) && Object.values(v).every((x) => typeof x === "string"));
const counts = (v) => isObj(v) && Object.values(v).every((x) => nullish(x) || nonNegInt(x));
/** OpenAI's usage objects, which Langfuse takes strictly (no other keys), besides a plain map of counts. */
const openAIUsage = (v, totals, details) =>
  isObj(v) &&
  Object.keys(v).every((k) => totals.includes(k) || details.includes(k)) &&
  totals.every((k) => nonNegInt(v[k])) &&
  details.every((k) => nullish(v[k]) || counts(v[k]));
const usageDetailsOk = (v) =>
  nullish(v) ||
  counts(v) ||
  openAIUsage(v, ["prompt_tokens", "completion_tokens", "total_tokens"], ["prompt_tokens_details", "completion_tokens_details"]) ||
  openAIUsage(v, ["input_tokens", "output_tokens", "total_tokens"], ["input_tokens_details", "output_tokens_details"]);
const legacyUsageOk = (v) =>
  nullish(v) ||
  (isObj(v) &&
    !firstBad(
      v,
      ["input", "output", "total", "promptTokens", "completionTokens", "totalTokens"],
      (x) => nullish(x) || Number.isInteger(x),
    ) &&
    !firstBad(v, ["inputCost", "outputCost", "totalCost"], (x) => nullish(x) || typeof x === "number"));

function langfuseTraceProblem(b) {
  if (!nullish(b.id) && !langfuseId(b.id)) return "id: invalid id";
  if (!optDate(b.timestamp)) return "timestamp: Invalid ISO datetime";
  const text = firstBad(b, ["name", "externalId", "sessionId", "userId", "release", "version"], optString);
  if (text) return `${text}: Invalid input: expected string`;
  if (typeof b.name === "string" && b.name.length > 1000) return "name: Too big: expected string to have <=1000 characters";
  if (!nullish(b.tags) && !stringList(b.tags)) return "tags: Invalid input: expected array of strings";
  if (!nullish(b.public) && typeof b.public !== "boolean") return "public: Invalid input: expected boolean";
  if (!environmentOk(b.environment)) return "environment: Only alphanumeric lower case characters, hyphens, and underscores are allowed";
}

function langfuseObservationProblem(type, b) {
  if (!langfuseId(b.id)) return "id: Invalid input: expected string";
  if (!nullish(b.traceId) && !langfuseId(b.traceId)) return "traceId: invalid id";
  const text = firstBad(b, ["name", "statusMessage", "parentObservationId", "version", "model", "promptName"], optString);
  if (text) return `${text}: Invalid input: expected string`;
  const date = firstBad(b, ["startTime", "endTime", "completionStartTime"], optDate);
  if (date) return `${date}: Invalid ISO datetime`;
  if (!nullish(b.level) && !LEVELS.has(b.level)) return `level: Invalid option: expected one of "DEBUG"|"DEFAULT"|"WARNING"|"ERROR"`;
  if (!environmentOk(b.environment)) return "environment: Only alphanumeric lower case characters, hyphens, and underscores are allowed";
  if (!type.startsWith("generation-")) return undefined;
  if (!nullish(b.modelParameters) && !(isObj(b.modelParameters) && Object.values(b.modelParameters).every(mapValue)))
    return "modelParameters: Invalid input";
  if (!legacyUsageOk(b.usage)) return "usage: Invalid input";
  if (!usageDetailsOk(b.usageDetails)) return "usageDetails: Invalid input";
  if (!nullish(b.costDetails) && !(isObj(b.costDetails) && Object.values(b.costDetails).every((x) => nullish(x) || x >= 0)))
    return "costDetails: Invalid input";
  if (!nullish(b.promptVersion) && !Number.isInteger(b.promptVersion)) return "promptVersion: Invalid input: expected int";
  if (!b.promptName !== !b.promptVersion) return "promptName and promptVersion go together";
}

/** Why Langfuse's schema refuses this event, or undefined. */
function validateLangfuseEvent(e) {
  if (!isObj(e)) return "Invalid input: expected object";
  if (!langfuseId(e.id)) return "id: Invalid input: expected string";
  if (typeof e.timestamp !== "string" || !ISO_DATETIME.test(e.timestamp)) return "timestamp: Invalid ISO datetime";
  if (!LANGFUSE_TYPES.has(e.type)) return `type: Invalid discriminator value ${JSON.stringify(e.type)}`;
  if (e.type === "sdk-log" || e.type === "score-create") return undefined; // edgeflow sends neither
  if (!isObj(e.body)) return "body: Invalid input: expected object";
  const why = e.type === "trace-create" ? langfuseTraceProblem(e.body) : langfuseObservationProblem(e.type, e.body);
  return why && `body.${why}`;
}

/** Langfuse's answer to an ingestion body: [status, response]. */
function langfuseAnswer(body, bytes) {
  if (bytes.length > LANGFUSE_LIMIT) return [413, { message: "Body exceeded 4.5mb limit" }];
  if (!isObj(body) || !Array.isArray(body.batch)) return [400, { message: "Invalid request data", errors: ["batch: expected array"] }];
  const successes = [];
  const errors = [];
  for (const e of body.batch) {
    const why = validateLangfuseEvent(e);
    const id = isObj(e) && typeof e.id === "string" ? e.id : "unknown";
    if (why) errors.push({ id, status: 400, message: "Invalid request data", error: why });
    else successes.push({ id, status: 201 });
  }
  return [207, { successes, errors }];
}

// ---- LangSmith ----

const RUN_TYPES = new Set(["tool", "chain", "llm", "retriever", "embedding", "prompt", "parser"]);
/** One dotted_order part: %Y%m%dT%H%M%S, microseconds (6 digits), Z, the run's UUID. */
const DOTTED_PART = /^(\d{8}T\d{6})(\d{6})Z([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

function dottedOrderProblem(run) {
  if (typeof run.dotted_order !== "string") return "dotted_order is required";
  const parts = [];
  for (const [i, part] of run.dotted_order.split(".").entries()) {
    const m = DOTTED_PART.exec(part);
    if (!m) return `invalid timestamp in dotted_order ${part} at index ${i}`;
    parts.push({ at: `${m[1]}${m[2]}`, id: m[3].toLowerCase() });
  }
  const same = (a, b) => String(a ?? "").toLowerCase() === b;
  if (!run.parent_run_id && parts.length !== 1) return "dotted_order must contain a single part for root runs";
  if (run.parent_run_id && parts.length < 2) return "dotted_order must contain at least two parts for child runs";
  if (!same(run.trace_id, parts[0].id)) return `trace_id ${run.trace_id} does not match first part of dotted_order`;
  if (!same(run.id, parts.at(-1).id)) return `id ${run.id} does not match last part of dotted_order`;
  if (run.parent_run_id && !same(run.parent_run_id, parts.at(-2).id)) return `parent_run_id ${run.parent_run_id} is not the parent part`;
  for (let i = 1; i < parts.length; i++)
    if (parts[i].at < parts[i - 1].at) return `dotted_order has timestamp ${parts[i].at} earlier than parent timestamp ${parts[i - 1].at}`;
}

/** LangSmith's /info advertises batch_ingest_config.size_limit_bytes 20 MiB, and its SDKs refuse to send more. */
const LANGSMITH_LIMIT = 20 * MiB;

function langsmithAnswer(body, bytes) {
  // The status past the limit is not documented; 413 is what a body limit answers.
  if (bytes.length > LANGSMITH_LIMIT) return [413, { detail: "Request body too large" }];
  // A body or run_type that LangSmith's schema refuses: the status is not documented (FastAPI's 422 assumed).
  if (!isObj(body)) return [422, { detail: "body: expected object" }];
  const post = Array.isArray(body.post) ? body.post : [];
  const bad = post.find((run) => !RUN_TYPES.has(run?.run_type));
  if (bad) return [422, { detail: `run_type: unknown value ${JSON.stringify(bad.run_type)}` }];
  for (const run of [...post, ...(Array.isArray(body.patch) ? body.patch : [])]) {
    const why = dottedOrderProblem(run);
    if (why) {
      const context = `run_id:${run.id} trace_id:${run.trace_id} dotted_order:${run.dotted_order} parent_run_id:${run.parent_run_id}`;
      return [400, { detail: `invalid 'dotted_order': ${why} for ${context}` }];
    }
  }
  return [202, {}];
}

// ---- LangWatch ----

const LANGWATCH_LIMIT = 10 * MiB;
const SPAN_TYPES = new Set(
  "span llm chain tool agent rag guardrail evaluation workflow component module server client producer consumer task unknown".split(" "),
);
const CHAT_ROLES = new Set(["system", "user", "assistant", "function", "tool", "unknown"]);
const toolCallOk = (c) =>
  isObj(c) &&
  typeof c.id === "string" &&
  typeof c.type === "string" &&
  isObj(c.function) &&
  !firstBad(c.function, ["name", "arguments"], (v) => v === undefined || typeof v === "string");
const chatMessageOk = (m) =>
  isObj(m) &&
  (m.role === undefined || CHAT_ROLES.has(m.role)) &&
  (nullish(m.content) || typeof m.content === "string" || Array.isArray(m.content)) &&
  (nullish(m.tool_calls) || (Array.isArray(m.tool_calls) && m.tool_calls.every(toolCallOk))) &&
  !firstBad(m, ["tool_call_id", "name"], optString);
/** LangWatch's typed values (SpanInputOutput). */
const TYPED = {
  text: (v) => typeof v === "string",
  raw: (v) => typeof v === "string",
  json: (v) => v === null || ["string", "number", "boolean", "object"].includes(typeof v),
  chat_messages: (v) => Array.isArray(v) && v.every(chatMessageOk),
  list: (v) => Array.isArray(v) && v.every(typedOk),
  guardrail_result: isObj,
  evaluation_result: isObj,
};
function typedOk(v) {
  return isObj(v) && Object.hasOwn(TYPED, v.type) && TYPED[v.type](v.value);
}
const primitive = (v) => v === null || ["string", "number", "boolean", "undefined"].includes(typeof v);
const customValueOk = (v) =>
  primitive(v) ||
  (Array.isArray(v) && v.every(primitive)) ||
  (isObj(v) && Object.values(v).every((x) => primitive(x) || (isObj(x) && Object.values(x).every(primitive))));
const RESERVED_STRINGS = ["thread_id", "user_id", "customer_id", "topic_id", "subtopic_id", "sdk_name", "sdk_version", "sdk_language"];

function langwatchMetadataProblem(metadata) {
  if (nullish(metadata)) return undefined;
  if (!isObj(metadata)) return "metadata: Expected object";
  const bad = firstBad(metadata, RESERVED_STRINGS, optString);
  if (bad) return `metadata.${bad}: Expected string`;
  if (!nullish(metadata.labels) && !stringList(metadata.labels)) return "metadata.labels: Expected array of strings";
  const custom = Object.keys(metadata).find((k) => !RESERVED_STRINGS.includes(k) && k !== "labels" && !customValueOk(metadata[k]));
  if (custom) return `metadata.${custom}: Invalid input`;
}

/** Why LangWatch's span validator refuses this span, or undefined. */
function validateLangwatchSpan(s) {
  if (!isObj(s)) return "Expected object";
  const ids = firstBad(s, ["span_id", "trace_id"], (v) => typeof v === "string");
  if (ids) return `${ids}: Required`;
  if (!SPAN_TYPES.has(s.type)) return `type: Invalid literal value ${JSON.stringify(s.type)}`;
  const text = firstBad(s, ["parent_id", "name", ...(s.type === "llm" ? ["vendor", "model"] : [])], optString);
  if (text) return `${text}: Expected string`;
  const t = s.timestamps;
  if (!isObj(t) || typeof t.started_at !== "number" || typeof t.finished_at !== "number") return "timestamps: Required";
  if (!nullish(s.error) && !(isObj(s.error) && typeof s.error.message === "string" && stringList(s.error.stacktrace)))
    return "error: Expected {has_error, message, stacktrace}";
  const io = firstBad(s, ["input", "output"], (v) => nullish(v) || typedOk(v));
  if (io) return `${io}: Invalid input`;
  if (!nullish(s.metrics) && !(isObj(s.metrics) && Object.values(s.metrics).every((v) => nullish(v) || typeof v !== "object")))
    return "metrics: Invalid input";
  if (!nullish(s.params) && !isObj(s.params)) return "params: Expected object";
  const ms = (v) => nullish(v) || String(v).length === 13;
  if (!ms(t.started_at) || !ms(t.finished_at) || !ms(t.first_token_at))
    return "Timestamps should be in milliseconds not in seconds, please multiply it by 1000";
}

function langwatchAnswer(req, body, bytes) {
  if (bytes.length > LANGWATCH_LIMIT) return [413, { message: "Body exceeded 10mb limit" }];
  if (req.headers["content-type"] !== "application/json" || !isObj(body)) return [400, { message: "Invalid body, expecting json" }];
  if (!optString(body.trace_id)) return [400, { error: 'Validation error: Expected string at "trace_id"' }];
  if (body.spans && !Array.isArray(body.spans)) return [400, { message: "Invalid 'spans' field, expecting array" }];
  const spans = body.spans ?? [];
  if (spans.length > 200) return [429, { message: "Too many spans, maximum of 200 per trace" }];
  const metadata = langwatchMetadataProblem(body.metadata);
  if (metadata) return [400, { error: `Validation error: ${metadata}` }];
  const traceId = body.trace_id ?? spans[0]?.trace_id;
  if (!traceId) return [400, { message: "Trace ID not defined" }];
  if (spans.some((s) => s?.trace_id && s.trace_id !== traceId)) return [400, { message: "All spans must have the same trace id" }];
  for (const [i, span] of spans.entries()) {
    const why = validateLangwatchSpan(span);
    if (why) return [400, { error: `Validation error: ${why} at "spans[${i}]"` }];
  }
  return [200, { message: "Trace received successfully." }];
}

// ---- Lunary ----

const LUNARY_LIMIT = 20 * MiB;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Runs Lunary has stored (its run table): a second `start` of one is refused. */
const lunaryRuns = new Set();

/** Why Lunary's ingestion fails this event (it answers 200 all the same, the failure in `results`), or undefined. */
function lunaryEventProblem(e) {
  if (e?.event === "chat" && typeof e.parentRunId !== "string") return "No parent run ID provided";
  if (e?.event === "start") {
    if (lunaryRuns.has(e.runId)) return "Run with this ID already exists in the database.";
    lunaryRuns.add(e.runId);
  }
}

function lunaryAnswer(req, body, bytes) {
  const bearer = (req.headers.authorization ?? "").split(" ")[1];
  if (!UUID.test(bearer ?? "")) return [402, { message: "Incorrect project id format" }];
  if (bytes.length > LUNARY_LIMIT) return [413, { message: "request entity too large" }];
  const events = body?.events === undefined ? null : [body.events].flat();
  // Lunary throws "Missing events payload." here; the status its error middleware gives is not documented.
  if (!events) return [400, { message: "Missing events payload." }];
  // Lunary stores them in timestamp order (parents first), as processEventsIngestion sorts them.
  const sorted = [...events].sort((a, b) => new Date(a?.timestamp).getTime() - new Date(b?.timestamp).getTime());
  const results = sorted.map((e) => {
    const why = lunaryEventProblem(e);
    return why ? { id: e?.runId, success: false, error: why } : { id: e?.runId, success: true };
  });
  return [200, { results }];
}

// ---- OTLP (JSON here, protobuf for Arize, Phoenix, Opik) ----

const OTLP_LIMIT = 20 * MiB;
const hexId = (bytes) => new RegExp(`^(?!0+$)[0-9a-fA-F]{${bytes * 2}}$`);
const TRACE_ID = hexId(16);
const SPAN_ID = hexId(8);
const enumIn = (v, max) => v === undefined || (Number.isInteger(v) && v >= 0 && v <= max);

/** Why an OTLP receiver refuses this span (bad data), or undefined. */
function validateOtlpSpan(s) {
  if (!TRACE_ID.test(s?.traceId ?? "")) return `invalid trace id ${JSON.stringify(s?.traceId)}: 16 bytes, not all zero`;
  if (!SPAN_ID.test(s.spanId ?? "")) return `invalid span id ${JSON.stringify(s.spanId)}: 8 bytes, not all zero`;
  if (s.parentSpanId && !SPAN_ID.test(s.parentSpanId)) return `invalid parent span id ${JSON.stringify(s.parentSpanId)}`;
  if (!enumIn(s.kind, 5)) return `invalid span kind ${JSON.stringify(s.kind)}: an integer 0-5`;
  if (!enumIn(s.status?.code, 2)) return `invalid status code ${JSON.stringify(s.status?.code)}: an integer 0-2`;
}

function otlpProblem(request) {
  if (!Array.isArray(request?.resourceSpans)) return "not an ExportTraceServiceRequest";
  for (const rs of request.resourceSpans)
    for (const ss of rs?.scopeSpans ?? [])
      for (const span of ss?.spans ?? []) {
        const why = validateOtlpSpan(span);
        if (why) return why;
      }
}

const PROTO_ROUTES = {
  "/arize/v1/traces": (h) => (h.api_key && h.space_id ? undefined : "api_key and space_id headers are required"),
  "/phoenix/v1/traces": (h) => (/^Bearer \S+$/.test(h.authorization ?? "") ? undefined : "Invalid API key"),
  "/opik/v1/private/otel/v1/traces": (h) =>
    h.authorization && h.projectname && h["comet-workspace"] ? undefined : "Authorization, projectName and Comet-Workspace required",
};

export function startTracingStandin() {
  return serveStandin(async ({ req, res, url, body, bytes, record, json }) => {
    // What the stand-in answered goes with the request, for the tests to see refusals.
    const reply = (status, value) => {
      record.answer = { status, body: value };
      return json(status, value);
    };
    record.size = bytes.length; // the body's bytes, as a backend's size limit counts them
    const path = url.pathname;
    if (path.startsWith("/slow/")) return hang(res);
    if (path.startsWith("/fail/")) return reply(500, { message: "the tracing backend is having a bad day" });
    if (req.method !== "POST") return reply(405, { message: "POST only" });
    if (path === "/langfuse/api/public/ingestion") {
      if (!/^Basic [A-Za-z0-9+/=]+$/.test(req.headers.authorization ?? "")) return reply(401, { message: "No authorization header" });
      return reply(...langfuseAnswer(body, bytes));
    }
    if (path === "/langsmith/runs/batch") {
      if (!req.headers["x-api-key"]) return reply(401, { detail: "Missing API key" });
      return reply(...langsmithAnswer(body, bytes));
    }
    if (path === "/langwatch/api/collector") {
      if (!req.headers["x-auth-token"] && !/^Bearer \S+/.test(req.headers.authorization ?? ""))
        return reply(401, { message: "Authentication token is required. Use X-Auth-Token header or Authorization: Bearer token." });
      return reply(...langwatchAnswer(req, body, bytes));
    }
    if (path === "/lunary/v1/runs/ingest") return reply(...lunaryAnswer(req, body, bytes));
    const protoRoute = PROTO_ROUTES[path];
    if (protoRoute) {
      if (!(req.headers["content-type"] ?? "").includes("application/x-protobuf")) return reply(415, { message: "protobuf only here" });
      const refused = protoRoute(req.headers);
      if (refused) return reply(401, { message: refused });
      if (bytes.length > OTLP_LIMIT) return reply(413, { message: "request body too large" });
      try {
        record.body = decode(bytes);
      } catch (err) {
        return reply(400, { message: `not an ExportTraceServiceRequest: ${err.message}` });
      }
      const why = otlpProblem(record.body);
      if (why) return reply(400, { message: why });
      record.answer = { status: 200 };
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      return res.end();
    }
    if (path === "/otlp/v1/traces") {
      if (!(req.headers["content-type"] ?? "").includes("application/json")) return reply(415, { message: "JSON only here" });
      if (bytes.length > OTLP_LIMIT) return reply(413, { message: "request body too large" });
      const why = otlpProblem(body);
      if (why) return reply(400, { message: why });
      return reply(200, { partialSuccess: {} });
    }
    return reply(404, { message: `no route ${path}` });
  });
}
