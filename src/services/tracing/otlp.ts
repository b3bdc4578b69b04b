// A trace as OTLP/HTTP JSON (POST {endpoint}/v1/traces, an ExportTraceServiceRequest), with
// OpenTelemetry's GenAI semantic conventions: the run is an `invoke_workflow` span, a model call a
// `chat {model}` client span (gen_ai.request.model, gen_ai.usage.*_tokens, gen_ai.input.messages /
// gen_ai.output.messages), a tool call `execute_tool {name}`, a retriever hit `retrieval {name}`,
// an agentflow Agent node `invoke_agent {label}`; every span carries gen_ai.conversation.id (the chatId).
// With `openinference` (Arize, Phoenix, Opik): the span names of the run and OpenInference's attributes.
// A trace past OTLP/HTTP's recommended 20 MiB request limit (a 413, the whole request lost) goes in several
// requests, its spans split between them: OTLP takes a trace's spans in any number of requests.
import { chunkBy } from "../../lib/chunk";
import { utf8Length } from "../../lib/utf8";
import { openInferenceAttributes, openInferenceRoot } from "./openinference";
import type { Span, Trace } from "./trace-types";

/** Counted as OTLP/JSON; the protobuf encoding of the same spans is smaller (ids as bytes, no keys). */
const MAX_REQUEST_BYTES = 16_000_000;

type AnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
interface KeyValue {
  key: string;
  value: AnyValue;
}

const digits = (uuid: string) => uuid.replace(/-/g, "").toLowerCase().padEnd(32, "0");
/** The trace id: the trace's UUID (a random v4) as 32 hex digits. */
const traceIdOf = (uuid: string) => digits(uuid).slice(0, 32);
/**
 * A span id (16 hex digits) from a span's UUID: its two halves XOR-ed. LangChain's run ids are UUIDv7, whose
 * first half is the millisecond and a counter's high bits: runs started in the same millisecond (the Workers
 * clock stands still between I/O: a tool and the retriever it calls) share it, so a half alone would collide.
 */
function spanIdOf(uuid: string): string {
  const d = digits(uuid);
  let out = "";
  for (let i = 0; i < 16; i++) out += ((Number.parseInt(d[i], 16) || 0) ^ (Number.parseInt(d[i + 16], 16) || 0)).toString(16);
  return out;
}
const nanos = (ms: number | undefined) => `${BigInt(Math.round(ms ?? Date.now())) * 1_000_000n}`;
const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

function attribute(key: string, value: unknown): KeyValue | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return { key, value: { boolValue: value } };
  if (typeof value === "number") return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
  return { key, value: { stringValue: typeof value === "string" ? value : JSON.stringify(value) } };
}

const attributes = (entries: Array<[string, unknown]>): KeyValue[] =>
  entries.map(([k, v]) => attribute(k, v)).filter((a): a is KeyValue => !!a);

/** GenAI messages: role plus parts (the shape gen_ai.input.messages / gen_ai.output.messages take). */
function genAiMessages(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((m: { role?: string; content?: unknown; tool_calls?: unknown[] }) => ({
    role: m.role ?? "user",
    parts: [
      ...(m.content ? [{ type: "text", content: m.content }] : []),
      ...((m.tool_calls ?? []) as Array<{ id?: string; name?: string; args?: unknown }>).map((c) => ({
        type: "tool_call",
        id: c.id,
        name: c.name,
        arguments: c.args,
      })),
    ],
  }));
}

export interface OtlpOptions {
  serviceName?: string;
  /** OpenInference's attributes instead of GenAI's, and these resource attributes besides service.name. */
  openinference?: Array<[string, unknown]>;
}

