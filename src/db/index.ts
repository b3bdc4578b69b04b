import { DrizzleD1Database, SQLiteD1Session, drizzle } from "drizzle-orm/d1";
import type { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

// drizzle() walks the whole schema to build its relational config: once per D1 binding, not per
// request (an isolate keeps the same binding object; the client holds no per-request state).
const clients = new WeakMap<D1Database, Db>();

export function createDb(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) clients.set(d1, (db = drizzle(d1, { schema })));
  return db;
}

// What a client over a per-request D1 session shares with every other: the dialect and the
// relational config drizzle() derives from the schema (taken once per isolate from a template).
type Shared = { dialect: SQLiteAsyncDialect; config: ConstructorParameters<typeof SQLiteD1Session>[2] };
let shared: Shared | undefined;

/**
 * A client over one request's D1 session (lib/d1-session.ts), or the simulation's wrapper around it
 * (lib/d1-simulation.ts): built per request without walking the schema again.
 */
export function dbOver(client: Pick<D1DatabaseSession, "prepare" | "batch">): Db {
  if (!shared) {
    const template = drizzle({} as D1Database, { schema }) as unknown as {
      dialect: Shared["dialect"];
      session: { schema: Shared["config"] };
    };
    shared = { dialect: template.dialect, config: template.session.schema };
  }
  const d1 = client as unknown as D1Database; // Drizzle calls only prepare and batch on it
  const session = new SQLiteD1Session(d1, shared.dialect, shared.config, {});
  const db = new DrizzleD1Database<typeof schema>("async", shared.dialect, session as never, shared.config as never);
  return Object.assign(db, { $client: client }) as Db;
}
