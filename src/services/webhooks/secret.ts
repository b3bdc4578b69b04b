// A webhook flow's shared secret (Flowise's POST/DELETE /chatflows/{id}/webhook-secret): 32 random
// bytes as hex, made by the server, shown once, kept encrypted at rest under the
// CREDENTIAL_ENCRYPTION_KEY worker secret (as credentials are).
import { eq, sql } from "drizzle-orm";
import { chatFlow, webhookSecret } from "../../db/schema";
import type { Db } from "../../env";
import { ApiError, notFound } from "../../errors";
import { toHex } from "../../lib/crypto";
import { decryptText, encryptText } from "../../lib/encryption";
import { nowIso } from "../../lib/time";
import type { Deps } from "../deps";

function keyOf(key: string | undefined): string {
  if (!key) throw new ApiError(500, "Webhook secrets cannot be stored: set the CREDENTIAL_ENCRYPTION_KEY secret");
  return key;
}

async function assertFlow(db: Db, flowId: string): Promise<void> {
  if (!(await db.select({ id: chatFlow.id }).from(chatFlow).where(eq(chatFlow.id, flowId)).get()))
    throw notFound(`Chatflow ${flowId} not found`);
}

/** A new secret (the old one stops working at once); answered in full this once. */
export async function createWebhookSecret({ db, env }: Deps<"db" | "env">, flowId: string): Promise<{ webhookSecret: string }> {
  const sealKey = keyOf(env.CREDENTIAL_ENCRYPTION_KEY);
  await assertFlow(db, flowId);
  const secret = toHex(crypto.getRandomValues(new Uint8Array(32)));
  const encryptedSecret = await encryptText(sealKey, secret);
  await db
    .insert(webhookSecret)
    .values({ chatflowId: flowId, encryptedSecret, createdDate: nowIso() })
    .onConflictDoUpdate({ target: webhookSecret.chatflowId, set: { encryptedSecret, createdDate: nowIso() } });
  return { webhookSecret: secret };
}

/** Clears the secret: `{deleted: 1}`, or 0 when none was set. */
export async function clearWebhookSecret({ db }: Deps<"db">, flowId: string): Promise<{ deleted: number }> {
  await assertFlow(db, flowId);
  const gone = await db.delete(webhookSecret).where(eq(webhookSecret.chatflowId, flowId)).returning({ id: webhookSecret.chatflowId });
  return { deleted: gone.length };
}

/** What a webhook call reads beside its flow, in one statement: the sealed secret, and whether a canvas listens. */
export interface WebhookSide {
  sealed?: string;
  listened: boolean;
}

export async function readWebhookSide({ db }: Deps<"db">, flowId: string): Promise<WebhookSide> {
  const row = await db.get<{ sealed: string | null; listened: number }>(
    sql`SELECT (SELECT encryptedSecret FROM webhook_secret WHERE chatflowId = ${flowId}) AS sealed,
      EXISTS (SELECT 1 FROM webhook_listener WHERE chatflowId = ${flowId} AND expiresAt > ${nowIso()}) AS listened`,
  );
  return { sealed: row?.sealed ?? undefined, listened: row?.listened === 1 };
}

/** The secret in clear, for checking a request; undefined when none was made. */
export async function openWebhookSecret({ env }: Deps<"env">, flowId: string, sealed: string | undefined): Promise<string | undefined> {
  if (!sealed) return undefined;
  try {
    return await decryptText(keyOf(env.CREDENTIAL_ENCRYPTION_KEY), sealed);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(500, `The webhook secret of chatflow ${flowId} cannot be decrypted: was CREDENTIAL_ENCRYPTION_KEY changed?`);
  }
}
