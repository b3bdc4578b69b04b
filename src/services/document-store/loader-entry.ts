// What an upsert run writes about its loader, whichever way it reads its files (whole: execute.ts;
// in windows: ingest.ts): the loader's entry, its files under the loader, the entry and chunks
// under the lease, why a write under a lease found nothing, and the run in the upsert history.
import type { Document } from "@langchain/core/documents";
import { type ApiError, conflict, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { loaderDefinition } from "../../providers/loaders/registry";
import { type Stmt, jsonBatches, jsonColumns, runBatch } from "../../providers/vectorstores/d1-json";
import { recordUpsert } from "../upsert-history";
import { fileKey, placeLoaderFiles } from "./files";
import { HOLDS_LEASE, type LoaderLease } from "./lease";
import { insertLoader, writeLoader } from "./loader-rows";
import { FILE_STORAGE, type Plan } from "./plan";
import type { DocStoreDeps, LoaderEntry, LoaderFileEntry } from "./types";

const SPLITTER_LABELS: Record<string, string> = {
  recursiveCharacterTextSplitter: "Recursive Character Text Splitter",
  characterTextSplitter: "Character Text Splitter",
  markdownTextSplitter: "Markdown Text Splitter",
  tokenTextSplitter: "Token Text Splitter",
  codeTextSplitter: "Code Text Splitter",
};

export function entryFor(plan: Plan, files: LoaderFileEntry[], chunks: Document[] | undefined, status: LoaderEntry["status"]): LoaderEntry {
  const def = loaderDefinition(plan.loaderNode);
  const loaderConfig = { ...plan.loaderConfig };
  if (def.fileField && files.length) loaderConfig[def.fileField] = FILE_STORAGE + JSON.stringify(files.map((f) => f.name));
  return {
    id: plan.entryId,
    loaderId: plan.loaderNode,
    loaderName: plan.loaderName,
    loaderConfig,
    splitterId: plan.splitter.name,
    splitterName: SPLITTER_LABELS[plan.splitter.name] ?? plan.splitter.name,
    splitterConfig: plan.splitter.config,
    totalChunks: chunks?.length ?? 0,
    totalChars: chunks?.reduce((n, c) => n + c.pageContent.length, 0) ?? 0,
    status,
    files,
  };
}

/** Puts the plan's files in R2 under its loader (unless they are already there) and lists them. */
export const storeFiles = (bucket: R2Bucket, plan: Plan): Promise<LoaderFileEntry[]> =>
  placeLoaderFiles(bucket, plan.storeId, plan.entryId, plan.files, plan.replaces);

/** Whether storing the plan's files writes some under its loader (they go if the loader turns out to be gone). */
export const writesFiles = (plan: Plan): boolean => plan.files.some((f) => f.key !== fileKey(plan.storeId, plan.entryId, f.name));

export const configString = (c: { name: string; config: Record<string, unknown> } | undefined) =>
  c ? JSON.stringify({ name: c.name, config: c.config }) : null;

/**
 * Writes the loader entry (a new row, or the leased one) with — when given — its chunks replacing
 * the old ones (under `chunkIds` when given, else new ids), and the store's component configs: one
 * D1 batch, every statement conditional on the lease, so a store or loader deleted meanwhile gets
 * nothing (404), as does a lost lease (409).
 */
export async function writeEntry(
  deps: DocStoreDeps,
  plan: Plan,
  entry: LoaderEntry,
  lease: LoaderLease,
  chunks?: Document[],
  also: Stmt[] = [],
  chunkIds?: string[],
): Promise<void> {
  const held = [entry.id, lease.id];
  const statements: Stmt[] = [
    plan.replaces ? writeLoader(deps.db, entry, lease, lease.until(), !!chunks) : insertLoader(entry, lease, lease.until()),
  ];
  if (chunks) {
    const rows = chunks.map((c, i) => [
      chunkIds?.[i] ?? newId(),
      entry.id,
      plan.storeId,
      i + 1,
      c.pageContent,
      JSON.stringify(c.metadata ?? {}),
    ]);
    statements.push({
      sql: `DELETE FROM document_store_file_chunk WHERE storeId = ? AND docId = ? AND ${HOLDS_LEASE}`,
      params: [plan.storeId, entry.id, ...held],
    });
    for (const json of jsonBatches(rows)) {
      statements.push({
        sql:
          `INSERT INTO document_store_file_chunk (id, docId, storeId, chunkNo, pageContent, metadata) ` +
          `SELECT ${jsonColumns(6)} FROM json_each(?) WHERE ${HOLDS_LEASE}`,
        params: [json, ...held],
      });
    }
  }
  const { embedding, vectorStore, recordManager } = plan.components;
  statements.push({
    sql:
      `UPDATE document_store SET embeddingConfig = ?, vectorStoreConfig = ?, recordManagerConfig = ?, ` +
      `updatedDate = ? WHERE id = ? AND ${HOLDS_LEASE}`,
    params: [configString(embedding), configString(vectorStore), configString(recordManager), nowIso(), plan.storeId, ...held],
  });
  const [written] = await runBatch(deps.db, [...statements, ...also]);
  if (!written.meta.changes) throw await lostLoader(lease, plan.replaces);
}

/** Why a write under a lease found nothing to write: the store or loader is gone (404), or the lease was taken (409). */
export async function lostLoader(lease: LoaderLease, existing: boolean): Promise<ApiError> {
  if (!existing) return notFound(`Document store ${lease.storeId} was deleted while this upsert ran`);
  const row = await lease.holder();
  if (!row) return notFound(`Document loader ${lease.loaderId} was deleted while this upsert ran`);
  return conflict(`Document loader ${lease.loaderId} was taken over by another upsert while this one ran`);
}

/** The run in the store's upsert history, as Flowise records it. */
export const recordRun = (
  deps: DocStoreDeps,
  plan: Plan,
  loaderConfig: Record<string, unknown>,
  counts: { numAdded: number; numUpdated: number; numSkipped: number; numDeleted: number },
) =>
  recordUpsert(
    deps,
    plan.storeId,
    counts,
    JSON.stringify({
      loader: { name: plan.loaderNode, config: loaderConfig },
      splitter: plan.splitter,
      embedding: plan.components.embedding,
      vectorStore: plan.components.vectorStore,
      recordManager: plan.components.recordManager ?? null,
    }),
  );
