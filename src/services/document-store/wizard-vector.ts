// The studio's vector store page (Flowise's VectorStoreConfigure and VectorStoreQuery): save the
// chosen embeddings, vector store and record manager on the store without upserting, change only
// the vector store's settings, and list what a loader's upsert can be configured with.
import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { documentStore } from "../../db/schema";
import { notFound } from "../../errors";
import { nowIso } from "../../lib/time";
import { embeddingsDefinition } from "../../providers/embeddings/registry";
import { assertRecordManagerName } from "../../providers/recordmanager/registry";
import { vectorStoreDefinition } from "../../providers/vectorstores/registry";
import type { VectorConfigBody } from "../../schemas/document-store-wizard";
import { credentialFile, nodeDescriptor } from "../catalogue/files";
import { getStore, getStoreState, parseComponent } from "./stores";
import type { DocStoreDeps } from "./types";

type VectorConfig = z.infer<typeof VectorConfigBody>;

const KINDS = [
  { key: "embedding", check: embeddingsDefinition },
  { key: "vectorStore", check: vectorStoreDefinition },
  { key: "recordManager", check: assertRecordManagerName },
] as const;

/**
 * POST /vectorstore/save (and the studio's insert before it runs): each component the page chose
 * is saved with its config; one it did not is cleared (Flowise's strict save) or, not strict, kept.
 * Unknown names are a 400 before anything is written. A store not yet upserted reads SYNC.
 */
export async function saveVectorConfig(deps: DocStoreDeps, body: VectorConfig, strict = true) {
  const { row } = await getStoreState(deps, body.storeId);
  const set: Record<string, string | null> = {};
  let chosen = false;
  for (const { key, check } of KINDS) {
    const name = body[`${key}Name`]?.trim();
    const column = `${key}Config` as const;
    if (name) {
      check(name);
      set[column] = JSON.stringify({ config: body[`${key}Config`] ?? {}, name });
      chosen = true;
    } else if (strict || !row[column]) {
      set[column] = null;
    }
  }
  const status = chosen && row.status !== "UPSERTED" ? { status: "SYNC" as const } : {};
  await deps.db
    .update(documentStore)
    .set({ ...set, ...status, updatedDate: nowIso() })
    .where(eq(documentStore.id, row.id))
    .run();
  return getStore(deps, row.id);
}

/** POST /vectorstore/update (the query page's settings): only the vector store's config; `{}` without one. */
export async function updateVectorStoreConfig(deps: DocStoreDeps, body: VectorConfig) {
  const { row } = await getStoreState(deps, body.storeId);
  const name = body.vectorStoreName?.trim();
  if (!name) return {};
  vectorStoreDefinition(name);
  await deps.db
    .update(documentStore)
    .set({ vectorStoreConfig: JSON.stringify({ config: body.vectorStoreConfig ?? {}, name }), updatedDate: nowIso() })
    .where(eq(documentStore.id, row.id))
    .run();
  return getStore(deps, row.id);
}

/** Flowise's input types a caller can override in an upsert. */
const OVERRIDABLE = new Set([
  ...["asyncOptions", "asyncMultiOptions", "options", "multiOptions", "array", "datagrid", "string", "number", "boolean"],
  ...["password", "json", "code", "date", "file", "folder", "tabs"],
]);

interface Param {
  name: string;
  label?: string;
  type: string;
  fileType?: string;
  options?: Array<{ name: string }>;
  credentialNames?: string[];
}
export interface OverrideConfig {
  node: string;
  nodeId: string;
  label: string;
  name: string;
  type: string;
}

async function describe(name: string): Promise<{ label: string; nodeId: string; inputs: Param[]; credentialNames: string[] }> {
  const node = (await nodeDescriptor(name)) as unknown as { label: string; inputs?: Param[]; credential?: { credentialNames?: string[] } };
  const inputs = node.inputs ?? [];
  const credentialNames = [
    ...(node.credential?.credentialNames ?? []),
    ...inputs.filter((p) => p.type === "credential").flatMap((p) => p.credentialNames ?? []),
  ];
  return { label: node.label, nodeId: `${name}_0`, inputs: inputs.filter((p) => OVERRIDABLE.has(p.type)), credentialNames };
}

async function credentialInputs(name: string): Promise<Param[]> {
  try {
    const file = await credentialFile(name);
    const cred = file.body ? ((await new Response(file.body).json()) as { inputs?: Param[] }) : {};
    return cred.inputs ?? [];
  } catch {
    return []; // a credential type the catalogue lacks has nothing to list
  }
}

/**
 * GET /store-configs/{storeId}/{loaderId}: the upsert API dialog's table — every input of the
 * loader, its splitter and the store's vector store, embeddings and record manager (and their
 * credentials' fields) that an upsert may override, as Flowise lists them.
 */
export async function storeConfigs(deps: DocStoreDeps, storeId: string, loaderId: string): Promise<OverrideConfig[]> {
  const { row, loaders } = await getStoreState(deps, storeId);
  const loader = loaders.find((l) => l.id === loaderId);
  if (!loader) throw notFound(`Document loader ${loaderId} not found in document store ${storeId}`);
  const names = [
    loader.loaderId,
    loader.splitterId,
    parseComponent(row.vectorStoreConfig)?.name,
    parseComponent(row.embeddingConfig)?.name,
    parseComponent(row.recordManagerConfig)?.name,
  ].filter((n): n is string => !!n);
  const configs: OverrideConfig[] = [];
  const seen = new Set<string>();
  const add = (c: OverrideConfig) => {
    const key = JSON.stringify(c);
    if (seen.has(key)) return;
    seen.add(key);
    configs.push(c);
  };
  for (const name of names) {
    const node = await describe(name).catch(() => undefined); // a saved name the catalogue does not list
    if (!node) continue;
    const at = { node: node.label, nodeId: node.nodeId };
    for (const p of node.inputs) {
      const label = p.label ?? p.name;
      if (p.type === "file") add({ ...at, label, name: "files", type: p.fileType ?? p.type });
      else if (p.type === "options") add({ ...at, label, name: p.name, type: p.options?.map((o) => o.name).join(", ") || "string" });
      else add({ ...at, label, name: p.name, type: p.type === "password" ? "string" : p.type });
    }
    for (const cred of node.credentialNames)
      for (const p of await credentialInputs(cred))
        add({ ...at, label: p.label ?? p.name, name: p.name, type: p.type === "password" ? "string" : p.type });
  }
  return configs;
}
