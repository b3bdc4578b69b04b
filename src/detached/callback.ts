// The callback of an asynchronous run (API.md, "Asynchronous runs"): when the run ends or pauses,
// its outcome is POSTed to the caller's callbackUrl, signed so the receiver can tell it came from
// this deployment. An async webhook calls its Start node's callbackUrl back as Flowise does
// (dist/utils/callbackDispatcher.js): `{status, chatId, data|error}`, signed with the Start node's
// callbackSecret in X-Flowise-Signature. Retries are the Workflow step's (at least 3 tries with
// backoff), not a loop here.
import { toHex } from "../lib/crypto";
import { type OutboundEnv, outboundFetch } from "../lib/outbound";
import type { DetachedOutcome } from "../services/executions";

export type CallbackStatus = "SUCCESS" | "STOPPED" | "ERROR";

export interface CallbackBody {
  status: CallbackStatus;
  chatId: string;
  executionId: string;
  data?: unknown;
  error?: string;
}

/** The callback of a part that ended with `outcome` (`paused`: STOPPED for human input). */
export function callbackBodyOf(executionId: string, chatId: string | undefined, outcome: DetachedOutcome, paused: boolean): CallbackBody {
  return {
    status: !outcome.ok ? "ERROR" : paused ? "STOPPED" : "SUCCESS",
    chatId: chatId ?? "",
    executionId,
    ...(outcome.ok ? { data: outcome.answer } : { error: outcome.message }),
  };
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

export const FLOWISE_SIGNATURE_HEADER = "X-Flowise-Signature";

/** Flowise's webhook callback body: a pause sends its question and action, not the whole answer. */
export interface FlowiseCallbackBody {
  status: CallbackStatus;
  chatId: string;
  data?: unknown;
  error?: string;
}

export function flowiseCallbackBody(body: CallbackBody): FlowiseCallbackBody {
  const { status, chatId, data, error } = body;
  if (status === "ERROR") return { status, chatId, error };
  if (status === "STOPPED") {
    const answer = (data ?? {}) as { text?: unknown; executionId?: unknown; action?: unknown };
    return { status, chatId, data: { text: answer.text, executionId: answer.executionId ?? body.executionId, action: answer.action } };
  }
  return { status, chatId, data };
}

/** POSTs `raw` (JSON) with these headers; throws on a network failure or a non-2xx answer, so the step retries. */
async function post(url: string, raw: string, headers: Record<string, string>, env: OutboundEnv): Promise<number> {
  const res = await outboundFetch(
    url,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: raw,
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    },
    env,
  );
  await res.body?.cancel();
  if (!res.ok) throw new Error(`The callback answered ${res.status}`);
  return res.status;
}

/** Delivers an async webhook's callback, Flowise's way (signed only when the Start node has a callbackSecret). */
export async function deliverFlowiseCallback(
  target: { url: string; secret?: string },
  body: CallbackBody,
  env: OutboundEnv,
): Promise<number> {
  const raw = JSON.stringify(flowiseCallbackBody(body));
  return post(target.url, raw, target.secret ? { [FLOWISE_SIGNATURE_HEADER]: await signBody(raw, target.secret) } : {}, env);
}

/**
 * Delivers one callback. Throws on a network failure or a non-2xx answer, so the step retries; an
 * address the outbound policy refuses throws too (the run checked it when it was started).
 */
export async function deliverCallback(url: string, body: CallbackBody, env: CallbackEnv): Promise<number> {
  const raw = JSON.stringify(body);
  return post(url, raw, env.CALLBACK_SECRET ? { [SIGNATURE_HEADER]: await signBody(raw, env.CALLBACK_SECRET) } : {}, env);
}
