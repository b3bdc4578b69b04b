// customTool: a Tool saved with /tools (or given inline by the node): `schema` declares the
// arguments, `func` runs in the QuickJS sandbox (through the runtime's code port) with them as
// `$name` variables, plus `$vars` and `$flow`.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../errors";
import { checkFunctionSyntax } from "../../sandbox";
import { bool, isObject, str } from "../core/inputs";
import type { RunContext, StoredTool } from "../core/ports";
import { ZodDslError, parseZodDsl } from "../core/zod-dsl";
import { toolName } from "./names";
import type { ToolDeps } from "./types";
import { errorMessage } from "../../lib/error-message";

type Field = { property: string; type: string; description?: string; required: boolean };

function fieldSchema(field: Field, where: string): z.ZodType {
  let schema: z.ZodType;
  switch (field.type.toLowerCase()) {
    case "string":
      schema = z.string();
      break;
    case "number":
      schema = z.number();
      break;
    case "integer":
      schema = z.number().int();
      break;
    case "boolean":
      schema = z.boolean();
      break;
    case "date":
      // Flowise declares dates; the model sends them as text.
      schema = z.string().describe(`${field.description ?? ""} (a date, ISO 8601)`.trim());
      break;
    case "array":
      schema = z.array(z.any());
      break;
    case "object":
      schema = z.record(z.string(), z.any());
      break;
    default:
      throw fail(
        "INVALID_FLOW",
        `${where}: argument ${field.property} has type "${field.type}", not one of string, number, integer, boolean, date, array, object`,
      );
  }
  if (field.description && field.type.toLowerCase() !== "date") schema = schema.describe(field.description);
  return field.required ? schema : schema.optional();
}

/** Flowise's [{property, type, description, required}] (or a JSON Schema object) → fields. */
function fieldsOf(raw: string | null | undefined, where: string): Field[] {
  if (!raw?.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw fail("INVALID_FLOW", `${where}: its schema is not valid JSON (${errorMessage(err)})`);
  }
  if (isObject(parsed) && isObject(parsed.properties)) {
    const required = new Set(Array.isArray(parsed.required) ? parsed.required.map(String) : []);
    return Object.entries(parsed.properties).flatMap(([name, spec]): Field[] => {
      const property = name.trim();
      if (!property) return []; // a nameless argument is never offered to a model
      const s = isObject(spec) ? spec : {};
      return [
        {
          property,
          type: typeof s.type === "string" ? s.type : "string",
          description: typeof s.description === "string" ? s.description : undefined,
          required: required.has(name),
        },
      ];
    });
  }
  if (!Array.isArray(parsed)) throw fail("INVALID_FLOW", `${where}: its schema must be a list of {property, type, description, required}`);
  const fields = parsed.flatMap((item, n): Field[] => {
    const entry = `${where}: schema entry #${n + 1}`;
    if (!isObject(item)) throw fail("INVALID_FLOW", `${entry} must be an object {property, type, description, required}`);
    for (const key of ["property", "type", "description"] as const)
      if (item[key] !== undefined && item[key] !== null && typeof item[key] !== "string")
        throw fail("INVALID_FLOW", `${entry}: its ${key} must be text, not ${JSON.stringify(item[key])}`);
    // Flowise's Tools dialog saves the row "Add Item" makes as {property: "", type: "", …} when it is left
    // blank; Flowise keeps it and its run ignores it. It stays stored; a model never sees a nameless argument.
    const property = typeof item.property === "string" ? item.property.trim() : "";
    if (!property) return [];
    return [
      {
        property,
        type: typeof item.type === "string" && item.type ? item.type : "string",
        description: typeof item.description === "string" && item.description ? item.description : undefined,
        required: item.required === true || item.required === "true",
      },
    ];
  });
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.property)) throw fail("INVALID_FLOW", `${where}: the schema declares ${f.property} twice`);
    seen.add(f.property);
  }
  return fields;
}

/**
 * Validates a stored tool's schema (JSON) and function (parses): the message of the first problem,
 * or undefined. Used by POST/PUT /tools and when a customTool node is built.
 */
export async function toolDefinitionProblem(
  schema: string | null | undefined,
  func: string | null | undefined,
): Promise<string | undefined> {
  try {
    const fields = fieldsOf(schema, "The tool");
    for (const f of fields) fieldSchema(f, "The tool");
  } catch (err) {
    return errorMessage(err).replace(/^The tool: /, "");
  }
  if (typeof func === "string" && func.trim()) {
    const syntax = await checkFunctionSyntax(func);
    if (syntax) return `its function does not parse: ${syntax}`;
  }
  return undefined;
}

export const flowOf = (ctx: RunContext) => ({
  chatflowId: ctx.chatflowid,
  chatId: ctx.chatId,
  sessionId: ctx.sessionId,
  input: ctx.question,
});

export async function customTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<DynamicStructuredTool> {
  const id = str(inputs.selectedTool);
  const inlineFunc = str(inputs.customToolFunc);
  const inlineName = str(inputs.customToolName);
  let stored: StoredTool | undefined;
  if (id) {
    stored = await ctx.runtime.tools.get(id.toLowerCase());
    if (!stored) throw fail("INVALID_FLOW", `${label}: the tool it selects (selectedTool ${id}) does not exist`);
  } else if (!inlineFunc || !inlineName) {
    throw fail("INVALID_FLOW", `${label} needs a tool: choose one in selectedTool`);
  }
  const name = inlineName ?? stored!.name;
  const where = `${label}: tool "${name}"`;
  const func = inlineFunc ?? stored?.func ?? "";
  if (!func.trim()) throw fail("INVALID_FLOW", `${where} has no function (func)`);

  // customToolSchema (zod code, as Flowise's node takes it) wins over the stored JSON schema.
  let schema: z.ZodObject;
  let declared: string[];
  const zodCode = str(inputs.customToolSchema);
  if (zodCode) {
    let parsed: z.ZodType;
    try {
      parsed = parseZodDsl(zodCode);
    } catch (err) {
      if (err instanceof ZodDslError)
        throw fail("INVALID_FLOW", `${where}: customToolSchema is not a supported zod schema: ${err.message}`);
      throw err;
    }
    if (!(parsed instanceof z.ZodObject)) throw fail("INVALID_FLOW", `${where}: customToolSchema must be a z.object({...})`);
    schema = parsed;
    declared = Object.keys(parsed.shape);
  } else {
    const fields = fieldsOf(stored?.schema, where);
    schema = z.object(Object.fromEntries(fields.map((f) => [f.property, fieldSchema(f, where)])));
    declared = fields.map((f) => f.property);
  }

  const syntax = await checkFunctionSyntax(func);
  if (syntax) throw fail("SANDBOX_FAILED", `${where}: its function does not parse: ${syntax}`);

  return new DynamicStructuredTool({
    name: toolName(name),
    description: str(inputs.customToolDesc) ?? str(stored?.description) ?? name,
    schema,
    returnDirect: bool(inputs.customToolReturnDirect, bool(inputs.returnDirect)),
    func: async (args: Record<string, unknown>) =>
      ctx.runtime.code.run(func, { args, declared, vars: ctx.vars, flow: flowOf(ctx), signal: ctx.signal }),
  });
}
