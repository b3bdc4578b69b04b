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
}

export interface HostedAnswer {
  text: string;
  contentType: string;
}

/** A service's 2xx answer as text (at most `maxBytes`); anything else a 502/504 naming it. */
export async function hostedCall(input: LoaderInput, call: HostedCall): Promise<HostedAnswer> {
  const scrub = (s: string) => redact(s.slice(0, 300), call.secrets ?? []);
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
    throw fail("UPSTREAM_FAILED", `${call.service} is unreachable: ${scrub(errorMessage(err))}`);
  }
  const length = Number(res.headers.get("content-length"));
  if (Number.isFinite(length) && length > input.maxBytes)
    throw fail("UPSTREAM_FAILED", `${call.service} answered more than the upload limit allows`);
  const bytes = new Uint8Array(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
  if (bytes.length > input.maxBytes) throw fail("UPSTREAM_FAILED", `${call.service} answered more than the upload limit allows`);
  const text = new TextDecoder().decode(bytes);
  if (!res.ok) throw fail("UPSTREAM_FAILED", scrub(`${call.service} answered ${res.status}: ${messageOf(text)}`));
  return { text, contentType: res.headers.get("content-type") ?? "" };
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

/** The error message a JSON error body carries ({error}, {error:{message}}, {message}), else its first line. */
function messageOf(text: string): string {
  try {
    const b = JSON.parse(text) as Record<string, unknown>;
    const e = b.error as unknown;
    if (typeof e === "string") return e;
    if (e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string") return (e as { message: string }).message;
    if (typeof b.message === "string") return b.message;
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
