// A store's saved vector components, and vector store delete (only what a record manager
// recorded, as the service document says). The query is in query.ts.
import { badRequest } from "../../errors";
import { buildComponents, type VectorComponents } from "./components";
import { type StoreRow, getStoreRow, parseComponent, settleStatus } from "./stores";
import type { DocStoreDeps } from "./types";

/** The columns of a store row its vector components are built from. */
export type ComponentsRow = Pick<StoreRow, "id" | "embeddingConfig" | "vectorStoreConfig" | "recordManagerConfig">;

export function savedComponents(row: ComponentsRow): VectorComponents {
  const embedding = parseComponent(row.embeddingConfig);
  const vectorStore = parseComponent(row.vectorStoreConfig);
  if (!embedding || !vectorStore)
    throw badRequest(`Document store ${row.id} has no embedding and vector store configured yet: upsert it first`);
  return { embedding, vectorStore, recordManager: parseComponent(row.recordManagerConfig) };
}

/** Deletes the vectors the record manager recorded (all, or one loader's); answers how many. */
export async function deleteStoreVectors(deps: DocStoreDeps, storeId: string, docId?: string): Promise<{ deleted: number }> {
  const row = await getStoreRow(deps, storeId);
  const components = savedComponents(row);
  if (!components.recordManager)
    throw badRequest(`Document store ${storeId} has no record manager: one is needed to know which vectors to delete`);
  const built = await buildComponents(deps, storeId, components);
  const rm = built.recordManager!.recordManager;
  const keys = await rm.listKeys(docId ? { docId } : {});
  if (keys.length) {
    await built.store.delete({ ids: keys });
    await rm.deleteKeys(keys);
  }
  if (!docId) await settleStatus(deps, storeId);
  return { deleted: keys.length };
}
