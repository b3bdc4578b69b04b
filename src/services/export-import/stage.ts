// An import's rows on their way in. While the file is read they are staged in import_stage, as
// JSON arrays of at most STAGE_PART_BYTES per row (D1 takes 2 MB per value), a handful of
// statements for tens of thousands of records. Once every record and reference checked out, one D1
// batch — one transaction — moves them from there into their tables: the whole file or nothing.
// Records already stored under the same id are replaced by the file's ("the file wins").
import type { Db } from "../../env";
import { badRequest } from "../../errors";
import { nowIso } from "../../lib/time";
import { utf8Length } from "../../lib/utf8";
import { type Stmt, runBatchPaced } from "../../providers/vectorstores/d1-json";
import { TABLES, TABLE_ORDER, type TableName } from "./tables";
import type { Deps } from "../deps";

/** Bytes of JSON rows per staged part: under D1's 2 MB per value, with room for the brackets. */
export const STAGE_PART_BYTES = 1_800_000;
/** Staged parts of an import that never finished (its worker died) are swept after this long. */
const STALE_STAGE_MS = 24 * 60 * 60 * 1000;

const client = (db: Db) => (db as unknown as { $client: D1Database }).$client;

/** The ids `sql` answers (column `id`) for `ids`, passed as one JSON array to each `?` (split when large). */
export async function storedIds({ db }: Deps<"db">, sql: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const params = sql.split("?").length - 1;
  const d1 = client(db);
  let part: string[] = [];
  let bytes = 0;
  const run = async () => {
    if (!part.length) return;
    const json = JSON.stringify(part);
    const { results } = await d1
      .prepare(sql)
      .bind(...Array(params).fill(json))
      .all<{ id: string }>();
    for (const r of results) found.add(r.id);
    part = [];
    bytes = 0;
  };
  for (const id of ids) {
    part.push(id);
    bytes += id.length + 3;
    if (bytes > STAGE_PART_BYTES) await run();
  }
  await run();
  return found;
}

export class Stager {
  private readonly parts = new Map<TableName, { rows: string[]; bytes: number }>();
  private seq = 0;
  readonly rows: Record<TableName, number> = Object.fromEntries(TABLE_ORDER.map((t) => [t, 0])) as Record<TableName, number>;

  constructor(
    private readonly db: Db,
    readonly importId: string,
  ) {}

  /** Adds a row; writes its table's part to import_stage when it is full. */
  async add(table: TableName, row: unknown[], label: string): Promise<void> {
    const json = JSON.stringify(row);
    const bytes = utf8Length(json) + 1;
    if (bytes > STAGE_PART_BYTES)
      throw badRequest(`${label} is too large to store (${bytes} bytes; a record holds at most ${STAGE_PART_BYTES})`);
    let part = this.parts.get(table);
    if (part && part.bytes + bytes > STAGE_PART_BYTES) {
      await this.write(table, part.rows);
      part = undefined;
    }
    if (!part) this.parts.set(table, (part = { rows: [], bytes: 2 }));
    part.rows.push(json);
    part.bytes += bytes;
    this.rows[table]++;
  }

  /** Writes every part still in memory. */
  async flush(): Promise<void> {
    for (const [table, part] of this.parts) if (part.rows.length) await this.write(table, part.rows);
    this.parts.clear();
  }

  private async write(table: TableName, rows: string[]): Promise<void> {
    await client(this.db)
      .prepare("INSERT INTO import_stage (importId, tableName, seq, rows, createdDate) VALUES (?, ?, ?, ?, ?)")
      .bind(this.importId, table, ++this.seq, `[${rows.join(",")}]`, nowIso())
      .run();
    rows.length = 0;
  }

  /** Removes this import's staged rows (after the commit, or when it failed), and any left by imports that died a day ago. */
  async drop(): Promise<void> {
    await runBatchPaced(this.db, [
      { sql: "DELETE FROM import_stage WHERE importId = ?", params: [this.importId] },
      { sql: "DELETE FROM import_stage WHERE createdDate < ?", params: [new Date(Date.now() - STALE_STAGE_MS).toISOString()] },
    ]);
  }
}

/** The staged rows of one table as a SELECT list over json_each (`f` aliases each column by name). */
function staged(table: TableName, expressions: Partial<Record<string, string>> = {}): string {
  const columns = TABLES[table].map((c, i) => `${expressions[c] ?? `json_extract(j.value, '$[${i}]')`} AS "${c}"`);
  return `SELECT ${columns.join(", ")} FROM import_stage s, json_each(s.rows) j WHERE s.importId = ? AND s.tableName = '${table}'`;
}

const keyColumn = (table: TableName) => TABLES[table][0];

