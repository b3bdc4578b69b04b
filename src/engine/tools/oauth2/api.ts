// What the OAuth2 tools (Gmail, Google Calendar/Drive/Sheets/Docs, Outlook, Teams) share: the
// credential's access token, fresh for every call (the credential reader refreshes and stores it
// within 5 minutes of expiry: services/oauth2), and a JSON call to the service's REST API with it,
// failures as ToolCallErrors the model reads, the token never in them. Each tool is a list of
// actions (Flowise's per-tool operations): a name, a description, an argument schema and a run.
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { z } from "zod";
import { fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { str } from "../../core/inputs";
import type { RunContext } from "../../core/ports";
import { ToolCallError, baseUrlOf, callService } from "../service";

/** One service: its name in messages, its API's base URL (a `*_BASE_URL` var, else its public host) and the var's name. */
export interface OAuth2Service {
  service: string;
  baseUrl: string;
  field: string;
}

/** A tool's way to its API for one run: a credential and a service. */
export interface OAuth2Api extends OAuth2Service {
  ctx: RunContext;
  credentialId: string;
}

/** The service's base URL: the var when set, else its public address. */
export const serviceUrl = (configured: string | undefined, fallback: string): string => baseUrlOf(configured, fallback);

/** The node's credential id; a node without one cannot be built (Flowise's error, said our way). */
export function oauth2CredentialId(inputs: Record<string, unknown>, credentialName: string, label: string): string {
  const id = str(inputs.credential) ?? str(inputs.FLOWISE_CREDENTIAL_ID);
  if (!id) throw fail("MISSING_CREDENTIAL", `${label} needs a ${credentialName} credential, authorized in the studio (Authenticate)`);
  return id;
}

async function accessToken(api: OAuth2Api): Promise<string> {
  let data: Record<string, unknown>;
  try {
    data = await api.ctx.getCredential(api.credentialId, { oauth2: true });
  } catch (err) {
    throw new ToolCallError(`${api.service}: ${errorMessage(err)}`);
  }
  const token = str(data.access_token);
  if (!token) throw new ToolCallError(`${api.service}: the credential has no access token: authorize it in the studio`);
  return token;
}

export interface ApiRequest {
  method?: string;
  /** Appended to the base URL; path segments from arguments must be encoded by the caller. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON; a string or bytes are sent as they are (with `contentType`). */
  body?: unknown;
  contentType?: string;
  /** Read the answer as text, not JSON (a file's content). */
  text?: boolean;
}

/** Calls the API with a fresh token; answers the JSON (or text) body, `{}` for an empty one (204). */
export async function apiCall(api: OAuth2Api, request: ApiRequest): Promise<unknown> {
  const token = await accessToken(api);
  const url = new URL(`${api.baseUrl}${request.path}`);
  for (const [key, value] of Object.entries(request.query ?? {}))
    if (value !== undefined && value !== "") url.searchParams.set(key, String(value));
  const raw = typeof request.body === "string" || request.body instanceof Uint8Array;
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: "application/json" };
  if (request.body !== undefined) headers["Content-Type"] = request.contentType ?? (raw ? "text/plain" : "application/json");
  const init: RequestInit = {
    method: request.method ?? "GET",
    headers,
    body: request.body === undefined ? undefined : raw ? (request.body as BodyInit) : JSON.stringify(request.body),
  };
  const res = await callService({ service: api.service, field: api.field, url: url.toString(), init, secrets: [token] }, api.ctx);
  if (!res.ok) {
    let detail = res.text.slice(0, 300);
    try {
      const body = JSON.parse(res.text) as { error?: { message?: string } | string; message?: string };
      detail = (typeof body.error === "object" ? body.error?.message : body.error) ?? body.message ?? detail;
    } catch {
      // not JSON: the text's start
    }
    throw new ToolCallError(`${api.service} answered ${res.status}${detail ? `: ${detail.split(token).join("[redacted]")}` : ""}`);
  }
  if (request.text) return res.text;
  if (!res.text.trim()) return {};
  try {
    return JSON.parse(res.text);
  } catch {
    throw new ToolCallError(`${api.service} answered something that is not JSON`);
  }
}

/** One operation of a tool: what the model sees (name, description, arguments) and what it does. */
export interface Action<S extends z.ZodObject<z.ZodRawShape> = z.ZodObject<z.ZodRawShape>> {
  name: string;
  description: string;
  schema: S;
  run(args: z.infer<S>, api: OAuth2Api): Promise<unknown>;
}

/** The chosen actions as tools; each answers its result as JSON text (Flowise's tools answer JSON strings). */
export function actionTools(actions: Action[], chosen: string[], api: OAuth2Api): DynamicStructuredTool[] {
  const byName = new Map(actions.map((a) => [a.name, a]));
  return chosen.map((name) => {
    const action = byName.get(name);
    if (!action) throw fail("INVALID_FLOW", `${api.service}: unknown action ${name} (known: ${[...byName.keys()].join(", ")})`);
    return new DynamicStructuredTool({
      name: action.name,
      description: action.description,
      schema: action.schema,
      func: async (args) => {
        const result = await action.run(args as never, api);
        return typeof result === "string" ? result : JSON.stringify(result);
      },
    });
  });
}

/** A multiOptions input as names: Flowise stores it as a JSON array string, an array, or a comma list. */
export function chosenActions(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String).filter(Boolean);
  const text = str(value);
  if (!text) return [];
  try {
    const parsed = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed.map(String).filter(Boolean);
  } catch {
    // a comma list
  }
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
