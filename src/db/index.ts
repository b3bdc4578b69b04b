import { DrizzleD1Database, SQLiteD1Session, drizzle } from "drizzle-orm/d1";
import type { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

/** The database client; without `query` (dbOver builds no relational query builders). */
export type Db = Omit<DrizzleD1Database<typeof schema>, "query">;

// drizzle() walks the whole schema to build its relational config: once per D1 binding, not per
// request (an isolate keeps the same binding object; the client holds no per-request state).
const clients = new WeakMap<D1Database, Db>();

export function createDb(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) clients.set(d1, (db = drizzle(d1, { schema })));
  return db;
}

// What a client over a per-request D1 session shares with every other: the dialect (taken once per
// isolate from a template). No relational config: nothing uses `db.query`, and building one query
// builder per table on every request cost about 0.25 ms of a prediction's CPU.
let dialect: SQLiteAsyncDialect | undefined;

/**
 * A client over one request's D1 session (lib/d1-session.ts), or the simulation's wrapper around it
 * (lib/d1-simulation.ts): built per request without walking the schema.
 */
export function dbOver(client: Pick<D1DatabaseSession, "prepare" | "batch">): Db {
  dialect ??= (drizzle({} as D1Database) as unknown as { dialect: SQLiteAsyncDialect }).dialect;
  const d1 = client as unknown as D1Database; // Drizzle calls only prepare and batch on it
  const session = new SQLiteD1Session(d1, dialect, undefined, {});
  const db = new DrizzleD1Database<typeof schema>("async", dialect, session as never, undefined);
  return Object.assign(db, { $client: client }) as Db;
}
