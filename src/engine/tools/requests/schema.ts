// The argument schemas of the requests tools, from Flowise's JSON descriptions
// ({"name": {"type", "description", "required", "in"}}): query/path parameters for GET and DELETE,
// body fields for POST and PUT. Without one, the model may send any string map / object.
import { z } from "zod";
import { fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";

export type ParamSpec = { type?: string; description?: string; required?: boolean; in?: string };

/** A schema input (JSON text or an object) as {name: spec}; a broken one is the node's 400. */
export function paramSpecs(raw: unknown, where: string): Record<string, ParamSpec> | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  let parsed = raw;
  if (typeof raw === "string") {
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw fail("INVALID_FLOW", `${where} is not valid JSON (${errorMessage(err)})`);
    }
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw fail("INVALID_FLOW", `${where} must be a JSON object of {name: {type, description, required}}`);
  const specs = parsed as Record<string, ParamSpec>;
  return Object.keys(specs).length ? specs : undefined;
}

const described = (t: z.ZodType, spec: ParamSpec) => {
  const d = spec.description ? t.describe(spec.description) : t;
  return spec.required ? d : d.optional();
};

/** GET/DELETE: {queryParams}; typed values arrive as text (Flowise converts numbers and booleans). */
export function querySchema(specs: Record<string, ParamSpec> | undefined) {
  if (!specs)
    return z.object({
      queryParams: z.record(z.string(), z.string()).optional().describe("Optional query parameters to include in the request"),
    });
  const shape = Object.fromEntries(
    Object.entries(specs).map(([k, s]) => [k, described(z.union([z.string(), z.number(), z.boolean()]), s)]),
  );
  return z.object({ queryParams: z.object(shape).optional().describe("Query parameters for the request") });
}

/** POST/PUT: {body}. */
export function bodySchema(specs: Record<string, ParamSpec> | undefined) {
  if (!specs) return z.object({ body: z.record(z.string(), z.any()).optional().describe("Optional body data to include in the request") });
  const typeOf = (t?: string): z.ZodType =>
    t === "number"
      ? z.number()
      : t === "boolean"
        ? z.boolean()
        : t === "object"
          ? z.record(z.string(), z.any())
          : t === "array"
            ? z.array(z.any())
            : z.string();
  const shape = Object.fromEntries(Object.entries(specs).map(([k, s]) => [k, described(typeOf(s.type), s)]));
  return z.object({ body: z.object(shape).describe("Request body parameters") });
}

/**
 * The URL with the model's parameters: `in: "path"` ones replace `:name` (or are appended as path
 * segments), the rest go to the query string.
 */
export function urlWith(base: string, params: Record<string, unknown> | undefined, specs: Record<string, ParamSpec> | undefined): string {
  let url = base;
  const query: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined || value === null) continue;
    const spec = specs?.[key];
    if (specs && !spec) continue;
    if (spec?.in === "path") {
      const placeholder = new RegExp(`:${key.replace(/[^\w-]/g, "")}\\b`, "g");
      url = placeholder.test(url)
        ? url.replace(placeholder, encodeURIComponent(String(value)))
        : `${url.replace(/\/$/, "")}/${encodeURIComponent(String(value))}`;
    } else query.push([key, String(value)]);
  }
  if (!query.length) return url;
  const u = new URL(url);
  for (const [k, v] of query) u.searchParams.append(k, v);
  return u.toString();
}
