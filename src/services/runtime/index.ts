// The engine's ports, built on a run's first use of the container's `runtime` (services/container.ts):
// every way out of a run — D1, R2, the AI and Vectorize bindings, credentials, the sandbox — as a
// narrow function, so the engine never holds the database or the Worker's env. What takes work to
// make (the providers' vars, the limits, the document store port, the SQL settings) is made when a
// node first asks for it; the rest are functions that do their work when called.
import { eq } from "drizzle-orm";
import { tool } from "../../db/schema";
import type { Runtime } from "../../engine";
import { perEnv } from "../../config";
import { workLimits } from "../../lib/limits";
import { nowIso } from "../../lib/time";
import { buildRecordManager } from "../../providers/recordmanager/registry";
import { openSqlDatabase, sqlDepsFrom } from "../../providers/sql/registry";
import { buildVectorStore } from "../../providers/vectorstores/registry";
import { runSandboxed } from "../../sandbox";
import { assistantSpec } from "../assistant-flow";
import { type Env, PROVIDER_VARS, type ProviderVar, maxUploadBytes } from "../../env";
import type { ProviderEnv } from "../../providers/types";
import type { Deps } from "../deps";
import { loadSessionMemory } from "../runs";
import { loadVariables } from "../runs";
import { documentStorePort } from "./document-stores";
import { mcpServerForRun } from "../custom-mcp-servers";

/** The bindings and vars provider registries read (src/providers/types.ts ProviderEnv): one list, env.ts PROVIDER_VARS. */
const providerEnv = perEnv(
  (env): ProviderEnv => ({
    AI: (env as Env).AI,
    VECTORIZE: (env as Env).VECTORIZE,
    ...(Object.fromEntries(PROVIDER_VARS.map((name) => [name, (env as Env)[name]])) as Partial<Record<ProviderVar, string>>),
  }),
) as (env: Env) => ProviderEnv;

/** `make()` once, on the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

export function createRuntime(deps: Deps<"db" | "env" | "files" | "getCredential">): Runtime {
  const { db, env, files, getCredential: credentials } = deps;
  const providers = once(() => providerEnv(env));
  const limits = once(() => workLimits(env));
  const uploadBytes = once(() => maxUploadBytes(env));
  const documentStores = once(() => documentStorePort(deps));
  const sqlDeps = once(() => sqlDepsFrom(env));
  return {
    get providers() {
      return providers();
    },
    outbound: { OUTBOUND_ALLOW: env.OUTBOUND_ALLOW },
    get maxUploadBytes() {
      return uploadBytes();
    },
    get limits() {
      return limits();
    },
    credentials,
    files: {
      async read(key) {
        const obj = await files.get(key);
        return obj ? { mime: obj.httpMetadata?.contentType ?? "", bytes: new Uint8Array(await obj.arrayBuffer()) } : undefined;
      },
      async write(key, file) {
        await files.put(key, file.bytes, { httpMetadata: { contentType: file.mime || "application/octet-stream" } });
      },
    },
    get documentStores() {
      return documentStores();
    },
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
    mcpServers: { get: (id) => mcpServerForRun(deps, id) },
    assistants: { get: async (id) => (await assistantSpec(deps, id)) ?? undefined },
    memory: { load: (chatflowid, sessionId, limit) => loadSessionMemory(deps, chatflowid, sessionId, [], limit) },
    // A run reads only the variables its flowData names (prediction/lookups.ts); code may name any,
    // as in Flowise, so a code run gets every stored variable under the run's own (overrides win).
    code: { run: async (func, run) => runSandboxed(func, { ...run, vars: { ...(await loadVariables(deps)), ...run.vars }, env }) },
    clock: { now: nowIso },
    sql: { open: (database, url, allowWrites) => openSqlDatabase(database, url, allowWrites, sqlDeps()) },
  };
}
