// The second half of an upsert: run a plan. Load and split in memory (a bad file writes nothing),
// then under the loader's lease commit the loader with its chunks in one conditional D1 batch (no
// chunk exists without its loader; a store or loader deleted meanwhile gets nothing), then index
// into the vector store while a heartbeat keeps the lease alive (the store reads UPSERTING), then
// give the lease back with the store UPSERTED — or SYNC when the provider failed: its chunks are
// stored but not in the vector store. A worker that dies on the way leaves a lease that runs out.
import { Document } from "@langchain/core/documents";
import type { TextSplitter } from "@langchain/textsplitters";
import { ApiError, badRequest, conflict, notFound } from "../../errors";
import { maxUploadBytes } from "../../env";
import { newId } from "../../lib/ids";
import { workLimits } from "../../lib/limits";
import { nowIso } from "../../lib/time";
import { loadDocuments, loaderDefinition } from "../../providers/loaders/registry";
import { splitWithin } from "../../providers/splitters/paced";
import { buildSplitter } from "../../providers/splitters/registry";
import { type Stmt, jsonBatches, jsonColumns, runBatch } from "../../providers/vectorstores/d1-json";
import { recordUpsert } from "../upsert-history";
import { buildComponents } from "./components";
import { deleteLoaderFiles, fileKey, placeLoaderFiles, readWholeFiles } from "./files";
import { type Continues, executeStreamed } from "./ingest";
import { type IndexControl, type UpsertResult, ADDED_DOCS_LIMIT, assertIndexable, embedAhead, indexChunks } from "./indexing";
import { HOLDS_LEASE, LoaderLease, leaseMs, queuedLeaseMs } from "./lease";
import { insertLoader, writeLoader } from "./loader-rows";
import { FILE_STORAGE, type Plan } from "./plan";
import { createStore } from "./stores";
import type { DocStoreDeps, LoaderEntry, LoaderFileEntry } from "./types";

const SPLITTER_LABELS: Record<string, string> = {
  recursiveCharacterTextSplitter: "Recursive Character Text Splitter",
  characterTextSplitter: "Character Text Splitter",
  markdownTextSplitter: "Markdown Text Splitter",
  tokenTextSplitter: "Token Text Splitter",
};


