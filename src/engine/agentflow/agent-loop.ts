// The Agent node's tool loop (AGENTFLOW.md §4.7): the model answers or calls tools; tool results go
// back to it; until it answers. Better than Flowise: at most `maxIterations` rounds of tools
// (default 10, then a clear final message), and a failing tool answers "Error: …" to the model
// (recorded in usedTools with `error`) instead of failing the node. A tool that requires human
// input stops the loop before it runs (the run pauses); the resume proceeds with the pending
// calls, or rejects them (the rejected tools are dropped for the rest of this node run).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { RunAborted } from "../../lib/run-control";
import { contentText } from "../../providers/chat/messages";
import type { UsedTool } from "../core/types";
import { type ImageResolver, fromReply, toLangChain } from "./messages";
import { callChat } from "./model-call";
import type { NodeRuntime } from "./node-types";
import type { AgentflowMessage, HumanInput } from "./types";
import { errorMessage } from "../../lib/error-message";
import { splitArtifacts } from "../tools/artifacts";

export const DEFAULT_MAX_ITERATIONS = 10;
export const MAX_MAX_ITERATIONS = 100;
export const MAX_TOOL_OUTPUT_CHARS = 50_000;

/** A node's maxIterations input: a whole number of at least 1, at most MAX_MAX_ITERATIONS; else the default. */
export const maxIterationsOf = (given: number | undefined): number =>
  given !== undefined && given >= 1 ? Math.min(Math.floor(given), MAX_MAX_ITERATIONS) : DEFAULT_MAX_ITERATIONS;

const iterationLimitMessage = (n: number) =>
  `Agent stopped: it used tools ${n} time${n === 1 ? "" : "s"} (its maxIterations) without reaching a final answer.`;

export interface AgentTool {
  tool: StructuredToolInterface;
  requiresHumanInput: boolean;
  /** The component it came from (a rejected call drops every tool of that component). */
  component: string;
}

export interface LoopSetup {
  model: BaseChatModel;
  tools: AgentTool[];
  messages: AgentflowMessage[];
  maxIterations: number;
  /** Tokens of every model turn go out as they come. */
  live: boolean;
  rt: NodeRuntime;
  /** Artifacts tools answered after Flowise's marker (tools/artifacts.ts); the model reads only the text before it. */
  onArtifacts?: (artifacts: unknown[]) => void;
  /** How the model's calls read the messages' image references (../images.ts); absent: its model takes none. */
  images?: ImageResolver;
}

export interface LoopResult {
  reply: AIMessageChunk;
  content: string;
  messages: AgentflowMessage[];
  usedTools: UsedTool[];
  /** Tokens of the turns before the last one. */
  toolCallTokens: number;
  waitingForHumanInput: boolean;
}

const capped = (text: string) =>
  text.length > MAX_TOOL_OUTPUT_CHARS
    ? `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}… [${text.length - MAX_TOOL_OUTPUT_CHARS} more characters cut]`
    : text;

async function callTool(
  tool: StructuredToolInterface | undefined,
  name: string,
  args: Record<string, unknown>,
  known: string[],
  signal: AbortSignal,
): Promise<{ output: string; error?: string; artifacts?: unknown[] }> {
  if (!tool) {
    const error = `there is no tool named "${name}". The tools are: ${known.join(", ") || "(none)"}.`;
    return { output: `Error: ${error}`, error };
  }
  try {
    const out: unknown = await tool.invoke(args, { signal });
    const text =
      typeof out === "string"
        ? out
        : out && typeof out === "object" && "content" in out
          ? contentText((out as { content: unknown }).content)
          : out === undefined
            ? ""
            : JSON.stringify(out);
    const { text: output, artifacts } = splitArtifacts(text, tool);
    return { output: capped(output), artifacts };
  } catch (err) {
    if (signal.aborted || err instanceof RunAborted) throw new RunAborted();
    const error = errorMessage(err);
    return { output: `Error: ${error}`, error };
  }
}

