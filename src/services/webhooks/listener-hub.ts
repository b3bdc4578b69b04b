// One Durable Object per webhook-triggered agentflow: the open streams of the studio canvases
// listening for its webhook calls (the canvas's webhook listener panel, Flowise 3.1.4's
// /webhook-listener). Each webhook run of the flow while a canvas listens is copied here, as
// Flowise's frames, to every open stream — a sync or streamed run's from the webhook's own request,
// an async run's from its execution's event log. Whether anyone listens is a D1 row per listener
// (listener-rows.ts), which the heartbeat of its open stream keeps live, so a webhook call learns it
// beside its secret and never asks this object unless someone listens.
import { DurableObject } from "cloudflare:workers";
import { dbOver } from "../../db";
import { HEARTBEAT_MS, SSE_HEADERS, frame } from "../../stream/sse";
import { dropListener, keepListeners } from "./listener-rows";

const encoder = new TextEncoder();

interface HubEnv {
  DB: D1Database;
  EXECUTION_EVENTS: DurableObjectNamespace;
}

export class WebhookListeners extends DurableObject<HubEnv> {
  private readonly open = new Map<string, WritableStreamDefaultWriter<Uint8Array>>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  /** `GET /stream/{listenerId}` (a live listener: the route checked its row): `listenerReady`, then the runs' frames. */
  async fetch(request: Request): Promise<Response> {
    const id = decodeURIComponent(new URL(request.url).pathname.split("/").pop() ?? "");
    this.close(id); // one stream per listener: a reconnect replaces it
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    this.open.set(id, writer);
    this.send(id, writer, frame("listenerReady", { listenerId: id }));
    this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_MS);
    request.signal?.addEventListener("abort", () => this.lost(id, writer), { once: true });
    await keepListeners(dbOver(this.env.DB), [id]);
    return new Response(readable, { headers: SSE_HEADERS });
  }

  /** The listener removed: its stream ends, its row goes. */
  async end(id: string): Promise<void> {
    this.close(id);
    await dropListener(dbOver(this.env.DB), id);
  }

  /** Copies a run's SSE records to every open stream until the run's stream ends (the listeners' stay open). */
  async relay(records: ReadableStream<Uint8Array>): Promise<void> {
    const reader = records.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const [id, writer] of this.open) this.send(id, writer, value);
      }
    } catch {
      // The run's stream failed: the listeners stay open for the next call.
    }
  }

  /**
   * An async run's frames, from the start of its execution's event log, to every open stream. Answers
   * at once: the run outlives the webhook's request, and the open streams keep this object alive.
   */
  relayExecution(executionId: string): void {
    const events = this.env.EXECUTION_EVENTS.get(this.env.EXECUTION_EVENTS.idFromName(executionId));
    const copied = events
      .fetch("https://execution-events/?after=0")
      .then((res) => (res.body ? this.relay(res.body) : undefined))
      .catch(() => undefined);
    this.ctx.waitUntil(copied);
  }

  /** Every HEARTBEAT_MS: a comment down each stream (proxies keep it) and the listeners' rows kept live. */
  private beat(): void {
    for (const [id, writer] of this.open) this.send(id, writer, ":heartbeat\n\n");
    keepListeners(dbOver(this.env.DB), [...this.open.keys()]).catch(() => undefined);
  }

  private send(id: string, writer: WritableStreamDefaultWriter<Uint8Array>, chunk: string | Uint8Array): void {
    writer.write(typeof chunk === "string" ? encoder.encode(chunk) : chunk).catch(() => this.lost(id, writer));
  }

  /** A stream gone (its canvas closed, a write failed): the listener ends, unless a newer stream took its id. */
  private lost(id: string, writer: WritableStreamDefaultWriter<Uint8Array>): void {
    if (this.open.get(id) !== writer) return;
    this.end(id).catch(() => undefined);
  }

  private close(id: string): void {
    const writer = this.open.get(id);
    if (!writer) return;
    this.open.delete(id);
    writer.close().catch(() => undefined);
    if (!this.open.size && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }
}
