// Building one node of a chatflow: its inputs resolved, then its registry entry's build (or, for
// the vector store an upsert targets, its upsert). Shared by prediction (./run.ts) and upsert.
import { ApiError, fail } from "../../errors";
import { RunAborted } from "../../lib/run-control";
import type { RunContext } from "../core/ports";
import { type ResolveState, resolveInputs } from "../core/resolve";
import type { FlowNode } from "../core/types";
import { registry } from "./registry";
import type { BuildArgs, NodeDefinition } from "./types";
import { errorMessage } from "../../lib/error-message";

const outputOf = (node: FlowNode): string | undefined => {
  const output = node.data.outputs?.output;
  return typeof output === "string" && output ? output : undefined;
};

/** A built chain or agent answering a question (what chainTool calls): found by its `kind`. */
async function answer(instance: unknown, ctx: RunContext): Promise<string> {
  const kind = instance && typeof instance === "object" ? (instance as { kind?: unknown }).kind : undefined;
  const def = typeof kind === "string" ? registry.get(kind) : undefined;
  if (!def?.run) throw fail("INVALID_FLOW", `a ${String(kind)} cannot answer as a tool`);
  return (await def.run(instance, { ctx })).text ?? "";
}

/** The node's build arguments, its inputs resolved against what is built so far. */
export async function buildArgs(node: FlowNode, state: ResolveState, ctx: RunContext, ending = false): Promise<BuildArgs> {
  const inputs = await resolveInputs(node, state, ctx);
  return { node, inputs, ctx, output: outputOf(node), ending, answer };
}

export function definitionOf(node: FlowNode): NodeDefinition {
  const def = registry.get(node.data.name);
  if (!def) throw fail("UNKNOWN_NODE", `This chatflow uses nodes that are not supported yet: ${node.data.name}`);
  return def;
}

/** Runs `step` for a node; any failure is reported against the node, an abort stays one. */
export async function asNodeStep<T>(node: FlowNode, ctx: RunContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw ctx.signal?.aborted ? new RunAborted() : asApiError(err, node);
  }
}

/** Keeps ApiErrors and aborts; anything else is a fault of the node, reported with its label. */
function asApiError(err: unknown, node: FlowNode): Error {
  if (err instanceof ApiError || err instanceof RunAborted) return err;
  const message = errorMessage(err);
  return fail("INTERNAL", `${node.data.label} (${node.data.name}) failed: ${message}`);
}
