import type { z } from "@hono/zod-openapi";
import { eq, inArray } from "drizzle-orm";
import type { Db } from "../env";
import { apiKey, chatFlow } from "../db/schema";
import { invalid } from "../errors";
import { constantTimeEqual, randomToken, sha256Hex } from "../lib/crypto";
import { D1_MAX_PARAMS, chunk } from "../lib/chunk";
import { encryptText } from "../lib/encryption";
import type { ApiKeyCreate, ApiKeyUpdate } from "../schemas/apikeys";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";
import type { Deps } from "./deps";

const keys: Resource<typeof apiKey> = { table: apiKey, label: "API key", sqlName: "apikey" };

type KeyRow = typeof apiKey.$inferSelect;

/** What a key stores and what it may be given: the same two lists, null meaning "all". */
export interface KeyScope {
  permissions: string[] | null;
  chatflows: string[] | null;
}

const parseList = (text: string | null): string[] | null => (text === null ? null : (JSON.parse(text) as string[]));
const storeList = (list: string[] | null | undefined): string | null | undefined =>
  list === undefined ? undefined : list === null ? null : JSON.stringify([...new Set(list)]);

const scopeOf = (row: KeyRow): KeyScope => ({ permissions: parseList(row.permissions), chatflows: parseList(row.chatflows) });

function present(row: KeyRow) {
  const { keyHash: _hash, keySealed: _sealed, keyMask, permissions: _permissions, chatflows: _chatflows, ...rest } = row;
  return { ...rest, apiKey: keyMask, ...scopeOf(row) };
}

const mask = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;

/** A key may be limited only to chatflows that exist (a typo would otherwise lock it out silently). */
async function assertChatflowsExist(db: Db, ids: string[] | null | undefined): Promise<void> {
  if (!ids?.length) return;
  const unique = [...new Set(ids)];
  const found = new Set<string>();
  for (const part of chunk(unique, D1_MAX_PARAMS - 1)) {
    for (const row of await db.select({ id: chatFlow.id }).from(chatFlow).where(inArray(chatFlow.id, part)).all()) found.add(row.id);
  }
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw invalid(`chatflows: not found: ${missing.slice(0, 10).join(", ")}`);
}

/** Refuses (throws) a scope the caller may not hand out; routes pass the caller's rule. */
export type GrantCheck = (scope: KeyScope) => void;

/**
 * Creates a key; the only answer a bearer caller ever sees the full key in. With `sealWith` (the
 * CREDENTIAL_ENCRYPTION_KEY) the key is also kept sealed, for the studio's signed-in person to reveal.
 */
export async function createApiKey({ db }: Deps<"db">, input: z.infer<typeof ApiKeyCreate>, mayGrant: GrantCheck, sealWith?: string) {
  const scope = { permissions: input.permissions ?? null, chatflows: input.chatflows ?? null };
  mayGrant(scope);
  await assertChatflowsExist(db, scope.chatflows);
  const key = randomToken(32);
  const row = await insertRecord(db, keys, {
    keyName: input.keyName,
    keyHash: await sha256Hex(key),
    keyMask: mask(key),
    keySealed: sealWith ? await encryptText(sealWith, key) : null,
    permissions: storeList(scope.permissions),
    chatflows: storeList(scope.chatflows),
  });
  return { ...present(row), apiKey: key };
}

/** Renames and/or re-scopes a key (null resets a list to "all"); `mayGrant` sees the scope it would have. */
export async function updateApiKey({ db }: Deps<"db">, id: string, patch: z.infer<typeof ApiKeyUpdate>, mayGrant: GrantCheck) {
  const current = scopeOf(await findRecord(db, keys, id));
  mayGrant({
    permissions: patch.permissions !== undefined ? patch.permissions : current.permissions,
    chatflows: patch.chatflows !== undefined ? patch.chatflows : current.chatflows,
  });
  await assertChatflowsExist(db, patch.chatflows);
  const updated = present(
    await updateRecord(db, keys, id, {
      keyName: patch.keyName,
      permissions: storeList(patch.permissions),
      chatflows: storeList(patch.chatflows),
    }),
  );
  forgetKey(id, false);
  return updated;
}

/**
 * Newest first. `visible` hides keys the caller may not manage; the table is small, so that
 * filter runs here and paging after it.
 */
export async function listApiKeys({ db }: Deps<"db">, page: PageQueryInput, visible?: (scope: KeyScope) => boolean) {
  if (!visible) return listRecords(db, keys, page, { map: present });
  const all = ((await listRecords(db, keys, {}, { map: present })) as ReturnType<typeof present>[]).filter(visible);
  if (page.page === undefined && page.limit === undefined) return all;
  const limit = page.limit ?? 50;
  const offset = ((page.page ?? 1) - 1) * limit;
  return { data: all.slice(offset, offset + limit), total: all.length };
}

