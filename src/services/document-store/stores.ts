// Document store records: CRUD, and the store as Flowise answers it — its `loaders` JSON string
// built from the loader rows, its status (UPSERTING while some loader's work holds a live lease,
// STALE while some loader is not SYNC, else the status the last finished upsert left), its totals.
import type { z } from "@hono/zod-openapi";
import { FAISS_NAMESPACE_PREFIX } from "../../providers/vectorstores/faiss-r2";
import { eq, sql } from "drizzle-orm";
import {
  documentStore,
  documentStoreFileChunk,
  documentStoreLoader,
  localEmbedding,
  localEmbeddingVersion,
  recordManager,
  upsertHistory,
  vectorDocument,
} from "../../db/schema";
import type { DocumentStoreStatus } from "../../db/enums";
import { notFound } from "../../errors";
import type { DocumentStoreCreate, DocumentStoreUpdate } from "../../schemas/document-store";
import type { PageQueryInput } from "../../schemas/common";
import { nowIso } from "../../lib/time";
import { type Resource, findRecord, insertRecord, listRecords, updateRecord } from "../crud";
import { deleteVectorizeIds } from "../../providers/vectorstores/vectorize";
import type { ComponentConfig, LoaderEntry } from "./types";
import { deleteStoreFiles } from "./files";
import { leaseState } from "./lease";
import { type LoaderRow, entryOf, loaderRowsOf, loaderRowsQuery } from "./loader-rows";
import type { Deps } from "../deps";

export const stores: Resource<typeof documentStore> = { table: documentStore, label: "Document store", sqlName: "document_store" };
export type StoreRow = typeof documentStore.$inferSelect;

/** A store with its loaders, read together. */
export interface StoreState {
  row: StoreRow;
  rows: LoaderRow[];
  loaders: LoaderEntry[];
}

export function parseComponent(value: string | null): ComponentConfig | undefined {
  if (!value) return undefined;
  try {
    const v = JSON.parse(value);
    if (v && typeof v === "object" && typeof v.name === "string" && v.name)
      return { name: v.name, config: v.config && typeof v.config === "object" ? v.config : {} };
  } catch {
    // a config that is not ours: treated as absent
  }
  return undefined;
}

function reportedStatus(row: StoreRow, rows: LoaderRow[], loaders: LoaderEntry[], now: number): DocumentStoreStatus {
  if (rows.some((r) => leaseState(r, now) === "live")) return "UPSERTING";
  if (loaders.some((l) => l.status !== "SYNC")) return "STALE";
  return row.status;
}

/** The store as the API answers it (the fields in the order Flowise's entity has them). */
export function present(row: StoreRow, rows: LoaderRow[], now = Date.now()) {
  const loaders = rows.map((r) => entryOf(r, now));
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    loaders: JSON.stringify(loaders),
    whereUsed: row.whereUsed,
    status: reportedStatus(row, rows, loaders, now),
    vectorStoreConfig: row.vectorStoreConfig,
    embeddingConfig: row.embeddingConfig,
    recordManagerConfig: row.recordManagerConfig,
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    totalChunks: loaders.reduce((n, l) => n + (l.totalChunks || 0), 0),
    totalChars: loaders.reduce((n, l) => n + (l.totalChars || 0), 0),
  };
}

export async function getStoreState({ db }: Deps<"db">, id: string): Promise<StoreState> {
  const [found, rows] = await db.batch([db.select().from(documentStore).where(eq(documentStore.id, id)), loaderRowsQuery(db, id)]);
  if (!found[0]) throw notFound(`Document store ${id} not found`);
  const now = Date.now();
  return { row: found[0], rows, loaders: rows.map((r) => entryOf(r, now)) };
}

export async function createStore({ db }: Deps<"db">, input: z.infer<typeof DocumentStoreCreate>) {
  return present(await insertRecord(db, stores, { ...input, whereUsed: input.whereUsed ?? "[]", status: "EMPTY" }), []);
}

export async function listStores({ db }: Deps<"db">, page: PageQueryInput) {
  const listed = await listRecords(db, stores, page);
  const rows = Array.isArray(listed) ? listed : listed.data;
  const loaders = await loaderRowsOf(
    { db },
    rows.map((r) => r.id),
  );
  const data = rows.map((r) => present(r, loaders.get(r.id) ?? []));
  return Array.isArray(listed) ? data : { data, total: listed.total };
}

export const getStoreRow = ({ db }: Deps<"db">, id: string) => findRecord(db, stores, id);
export const getStore = async ({ db }: Deps<"db">, id: string) => {
  const s = await getStoreState({ db }, id);
  return present(s.row, s.rows);
};
export const updateStore = async ({ db }: Deps<"db">, id: string, patch: z.infer<typeof DocumentStoreUpdate>) => {
  const row = await updateRecord(db, stores, id, patch);
  return present(row, await loaderRowsQuery(db, id).all());
};

/** After vectors were removed: SYNC while the store has loaders (their chunks stay), else EMPTY. */
export async function settleStatus({ db }: Deps<"db">, id: string): Promise<void> {
  const hasLoaders = sql`EXISTS (SELECT 1 FROM ${documentStoreLoader} WHERE ${documentStoreLoader.storeId} = ${id})`;
  await db
    .update(documentStore)
    .set({
      status: sql`CASE WHEN ${hasLoaders} THEN 'SYNC' ELSE 'EMPTY' END`,
      updatedDate: nowIso(),
    })
    .where(eq(documentStore.id, id));
}

/**
 * Deletes a store with everything it owns: its vectors (Vectorize ones first, while their ids are
 * still known), R2 files, then loaders, chunks, vector rows, record-manager rows, upsert history
 * and the record itself in one D1 batch.
 */
export async function deleteStore({ db, env, files }: Deps<"db" | "env" | "files">, id: string): Promise<{ deleted: number }> {
  const row = await getStoreRow({ db }, id);
  const vectorizeIds = await db
    .select({ id: vectorDocument.id })
    .from(vectorDocument)
    .where(sql`${vectorDocument.provider} = 'vectorize' AND ${vectorDocument.namespace} = ${id}`)
    .all();
  await deleteVectorizeIds(
    env.VECTORIZE,
    vectorizeIds.map((r) => r.id),
  );
  await deleteStoreFiles(files, id);
  await files.delete(`${FAISS_NAMESPACE_PREFIX}${id}`); // a faiss index kept under the store's namespace
  const rmNamespace = (parseComponent(row.recordManagerConfig)?.config.namespace as string | undefined) || id;
  // Vector rows before chunks: a chunk's delete trigger copies its text into the rows that read it (0019).
  const [, , , , , , , gone] = await db.batch([
    db.delete(documentStoreLoader).where(eq(documentStoreLoader.storeId, id)),
    db.delete(vectorDocument).where(eq(vectorDocument.namespace, id)),
    db.delete(documentStoreFileChunk).where(eq(documentStoreFileChunk.storeId, id)),
    db.delete(localEmbedding).where(eq(localEmbedding.namespace, id)),
    db.delete(localEmbeddingVersion).where(eq(localEmbeddingVersion.namespace, id)),
    db.delete(recordManager).where(sql`${recordManager.namespace} IN (${id}, ${rmNamespace})`),
    db.delete(upsertHistory).where(eq(upsertHistory.chatflowid, id)),
    db.delete(documentStore).where(eq(documentStore.id, id)).returning({ id: documentStore.id }),
  ]);
  if (!gone.length) throw notFound(`Document store ${id} not found`);
  return { deleted: gone.length };
}
