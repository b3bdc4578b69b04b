// The webhook_listener rows: a canvas's listener registered (at most MAX_LISTENERS live per flow),
// found, kept alive by its open stream, dropped. Shared by the routes' service (listeners.ts) and
// the flow's WebhookListeners object, which keeps its open streams' rows from expiring.
import { and, eq, gt, inArray, lte, sql } from "drizzle-orm";
import { webhookListener } from "../../db/schema";
import type { Db } from "../../env";

/** How long a listener lives without its stream refreshing it (Flowise's registry keeps one 120 s). */
export const LISTENER_TTL_MS = 120_000;
/** At most this many live listeners per flow. */
export const MAX_LISTENERS = 20;

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

/** A new listener's row, unless the flow has MAX_LISTENERS live ones (false); expired rows (any flow's) go. */
export async function addListener(db: Db, flowId: string, id: string): Promise<boolean> {
  const now = isoIn(0);
  const [, added] = await db.batch([
    db.delete(webhookListener).where(lte(webhookListener.expiresAt, now)),
    // Counted and inserted in one statement: two registrations at once cannot both pass the cap.
    db
      .insert(webhookListener)
      .select(
        sql`SELECT ${id}, ${flowId}, ${isoIn(LISTENER_TTL_MS)}
          WHERE (SELECT count(*) FROM webhook_listener WHERE chatflowId = ${flowId} AND expiresAt > ${now}) < ${MAX_LISTENERS}`,
      )
      .returning({ id: webhookListener.id }),
  ]);
  return added.length === 1;
}

/** Whether the listener is live on this flow. */
export async function isLiveListener(db: Db, flowId: string, id: string): Promise<boolean> {
  const row = await db
    .select({ id: webhookListener.id })
    .from(webhookListener)
    .where(and(eq(webhookListener.id, id), eq(webhookListener.chatflowId, flowId), gt(webhookListener.expiresAt, isoIn(0))))
    .get();
  return !!row;
}

/** Open streams keep their listeners live for another LISTENER_TTL_MS. */
export async function keepListeners(db: Db, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db
    .update(webhookListener)
    .set({ expiresAt: isoIn(LISTENER_TTL_MS) })
    .where(inArray(webhookListener.id, ids));
}

export async function dropListener(db: Db, id: string): Promise<void> {
  await db.delete(webhookListener).where(eq(webhookListener.id, id));
}
