// How tools call web services (search APIs, arXiv, plain HTTP requests): one deadline per call,
// the run's abort signal, and every failure as an Error whose message the model can read and that
// never holds the credential (the agent turns it into "Error: …" and the run goes on).
import { type OutboundEnv, OutboundRefused, RedirectRefused, endpointFetch, outboundFetch } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { credentialOf } from "../../providers/config";
import { Deadline, RunAborted } from "../../lib/run-control";
import { str } from "../core/inputs";
import type { RunContext } from "../core/ports";
import { errorMessage } from "../../lib/error-message";

/** How long a tool waits for a service (connect + answer). */
const SERVICE_TIMEOUT_MS = 30_000;
/** The most of a service's answer a tool reads (a page, a search answer). */
const MAX_SERVICE_BYTES = 2 * 1024 * 1024;

/** A failure the model reads as the tool's answer. */
export class ToolCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolCallError";
  }
}

export interface ServiceCall {
  /** How messages name the service: "SerpAPI", "Brave Search". */
  service: string;
  url: string;
  init?: RequestInit;
  /** Values to keep out of messages (the key, wherever the service echoes it). */
  secrets?: string[];
  /** Set for URLs a user or model chose: the outbound policy's request rule applies (src/lib/outbound/). */
  policy?: OutboundEnv;
  /**
   * Without `policy` the URL is the deployment's (a `*_BASE_URL` var, or the service's own address):
   * the endpoint rule applies, and this names the var in a refusal (default: `service`).
   */
  field?: string;
  timeoutMs?: number;
}

export interface ServiceAnswer {
  status: number;
  ok: boolean;
  contentType: string;
  text: string;
}

/** The value of a credential field, or a readable error naming the credential the node needs. */
export async function credentialField(
  ctx: RunContext,
  inputs: Record<string, unknown>,
  credentialName: string,
  fields: string[],
  label: string,
): Promise<string[]> {
  const data = await credentialOf(inputs, { getCredential: ctx.getCredential }).catch(() => ({}) as Record<string, unknown>);
  return fields.map((field) => {
    const value = str(data[field]);
    if (!value) throw new ToolCallError(`${label} is not configured: connect a ${credentialName} credential with ${field}`);
    return value;
  });
}

/** Reads at most MAX_SERVICE_BYTES of a body as text. */
async function readCapped(res: Response, deadline: Deadline): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await deadline.race(reader.read());
    if (done) break;
    size += value.byteLength;
    if (size > MAX_SERVICE_BYTES) {
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(Math.min(size, MAX_SERVICE_BYTES));
  let at = 0;
  for (const c of chunks) {
    all.set(c.subarray(0, all.length - at), at);
    at += Math.min(c.byteLength, all.length - at);
  }
  return new TextDecoder().decode(all);
}

/** Calls a service and answers its status and body; unreachable, timed out or refused → ToolCallError. */
export async function callService(call: ServiceCall, ctx: Pick<RunContext, "signal" | "runtime">): Promise<ServiceAnswer> {
  const secrets = call.secrets ?? [];
  const deadline = new Deadline(call.timeoutMs ?? SERVICE_TIMEOUT_MS, ctx.signal);
  try {
    const init = { ...call.init, signal: deadline.signal };
    const res = call.policy
      ? await outboundFetch(call.url, init, call.policy)
      : await endpointFetch(call.url, init, { field: call.field ?? call.service, env: ctx.runtime.providers });
    const text = await readCapped(res, deadline);
    return { status: res.status, ok: res.ok, contentType: res.headers.get("content-type") ?? "", text };
  } catch (err) {
    if (deadline.aborted) throw new RunAborted();
    if (deadline.timedOut)
      throw new ToolCallError(`${call.service} did not answer within ${Math.round((call.timeoutMs ?? SERVICE_TIMEOUT_MS) / 1000)} s`);
    if (err instanceof OutboundRefused || err instanceof RedirectRefused) throw new ToolCallError(redact(err.message, secrets));
    throw new ToolCallError(`${call.service} is unreachable: ${redact(errorMessage(err), secrets)}`);
  } finally {
    deadline.done();
  }
}

/** A service's JSON answer; a non-2xx status or a body that is not JSON → ToolCallError with its message. */
export async function callServiceJson(call: ServiceCall, ctx: RunContext): Promise<Record<string, unknown>> {
  const res = await callService(call, ctx);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  const secrets = call.secrets ?? [];
  if (!res.ok) {
    const detail = messageOf(body) ?? res.text.slice(0, 300);
    throw new ToolCallError(redact(`${call.service} answered ${res.status}${detail ? `: ${detail}` : ""}`, secrets));
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new ToolCallError(`${call.service} answered something that is not a JSON object`);
  return body as Record<string, unknown>;
}

/** The error message services put in their JSON bodies ({error}, {error:{message}}, {message}, {detail}). */
function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  const e = b.error;
  if (typeof e === "string") return e;
  if (e && typeof e === "object" && typeof (e as Record<string, unknown>).message === "string")
    return String((e as Record<string, unknown>).message);
  if (typeof b.message === "string") return b.message;
  if (typeof b.detail === "string") return b.detail;
  if (b.detail && typeof b.detail === "object" && typeof (b.detail as Record<string, unknown>).error === "string")
    return String((b.detail as Record<string, unknown>).error);
  return undefined;
}

/** A service's base URL: the configured one (tests: a stand-in), else the public one; no trailing slash. */
export const baseUrlOf = (configured: string | undefined, fallback: string): string => (str(configured) ?? fallback).replace(/\/+$/, "");
