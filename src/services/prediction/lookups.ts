// What a prediction reads before it runs — the flow, the stored variables, the credentials its
// nodes name — in one D1 batch: one round trip instead of three on the way to the model call.
import { eq } from "drizzle-orm";
import { chatFlow } from "../../db/schema";
import type { Db, Env } from "../../env";
import { type CredentialRow, credentialReader, flowCredentialsQuery } from "./credentials";
import { type Prefetched, type RunnableFlow, findRunnable } from "./index";
import { variablesOf, variablesQuery } from "./vars";

export interface RunLookups {
  /** The chatflow (or an assistant made into one); rejects with 404 when the id names neither. */
  flow: Promise<RunnableFlow>;
  prefetched: Promise<Prefetched>;
}

export function lookUpRun(db: Db, env: Env, id: string): RunLookups {
  const batch = db.batch([
    db.select().from(chatFlow).where(eq(chatFlow.id, id)),
    variablesQuery(db),
    flowCredentialsQuery(db, id),
  ]);
  const flow = batch.then(([flows]) => flows[0] ?? findRunnable(db, id), () => findRunnable(db, id));
  const prefetched = batch.then(
    ([, vars, credentials]) => ({ vars: variablesOf(vars, env), getCredential: credentialReader(db, env.CREDENTIAL_ENCRYPTION_KEY, credentials as CredentialRow[]) }),
    // The batch failed as a whole (one statement refused): each read on its own.
    async () => ({ vars: variablesOf(await variablesQuery(db).all(), env), getCredential: credentialReader(db, env.CREDENTIAL_ENCRYPTION_KEY, await flowCredentialsQuery(db, id).catch(() => [])) }),
  );
  flow.catch(() => {}); // each is awaited by the caller, maybe after another check failed first
  prefetched.catch(() => {});
  return { flow, prefetched };
}
