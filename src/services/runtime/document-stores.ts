// The engine's document store port: a store's chunks and its vector store, read through the
// document store service. A store that does not exist is `undefined` (the node says which).
import { Document } from "@langchain/core/documents";
import { asc, eq } from "drizzle-orm";
import { documentStoreFileChunk } from "../../db/schema";
import type { Runtime } from "../../engine";
import type { Db } from "../../env";
import { ApiError } from "../../errors";
import { buildComponents } from "../document-store/components";
import { getStoreRow } from "../document-store/stores";
import type { DocStoreDeps } from "../document-store/types";
import { savedComponents } from "../document-store/vectors";

async function rowOrNothing(db: Db, storeId: string) {
  try {
    return await getStoreRow({ db }, storeId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

const metadataOf = (text: string): Record<string, unknown> => {
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {}; // metadata that is not JSON: none
  }
};

export function documentStorePort(deps: DocStoreDeps): Runtime["documentStores"] {
  const { db } = deps;
  return {
    async chunks(storeId) {
      if (!(await rowOrNothing(db, storeId))) return undefined;
      const chunks = await db
        .select({ pageContent: documentStoreFileChunk.pageContent, metadata: documentStoreFileChunk.metadata })
        .from(documentStoreFileChunk)
        .where(eq(documentStoreFileChunk.storeId, storeId))
        .orderBy(asc(documentStoreFileChunk.docId), asc(documentStoreFileChunk.chunkNo))
        .all();
      return chunks.map((c) => new Document({ pageContent: c.pageContent, metadata: metadataOf(c.metadata) }));
    },
    async vectorStore(storeId) {
      const row = await rowOrNothing(db, storeId);
      if (!row) return undefined;
      return (await buildComponents(deps, row.id, savedComponents(row))).store;
    },
  };
}
