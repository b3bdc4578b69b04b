// Runs a planned chatflow: build each node from its resolved inputs, then let the ending node
// answer the question — streaming tokens to the sink as the model makes them when the plan says
// the flow streams. A branching node (ifElseFunction) leaves out the nodes behind the output it did
// not take (./branches.ts); Set/Get Variable share the run's flow state.
import { fail } from "../../errors";
import { checkAborted } from "../core/errors";
import type { RunContext } from "../core/ports";
import type { RunResult, SourceDocument, StreamSink } from "../core/types";
import { asNodeStep, buildArgs, definitionOf } from "./build";
import { memoryNode } from "./graph";
import { isMemory } from "./instances";
import type { ChatflowPlan } from "./plan";
import { behindOutput, endingLeftIn, stillNeeded } from "./branches";
import type { FlowState } from "./types";

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
  const state = { graph, built, skipped: new Set(run.skipped) };
  const flowState: FlowState = { variables: {}, shown: {} };
  const endings = new Set(run.endings.map((n) => n.id));
  let needed: Set<string> | undefined; // every node of the order, until a branch leaves some out
  for (const node of run.order) {
    if (needed && !needed.has(node.id)) continue;
    checkAborted(ctx);
    const def = definitionOf(node);
    const args = { ...(await buildArgs(node, state, ctx, endings.has(node.id))), flowState };
    const value = await asNodeStep(node, ctx, () => def.build(args));
    if (!def.branch) {
      built.set(node.id, value);
      continue;
    }
    const taken = def.branch(value);
    built.set(node.id, taken.instance);
    for (const id of behindOutput(graph, run, node, taken.untaken)) state.skipped.add(id);
    needed = stillNeeded(run, state.skipped);
  }

  checkAborted(ctx);
  const ending = needed ? endingLeftIn(run, state.skipped) : run.ending;
  const def = definitionOf(ending);
  if (!def.run) throw fail("INVALID_FLOW", `${ending.data.label} (${ending.data.name}) cannot answer a question`);
  const streamTo = sink && plan.streamable ? sink : undefined;
  const answer = await asNodeStep(ending, ctx, () => def.run!(built.get(ending.id), { ctx, sink: streamTo }));
  const sourceDocuments = answer.sourceDocuments ?? (found.length ? distinct(found) : undefined);
  const text = answer.text ?? "";
  const memory = memoryNode(graph);
  const memoryInstance = memory ? built.get(memory.id) : undefined;
  // A memory kept outside (Redis) stores the exchange now; the built-in ones read D1, which the prediction layer writes.
  if (memory && isMemory(memoryInstance) && memoryInstance.save)
    await asNodeStep(memory, ctx, () => memoryInstance.save!(ctx.question, text));
  const shown = Object.keys(flowState.shown).length ? { flowVariables: flowState.shown } : {};
  return { ...answer, ...(sourceDocuments ? { sourceDocuments } : {}), ...shown, text, memoryType: memory?.data.label ?? null };
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
