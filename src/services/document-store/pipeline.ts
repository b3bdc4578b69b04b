// The ingestion pipeline: plan (validate every name, size and type, resolve files and providers —
// nothing written yet, so bad input leaves the store as it was), then execute: load and split in
// memory, commit the loader entry with its chunks in one D1 batch (a batch is a transaction: no
// chunk exists without its loader), then index into the vector store (UPSERTING → UPSERTED; on a
// provider failure the store goes back to SYNC, saying its chunks are not in the vector store).
import { Document } from "@langchain/core/documents";
import type { TextSplitter } from "@langchain/textsplitters";
import { eq } from "drizzle-orm";
import { documentStoreFileChunk } from "../../db/schema";
import { ApiError, badRequest, notFound, payloadTooLarge, unsupportedMediaType } from "../../errors";
import { newId } from "../../lib/ids";
import { loadDocuments, loaderDefinition, loaderForFile } from "../../providers/loaders/registry";
import type { LoaderFile } from "../../providers/loaders/types";
import { indexDocuments, type IndexResult } from "../../providers/recordmanager/indexing";
import { DEFAULT_SPLITTER, buildSplitter } from "../../providers/splitters/registry";
import { jsonInsert, runBatch, stmt } from "../../providers/vectorstores/d1-json";
import type { DocVectorStore } from "../../providers/vectorstores/types";
import type { UpsertInput } from "../../schemas/document-store";
import { recordUpsert } from "../upsert-history";
import { type BuiltComponents, type VectorComponents, buildComponents, resolveComponents } from "./components";
import { decodeFlowiseDataUri, deleteLoaderFiles, putLoaderFiles, readLoaderFiles, safeFileName } from "./files";
import { type StoreRow, chunkStatus, createStore, getStoreRow, parseComponent, parseLoaders, setStatus, storeUpdate } from "./stores";
import type { DocStoreDeps, LoaderEntry, LoaderFileEntry } from "./types";

const FILE_STORAGE = "FILE-STORAGE::";
/** An upsert answers at most this many of its added documents (the rest are in the store). */
export const ADDED_DOCS_LIMIT = 1000;

const SPLITTER_LABELS: Record<string, string> = {
  recursiveCharacterTextSplitter: "Recursive Character Text Splitter",
  characterTextSplitter: "Character Text Splitter",
  markdownTextSplitter: "Markdown Text Splitter",
  tokenTextSplitter: "Token Text Splitter",
};

export function maxUploadBytes(env: DocStoreDeps["env"]): number {
  const mb = Number((env as { MAX_UPLOAD_MB?: string }).MAX_UPLOAD_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 20) * 1024 * 1024;
}

/** Everything an upsert needs, checked; executing it is the only thing that writes. */
export interface Plan {
  storeId: string;
  newStore?: { name: string; description?: string | null };
  entryId: string;
  loaderNode: string;
  loaderName: string;
  loaderConfig: Record<string, unknown>;
  splitter: { name: string; config: Record<string, unknown> };
  /** Files read into memory (uploads, data URIs) … */
  files?: LoaderFile[];
  /** … or kept in R2 under another (or this) loader. */
  stored?: { loaderId: string; entries: LoaderFileEntry[] };
  components: VectorComponents;
}

export type UploadFile = LoaderFile;

function checkFile(f: LoaderFile, loaderNode: string, maxBytes: number): void {
  const def = loaderDefinition(loaderNode);
  if (f.bytes.length > maxBytes) throw payloadTooLarge(`File ${f.name} is larger than the upload limit of ${Math.round(maxBytes / 1024 / 1024)} MB (MAX_UPLOAD_MB)`);
  if (!def.fileField) throw badRequest(`Loader ${loaderNode} takes no files`);
  if (def.accepts && !def.accepts(f)) throw unsupportedMediaType(`Loader ${loaderNode} cannot read ${f.name} (${f.mime || "unknown type"})`);
}

/** Data URIs given in the loader config (Flowise's JSON way of sending files). */
function dataUriFiles(value: unknown): LoaderFile[] | undefined {
  if (typeof value !== "string" || !value) return undefined;
  if (value.startsWith("data:")) return [decodeFlowiseDataUri(value)];
  if (value.startsWith("[")) {
    let list: unknown;
    try {
      list = JSON.parse(value);
    } catch {
      return undefined;
    }
    if (Array.isArray(list) && list.length && list.every((v) => typeof v === "string" && v.startsWith("data:"))) return list.map((v) => decodeFlowiseDataUri(v as string));
  }
  return undefined;
}

