// Agent nodes: a chat model that calls tools with its native tool calling (bindTools), in a loop:
// the model answers or asks for tools; the tools run and their results go back to it; until it
// answers, or has used up maxIterations rounds of tools (then a clear answer says so, no hang).
//   toolAgent            Flowise's Tool Agent: systemMessage, memory, chatPromptTemplate, moderation
//   conversationalAgent  the same loop with the conversational agent's default system message
//   openAIToolAgent, openAIFunctionAgent  older Flowise names of the same agent
//
// Every tool call is recorded in usedTools ({tool, toolInput, toolOutput}); when streaming, the
// sink gets the list so far as each tool completes, and the tokens of the text the model writes.
// Artifacts a tool answers after Flowise's marker (codeInterpreterE2B's charts: tools/artifacts.ts) are
// kept as the answer's `artifacts` by the nodes Flowise keeps them in (Tool Agent and its older names;
// its Conversational Agent drops them); the model reads only the text before the marker either way.
// The answer is the text the model wrote to the user: the final turn's, after any text it wrote
// alongside tool calls (turns with text are joined by a blank line, in JSON and streaming alike).
// A tool that fails (throws, times out, is refused a fetch, gets arguments that do not fit its
// schema, does not exist) answers "Error: …" to the model, which can recover; the run goes on.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type AIMessageChunk, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { type StructuredToolInterface, isStructuredTool } from "@langchain/core/tools";
import { fail } from "../../../errors";
import { contentText } from "../../../providers/chat/messages";
import {
  type MemoryInstance,
  type ModerationInstance,
  type PromptInstance,
  isMemory,
  isPrompt,
  moderate,
  moderationsOf,
  requireChatModel,
} from "../instances";
import { modelFailure } from "../../core/errors";
import { imagePartsFor, withImages } from "../../core/images";
import { withPastImages } from "../../core/past-images";
import { splitArtifacts } from "../../tools/artifacts";
import { RunAborted } from "../../../lib/run-control";
import { promptMessages } from "../../core/prompting";
import type { BuildArgs, NodeDefinition } from "../types";
import type { RunResult, StreamSink, UsedTool } from "../../core/types";
import type { RunContext } from "../../core/ports";
import { chainCanStream } from "./chains";
import { asList, num, str } from "../../core/inputs";
import { errorMessage } from "../../../lib/error-message";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { startAgentRun } from "./agents-run";

const CATEGORY = "Agents";

export const DEFAULT_MAX_ITERATIONS = 10;
const MAX_MAX_ITERATIONS = 100;

/** The maxIterations input: the default when unset, else within 1…100. */
export function maxIterationsOf(value: unknown): number {
  const n = num(value);
  return n === undefined ? DEFAULT_MAX_ITERATIONS : Math.min(Math.max(1, Math.floor(n)), MAX_MAX_ITERATIONS);
}

const DEFAULT_TOOL_AGENT_SYSTEM = "You are a helpful AI assistant.";
const DEFAULT_CONVERSATIONAL_SYSTEM =
  "You are an assistant that holds a natural conversation on any topic: answer questions, explain, discuss and help with tasks. " +
  "When one of your tools can give a more accurate or current answer than you could alone (a calculation, a " +
  "lookup), use it, then answer in your own words.";

export interface AgentInstance {
  kind: "agent";
  label: string;
  model: BaseChatModel;
  tools: StructuredToolInterface[];
  memory?: MemoryInstance;
  systemMessage: string;
  prompt?: PromptInstance;
  maxIterations: number;
  moderations: ModerationInstance[];
}

type Answer = Omit<RunResult, "memoryType">;

const isAgent = (v: unknown): v is AgentInstance => !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "agent";

export const iterationLimitMessage = (n: number) =>
  `Agent stopped: it used tools ${n} time${n === 1 ? "" : "s"} (its maxIterations) without reaching a final answer.`;

/** An agent's tools input: tools (a toolkit's list flattened in), with names that differ; else 400. */
export function toolsInput(value: unknown, label: string): StructuredToolInterface[] {
  const tools = asList(value).flat();
  for (const t of tools) {
    if (!isStructuredTool(t as StructuredToolInterface))
      throw fail("INVALID_FLOW", `${label}: its tools input holds something that is not a tool`);
  }
  const list = tools as StructuredToolInterface[];
  const names = new Set<string>();
  for (const t of list) {
    if (names.has(t.name)) throw fail("INVALID_FLOW", `${label}: two of its tools are named ${t.name}; tool names must differ`);
    names.add(t.name);
  }
  return list;
}

