// A trace as Langfuse's public ingestion API takes it (POST {endpoint}/api/public/ingestion, Basic
// auth publicKey:secretKey): one trace-create, then a generation-create per model call and a
// span-create per tool call, retriever hit, chain and agentflow node, each under its parent.
// Batches stay under Langfuse's 3.5 MB limit.
import { jsonGroups } from "./batches";
import type { Span, Trace } from "./trace-types";

const iso = (ms: number | undefined) => new Date(ms ?? Date.now()).toISOString();
/**
 * Langfuse limits a batch to 3.5 MB (its API reference; past its 4.5 MB body limit the answer is a 413, the
 * whole batch lost). Counted in UTF-8 bytes: 3,000,000 characters of CJK text are 9 MB.
 */
const MAX_BATCH_BYTES = 3_000_000;

interface Event {
  id: string;
  timestamp: string;
  type: "trace-create" | "span-create" | "generation-create";
  body: Record<string, unknown>;
}

function observation(trace: Trace, span: Span): Event {
  const body: Record<string, unknown> = {
    id: span.id,
    traceId: trace.id,
    parentObservationId: span.parentId ?? null,
    name: span.name,
    startTime: iso(span.start),
    endTime: iso(span.end),
    input: span.input ?? null,
    output: span.output ?? null,
    metadata: { kind: span.kind, ...(span.attributes ?? {}) },
    level: span.error ? "ERROR" : "DEFAULT",
    ...(span.error ? { statusMessage: span.error } : {}),
  };
  if (span.kind === "generation") {
    body.model = span.model ?? null;
    body.modelParameters = span.parameters ?? {};
    if (span.usage) body.usageDetails = { input: span.usage.input, output: span.usage.output, total: span.usage.total };
  }
  return {
    id: crypto.randomUUID(),
    timestamp: iso(span.start),
    type: span.kind === "generation" ? "generation-create" : "span-create",
    body,
  };
}

/** The ingestion bodies of a trace (usually one). */
export function langfuseBatches(trace: Trace, options: { release?: string }): string[] {
  const events: Event[] = [
    {
      id: crypto.randomUUID(),
      timestamp: iso(trace.start),
      type: "trace-create",
      body: {
        id: trace.id,
        timestamp: iso(trace.start),
        name: trace.name,
        sessionId: trace.sessionId,
        input: trace.input,
        output: trace.output ?? null,
        metadata: { ...trace.metadata, ...(trace.error ? { error: trace.error } : {}) },
        tags: ["edgeflow"],
        ...(options.release ? { release: options.release } : {}),
      },
    },
    ...trace.spans.map((s) => observation(trace, s)),
  ];
  return jsonGroups(
    events.map((e) => JSON.stringify(e)),
    MAX_BATCH_BYTES,
  ).map((part) => `{"batch":[${part.join(",")}]}`);
}