/** How many of the staged records replace stored ones, per table. */
export async function countReplaced({ db }: Deps<"db">, importId: string, tables: TableName[]): Promise<Record<TableName, number>> {
  const statements: Stmt[] = tables.map((t) => ({
    sql:
      `SELECT COUNT(*) AS n FROM ${t} WHERE ${keyColumn(t)} IN (SELECT json_extract(j.value, '$[0]') FROM ` +
      `import_stage s, json_each(s.rows) j WHERE s.importId = ? AND s.tableName = '${t}')`,
    params: [importId],
  }));
  const results = await runBatchPaced(db, statements);
  return Object.fromEntries(tables.map((t, i) => [t, Number((results[i].results[0] as { n: number }).n)])) as Record<TableName, number>;
}

const insertAll = (table: TableName, importId: string, expressions?: Partial<Record<string, string>>): Stmt => ({
  sql: `INSERT OR REPLACE INTO ${table} (${TABLES[table].map((c) => `"${c}"`).join(", ")}) ${staged(table, expressions)}`,
  params: [importId],
});

/** One column (by position) of a table's staged rows. */
const stagedIds = (table: TableName, at: number) =>
  `SELECT json_extract(j.value, '$[${at}]') FROM import_stage s, json_each(s.rows) j WHERE s.importId = ? AND s.tableName = '${table}'`;

/** The statements that move the staged rows into place, in one batch. */
function commitStatements(importId: string, tables: Set<TableName>): Stmt[] {
  const out: Stmt[] = [];
  const storeIds = stagedIds("document_store", 0);
  for (const table of TABLE_ORDER) {
    if (!tables.has(table)) continue;
    if (table === "chat_flow") {
      // A flow the file makes no schedule loses the schedule row it had here (as a save does).
      out.push({
        sql:
          `DELETE FROM schedule_record WHERE triggerType = 'AGENTFLOW' AND targetId IN (${stagedIds("chat_flow", 0)}) ` +
          `AND targetId NOT IN (${stagedIds("schedule_record", TABLES.schedule_record.indexOf("targetId"))})`,
        params: [importId, importId],
      });
    }
    if (table === "schedule_record") {
      // The row a save makes: a new one enabled when it can be, one already here keeping its switch unless it can no longer be on.
      const columns = TABLES.schedule_record;
      const kept = new Set(["id", "triggerType", "targetId", "enabled", "createdDate"]);
      const set = columns.filter((c) => !kept.has(c)).map((c) => `"${c}" = excluded."${c}"`);
      out.push({
        sql:
          `INSERT INTO schedule_record (${columns.map((c) => `"${c}"`).join(", ")}) ${staged(table)} ` +
          `ON CONFLICT (targetId, triggerType) DO UPDATE SET ${set.join(", ")}, enabled = schedule_record.enabled AND excluded.enabled`,
        params: [importId],
      });
      continue;
    }
    if (table === "document_store") {
      // A store in the file comes with its loaders and chunks: those stored before are the file's now.
      out.push({ sql: `DELETE FROM document_store_loader WHERE storeId IN (${storeIds})`, params: [importId] });
      out.push({ sql: `DELETE FROM document_store_file_chunk WHERE storeId IN (${storeIds})`, params: [importId] });
    }
    if (table === "variable") {
      // Flowise exports every variable's value empty: an empty value never wipes one stored here
      // (same id, else same name). A stored variable of the same name and another id gives way.
      out.push({
        sql:
          `INSERT OR REPLACE INTO variable (id, name, value, type, createdDate, updatedDate)
          SELECT f.id, f.name, COALESCE(NULLIF(f.value, ''), (SELECT v.value FROM variable v WHERE v.id = f.id), ` +
          `(SELECT v.value FROM variable v WHERE v.name = f.name), ''),
            f.type, f.createdDate, f.updatedDate FROM (${staged("variable")}) f`,
        params: [importId],
      });
      continue;
    }
    if (table === "chat_message") {
      // A message's execution that was not exported is forgotten (Flowise does the same).
      const at = TABLES.chat_message.indexOf("executionId");
      const ref = `json_extract(j.value, '$[${at}]')`;
      out.push(
        insertAll(table, importId, { executionId: `CASE WHEN EXISTS (SELECT 1 FROM execution e WHERE e.id = ${ref}) THEN ${ref} END` }),
      );
      continue;
    }
    out.push(insertAll(table, importId));
  }
  return out;
}

/** Moves every staged row into its table: one D1 batch, so all of them or none. */
export async function commitStaged({ db }: Deps<"db">, importId: string, tables: Set<TableName>): Promise<void> {
  await runBatchPaced(db, commitStatements(importId, tables));
}
