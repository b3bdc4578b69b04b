// A chatflow node: one registry entry per Flowise node `name` (see ./registry.ts).
import type { RunContext } from "../core/ports";
import type { FlowGraph, FlowNode, RunResult, StreamSink, UpsertCounts } from "../core/types";

export interface BuildArgs {
  node: FlowNode;
  /** The node's inputs with every reference resolved ({{x.data.instance}}, {{question}}, $vars, $flow). */
  inputs: Record<string, unknown>;
  ctx: RunContext;
  /** The node's chosen output name (data.outputs.output), when it has several. */
  output?: string;
  /** True for the ending node: it is built, then run with the question (so it must not answer at build time). */
  ending?: boolean;
  /**
   * Lets another built node answer a question (a chain given to chainTool). The runner supplies
   * it, so node families never import the registry (which imports them).
   */
  answer?(instance: unknown, ctx: RunContext): Promise<string>;
  /** The run's flow state (Set/Get Variable): one per prediction, shared by its nodes. */
  flowState?: FlowState;
}

/** Flowise's per-run dynamic variables: Set Variable writes, Get Variable reads. */
export interface FlowState {
  variables: Record<string, unknown>;
  /** Set Variable nodes with showOutput: what the answer reports as `flowVariables`. */
  shown: Record<string, unknown>;
}

/** A branching node's build result (ifElseFunction): its instance, and the output it did not take. */
export interface BranchTaken {
  instance: unknown;
  /** The output name (returnTrue / returnFalse) whose edges lead to nodes this run leaves out. */
  untaken: string;
}

interface EndingRun {
  ctx: RunContext;
  /** Present when the caller streams; the node pushes tokens as the model makes them. */
  sink?: StreamSink;
}

/** One registry entry per Flowise node `name`. */
export interface NodeDefinition {
  name: string;
  /** Flowise category (`Chains`, `Chat Models`, …): used when a node's data.category is missing. */
  category?: string;
  /** Builds the node's `data.instance` from its resolved inputs. */
  build(args: BuildArgs): Promise<unknown>;
  /** Ending nodes (chains, agents) only: answer the question. */
  run?(instance: unknown, run: EndingRun): Promise<Omit<RunResult, "memoryType">>;
  /** Whether this ending node can stream tokens, given its node (model's `streaming` input etc.). */
  canStream?(node: FlowNode, graph: FlowGraph): boolean;
  /**
   * Skipped on prediction (document loaders feeding a vector store run on upsert only): always, or
   * as the function decides for this node of this graph.
   */
  upsertOnly?: boolean | ((node: FlowNode, graph: FlowGraph) => boolean);
  /**
   * Branching nodes only (ifElseFunction): what its build made into its instance and the output not
   * taken; the nodes behind that output (and what only they need) are not built, nor can they end.
   */
  branch?(built: unknown): BranchTaken;
  /** Vector store nodes only: index what their loaders give (POST /vector/upsert), instead of build. */
  upsert?(args: BuildArgs): Promise<UpsertCounts>;
}
