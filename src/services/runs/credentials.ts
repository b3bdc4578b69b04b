import type { Deps } from "../deps";
import { getCredentialData } from "../credentials";
import { decryptText } from "../../lib/encryption";
import { credentialSecrets } from "../../lib/redact";
import type { CredentialReader } from "../../engine";
import { withFreshTokens } from "../oauth2";

export type { CredentialReader };

/**
 * The credentials a flow's nodes name (?1: its id), read straight from its stored flowData (SQLite's
 * json_tree), so the lookup goes in the same D1 batch as the flow's own: the model call starts
 * sooner. Every text value under a `credential` key (a chatflow node's data.credential, an
 * agentflow's inputs) or a `FLOWISE_CREDENTIAL_ID` key (an agentflow's model configs) is a candidate;
 * only ids of stored credentials match. flowData is checked before json_tree reads it: a flow saved
 * with an odd graph must not fail here (prediction reports it properly).
 */
export const FLOW_CREDENTIALS_SQL = `
  SELECT c.id AS id, c.encryptedData AS encryptedData FROM credential c
  WHERE c.id IN (
    SELECT t.value
    FROM chat_flow f, json_tree(CASE WHEN json_valid(f.flowData) THEN f.flowData ELSE '{}' END) t
    WHERE f.id = ?1 AND t.type = 'text' AND t.key IN ('credential', 'FLOWISE_CREDENTIAL_ID')
  )`;

export interface CredentialRow {
  id: string;
  encryptedData: string;
}

/** A reader over the prefetched rows (decrypted once each); ids it did not find fall back to a direct read. */
export function credentialReader(deps: Deps<"db" | "env">, rows: CredentialRow[]): CredentialReader {
  const direct = (id: string) => getCredentialData(deps, id);
  const secret = deps.env.CREDENTIAL_ENCRYPTION_KEY;
  if (!secret || !rows.length) return (id, options) => withFreshTokens(deps, id, direct(id), options);
  const found = new Map<string, Promise<Record<string, unknown>>>();
  for (const row of rows)
    found.set(
      row.id,
      decryptText(secret, row.encryptedData).then((text) => JSON.parse(text) as Record<string, unknown>),
    );
  // A failed decrypt is reported by the direct read, with its clear message.
  return (id, options) =>
    withFreshTokens(
      deps,
      id,
      (found.get(id) ?? Promise.reject(new Error("not prefetched"))).catch(() => direct(id)),
      options,
    );
}

/** The reader, noting the secret values of every credential it reads (errors are scrubbed of them). */
export function notingSecrets(read: CredentialReader, secrets: Set<string>): CredentialReader {
  return async (id, options) => {
    const data = await read(id, options);
    for (const value of credentialSecrets(data)) secrets.add(value);
    return data;
  };
}
