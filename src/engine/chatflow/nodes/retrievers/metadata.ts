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
import { jsonSchemaOf } from "../../../core/zod-dsl";

const TOOL = { name: "extract", description: "A function available to call." };

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
    let field: z.ZodType;
    switch (row.type) {
      case "String Array":
        field = z.array(z.string());
        break;
      case "Number":
        field = z.number();
        break;
      case "Boolean":
        field = z.boolean();
        break;
      case "Enum": {
        const values = String(row.enumValues ?? "")
          .split(",")
          .map((v) => v.trim())
          .filter(Boolean);
        field = values.length ? z.enum(values as [string, ...string[]]) : z.string();
        break;
      }
      default:
        field = z.string();
    }
    shape[String(row.key).trim()] = typeof row.description === "string" && row.description ? field.describe(row.description) : field;
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
    const fn = { type: "function", function: { ...TOOL, parameters: jsonSchemaOf(schema) } };
    const bound = model.bindTools([fn], { tool_choice: { type: "function", function: { name: TOOL.name } } } as never);
    reply = (await bound.invoke(messages, { signal: ctx.signal })) as AIMessage;
  } catch (err) {
    throw modelFailure(err, ctx);
  }
  const call = reply.tool_calls?.[0];
  if (!call) throw fail("MODEL_FAILED", `${label}: the model answered without the metadata: ${contentText(reply.content).slice(0, 300)}`);
  const checked = schema.safeParse(call.args);
  if (!checked.success) {
    const problems = checked.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      .join("; ");
    throw fail(
      "MODEL_FAILED",
      `${label}: the metadata the model answered does not fit (${problems}): ${JSON.stringify(call.args).slice(0, 300)}`,
    );
  }
  return checked.data as Record<string, unknown>;
}