function metadataOf(value: UpsertInput["metadata"]): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? JSON.parse(value) : value;
}

/** Validates an upsert (or one refresh item) and resolves what it will do. Writes nothing. */
export function planUpsert(
  deps: DocStoreDeps,
  row: StoreRow | undefined,
  input: UpsertInput,
  uploads: LoaderFile[],
  options: { inPlace?: boolean } = {},
): Plan {
  const loaders = row ? parseLoaders(row) : [];
  const previous = input.docId ? loaders.find((l) => l.id === input.docId) : undefined;
  if (input.docId && !previous) throw notFound(`Document loader ${input.docId} not found in document store ${row?.id ?? ""}`.trim());

  const loaderNode = input.loader?.name ?? previous?.loaderId ?? (uploads[0] ? loaderForFile(uploads[0].name) : undefined);
  if (!loaderNode) throw badRequest("A loader is required: give loader {name, config}, a docId, or files");
  const def = loaderDefinition(loaderNode);
  const loaderConfig: Record<string, unknown> = { ...(previous?.loaderConfig ?? {}), ...(input.loader?.config ?? {}) };
  const metadata = metadataOf(input.metadata);
  if (metadata && Object.keys(metadata).length) loaderConfig.metadata = metadata;

  const maxBytes = maxUploadBytes(deps.env);
  let files: LoaderFile[] | undefined;
  let stored: Plan["stored"];
  if (uploads.length) {
    files = uploads.map((f) => ({ ...f, name: safeFileName(f.name) }));
  } else if (def.fileField) {
    const value = loaderConfig[def.fileField];
    files = dataUriFiles(value);
    if (!files && typeof value === "string" && value.startsWith(FILE_STORAGE) && previous?.files?.length) {
      stored = { loaderId: previous.id, entries: previous.files };
    }
    if (!files && !stored) throw badRequest(`Loader ${loaderNode} needs a file: upload it in \`files\` (multipart) or give ${def.fileField} as a data URI`);
  }
  for (const f of files ?? []) checkFile(f, loaderNode, maxBytes);
  if (def.fileField) delete loaderConfig[def.fileField];

  const splitterName = input.splitter?.name ?? previous?.splitterId ?? DEFAULT_SPLITTER;
  const splitterConfig = { ...(previous?.splitterId === splitterName ? previous.splitterConfig ?? {} : {}), ...(input.splitter?.config ?? {}) };
  buildSplitter(splitterName, splitterConfig); // validates names and sizes now

  const components = resolveComponents(deps.env, input, {
    embedding: parseComponent(row?.embeddingConfig ?? null),
    vectorStore: parseComponent(row?.vectorStoreConfig ?? null),
    recordManager: parseComponent(row?.recordManagerConfig ?? null),
  });

  const newStore = input.createNewDocStore ? (input.docStore ?? { name: `Document Store ${new Date().toISOString()}` }) : undefined;
  return {
    storeId: newStore ? newId() : row!.id,
    newStore,
    entryId: previous && (input.replaceExisting || options.inPlace) ? previous.id : newId(),
    loaderNode,
    loaderName: input.loaderName || (previous?.loaderId === loaderNode ? previous.loaderName : def.label),
    loaderConfig,
    splitter: { name: splitterName, config: splitterConfig },
    files,
    stored,
    components,
  };
}

