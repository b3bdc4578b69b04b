// A V1 node's components (chat model, tools, retriever tool over a vector store, …) built through
// the chatflow registry, then the node's own inputs resolved against them — as Flowise builds the
// non-agent nodes of a V1 graph before the agents run. Built per node run: nothing is cached
// across requests (credentials and overrides are the request's).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../errors";
import { moderate, moderationsOf } from "../chatflow/instances";
import { asNodeStep, buildArgs } from "../chatflow/build";
import { registry } from "../chatflow/registry";
import { isChatModel } from "../chatflow/instances";
import type { RunContext } from "../core/ports";
import { resolveInputs } from "../core/resolve";
import type { FlowNode, SourceDocument } from "../core/types";
import type { NodeRuntime } from "../agentflow/node-types";
import type { V1Node } from "./types";

export interface V1Resolved {
  /** The V1 node's inputs, component references replaced by the built instances. */
  inputs: Record<string, unknown>;
  ctx: RunContext;
  /** Documents the node's tools found (retriever tools that return their sources). */
  found: SourceDocument[];
  /** The built components by node id. */
  built: Map<string, unknown>;
}

export const ownerOf = (node: { id: string; data: { label?: string } }): string => `${node.data.label} (${node.id})`;

/** Components in build order (a component after those it uses). */
function buildOrder(node: V1Node): FlowNode[] {
  const { nodes, edges } = node.data.v1.components;
  const done = new Set<string>();
  const order: FlowNode[] = [];
  const visit = (n: FlowNode, path: Set<string>) => {
    if (done.has(n.id) || path.has(n.id)) return;
    path.add(n.id);
    for (const e of edges)
      if (e.target === n.id) {
        const source = nodes.find((x) => x.id === e.source);
        if (source) visit(source, path);
      }
    done.add(n.id);
    order.push(n);
  };
  for (const n of nodes) visit(n, new Set());
  return order;
}

export async function resolveV1(node: V1Node, rt: NodeRuntime, input: string | undefined): Promise<V1Resolved> {
  const found: SourceDocument[] = [];
  const ctx: RunContext = { ...rt.ctx, question: input ?? rt.ctx.question, addSourceDocuments: (docs) => void found.push(...docs) };
  const { original, components, skipped } = node.data.v1;
  const graph = { nodes: [...components.nodes, original], edges: components.edges };
  const built = new Map<string, unknown>();
  const state = { graph, built, skipped: new Set(skipped) };
  for (const component of buildOrder(node)) {
    const def = registry.get(component.data.name);
    if (!def)
      throw fail(
        "UNKNOWN_NODE",
        `${ownerOf(node)} uses ${component.data.label} (${component.data.name}), which is not available in edgeflow`,
      );
    const args = await buildArgs(component, state, ctx);
    built.set(component.id, await asNodeStep(component, ctx, () => def.build(args)));
  }
  const inputs = await resolveInputs(original, state, ctx);
  if (node.data.v1.fallbackModel && !isChatModel(inputs.model)) inputs.model = built.get(node.data.v1.fallbackModel);
  if (node.data.v1.startModel && !isChatModel(inputs.model)) inputs.model = built.get(node.data.v1.startModel);
  return { inputs, ctx, found, built };
}

/** The node's chat model (its own, else the supervisor's / seqStart's); 400 naming the node when none. */
export function modelOf(node: V1Node, inputs: Record<string, unknown>): BaseChatModel {
  if (!isChatModel(inputs.model))
    throw fail("INVALID_FLOW", `${ownerOf(node)} needs a chat model: connect one to it or to the Start / Supervisor node`);
  return inputs.model;
}

/** The tools an input holds (a list of tools, toolkits flattened). */
export function toolsOf(value: unknown): StructuredToolInterface[] {
  const list = (Array.isArray(value) ? value.flat(2) : [value]).filter(Boolean);
  return list.filter(
    (t): t is StructuredToolInterface =>
      !!t && typeof (t as StructuredToolInterface).invoke === "function" && typeof (t as StructuredToolInterface).name === "string",
  );
}

/**
 * The question after the node's input moderations (seqStart, supervisor): rewritten, or refused —
 * a 400 with the moderation's message (Flowise fails the run with it too).
 */
export async function moderated(node: V1Node, inputs: Record<string, unknown>, question: string | undefined): Promise<string | undefined> {
  const moderations = moderationsOf(inputs.inputModeration);
  if (!moderations.length || question === undefined) return question;
  const verdict = await moderate(question, moderations);
  if ("refusal" in verdict) throw fail("INVALID_INPUT", `${ownerOf(node)}: input moderation: ${verdict.refusal}`);
  return verdict.question;
}
