// Runs a planned chatflow: build each node from its resolved inputs, then let the ending node
// answer the question — streaming tokens to the sink as the model makes them when the plan says
// the flow streams.
import { fail } from "../../errors";
import { checkAborted } from "../core/errors";
import type { RunContext } from "../core/ports";
import type { RunResult, SourceDocument, StreamSink } from "../core/types";
import { asNodeStep, buildArgs, definitionOf } from "./build";
import { memoryNode } from "./graph";
import { isMemory } from "./instances";
import type { ChatflowPlan } from "./plan";

/**
 * Runs the flow for ctx.question. With a sink, and when plan.streamable, tokens go to sink.token
 * as the model makes them; otherwise the sink gets no tokens and the caller sends result.text
 * itself. Throws ApiError (400 a node that cannot be built, 502/504 a failing or silent model) or
 * RunAborted (name "AbortError") when ctx.signal aborts.
 */
export async function runChatflow(plan: ChatflowPlan, ctx: RunContext, sink?: StreamSink): Promise<RunResult> {
  const { graph, run } = plan;
  // Documents that nodes find along the way (a retriever tool returning its sources).
  const found: SourceDocument[] = [];
  ctx = { ...ctx, addSourceDocuments: (docs) => void found.push(...docs) };

  const built = new Map<string, unknown>();
  const state = { graph, built, skipped: run.skipped };
  for (const node of run.order) {
    checkAborted(ctx);
    const def = definitionOf(node);
    const args = await buildArgs(node, state, ctx, node.id === run.ending.id);
    built.set(node.id, await asNodeStep(node, ctx, () => def.build(args)));
  }

  checkAborted(ctx);
  const def = definitionOf(run.ending);
  if (!def.run) throw fail("INVALID_FLOW", `${run.ending.data.label} (${run.ending.data.name}) cannot answer a question`);
  const streamTo = sink && plan.streamable ? sink : undefined;
  const answer = await asNodeStep(run.ending, ctx, () => def.run!(built.get(run.ending.id), { ctx, sink: streamTo }));
  const sourceDocuments = answer.sourceDocuments ?? (found.length ? distinct(found) : undefined);
  const text = answer.text ?? "";
  const memory = memoryNode(graph);
  const memoryInstance = memory ? built.get(memory.id) : undefined;
  // A memory kept outside (Redis) stores the exchange now; the built-in ones read D1, which the prediction layer writes.
  if (memory && isMemory(memoryInstance) && memoryInstance.save)
    await asNodeStep(memory, ctx, () => memoryInstance.save!(ctx.question, text));
  return { ...answer, ...(sourceDocuments ? { sourceDocuments } : {}), text, memoryType: memory?.data.label ?? null };
}

/** Each document once (a tool called twice may find the same passage), in the order found. */
function distinct(docs: SourceDocument[]): SourceDocument[] {
  const seen = new Set<string>();
  return docs.filter((d) => {
    const key = `${d.pageContent}\u0000${JSON.stringify(d.metadata ?? {})}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
