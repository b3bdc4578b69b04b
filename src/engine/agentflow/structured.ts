// Structured output of the LLM and Agent nodes (`llmStructuredOutput` rows {key, type, enumValues,
// jsonSchema, description}): the model is made to call one function whose parameters are the
// schema (tool calling, as Flowise's withStructuredOutput does); a model without tool calling, or
// one that answers in text, is asked for / read as a JSON object. The answer is checked against
// the schema: one that does not parse or fit is a clear 502 naming what is wrong.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessage, type BaseMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod";
import { fail } from "../../errors";
import { contentText } from "../../providers/chat/messages";
import { modelFailure } from "../core/errors";
import { described, fittingValue, invokeForcedTool, rowField } from "../core/structured-output";
import { jsonSchemaOf } from "../core/zod-dsl";
import { errorMessage, isObject, listOf } from "./util";

const STRUCTURED_TOOL = "structured_output";

interface Row {
  key?: unknown;
  type?: unknown;
  enumValues?: unknown;
  jsonSchema?: unknown;
  description?: unknown;
}

/** Flowise's createZodSchemaFromJSON: `{field: {type, description, items?, properties?, optional?}}`. */
function fromJsonSpec(spec: unknown): z.ZodType {
  if (!isObject(spec)) return z.any();
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value] of Object.entries(spec)) {
    let field: z.ZodType;
    if (value === null) field = z.null();
    else if (Array.isArray(value)) field = z.array(value.length ? fromJsonSpec(value[0]) : z.any());
    else if (isObject(value) && typeof value.type === "string") {
      const description = typeof value.description === "string" ? value.description : "";
      switch (value.type) {
        case "string":
          field = z.string();
          break;
        case "number":
          field = z.number();
          break;
        case "boolean":
          field = z.boolean();
          break;
        case "array":
          field = z.array(value.items ? fromJsonSpec(value.items) : z.any());
          break;
        case "object":
          field = value.properties ? fromJsonSpec(value.properties) : z.record(z.string(), z.any());
          break;
        default:
          field = z.any();
      }
      if (description) field = field.describe(description);
      if (value.optional === true) field = field.optional();
    } else if (isObject(value)) field = fromJsonSpec(value);
    else
      field =
        typeof value === "number"
          ? z.number()
          : typeof value === "boolean"
            ? z.boolean()
            : typeof value === "string"
              ? z.string()
              : z.any();
    shape[key] = field;
  }
  return z.object(shape);
}

/** The zod object of the rows; undefined when there are none. */
export function structuredSchema(raw: unknown, owner: string): z.ZodObject | undefined {
  const rows = listOf<Row>(raw).filter((r) => typeof r.key === "string" && r.key.trim());
  if (!rows.length) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const row of rows) {
    const key = String(row.key).trim();
    let field: z.ZodType;
    if (row.type === "jsonArray") {
      let item: z.ZodType = z.record(z.string(), z.any());
      if (typeof row.jsonSchema === "string" && row.jsonSchema.trim()) {
        try {
          item = fromJsonSpec(JSON.parse(row.jsonSchema));
        } catch (err) {
          throw fail("INVALID_FLOW", `${owner}: the JSON schema of structured output ${key} is not valid JSON (${errorMessage(err)})`);
        }
      }
      field = z.array(item);
    } else field = rowField(row.type, row.enumValues, z.enum(["default"]));
    shape[key] = described(field, row.description);
  }
  return z.object(shape);
}

/** The first JSON object in a text (fenced or bare). */
function jsonIn(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidate = (fenced ? fenced[1] : text).trim();
  const start = candidate.indexOf("{");
  const end = candidate.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object in it");
  return JSON.parse(candidate.slice(start, end + 1));
}

export interface StructuredAnswer {
  value: Record<string, unknown>;
  message: AIMessage;
}

/** Asks the model for an object fitting `schema`; 502 when its answer does not parse or fit. */
export async function invokeStructured(
  model: BaseChatModel,
  messages: BaseMessage[],
  schema: z.ZodObject,
  owner: string,
  signal: AbortSignal,
  tool = { name: STRUCTURED_TOOL, description: "Give the answer in this structure." },
): Promise<StructuredAnswer> {
  const parameters = jsonSchemaOf(schema);
  let reply: AIMessage;
  try {
    if (typeof model.bindTools === "function") {
      reply = await invokeForcedTool(model, messages, tool, parameters, signal);
    } else {
      const instruction = new SystemMessage(`Answer with one JSON object only, matching this JSON schema:\n${JSON.stringify(parameters)}`);
      reply = (await model.invoke([...messages, instruction], { signal })) as AIMessage;
    }
  } catch (err) {
    throw modelFailure(err, { signal });
  }
  const call = (reply.tool_calls ?? []).find((c) => c.name === tool.name) ?? reply.tool_calls?.[0];
  let value: unknown;
  if (call) value = call.args;
  else {
    const text = contentText(reply.content);
    try {
      value = jsonIn(text);
    } catch (err) {
      throw fail("MODEL_FAILED", `${owner}: the model's structured output does not parse (${errorMessage(err)}): ${text.slice(0, 300)}`);
    }
  }
  const fitting = fittingValue(
    schema,
    value,
    (problems) => `${owner}: the model's structured output does not fit the schema (${problems}): ${JSON.stringify(value).slice(0, 300)}`,
  );
  return { value: fitting, message: reply };
}