export async function runToolLoop(
  setup: LoopSetup,
  resume?: { humanInput: HumanInput; checkpoint: AgentflowMessage[] },
): Promise<LoopResult> {
  const { model, rt, maxIterations, live } = setup;
  let tools = setup.tools;
  let messages = [...setup.messages];
  const usedTools: UsedTool[] = [];
  let toolCallTokens = 0;
  const onToken = live ? rt.emit.token : undefined;
  const bound = () => (tools.length && typeof model.bindTools === "function" ? model.bindTools(tools.map((t) => t.tool)) : model);
  const invoke = () => callChat(bound(), toLangChain(messages, setup.images), rt.signal, onToken);

  const runCalls = async (calls: NonNullable<AgentflowMessage["tool_calls"]>) => {
    const byName = new Map(tools.map((t) => [t.tool.name, t.tool]));
    for (const call of calls) {
      const { output, error, artifacts } = await callTool(byName.get(call.name), call.name, call.args, [...byName.keys()], rt.signal);
      if (artifacts?.length) setup.onArtifacts?.(artifacts);
      usedTools.push({ tool: call.name, toolInput: call.args, toolOutput: error ? "" : output, ...(error ? { error } : {}) } as UsedTool);
      messages.push({ role: "tool", content: output, tool_call_id: call.id, name: call.name });
    }
    if (rt.streaming && usedTools.some((u) => (u as { error?: string }).error)) rt.emit.event("usedTools", usedTools.slice());
    const single = calls.length === 1 ? byName.get(calls[0].name) : undefined;
    return single?.returnDirect ? String(messages[messages.length - 1].content) : undefined;
  };

  let reply: AIMessageChunk;
  if (resume) {
    const pending = resume.checkpoint.at(-1);
    messages = resume.checkpoint.slice(0, -1);
    if (!pending?.tool_calls?.length) {
      reply = new AIMessageChunk(pending?.content ?? "");
      return { reply, content: contentText(reply.content), messages, usedTools, toolCallTokens, waitingForHumanInput: false };
    }
    if (rt.streaming)
      rt.emit.event(
        "calledTools",
        pending.tool_calls.map((c) => ({ tool: c.name, toolInput: c.args, toolOutput: "" })),
      );
    if (resume.humanInput.type === "reject") {
      const rejected = new Set(tools.filter((t) => pending.tool_calls!.some((c) => c.name === t.tool.name)).map((t) => t.component));
      tools = tools.filter((t) => !rejected.has(t.component));
    } else {
      messages.push(pending);
      const direct = await runCalls(pending.tool_calls);
      if (direct !== undefined) return finish(new AIMessageChunk(direct), direct);
    }
    reply = await invoke();
  } else {
    reply = await invoke();
  }

  for (let round = 0; ; round++) {
    const calls = fromReply(reply).tool_calls ?? [];
    if (!calls.length) return finish(reply, contentText(reply.content));
    if (round >= maxIterations) {
      const text = iterationLimitMessage(maxIterations);
      onToken?.(text);
      return finish(new AIMessageChunk({ content: text, usage_metadata: reply.usage_metadata }), text);
    }
    if (rt.streaming)
      rt.emit.event(
        "calledTools",
        calls.map((c) => ({ tool: c.name || "tool", toolInput: c.args, toolOutput: "" })),
      );
    toolCallTokens += reply.usage_metadata?.total_tokens ?? 0;
    messages.push(fromReply(reply));
    const approval = calls.find((c) => tools.find((t) => t.tool.name === c.name)?.requiresHumanInput);
    if (approval && !rt.iteration) {
      const call = JSON.stringify({ name: approval.name, args: approval.args, id: approval.id, type: "tool_call" }, null, 2);
      const content = `${contentText(reply.content)}\nAttempting to use tool:\n\`\`\`json\n${call}\n\`\`\``;
      if (rt.streaming) rt.emit.token(content);
      return { reply, content, messages, usedTools, toolCallTokens, waitingForHumanInput: true };
    }
    const direct = await runCalls(calls);
    if (direct !== undefined) {
      onToken?.(direct);
      return finish(new AIMessageChunk(direct), direct);
    }
    reply = await invoke();
  }

  function finish(last: AIMessageChunk, content: string): LoopResult {
    return { reply: last, content, messages, usedTools, toolCallTokens, waitingForHumanInput: false };
  }
}
