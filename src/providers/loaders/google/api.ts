// What the Google Drive and Google Sheets loaders share: the node's OAuth2 credential read with a
// fresh access token (the credential reader refreshes and stores it within 5 minutes of expiry),
// and calls to Google's APIs with it under the outbound policy's endpoint rule (the host a
// GOOGLE_DRIVE_BASE_URL / GOOGLE_SHEETS_BASE_URL var sets, else Google's): one deadline per call,
// the answer read up to the loader's byte limit, failures as 502 (504 for silence) with Google's
// message and never the token.
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { str } from "../../../lib/inputs";
import { checkEndpoint, endpointFetch } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { serviceBase } from "../hosted/call";
import type { LoaderInput } from "../types";

const CALL_TIMEOUT_MS = 30_000;

export interface GoogleApi {
  input: LoaderInput;
  /** How messages name it: "Google Drive". */
  service: string;
  base: string;
  field: string;
  token: string;
}

/** The loader's way to one API: its credential's fresh access token and the API's host. */
export async function googleApi(
  input: LoaderInput,
  loader: string,
  credentialName: string,
  api: { service: string; field: "GOOGLE_DRIVE_BASE_URL" | "GOOGLE_SHEETS_BASE_URL"; host: string },
): Promise<GoogleApi> {
  const base = serviceBase(input.services?.[api.field], api.host);
  checkEndpoint(base, api.field, { ...input.outbound, ENVIRONMENT: input.services?.ENVIRONMENT });
  const id = str(input.config.credential) ?? str(input.config.FLOWISE_CREDENTIAL_ID);
  if (!id || !input.getCredential)
    throw fail("MISSING_CREDENTIAL", `${loader} needs a ${credentialName} credential, authorized in the studio (Authenticate)`);
  const data = await input.getCredential(id, { oauth2: true });
  const token = str(data.access_token);
  if (!token)
    throw fail("MISSING_CREDENTIAL", `${loader}: the ${credentialName} credential has no access token: authorize it in the studio`);
  return { input, service: api.service, field: api.field, token, base };
}

/** Google's error message ({error: {message}}), else the body's first line. */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; error_description?: string };
    const e = body.error;
    const m = typeof e === "object" ? e?.message : (body.error_description ?? e);
    if (m) return m;
  } catch {
    // not JSON
  }
  return text.trim().split(/\r?\n/)[0] ?? "";
}

export interface GoogleAnswer {
  bytes: Uint8Array;
  contentType: string;
}

/** GET `path` (query set when defined); the 2xx answer's bytes, else a 502/504 naming the service. */
export async function googleGet(api: GoogleApi, path: string, query: Record<string, string | undefined> = {}): Promise<GoogleAnswer> {
  const url = new URL(`${api.base}${path}`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") url.searchParams.append(k, v);
  const scrub = (s: string) => redact(s.slice(0, 300), [api.token]);
  const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
  const init = { headers: { Authorization: `Bearer ${api.token}`, Accept: "application/json, */*" }, signal };
  const env = { ...api.input.outbound, ENVIRONMENT: api.input.services?.ENVIRONMENT };
  let res: Response;
  try {
    res = await endpointFetch(url.toString(), init, { field: api.field, env });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (signal.aborted) throw fail("TIMEOUT", `${api.service} did not answer within ${CALL_TIMEOUT_MS / 1000} s`);
    throw fail("UPSTREAM_FAILED", `${api.service} is unreachable: ${scrub(errorMessage(err))}`);
  }
  const tooLarge = () => fail("LIMIT_EXCEEDED", `${api.service} answered more than the upload limit allows (${path})`);
  const length = Number(res.headers.get("content-length"));
  if (Number.isFinite(length) && length > api.input.maxBytes) throw tooLarge();
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (err) {
    if (signal.aborted) throw fail("TIMEOUT", `${api.service} did not answer within ${CALL_TIMEOUT_MS / 1000} s`);
    throw fail("UPSTREAM_FAILED", `${api.service}: ${scrub(errorMessage(err))}`);
  }
  if (bytes.length > api.input.maxBytes) throw tooLarge();
  if (!res.ok) throw fail("UPSTREAM_FAILED", scrub(`${api.service} answered ${res.status}: ${messageOf(new TextDecoder().decode(bytes))}`));
  return { bytes, contentType: res.headers.get("content-type") ?? "" };
}

/** GET `path` as JSON (502 when it is not). */
export async function googleJson<T = Record<string, unknown>>(
  api: GoogleApi,
  path: string,
  query?: Record<string, string | undefined>,
): Promise<T> {
  const { bytes } = await googleGet(api, path, query);
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch {
    throw fail("UPSTREAM_FAILED", `${api.service} answered something that is not JSON`);
  }
}

/** A multiOptions input as ids: a JSON array (string or not), else one id or a comma list. */
export function idList(value: unknown): string[] {
  if (Array.isArray(value))
    return value
      .map(String)
      .map((s) => s.trim())
      .filter(Boolean);
  const text = str(value);
  if (!text) return [];
  if (text.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed))
        return parsed
          .map(String)
          .map((s) => s.trim())
          .filter(Boolean);
    } catch {
      // not JSON: a list
    }
  }
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
