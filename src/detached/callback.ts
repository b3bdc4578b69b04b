// The callback of an asynchronous run (API.md, "Asynchronous runs"): when the run ends or pauses,
// its outcome is POSTed to the caller's callbackUrl, signed so the receiver can tell it came from
// this deployment. Retries are the Workflow step's (at least 3 tries with backoff), not a loop here.
import { toHex } from "../lib/crypto";
import { type OutboundEnv, outboundFetch } from "../lib/outbound";

export type CallbackStatus = "SUCCESS" | "STOPPED" | "ERROR";

export interface CallbackBody {
  status: CallbackStatus;
  chatId: string;
  executionId: string;
  data?: unknown;
  error?: string;
}

export const SIGNATURE_HEADER = "X-Edgeflow-Signature";
const CALLBACK_TIMEOUT_MS = 10_000;

/** `sha256=<hex HMAC-SHA256 of the raw body>` keyed with `secret`. */
export async function signBody(body: string, secret: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `sha256=${toHex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)))}`;
}

export interface CallbackEnv extends OutboundEnv {
  CALLBACK_SECRET?: string;
}

/**
 * Delivers one callback. Throws on a network failure or a non-2xx answer, so the step retries; an
 * address the outbound policy refuses throws too (the run checked it when it was started).
 */
export async function deliverCallback(url: string, body: CallbackBody, env: CallbackEnv): Promise<number> {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (env.CALLBACK_SECRET) headers[SIGNATURE_HEADER] = await signBody(raw, env.CALLBACK_SECRET);
  const res = await outboundFetch(url, { method: "POST", headers, body: raw, signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS) }, env);
  await res.body?.cancel();
  if (!res.ok) throw new Error(`The callback answered ${res.status}`);
  return res.status;
}
