// One Durable Object per detached execution: the run's frames, numbered, kept for replay, and
// fanned out live to every client following `GET /executions/{id}/events`. A Durable Object is the
// one place that both the Workflow writing the frames and every isolate serving a follower see.
import { DurableObject } from "cloudflare:workers";

/** A frame as Flowise's stream carries it: `{event, data}`. */
export interface RunFrame {
  event: string;
  data: unknown;
}

/** How long a finished run's frames stay replayable. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
const HEARTBEAT_MS = 30_000;
const encoder = new TextEncoder();

/** One frame as an SSE record: Flowise's `message:` / `data:` lines with an `id:` first. */
export const eventRecord = (seq: number, frame: RunFrame): string =>
  `id:${seq}\nmessage:\ndata:${JSON.stringify({ event: frame.event, data: frame.data })}\n\n`;

interface Follower {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  heartbeat: ReturnType<typeof setInterval>;
}

export class ExecutionEvents extends DurableObject {
  private readonly followers = new Set<Follower>();
  private ready = false;

  private table(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec("CREATE TABLE IF NOT EXISTS frame (seq INTEGER PRIMARY KEY, event TEXT NOT NULL, data TEXT NOT NULL)");
      this.ready = true;
    }
    return sql;
  }

  /** Appends frames in order and sends them to every follower; `end` closes the followers. */
  async append(frames: RunFrame[]): Promise<number> {
    const sql = this.table();
    let last = 0;
    for (const frame of frames) {
      const row = sql
        .exec<{ seq: number }>("INSERT INTO frame (event, data) VALUES (?, ?) RETURNING seq", frame.event, JSON.stringify(frame.data ?? ""))
        .one();
      last = row.seq;
      this.broadcast(eventRecord(row.seq, frame));
    }
    if (frames.some((f) => f.event === "end")) {
      for (const f of this.followers) this.close(f);
      await this.ctx.storage.setAlarm(Date.now() + KEEP_MS);
    }
    return last;
  }

  /** Forgets every frame (the execution was deleted). */
  async clear(): Promise<void> {
    for (const f of this.followers) this.close(f);
    await this.ctx.storage.deleteAll();
    this.ready = false;
  }

  async alarm(): Promise<void> {
    await this.clear();
  }

  /** Frames after `after` (a Last-Event-ID), as SSE records; then live ones until `end`. */
  async fetch(request: Request): Promise<Response> {
    const after = Number(new URL(request.url).searchParams.get("after") ?? 0) || 0;
    const sql = this.table();
    const rows = sql
      .exec<{ seq: number; event: string; data: string }>("SELECT seq, event, data FROM frame WHERE seq > ? ORDER BY seq", after)
      .toArray();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    let ended = false;
    for (const row of rows) {
      writer.write(encoder.encode(eventRecord(row.seq, { event: row.event, data: JSON.parse(row.data) }))).catch(() => undefined);
      if (row.event === "end") ended = true;
    }
    // A run that already ended replays and closes; one still running also sees what comes next.
    const ends = ended || sql.exec<{ n: number }>("SELECT count(*) AS n FROM frame WHERE event = 'end'").one().n > 0;
    if (ends) writer.close().catch(() => undefined);
    else {
      const follower: Follower = { writer, heartbeat: setInterval(() => this.send(follower, ":heartbeat\n\n"), HEARTBEAT_MS) };
      this.followers.add(follower);
      request.signal?.addEventListener("abort", () => this.close(follower), { once: true });
    }
    return new Response(readable, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
  }

  private broadcast(text: string): void {
    for (const f of this.followers) this.send(f, text);
  }

  private send(f: Follower, text: string): void {
    f.writer.write(encoder.encode(text)).catch(() => this.close(f));
  }

  private close(f: Follower): void {
    if (!this.followers.delete(f)) return;
    clearInterval(f.heartbeat);
    f.writer.close().catch(() => undefined);
  }
}