/** Reads, loads and splits: the chunks of a plan, in memory. 400 for files without text. */
async function chunksOf(deps: DocStoreDeps, bucket: R2Bucket, plan: Plan, storeId: string): Promise<{ files: LoaderFile[]; chunks: Document[] }> {
  const files = plan.files ?? (plan.stored ? await readLoaderFiles(bucket, storeId, plan.stored.loaderId, plan.stored.entries) : []);
  const docs = await loadDocuments(plan.loaderNode, {
    config: plan.loaderConfig,
    files,
    outbound: { OUTBOUND_ALLOW: deps.env.OUTBOUND_ALLOW },
    maxBytes: maxUploadBytes(deps.env),
  });
  const splitter: TextSplitter = buildSplitter(plan.splitter.name, plan.splitter.config);
  let chunks: Document[];
  try {
    chunks = await splitter.splitDocuments(docs);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(`Splitting failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  // NUL characters cannot be stored as text (Flowise strips them too).
  chunks = chunks.map((c) => new Document({ pageContent: c.pageContent.replaceAll("\u0000", ""), metadata: c.metadata })).filter((c) => c.pageContent.trim());
  if (!chunks.length) throw badRequest(`No text found in what loader ${plan.loaderNode} read`);
  return { files, chunks };
}

function entryFor(plan: Plan, files: LoaderFileEntry[], chunks: Document[] | undefined, status: LoaderEntry["status"]): LoaderEntry {
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
async function storeFiles(bucket: R2Bucket, plan: Plan, files: LoaderFile[]): Promise<LoaderFileEntry[]> {
  if (plan.stored && plan.stored.loaderId === plan.entryId) return plan.stored.entries;
  if (!files.length) return [];
  if (!plan.stored) await deleteLoaderFiles(bucket, plan.storeId, plan.entryId);
  return putLoaderFiles(bucket, plan.storeId, plan.entryId, files);
}

const configString = (c: { name: string; config: Record<string, unknown> } | undefined) => (c ? JSON.stringify({ name: c.name, config: c.config }) : null);

/** The loader entry and its chunks, replacing the loader's old chunks: one D1 batch. */
async function commitChunks(deps: DocStoreDeps, plan: Plan, entry: LoaderEntry, chunks: Document[]): Promise<void> {
  const { db } = deps;
  const row = await getStoreRow(db, plan.storeId);
  const loaders = parseLoaders(row).filter((l) => l.id !== entry.id);
  const index = parseLoaders(row).findIndex((l) => l.id === entry.id);
  loaders.splice(index >= 0 ? index : loaders.length, 0, entry);
  const rows = chunks.map((c, i) => [newId(), entry.id, plan.storeId, i + 1, c.pageContent, JSON.stringify(c.metadata ?? {})]);
  await runBatch(db, [
    stmt(storeUpdate(db, plan.storeId, {
      loaders: JSON.stringify(loaders),
      status: chunkStatus(loaders),
      embeddingConfig: configString(plan.components.embedding),
      vectorStoreConfig: configString(plan.components.vectorStore),
      recordManagerConfig: configString(plan.components.recordManager),
    })),
    stmt(db.delete(documentStoreFileChunk).where(eq(documentStoreFileChunk.docId, entry.id))),
    ...jsonInsert("INSERT INTO document_store_file_chunk (id, docId, storeId, chunkNo, pageContent, metadata)", [], rows),
  ]);
}

export interface UpsertResult {
  numAdded: number;
  numUpdated: number;
  numSkipped: number;
  numDeleted: number;
  addedDocs: Array<{ pageContent: string; metadata: Record<string, unknown> }>;
  docId: string;
  storeId: string;
}

export interface IndexControl {
  fullCleanupSince?: number;
  skipFullCleanup?: boolean;
}

/** Chunks → vector store, through the record manager when the store has one. */
async function indexChunks(built: BuiltComponents, docId: string, chunks: Document[], control: IndexControl): Promise<IndexResult> {
  const docs = chunks.map((c) => new Document({ pageContent: c.pageContent, metadata: { ...c.metadata, docId } }));
  const store: DocVectorStore = built.store;
  let result: IndexResult;
  if (built.recordManager) {
    const { recordManager, cleanup, sourceIdKey, forceUpdate } = built.recordManager;
    result = await indexDocuments(docs, recordManager, store, { cleanup, sourceIdKey, forceUpdate, ...control });
  } else {
    // Without a record manager the loader's previous vectors are replaced (not piled up).
    const old = await store.idsOfDoc(docId);
    if (old.length) await store.delete({ ids: old });
    const ids = docs.map(() => newId());
    for (let i = 0; i < docs.length; i += 1000) await store.addDocuments(docs.slice(i, i + 1000), { ids: ids.slice(i, i + 1000) });
    result = { numAdded: docs.length, numUpdated: 0, numSkipped: 0, numDeleted: old.length, addedDocs: docs, uids: ids };
  }
  // Chunk numbers of this commit, so query hits find their chunk by index rather than by text.
  await store.linkChunks(result.uids.map((uid, i) => [uid, i + 1]));
  return result;
}

/** Incremental cleanup groups chunks by their source: refuse before anything is written, not after. */
function assertIndexable(built: BuiltComponents, chunks: Document[]): void {
  const rm = built.recordManager;
  if (rm?.cleanup !== "incremental" || rm.sourceIdKey === "docId") return;
  if (chunks.some((c) => c.metadata?.[rm.sourceIdKey] === undefined || c.metadata?.[rm.sourceIdKey] === null)) {
    throw badRequest(`Incremental cleanup needs every chunk's metadata to have "${rm.sourceIdKey}" (the record manager's sourceIdKey): add it with \`metadata\`, or use the docId key`);
  }
}

