// A SingleStore table over our MySQL wire-protocol client (../../sql/mysql/): one connection per
// operation, closed after it. The table is LangChain's SingleStoreVectorStore's (what Flowise's node
// writes): id BIGINT AUTO_INCREMENT PRIMARY KEY, the content LONGTEXT, the vector a BLOB packed by
// JSON_ARRAY_PACK, the metadata JSON; searched by DOT_PRODUCT (or EUCLIDEAN_DISTANCE) against the
// packed query, filtered by JSON_EXTRACT_JSON(metadata, key…) = the value as JSON, as LangChain does.
// Our rows carry their id explicitly (a number made from the vector's id), so they can be replaced,
// found and deleted; rows written elsewhere keep their own. Failures are 502s naming the server
// (refused, unreachable, a statement's ERR), 504 when it does not answer in time; never the password.
import { fail } from "../../../errors";
import { MySqlError, type MySqlOptions, escapeId, format, labelOf, type SqlValue, withMySql } from "../../sql/mysql/session";

const SINGLESTORE_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** MySQL's ER_NO_SUCH_TABLE: nothing written yet. */
const NO_SUCH_TABLE = 1146;

export interface SingleStoreColumns {
  content: string;
  vector: string;
  metadata: string;
}

export interface SingleStoreOptions extends MySqlOptions {
  table: string;
  columns: SingleStoreColumns;
  /** DOT_PRODUCT (higher nearer, LangChain's default) or EUCLIDEAN_DISTANCE (lower nearer). */
  metric: "DOT_PRODUCT" | "EUCLIDEAN_DISTANCE";
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface SingleStoreRow {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  vector: number[];
}

export interface SingleStoreHit {
  content: string | null;
  metadata: unknown;
  score: number;
}

/** LangChain's filter: each leaf `JSON_EXTRACT_JSON(metadata, k1, …, kn) = 'value as JSON'`, ANDed. */
function whereOf(metadata: string, filter: Record<string, unknown>, path: string[] = []): { sql: string[]; args: SqlValue[] } {
  const sql: string[] = [];
  const args: SqlValue[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const inner = whereOf(metadata, value as Record<string, unknown>, [...path, key]);
      sql.push(...inner.sql);
      args.push(...inner.args);
    } else {
      sql.push(`JSON_EXTRACT_JSON(${metadata}, ${[...path, key].map(() => "?").join(", ")}) = ?`);
      args.push(...path, key, JSON.stringify(value));
    }
  }
  return { sql, args };
}

export class SingleStoreClient {
  readonly label: string;
  private readonly t: string;
  private readonly c: SingleStoreColumns;

  constructor(private readonly o: SingleStoreOptions) {
    this.label = labelOf("SingleStore", o);
    this.t = escapeId(o.table);
    this.c = { content: escapeId(o.columns.content), vector: escapeId(o.columns.vector), metadata: escapeId(o.columns.metadata) };
  }

  /** Runs `sql` (its `?` bound) on a fresh connection; a missing table answers `missingTable()` when given. */
  private async run<T>(
    what: string,
    work: (q: (sql: string, args?: SqlValue[]) => Promise<Record<string, unknown>[]>) => Promise<T>,
    missingTable?: () => T,
  ) {
    const settings = {
      label: this.label,
      timeoutMs: this.o.timeoutMs ?? SINGLESTORE_TIMEOUT_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      signal: this.o.signal,
    };
    try {
      return await withMySql(this.o, settings, (conn) =>
        work(async (sql, args = []) => (await conn.query(format(sql, args, conn.noBackslashEscapes))).rows),
      );
    } catch (err) {
      if (!(err instanceof MySqlError)) throw err;
      if (missingTable && err.errno === NO_SUCH_TABLE) return missingTable();
      throw fail("UPSTREAM_FAILED", `${this.label} ${what} failed: ${err.message} (${err.errno})`);
    }
  }

  /** LangChain's table, made when missing. */
  async ensureTable(): Promise<void> {
    const { c } = this;
    await this.run("create table", (q) =>
      q(
        `CREATE TABLE IF NOT EXISTS ${this.t} (\`id\` BIGINT AUTO_INCREMENT PRIMARY KEY, ` +
          `${c.content} LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, ${c.vector} BLOB, ${c.metadata} JSON)`,
      ),
    );
  }

  /** Inserts the rows, or replaces those with the same id. */
  async upsert(rows: SingleStoreRow[]): Promise<void> {
    if (!rows.length) return;
    const { c } = this;
    const values = rows.map(() => "(?, ?, JSON_ARRAY_PACK(?), ?)").join(", ");
    const args = rows.flatMap((r) => [Number(r.id), r.content, JSON.stringify(r.vector), JSON.stringify(r.metadata)]);
    await this.run("upsert", (q) =>
      q(
        `INSERT INTO ${this.t} (\`id\`, ${c.content}, ${c.vector}, ${c.metadata}) VALUES ${values} ON DUPLICATE KEY UPDATE ` +
          [c.content, c.vector, c.metadata].map((col) => `${col} = VALUES(${col})`).join(", "),
        args,
      ),
    );
  }

  /** The ids of `ids` the table holds. */
  async existing(ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.run(
      "read ids",
      (q) => q(`SELECT \`id\` FROM ${this.t} WHERE \`id\` IN (?)`, [ids.map(Number)]),
      () => [],
    );
    return rows.map((r) => String(r.id));
  }

  async deleteIds(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.run(
      "delete",
      (q) => q(`DELETE FROM ${this.t} WHERE \`id\` IN (?)`, [ids.map(Number)]),
      () => [],
    );
  }

  /** The k best rows for `vector` (best first) whose metadata matches `filter`; [] when the table does not exist yet. */
  async search(vector: number[], k: number, filter: Record<string, unknown> = {}): Promise<SingleStoreHit[]> {
    const { c } = this;
    const where = whereOf(c.metadata, filter);
    const order = this.o.metric === "DOT_PRODUCT" ? "DESC" : "ASC";
    const rows = await this.run(
      "search",
      (q) =>
        q(
          `SELECT ${c.content} AS content, ${c.metadata} AS metadata, ${this.o.metric}(${c.vector}, JSON_ARRAY_PACK(?)) AS __score ` +
            `FROM ${this.t} ${where.sql.length ? `WHERE ${where.sql.join(" AND ")} ` : ""}ORDER BY __score ${order} LIMIT ?`,
          [JSON.stringify(vector), ...where.args, k],
        ),
      () => [],
    );
    return rows.map((r) => ({
      content: typeof r.content === "string" ? r.content : null,
      metadata: typeof r.metadata === "string" ? safeJson(r.metadata) : r.metadata,
      score: Number(r.__score),
    }));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
