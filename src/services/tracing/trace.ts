// One run's trace, as it happens: the question and answer, and a span for every model call (its
// prompt, output and token usage), tool call, retriever hit and agentflow node. Model, tool and
// retriever calls are seen the way LangChain reports them to a callback handler found in its
// async-local run config (the same mechanism as the OpenAI API's usage, services/openai/usage.ts):
// the engine is not touched for them. Agentflow nodes are spans through the engine's `aroundNode`
// port, which runs each node's work inside that config with the node's span as the parent.
import { AsyncLocalStorage } from "node:async_hooks";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { DocumentInterface } from "@langchain/core/documents";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { RUN_SCOPED } from "../../engine/tools/nested";
import type { Span, Trace } from "./trace-types";
import { type Meta, clip, messagesOf, nameOf, outputOf, usageOf } from "./trace-values";

// LangChain keeps its run config in this storage; without a real one every lookup finds nothing.
AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());

const MAX_SPANS = 500;
const SPAN_KEY = "edgeflow_trace_span";

/** The run's trace, filled by LangChain's callbacks and the node hook. */
export class TraceRecorder extends BaseCallbackHandler {
  name = "edgeflow_tracing";
  /** This run's alone: a flow it calls as a tool (ChatflowTool, agentAsTool) is traced on its own, as in Flowise. */
  readonly [RUN_SCOPED] = true;
  readonly trace: Trace;
  private readonly spans = new Map<string, Span>();
  private dropped = 0;

  constructor(init: { name: string; sessionId: string; input: string; metadata: Record<string, string> }) {
    super({ _awaitHandler: true }); // recorded before the run's promise settles, never in the background
    // The question is cut like every other text field: whole, a large one (up to MAX_BODY_MB) made an event
    // over Langfuse's body limit, and it goes out twice more (Lunary's thread message and chain run).
    this.trace = { id: crypto.randomUUID(), start: Date.now(), spans: [], ...init, input: clip(init.input) as string };
  }

  /** The span a LangChain run hangs under: its LangChain parent, else the node running it, else the trace itself. */
  private parentOf(parentRunId: string | undefined, metadata: Meta): string | undefined {
    if (parentRunId && this.spans.has(parentRunId)) return parentRunId;
    const node = metadata?.[SPAN_KEY];
    return typeof node === "string" && this.spans.has(node) ? node : undefined;
  }

  open(span: Omit<Span, "start"> & { start?: number }): Span | undefined {
    if (this.trace.spans.length >= MAX_SPANS) {
      this.dropped++;
      return undefined;
    }
    const full: Span = { start: Date.now(), ...span };
    this.spans.set(full.id, full);
    this.trace.spans.push(full);
    return full;
  }