/** Runs a plan: chunks committed, then indexed. Statuses move as Flowise's do. */
export async function executePlan(deps: DocStoreDeps, bucket: R2Bucket, plan: Plan, control: IndexControl = {}): Promise<UpsertResult> {
  const { files, chunks } = await chunksOf(deps, bucket, plan, plan.storeId);
  const built = await buildComponents(deps, plan.storeId, plan.components);
  assertIndexable(built, chunks);
  if (plan.newStore) await createStore(deps.db, { id: plan.storeId, name: plan.newStore.name, description: plan.newStore.description ?? null });
  const fileEntries = (await storeFiles(bucket, plan, files)).map((f) => ({ ...f, status: "SYNC" as const }));
  const entry = entryFor(plan, fileEntries, chunks, "SYNC");
  await commitChunks(deps, plan, entry, chunks);

  await setStatus(deps.db, plan.storeId, "UPSERTING");
  let indexed: IndexResult;
  try {
    indexed = await indexChunks(built, entry.id, chunks, control);
  } catch (err) {
    // The chunks are stored but not (all) in the vector store: say so.
    const loaders = parseLoaders(await getStoreRow(deps.db, plan.storeId));
    await setStatus(deps.db, plan.storeId, chunkStatus(loaders));
    throw err;
  }
  const loaders = parseLoaders(await getStoreRow(deps.db, plan.storeId));
  await setStatus(deps.db, plan.storeId, loaders.every((l) => l.status === "SYNC") ? "UPSERTED" : "STALE");
  const { addedDocs, uids: _uids, ...counts } = indexed;
  await recordUpsert(deps.db, plan.storeId, counts, JSON.stringify({
    loader: { name: plan.loaderNode, config: entry.loaderConfig },
    splitter: plan.splitter,
    embedding: plan.components.embedding,
    vectorStore: plan.components.vectorStore,
    recordManager: plan.components.recordManager ?? null,
  }));
  return {
    ...counts,
    addedDocs: addedDocs.slice(0, ADDED_DOCS_LIMIT).map((d) => ({ pageContent: d.pageContent, metadata: d.metadata })),
    docId: entry.id,
    storeId: plan.storeId,
  };
}

/**
 * The asynchronous half of an upsert, before the queue: files in R2, the loader saved as SYNCING
 * (its files NEW), the store UPSERTING. The queue consumer then runs the saved loader.
 */
export async function stagePlan(deps: DocStoreDeps, bucket: R2Bucket, plan: Plan): Promise<LoaderEntry> {
  if (plan.newStore) await createStore(deps.db, { id: plan.storeId, name: plan.newStore.name, description: plan.newStore.description ?? null });
  const files = plan.files ?? (plan.stored ? await readLoaderFiles(bucket, plan.storeId, plan.stored.loaderId, plan.stored.entries) : []);
  const fileEntries = await storeFiles(bucket, plan, files);
  const entry = entryFor(plan, fileEntries, undefined, "SYNCING");
  const row = await getStoreRow(deps.db, plan.storeId);
  const current = parseLoaders(row);
  const at = current.findIndex((l) => l.id === entry.id);
  if (at >= 0) current[at] = { ...entry, totalChunks: current[at].totalChunks, totalChars: current[at].totalChars };
  else current.push(entry);
  await deps.db.batch([
    storeUpdate(deps.db, plan.storeId, {
      loaders: JSON.stringify(current),
      status: "UPSERTING",
      embeddingConfig: configString(plan.components.embedding),
      vectorStoreConfig: configString(plan.components.vectorStore),
      recordManagerConfig: configString(plan.components.recordManager),
    }),
  ]);
  return entry;
}

/** A plan that re-runs a saved loader in place (refresh, and the queue consumer). */
export function planSaved(deps: DocStoreDeps, row: StoreRow, loaderId: string): Plan {
  return planUpsert(deps, row, { docId: loaderId }, [], { inPlace: true });
}

/** Marks a loader that failed to process (its error kept), and the store's status with it. */
export async function markLoaderFailed(deps: DocStoreDeps, storeId: string, loaderId: string, message: string): Promise<void> {
  const row = await getStoreRow(deps.db, storeId).catch(() => undefined);
  if (!row) return;
  const before = parseLoaders(row);
  // A loader already SYNC got its chunks: only its indexing failed, and executePlan said so.
  if (!before.some((l) => l.id === loaderId && l.status === "SYNCING")) return;
  const loaders = before.map((l) => (l.id === loaderId ? { ...l, status: "STALE" as const, error: message } : l));
  await deps.db.batch([storeUpdate(deps.db, storeId, { loaders: JSON.stringify(loaders), status: chunkStatus(loaders) })]);
}

export { getStoreRow };
