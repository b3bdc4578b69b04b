import { and, asc, desc, eq, gte, inArray, lte } from "drizzle-orm";
import type { Db } from "../env";
import { upsertHistory } from "../db/schema";
import { D1_MAX_PARAMS, chunk } from "../lib/chunk";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";

export function listUpsertHistory(db: Db, chatflowid: string, q: { order?: "ASC" | "DESC"; startDate?: string; endDate?: string }) {
  const h = upsertHistory;
  const direction = q.order === "DESC" ? desc : asc;
  return db.select().from(h).where(and(
    eq(h.chatflowid, chatflowid),
    q.startDate ? gte(h.date, q.startDate) : undefined,
    q.endDate ? lte(h.date, q.endDate) : undefined,
  )).orderBy(direction(h.date), direction(h.id)).all();
}

export async function deleteUpsertHistory(db: Db, ids: string[]): Promise<number> {
  let deleted = 0;
  for (const part of chunk(ids, D1_MAX_PARAMS)) {
    deleted += (await db.delete(upsertHistory).where(inArray(upsertHistory.id, part)).returning({ id: upsertHistory.id })).length;
  }
  return deleted;
}

/** Written by vector upserts: what was upserted, with the graph that did it. */
export async function recordUpsert(db: Db, chatflowid: string, result: unknown, flowData: string) {
  const [row] = await db.insert(upsertHistory).values({ id: newId(), chatflowid, result: JSON.stringify(result), flowData, date: nowIso() }).returning();
  return row;
}
