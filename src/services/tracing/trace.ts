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

// LangChain keeps its run config in this storage; without a real one every lookup finds nothing.
AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());

export type SpanKind = "generation" | "tool" | "retriever" | "chain" | "node";

export interface Usage {
  input: number;
  output: number;
  total: number;
}

export interface Span {
  id: string;
  parentId?: string;
  kind: SpanKind;
  name: string;
  start: number;
  end?: number;
  input?: unknown;
  output?: unknown;
  /** Generations: the model asked for, its provider (ls_provider), parameters, token usage. */
  model?: string;
  provider?: string;
  parameters?: Record<string, unknown>;
  usage?: Usage;
  /** Nodes: the node's id and Flowise name; tools: the call id. */
  attributes?: Record<string, string>;
  error?: string;
}

export interface Trace {
  id: string;
  name: string;
  /** chatId: Langfuse's sessionId, LangSmith's metadata.session_id, OTLP's gen_ai.conversation.id. */
  sessionId: string;
  input: string;
  output?: string;
  start: number;
  end?: number;
  error?: string;
  metadata: Record<string, string>;
  spans: Span[];
}

/** A field's text is cut past this many characters: a trace is diagnostics, not storage. */
const MAX_FIELD_CHARS = 32_000;
const MAX_SPANS = 500;
const SPAN_KEY = "edgeflow_trace_span";

/** A value as it goes into a trace: JSON-safe, long text cut. */
export function clip(value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (typeof value === "string")
    return value.length > MAX_FIELD_CHARS ? `${value.slice(0, MAX_FIELD_CHARS)}… (${value.length} characters)` : value;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return String(value);
  }
  if (text === undefined) return undefined;
  return text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}… (${text.length} characters)` : JSON.parse(text);
}

const roleOf = (m: BaseMessage): string => {
  const type = m.getType?.() ?? "user";
  return type === "human" ? "user" : type === "ai" ? "assistant" : type;
};

const contentOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === "string" ? p : ((p as { text?: string }).text ?? ""))).join("")
      : "";

export interface ChatMessageOut {
  role: string;
  content: string;
  tool_calls?: unknown[];
}

function messagesOf(list: BaseMessage[]): ChatMessageOut[] {
  return list.map((m) => {
    const calls = (m as { tool_calls?: unknown[] }).tool_calls;
    return { role: roleOf(m), content: contentOf(m.content), ...(calls?.length ? { tool_calls: calls } : {}) };
  });
}

type Counts = { input_tokens?: number; output_tokens?: number; total_tokens?: number };

function usageOf(output: LLMResult): Usage | undefined {
  const reported = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number; totalTokens?: number } | undefined;
  if (reported && (reported.promptTokens || reported.completionTokens || reported.totalTokens)) {
    const input = reported.promptTokens ?? 0;
    const out = reported.completionTokens ?? 0;
    return { input, output: out, total: reported.totalTokens || input + out };
  }
  for (const generation of output.generations.flat()) {
    const counts = (generation as { message?: { usage_metadata?: Counts } }).message?.usage_metadata;
    if (counts && (counts.input_tokens || counts.output_tokens || counts.total_tokens)) {
      const input = counts.input_tokens ?? 0;
      const out = counts.output_tokens ?? 0;
      return { input, output: out, total: counts.total_tokens || input + out };
    }
  }
  return undefined;
}

function outputOf(output: LLMResult): ChatMessageOut[] {
  return output.generations.flat().map((g) => {
    const message = (g as { message?: BaseMessage }).message;
    return message ? messagesOf([message])[0] : { role: "assistant", content: g.text };
  });
}

const nameOf = (serialized: Serialized | undefined, runName: string | undefined, fallback: string): string =>
  runName ||
  (serialized && "name" in serialized && typeof serialized.name === "string" ? serialized.name : undefined) ||
  serialized?.id?.at(-1) ||
  fallback;

/** What LangChain passes as `metadata` and `extraParams` to a model's start. */
type Meta = Record<string, unknown> | undefined;

/** The run's trace, filled by LangChain's callbacks and the node hook. */
export class TraceRecorder extends BaseCallbackHandler {
  name = "edgeflow_tracing";
  readonly trace: Trace;
  private readonly spans = new Map<string, Span>();
  private dropped = 0;

  constructor(init: { name: string; sessionId: string; input: string; metadata: Record<string, string> }) {
    super({ _awaitHandler: true }); // recorded before the run's promise settles, never in the background
    this.trace = { id: crypto.randomUUID(), start: Date.now(), spans: [], ...init };
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
    this.close(runId, { error: errorText(err) });
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
    this.close(runId, { error: errorText(err) });
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
    this.close(runId, { output: clip(documents.map((d) => ({ pageContent: d.pageContent, metadata: d.metadata }))) });
  }

  override handleRetrieverError(err: unknown, runId: string): void {
    this.close(runId, { error: errorText(err) });
  }

  override handleChainStart(
    chain: Serialized,
    inputs: Record<string, unknown>,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    metadata?: Meta,
    _runType?: string,
    runName?: string,
  ): void {
    this.open({
      id: runId,
      parentId: this.parentOf(parentRunId, metadata),
      kind: "chain",
      name: nameOf(chain, runName, "chain"),
      input: clip(inputs),
    });
  }

  override handleChainEnd(outputs: unknown, runId: string): void {
    this.close(runId, { output: clip(outputs) });
  }

  override handleChainError(err: unknown, runId: string): void {
    this.close(runId, { error: errorText(err) });
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
      Object.assign(span, { end: Date.now(), error: errorText(err) });
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

export function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 2000);
}