export function buildAgent(defaultSystem: string) {
  return async ({ node, inputs }: BuildArgs): Promise<AgentInstance> => {
    const label = node.data.label;
    const model = requireChatModel(inputs.model, label);
    const list = toolsInput(inputs.tools, label);
    if (list.length && typeof model.bindTools !== "function") {
      throw fail(
        "INVALID_FLOW",
        `${label}: its chat model (${model._llmType()}) cannot call tools; use a model with tool calling (an OpenAI-compatible endpoint)`,
      );
    }
    return {
      kind: "agent",
      label,
      model,
      tools: list,
      memory: isMemory(inputs.memory) ? inputs.memory : undefined,
      systemMessage: str(inputs.systemMessage) ?? str(inputs.systemMessagePrompt) ?? defaultSystem,
      prompt: isPrompt(inputs.chatPromptTemplate) ? inputs.chatPromptTemplate : undefined,
      maxIterations: maxIterationsOf(inputs.maxIterations),
      moderations: moderationsOf(inputs.inputModeration),
    };
  };
}

/** The conversation the model starts from: system message (or prompt), history, question (with its images: core/images.ts). */
async function firstMessages(agent: AgentInstance, question: string, ctx: RunContext): Promise<BaseMessage[]> {
  const history = agent.memory ? await withPastImages(await agent.memory.messages(), agent.model, ctx) : [];
  const images = imagePartsFor(agent.model, ctx.uploads, ctx.runtime.maxUploadBytes);
  if (agent.prompt) {
    const formatted = withImages(await promptMessages(agent.prompt, question), images);
    return [...formatted.filter((m) => m.getType() === "system"), ...history, ...formatted.filter((m) => m.getType() !== "system")];
  }
  // The LlamaIndex agents have no default: no system message unless one is set.
  const system = agent.systemMessage ? [new SystemMessage(agent.systemMessage)] : [];
  return [...system, ...history, ...withImages([new HumanMessage(question)], images)];
}

type Model = Runnable<BaseMessage[], AIMessageChunk>;

/** One model turn: streamed (text tokens to onToken as they come) or not. */
async function modelTurn(
  model: Model,
  messages: BaseMessage[],
  ctx: RunContext,
  onToken?: (t: string) => void,
  callbacks?: Callbacks,
): Promise<AIMessageChunk | AIMessage> {
  const options = { signal: ctx.signal, ...(callbacks ? { callbacks } : {}) };
  try {
    if (!onToken) return await model.invoke(messages, options);
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await model.stream(messages, options)) {
      whole = whole ? whole.concat(chunk) : chunk;
      const text = contentText(chunk.content);
      if (text) onToken(text);
    }
    return whole ?? new AIMessage("");
  } catch (err) {
    throw modelFailure(err, ctx);
  }
}

/** Longer tool outputs are cut (the model could not use more, and the message is stored with them). */
const MAX_TOOL_OUTPUT_CHARS = 50_000;

export const capped = (text: string) =>
  text.length > MAX_TOOL_OUTPUT_CHARS
    ? `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}… [${text.length - MAX_TOOL_OUTPUT_CHARS} more characters cut]`
    : text;

/** A tool's output for the model; failures become "Error: …" (aborts stop the run). */
export async function callTool(
  tool: StructuredToolInterface | undefined,
  name: string,
  args: Record<string, unknown>,
  known: string[],
  ctx: RunContext,
  onArtifacts?: (artifacts: unknown[]) => void,
  callbacks?: Callbacks,
): Promise<string> {
  if (!tool) return `Error: there is no tool named "${name}". The tools are: ${known.join(", ") || "(none)"}.`;
  try {
    const out: unknown = await tool.invoke(args, { signal: ctx.signal, ...(callbacks ? { callbacks } : {}) });
    // Flowise's artifacts marker (codeInterpreterE2B): the model reads the text before it.
    if (typeof out === "string") {
      const { text, artifacts } = splitArtifacts(out, tool);
      if (artifacts.length) onArtifacts?.(artifacts);
      return text;
    }
    if (out && typeof out === "object" && "content" in out) return contentText((out as { content: unknown }).content);
    return out === undefined ? "" : JSON.stringify(out);
  } catch (err) {
    if (ctx.signal?.aborted || err instanceof RunAborted) throw new RunAborted();
    return `Error: ${errorMessage(err)}`;
  }
}

