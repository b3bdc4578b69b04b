import type { z } from "@hono/zod-openapi";
import { and, eq, inArray } from "drizzle-orm";
import { ApiError, conflict } from "../errors";
import { credential } from "../db/schema";
import { decryptText, encryptText } from "../lib/encryption";
import { nowIso } from "../lib/time";
import type { CredentialCreate, CredentialUpdate } from "../schemas/credentials";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";
import type { Deps } from "./deps";

const credentials: Resource<typeof credential> = { table: credential, label: "Credential", sqlName: "credential" };

type Row = typeof credential.$inferSelect;
/** Never the values, not even encrypted. */
const present = ({ encryptedData: _sealed, ...rest }: Row) => rest;

function secretOf(secret: string | undefined): string {
  if (!secret) throw new ApiError(500, "Credential storage is not configured: set the CREDENTIAL_ENCRYPTION_KEY secret");
  return secret;
}

export async function createCredential({ db, env }: Deps<"db" | "env">, input: z.infer<typeof CredentialCreate>) {
  const { plainDataObj, ...rest } = input;
  const encryptedData = await encryptText(secretOf(env.CREDENTIAL_ENCRYPTION_KEY), JSON.stringify(plainDataObj));
  return present(await insertRecord(db, credentials, { ...rest, encryptedData }));
}

/**
 * Keys given in plainDataObj replace the stored ones, the others are kept: a read-merge-write, made
 * conditional on the sealed text read (each write seals with a fresh IV) and retried, so an edit
 * racing another edit or an OAuth2 token refresh keeps both writes' keys.
 */
export async function updateCredential({ db, env }: Deps<"db" | "env">, id: string, patch: z.infer<typeof CredentialUpdate>) {
  const { plainDataObj, ...rest } = patch;
  if (!plainDataObj) return present(await updateRecord(db, credentials, id, rest));
  const secret = secretOf(env.CREDENTIAL_ENCRYPTION_KEY);
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await findRecord(db, credentials, id);
    const current = await openData(secret, id, row.encryptedData);
    const encryptedData = await encryptText(secret, JSON.stringify({ ...current, ...plainDataObj }));
    const changes = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    const updated = await db
      .update(credential)
      .set({ ...changes, encryptedData, updatedDate: nowIso() })
      .where(and(eq(credential.id, id), eq(credential.encryptedData, row.encryptedData)))
      .returning();
    if (updated.length) return present(updated[0]);
  }
  throw conflict(`Credential ${id} kept changing while it was updated: try again`);
}

export const getCredential = async ({ db }: Deps<"db">, id: string) => present(await findRecord(db, credentials, id));
export const deleteCredential = ({ db }: Deps<"db">, id: string) => deleteRecord(db, credentials, id);

export function listCredentials({ db }: Deps<"db">, page: PageQueryInput, credentialNames?: string) {
  const names = credentialNames
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return listRecords(db, credentials, page, { where: names?.length ? inArray(credential.credentialName, names) : undefined, map: present });
}

async function openData(secret: string, id: string, sealed: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await decryptText(secret, sealed)) as Record<string, unknown>;
  } catch {
    throw new ApiError(500, `Credential ${id} cannot be decrypted: was CREDENTIAL_ENCRYPTION_KEY changed?`);
  }
}

/** The decrypted values, for the engine's model and embedding nodes. Never sent to a client. */
export async function getCredentialData({ db, env }: Deps<"db" | "env">, id: string): Promise<Record<string, unknown>> {
  const row = await findRecord(db, credentials, id);
  return openData(secretOf(env.CREDENTIAL_ENCRYPTION_KEY), id, row.encryptedData);
}
