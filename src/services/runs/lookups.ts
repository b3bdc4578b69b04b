// What a run reads before it starts — the flow, the stored variables its flowData names, the
// credentials its nodes name, the caller's API key — in one D1 batch of plain statements: one round trip on the way to the
// model call, and no query builder on the hot path (Drizzle's build and row mapping cost more than
// the round trip itself when measured locally).
import type { Db, Env } from "../../env";
import { runBatch } from "../../providers/vectorstores/d1-json";
import { API_KEY_BY_HASH_SQL, type FoundKey, apiKeyHashOf, findApiKeyByToken, foundKey } from "../apikeys";
import { type CredentialReader, type CredentialRow, FLOW_CREDENTIALS_SQL, credentialReader } from "./credentials";
import { type RunnableFlow, findRunnable } from "./flow";
import { FLOW_VARIABLES_SQL, type VariableRow, variablesOf, variablesQuery } from "./vars";

/** What is read beside the flow: stored variables, and a credential reader. */
export interface Prefetched {
  vars: Record<string, string>;
  getCredential: CredentialReader;
}

export interface RunLookups {
  /** The chatflow (or an assistant made into one); rejects with 404 when the id names neither. */
  flow: Promise<RunnableFlow>;
  prefetched: Promise<Prefetched>;
  /** The API key a bearer token is: from the batch for the token it was given, else its own read. */
  findKey(token: string): Promise<FoundKey | null>;
}

const FLOW_SQL = "SELECT * FROM chat_flow WHERE id = ?1";

type FlowRow = Omit<RunnableFlow, "deployed" | "isPublic"> & { deployed: number | boolean; isPublic: number | boolean };

/** A raw chat_flow row as Drizzle would map it (SQLite keeps booleans as 0/1). */
const flowOf = (row: FlowRow): RunnableFlow => ({ ...row, deployed: !!row.deployed, isPublic: !!row.isPublic });

/** `token`: the request's bearer token, if any; a token that may be an API key is looked up in the batch. */
export function lookUpRun(db: Db, env: Env, id: string, token?: string): RunLookups {
  const keyHash = token ? apiKeyHashOf(token) : Promise.resolve(undefined);
  const batch = keyHash.then((hash) => runBatch(db, [
    ...[FLOW_SQL, FLOW_VARIABLES_SQL, FLOW_CREDENTIALS_SQL].map((sql) => ({ sql, params: [id] })),
    ...(hash ? [{ sql: API_KEY_BY_HASH_SQL, params: [hash] }] : []),
  ]));
  const flow = batch.then(
    ([flows]) => { const row = flows.results[0] as FlowRow | undefined; return row ? flowOf(row) : findRunnable(db, id); },
    () => findRunnable(db, id),
  );
  const prefetched = batch.then(
    ([, vars, credentials]) => ({ vars: variablesOf(vars.results as VariableRow[], env), getCredential: credentialReader(db, env.CREDENTIAL_ENCRYPTION_KEY, credentials.results as CredentialRow[]) }),
    // The batch failed as a whole (one statement refused): the variables on their own, credentials one by one.
    async () => ({ vars: variablesOf(await variablesQuery(db).all(), env), getCredential: credentialReader(db, env.CREDENTIAL_ENCRYPTION_KEY, []) }),
  );
  const findKey = async (asked: string) => {
    const hash = asked === token ? await keyHash : undefined;
    if (!hash) return findApiKeyByToken(db, asked);
    const rows = await batch.then((results) => results[3]?.results, () => undefined);
    return rows ? foundKey(rows[0] as Parameters<typeof foundKey>[0], hash) : findApiKeyByToken(db, asked);
  };
  flow.catch(() => {}); // each is awaited by the caller, maybe after another check failed first
  prefetched.catch(() => {});
  return { flow, prefetched, findKey };
}
