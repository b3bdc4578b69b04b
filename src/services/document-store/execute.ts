// The second half of an upsert: run a plan. Load and split in memory (a bad file writes nothing),
// then under the loader's lease commit the loader with its chunks in one conditional D1 batch (no
// chunk exists without its loader; a store or loader deleted meanwhile gets nothing), then index
// into the vector store while a heartbeat keeps the lease alive (the store reads UPSERTING), then
// give the lease back with the store UPSERTED — or SYNC when the provider failed: its chunks are
// stored but not in the vector store. A worker that dies on the way leaves a lease that runs out.
import { Document } from "@langchain/core/documents";
import type { TextSplitter } from "@langchain/textsplitters";
import { ApiError, badRequest } from "../../errors";
import { maxUploadBytes } from "../../env";
import { workLimits } from "../../lib/limits";
import { orderedIds } from "../../lib/ids";
import { loadDocuments } from "../../providers/loaders/registry";
import { splitWithin } from "../../providers/splitters/paced";
import { buildSplitter } from "../../providers/splitters/registry";
import { buildComponents } from "./components";
import { deleteLoaderFiles, readWholeFiles } from "./files";
import { executeStreamed } from "./ingest";
import type { Continues } from "./ingest-control";
import { entryFor, lostLoader, recordRun, storeFiles, writeEntry, writesFiles } from "./loader-entry";
import { type IndexControl, type UpsertResult, ADDED_DOCS_LIMIT, assertIndexable, embedAhead, indexChunks } from "./indexing";
import { LoaderLease, upsertLeaseMs, queuedUpsertLeaseMs } from "./lease";
import type { Plan } from "./plan";
import { createStore } from "./stores";
import type { DocStoreDeps, LoaderEntry } from "./types";

/** Reads, loads and splits: the chunks of a plan, in memory. 400 for files without text. */
export async function chunksOf(deps: DocStoreDeps, plan: Plan): Promise<{ chunks: Document[] }> {
  const files = await readWholeFiles(deps.files, plan.files);
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
  chunks = chunks
    .map((c) => new Document({ pageContent: c.pageContent.replaceAll("\u0000", ""), metadata: c.metadata }))
    .filter((c) => c.pageContent.trim());
  if (!chunks.length) throw badRequest(`No text found in what loader ${plan.loaderNode} read`);
  return { chunks };
}

/** The plan is too large for a request (UPSERT_QUEUE_CHUNKS): it belongs in the upsert queue. */
export class QueueInstead extends Error {
  constructor(readonly chunks: number) {
    super(`${chunks} chunks: more than one request should process`);
    this.name = "QueueInstead";
  }
}

/** Runs a plan: chunks committed, then indexed. Statuses move as Flowise's do. */
export async function executePlan(deps: DocStoreDeps, plan: Plan, control: IndexControl = {}): Promise<UpsertResult | Continues> {
  if (plan.streamed) return executeStreamed(deps, plan, control);
  const { chunks } = await chunksOf(deps, plan);
  const built = await buildComponents(deps, plan.storeId, plan.components);
  assertIndexable(built, chunks);
  if (control.queueAbove !== undefined && chunks.length > control.queueAbove) throw new QueueInstead(chunks.length);
  const ahead = embedAhead(built, chunks);
  // The chunks' ids, known before they are written: vectors indexed from them read their text there.
  const chunkIds = orderedIds(chunks.length);
  if (plan.newStore)
    await createStore(deps, { id: plan.storeId, name: plan.newStore.name, description: plan.newStore.description ?? null });

  const lease = new LoaderLease(deps.db, plan.storeId, plan.entryId, upsertLeaseMs(deps.env), plan.lease);
  let entry: LoaderEntry;
  let filesWritten = false;
  try {
    if (plan.replaces) await lease.claim().then(() => lease.beat());
    filesWritten = writesFiles(plan);
    const fileEntries = (await storeFiles(deps.files, plan)).map((f) => ({ ...f, status: "SYNC" as const }));
    entry = entryFor(plan, fileEntries, chunks, "SYNC");
    await writeEntry(deps, plan, entry, lease, chunks, [], chunkIds);
    lease.beat();
  } catch (err) {
    lease.stop();
    // A sync upsert gives back what it took; a queued one leaves its lease to the consumer (retry or fail).
    if (!plan.lease) await lease.release().catch(() => false);
    // Files put for a loader that is gone (or never got a row) would be left with no one to own them.
    if (filesWritten && err instanceof ApiError && err.status === 404)
      await deleteLoaderFiles(deps.files, plan.storeId, plan.entryId).catch(() => undefined);
    throw err;
  }

  let indexed;
  try {
    indexed = await indexChunks(built, entry.id, chunks, control, ahead, chunkIds);
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

/**
 * The asynchronous half of an upsert, before the queue: files in R2, the loader saved as SYNCING
 * (its files NEW) under a lease long enough for the queue to deliver (the store reads UPSERTING).
 * The queue consumer then runs the saved loader under that lease.
 */
export async function stagePlan(deps: DocStoreDeps, plan: Plan): Promise<{ entry: LoaderEntry; lease: string }> {
  if (plan.newStore)
    await createStore(deps, { id: plan.storeId, name: plan.newStore.name, description: plan.newStore.description ?? null });
  const lease = new LoaderLease(deps.db, plan.storeId, plan.entryId, queuedUpsertLeaseMs(deps.env));
  if (plan.replaces) await lease.claim();
  try {
    const entry = entryFor(plan, await storeFiles(deps.files, plan), undefined, "SYNCING");
    await writeEntry(deps, plan, entry, lease);
    return { entry, lease: lease.id };
  } catch (err) {
    await lease.release().catch(() => false);
    throw err;
  }
}