function spanOf(trace: Trace, span: Span, options: OtlpOptions): Record<string, unknown> {
  if (options.openinference) {
    return {
      ...envelope(trace, span.id, span.parentId ?? trace.id, span.start, span.end, span.error),
      name: span.name,
      kind: SPAN_KIND_INTERNAL,
      attributes: attributes(openInferenceAttributes(trace, span)),
    };
  }
  const common: Array<[string, unknown]> = [["gen_ai.conversation.id", trace.sessionId]];
  let name = span.name;
  let kind = SPAN_KIND_INTERNAL;
  let extra: Array<[string, unknown]> = [];
  switch (span.kind) {
    case "generation":
      name = `chat ${span.model ?? span.name}`;
      kind = SPAN_KIND_CLIENT;
      extra = [
        ["gen_ai.operation.name", "chat"],
        ["gen_ai.provider.name", span.provider],
        ["gen_ai.request.model", span.model],
        ["gen_ai.request.temperature", span.parameters?.temperature],
        ["gen_ai.request.max_tokens", span.parameters?.max_tokens ?? span.parameters?.maxTokens],
        ["gen_ai.usage.input_tokens", span.usage?.input],
        ["gen_ai.usage.output_tokens", span.usage?.output],
        ["gen_ai.input.messages", genAiMessages(span.input)],
        ["gen_ai.output.messages", genAiMessages(span.output)],
      ];
      break;
    case "tool":
      name = `execute_tool ${span.name}`;
      extra = [
        ["gen_ai.operation.name", "execute_tool"],
        ["gen_ai.tool.name", span.name],
        ["gen_ai.tool.call.id", span.attributes?.toolCallId],
        ["gen_ai.tool.call.arguments", span.input],
        ["gen_ai.tool.call.result", span.output],
      ];
      break;
    case "retriever":
      name = `retrieval ${span.name}`;
      extra = [
        ["gen_ai.operation.name", "retrieval"],
        ["gen_ai.retrieval.query.text", span.input],
        ["gen_ai.retrieval.documents", span.output],
      ];
      break;
    case "node": {
      const agent = span.attributes?.nodeName === "agentAgentflow";
      if (agent) name = `invoke_agent ${span.name}`;
      extra = [
        ...(agent
          ? ([
              ["gen_ai.operation.name", "invoke_agent"],
              ["gen_ai.agent.name", span.name],
            ] as Array<[string, unknown]>)
          : []),
        ["edgeflow.node.id", span.attributes?.nodeId],
        ["edgeflow.node.name", span.attributes?.nodeName],
        ["edgeflow.node.input", span.input],
        ["edgeflow.node.output", span.output],
      ];
      break;
    }
    default:
      // A chatflow agent's loop (a LangChain run of type "agent") is an agent's invocation too.
      if (span.attributes?.runType === "agent") {
        name = `invoke_agent ${span.name}`;
        extra = [
          ["gen_ai.operation.name", "invoke_agent"],
          ["gen_ai.agent.name", span.name],
        ];
      }
      extra = [...extra, ["edgeflow.chain.input", span.input], ["edgeflow.chain.output", span.output]];
  }
  return {
    ...envelope(trace, span.id, span.parentId ?? trace.id, span.start, span.end, span.error),
    name,
    kind,
    attributes: attributes([...common, ...extra]),
  };
}

/** Ids, times and status of a span. */
const envelope = (trace: Trace, id: string, parentId: string | undefined, start: number, end?: number, error?: string) => ({
  traceId: traceIdOf(trace.id),
  spanId: spanIdOf(id),
  ...(parentId ? { parentSpanId: spanIdOf(parentId) } : {}),
  startTimeUnixNano: nanos(start),
  endTimeUnixNano: nanos(end),
  status: error ? { code: STATUS_ERROR, message: error } : { code: STATUS_OK },
});

/** The ExportTraceServiceRequests of a trace, usually one (OTLP/JSON's objects; otlp-proto.ts encodes them as protobuf). */
export function otlpExports(trace: Trace, options: OtlpOptions): Array<Record<string, unknown>> {
  const oi = options.openinference;
  const root = {
    ...envelope(trace, trace.id, undefined, trace.start, trace.end, trace.error),
    name: oi ? trace.name : `invoke_workflow ${trace.name}`,
    kind: SPAN_KIND_INTERNAL,
    attributes: attributes(
      oi
        ? openInferenceRoot(trace)
        : [
            ["gen_ai.operation.name", "invoke_workflow"],
            ["gen_ai.conversation.id", trace.sessionId],
            ["gen_ai.input.messages", [{ role: "user", parts: [{ type: "text", content: trace.input }] }]],
            [
              "gen_ai.output.messages",
              trace.output === undefined ? undefined : [{ role: "assistant", parts: [{ type: "text", content: trace.output }] }],
            ],
            ...Object.entries(trace.metadata).map(([k, v]) => [`edgeflow.${k}`, v] as [string, unknown]),
          ],
    ),
  };
  const resource = { attributes: attributes([["service.name", options.serviceName ?? "edgeflow"], ...(oi ?? [])]) };
  const spans = [root, ...trace.spans.map((s) => spanOf(trace, s, options))];
  return chunkBy(spans, Number.POSITIVE_INFINITY, MAX_REQUEST_BYTES, (s) => utf8Length(JSON.stringify(s)) + 1).map((group) => ({
    resourceSpans: [{ resource, scopeSpans: [{ scope: { name: "edgeflow" }, spans: group }] }],
  }));
}

export const otlpRequests = (trace: Trace, options: OtlpOptions): string[] => otlpExports(trace, options).map((r) => JSON.stringify(r));
