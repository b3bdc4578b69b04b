// A pgvector table over the Workers TCP socket API, through postgres.js and our socket (the
// connection code sqlDatabaseChain uses, ../../sql/pg-socket.ts): one connection per operation,
// ended after it (a store has no close hook, and a socket cannot outlive its request). The table
// is Flowise's (LangChain's TypeORMVectorStore): "id" uuid, "pageContent" text, metadata jsonb,
// embedding vector; rows found by `metadata @> filter` and ordered by the distance operator.
// Failures: the server's refusal (authentication, a missing database, a bad query) is a 502 with
// its message, no answer in time a 504, naming the table's server, never the password.
import type postgres from "postgres";
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { redact } from "../../../lib/redact";
import { Deadline, RunAborted } from "../../../lib/run-control";
import { workersPostgres } from "../../sql/pg-socket";

/** Flowise's key of a chat's uploaded files in metadata: such rows answer only that chat (never here). */
const CHAT_ID_KEY = "flowise_chatId";
const PG_TIMEOUT_MS = 30_000;

export interface PgVectorRow {
  id: string;
  pageContent: string;
  metadata: Record<string, unknown>;
  embedding: number[];
}

export interface PgVectorHit {
  id: string;
  pageContent: string | null;
  metadata: unknown;
  distance: number;
  embedding?: string;
}

export interface PgVectorOptions {
  host: string;
  port: number;
  database?: string;
  user?: string;
  password?: string;
  ssl: boolean;
  /** `"table"` or `"schema"."table"`, names already checked. */
  tablePath: string;
  /** `<=>` (cosine), `<#>` (negative inner product) or `<->` (euclidean). */
  operator: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

type Sql = ReturnType<typeof postgres>;

/**
 * Text PostgreSQL's jsonb takes: without NUL (22P05 "unsupported Unicode escape sequence") and with a
 * lone UTF-16 surrogate (half an emoji a PDF or a cut left) as U+FFFD, which JSON would write as "\ud83d" (22P02).
 */
const jsonbText = (s: string) => s.replaceAll("\u0000", "").replace(/\p{Cs}/gu, "\ufffd");

/** Metadata with every string and key as jsonbText (PDF metadata carries NULs). */
function jsonbSafe(value: unknown): unknown {
  if (typeof value === "string") return jsonbText(value);
  if (Array.isArray(value)) return value.map(jsonbSafe);
  if (typeof value !== "object" || value === null || ![Object.prototype, null].includes(Object.getPrototypeOf(value))) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [jsonbText(k), jsonbSafe(v)]));
}

const isServerError = (err: unknown): err is Error & { code: string } =>
  err instanceof Error && typeof (err as { severity?: unknown }).severity === "string";
/** 42P01: the table is not there (nothing written yet). */
const isMissingTable = (err: unknown) => isServerError(err) && err.code === "42P01";

export class PgVectorClient {
  readonly label: string;

  constructor(private readonly o: PgVectorOptions) {
    this.label = `Postgres at ${o.host}:${o.port}${o.database ? `/${o.database}` : ""}`;
  }

  /** Runs `work` on a fresh connection under a deadline, then ends it; failures as the header says. */
  private async run<T>(what: string, work: (sql: Sql) => Promise<T>, missingTable?: () => T): Promise<T> {
    const ms = this.o.timeoutMs ?? PG_TIMEOUT_MS;
    const deadline = new Deadline(ms, this.o.signal);
    const sql = workersPostgres({
      host: this.o.host,
      port: this.o.port,
      database: this.o.database,
      username: this.o.user,
      password: this.o.password,
      ssl: this.o.ssl ? "require" : false,
      connect_timeout: Math.max(1, Math.ceil(ms / 1000)),
      idle_timeout: 1,
    });
    try {
      return await deadline.race(work(sql));
    } catch (err) {
      if (missingTable && isMissingTable(err)) return missingTable();
      if (deadline.aborted) throw new RunAborted();
      if (deadline.timedOut || (err as { code?: unknown })?.code === "CONNECT_TIMEOUT")
        throw fail("TIMEOUT", `${this.label} ${what} did not answer within ${Math.round(ms)} ms`);
      if (err instanceof ApiError) throw err;
      const secrets = this.o.password ? [this.o.password] : [];
      const detail = redact(errorMessage(err), secrets);
      if (isServerError(err)) throw fail("UPSTREAM_FAILED", `${this.label} ${what} failed: ${detail}`);
      throw fail("UPSTREAM_FAILED", `${this.label} ${what} failed: cannot be reached (${detail})`);
    } finally {
      deadline.done();
      void sql.end({ timeout: 1 }).catch(() => undefined);
    }
  }

