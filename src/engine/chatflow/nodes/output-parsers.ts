// Output parsers: format instructions for the prompt, then the model's text → JSON. A chain with a
// parser answers `json` (and a fenced JSON text, as Flowise stores such answers).
import { z } from "zod";
import { fail } from "../../../errors";
import { type OutputParserInstance, OutputParseError } from "../instances";
import type { NodeDefinition } from "../types";
import { ZodDslError, jsonSchemaOf, parseZodDsl } from "../../core/zod-dsl";
import { bool, num, str } from "../../core/inputs";

const CATEGORY = "Output Parsers";

/** Raw line breaks inside JSON strings escaped (models write them in long texts; LangChain does the same). */
const escapeNewlinesInStrings = (text: string) =>
  text.replace(/"((?:[^"\\]|\\.)*)"/g, (_m, inner: string) => `"${inner.replace(/\r?\n/g, "\\n")}"`);

/**
 * The JSON in a model's answer: a ```json (or plain ```) fenced block — the first that parses —,
 * the whole text, or the outermost [...] / {...}; each as is, with line breaks in strings
 * escaped, and without trailing commas.
 */
export function extractJson(text: string): unknown {
  const candidates: string[] = [];
  for (const m of text.matchAll(/```[ \t]*(?:json|JSON)?[ \t]*\r?\n?([\s\S]*?)(?:```|$)/g)) candidates.push(m[1]);
  candidates.push(text.trim());
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf("]"), text.lastIndexOf("}"));
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  for (const c of candidates) {
    const escaped = escapeNewlinesInStrings(c);
    for (const attempt of [c, escaped, escaped.replace(/,\s*([\]}])/g, "$1")]) {
      try {
        return JSON.parse(attempt);
      } catch {
        // next
      }
    }
  }
  throw new OutputParseError("the answer is not valid JSON");
}

/** LangChain's format instructions for a zod schema (StructuredOutputParser), arrays at the top level included. */
function schemaInstructions(schema: z.ZodType): string {
  return (
    `You must format your output as a JSON value that adheres to a given "JSON Schema" instance.

"JSON Schema" is a declarative language that allows you to annotate and validate JSON documents.

For example, the example "JSON Schema" instance {"properties": {"foo": {"description": "a list of test words", ` +
    `"type": "array", "items": {"type": "string"}}}, "required": ["foo"]}
would match an object with one required property, "foo". The "type" property specifies "foo" must be an "array", ` +
    `and the "description" property semantically describes it as "a list of test words". The items within "foo" must be strings.
Thus, the object {"foo": ["bar", "baz"]} is a well-formatted instance of this example "JSON Schema". The object ` +
    `{"properties": {"foo": ["bar", "baz"]}} is not well-formatted.

Your output will be parsed and type-checked according to the provided schema instance, so make sure all fields in ` +
    `your output match the schema exactly and there are no trailing commas!

Here is the JSON Schema instance your output must adhere to. Include the enclosing markdown codeblock:
\`\`\`json
${JSON.stringify(jsonSchemaOf(schema))}
\`\`\`
`
  );
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
          const items = body
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean);
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
          `Your response should be a list of ${length ? `${length} ` : ""}items separated by "${separator}" (eg: ` +
          `\`foo${separator} bar${separator} baz\`)`,
        parse(text) {
          const items = text
            .trim()
            .split(separator)
            .map((s) => s.trim())
            .filter(Boolean);
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
          throw fail("INVALID_FLOW", `${node.data.label}: jsonStructure is not valid JSON`);
        }
      }
      if (!Array.isArray(rows))
        throw fail("INVALID_FLOW", `${node.data.label}: jsonStructure must be a list of {property, type, description}`);
      const shape: Record<string, z.ZodType> = {};
      for (const row of rows as Array<Record<string, unknown>>) {
        const property = str(row?.property);
        if (!property) continue;
        const make = FIELD_TYPES[str(row.type) ?? "string"];
        if (!make) throw fail("INVALID_FLOW", `${node.data.label}: property ${property} has an unsupported type ${String(row.type)}`);
        const description = str(row.description);
        shape[property] = description ? make().describe(description) : make();
      }
      if (!Object.keys(shape).length) throw fail("INVALID_FLOW", `${node.data.label}: jsonStructure names no property`);
      return schemaParser(node.data.label, z.object(shape), bool(inputs.autofixParser));
    },
  },
  {
    // exampleJson: zod code, read by a safe parser (no eval in Workers).
    name: "advancedStructuredOutputParser",
    category: CATEGORY,
    async build({ node, inputs }): Promise<OutputParserInstance> {
      const code = str(inputs.exampleJson);
      if (!code) throw fail("INVALID_FLOW", `${node.data.label}: exampleJson (a zod schema) is empty`);
      let schema: z.ZodType;
      try {
        schema = parseZodDsl(code);
      } catch (err) {
        if (err instanceof ZodDslError)
          throw fail("INVALID_FLOW", `${node.data.label}: exampleJson is not a supported zod schema: ${err.message}`);
        throw err;
      }
      return schemaParser(node.data.label, schema, bool(inputs.autofixParser));
    },
  },
];
