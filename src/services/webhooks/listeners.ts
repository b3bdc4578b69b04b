// The canvas's webhook listener (Flowise 3.1.4's /webhook-listener): register (a row,
// listener-rows.ts), hold the event stream (the flow's WebhookListeners object, listener-hub.ts),
// unregister — for a flow a webhook starts. And the webhook's side: the copy of a listened run's
// frames (its SSE bytes, or for a JSON run an SSE writer fed by the run's frames).
import { eq } from "drizzle-orm";
import { chatFlow } from "../../db/schema";
import type { Env } from "../../env";
import { ApiError, badRequest, notFound } from "../../errors";
import { SseWriter } from "../../stream/sse";
import type { Deps } from "../deps";
import type { Delivered, RunFrames } from "../runs";
import type { WebhookListeners } from "./listener-hub";
import { MAX_LISTENERS, addListener, isLiveListener } from "./listener-rows";
import { webhookOfFlow } from "./start-webhook";

type Hub = DurableObjectStub<WebhookListeners>;

const hubOf = (env: Env, flowId: string): Hub => env.WEBHOOK_LISTENERS.get(env.WEBHOOK_LISTENERS.idFromName(flowId)) as Hub;

/** 404 for no flow, 400 for a flow no webhook starts (Flowise's answers). */
async function assertWebhookFlow({ db }: Deps<"db">, flowId: string): Promise<void> {
  const flow = await db.select({ type: chatFlow.type, flowData: chatFlow.flowData }).from(chatFlow).where(eq(chatFlow.id, flowId)).get();
  if (!flow) throw notFound(`Chatflow ${flowId} not found`);
  if (!webhookOfFlow(flow)) throw badRequest(`Chatflow ${flowId} is not configured as a webhook trigger`);
}

export async function registerListener(deps: Deps<"db" | "env">, flowId: string): Promise<{ listenerId: string }> {
  await assertWebhookFlow(deps, flowId);
  const listenerId = `wh-listener-${crypto.randomUUID()}`;
  if (!(await addListener(deps.db, flowId, listenerId)))
    throw new ApiError(429, `Too many listeners on this flow (${MAX_LISTENERS}): close another canvas's listener first`);
  return { listenerId };
}

/** The listener's event stream: `listenerReady`, then each webhook run's frames while it stays open. */
export async function listenerStream(
  deps: Deps<"db" | "env">,
  flowId: string,
  listenerId: string,
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  await assertWebhookFlow(deps, flowId);
  if (!(await isLiveListener(deps.db, flowId, listenerId))) throw notFound(`Listener ${listenerId} not found or expired: register again`);
  const res = await hubOf(deps.env, flowId).fetch(`https://webhook-listeners/stream/${encodeURIComponent(listenerId)}`, { signal });
  return res.body ?? new ReadableStream();
}

/** Removes the listener (Flowise answers `{ok: true}` whether or not it existed). */
export async function unregisterListener({ db, env }: Deps<"db" | "env">, flowId: string, listenerId: string): Promise<{ ok: true }> {
  if (await isLiveListener(db, flowId, listenerId)) await hubOf(env, flowId).end(listenerId);
  return { ok: true };
}

/**
 * What a listened run needs: `frames` (an SSE writer the run's frames go to, copied to the
 * listeners; made at the first frame, so a run that streams to its caller makes none) and `settle`
 * (a JSON answer's metadata or the error, then `end`); `deliver` copies a streamed answer's bytes or
 * an async run's event log. The copies run under `waitUntil`.
 */
export function listenerCopy({ env, waitUntil }: Deps<"env" | "waitUntil">, flowId: string) {
  const hub = hubOf(env, flowId);
  const copy = (work: Promise<unknown>) => waitUntil(work.catch(() => undefined));
  let writer: SseWriter | undefined;
  const open = (): SseWriter => {
    if (!writer) {
      writer = new SseWriter(() => undefined);
      copy(hub.relay(writer.readable));
    }
    return writer;
  };
  return {
    /** The run's frames (functions of their own: the door hands them on unbound). */
    frames(): RunFrames {
      return { token: (text) => open().token(text), event: (name, data) => open().event(name, data) };
    },
    settle(outcome: { metadata: Record<string, unknown> } | { error: string }): void {
      const sse = open();
      if ("error" in outcome) sse.error(outcome.error);
      else sse.event("metadata", outcome.metadata);
      copy(sse.end());
    },
    /** The answer as it leaves: a stream's bytes teed to the listeners; an async run's log relayed. */
    deliver(delivered: Delivered): Delivered {
      if (delivered.kind === "sse") {
        const [caller, listeners] = delivered.body.tee();
        copy(hub.relay(listeners));
        return { kind: "sse", body: caller };
      }
      if (delivered.kind === "detached") copy(hub.relayExecution(delivered.body.executionId));
      return delivered;
    },
  };
}
