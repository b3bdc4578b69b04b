// LangChain's RecordManager over D1 (the `record_manager` table): which chunk hashes a namespace
// has indexed, when, from which source (group) and loader (docId). Key lists travel as one JSON
// parameter (json_each), so thousands of keys are one statement, not hundreds.
import { RecordManager, type ListKeyOptions, type UpdateOptions } from "@langchain/core/indexing";
import { sql } from "drizzle-orm";
import type { Db } from "../../env";
import { type Stmt, jsonInsert, runBatchPaced } from "../vectorstores/d1-json";

export interface D1UpdateOptions extends UpdateOptions {
  /** The loader (document store docId) of each key, so a loader's vectors can be found. */
  docIds?: (string | null)[];
}

const KEYS_PER_QUERY = 20_000;

export class D1RecordManager extends RecordManager {
  lc_namespace = ["edgeflow", "recordmanagers", "d1"];

  constructor(
    private readonly db: Db,
    readonly namespace: string,
  ) {
    super();
  }

  async createSchema(): Promise<void> {
    // The table comes with the migrations.
  }

  /**
   * Milliseconds, and always later than anything this namespace recorded: workerd's clock only
   * moves on I/O, and a cleanup that compares times must never see two runs at the same instant.
   */
  async getTime(): Promise<number> {
    const row = await this.db.get<{ latest: number | null }>(
      sql`SELECT MAX(updatedAt) AS latest FROM record_manager WHERE namespace = ${this.namespace}`,
    );
    return Math.max(Date.now(), (row?.latest ?? 0) + 1);
  }

  async update(keys: string[], options: D1UpdateOptions = {}): Promise<void> {
    if (!keys.length) return;
    const { groupIds, docIds, timeAtLeast } = options;
    if (groupIds && groupIds.length !== keys.length) throw new Error("groupIds must match keys");
    const time = Math.max(await this.getTime(), timeAtLeast ?? 0);
    const rows = keys.map((k, i) => [k, groupIds?.[i] ?? null, docIds?.[i] ?? null, time]);
    await runBatchPaced(
      this.db,
      jsonInsert(
        "INSERT INTO record_manager (namespace, key, groupId, docId, updatedAt)",
        [this.namespace],
        rows,
        "ON CONFLICT (namespace, key) DO UPDATE SET updatedAt = excluded.updatedAt, groupId = excluded.groupId, " +
          "docId = COALESCE(excluded.docId, record_manager.docId)",
      ),
    );
  }

  async exists(keys: string[]): Promise<boolean[]> {
    const found = new Set<string>();
    for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
      const json = JSON.stringify(keys.slice(i, i + KEYS_PER_QUERY));
      const rows = await this.db.all<{ key: string }>(
        sql`SELECT key FROM record_manager WHERE namespace = ${this.namespace} AND key IN (SELECT value FROM json_each(${json}))`,
      );
      for (const r of rows) found.add(r.key);
    }
    return keys.map((k) => found.has(k));
  }

  async listKeys(options: ListKeyOptions & { docId?: string } = {}): Promise<string[]> {
    const conditions = [sql`namespace = ${this.namespace}`];
    if (options.before !== undefined) conditions.push(sql`updatedAt < ${options.before}`);
    if (options.after !== undefined) conditions.push(sql`updatedAt > ${options.after}`);
    if (options.docId !== undefined) conditions.push(sql`docId = ${options.docId}`);
    if (options.groupIds)
      conditions.push(sql`groupId IN (SELECT value FROM json_each(${JSON.stringify(options.groupIds.filter((g) => g !== null))}))`);
    const limit = options.limit ? sql` LIMIT ${options.limit}` : sql``;
    const rows = await this.db.all<{ key: string }>(
      sql`SELECT key FROM record_manager WHERE ${sql.join(conditions, sql` AND `)} ORDER BY updatedAt, key${limit}`,
    );
    return rows.map((r) => r.key);
  }

  async deleteKeys(keys: string[]): Promise<void> {
    if (!keys.length) return;
    const statements: Stmt[] = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
      statements.push({
        sql: "DELETE FROM record_manager WHERE namespace = ? AND key IN (SELECT value FROM json_each(?))",
        params: [this.namespace, JSON.stringify(keys.slice(i, i + KEYS_PER_QUERY))],
      });
    }
    await runBatchPaced(this.db, statements);
  }

  /** Every key of the namespace is gone (the store or its vector store was deleted). */
  async clear(): Promise<number> {
    const rows = await this.db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM record_manager WHERE namespace = ${this.namespace}`);
    await this.db.run(sql`DELETE FROM record_manager WHERE namespace = ${this.namespace}`);
    return rows[0]?.n ?? 0;
  }
}