  private close(runId: string, fields: Partial<Span>): void {
    const span = this.spans.get(runId);
    if (span) Object.assign(span, { end: Date.now(), ...fields });
  }

  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Meta,
    _tags?: string[],
    metadata?: Meta,
    runName?: string,
  ): void {
    const invocation = (extraParams?.invocation_params ?? {}) as Record<string, unknown>;
    const model = String(metadata?.ls_model_name ?? invocation.model ?? invocation.modelName ?? invocation.model_name ?? "");
    const parameters: Record<string, unknown> = {};
    for (const key of ["temperature", "max_tokens", "maxTokens", "top_p", "topP"])
      if (invocation[key] !== undefined) parameters[key] = invocation[key];
    if (metadata?.ls_temperature !== undefined && parameters.temperature === undefined) parameters.temperature = metadata.ls_temperature;
    this.open({
      id: runId,
      parentId: this.parentOf(parentRunId, metadata),
      kind: "generation",
      name: nameOf(llm, runName, "chat model"),
      input: clip(messagesOf(messages[0] ?? [])),
      model: model || undefined,
      provider: typeof metadata?.ls_provider === "string" ? metadata.ls_provider : undefined,
      parameters,
    });
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Meta,
    _tags?: string[],
    metadata?: Meta,
    runName?: string,
  ): void {
    const invocation = (extraParams?.invocation_params ?? {}) as Record<string, unknown>;
    this.open({
      id: runId,
      parentId: this.parentOf(parentRunId, metadata),
      kind: "generation",
      name: nameOf(llm, runName, "llm"),
      input: clip(prompts.map((p) => ({ role: "user", content: p }))),
      model: String(metadata?.ls_model_name ?? invocation.model ?? "") || undefined,
    });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    this.close(runId, { output: clip(outputOf(output)), usage: usageOf(output) });
  }

  override handleLLMError(err: unknown, runId: string): void {
    this.close(runId, { error: spanError(err) });
  }

  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    metadata?: Meta,
    runName?: string,
    toolCallId?: string,
  ): void {
    this.open({
      id: runId,
      parentId: this.parentOf(parentRunId, metadata),
      kind: "tool",
      name: nameOf(tool, runName, "tool"),
      input: clip(parseMaybe(input)),
      ...(toolCallId ? { attributes: { toolCallId } } : {}),
    });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    const content = output && typeof output === "object" && "content" in output ? (output as { content: unknown }).content : output;
    this.close(runId, { output: clip(content) });
  }

  override handleToolError(err: unknown, runId: string): void {
    this.close(runId, { error: spanError(err) });
  }

  override handleRetrieverStart(
    retriever: Serialized,
    query: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    metadata?: Meta,
    name?: string,
  ): void {
    this.open({
      id: runId,
      parentId: this.parentOf(parentRunId, metadata),
      kind: "retriever",
      name: nameOf(retriever, name, "retriever"),
      input: clip(query),
    });
  }

  override handleRetrieverEnd(documents: DocumentInterface[], runId: string): void {
    const found = documents.map((d) => ({ ...(d.id ? { id: d.id } : {}), pageContent: d.pageContent, metadata: d.metadata }));
    this.close(runId, { output: clip(found) });
  }

  override handleRetrieverError(err: unknown, runId: string): void {
    this.close(runId, { error: spanError(err) });
  }

  override handleChainStart(
    chain: Serialized,
    inputs: Record<string, unknown>,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    metadata?: Meta,
    runType?: string,
    runName?: string,
  ): void {
    this.open({
      id: runId,
      parentId: this.parentOf(parentRunId, metadata),
      kind: "chain",
      name: nameOf(chain, runName, "chain"),
      input: clip(inputs),
      // A chatflow agent's loop (engine/chatflow/nodes/agents-run.ts): OpenInference's AGENT span.
      ...(runType === "agent" ? { attributes: { runType } } : {}),
    });
  }

  override handleChainEnd(outputs: unknown, runId: string): void {
    this.close(runId, { output: clip(outputs) });
  }

  override handleChainError(err: unknown, runId: string): void {
    this.close(runId, { error: spanError(err) });
  }

  /** Runs `work` with this recorder among the LangChain callbacks of every call inside it (other handlers kept). */
  within<T>(work: () => Promise<T>, span?: string): Promise<T> {
    const current = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
      | { callbacks?: unknown; metadata?: Record<string, unknown> }
      | undefined;
    const inherited = Array.isArray(current?.callbacks) ? (current.callbacks as BaseCallbackHandler[]) : [];
    const callbacks = inherited.includes(this) ? inherited : [...inherited, this];
    const metadata = span ? { ...(current?.metadata ?? {}), [SPAN_KEY]: span } : current?.metadata;
    return AsyncLocalStorageProviderSingleton.runWithConfig(
      { ...(current ?? {}), callbacks, ...(metadata ? { metadata } : {}) },
      work,
    ) as Promise<T>;
  }

  /** An agentflow node as a span around its work; the calls it makes hang under it. */
  async node<T>(
    node: { id: string; label: string; name: string },
    work: () => Promise<T>,
    resultOf: (done: T) => { input?: unknown; output?: unknown },
  ): Promise<T> {
    const span = this.open({
      id: crypto.randomUUID(),
      kind: "node",
      name: node.label || node.id,
      attributes: { nodeId: node.id, nodeName: node.name },
    });
    if (!span) return work();
    try {
      const done = await this.within(work, span.id);
      const { input, output } = resultOf(done);
      Object.assign(span, { end: Date.now(), input: clip(input), output: clip(output) });
      return done;
    } catch (err) {
      Object.assign(span, { end: Date.now(), error: spanError(err) });
      throw err;
    }
  }

  /** The run ended: its answer (or error); spans still open end now. */
  finish(result: { output?: string; error?: string; metadata?: Record<string, string | undefined> }): Trace {
    const now = Date.now();
    this.trace.end = now;
    if (result.output !== undefined) this.trace.output = clip(result.output) as string;
    if (result.error !== undefined) this.trace.error = result.error;
    for (const [k, v] of Object.entries(result.metadata ?? {})) if (v) this.trace.metadata[k] = v;
    if (this.dropped) this.trace.metadata.droppedSpans = String(this.dropped);
    for (const span of this.trace.spans) span.end ??= now;
    return this.trace;
  }
}

function parseMaybe(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

export function spanError(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 2000);
}
