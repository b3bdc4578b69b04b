// Document store records: CRUD, the loaders JSON, and the status a store reports (STALE while
// some loader is not SYNC, as Flowise reads it).
import type { z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import type { Db, Env } from "../../env";
import { documentStore, documentStoreFileChunk, localEmbedding, localEmbeddingVersion, recordManager, upsertHistory, vectorDocument } from "../../db/schema";
import type { DocumentStoreStatus } from "../../db/enums";
import { notFound } from "../../errors";
import type { DocumentStoreCreate, DocumentStoreUpdate } from "../../schemas/document-store";
import type { PageQueryInput } from "../../schemas/common";
import { nowIso } from "../../lib/time";
import { type Resource, findRecord, insertRecord, listRecords, updateRecord } from "../crud";
import { deleteVectorizeIds } from "../../providers/vectorstores/vectorize";
import type { ComponentConfig, LoaderEntry } from "./types";
import { deleteStoreFiles } from "./files";

export const stores: Resource<typeof documentStore> = { table: documentStore, label: "Document store", sqlName: "document_store" };
export type StoreRow = typeof documentStore.$inferSelect;

export function parseLoaders(row: StoreRow): LoaderEntry[] {
  try {
    const list = JSON.parse(row.loaders);
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

export function parseComponent(value: string | null): ComponentConfig | undefined {
  if (!value) return undefined;
  try {
    const v = JSON.parse(value);
    if (v && typeof v === "object" && typeof v.name === "string" && v.name) return { name: v.name, config: v.config && typeof v.config === "object" ? v.config : {} };
  } catch {
    // a config that is not ours: treated as absent
  }
  return undefined;
}

/** The status a store reports: STALE while some loader is not SYNC (unless an upsert is running). */
export function reportedStatus(row: StoreRow, loaders = parseLoaders(row)): DocumentStoreStatus {
  if (row.status !== "UPSERTING" && loaders.some((l) => l.status !== "SYNC")) return "STALE";
  return row.status;
}

/** After chunks change: SYNC when every loader is, else STALE (EMPTY with no loader). */
export const chunkStatus = (loaders: LoaderEntry[]): DocumentStoreStatus =>
  loaders.length === 0 ? "EMPTY" : loaders.every((l) => l.status === "SYNC") ? "SYNC" : "STALE";

export function present(row: StoreRow) {
  const loaders = parseLoaders(row);
  return {
    ...row,
    status: reportedStatus(row, loaders),
    totalChunks: loaders.reduce((n, l) => n + (l.totalChunks || 0), 0),
    totalChars: loaders.reduce((n, l) => n + (l.totalChars || 0), 0),
  };
}

export async function createStore(db: Db, input: z.infer<typeof DocumentStoreCreate>) {
  return present(await insertRecord(db, stores, { ...input, loaders: "[]", whereUsed: input.whereUsed ?? "[]", status: "EMPTY" }));
}

export const listStores = (db: Db, page: PageQueryInput) => listRecords(db, stores, page, { map: present });
export const getStoreRow = (db: Db, id: string) => findRecord(db, stores, id);
export const getStore = async (db: Db, id: string) => present(await getStoreRow(db, id));
export const updateStore = async (db: Db, id: string, patch: z.infer<typeof DocumentStoreUpdate>) => present(await updateRecord(db, stores, id, patch));

/** Writes a store's loaders and status in one statement (used inside batches). */
export function storeUpdate(db: Db, id: string, changes: Partial<typeof documentStore.$inferInsert> & { loaders?: string }) {
  return db.update(documentStore).set({ ...changes, updatedDate: nowIso() }).where(eq(documentStore.id, id));
}

export async function setStatus(db: Db, id: string, status: DocumentStoreStatus): Promise<void> {
  await db.update(documentStore).set({ status, updatedDate: nowIso() }).where(eq(documentStore.id, id));
}

/**
 * Deletes a store with everything it owns: its vectors (Vectorize ones first, while their ids are
 * still known), R2 files, then chunks, vector rows, record-manager rows, upsert history and the
 * record itself in one D1 batch.
 */
export async function deleteStore(db: Db, env: Env, files: R2Bucket, id: string): Promise<{ deleted: number }> {
  const row = await getStoreRow(db, id);
  const vectorizeIds = await db.select({ id: vectorDocument.id }).from(vectorDocument).where(sql`${vectorDocument.provider} = 'vectorize' AND ${vectorDocument.namespace} = ${id}`).all();
  await deleteVectorizeIds(env.VECTORIZE, vectorizeIds.map((r) => r.id));
  await deleteStoreFiles(files, id);
  const rmNamespace = (parseComponent(row.recordManagerConfig)?.config.namespace as string | undefined) || id;
  const [, , , , , , gone] = await db.batch([
    db.delete(documentStoreFileChunk).where(eq(documentStoreFileChunk.storeId, id)),
    db.delete(localEmbedding).where(eq(localEmbedding.namespace, id)),
    db.delete(localEmbeddingVersion).where(eq(localEmbeddingVersion.namespace, id)),
    db.delete(vectorDocument).where(eq(vectorDocument.namespace, id)),
    db.delete(recordManager).where(sql`${recordManager.namespace} IN (${id}, ${rmNamespace})`),
    db.delete(upsertHistory).where(eq(upsertHistory.chatflowid, id)),
    db.delete(documentStore).where(eq(documentStore.id, id)).returning({ id: documentStore.id }),
  ]);
  if (!gone.length) throw notFound(`Document store ${id} not found`);
  return { deleted: gone.length };
}
