// How the loaders over hosted services (SerpAPI, Brave Search) and apiLoader call out: one deadline,
// the answer read up to the loader's byte limit, failures as 502 (unreachable, non-2xx, not JSON) or
// 504 (no answer in time) naming the service, and the key kept out of every message. A URL the flow
// chose is under the outbound request rule; a deployment's `*_BASE_URL` (or the service's own
// address) under the endpoint rule (src/lib/outbound).
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { endpointFetch, outboundFetch } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import type { LoaderInput } from "../types";

const CALL_TIMEOUT_MS = 30_000;

export interface HostedCall {
  /** How messages name the service: "SerpAPI", "Brave Search", or the URL for apiLoader. */
  service: string;
  url: string;
  init?: RequestInit;
  /** Values never shown in a message (keys, tokens). */
  secrets?: string[];
  /** The deployment var the URL came from (endpoint rule); absent: the flow chose it (request rule). */
  field?: string;
  /** How long the call may take (default CALL_TIMEOUT_MS): a browser rendering a page takes longer. */
  timeoutMs?: number;
  /**
   * How many times a 429 is asked again after the `Retry-After` seconds it names (at most
   * MAX_RETRY_AFTER_S; without the header, 1 s): for services that document it (Notion). Default 0.
   */
  rateLimitRetries?: number;
  /** Non-2xx statuses answered to the caller instead of failing (a 404 that means "not this API"). */
  allowStatus?: number[];
}

export interface HostedAnswer {
  text: string;
  contentType: string;
  status: number;
}

/** The longest `Retry-After` waited for; a service asking more fails the call with its 429. */
const MAX_RETRY_AFTER_S = 30;

/** A service's 2xx answer as text (at most `maxBytes`); anything else a 502/504 naming it. */
export async function hostedCall(input: LoaderInput, call: HostedCall): Promise<HostedAnswer> {
  for (let attempt = 0; ; attempt++) {
    const { res, text } = await callOnce(input, call);
    if (res.status === 429 && attempt < (call.rateLimitRetries ?? 0)) {
      // Retry-After is whole seconds; a wait longer than we hold a load open fails with the 429 below.
      const wait = Number(res.headers.get("retry-after") ?? 1);
      if (Number.isFinite(wait) && wait >= 0 && wait <= MAX_RETRY_AFTER_S) {
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
    }
    if (!res.ok && !call.allowStatus?.includes(res.status))
      throw fail("UPSTREAM_FAILED", scrub(call, `${call.service} answered ${res.status}: ${messageOf(text)}`));
    return { text, contentType: res.headers.get("content-type") ?? "", status: res.status };
  }
}

const scrub = (call: HostedCall, s: string) => redact(s.slice(0, 300), call.secrets ?? []);

/** One request: the response and its text (at most `maxBytes`); unreachable a 502, too slow a 504. */
async function callOnce(input: LoaderInput, call: HostedCall): Promise<{ res: Response; text: string }> {
  const timeoutMs = call.timeoutMs ?? CALL_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const init = { ...call.init, signal };
  let res: Response;
  try {
    res = call.field
      ? await endpointFetch(call.url, init, {
          field: call.field,
          env: { ...input.outbound, ENVIRONMENT: input.services?.ENVIRONMENT },
        })
      : await outboundFetch(call.url, init, input.outbound);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (signal.aborted) throw fail("TIMEOUT", `${call.service} did not answer within ${Math.ceil(timeoutMs / 1000)} s`);
    throw fail("UPSTREAM_FAILED", `${call.service} is unreachable: ${scrub(call, errorMessage(err))}`);
  }
  const length = Number(res.headers.get("content-length"));
  if (Number.isFinite(length) && length > input.maxBytes)
    throw fail("UPSTREAM_FAILED", `${call.service} answered more than the upload limit allows`);
  const bytes = new Uint8Array(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
  if (bytes.length > input.maxBytes) throw fail("UPSTREAM_FAILED", `${call.service} answered more than the upload limit allows`);
  return { res, text: new TextDecoder().decode(bytes) };
}

/** A service's 2xx JSON answer (502 when it is not JSON). */
export async function hostedJson(input: LoaderInput, call: HostedCall): Promise<unknown> {
  const { text } = await hostedCall(input, call);
  try {
    return JSON.parse(text);
  } catch {
    throw fail("UPSTREAM_FAILED", `${call.service} answered something that is not JSON`);
  }
}

/** The error message a JSON error body carries ({error}, {error:{message}}, {message}, Figma's {err}), else its first line. */
function messageOf(text: string): string {
  try {
    const b = JSON.parse(text) as Record<string, unknown>;
    const e = b.error as unknown;
    if (typeof e === "string") return e;
    if (e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string") return (e as { message: string }).message;
    if (typeof b.message === "string") return b.message;
    if (typeof b.err === "string") return b.err;
    // Cloudflare's API envelope: {success: false, errors: [{code, message}]}.
    const first = Array.isArray(b.errors) ? (b.errors[0] as { message?: unknown } | undefined) : undefined;
    if (typeof first?.message === "string") return first.message;
  } catch {
    // not JSON
  }
  return text.trim().split(/\r?\n/)[0] ?? "";
}

/** The base URL a deployment var sets (tests: a stand-in), else the service's own; no trailing slash. */
export const serviceBase = (configured: unknown, fallback: string): string =>
  (typeof configured === "string" && configured.trim() ? configured.trim() : fallback).replace(/\/+$/, "");
