// The stream's head before the run's D1 batch (issue 32): a chatflow this isolate streamed for
// the last EARLY_HEAD_MS, asked for again by a caller it can check without D1 (no bearer, the admin
// key, a JWT, an API key it found within KEY_CACHE_MS, the studio's session), gets its 200 and event
// stream at once; the batch, every check on its fresh rows, and the run follow inside the stream.
// The trade-off (docs/performance.md, "The stream's first byte"): a flow deleted, made private,
// bound to another key or given an origin list within that bound, or a request the run refuses
// (a bad override, an upload the flow does not take), answers 200 then an `error` frame and `end`
// instead of its 4xx. Nothing runs and nothing is stored for it; a flow with a rate limit never
// takes this path (its 429 is a plain-text body the widget shows).
import { configOf } from "../../config";
import type { Env, Principal } from "../../env";
import { ApiError } from "../../errors";
import { errorText } from "../../lib/redact";
import { SseWriter } from "../../stream/sse";
import { KEY_CACHE_MS, knownApiKey } from "../apikeys";
import type { GuardedFlow } from "../callers/admit";
import { principalOf } from "../callers/principal";
import { assertOriginAllowed, assertPrincipalMayRun } from "../callers/run-access";
import type { AgentflowRun } from "./agentflow-start";
import type { ChatflowRun } from "./chatflow";
import { streamChatflow } from "./chatflow-stream";
import { deliver } from "./deliver";
import type { TriggerDefinition } from "./triggers";
import type { Caller, RunDeps, RunRequest } from "./types";

/** As long as a cached API key may outlive its revocation: no new staleness. */
export const EARLY_HEAD_MS = KEY_CACHE_MS;
const FLOWS_KEPT = 1000;
const streamed = new Map<string, { flow: GuardedFlow; at: number }>();

const rateLimited = (apiConfig: string | null): boolean => {
  try {
    return !!apiConfig && (JSON.parse(apiConfig) as { rateLimit?: { status?: unknown } })?.rateLimit?.status === true;
  } catch {
    return false;
  }
};

/** Notes a chatflow that streamed to a checked caller (the door's slow path, after its checks). */
export function noteStreamed(rule: TriggerDefinition, run: ChatflowRun | AgentflowRun): void {
  if (rule.access !== "caller" || run.kind !== "chatflow" || !run.streamable) return;
  const { id, isPublic, apikeyid, chatbotConfig, apiConfig } = run.flow;
  streamed.delete(id);
  if (rateLimited(apiConfig)) return;
  streamed.set(id, { flow: { id, isPublic, apikeyid, chatbotConfig, apiConfig }, at: Date.now() });
  if (streamed.size > FLOWS_KEPT) streamed.delete(streamed.keys().next().value as string);
}

/** Who the caller is, when that needs no D1 read; undefined: it does (or the header is refused: the slow path says why). */
async function knownPrincipal(env: Env, caller: Caller): Promise<Principal | null | undefined> {
  if (caller.principal) return caller.principal;
  return principalOf(caller.authorization, env, knownApiKey).catch(() => undefined);
}

/** Whether this request's head may go out before its batch. */
export async function answersEarly(env: Env, request: RunRequest, rule: TriggerDefinition): Promise<boolean> {
  const { caller } = request;
  if (request.delivery !== "sse" || rule.access !== "caller" || !caller || request.lookups || request.steps || request.frames) return false;
  const seen = streamed.get(request.flowId);
  if (!seen || Date.now() - seen.at > EARLY_HEAD_MS) return false;
  const principal = await knownPrincipal(env, caller);
  if (principal === undefined) return false;
  try {
    assertPrincipalMayRun(principal, seen.flow);
    if (rule.checkOrigin) assertOriginAllowed(seen.flow.chatbotConfig, caller.origin);
  } catch {
    return false; // the slow path answers the refusal with its status
  }
  return true;
}

/**
 * Locally (`ENVIRONMENT=development`, wrangler's local D1) the database is a Durable Object on the
 * worker's own thread: a batch started now runs before workerd writes the head. One turn of the
 * event loop first lets the head go (measured: head 6.2 → 2.7 ms, first token 8.8 → 9.6). Deployed,
 * D1 is elsewhere and the head leaves while the batch travels, so no turn is spent there.
 */
const d1SharesThread = (env: Env): boolean => configOf(env).ENVIRONMENT === "development";

/** The event stream at once; `begin` (the batch, the checks, the run's start) inside it. */
export function streamEarly(deps: RunDeps, begin: () => Promise<ChatflowRun | AgentflowRun>): ReadableStream<Uint8Array> {
  const gone = new AbortController();
  const sse = new SseWriter(() => gone.abort(new Error("Client disconnected")));
  const work = (async () => {
    let run: ChatflowRun | AgentflowRun;
    try {
      if (d1SharesThread(deps.env)) await scheduler.wait(0);
      run = await begin();
    } catch (err) {
      if (!(err instanceof ApiError)) console.error(`[${deps.requestId}] prediction stream failed to start: ${errorText(err)}`);
      sse.error(err instanceof ApiError ? err.message : "The chatflow failed to start");
      await sse.end();
      return;
    }
    const { controller } = run;
    if (gone.signal.aborted) controller.abort(gone.signal.reason);
    else gone.signal.addEventListener("abort", () => controller.abort(gone.signal.reason), { once: true });
    if (run.kind === "chatflow" && run.streamable) return void streamChatflow(run, sse);
    // The flow changed within the bound and no longer streams: its answer in one piece.
    try {
      const { body } = (await deliver(run, "json")) as { body: { text?: string; chatId?: string; chatMessageId?: string } };
      if (body.text) sse.token(body.text);
      sse.event("metadata", { chatId: body.chatId, chatMessageId: body.chatMessageId });
    } catch (err) {
      sse.error(err instanceof ApiError ? err.message : "The chatflow failed while answering");
    }
    await sse.end();
  })();
  deps.waitUntil(work);
  return sse.readable;
}
