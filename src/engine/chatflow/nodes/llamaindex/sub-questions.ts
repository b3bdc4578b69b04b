// LlamaIndex's LLMQuestionGenerator: the model is shown the tools and the question and lists
// sub-questions as JSON ([{subQuestion, toolName}, …]), read the way LlamaIndex reads it.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { fail } from "../../../../errors";
import { callModel } from "../../../core/llm";
import type { RunContext } from "../../../core/ports";
import { subQuestionPrompt, toolsText } from "./prompts";

export interface SubQuestion {
  subQuestion: string;
  toolName: string;
}

/**
 * LlamaIndex's parseJsonMarkdown: from the first `[` (when it comes before the first `{`) to the
 * last `]`, else from the first `{` to the last `}` (one object becomes a list of one).
 */
function parseJsonMarkdown(text: string): unknown[] | undefined {
  const t = text.trim();
  const square = t.indexOf("[");
  const brace = t.indexOf("{");
  const list = square !== -1 && (brace === -1 || square < brace);
  const json = list ? t.slice(square, t.lastIndexOf("]") + 1) : brace === -1 ? "" : t.slice(brace, t.lastIndexOf("}") + 1);
  try {
    const parsed: unknown = JSON.parse(json);
    if (!list) return [parsed];
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const isSubQuestion = (v: unknown): v is SubQuestion =>
  !!v && typeof v === "object" && typeof (v as SubQuestion).subQuestion === "string" && typeof (v as SubQuestion).toolName === "string";

/** The sub-questions the model proposes for `query`; an answer that is not that JSON is a 502 naming the node. */
export async function generateSubQuestions(
  model: BaseChatModel,
  tools: Array<{ name: string; description: string }>,
  query: string,
  ctx: RunContext,
  label: string,
): Promise<SubQuestion[]> {
  const text = await callModel(model, [new HumanMessage(subQuestionPrompt(toolsText(tools), query))], ctx);
  const items = parseJsonMarkdown(text);
  if (!items?.every(isSubQuestion)) {
    const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw fail(
      "MODEL_FAILED",
      `${label}: the model's sub-questions are not a JSON list of {subQuestion, toolName}: ${JSON.stringify(shown)}`,
    );
  }
  return items;
}
