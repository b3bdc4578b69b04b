// A trace as Lunary's ingestion API takes it (POST {endpoint}/v1/runs/ingest, Authorization: Bearer
// <project id>), the events Flowise's LunaryHandler (lunary SDK, with Flowise's thread tracking)
// posts: the user's message in the chat's thread (a `thread`/`chat` event, the thread's id from the
// chatId), a `chain` run for the flow under it, `llm` / `tool` / `retriever` / `chain` runs for the
// calls beneath (each a start event and an end or error event, parentRunId their parent), then the
// assistant's answer in the thread. Timestamps strictly increase, as the SDK makes them.
import type { Span, Trace } from "./trace-types";

const TYPES: Record<Span["kind"], string> = { generation: "llm", tool: "tool", retriever: "retriever", chain: "chain", node: "chain" };
const MAX_BODY_CHARS = 3_000_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Lunary's run ids are UUIDs: a chatId that is not one becomes a UUID made from its SHA-256 (the same one every run). */
async function uuidOf(id: string): Promise<string> {
  if (UUID.test(id)) return id.toLowerCase();
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`edgeflow:${id}`)));
  hash[6] = (hash[6] & 0x0f) | 0x80; // version 8 (custom)
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = [...hash.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Messages as Lunary shows them: LangChain's tool calls as OpenAI's (what the SDK's additional_kwargs carry). */
function messages(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const list = value.map((m: { role: string; content: string; tool_calls?: Array<{ id?: string; name?: string; args?: unknown }> }) => ({
    role: m.role,
    content: m.content,
    ...(m.tool_calls?.length
      ? {
          tool_calls: m.tool_calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}) },
          })),
        }
      : {}),
  }));
  return list.length === 1 ? list[0] : list;
}

type Event = Record<string, unknown> & { timestamp: number };

function startOf(s: Span, parentRunId: string): Event {
  const event: Event = {
    type: TYPES[s.kind],
    event: "start",
    runId: s.id,
    parentRunId,
    name: s.kind === "generation" ? (s.model ?? s.name) : s.name,
    input: s.kind === "generation" ? messages(s.input) : (s.input ?? null),
    timestamp: s.start,
  };
  if (s.attributes) event.metadata = { ...s.attributes };
  if (s.kind === "generation") event.params = { ...(s.parameters ?? {}) };
  return event;
}

function endOf(s: Span): Event {
  if (s.error) return { type: TYPES[s.kind], event: "error", runId: s.id, error: { message: s.error }, timestamp: s.end ?? s.start };
  let output: unknown = s.output ?? null;
  if (s.kind === "generation") output = messages(s.output);
  if (s.kind === "retriever" && Array.isArray(s.output))
    output = (s.output as Array<{ pageContent?: string; metadata?: Record<string, unknown> }>).map((d) => ({
      summary: (d.pageContent ?? "").length > 400 ? `${d.pageContent?.slice(0, 400)}...` : d.pageContent,
      ...(d.metadata ?? {}),
    }));
  const event: Event = { type: TYPES[s.kind], event: "end", runId: s.id, output, timestamp: s.end ?? s.start };
  if (s.kind === "generation" && s.usage) event.tokensUsage = { prompt: s.usage.input, completion: s.usage.output };
  return event;
}

/** The ingestion bodies of a trace (usually one), to be sent in order. */
export async function lunaryBodies(trace: Trace): Promise<string[]> {
  const threadId = await uuidOf(trace.sessionId);
  const questionId = crypto.randomUUID();
  const answerId = UUID.test(trace.metadata.chatMessageId ?? "") ? trace.metadata.chatMessageId : crypto.randomUUID();
  const end = trace.end ?? Date.now();
  // Starts in the order runs opened (parents first), ends in reverse (children first); then by time.
  const starts: Event[] = [
    {
      type: "chain",
      event: "start",
      runId: trace.id,
      parentRunId: questionId,
      name: trace.name,
      input: trace.input,
      timestamp: trace.start,
    },
    ...trace.spans.map((s) => startOf(s, s.parentId ?? trace.id)),
  ];
  const ends: Event[] = [
    ...trace.spans.map(endOf).reverse(),
    trace.error
      ? { type: "chain", event: "error", runId: trace.id, error: { message: trace.error }, timestamp: end }
      : { type: "chain", event: "end", runId: trace.id, output: trace.output ?? null, timestamp: end },
  ];
  const runs = [...starts.map((e, i) => ({ e, key: i })), ...ends.map((e, i) => ({ e, key: starts.length + i }))]
    .sort((a, b) => a.e.timestamp - b.e.timestamp || a.key - b.key)
    .map(({ e }) =>
      e.event === "start" ? { ...e, metadata: { ...trace.metadata, ...((e.metadata as object) ?? {}) }, tags: ["edgeflow"] } : e,
    );
  const chat = (runId: string, message: Record<string, unknown>, timestamp: number): Event => ({
    type: "thread",
    event: "chat",
    runId,
    parentRunId: threadId,
    message,
    timestamp,
  });
  const events: Event[] = [
    chat(questionId, { role: "user", content: trace.input }, trace.start),
    ...runs,
    ...(trace.output !== undefined ? [chat(answerId, { id: answerId, role: "assistant", content: trace.output }, end)] : []),
  ];
  let last = 0;
  for (const e of events) {
    e.timestamp = Math.max(e.timestamp, last + 1);
    e.runtime = "edgeflow";
    last = e.timestamp;
  }
  const bodies: string[] = [];
  let part: string[] = [];
  let size = 0;
  for (const e of events) {
    const json = JSON.stringify(e);
    if (size + json.length > MAX_BODY_CHARS && part.length) {
      bodies.push(`{"events":[${part.join(",")}]}`);
      part = [];
      size = 0;
    }
    part.push(json);
    size += json.length + 1;
  }
  if (part.length) bodies.push(`{"events":[${part.join(",")}]}`);
  return bodies;
}
