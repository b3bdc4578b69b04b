// Bulk writes for D1 that stay within its limits: at most 100 bound parameters per statement and
// about 2 MB per value. Rows travel as one JSON array parameter and SQLite unpacks them with
// json_each, so thousands of rows cost a handful of statements instead of hundreds.
import { chunkBy } from "../../lib/chunk";
import { yieldToEventLoop } from "../../lib/pace";
import { utf8Length } from "../../lib/utf8";

/** Bytes of JSON per statement: well under D1's 2 MB value limit. */
const JSON_BATCH_BYTES = 900_000;

/** Splits rows (each an array of column values) into JSON array strings of at most `maxBytes`. */
export function jsonBatches(rows: unknown[][], maxBytes = JSON_BATCH_BYTES): string[] {
  const jsons = rows.map((row) => JSON.stringify(row));
  const bytes = (json: string) => utf8Length(json) + 1; // and its comma
  const large = jsons.find((json) => bytes(json) + 2 > maxBytes);
  if (large !== undefined) throw new Error(`a row of ${bytes(large)} bytes is too large for one D1 statement`);
  return chunkBy(jsons, Number.POSITIVE_INFINITY, maxBytes - 2, bytes).map((part) => `[${part.join(",")}]`);
}

/** `json_extract(value, '$[i]')` for each column: the SELECT list that unpacks one row. */
export const jsonColumns = (count: number): string => Array.from({ length: count }, (_, i) => `json_extract(value, '$[${i}]')`).join(", ");

/** One SQL statement with its parameters, ready for D1. */
export interface Stmt {
  sql: string;
  params: unknown[];
}

/** A Drizzle query as a statement (Drizzle's own batch cannot hold raw SQL with parameters). */
export const stmt = (query: { toSQL(): { sql: string; params: unknown[] } }): Stmt => query.toSQL();

/**
 * Runs statements as one D1 batch: D1 executes a batch as a single transaction, so either all of
 * them take effect or none does. For a request's own reads and writes (a prediction's look-ups and
 * record): no extra turn of the event loop on that path.
 */
export async function runBatch(db: object, statements: Stmt[]): Promise<D1Result[]> {
  if (!statements.length) return [];
  // drizzle(d1) keeps the D1 binding as $client (its type leaves it out).
  const client = (db as { $client: D1Database }).$client;
  return client.batch(statements.map((s) => client.prepare(s.sql).bind(...s.params)));
}

/**
 * runBatch, then one turn of the event loop: for loops of batches (ingestion windows, vector and
 * record-manager writes, imports). Local D1 (wrangler dev, npm start, the tests) answers from the
 * same thread, and such a loop would otherwise never let another request in.
 */
export async function runBatchPaced(db: object, statements: Stmt[]): Promise<D1Result[]> {
  const results = await runBatch(db, statements);
  await yieldToEventLoop();
  return results;
}

/**
 * Multi-row INSERT statements: `fixed` values lead every row, then the row's own columns unpacked
 * from one JSON parameter. `suffix` may add e.g. an ON CONFLICT clause.
 */
export function jsonInsert(head: string, fixed: unknown[], rows: unknown[][], suffix = ""): Stmt[] {
  const width = rows[0]?.length ?? 0;
  const lead = fixed.map(() => "?").join(", ");
  return jsonBatches(rows).map((json) => ({
    sql: `${head} SELECT ${lead}${lead ? ", " : ""}${jsonColumns(width)} FROM json_each(?)${suffix ? ` WHERE true ${suffix}` : ""}`,
    params: [...fixed, json],
  }));
}

/**
 * Multi-row INSERT … VALUES statements with every value bound (D1: at most 100 per statement):
 * `fixed` values bound once as ?1…, then as many rows as fit. No JSON on either side, which pays
 * for rows of a few large values (the local store's vectors: no quotes to escape twice, nothing
 * for SQLite to parse); rows of many small values are cheaper as jsonInsert's one parameter.
 */
export function valuesInsert(head: string, fixed: unknown[], rows: unknown[][], maxParams = 100): Stmt[] {
  const width = rows[0]?.length ?? 0;
  if (!width) return [];
  const perStatement = Math.max(1, Math.floor((maxParams - fixed.length) / width));
  const lead = fixed.map((_, i) => `?${i + 1}`);
  const out: Stmt[] = [];
  for (let from = 0; from < rows.length; from += perStatement) {
    const part = rows.slice(from, from + perStatement);
    const params: unknown[] = [...fixed];
    const tuples = part.map((row) => {
      const marks = row.map((value) => {
        params.push(value);
        return `?${params.length}`;
      });
      return `(${[...lead, ...marks].join(", ")})`;
    });
    out.push({ sql: `${head} VALUES ${tuples.join(", ")}`, params });
  }
  return out;
}