export async function deleteApiKey({ db }: Deps<"db">, id: string) {
  const deleted = await deleteRecord(db, keys, id);
  forgetKey(id, true);
  return deleted;
}
export const getApiKey = async ({ db }: Deps<"db">, id: string) => present(await findRecord(db, keys, id));

/** The scope of a key by id, or null when there is no such key. */
export async function findKeyScope({ db }: Deps<"db">, id: string): Promise<KeyScope | null> {
  const row = await db.select().from(apiKey).where(eq(apiKey.id, id)).get();
  return row ? scopeOf(row) : null;
}

/**
 * The key whose value is `token`, or null. Only SHA-256 hashes are stored: a fast hash
 * is right for 256-bit random keys (no dictionary to guess from), and keeps auth off the
 * request's critical path, unlike Flowise's per-request scrypt.
 */
export async function findApiKeyByToken({ db }: Deps<"db">, token: string): Promise<FoundKey | null> {
  const hash = await apiKeyHashOf(token);
  if (!hash) return null;
  const known = knownKeys.get(hash);
  if (known && known.until > Date.now() && !revoked(known.key.id)) return known.key;
  const key = foundKey(await db.select().from(apiKey).where(eq(apiKey.keyHash, hash)).get(), hash);
  if (key) remember(hash, key);
  else knownKeys.delete(hash);
  return key;
}

/** The key `token` is, when this isolate found it within KEY_CACHE_MS (no D1 read); else null. */
export async function knownApiKey(token: string): Promise<FoundKey | null> {
  const hash = await apiKeyHashOf(token);
  const known = hash ? knownKeys.get(hash) : undefined;
  return known && known.until > Date.now() && !revoked(known.key.id) ? known.key : null;
}

// The keys this isolate found, by hash, for KEY_CACHE_MS: a client's requests read its key from D1
// once per that time instead of once each (a round trip, before the record the request is about).
// A key deleted or re-scoped here is forgotten at once; in another isolate it works on for at most
// KEY_CACHE_MS, plus the time D1's replica there takes to see the change (docs/performance.md).
// Unknown tokens are not kept: a new key works at once, and made-up tokens cannot fill the map.
export const KEY_CACHE_MS = 10_000;
const KEYS_KEPT = 1000;
const knownKeys = new Map<string, { key: FoundKey; until: number }>();
// Keys deleted here lately: a replica that has not seen the delete yet cannot bring them back.
const REVOKED_MS = 5 * 60_000;
const revokedKeys = new Map<string, number>();

function remember(hash: string, key: FoundKey): void {
  knownKeys.delete(hash);
  knownKeys.set(hash, { key, until: Date.now() + KEY_CACHE_MS });
  if (knownKeys.size > KEYS_KEPT) knownKeys.delete(knownKeys.keys().next().value as string);
}

function revoked(id: string): boolean {
  const until = revokedKeys.get(id);
  if (until === undefined) return false;
  if (until > Date.now()) return true;
  revokedKeys.delete(id);
  return false;
}

/** Forgets a key that changed (`deleted`: refused from now on in this isolate, whatever a replica says). */
function forgetKey(id: string, deleted: boolean): void {
  for (const [hash, entry] of knownKeys) if (entry.key.id === id) knownKeys.delete(hash);
  if (!deleted) return;
  const now = Date.now();
  for (const [old, until] of revokedKeys) if (until <= now) revokedKeys.delete(old);
  revokedKeys.set(id, now + REVOKED_MS);
}

export type FoundKey = { id: string } & KeyScope;

/** The stored hash a token would have; undefined for a token no key can be (a cheap refusal). */
export async function apiKeyHashOf(token: string): Promise<string | undefined> {
  if (token.length < 16 || token.length > 256) return undefined;
  const known = hashes.get(token);
  if (known) return known;
  const hash = await sha256Hex(token);
  hashes.set(token, hash);
  if (hashes.size > HASHES_KEPT) hashes.delete(hashes.keys().next().value as string);
  return hash;
}
// The hashes of tokens this isolate saw lately: a client's requests (and the early stream head's
// check beside its run's batch) hash its token once, not once or twice per request.
const HASHES_KEPT = 256;
const hashes = new Map<string, string>();

/** The key a row found by `hash` is, or null. */
export const foundKey = (row: KeyRow | undefined, hash: string): FoundKey | null =>
  row && constantTimeEqual(row.keyHash, hash) && !revoked(row.id) ? { id: row.id, ...scopeOf(row) } : null;

/** The key a batch's row is (API_KEY_BY_HASH_SQL), kept for KEY_CACHE_MS as findApiKeyByToken keeps it. */
export function keyOfBatchRow(row: KeyRow | undefined, hash: string): FoundKey | null {
  const key = foundKey(row, hash);
  if (key) remember(hash, key);
  return key;
}

/** The lookup by hash as plain SQL (?1: the hash), for a caller that batches it with its own reads. */
export const API_KEY_BY_HASH_SQL = "SELECT * FROM apikey WHERE keyHash = ?1";
