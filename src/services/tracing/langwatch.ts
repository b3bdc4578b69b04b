// A trace as LangWatch's collector takes it (POST {endpoint}/api/collector, header X-Auth-Token), the
// body the langwatch SDK Flowise uses posts: {trace_id, spans, metadata: {thread_id, labels, …}}.
// One `chain` span for the flow (the question in, the answer out: LangWatch's trace input and
// output), then an `llm` span per model call (chat_messages in and out, vendor/model, params,
// metrics prompt/completion tokens), a `tool` span per tool call, a `rag` span per retriever hit
// (its documents as contexts), `chain` spans for chains and `component` spans for agentflow nodes.
// Its collector takes at most 200 spans a body (429 past that) and keeps at most 200 of a trace, in bodies of
// at most 10 MB: the trace's first 200 spans go (parents open before their children, so none is orphaned),
// in as many bodies as their size needs, which LangWatch merges by trace_id and span_id.
import { utf8Length } from "../../lib/utf8";
import { jsonGroups } from "./batches";
import type { Span, Trace } from "./trace-types";
import type { ChatMessageOut } from "./trace-values";

const MAX_SPANS = 200;
const MAX_BODY_BYTES = 9_000_000;
/** The roles LangWatch's chat message schema takes: any other (a LangChain ChatMessage's "generic") fails the whole trace. */
const ROLES = new Set(["system", "user", "assistant", "function", "tool", "unknown"]);

const TYPES: Record<Span["kind"], string> = { generation: "llm", tool: "tool", retriever: "rag", chain: "chain", node: "component" };

type Typed = { type: "text"; value: string } | { type: "json"; value: unknown } | { type: "chat_messages"; value: unknown[] };

/** A value as LangWatch's typed input/output, as the SDK's autoconvertTypedValues makes it. */
const typed = (value: unknown): Typed | undefined =>
  value === undefined || value === null ? undefined : typeof value === "string" ? { type: "text", value } : { type: "json", value };

/** LangChain's tool calls as OpenAI's, which LangWatch's chat message schema takes. */
function chatMessages(list: unknown): Typed | undefined {
  if (!Array.isArray(list)) return typed(list);
  const value = (list as ChatMessageOut[]).map(({ tool_calls, ...m }) => ({
    ...m,
    role: ROLES.has(m.role) ? m.role : "unknown",
    ...(tool_calls?.length
      ? {
          tool_calls: (tool_calls as Array<{ id?: string; name?: string; args?: unknown }>).map((c) => ({
            id: c.id ?? "",
            type: "function",
            function: { name: c.name ?? "", arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}) },
          })),
        }
      : {}),
  }));
  return { type: "chat_messages", value };
}

const failure = (message: string | undefined) => (message ? { has_error: true, message, stacktrace: [] } : undefined);

/** LangWatch's reserved span params are snake_case. */
const PARAMS: Record<string, string> = { maxTokens: "max_tokens", topP: "top_p" };
const params = (p: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(p ?? {}).map(([k, v]) => [PARAMS[k] ?? k, v]));

function span(trace: Trace, s: Span, rootId: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    span_id: s.id,
    parent_id: s.parentId ?? rootId,
    trace_id: trace.id,
    type: TYPES[s.kind],
    name: s.name,
    input: s.kind === "generation" ? chatMessages(s.input) : typed(s.input),
    output: s.kind === "generation" ? chatMessages(s.output) : typed(s.output),
    error: failure(s.error),
    timestamps: { started_at: s.start, finished_at: s.end ?? s.start },
    ...(s.attributes ? { params: { ...s.attributes } } : {}),
  };
  if (s.kind === "generation") {
    out.vendor = s.provider;
    out.model = [s.provider, s.model].filter(Boolean).join("/") || undefined;
    out.params = params(s.parameters);
    if (s.usage) out.metrics = { prompt_tokens: s.usage.input, completion_tokens: s.usage.output };
  }
  if (s.kind === "retriever" && Array.isArray(s.output)) {
    out.contexts = (s.output as Array<{ pageContent?: string; metadata?: Record<string, unknown> }>).map((d) => ({
      ...(typeof d.metadata?.source === "string" ? { document_id: d.metadata.source } : {}),
      content: d.pageContent ?? "",
    }));
  }
  return out;
}

/** The collector bodies of a trace (usually one). */
export function langwatchBodies(trace: Trace): string[] {
  const rootId = `span_${trace.id}`;
  const root = {
    span_id: rootId,
    trace_id: trace.id,
    type: "chain",
    name: trace.name,
    input: typed(trace.input),
    output: typed(trace.output),
    error: failure(trace.error),
    timestamps: { started_at: trace.start, finished_at: trace.end ?? Date.now() },
  };
  const kept = [root, ...trace.spans.slice(0, MAX_SPANS - 1).map((s) => span(trace, s, rootId))];
  const dropped = Number(trace.metadata.droppedSpans ?? 0) + Math.max(0, trace.spans.length - (MAX_SPANS - 1));
  const metadata = {
    ...trace.metadata,
    ...(dropped ? { droppedSpans: String(dropped) } : {}),
    thread_id: trace.sessionId,
    labels: ["edgeflow"],
  };
  const head = `{"trace_id":${JSON.stringify(trace.id)},"metadata":${JSON.stringify(metadata)},"spans":[`;
  return jsonGroups(
    kept.map((s) => JSON.stringify(s)),
    MAX_BODY_BYTES - utf8Length(head),
  ).map((part) => `${head}${part.join(",")}]}`);
}
