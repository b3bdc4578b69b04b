// Upserting a chatflow's vector store (POST /vector/upsert): the branch that ends at one vector
// store node — its loaders, their splitters, its embeddings, its record manager — is built (the
// loaders run, unlike on prediction), then the vector store indexes what its loaders gave.
import { fail } from "../../errors";
import { checkAborted } from "../core/errors";
import { isStickyNote, parseFlowData } from "../core/flow-data";
import type { RunContext } from "../core/ports";
import { isConnected } from "../core/refs";
import type { FlowGraph, FlowNode, UpsertCounts } from "../core/types";
import { asNodeStep, buildArgs, definitionOf } from "./build";
import { dependencyOrder, unsupportedNodes, upstreamMap } from "./graph";
import { registry } from "./registry";

export interface UpsertPlan {
  /** The vector store node upserted into. */
  target: FlowNode;
  /** Its branch: every node it depends on, dependencies first, the target last. */
  order: FlowNode[];
}

const describe = (nodes: FlowNode[]) => nodes.map((n) => `${n.id} (${n.data.label})`).join(", ");

/** Vector store nodes this engine can upsert into (whatever feeds them). */
const upsertable = (graph: FlowGraph) => graph.nodes.filter((n) => !isStickyNote(n) && !!registry.get(n.data.name)?.upsert);

/**
 * The vector store to upsert into — the one named by stopNodeId, else the chatflow's only vector
 * store fed by loaders — and its branch in build order. 400 saying what is wrong otherwise.
 */
function planUpsert(graph: FlowGraph, stopNodeId?: string): UpsertPlan {
  const stores = upsertable(graph);
  const fed = stores.filter((n) => isConnected(n, "document"));
  let target: FlowNode;
  if (stopNodeId) {
    const node = graph.nodes.find((n) => n.id === stopNodeId);
    const known = stores.length ? `; its vector stores are: ${describe(stores)}` : "";
    if (!node) throw fail("INVALID_INPUT", `stopNodeId ${stopNodeId} is not a node of this chatflow${known}`);
    if (!stores.includes(node))
      throw fail(
        "INVALID_INPUT",
        `stopNodeId ${stopNodeId} (${node.data.name}) is not a vector store this chatflow can upsert into${known}`,
      );
    if (!fed.includes(node))
      throw fail(
        "INVALID_FLOW",
        `${node.data.label} (${node.id}) has no document loader connected to its document input: nothing to upsert`,
      );
    target = node;
  } else if (fed.length === 1) {
    target = fed[0];
  } else if (fed.length > 1) {
    throw fail(
      "INVALID_INPUT",
      `This chatflow has ${fed.length} vector stores fed by document loaders: ${describe(fed)}. Give stopNodeId to choose one`,
    );
  } else if (stores.length) {
    throw fail(
      "INVALID_FLOW",
      `No vector store of this chatflow has a document loader connected to its document input (${describe(stores)}): nothing to upsert`,
    );
  } else {
    throw fail("INVALID_FLOW", "This chatflow has no vector store to upsert into: upsert needs a document loader → vector store branch");
  }

  const nodes = graph.nodes.filter((n) => !isStickyNote(n));
  const live = new Map(nodes.map((n) => [n.id, n]));
  const up = upstreamMap(graph, live);
  const needed = new Set([target.id]);
  const stack = [target.id];
  while (stack.length) {
    for (const s of up.get(stack.pop()!) ?? []) {
      if (needed.has(s)) continue;
      needed.add(s);
      stack.push(s);
    }
  }

  const order = dependencyOrder(nodes, up, needed);
  return { target, order };
}

/** Names of the branch's nodes that no registry entry builds (400 before anything runs). */
export function assertUpsertSupported(plan: UpsertPlan): void {
  const unsupported = unsupportedNodes({ nodes: plan.order, edges: [] });
  if (unsupported.length) throw fail("UNKNOWN_NODE", `This chatflow uses nodes that are not supported yet: ${unsupported.join(", ")}`);
}

/** Builds the branch (loaders read and split their files) and upserts into its vector store. */
export async function runUpsert(graph: FlowGraph, plan: UpsertPlan, ctx: RunContext): Promise<UpsertCounts> {
  assertUpsertSupported(plan);
  const built = new Map<string, unknown>();
  const state = { graph, built, skipped: new Set<string>() };
  for (const node of plan.order) {
    checkAborted(ctx);
    const def = definitionOf(node);
    const args = await buildArgs(node, state, ctx);
    if (node.id === plan.target.id) return asNodeStep(node, ctx, () => def.upsert!(args));
    built.set(node.id, await asNodeStep(node, ctx, () => def.build(args)));
  }
  throw new Error("the upsert plan does not end with its vector store");
}

/** parseFlowData + planUpsert, for callers holding flowData. */
export function planFlowUpsert(flowData: string, stopNodeId?: string): { graph: FlowGraph; plan: UpsertPlan } {
  const graph = parseFlowData(flowData);
  return { graph, plan: planUpsert(graph, stopNodeId) };
}
