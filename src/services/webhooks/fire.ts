// A webhook firing its flow (API.md "Webhooks"; Flowise 3.1.4's webhook controller): the flow and
// its secret read together, the Start node's rules (404 for a flow no webhook starts), the flow's
// rate limit, the signature, the request's checks, then the run through the door's `webhook`
// trigger — JSON (sync), Flowise's event stream (stream) or detached with the Start node's
// callback (async). A body holding `humanInput` resumes the flow's paused execution instead.
import type { WebhookPayload } from "../../engine/agentflow/types";
import { ApiError, notFound, unauthorized } from "../../errors";
import { newId } from "../../lib/ids";
import { enforceRateLimit } from "../../rate-limit/check";
import type { PredictionInput } from "../../schemas/prediction";
import { type Delivered, type RunDeps, runFlow } from "../runs";
import { lookUpRun } from "../runs";
import { type WebhookRequest, checkRequest, parseBody, payloadOf, questionOf } from "./request";
import { openWebhookSecret, readWebhookSide } from "./secret";
import { hmacMatches, tokenMatches } from "./signature";
import { type StartWebhook, webhookOfFlow } from "./start-webhook";
import { listenerCopy } from "./listeners";

/** A JSON answer's ids as a stream's `metadata` frame carries them (what the listener panel reads). */
function metadataOf(body: Record<string, unknown>): Record<string, unknown> {
  const keys = ["chatId", "chatMessageId", "question", "sessionId", "executionId"];
  return Object.fromEntries(keys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
}

export interface WebhookCall extends WebhookRequest {
  /** The caller's address, for the flow's rate limit. */
  clientIp: string;
  /** Aborts a sync or stream run when the caller goes away. */
  signal?: AbortSignal;
}

async function verify(flowId: string, hook: StartWebhook, call: WebhookCall, secret: Promise<string | undefined>): Promise<void> {
  const key = await secret;
  if (!key)
    throw unauthorized(
      `Webhook signature verification is enabled but no secret has been generated: POST ` +
        `/api/v1/chatflows/${flowId}/webhook-secret makes one`,
    );
  const provided = call.headers[hook.signatureHeader] ?? "";
  if (!provided) throw unauthorized(`Missing signature header: ${hook.signatureHeader}`);
  const valid = hook.signatureType === "plain-token" ? tokenMatches(key, provided) : await hmacMatches(key, call.rawBody, provided);
  if (!valid) throw unauthorized("Invalid webhook signature");
}

/** The run's request fields: the sender's chatId / sessionId / humanInput when its body has them (Flowise's rule), else a new chat. */
function inputOf(hook: StartWebhook, body: unknown, payload: WebhookPayload): PredictionInput {
  const fields = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" && v && v.length <= 1000 ? v : undefined);
  const sessionId = text(fields.sessionId);
  const humanInput =
    fields.humanInput !== undefined && fields.humanInput !== null && typeof fields.humanInput === "object"
      ? (fields.humanInput as Record<string, unknown>)
      : undefined;
  return {
    chatId: text(fields.chatId) ?? sessionId ?? newId(),
    ...(sessionId ? { overrideConfig: { sessionId } } : {}),
    ...(humanInput ? { humanInput } : { question: questionOf(hook, payload) }),
  };
}

export interface Fired {
  delivered: Delivered;
  responseMode: StartWebhook["responseMode"];
}

export async function fireWebhook(deps: RunDeps, flowId: string, call: WebhookCall): Promise<Fired> {
  const lookups = lookUpRun(deps, flowId);
  const side = readWebhookSide(deps, flowId); // beside the flow: one round trip
  side.catch(() => {});
  const flow = await lookups.flow;
  const hook = webhookOfFlow(flow);
  if (!hook) throw notFound(`Chatflow ${flowId} is not configured as a webhook trigger`);

  await enforceRateLimit(deps.env, flow.id, flow.apiConfig, call.clientIp);
  if (hook.enableAuth)
    await verify(
      flow.id,
      hook,
      call,
      side.then((s) => openWebhookSecret(deps, flow.id, s.sealed)),
    );
  const body = parseBody(call);
  const resume = typeof body === "object" && body !== null && (body as { humanInput?: unknown }).humanInput != null;
  if (!resume) checkRequest(hook, call, body);
  const webhook = payloadOf(hook, call, body);
  const delivery = hook.responseMode === "async" ? "detached" : hook.responseMode === "stream" ? "sse" : "json";
  // A canvas listening (/webhook-listener) gets a copy of the run's frames.
  const listeners = (await side).listened ? listenerCopy(deps, flow.id) : undefined;
  const run = runFlow(deps, {
    trigger: "webhook",
    flowId: flow.id,
    input: inputOf(hook, body, webhook),
    delivery,
    webhook,
    flowiseCallback: hook.callbackUrl ? { url: hook.callbackUrl, secret: hook.callbackSecret } : undefined,
    lookups,
    signal: delivery === "detached" ? undefined : call.signal,
    // A JSON run streams its frames to the listeners as it goes, and so does a stream whose flow
    // answers JSON (post-processing); a stream's bytes and an async run's log are copied as they leave.
    ...(listeners && delivery !== "detached" ? { frames: listeners.frames() } : {}),
  });
  if (!listeners) return { delivered: await run, responseMode: hook.responseMode };
  const delivered = await run.catch((err: unknown) => {
    listeners.settle({ error: err instanceof ApiError ? err.message : "The agentflow failed while answering" });
    throw err;
  });
  if (delivered.kind === "json") listeners.settle({ metadata: metadataOf(delivered.body) });
  return { delivered: listeners.deliver(delivered), responseMode: hook.responseMode };
}
