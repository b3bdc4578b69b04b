// The engine's ports, built for each request (the `init` middleware, src/middleware/init.ts) and queue batch:
// every way out of a run — D1, R2, the AI and Vectorize bindings, credentials, the sandbox — as a
// narrow function, so the engine never holds the database or the Worker's env.
import { eq } from "drizzle-orm";
import { tool } from "../../db/schema";
import type { Runtime } from "../../engine";
import { workLimits } from "../../lib/limits";
import { nowIso } from "../../lib/time";
import { buildRecordManager } from "../../providers/recordmanager/registry";
import { openSqlDatabase, sqlDepsFrom } from "../../providers/sql/registry";
import { buildVectorStore } from "../../providers/vectorstores/registry";
import { runSandboxed } from "../../sandbox";
import { assistantSpec } from "../assistant-flow";
import { getCredentialData } from "../credentials";
import { type Db, type Env, PROVIDER_VARS, type ProviderVar, maxUploadBytes } from "../../env";
import type { ProviderEnv } from "../../providers/types";
import { loadSessionMemory } from "../runs";
import { loadVariables } from "../runs";
import { documentStorePort } from "./document-stores";

/** The bindings and vars provider registries read (src/providers/types.ts ProviderEnv): one list, env.ts PROVIDER_VARS. */
const providerEnv = (env: Env): ProviderEnv => ({
  AI: env.AI,
  VECTORIZE: env.VECTORIZE,
  ...(Object.fromEntries(PROVIDER_VARS.map((name) => [name, env[name]])) as Partial<Record<ProviderVar, string>>),
});

export function createRuntime(env: Env, db: Db): Runtime {
  const credentials = (id: string) => getCredentialData(db, env.CREDENTIAL_ENCRYPTION_KEY, id);
  return {
    providers: providerEnv(env),
    outbound: { OUTBOUND_ALLOW: env.OUTBOUND_ALLOW },
    maxUploadBytes: maxUploadBytes(env),
    limits: workLimits(env),
    credentials,
    files: {
      async read(key) {
        const obj = await env.FILES.get(key);
        return obj ? { mime: obj.httpMetadata?.contentType ?? "", bytes: new Uint8Array(await obj.arrayBuffer()) } : undefined;
      },
      async write(key, file) {
        await env.FILES.put(key, file.bytes, { httpMetadata: { contentType: file.mime || "application/octet-stream" } });
      },
    },
    documentStores: documentStorePort({ db, env, getCredential: credentials }),
    vectorStores: {
      open: (name, config, embeddings, namespace) =>
        buildVectorStore(name, config, { env, db, embeddings, namespace, getCredential: credentials }),
      recordManager: (name, config, namespace) => buildRecordManager(name, config, db, namespace),
    },
    tools: {
      get: (id) =>
        db
          .select({ name: tool.name, description: tool.description, schema: tool.schema, func: tool.func })
          .from(tool)
          .where(eq(tool.id, id))
          .get(),
    },
    assistants: { get: async (id) => (await assistantSpec(db, id)) ?? undefined },
    memory: { load: (chatflowid, sessionId, limit) => loadSessionMemory(db, chatflowid, sessionId, [], limit) },
    // A run reads only the variables its flowData names (prediction/lookups.ts); code may name any,
    // as in Flowise, so a code run gets every stored variable under the run's own (overrides win).
    code: { run: async (func, run) => runSandboxed(func, { ...run, vars: { ...(await loadVariables(db, env)), ...run.vars }, env }) },
    clock: { now: nowIso },
    sql: { open: (database, url, allowWrites) => openSqlDatabase(database, url, allowWrites, sqlDepsFrom(env)) },
  };
}
