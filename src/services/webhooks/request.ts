// A webhook request read the way Flowise 3.1.4 reads it (dist/controllers/webhook,
// dist/services/webhook): the body by its content type (a form whose `payload` field holds JSON —
// GitHub's form-encoded webhooks — is that JSON), then the Start node's checks in Flowise's order
// — method (405), content type (415), required headers, body parameters and their types, query
// parameters (400 naming each) — and what the flow sees of it: `$webhook.body`, `.headers` (with
// credentials redacted), `.query`, and the question made from the Start node's input mode.
import { ApiError, badRequest, unsupportedMediaType } from "../../errors";
import { plainText } from "../../engine/agentflow/html";
import type { WebhookPayload } from "../../engine/agentflow/types";
import type { StartWebhook, WebhookParam } from "./start-webhook";

/** The request as the route read it: header names lower-case, the raw body for the signature. */
export interface WebhookRequest {
  method: string;
  headers: Record<string, string>;
  query: Record<string, string | string[]>;
  rawBody: Uint8Array;
}

// Flowise's redactSensitiveHeaders (flowise-components headerValidation.js); the signature header
// is added by the caller (with a plain token it is the secret itself).
const SENSITIVE_HEADERS = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-auth-token",
  "x-amz-security-token",
];
export const REDACTED = "[REDACTED]";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A query string or form body as an object: a repeated key is an array, as Express reads it. */
export function fieldsOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

/** The body by its content type: JSON (400 when it is not), a form (its JSON `payload` unwrapped), else the text; {} when empty. */
export function parseBody(request: WebhookRequest): unknown {
  if (!request.rawBody.length) return {};
  const type = (request.headers["content-type"] ?? "").toLowerCase();
  const text = new TextDecoder().decode(request.rawBody);
  if (type.startsWith("application/json") || /^application\/[^;]*\+json/.test(type)) {
    try {
      return JSON.parse(text);
    } catch {
      throw badRequest("Request body is not valid JSON (Content-Type says application/json)");
    }
  }
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const form = fieldsOf(new URLSearchParams(text));
    if (typeof form.payload === "string") {
      try {
        return JSON.parse(form.payload);
      } catch {
        // Flowise leaves the form as it is when `payload` is not JSON.
      }
    }
    return form;
  }
  return text;
}

/** Flowise's type check of one body parameter (declared types only). */
function wrongType(p: WebhookParam, value: unknown): boolean {
  switch (p.type) {
    case "number":
      return value === "" || Number.isNaN(Number(value));
    case "boolean":
      return typeof value !== "boolean" && value !== "true" && value !== "false";
    case "object":
      return !isRecord(value);
    case "array[string]":
      return !Array.isArray(value) || value.some((v) => typeof v !== "string");
    case "array[number]":
      return !Array.isArray(value) || value.some((v) => typeof v !== "number");
    case "array[boolean]":
      return !Array.isArray(value) || value.some((v) => typeof v !== "boolean");
    case "array[object]":
      return !Array.isArray(value) || value.some((v) => !isRecord(v));
    default:
      return typeof value !== p.type;
  }
}

const missing = (list: WebhookParam[], has: (name: string) => boolean) => list.filter((p) => p.required && !has(p.name)).map((p) => p.name);
const present = (v: unknown) => v !== undefined && v !== null;

/** 405: the Start node takes another method (`allow`, for the Allow header). */
export class MethodNotAllowed extends ApiError {
  constructor(
    readonly allow: string,
    method: string,
  ) {
    super(405, `Method ${method} not allowed. Expected ${allow}`);
  }
}

/** The Start node's checks of a request that starts a run (a resume skips them, as in Flowise). */
export function checkRequest(hook: StartWebhook, request: WebhookRequest, body: unknown): void {
  if (hook.method && request.method.toUpperCase() !== hook.method) {
    throw new MethodNotAllowed(hook.method, request.method.toUpperCase());
  }
  const type = (request.headers["content-type"] ?? "").toLowerCase();
  if (hook.contentType && request.rawBody.length && !type.startsWith(hook.contentType)) {
    throw unsupportedMediaType(`Content-Type ${request.headers["content-type"] ?? "(none)"} not allowed. Expected ${hook.contentType}`);
  }
  if (!hook.enableValidation) return;
  const headers = missing(hook.headerParams, (n) => present(request.headers[n.toLowerCase()]));
  if (headers.length) throw badRequest(`Missing required headers: ${headers.join(", ")}`);
  const fields = isRecord(body) ? body : {};
  const bodyParams = missing(hook.bodyParams, (n) => present(fields[n]));
  if (bodyParams.length) throw badRequest(`Missing required webhook body parameters: ${bodyParams.join(", ")}`);
  const mistyped = hook.bodyParams.filter((p) => p.type && present(fields[p.name]) && wrongType(p, fields[p.name])).map((p) => p.name);
  if (mistyped.length) throw badRequest(`Invalid type for parameter(s): ${mistyped.join(", ")}`);
  const query = missing(hook.queryParams, (n) => present(request.query[n]));
  if (query.length) throw badRequest(`Missing required query parameters: ${query.join(", ")}`);
}

/** What `$webhook.*` reads: the body, the headers with credentials (and the signature header) redacted, the query. */
export function payloadOf(hook: StartWebhook, request: WebhookRequest, body: unknown): WebhookPayload {
  const hidden = new Set(SENSITIVE_HEADERS);
  if (hook.enableAuth) hidden.add(hook.signatureHeader);
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, hidden.has(k) ? REDACTED : v]));
  return { body, headers, query: request.query };
}

const PROTOTYPE_PATH = /(^|\.)(__proto__|constructor|prototype)(\.|$)/;

function lookup(payload: WebhookPayload, path: string): unknown {
  let cur: unknown = payload;
  for (const key of path
    .replace(/\[(\w+)\]/g, ".$1")
    .split(".")
    .filter(Boolean)) {
    if (typeof cur !== "object" || cur === null || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * The Start node's Custom Text with its `{{ $webhook.* }}` references filled in (objects as JSON;
 * a reference to nothing stays as written), as Flowise resolves it before the run.
 */
export function resolveWebhookText(template: string, payload: WebhookPayload): string {
  return template.replace(/{{(.*?)}}/g, (match, ref: string) => {
    const path = ref.trim();
    if (!path.startsWith("$webhook.")) return match;
    const sub = path.slice("$webhook.".length);
    if (PROTOTYPE_PATH.test(sub)) return match;
    const value = lookup(payload, sub);
    if (value === undefined || value === null) return match;
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}

/**
 * The question a new run gets: the resolved Custom Text (a blank one is " "), " " for No Input; none for the
 * whole payload (the flow gets it as JSON).
 */
export function questionOf(hook: StartWebhook, payload: WebhookPayload): string | undefined {
  if (hook.inputMode === "payload") return undefined;
  if (hook.inputMode === "none") return " ";
  // Written in the rich-text editor it is TipTap HTML: made text first, as every node input is.
  return resolveWebhookText(plainText(hook.defaultInput), payload).trim() || " ";
}
