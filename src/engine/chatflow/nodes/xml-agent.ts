// xmlAgent (Flowise's "XML Agent", for models good at XML such as Claude): LangChain's XML agent.
// One user message holds the prompt (the system message: {tools} as Flowise lists them, the
// conversation, the question); the model answers <tool>NAME</tool><tool_input>INPUT (it stops at
// </tool_input>), the tool runs, and its output comes back as the next user message after the
// model's own text; <final_answer>TEXT ends the run, as does text with neither tag (taken whole).
// Unknown tools and tool failures are observations the model can correct; after maxIterations
// tool steps the run ends with the tool agents' "Agent stopped" answer. Not streamed (the replies
// hold the tags). Flowise also renders the steps into {agent_scratchpad} as JSON; here it is empty
// and the steps follow the prompt as messages only.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../../errors";
import { contentText } from "../../../providers/chat/messages";
import { modelFailure } from "../../core/errors";
import { str } from "../../core/inputs";
import type { RunContext } from "../../core/ports";
import type { RunResult, UsedTool } from "../../core/types";
import { type MemoryInstance, type ModerationInstance, isMemory, moderate, moderationsOf, requireChatModel } from "../instances";
import type { NodeDefinition } from "../types";
import { callTool, capped, iterationLimitMessage, maxIterationsOf, toolsInput } from "./agents";
import { toolArgs } from "./react-format";

/** Flowise's default system message for the XML Agent (its prompt). */
export const XML_AGENT_PROMPT = `You are a helpful assistant. Help the user answer any questions.

You have access to the following tools:

{tools}

In order to use a tool, you can use <tool></tool> and <tool_input></tool_input> tags. You will then get back a response in the \
form <observation></observation>
For example, if you have a tool called 'search' that could run a google search, in order to search for the weather in SF you \
would respond:

<tool>search</tool><tool_input>weather in SF</tool_input>
<observation>64 degrees</observation>

When you are done, respond with a final answer between <final_answer></final_answer>. For example:

<final_answer>The weather in SF is 64 degrees</final_answer>

Begin!

Previous Conversation:
{chat_history}

Question: {input}
{agent_scratchpad}`;

const STOP = ["</tool_input>", "</final_answer>"];

interface XmlAgentInstance {
  kind: "xmlAgent";
  model: BaseChatModel;
  tools: StructuredToolInterface[];
  memory?: MemoryInstance;
  prompt: string;
  maxIterations: number;
  moderations: ModerationInstance[];
}

type Reply = { tool: string; input: string } | { final: string };

/** Flowise's XMLAgentOutputParser, with the stop sequences cut where a model does not honour them. */
export function readXml(text: string): Reply {
  if (text.includes("</tool>")) {
    const [head, rest] = text.split("</tool>");
    const input = rest.split("<tool_input>")[1] ?? "";
    return { tool: (head.split("<tool>")[1] ?? "").trim(), input: input.split("</tool_input>")[0] };
  }
  if (text.includes("<final_answer>")) return { final: text.split("<final_answer>")[1].split("</final_answer>")[0] };
  return { final: text };
}

/** The prompt with its variables filled (each once, as a template would). */
function filled(template: string, values: Record<string, string>): string {
  return template.replace(/\{(tools|chat_history|input|agent_scratchpad)\}/g, (_, name: string) => values[name] ?? "");
}

async function ask(model: BaseChatModel, messages: BaseMessage[], ctx: RunContext): Promise<string> {
  try {
    return contentText((await model.invoke(messages, { stop: STOP, signal: ctx.signal })).content);
  } catch (err) {
    throw modelFailure(err, ctx);
  }
}

async function runXmlAgent(agent: XmlAgentInstance, ctx: RunContext): Promise<Omit<RunResult, "memoryType">> {
  const checked = await moderate(ctx.question, agent.moderations);
  if ("refusal" in checked) return { text: checked.refusal };
  const turns = agent.memory ? await agent.memory.load() : [];
  const history = turns.map((t) => `\n${t.role === "apiMessage" ? "AI" : "Human"}:${t.content}`).join("");
  const tools = JSON.stringify(agent.tools.map((t) => `${t.name}: ${t.description}`));
  const messages: BaseMessage[] = [
    new HumanMessage(filled(agent.prompt, { tools, chat_history: history, input: checked.question, agent_scratchpad: "" })),
  ];
  const byName = new Map(agent.tools.map((t) => [t.name.toLowerCase(), t]));
  const known = agent.tools.map((t) => t.name);
  const used: UsedTool[] = [];
  const answer = (text: string) => ({ text, ...(used.length ? { usedTools: used } : {}) });

  for (let steps = 0; ; steps++) {
    const reply = await ask(agent.model, messages, ctx);
    const read = readXml(reply);
    if ("final" in read) return answer(read.final);
    if (steps >= agent.maxIterations) return answer(iterationLimitMessage(agent.maxIterations));
    const tool = byName.get(read.tool.toLowerCase());
    const args = tool ? toolArgs(tool, read.input) : {};
    const observation = typeof args === "string" ? args : capped(await callTool(tool, read.tool, args, known, ctx));
    used.push({ tool: read.tool, toolInput: typeof args === "string" ? { input: read.input } : args, toolOutput: observation });
    if (tool?.returnDirect && typeof args !== "string") return answer(observation);
    messages.push(new AIMessage(reply), new HumanMessage(observation));
  }
}

export const xmlAgentNode: NodeDefinition = {
  name: "xmlAgent",
  category: "Agents",
  async build({ node, inputs }): Promise<XmlAgentInstance> {
    const label = node.data.label;
    const prompt = str(inputs.systemMessage) ?? XML_AGENT_PROMPT;
    const missing = ["tools", "agent_scratchpad"].filter((v) => !prompt.includes(`{${v}}`));
    if (missing.length)
      throw fail("INVALID_FLOW", `${label}: Provided prompt is missing required input variables: ${JSON.stringify(missing)}`);
    return {
      kind: "xmlAgent",
      model: requireChatModel(inputs.model, label),
      tools: toolsInput(inputs.tools, label),
      memory: isMemory(inputs.memory) ? inputs.memory : undefined,
      prompt,
      maxIterations: maxIterationsOf(inputs.maxIterations),
      moderations: moderationsOf(inputs.inputModeration),
    };
  },
  async run(instance, { ctx }) {
    if ((instance as { kind?: unknown })?.kind === "xmlAgent") return runXmlAgent(instance as XmlAgentInstance, ctx);
    throw fail("INVALID_FLOW", "xmlAgent was not built");
  },
  canStream: () => false,
};
