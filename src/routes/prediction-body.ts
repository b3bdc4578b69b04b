import type { Context } from "hono";
import type { AppEnv } from "../env";
import { badRequest } from "../errors";
import { PredictionRequest, type PredictionInput } from "../schemas/prediction";
import { type UploadInput, decodeDataUri, isAttachedText } from "../services/runs";
import { readJsonOrForm } from "./request-body";
import { describeIssues } from "./router";

const JSON_FIELDS = ["overrideConfig", "history", "uploads", "form", "humanInput"] as const;

/** Form fields are text: the object ones carry JSON, `streaming` is "true"/"false". */
function fromForm(fields: Record<string, string>): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(fields)) {
    if ((JSON_FIELDS as readonly string[]).includes(key)) {
      try {
        raw[key] = JSON.parse(text);
      } catch {
        throw badRequest(`${key} must be JSON in a multipart body`);
      }
    } else if (key === "streaming" || key === "async") {
      raw[key] = text === "true";
    } else {
      raw[key] = text;
    }
  }
  return raw;
}

/** The prediction body, JSON or multipart (`files` become uploads), validated by the one schema. */
export async function readPredictionBody(c: Context<AppEnv>): Promise<{ input: PredictionInput; uploads: UploadInput[] }> {
  const body = await readJsonOrForm(c);
  const raw = body.kind === "json" ? body.body : fromForm(body.fields);
  const files = body.kind === "form" ? body.files : [];
  const parsed = PredictionRequest.safeParse(raw);
  if (!parsed.success) throw badRequest(`Invalid request body: ${describeIssues(parsed.error.issues)}`);

  // Decode data: URIs now, so a malformed upload is a 400 before any model is called (a URL, and a
  // file attached in full with its text, pass as they are).
  const uploads: UploadInput[] = (parsed.data.uploads ?? []).map((u) =>
    u.type === "url" || isAttachedText(u) ? { ...u } : { ...u, ...decodeDataUri(u), data: undefined },
  );
  for (const file of files) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    uploads.push({ type: "file", name: file.name, mime: file.type, bytes });
  }
  return { input: parsed.data, uploads };
}
