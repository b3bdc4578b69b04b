import { type SQL, count, desc, eq } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../env";
import { conflict, notFound } from "../errors";
import { isUniqueViolation } from "../db/errors";
import { nowIso } from "../lib/time";
import { newId } from "../lib/ids";
import type { PageQueryInput } from "../schemas/common";

// The shared record rules: server ids unless the client brings an unused one (409 otherwise),
// 404 for unknown ids, updatedDate on every write, `{deleted}` answers.

type Table = SQLiteTable & { id: SQLiteColumn; createdDate: SQLiteColumn };
type Row<T extends Table> = T["$inferSelect"];

export interface Resource<T extends Table> {
  table: T;
  /** Name used in messages: "Tool 1234 not found". */
  label: string;
  /** Its SQL name, as SQLite reports it in constraint errors. */
  sqlName: string;
}

export async function insertRecord<T extends Table>(
  db: Db,
  res: Resource<T>,
  values: Omit<T["$inferInsert"], "id" | "createdDate" | "updatedDate"> & { id?: string },
): Promise<Row<T>> {
  const now = nowIso();
  const row = { ...values, id: values.id ?? newId(), createdDate: now, ...("updatedDate" in res.table ? { updatedDate: now } : {}) };
  try {
    const [created] = await db
      .insert(res.table)
      .values(row as never)
      .returning();
    return created as Row<T>;
  } catch (err) {
    if (isUniqueViolation(err, `${res.sqlName}.id`)) throw conflict(`${res.label} ${row.id} already exists`);
    throw err;
  }
}

export async function findRecord<T extends Table>(db: Db, res: Resource<T>, id: string): Promise<Row<T>> {
  const row = await db
    .select()
    .from(res.table as SQLiteTable)
    .where(eq(res.table.id, id))
    .get();
  if (!row) throw notFound(`${res.label} ${id} not found`);
  return row as Row<T>;
}

export async function updateRecord<T extends Table>(
  db: Db,
  res: Resource<T>,
  id: string,
  patch: Partial<T["$inferInsert"]>,
): Promise<Row<T>> {
  const changes: Record<string, unknown> = Object.fromEntries(
    Object.entries(patch).filter(([k, v]) => v !== undefined && k !== "id" && k !== "createdDate"),
  );
  if ("updatedDate" in res.table) changes.updatedDate = nowIso();
  else if (!Object.keys(changes).length) return findRecord(db, res, id);
  const updated = await db
    .update(res.table)
    .set(changes as never)
    .where(eq(res.table.id, id))
    .returning();
  if (!updated.length) throw notFound(`${res.label} ${id} not found`);
  return updated[0] as Row<T>;
}

export async function deleteRecord<T extends Table>(db: Db, res: Resource<T>, id: string): Promise<{ deleted: number }> {
  const deleted = await db.delete(res.table).where(eq(res.table.id, id)).returning({ id: res.table.id });
  if (!deleted.length) throw notFound(`${res.label} ${id} not found`);
  return { deleted: deleted.length };
}

export type Listed<R> = R[] | { data: R[]; total: number };

/** Newest first; `{data, total}` when `page` or `limit` is given (one D1 round trip). */
export async function listRecords<T extends Table, R = Row<T>>(
  db: Db,
  res: Resource<T>,
  page: PageQueryInput,
  options: { where?: SQL; map?: (row: Row<T>) => R; columns?: Record<string, SQLiteColumn> } = {},
): Promise<Listed<R>> {
  const map = options.map ?? ((row: Row<T>) => row as unknown as R);
  // `columns` leaves large ones out of a list; `map` then sees only those.
  const base = (options.columns ? db.select(options.columns) : db.select())
    .from(res.table as SQLiteTable)
    .where(options.where)
    .orderBy(desc(res.table.createdDate), desc(res.table.id));
  if (page.page === undefined && page.limit === undefined) {
    return ((await base.all()) as Row<T>[]).map(map);
  }
  const limit = page.limit ?? 50;
  const offset = ((page.page ?? 1) - 1) * limit;
  const [rows, totals] = await db.batch([
    base.limit(limit).offset(offset),
    db
      .select({ total: count() })
      .from(res.table as SQLiteTable)
      .where(options.where),
  ]);
  return { data: (rows as Row<T>[]).map(map), total: totals[0]?.total ?? 0 };
}
