// What the LlamaIndex engines share besides retrieval: their answer shape and when they stream.
import type { FlowGraph, FlowNode, RunResult } from "../../../core/types";

export type Answer = Omit<RunResult, "memoryType">;

export const ENGINE_CATEGORY = "Engine";

/**
 * Engines stream unless a chat model of the flow says `streaming: false` (LlamaIndex's models have
 * no streaming input; every engine Flowise lists streams its answer).
 */
export function engineCanStream(_node: FlowNode, graph: FlowGraph): boolean {
  return !graph.nodes.some((n) => {
    const streaming = n.data.category === "Chat Models" ? n.data.inputs?.streaming : undefined;
    return streaming === false || streaming === "false";
  });
}

/** An engine's instance kind is its node name, so a built engine answers as a tool through `answer`. */
export const isKind =
  <T>(kind: string) =>
  (v: unknown): v is T =>
    !!v && typeof v === "object" && (v as { kind?: unknown }).kind === kind;
