import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
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