/** `keepArtifacts`: the answer carries the artifacts tools answered (else they are dropped, as Flowise's node does). */
export async function runAgent(agent: AgentInstance, ctx: RunContext, sink?: StreamSink, keepArtifacts = false): Promise<Answer> {
  const checked = await moderate(ctx.question, agent.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  const run = await startAgentRun(agent.label, checked.question);
  try {
    const answer = await agentLoop(agent, checked.question, ctx, { sink, keepArtifacts, callbacks: run.callbacks });
    await run.end(answer.text);
    return answer;
  } catch (err) {
    await run.fail(err);
    throw err;
  }
}

/** The loop itself: model turns and tool calls until an answer (or maxIterations). */
async function agentLoop(
  agent: AgentInstance,
  question: string,
  ctx: RunContext,
  { sink, keepArtifacts, callbacks }: { sink?: StreamSink; keepArtifacts: boolean; callbacks?: Callbacks },
): Promise<Answer> {
  const messages = await firstMessages(agent, question, ctx);
  const model = (agent.tools.length ? agent.model.bindTools!(agent.tools) : agent.model) as Model;
  const byName = new Map(agent.tools.map((t) => [t.name, t]));
  const known = [...byName.keys()];
  const used: UsedTool[] = [];
  const texts: string[] = [];
  const artifacts: unknown[] = [];
  const onArtifacts = keepArtifacts ? (a: unknown[]) => void artifacts.push(...a) : undefined;

  // Streaming: a turn's text goes out as it comes, after a blank line when an earlier turn wrote text.
  let turnWrote = false;
  const onToken = sink
    ? (t: string) => {
        if (!turnWrote && texts.length) sink.token("\n\n");
        turnWrote = true;
        sink.token(t);
      }
    : undefined;
  const say = (text: string) => {
    onToken?.(text);
    texts.push(text);
  };
  const answer = (): Answer => ({
    text: texts.join("\n\n"),
    ...(used.length ? { usedTools: used } : {}),
    ...(artifacts.length ? { artifacts } : {}),
  });

  for (let round = 0; ; round++) {
    turnWrote = false;
    const reply = await modelTurn(model, messages, ctx, onToken, callbacks);
    const text = contentText(reply.content);
    if (text) texts.push(text);
    // Calls whose arguments did not parse (a streamed call cut short) still get an answer the model can read.
    const broken = (reply.invalid_tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.name ?? "",
      args: {} as Record<string, unknown>,
      unreadable: c.args ?? "",
    }));
    const calls: Array<{ id?: string; name: string; args: Record<string, unknown>; unreadable?: string }> = [
      ...(reply.tool_calls ?? []),
      ...broken,
    ];
    if (!calls.length) return answer();
    if (round >= agent.maxIterations) {
      turnWrote = false;
      say(iterationLimitMessage(agent.maxIterations));
      return answer();
    }

    const ids = calls.map((c, i) => c.id || `call_${round}_${i}`);
    messages.push(
      new AIMessage({
        content: text,
        tool_calls: calls.map((c, i) => ({ name: c.name, args: c.args, id: ids[i], type: "tool_call" as const })),
      }),
    );
    for (const [i, call] of calls.entries()) {
      if (ctx.signal?.aborted) throw new RunAborted();
      const tool = byName.get(call.name);
      const args = call.args ?? {};
      const output =
        call.unreadable !== undefined
          ? `Error: the arguments for ${call.name || "the tool"} are not valid JSON: ${call.unreadable.slice(0, 500)}`
          : capped(await callTool(tool, call.name, args, known, ctx, onArtifacts, callbacks));
      used.push({ tool: call.name, toolInput: args, toolOutput: output });
      sink?.event("usedTools", used.slice());
      messages.push(new ToolMessage({ content: output, tool_call_id: ids[i], name: call.name }));
      if (tool?.returnDirect) {
        // The tool's output is the answer (LangChain's returnDirect).
        turnWrote = false;
        say(output);
        return answer();
      }
    }
  }
}

function agentNode(name: string, defaultSystem: string, keepArtifacts: boolean): NodeDefinition {
  return {
    name,
    category: CATEGORY,
    build: buildAgent(defaultSystem),
    async run(instance, { ctx, sink }) {
      if (isAgent(instance)) return runAgent(instance, ctx, sink, keepArtifacts);
      throw fail("INVALID_FLOW", `${name} was not built`);
    },
    // Streams when its chat model's `streaming` input is not false (FLOWISE-NOTES point 7).
    canStream: chainCanStream,
  };
}

export const agentNodes: NodeDefinition[] = [
  agentNode("toolAgent", DEFAULT_TOOL_AGENT_SYSTEM, true),
  agentNode("conversationalAgent", DEFAULT_CONVERSATIONAL_SYSTEM, false),
  agentNode("openAIToolAgent", DEFAULT_TOOL_AGENT_SYSTEM, true),
  agentNode("openAIFunctionAgent", DEFAULT_TOOL_AGENT_SYSTEM, true),
];
