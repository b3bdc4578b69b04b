// One Durable Object per detached execution: the run's frames, numbered, kept for replay, and
// fanned out live to every client following `GET /executions/{id}/events`. A Durable Object is the
// one place that both the Workflow writing the frames and every isolate serving a follower see.
// A run cut off by a restart sends some frames again (event-log.ts keys them): a frame whose key is
// kept already is dropped, and a step's new attempt replaces the frames its earlier attempt left, so
// the log repeats none.
import { DurableObject } from "cloudflare:workers";

/** A frame as Flowise's stream carries it: `{event, data}`. */
export interface RunFrame {
  event: string;
  data: unknown;
}

/**
 * A frame as the run sends it: `key` names it (an append of a key kept already is dropped); `scope`
 * and `attempt` the step attempt that made it (the scope's next attempt replaces its frames).
 */
export interface KeyedFrame extends RunFrame {
  key?: string;
  scope?: string;
  attempt?: string;
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
      // Keys came later (issue 28): an object made before them gains the columns.
      const columns = sql.exec<{ name: string }>("PRAGMA table_info(frame)").toArray();
      if (!columns.some((c) => c.name === "key")) {
        sql.exec("ALTER TABLE frame ADD COLUMN key TEXT");
        sql.exec("ALTER TABLE frame ADD COLUMN scope TEXT");
      }
      sql.exec("CREATE UNIQUE INDEX IF NOT EXISTS frame_key ON frame (key)");
      sql.exec("CREATE INDEX IF NOT EXISTS frame_scope ON frame (scope)");
      sql.exec(
        "CREATE TABLE IF NOT EXISTS frame_attempt (scope TEXT NOT NULL, attempt TEXT NOT NULL, current INTEGER NOT NULL, " +
          "PRIMARY KEY (scope, attempt))",
      );
      this.ready = true;
    }
    return sql;
  }

  /**
   * Appends frames in order and sends them to every follower; `end` closes the followers. A frame
   * whose key is kept already, or made by an attempt its scope's next one superseded, is dropped.
   * Answers the last frame's number (0 when none was kept).
   */
  async append(frames: KeyedFrame[]): Promise<number> {
    const sql = this.table();
    let last = 0;
    let ended = false;
    for (const frame of frames) {
      if (frame.scope && frame.attempt && !this.current(sql, frame.scope, frame.attempt)) continue;
      const row = sql
        .exec<{ seq: number }>(
          "INSERT INTO frame (event, data, key, scope) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING RETURNING seq",
          frame.event,
          JSON.stringify(frame.data ?? ""),
          frame.key ?? null,
          frame.scope ?? null,
        )
        .toArray()[0];
      if (!row) continue;
      last = row.seq;
      if (frame.event === "end") ended = true;
      this.broadcast(eventRecord(row.seq, frame));
    }
    if (ended) {
      for (const f of this.followers) this.close(f);
      await this.ctx.storage.setAlarm(Date.now() + KEEP_MS);
    }
    return last;
  }

  /**
   * Whether `attempt` is its scope's current one. An attempt the scope has not seen supersedes the
   * earlier ones and removes their frames (a step that runs again after a restart or a retry starts
   * over); a superseded attempt still sending (a zombie) is dropped. Arrival decides, not clocks.
   */
  private current(sql: SqlStorage, scope: string, attempt: string): boolean {
    const known = sql
      .exec<{ current: number }>("SELECT current FROM frame_attempt WHERE scope = ? AND attempt = ?", scope, attempt)
      .toArray()[0];
    if (known) return known.current === 1;
    sql.exec("UPDATE frame_attempt SET current = 0 WHERE scope = ?", scope);
    sql.exec("DELETE FROM frame WHERE scope = ?", scope);
    sql.exec("INSERT INTO frame_attempt (scope, attempt, current) VALUES (?, ?, 1)", scope, attempt);
    return true;
  }

  /** Forgets every frame (the execution was deleted, or its log's week is over). */
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
