import type { Context } from "hono";
import type { AppEnv } from "../env";
import { badRequest, unsupportedMediaType } from "../errors";
import { PredictionRequest, type PredictionInput } from "../schemas/prediction";
import { type UploadInput, decodeDataUri } from "../services/prediction/uploads";
import { describeIssues } from "./router";

const JSON_FIELDS = ["overrideConfig", "history", "uploads", "form", "humanInput"] as const;

async function fromMultipart(c: Context<AppEnv>): Promise<{ raw: Record<string, unknown>; files: File[] }> {
  let form: Record<string, string | File | (string | File)[]>;
  try {
    form = await c.req.parseBody({ all: true });
  } catch {
    throw badRequest("Malformed multipart/form-data body");
  }
  const raw: Record<string, unknown> = {};
  const files: File[] = [];
  for (const [key, value] of Object.entries(form)) {
    const values = Array.isArray(value) ? value : [value];
    if (key === "files" || key === "files[]") {
      files.push(...values.filter((v): v is File => v instanceof File));
      continue;
    }
    const text = values[0];
    if (typeof text !== "string") continue;
    if ((JSON_FIELDS as readonly string[]).includes(key)) {
      try {
        raw[key] = JSON.parse(text);
      } catch {
        throw badRequest(`${key} must be JSON in a multipart body`);
      }
    } else if (key === "streaming") {
      raw.streaming = text === "true";
    } else {
      raw[key] = text;
    }
  }
  return { raw, files };
}

/** The prediction body, JSON or multipart (`files` become uploads), validated by the one schema. */
export async function readPredictionBody(c: Context<AppEnv>): Promise<{ input: PredictionInput; uploads: UploadInput[] }> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  let raw: unknown;
  let files: File[] = [];
  if (type === "application/json" || type.endsWith("+json")) {
    try {
      raw = await c.req.json();
    } catch {
      throw badRequest("Malformed JSON in request body");
    }
  } else if (type === "multipart/form-data") {
    ({ raw, files } = await fromMultipart(c));
  } else if (!type) {
    throw badRequest("Request body is required (application/json or multipart/form-data)");
  } else {
    throw unsupportedMediaType(`Content type ${type} is not accepted: send application/json or multipart/form-data`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw badRequest("Request body must be a JSON object");
  const parsed = PredictionRequest.safeParse(raw);
  if (!parsed.success) throw badRequest(`Invalid request body: ${describeIssues(parsed.error.issues)}`);

  // Decode data: URIs now, so a malformed upload is a 400 before any model is called.
  const uploads: UploadInput[] = (parsed.data.uploads ?? []).map((u) => (u.type === "url" ? { ...u } : { ...u, ...decodeDataUri(u), data: undefined }));
  for (const file of files) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    uploads.push({ type: "file", name: file.name, mime: file.type, bytes });
  }
  return { input: parsed.data, uploads };
}