/** Reads, loads and splits: the chunks of a plan, in memory. 400 for files without text. */
async function chunksOf(deps: DocStoreDeps, bucket: R2Bucket, plan: Plan): Promise<{ chunks: Document[] }> {
  const files = await readWholeFiles(bucket, plan.files);
  const limits = workLimits(deps.env);
  const docs = await loadDocuments(plan.loaderNode, {
    config: plan.loaderConfig,
    files,
    outbound: { OUTBOUND_ALLOW: deps.env.OUTBOUND_ALLOW },
    maxBytes: maxUploadBytes(deps.env),
    limits,
    getCredential: deps.getCredential,
    services: deps.env,
  });
  const splitter: TextSplitter = buildSplitter(plan.splitter.name, plan.splitter.config);
  let chunks: Document[];
  try {
    chunks = await splitWithin(splitter, docs, limits, `This upsert (loader ${plan.loaderNode})`);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(`Splitting failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  // NUL characters cannot be stored as text (Flowise strips them too).
  chunks = chunks.map((c) => new Document({ pageContent: c.pageContent.replaceAll("\u0000", ""), metadata: c.metadata })).filter((c) => c.pageContent.trim());
  if (!chunks.length) throw badRequest(`No text found in what loader ${plan.loaderNode} read`);
  return { chunks };
}

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
export const storeFiles = (bucket: R2Bucket, plan: Plan): Promise<LoaderFileEntry[]> => placeLoaderFiles(bucket, plan.storeId, plan.entryId, plan.files, plan.replaces);

/** Whether storing the plan's files writes some under its loader (they go if the loader turns out to be gone). */
export const writesFiles = (plan: Plan): boolean => plan.files.some((f) => f.key !== fileKey(plan.storeId, plan.entryId, f.name));

export const configString = (c: { name: string; config: Record<string, unknown> } | undefined) => (c ? JSON.stringify({ name: c.name, config: c.config }) : null);

/**
 * Writes the loader entry (a new row, or the leased one) with — when given — its chunks replacing
 * the old ones, and the store's component configs: one D1 batch, every statement conditional on
 * the lease, so a store or loader deleted meanwhile gets nothing (404), as does a lost lease (409).
 */
export async function writeEntry(deps: DocStoreDeps, plan: Plan, entry: LoaderEntry, lease: LoaderLease, chunks?: Document[], also: Stmt[] = []): Promise<void> {
  const held = [entry.id, lease.id];
  const statements: Stmt[] = [plan.replaces ? writeLoader(deps.db, entry, lease, lease.until(), !!chunks) : insertLoader(entry, lease, lease.until())];
  if (chunks) {
    const rows = chunks.map((c, i) => [newId(), entry.id, plan.storeId, i + 1, c.pageContent, JSON.stringify(c.metadata ?? {})]);
    statements.push({ sql: `DELETE FROM document_store_file_chunk WHERE storeId = ? AND docId = ? AND ${HOLDS_LEASE}`, params: [plan.storeId, entry.id, ...held] });
    for (const json of jsonBatches(rows)) {
      statements.push({ sql: `INSERT INTO document_store_file_chunk (id, docId, storeId, chunkNo, pageContent, metadata) SELECT ${jsonColumns(6)} FROM json_each(?) WHERE ${HOLDS_LEASE}`, params: [json, ...held] });
    }
  }
  const { embedding, vectorStore, recordManager } = plan.components;
  statements.push({
    sql: `UPDATE document_store SET embeddingConfig = ?, vectorStoreConfig = ?, recordManagerConfig = ?, updatedDate = ? WHERE id = ? AND ${HOLDS_LEASE}`,
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

/** The plan is too large for a request (UPSERT_QUEUE_CHUNKS): it belongs in the upsert queue. */
export class QueueInstead extends Error {
  constructor(readonly chunks: number) {
    super(`${chunks} chunks: more than one request should process`);
    this.name = "QueueInstead";
  }
}

/** Runs a plan: chunks committed, then indexed. Statuses move as Flowise's do. */
export async function executePlan(deps: DocStoreDeps, bucket: R2Bucket, plan: Plan, control: IndexControl = {}): Promise<UpsertResult | Continues> {
  if (plan.streamed) return executeStreamed(deps, bucket, plan, control);
  const { chunks } = await chunksOf(deps, bucket, plan);
  const built = await buildComponents(deps, plan.storeId, plan.components);
  assertIndexable(built, chunks);
  if (control.queueAbove !== undefined && chunks.length > control.queueAbove) throw new QueueInstead(chunks.length);
  const ahead = embedAhead(built, chunks);
  if (plan.newStore) await createStore(deps.db, { id: plan.storeId, name: plan.newStore.name, description: plan.newStore.description ?? null });

  const lease = new LoaderLease(deps.db, plan.storeId, plan.entryId, leaseMs(deps.env), plan.lease);
  let entry: LoaderEntry;
  let filesWritten = false;
  try {
    if (plan.replaces) await lease.claim().then(() => lease.beat());
    filesWritten = writesFiles(plan);
    const fileEntries = (await storeFiles(bucket, plan)).map((f) => ({ ...f, status: "SYNC" as const }));
    entry = entryFor(plan, fileEntries, chunks, "SYNC");
    await writeEntry(deps, plan, entry, lease, chunks);
    lease.beat();
  } catch (err) {
    lease.stop();
    // A sync upsert gives back what it took; a queued one leaves its lease to the consumer (retry or fail).
    if (!plan.lease) await lease.release().catch(() => false);
    // Files put for a loader that is gone (or never got a row) would be left with no one to own them.
    if (filesWritten && err instanceof ApiError && err.status === 404) await deleteLoaderFiles(bucket, plan.storeId, plan.entryId).catch(() => undefined);
    throw err;
  }

  let indexed;
  try {
    indexed = await indexChunks(built, entry.id, chunks, control, ahead);
  } catch (err) {
    await lease.release("SYNC"); // the chunks are stored but not (all) in the vector store: say so
    throw err;
  }
  if (!(await lease.release("UPSERTED"))) throw await lostLoader(lease, true);
  const { addedDocs, uids: _uids, ...counts } = indexed;
  await recordRun(deps, plan, entry.loaderConfig, counts);
  return {
    ...counts,
    addedDocs: addedDocs.slice(0, ADDED_DOCS_LIMIT).map((d) => ({ pageContent: d.pageContent, metadata: d.metadata })),
    docId: entry.id,
    storeId: plan.storeId,
  };
}

/** The run in the store's upsert history, as Flowise records it. */
export const recordRun = (deps: DocStoreDeps, plan: Plan, loaderConfig: Record<string, unknown>, counts: { numAdded: number; numUpdated: number; numSkipped: number; numDeleted: number }) =>
  recordUpsert(deps.db, plan.storeId, counts, JSON.stringify({
    loader: { name: plan.loaderNode, config: loaderConfig },
    splitter: plan.splitter,
    embedding: plan.components.embedding,
    vectorStore: plan.components.vectorStore,
    recordManager: plan.components.recordManager ?? null,
  }));

/**
 * The asynchronous half of an upsert, before the queue: files in R2, the loader saved as SYNCING
 * (its files NEW) under a lease long enough for the queue to deliver (the store reads UPSERTING).
 * The queue consumer then runs the saved loader under that lease.
 */
export async function stagePlan(deps: DocStoreDeps, bucket: R2Bucket, plan: Plan): Promise<{ entry: LoaderEntry; lease: string }> {
  if (plan.newStore) await createStore(deps.db, { id: plan.storeId, name: plan.newStore.name, description: plan.newStore.description ?? null });
  const lease = new LoaderLease(deps.db, plan.storeId, plan.entryId, queuedLeaseMs(deps.env));
  if (plan.replaces) await lease.claim();
  try {
    const entry = entryFor(plan, await storeFiles(bucket, plan), undefined, "SYNCING");
    await writeEntry(deps, plan, entry, lease);
    return { entry, lease: lease.id };
  } catch (err) {
    await lease.release().catch(() => false);
    throw err;
  }
}
