import { eq } from "drizzle-orm";
import type { Db } from "../env";
import { apiKey } from "../db/schema";
import { constantTimeEqual, randomToken, sha256Hex } from "../lib/crypto";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";

const keys: Resource<typeof apiKey> = { table: apiKey, label: "API key", sqlName: "apikey" };

type KeyRow = typeof apiKey.$inferSelect;
const present = ({ keyHash: _hash, keyMask, ...rest }: KeyRow) => ({ ...rest, apiKey: keyMask });

const mask = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;

/** Creates a key; the only answer that ever holds the full key. */
export async function createApiKey(db: Db, keyName: string) {
  const key = randomToken(32);
  const row = await insertRecord(db, keys, { keyName, keyHash: await sha256Hex(key), keyMask: mask(key) });
  return { ...present(row), apiKey: key };
}

export const listApiKeys = (db: Db, page: PageQueryInput) => listRecords(db, keys, page, { map: present });
export const updateApiKey = async (db: Db, id: string, keyName: string) => present(await updateRecord(db, keys, id, { keyName }));
export const deleteApiKey = (db: Db, id: string) => deleteRecord(db, keys, id);
export const getApiKey = async (db: Db, id: string) => present(await findRecord(db, keys, id));

/**
 * The id of the key whose value is `token`, or null. Only SHA-256 hashes are stored: a fast hash
 * is right for 256-bit random keys (no dictionary to guess from), and keeps auth off the
 * request's critical path, unlike Flowise's per-request scrypt.
 */
export async function findApiKeyIdByToken(db: Db, token: string): Promise<string | null> {
  if (token.length < 16 || token.length > 256) return null;
  const hash = await sha256Hex(token);
  const row = await db.select({ id: apiKey.id, keyHash: apiKey.keyHash }).from(apiKey).where(eq(apiKey.keyHash, hash)).get();
  return row && constantTimeEqual(row.keyHash, hash) ? row.id : null;
}
