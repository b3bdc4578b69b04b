import type { z } from "@hono/zod-openapi";
import { inArray } from "drizzle-orm";
import type { Db } from "../env";
import { ApiError } from "../errors";
import { credential } from "../db/schema";
import { decryptText, encryptText } from "../lib/encryption";
import type { CredentialCreate, CredentialUpdate } from "../schemas/credentials";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";

const credentials: Resource<typeof credential> = { table: credential, label: "Credential", sqlName: "credential" };

type Row = typeof credential.$inferSelect;
/** Never the values, not even encrypted. */
const present = ({ encryptedData: _sealed, ...rest }: Row) => rest;

function secretOf(secret: string | undefined): string {
  if (!secret) throw new ApiError(500, "Credential storage is not configured: set the CREDENTIAL_ENCRYPTION_KEY secret");
  return secret;
}

export async function createCredential(db: Db, secret: string | undefined, input: z.infer<typeof CredentialCreate>) {
  const { plainDataObj, ...rest } = input;
  const encryptedData = await encryptText(secretOf(secret), JSON.stringify(plainDataObj));
  return present(await insertRecord(db, credentials, { ...rest, encryptedData }));
}

export async function updateCredential(db: Db, secret: string | undefined, id: string, patch: z.infer<typeof CredentialUpdate>) {
  const { plainDataObj, ...rest } = patch;
  let encryptedData: string | undefined;
  if (plainDataObj) {
    const current = await getCredentialData(db, secret, id);
    encryptedData = await encryptText(secretOf(secret), JSON.stringify({ ...current, ...plainDataObj }));
  }
  return present(await updateRecord(db, credentials, id, { ...rest, encryptedData }));
}

export const getCredential = async (db: Db, id: string) => present(await findRecord(db, credentials, id));
export const deleteCredential = (db: Db, id: string) => deleteRecord(db, credentials, id);

export function listCredentials(db: Db, page: PageQueryInput, credentialNames?: string) {
  const names = credentialNames
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return listRecords(db, credentials, page, { where: names?.length ? inArray(credential.credentialName, names) : undefined, map: present });
}

/** The decrypted values, for the engine's model and embedding nodes. Never sent to a client. */
export async function getCredentialData(db: Db, secret: string | undefined, id: string): Promise<Record<string, unknown>> {
  const row = await findRecord(db, credentials, id);
  try {
    return JSON.parse(await decryptText(secretOf(secret), row.encryptedData)) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(500, `Credential ${id} cannot be decrypted: was CREDENTIAL_ENCRYPTION_KEY changed?`);
  }
}
