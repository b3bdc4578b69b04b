// What the chat completions and responses requests share: message text, the fields that map to a
// flow's overrides, chatId / executionId from `metadata`, a resume's answer, and whether a flow has
// a structured output (a `response_format` / `text.format` asking for JSON needs one).
import { parseFlowData } from "../../engine";
import { isUuid } from "../../lib/ids";
import { invalidValue, unsupportedParameter } from "./errors";
import type { FlowRunInput } from "./run-flow";

/** Content parts that are text; any other part (an image, audio, a file) is refused by name: no flow here reads them. */
export function textOf(content: unknown, param: string, textTypes: readonly string[]): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  const parts = content as Array<{ type: string; text?: string; refusal?: string }>;
  return parts
    .map((part, j) => {
      if (textTypes.includes(part.type) && typeof part.text === "string") return part.text;
      if (part.type === "refusal" && typeof part.refusal === "string") return part.refusal;
      throw unsupportedParameter(`${param}[${j}]`, `Content parts of type '${part.type}' are not supported: a flow takes text`);
    })
    .join("");
}

/** OpenAI's sampling fields as the overrideConfig parameters of Flowise's chat model nodes (gated by the flow's apiConfig). */
export function samplingOverrides(
  fields: { temperature?: number | null; top_p?: number | null; maxTokens?: number | null },
  system: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields.temperature != null) out.temperature = fields.temperature;
  if (fields.top_p != null) out.topP = fields.top_p;
  // Each node family names its limit differently (chatOpenAI, Gemini and Mistral, Ollama, Anthropic).
  if (fields.maxTokens != null) out.maxTokens = out.maxOutputTokens = out.numPredict = out.maxTokensToSample = fields.maxTokens;
  // The system message inputs of Flowise's chains and agents.
  if (system) out.systemMessage = out.systemMessagePrompt = system;
  return out;
}

export interface MetadataIds {
  chatId?: string;
  executionId?: string;
}

export function metadataIds(metadata: Record<string, unknown> | null | undefined): MetadataIds {
  const out: MetadataIds = {};
  const chatId = metadata?.chatId;
  if (chatId !== undefined && chatId !== null && chatId !== "") {
    if (typeof chatId !== "string" || chatId.length > 1000)
      throw invalidValue("metadata.chatId", "metadata.chatId must be a string of at most 1000 characters");
    out.chatId = chatId;
  }
  const executionId = metadata?.executionId;
  if (executionId !== undefined && executionId !== null && executionId !== "") {
    if (typeof executionId !== "string" || !isUuid(executionId))
      throw invalidValue("metadata.executionId", "metadata.executionId must be the executionId of a paused run (a UUID)");
    out.executionId = executionId.toLowerCase();
  }
  return out;
}

/** A paused run's answer: "proceed" or "reject" (any case), else feedback text that proceeds. */
export function resumeOf(executionId: string, answer: string): NonNullable<FlowRunInput["resume"]> {
  const word = answer.trim().toLowerCase();
  if (word === "proceed" || word === "reject") return { executionId, type: word };
  return { executionId, type: "proceed", feedback: answer };
}

const CHATFLOW_PARSERS = new Set(["structuredOutputParser", "advancedStructuredOutputParser", "csvOutputParser", "customListOutputParser"]);
const AGENTFLOW_STRUCTURED = ["llmStructuredOutput", "agentStructuredOutput"];

/** Whether the flow answers structured output: an output parser (chatflows), or an LLM/Agent node with a structured output (agentflows). */
export function hasStructuredOutput(flowData: string): boolean {
  let nodes;
  try {
    nodes = parseFlowData(flowData).nodes;
  } catch {
    return false;
  }
  return nodes.some(
    (n) =>
      CHATFLOW_PARSERS.has(n.data.name) ||
      AGENTFLOW_STRUCTURED.some((k) => Array.isArray(n.data.inputs?.[k]) && (n.data.inputs[k] as unknown[]).length > 0),
  );
}

/** `tool_choice` that asks for nothing: absent, "none" or "auto" (with no tools, both mean a plain answer). */
export const harmlessToolChoice = (choice: unknown): boolean =>
  choice === undefined || choice === null || choice === "none" || choice === "auto";

/**
 * The session a chat completion or a response names (`user`, else `metadata.chatId`: the run's own
 * rule; a response continuing another is in that one's session, read later), read before the
 * flow is found so that its memory joins the look-ups' batch; a malformed chatId names none here
 * (the request's own check answers its 400).
 */
export function askedSessionOf(body: { user?: string | null; metadata?: Record<string, unknown> | null }): string | undefined {
  if (body.user) return body.user;
  const chatId = body.metadata?.chatId;
  return typeof chatId === "string" && chatId && chatId.length <= 1000 ? chatId : undefined;
}
