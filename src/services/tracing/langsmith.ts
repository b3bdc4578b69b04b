// A trace as LangSmith's runs API takes it (POST {endpoint}/runs/batch, header x-api-key): one run
// for the flow (a chain, its session the chatId in metadata.session_id, as LangSmith's threads
// read it) and one child run per model call (llm), tool call (tool), retriever hit (retriever),
// chain and agentflow node (chain), each with trace_id and dotted_order so LangSmith nests them.
// LangSmith takes at most 20 MiB a request (the size_limit_bytes its /info advertises, which its SDKs
// split batches by): a larger trace goes in several batches, parents first, as the SDKs send them.
import { jsonGroups } from "./batches";
import type { Span, Trace } from "./trace-types";

const MAX_BATCH_BYTES = 16_000_000;

const RUN_TYPES: Record<Span["kind"], string> = { generation: "llm", tool: "tool", retriever: "retriever", chain: "chain", node: "chain" };

/** LangSmith's dotted-order stamp: UTC, microseconds, then the run id. */
function stamp(ms: number, id: string): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  const date = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}${pad(d.getUTCMilliseconds() * 1000, 6)}`;
  return `${date}T${time}Z${id}`;
}

const iso = (ms: number | undefined) => new Date(ms ?? Date.now()).toISOString();
const asInputs = (value: unknown, key: string) =>
  value && typeof value === "object" && !Array.isArray(value) ? value : { [key]: value ?? null };

/** The runs/batch bodies of a trace (usually one). */
export function langsmithBatches(trace: Trace, options: { projectName?: string }): string[] {
  const session = options.projectName ?? "default";
  const metadata = { ...trace.metadata, session_id: trace.sessionId };
  const dotted = new Map<string, string>([[trace.id, stamp(trace.start, trace.id)]]);
  const root = {
    id: trace.id,
    trace_id: trace.id,
    dotted_order: dotted.get(trace.id),
    name: trace.name,
    run_type: "chain",
    start_time: iso(trace.start),
    end_time: iso(trace.end),
    inputs: { question: trace.input },
    outputs: trace.output === undefined ? undefined : { text: trace.output },
    error: trace.error ?? null,
    session_name: session,
    extra: { metadata },
    tags: ["edgeflow"],
  };
  const runs = trace.spans.map((span) => {
    const parent = span.parentId ?? trace.id;
    const order = `${dotted.get(parent) ?? dotted.get(trace.id)}.${stamp(span.start, span.id)}`;
    dotted.set(span.id, order);
    const run: Record<string, unknown> = {
      id: span.id,
      trace_id: trace.id,
      dotted_order: order,
      parent_run_id: parent,
      name: span.name,
      run_type: RUN_TYPES[span.kind],
      start_time: iso(span.start),
      end_time: iso(span.end),
      error: span.error ?? null,
      session_name: session,
      inputs:
        span.kind === "generation" ? { messages: span.input ?? [] } : asInputs(span.input, span.kind === "retriever" ? "query" : "input"),
      outputs: span.output === undefined ? undefined : asInputs(span.output, span.kind === "retriever" ? "documents" : "output"),
      extra: {
        metadata: {
          ...metadata,
          ...(span.attributes ?? {}),
          ...(span.model ? { ls_model_name: span.model } : {}),
          ...(span.provider ? { ls_provider: span.provider } : {}),
        },
      },
    };
    if (span.kind === "generation") {
      const usage = span.usage
        ? { input_tokens: span.usage.input, output_tokens: span.usage.output, total_tokens: span.usage.total }
        : undefined;
      run.outputs = {
        generations: span.output ?? [],
        ...(usage
          ? {
              usage_metadata: usage,
              llm_output: {
                token_usage: {
                  prompt_tokens: usage.input_tokens,
                  completion_tokens: usage.output_tokens,
                  total_tokens: usage.total_tokens,
                },
              },
            }
          : {}),
      };
      (run.extra as Record<string, unknown>).invocation_params = { model: span.model, ...(span.parameters ?? {}) };
    }
    return run;
  });
  return jsonGroups(
    [root, ...runs].map((r) => JSON.stringify(r)),
    MAX_BATCH_BYTES,
  ).map((part) => `{"post":[${part.join(",")}],"patch":[]}`);
}
