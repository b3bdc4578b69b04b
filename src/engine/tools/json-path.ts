// jsonPathExtractor (Flowise's JSON Path Extractor, tool `json_path_extractor`): the value at a
// configured path (lodash `get` paths: `data`, `user.name`, `items[0].id`, `a["b.c"]`) of the JSON
// the model passes (text or a value). Strings come back as they are, anything else as JSON; a path
// that finds nothing (or text that is not JSON) fails the call, or answers "null" with
// returnNullOnError.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../errors";
import { bool, str } from "../core/inputs";
import type { ToolDeps } from "./types";

const PART = /[^.[\]]+|\[(?:(-?\d+)|(["'])((?:(?!\2)[^\\]|\\.)*?)\2)\]/g;

/** A lodash-style path's keys: dots and brackets, quoted keys unescaped. */
export function pathKeys(path: string): string[] {
  const keys: string[] = [];
  for (const m of path.matchAll(PART)) {
    if (m[1] !== undefined) keys.push(m[1]);
    else if (m[3] !== undefined) keys.push(m[3].replace(/\\(.)/g, "$1"));
    else keys.push(m[0]);
  }
  return keys;
}

/** lodash `get`: a key that exists as written wins; else the path's keys, one after another. */
export function valueAt(data: unknown, path: string): unknown {
  if (data !== null && typeof data === "object" && Object.hasOwn(data, path)) return (data as Record<string, unknown>)[path];
  let value: unknown = data;
  for (const key of pathKeys(path)) {
    if (value === null || value === undefined || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export async function jsonPathExtractor(inputs: Record<string, unknown>, { label }: ToolDeps): Promise<DynamicStructuredTool> {
  const path = str(inputs.path);
  if (!path) throw fail("INVALID_FLOW", `${label}: JSON Path is required`);
  const nullOnError = bool(inputs.returnNullOnError);
  const failed = (message: string) => {
    if (nullOnError) return "null";
    throw new Error(message);
  };
  return new DynamicStructuredTool({
    name: "json_path_extractor",
    description: "Extract value from JSON using configured path",
    schema: z.object({
      json: z
        .union([
          z.string().describe("JSON string"),
          z.record(z.string(), z.any()).describe("JSON object"),
          z.array(z.any()).describe("JSON array"),
        ])
        .describe("JSON data to extract value from"),
    }),
    func: async ({ json }) => {
      let data: unknown = json;
      if (typeof json === "string") {
        try {
          data = JSON.parse(json);
        } catch (err) {
          return failed(`Invalid JSON string: ${err instanceof Error ? err.message : "Parse error"}`);
        }
      }
      const value = valueAt(data, path);
      if (value === undefined) {
        const preview = JSON.stringify(data, null, 2) ?? "";
        return failed(`Path "${path}" not found in JSON. Received: ${preview.length > 200 ? `${preview.slice(0, 200)}...` : preview}`);
      }
      return typeof value === "string" ? value : JSON.stringify(value);
    },
  });
}
