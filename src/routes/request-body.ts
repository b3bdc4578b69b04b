import type { Context } from "hono";
import type { AppEnv } from "../env";
import { badRequest, unsupportedMediaType } from "../errors";
import { jsonTooDeep, tooDeepMessage } from "../lib/json-depth";

export type JsonOrForm = { kind: "json"; body: Record<string, unknown> } | { kind: "form"; fields: Record<string, string>; files: File[] };

/**
 * The body of an endpoint that takes JSON or multipart/form-data (prediction, upserts): a JSON
 * object, or the form's text fields (first value of each) and its `files`. 400 for a missing or
 * malformed body, 415 for any other content type.
 */
export async function readJsonOrForm(c: Context<AppEnv>): Promise<JsonOrForm> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw badRequest("Malformed JSON in request body");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("Request body must be a JSON object");
    if (jsonTooDeep(body)) throw badRequest(tooDeepMessage("The request body"));
    return { kind: "json", body: body as Record<string, unknown> };
  }
  if (type === "multipart/form-data") {
    let form: Record<string, string | File | (string | File)[]>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      throw badRequest("Malformed multipart/form-data body");
    }
    const fields: Record<string, string> = {};
    const files: File[] = [];
    for (const [key, value] of Object.entries(form)) {
      const values = Array.isArray(value) ? value : [value];
      if (key === "files" || key === "files[]") files.push(...values.filter((v): v is File => v instanceof File));
      else if (typeof values[0] === "string") fields[key] = values[0];
    }
    return { kind: "form", fields, files };
  }
  if (!type) throw badRequest("Request body is required (application/json or multipart/form-data)");
  throw unsupportedMediaType(`Content type ${type} is not accepted: send application/json or multipart/form-data`);
}

/**
 * A JSON body the handler validates itself, so that a missing field is named in the service's own
 * words (Flowise's): {} when there is none, a 400 when it is not JSON.
 */
export async function jsonBodyOrEmpty(c: Context<AppEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("Request body is not valid JSON");
  }
}

/** The OpenAPI request body of such a route: the registered schema `name`, by reference. */
export const documentedBody = (name: string, required: boolean) =>
  ({ required, content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } }) as never;
