// What the studio's answers carry that the contract's leave out (middleware/studio-shapes.ts adds
// them for a signed-in person only): API keys revealed and the flows using each, the feedback of
// every chat message, and whether a credential the page names exists. One query each.
import { eq, inArray } from "drizzle-orm";
import type { Deps } from "./deps";
import { apiKey, chatFlow, chatMessageFeedback, credential } from "../db/schema";
import { D1_MAX_PARAMS, chunk } from "../lib/chunk";
import { decryptText } from "../lib/encryption";

/** Flowise's `chatFlows` of an API key: the flows bound to it. */
export interface KeyFlow {
  flowName: string;
  category: string | null;
  updatedDate: string;
}

/** `read` over the ids in chunks D1 accepts, its rows together. */
async function rowsIn<T>(ids: string[], read: (part: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (const part of chunk([...new Set(ids)], D1_MAX_PARAMS - 1)) rows.push(...(await read(part)));
  return rows;
}

/**
 * The full keys of these API keys that were kept sealed, by id. A key made before keys were kept
 * (or one that no longer opens: the secret changed) is left out, and so stays masked.
 */
export async function revealedKeys({ db }: Deps<"db">, secret: string | undefined, ids: string[]): Promise<Map<string, string>> {
  const revealed = new Map<string, string>();
  if (!secret || !ids.length) return revealed;
  const rows = await rowsIn(ids, (part) =>
    db.select({ id: apiKey.id, sealed: apiKey.keySealed }).from(apiKey).where(inArray(apiKey.id, part)).all(),
  );
  for (const row of rows) {
    if (!row.sealed) continue;
    try {
      revealed.set(row.id, await decryptText(secret, row.sealed));
    } catch {
      // sealed with another secret: shown masked, as an older key
    }
  }
  return revealed;
}

/** The flows bound to each of these API keys (chat_flow.apikeyid), by key id. */
export async function flowsUsingKeys({ db }: Deps<"db">, ids: string[]): Promise<Map<string, KeyFlow[]>> {
  const byKey = new Map<string, KeyFlow[]>(ids.map((id) => [id, []]));
  if (!ids.length) return byKey;
  const rows = await rowsIn(ids, (part) =>
    db
      .select({ key: chatFlow.apikeyid, flowName: chatFlow.name, category: chatFlow.category, updatedDate: chatFlow.updatedDate })
      .from(chatFlow)
      .where(inArray(chatFlow.apikeyid, part))
      .all(),
  );
  for (const { key, ...flow } of rows) if (key) byKey.get(key)?.push(flow);
  return byKey;
}

type FeedbackRow = typeof chatMessageFeedback.$inferSelect;

/** The feedback given to each of these messages, by message id. */
export async function feedbackOfMessages({ db }: Deps<"db">, messageIds: string[]): Promise<Map<string, FeedbackRow>> {
  if (!messageIds.length) return new Map();
  const rows = await rowsIn(messageIds, (part) =>
    db.select().from(chatMessageFeedback).where(inArray(chatMessageFeedback.messageId, part)).all(),
  );
  return new Map(rows.map((row) => [row.messageId, row]));
}

/** Whether a credential with this id is stored. */
export async function credentialExists({ db }: Deps<"db">, id: string): Promise<boolean> {
  return !!(await db.select({ id: credential.id }).from(credential).where(eq(credential.id, id)).get());
}
