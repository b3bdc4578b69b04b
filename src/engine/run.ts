// Runs a classic chatflow: plan (ending node, build order), build each node from its resolved
// inputs, then let the ending node answer the question — streaming tokens to the sink as the model
// makes them when the flow can stream.
import { ApiError, badRequest } from "../errors";
import { RunAborted } from "../providers/chat/http";
import { isStickyNote, memoryNode, parseFlowData, planRun, unsupportedNodes } from "./graph";
import { registry } from "./registry";
import { resolveInputs } from "./resolve";
import type { FlowGraph, FlowNode, RunContext, RunResult, SourceDocument, StreamSink } from "./types";

export { RunAborted };

const outputOf = (node: FlowNode): string | undefined => {
  const output = node.data.outputs?.output;
  return typeof output === "string" && output ? output : undefined;
};

function endingCanStream(ending: FlowNode, graph: FlowGraph): boolean {
  const def = registry.get(ending.data.name);
  return !!def?.run && !!def.canStream?.(ending, graph);
}

/**
 * Whether the flow's ending node can stream (FLOWISE-NOTES point 7): a chain whose chat model's
 * `streaming` input is not false and that has no output parser. False for a flow that cannot run.
 */
export function canStreamFlow(flowData: string): boolean {
  try {
    return canStreamGraph(parseFlowData(flowData));
  } catch {
    return false;
  }
}

/** canStreamFlow for a graph already parsed. */
export function canStreamGraph(graph: FlowGraph): boolean {
  try {
    return endingCanStream(planRun(graph).ending, graph);
  } catch {
    return false;
  }
}

function checkAborted(ctx: RunContext): void {
  if (ctx.signal?.aborted) throw new RunAborted();
}

/**
 * Runs the flow for ctx.question. With a sink, and when the flow can stream (canStreamFlow), tokens
 * go to sink.token as the model makes them; when it cannot, the sink gets no tokens and the caller
 * sends result.text itself. Throws ApiError: 400 for a flow that cannot run (malformed flowData,
 * cycle, no ending node, unsupported nodes — named), 502/504 for a failing or silent model;
 * RunAborted (name "AbortError") when ctx.signal aborts.
 */
export async function runFlow(flowData: string, ctx: RunContext, sink?: StreamSink): Promise<RunResult> {
  return runGraph(parseFlowData(flowData), ctx, sink);
}

/** runFlow for a graph already parsed (the prediction service parses it once, up front). */
export async function runGraph(graph: FlowGraph, ctx: RunContext, sink?: StreamSink): Promise<RunResult> {
  const plan = planRun(graph);
  const unsupported = unsupportedNodes({ nodes: plan.order, edges: [] });
  if (unsupported.length) {
    throw badRequest(`This chatflow uses nodes that are not supported yet: ${unsupported.join(", ")}`);
  }

  // Documents that nodes find along the way (a retriever tool returning its sources).
  const found: SourceDocument[] = [];
  ctx = { ...ctx, addSourceDocuments: (docs) => void found.push(...docs) };

  const built = new Map<string, unknown>();
  const state = { graph, built, skipped: plan.skipped };
  for (const node of plan.order) {
    if (isStickyNote(node)) continue;
    checkAborted(ctx);
    const def = registry.get(node.data.name)!;
    const ending = node.id === plan.ending.id;
    const inputs = await resolveInputs(node, state, ctx);
    try {
      built.set(node.id, await def.build({ node, inputs, ctx, output: outputOf(node), ending }));
    } catch (err) {
      throw ctx.signal?.aborted ? new RunAborted() : asApiError(err, node);
    }
  }

  checkAborted(ctx);
  const def = registry.get(plan.ending.data.name)!;
  if (!def.run) throw badRequest(`${plan.ending.data.label} (${plan.ending.data.name}) cannot answer a question`);
  const streamTo = sink && endingCanStream(plan.ending, graph) ? sink : undefined;
  let answer: Omit<RunResult, "memoryType">;
  try {
    answer = await def.run(built.get(plan.ending.id), { ctx, sink: streamTo });
  } catch (err) {
    throw ctx.signal?.aborted ? new RunAborted() : asApiError(err, plan.ending);
  }
  const sourceDocuments = answer.sourceDocuments ?? (found.length ? distinct(found) : undefined);
  return { ...answer, ...(sourceDocuments ? { sourceDocuments } : {}), text: answer.text ?? "", memoryType: memoryNode(graph)?.data.label ?? null };
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

/** Keeps ApiErrors and aborts; anything else is a fault of the node, reported with its label. */
export function asApiError(err: unknown, node: FlowNode): Error {
  if (err instanceof ApiError || err instanceof RunAborted) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(500, `${node.data.label} (${node.data.name}) failed: ${message}`);
}
