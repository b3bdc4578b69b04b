// ReAct agents: a model without native tool calling picks tools in text (./react-format.ts). Each
// turn the model gets the prompt with the steps so far; an Action runs the tool and its result
// comes back as the Observation; a Final Answer ends the run; after maxIterations tool steps the
// run ends with the same "Agent stopped" answer as the tool agents.
//   reactAgentChat  tools, model (chat model), memory, inputModeration, maxIterations
//   reactAgentLLM   tools, model (a text LLM or chat model), inputModeration, maxIterations
// Tool failures, unknown tools and unreadable inputs are Observations the model can correct.
import { HumanMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../../errors";
import { imagePartsFor, withImages } from "../../core/images";
import { callModel } from "../../core/llm";
import type { RunContext } from "../../core/ports";
import { turnsToText } from "../../core/turns";
import type { RunResult, UsedTool } from "../../core/types";
import { type MemoryInstance, type ModerationInstance, isMemory, moderate, moderationsOf, requireChatModel } from "../instances";
import type { NodeDefinition } from "../types";
import { callTool, capped, iterationLimitMessage, maxIterationsOf, toolsInput } from "./agents";
import { type ReactStep, cutAtObservation, reactPrompt, readReply, toolArgs } from "./react-format";

interface ReactAgentInstance {
  kind: "reactAgent";
  model: BaseChatModel;
  tools: StructuredToolInterface[];
  /** Chat variant only: the conversation goes into the prompt. */
  memory?: MemoryInstance;
  chat: boolean;
  maxIterations: number;
  moderations: ModerationInstance[];
}

const isReactAgent = (v: unknown): v is ReactAgentInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "reactAgent";

async function runReact(agent: ReactAgentInstance, ctx: RunContext): Promise<Omit<RunResult, "memoryType">> {
  const checked = await moderate(ctx.question, agent.moderations);
  if ("refusal" in checked) return { text: checked.refusal };
  const history = agent.chat ? (agent.memory ? turnsToText(await agent.memory.load()) : "") : undefined;
  const byName = new Map(agent.tools.map((t) => [t.name, t]));
  const known = [...byName.keys()];
  const steps: ReactStep[] = [];
  const used: UsedTool[] = [];
  const answer = (text: string) => ({ text, ...(used.length ? { usedTools: used } : {}) });
  // reactAgentChat's model sees the run's images with every step's prompt (Flowise puts them in its prompt template).
  const images = agent.chat ? imagePartsFor(agent.model, ctx.uploads, ctx.runtime.maxUploadBytes) : [];

  for (;;) {
    const prompt = reactPrompt(agent.tools, checked.question, steps, history);
    const reply = await callModel(agent.model, withImages([new HumanMessage(prompt)], images), ctx);
    const read = readReply(reply);
    if ("final" in read) return answer(read.final);
    if (steps.length >= agent.maxIterations) return answer(iterationLimitMessage(agent.maxIterations));
    const tool = byName.get(read.action);
    const args = tool ? toolArgs(tool, read.input) : {};
    const observation = typeof args === "string" ? args : capped(await callTool(tool, read.action, args, known, ctx));
    used.push({ tool: read.action, toolInput: typeof args === "string" ? { input: read.input } : args, toolOutput: observation });
    steps.push({ log: cutAtObservation(reply).trim(), observation });
    if (tool?.returnDirect && typeof args !== "string") return answer(observation);
  }
}

function reactNode(name: string, chat: boolean): NodeDefinition {
  return {
    name,
    category: "Agents",
    async build({ node, inputs }): Promise<ReactAgentInstance> {
      const label = node.data.label;
      return {
        kind: "reactAgent",
        model: requireChatModel(inputs.model, label),
        tools: toolsInput(inputs.tools, label),
        memory: chat && isMemory(inputs.memory) ? inputs.memory : undefined,
        chat,
        maxIterations: maxIterationsOf(inputs.maxIterations),
        moderations: moderationsOf(inputs.inputModeration),
      };
    },
    async run(instance, { ctx }) {
      if (isReactAgent(instance)) return runReact(instance, ctx);
      throw fail("INVALID_FLOW", `${name} was not built`);
    },
    // The model's replies hold its Thoughts and Actions: only the final answer is sent, whole.
    canStream: () => false,
  };
}

export const reactAgentNodes: NodeDefinition[] = [reactNode("reactAgentChat", true), reactNode("reactAgentLLM", false)];
