import { and, asc, desc, eq, gte, inArray, lte } from "drizzle-orm";
import { notFound } from "../errors";
import { chatFlow, documentStore, upsertHistory } from "../db/schema";
import { D1_MAX_PARAMS, chunk } from "../lib/chunk";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import type { Deps } from "./deps";

/**
 * What upsert history is recorded under: a chatflow (vector upsert) or, as in Flowise, a
 * document store (its vector store inserts). 404 when it is neither.
 */
export async function assertHistoryOwner({ db }: Deps<"db">, id: string): Promise<void> {
  const flow = await db.select({ id: chatFlow.id }).from(chatFlow).where(eq(chatFlow.id, id)).get();
  if (flow) return;
  const store = await db.select({ id: documentStore.id }).from(documentStore).where(eq(documentStore.id, id)).get();
  if (!store) throw notFound(`Chatflow ${id} not found`);
}

export function listUpsertHistory(
  { db }: Deps<"db">,
  chatflowid: string,
  q: { order?: "ASC" | "DESC"; startDate?: string; endDate?: string },
) {
  const h = upsertHistory;
  const direction = q.order === "DESC" ? desc : asc;
  return db
    .select()
    .from(h)
    .where(
      and(eq(h.chatflowid, chatflowid), q.startDate ? gte(h.date, q.startDate) : undefined, q.endDate ? lte(h.date, q.endDate) : undefined),
    )
    .orderBy(direction(h.date), direction(h.id))
    .all();
}

/**
 * Deletes the listed records (only those of `chatflowid` when given). Deleting what does not
 * exist is a 404: when none of the ids names a record.
 */
export async function deleteUpsertHistory({ db }: Deps<"db">, ids: string[], chatflowid?: string): Promise<number> {
  let deleted = 0;
  for (const part of chunk([...new Set(ids)], D1_MAX_PARAMS - 1)) {
    deleted += (
      await db
        .delete(upsertHistory)
        .where(and(inArray(upsertHistory.id, part), chatflowid === undefined ? undefined : eq(upsertHistory.chatflowid, chatflowid)))
        .returning({ id: upsertHistory.id })
    ).length;
  }
  if (!deleted) throw notFound(ids.length === 1 ? `Upsert history ${ids[0]} not found` : "None of the upsert history records was found");
  return deleted;
}

/** Written by vector upserts: what was upserted, with the graph that did it. */
export async function recordUpsert({ db }: Deps<"db">, chatflowid: string, result: unknown, flowData: string) {
  const [row] = await db
    .insert(upsertHistory)
    .values({ id: newId(), chatflowid, result: JSON.stringify(result), flowData, date: nowIso() })
    .returning();
  return row;
}
