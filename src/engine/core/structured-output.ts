// What the two kinds of structured output share — the agentflow LLM/Agent nodes' rows
// (../agentflow/structured.ts) and the chatflow metadata retriever's (../chatflow/nodes/retrievers/
// metadata.ts): a row's zod field, the model made to call the one function whose parameters are
// the schema, and its answer checked against the schema (a 502 naming what does not fit).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { fail } from "../../errors";

/** The row types both kinds know, by the agentflow's names. */
export type RowKind = "stringArray" | "number" | "boolean" | "enum";

/**
 * A row's zod field by its kind (any other kind: a string); an enum's values are `enumValues`
 * split at commas, and an enum without any is `emptyEnum`.
 */
export function rowField(kind: unknown, enumValues: unknown, emptyEnum: z.ZodType): z.ZodType {
  switch (kind) {
    case "stringArray":
      return z.array(z.string());
    case "number":
      return z.number();
    case "boolean":
      return z.boolean();
    case "enum": {
      const values = String(enumValues ?? "")
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean);
      return values.length ? z.enum(values as [string, ...string[]]) : emptyEnum;
    }
    default:
      return z.string();
  }
}

/** The field with the row's description, when it has one. */
export const described = (field: z.ZodType, description: unknown): z.ZodType =>
  typeof description === "string" && description ? field.describe(description) : field;

/** The model's answer when made to call `tool` (its parameters the JSON schema); the model must bind tools. */
export async function invokeForcedTool(
  model: BaseChatModel,
  messages: BaseMessage[],
  tool: { name: string; description: string },
  parameters: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<AIMessage> {
  const fn = { type: "function", function: { name: tool.name, description: tool.description, parameters } };
  if (typeof model.bindTools !== "function") throw new TypeError("the chat model cannot call functions");
  const bound = model.bindTools([fn], { tool_choice: { type: "function", function: { name: tool.name } } } as never);
  return (await bound.invoke(messages, { signal })) as AIMessage;
}

/** `value` as the schema reads it; else a 502 whose message `failure` makes of the first problems. */
export function fittingValue(schema: z.ZodObject, value: unknown, failure: (problems: string) => string): Record<string, unknown> {
  const checked = schema.safeParse(value);
  if (checked.success) return checked.data as Record<string, unknown>;
  const problems = checked.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
  throw fail("MODEL_FAILED", failure(problems));
}