  /** Flowise's table, made when missing (the pgvector extension first, as Flowise does). */
  async ensureTable(): Promise<void> {
    await this.run("create table", async (sql) => {
      await sql.unsafe("CREATE EXTENSION IF NOT EXISTS vector");
      await sql.unsafe(
        `CREATE TABLE IF NOT EXISTS ${this.o.tablePath} ("id" uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, ` +
          `"pageContent" text, metadata jsonb, embedding vector)`,
      );
    });
  }

  /** Inserts the rows, or replaces those with the same id. */
  async upsert(rows: PgVectorRow[]): Promise<void> {
    if (!rows.length) return;
    const values = rows.map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`).join(", ");
    // jsonb parameters are sent as objects (postgres.js serializes by the type the server names); text cannot hold NUL (22021).
    const params = rows.flatMap((r) => [r.id, r.pageContent.replace(/\0/g, ""), jsonbSafe(r.metadata), `[${r.embedding.join(",")}]`]);
    await this.run("upsert", (sql) =>
      sql.unsafe(
        `INSERT INTO ${this.o.tablePath} ("id", "pageContent", metadata, embedding) VALUES ${values} ` +
          `ON CONFLICT ("id") DO UPDATE SET "pageContent" = EXCLUDED."pageContent", metadata = EXCLUDED.metadata, ` +
          "embedding = EXCLUDED.embedding",
        params as never[],
      ),
    );
  }

  /** The ids of `ids` the table holds (lower-case UUIDs). */
  async existing(ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const list = ids.map((_, i) => `$${i + 1}`).join(", ");
    const rows = await this.run(
      "read ids",
      (sql) => sql.unsafe(`SELECT "id"::text AS id FROM ${this.o.tablePath} WHERE "id" IN (${list})`, ids),
      () => [],
    );
    return [...rows].map((r) => String((r as { id: unknown }).id));
  }

  async deleteIds(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const list = ids.map((_, i) => `$${i + 1}`).join(", ");
    await this.run(
      "delete",
      (sql) => sql.unsafe(`DELETE FROM ${this.o.tablePath} WHERE "id" IN (${list})`, ids),
      () => undefined,
    );
  }

  /**
   * The k nearest rows whose metadata contains `filter` (Flowise's query: rows of a chat's uploads,
   * metadata flowise_chatId, are left out), nearest first; [] when the table does not exist yet.
   */
  async search(vector: number[], k: number, filter: Record<string, unknown>, withEmbedding = false): Promise<PgVectorHit[]> {
    const { [CHAT_ID_KEY]: _chat, ...rest } = filter;
    const rows = await this.run(
      "search",
      (sql) =>
        sql.unsafe(
          `SELECT "id"::text AS id, "pageContent", metadata, embedding ${this.o.operator} $1 AS "_distance"` +
            `${withEmbedding ? ", embedding::text AS embedding" : ""} FROM ${this.o.tablePath} ` +
            `WHERE metadata @> $2 AND NOT (metadata ? '${CHAT_ID_KEY}') ORDER BY "_distance" ASC LIMIT $3`,
          [`[${vector.join(",")}]`, rest, k] as never[],
        ),
      () => [],
    );
    return [...rows].map((r) => {
      const row = r as Record<string, unknown>;
      return {
        id: String(row.id),
        pageContent: typeof row.pageContent === "string" ? row.pageContent : null,
        metadata: row.metadata,
        distance: Number(row._distance),
        ...(typeof row.embedding === "string" ? { embedding: row.embedding } : {}),
      };
    });
  }
}
