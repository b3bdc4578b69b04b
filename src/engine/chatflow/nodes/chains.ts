// Chain nodes: the ending nodes of classic chatflows. llmChain (prompt → model → optional output
// parser; its `outputPrediction` output is the predicted answer, computed when the node is built)
// and conversationChain (system message + memory + question).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { fail } from "../../../errors";
import {
  type MemoryInstance,
  type ModerationInstance,
  type OutputParserInstance,
  OutputParseError,
  type PromptInstance,
  isMemory,
  isOutputParser,
  isPrompt,
  moderate,
  moderationsOf,
  requireChatModel,
} from "../instances";
import { imagePartsFor, withImages } from "../../core/images";
import { withPastImages } from "../../core/past-images";
import { callModel } from "../../core/llm";
import { promptMessages } from "../../core/prompting";
import { inputNode, isConnected } from "../../core/refs";
import type { NodeDefinition } from "../types";
import type { FlowGraph, FlowNode, RunResult, StreamSink } from "../../core/types";
import type { RunContext } from "../../core/ports";
import { str } from "../../core/inputs";
import { errorMessage } from "../../../lib/error-message";

const CATEGORY = "Chains";

const DEFAULT_CONVERSATION_SYSTEM =
  "The following is a friendly conversation between a human and an AI. The AI is talkative and provides lots of " +
  "specific details from its context. If the AI does not know the answer to a question, it truthfully says it does not know.";

interface LlmChainInstance {
  kind: "llmChain";
  label: string;
  model: BaseChatModel;
  prompt: PromptInstance;
  outputParser?: OutputParserInstance;
  moderations: ModerationInstance[];
}

interface ConversationChainInstance {
  kind: "conversationChain";
  label: string;
  model: BaseChatModel;
  memory?: MemoryInstance;
  systemMessage: string;
  prompt?: PromptInstance;
  moderations: ModerationInstance[];
}

type Answer = Omit<RunResult, "memoryType">;

/** A chain streams when its model's `streaming` input is not false and no output parser is attached. */
export function chainCanStream(node: FlowNode, graph: FlowGraph): boolean {
  const model = inputNode(graph, node, "model");
  if (!model) return false;
  const streaming = model.data.inputs?.streaming;
  if (streaming === false || streaming === "false") return false;
  return !isConnected(node, "outputParser");
}

const fenced = (json: unknown) => `\`\`\`json\n${JSON.stringify(json, null, 2)}\n\`\`\``;

const fixPrompt = (instructions: string, completion: string, error: string) =>
  [
    "Instructions:",
    "--------------",
    instructions,
    "--------------",
    "Completion:",
    "--------------",
    completion,
    "--------------",
    "",
    "The completion above does not satisfy the instructions.",
    "Error:",
    "--------------",
    error,
    "--------------",
    "",
    "Try again. Answer only with a response that satisfies the instructions above:",
  ].join("\n");

async function parseAnswer(chain: LlmChainInstance, parser: OutputParserInstance, text: string, ctx: RunContext): Promise<Answer> {
  const failed = (err: unknown) => fail("MODEL_FAILED", `${parser.label}: the model's answer does not fit: ${errorMessage(err)}`);
  try {
    const { json } = parser.parse(text);
    return { text: fenced(json), json };
  } catch (err) {
    if (!(err instanceof OutputParseError)) throw err;
    if (!parser.autofix) throw failed(err);
    const retry = await callModel(chain.model, [new HumanMessage(fixPrompt(parser.formatInstructions(), text, err.message))], ctx);
    try {
      const { json } = parser.parse(retry);
      return { text: fenced(json), json };
    } catch (again) {
      if (again instanceof OutputParseError) throw failed(again);
      throw again;
    }
  }
}

async function runLlmChain(chain: LlmChainInstance, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const checked = await moderate(ctx.question, chain.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  const parser = chain.outputParser;
  const messages = withImages(
    await promptMessages(chain.prompt, checked.question, parser?.formatInstructions()),
    imagePartsFor(chain.model, ctx.uploads, ctx.runtime.maxUploadBytes),
  );
  const text = await callModel(chain.model, messages, ctx, parser ? undefined : sink);
  return parser ? parseAnswer(chain, parser, text, ctx) : { text };
}

async function runConversationChain(chain: ConversationChainInstance, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const checked = await moderate(ctx.question, chain.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  const history = chain.memory ? await withPastImages(await chain.memory.messages(), chain.model, ctx) : [];
  let messages: BaseMessage[];
  if (chain.prompt) {
    const formatted = await promptMessages(chain.prompt, checked.question);
    const system = formatted.filter((m) => m.getType() === "system");
    messages = [...system, ...history, ...formatted.filter((m) => m.getType() !== "system")];
  } else {
    messages = [new SystemMessage(chain.systemMessage), ...history, new HumanMessage(checked.question)];
  }
  messages = withImages(messages, imagePartsFor(chain.model, ctx.uploads, ctx.runtime.maxUploadBytes));
  return { text: await callModel(chain.model, messages, ctx, sink) };
}

const isLlmChain = (v: unknown): v is LlmChainInstance => !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "llmChain";
const isConversationChain = (v: unknown): v is ConversationChainInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "conversationChain";

export const chainNodes: NodeDefinition[] = [
  {
    name: "llmChain",
    category: CATEGORY,
    async build({ node, inputs, ctx, output, ending }) {
      const label = node.data.label;
      const prompt = inputs.prompt;
      if (!isPrompt(prompt)) throw fail("INVALID_FLOW", `${label} needs a prompt template connected to its prompt input`);
      const parser = inputs.outputParser;
      if (parser !== undefined && parser !== "" && parser !== null && !isOutputParser(parser)) {
        throw fail("INVALID_FLOW", `${label}: its outputParser input is not an output parser`);
      }
      const chain: LlmChainInstance = {
        kind: "llmChain",
        label,
        model: requireChatModel(inputs.model, label),
        prompt,
        outputParser: isOutputParser(parser) ? parser : undefined,
        moderations: moderationsOf(inputs.inputModeration),
      };
      if (output === "outputPrediction" && !ending) {
        // Feeds another node (e.g. a prompt's promptValues): the answer to the question, now.
        const answer = await runLlmChain(chain, ctx);
        return answer.json ?? answer.text;
      }
      return chain;
    },
    async run(instance, { ctx, sink }) {
      if (isLlmChain(instance)) return runLlmChain(instance, ctx, sink);
      throw fail("INVALID_FLOW", "LLM Chain was not built");
    },
    canStream: chainCanStream,
  },
  {
    name: "conversationChain",
    category: CATEGORY,
    async build({ node, inputs }): Promise<ConversationChainInstance> {
      const label = node.data.label;
      const prompt = isPrompt(inputs.chatPromptTemplate) ? inputs.chatPromptTemplate : undefined;
      return {
        kind: "conversationChain",
        label,
        model: requireChatModel(inputs.model, label),
        memory: isMemory(inputs.memory) ? inputs.memory : undefined,
        systemMessage: str(inputs.systemMessagePrompt) ?? DEFAULT_CONVERSATION_SYSTEM,
        prompt,
        moderations: moderationsOf(inputs.inputModeration),
      };
    },
    async run(instance, { ctx, sink }) {
      if (isConversationChain(instance)) return runConversationChain(instance, ctx, sink);
      throw fail("INVALID_FLOW", "Conversation Chain was not built");
    },
    canStream: chainCanStream,
  },
];
