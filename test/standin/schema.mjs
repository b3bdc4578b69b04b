// A model that answers exactly what LangChain's format instructions ask for: for `[schema]` in the
// last user message, it reads the JSON Schema after "Here is the JSON Schema instance your output
// must adhere to" in the request's messages and answers a value that conforms to it (first enum
// value, the lower bound of a number, one item per array, every property), in a ```json block.
// Without those instructions it says so (so a test sees instructions a model could not follow).
const LEAD = "Here is the JSON Schema instance your output must adhere to";

function valueFor(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 8) return null;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ("const" in schema) return schema.const;
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return valueFor(union[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, valueFor(v, depth + 1)]));
    case "array":
      return Array.from({ length: Math.max(1, Math.min(schema.minItems ?? 1, schema.maxItems ?? 1)) }, () =>
        valueFor(schema.items, depth + 1),
      );
    case "integer":
      return 1999;
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "string":
      return "text with a line\nbreak".slice(0, schema.maxLength ?? 100);
    default:
      return null;
  }
}

export function schemaAnswer(messages, textOf) {
  const all = messages.map((m) => textOf(m.content)).join("\n");
  const at = all.indexOf(LEAD);
  if (at < 0) return "I was given no JSON Schema instance to follow.";
  const block = /```json\s*\n([\s\S]*?)\n```/.exec(all.slice(at));
  if (!block) return "The JSON Schema instance is not in a ```json block.";
  const value = valueFor(JSON.parse(block[1]));
  return `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
}
