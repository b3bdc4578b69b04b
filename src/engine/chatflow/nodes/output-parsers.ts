// Output parsers: format instructions for the prompt, then the model's text → JSON. A chain with a
// parser answers `json` (and a fenced JSON text, as Flowise stores such answers).
import { z } from "zod";
import { badRequest } from "../../../errors";
import { type OutputParserInstance, OutputParseError } from "../instances";
import type { NodeDefinition } from "../types";
import { ZodDslError, jsonSchemaOf, parseZodDsl } from "../../core/zod-dsl";
import { bool, num, str } from "../../core/inputs";

const CATEGORY = "Output Parsers";

/** The JSON in a model's answer: a fenced block, the whole text, or the outermost [...] / {...}. */
export function extractJson(text: string): unknown {
  const candidates: string[] = [];
  const fenced = /```(?:json|JSON)?[^\n]*\n([\s\S]*?)(?:```|$)/.exec(text);
  if (fenced) candidates.push(fenced[1]);
  candidates.push(text.trim());
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf("]"), text.lastIndexOf("}"));
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  for (const c of candidates) {
    for (const attempt of [c, c.replace(/,\s*([\]}])/g, "$1")]) {
      try {
        return JSON.parse(attempt);
      } catch {
        // next
      }
    }
  }
  throw new OutputParseError("the answer is not valid JSON");
}

function schemaInstructions(schema: z.ZodType): string {
  return [
    "Respond only with a JSON value inside a ```json code block. The value must conform to this JSON Schema:",
    "```json",
    JSON.stringify(jsonSchemaOf(schema)),
    "```",
    'The schema describes the value; do not repeat the schema itself. For example, for the schema {"type":"object","properties":{"foo":{"type":"array","items":{"type":"string"}}},"required":["foo"]} the value {"foo":["bar","baz"]} conforms.',
    "Every field must match the schema exactly; no comments, no trailing commas.",
  ].join("\n");
}

function schemaParser(label: string, schema: z.ZodType, autofix: boolean): OutputParserInstance {
  const instructions = schemaInstructions(schema);
  return {
    kind: "outputParser",
    label,
    autofix,
    formatInstructions: () => instructions,
    parse(text) {
      const value = extractJson(text);
      const checked = schema.safeParse(value);
      if (!checked.success) {
        const issues = checked.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`);
        throw new OutputParseError(`the JSON does not match the schema: ${issues.join("; ")}`);
      }
      return { json: checked.data };
    },
  };
}

const FIELD_TYPES: Record<string, () => z.ZodType> = {
  string: () => z.string(),
  number: () => z.number(),
  boolean: () => z.boolean(),
  "string[]": () => z.array(z.string()),
  "number[]": () => z.array(z.number()),
};

export const outputParserNodes: NodeDefinition[] = [
  {
    name: "csvOutputParser",
    category: CATEGORY,
    async build({ node, inputs }): Promise<OutputParserInstance> {
      return {
        kind: "outputParser",
        label: node.data.label,
        autofix: bool(inputs.autofixParser),
        formatInstructions: () => "Your response should be a list of comma separated values, eg: `foo, bar, baz`",
        parse(text) {
          const body = text.replace(/^```[^\n]*\n?|```\s*$/g, "").trim();
          const items = body.split(",").map((s) => s.trim()).filter(Boolean);
          if (!items.length) throw new OutputParseError("the answer holds no comma separated values");
          return { json: items };
        },
      };
    },
  },
  {
    name: "customListOutputParser",
    category: CATEGORY,
    async build({ node, inputs }): Promise<OutputParserInstance> {
      const separator = typeof inputs.separator === "string" && inputs.separator ? inputs.separator.replace(/\\n/g, "\n") : ",";
      const length = num(inputs.length);
      return {
        kind: "outputParser",
        label: node.data.label,
        autofix: bool(inputs.autofixParser),
        formatInstructions: () =>
          `Your response should be a list of ${length ? `${length} ` : ""}items separated by "${separator}" (eg: \`foo${separator} bar${separator} baz\`)`,
        parse(text) {
          const items = text.trim().split(separator).map((s) => s.trim()).filter(Boolean);
          if (length && items.length !== length) throw new OutputParseError(`expected ${length} items, got ${items.length}`);
          return { json: items };
        },
      };
    },
  },
  {
    // jsonStructure: a datagrid [{property, type, description}] (a JSON string or an array).
    name: "structuredOutputParser",
    category: CATEGORY,
    async build({ node, inputs }): Promise<OutputParserInstance> {
      let rows: unknown = inputs.jsonStructure;
      if (typeof rows === "string") {
        try {
          rows = rows.trim() ? JSON.parse(rows) : [];
        } catch {
          throw badRequest(`${node.data.label}: jsonStructure is not valid JSON`);
        }
      }
      if (!Array.isArray(rows)) throw badRequest(`${node.data.label}: jsonStructure must be a list of {property, type, description}`);
      const shape: Record<string, z.ZodType> = {};
      for (const row of rows as Array<Record<string, unknown>>) {
        const property = str(row?.property);
        if (!property) continue;
        const make = FIELD_TYPES[str(row.type) ?? "string"];
        if (!make) throw badRequest(`${node.data.label}: property ${property} has an unsupported type ${String(row.type)}`);
        const description = str(row.description);
        shape[property] = description ? make().describe(description) : make();
      }
      if (!Object.keys(shape).length) throw badRequest(`${node.data.label}: jsonStructure names no property`);
      return schemaParser(node.data.label, z.object(shape), bool(inputs.autofixParser));
    },
  },
  {
    // exampleJson: zod code, read by a safe parser (no eval in Workers).
    name: "advancedStructuredOutputParser",
    category: CATEGORY,
    async build({ node, inputs }): Promise<OutputParserInstance> {
      const code = str(inputs.exampleJson);
      if (!code) throw badRequest(`${node.data.label}: exampleJson (a zod schema) is empty`);
      let schema: z.ZodType;
      try {
        schema = parseZodDsl(code);
      } catch (err) {
        if (err instanceof ZodDslError) throw badRequest(`${node.data.label}: exampleJson is not a supported zod schema: ${err.message}`);
        throw err;
      }
      return schemaParser(node.data.label, schema, bool(inputs.autofixParser));
    },
  },
];
