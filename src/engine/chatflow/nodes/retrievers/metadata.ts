// extractMetadataRetriever's structured output: Flowise's rows {key, type (String, String Array,
// Number, Boolean, Enum), enumValues, description} as a zod object, and the model made to call one
// function (`extract`, as LangChain's withStructuredOutput names it) whose arguments are the filter.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessage, HumanMessage } from "@langchain/core/messages";
import { z } from "zod";
import { fail } from "../../../../errors";
import { contentText } from "../../../../providers/chat/messages";
import { modelFailure } from "../../../core/errors";
import type { RunContext } from "../../../core/ports";
import { type RowKind, described, fittingValue, invokeForcedTool, rowField } from "../../../core/structured-output";
import { jsonSchemaOf } from "../../../core/zod-dsl";

const TOOL = { name: "extract", description: "A function available to call." };
/** Flowise's row types, by the names the shared field builder knows. */
const KINDS = new Map<unknown, RowKind>([
  ["String Array", "stringArray"],
  ["Number", "number"],
  ["Boolean", "boolean"],
  ["Enum", "enum"],
]);

/** The rows' schema; undefined when no row has a key. A value that is not a list of rows is a 400. */
export function metadataSchema(raw: unknown, label: string): z.ZodObject | undefined {
  let rows: unknown = raw;
  if (typeof raw === "string") {
    try {
      rows = raw.trim() ? JSON.parse(raw) : [];
    } catch {
      throw fail("INVALID_FLOW", `${label}: its JSON Structured Output is not a list of rows`);
    }
  }
  const list = (Array.isArray(rows) ? rows : []).filter(
    (r): r is Record<string, unknown> => !!r && typeof r === "object" && typeof r.key === "string" && !!r.key.trim(),
  );
  if (!list.length) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const row of list) {
    const field = rowField(KINDS.get(row.type), row.enumValues, z.string());
    shape[String(row.key).trim()] = described(field, row.description);
  }
  return z.object(shape);
}

/** The filter the model extracts from `prompt`; 502 when its answer is not an object fitting the schema. */
export async function extractFilter(
  model: BaseChatModel,
  prompt: string,
  schema: z.ZodObject,
  label: string,
  ctx: RunContext,
): Promise<Record<string, unknown>> {
  const messages = [new HumanMessage(prompt)];
  let reply: AIMessage;
  try {
    if (typeof model.bindTools !== "function") throw fail("INVALID_FLOW", `${label}: its chat model cannot call functions`);
    reply = await invokeForcedTool(model, messages, TOOL, jsonSchemaOf(schema), ctx.signal);
  } catch (err) {
    throw modelFailure(err, ctx);
  }
  const call = reply.tool_calls?.[0];
  if (!call) throw fail("MODEL_FAILED", `${label}: the model answered without the metadata: ${contentText(reply.content).slice(0, 300)}`);
  return fittingValue(
    schema,
    call.args,
    (problems) => `${label}: the metadata the model answered does not fit (${problems}): ${JSON.stringify(call.args).slice(0, 300)}`,
  );
}
