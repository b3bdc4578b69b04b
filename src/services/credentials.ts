import type { z } from "@hono/zod-openapi";
import { inArray } from "drizzle-orm";
import { ApiError } from "../errors";
import { credential } from "../db/schema";
import { decryptText, encryptText } from "../lib/encryption";
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

export async function updateCredential({ db, env }: Deps<"db" | "env">, id: string, patch: z.infer<typeof CredentialUpdate>) {
  const { plainDataObj, ...rest } = patch;
  let encryptedData: string | undefined;
  if (plainDataObj) {
    const current = await getCredentialData({ db, env }, id);
    encryptedData = await encryptText(secretOf(env.CREDENTIAL_ENCRYPTION_KEY), JSON.stringify({ ...current, ...plainDataObj }));
  }
  return present(await updateRecord(db, credentials, id, { ...rest, encryptedData }));
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

/** The decrypted values, for the engine's model and embedding nodes. Never sent to a client. */
export async function getCredentialData({ db, env }: Deps<"db" | "env">, id: string): Promise<Record<string, unknown>> {
  const row = await findRecord(db, credentials, id);
  try {
    return JSON.parse(await decryptText(secretOf(env.CREDENTIAL_ENCRYPTION_KEY), row.encryptedData)) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(500, `Credential ${id} cannot be decrypted: was CREDENTIAL_ENCRYPTION_KEY changed?`);
  }
}
