// The studio's loader page (Flowise's LoaderConfigPreviewChunks): preview a loader's chunks, save
// the loader, process it. Flowise's order is save (the loader listed as SYNCING) then process (its
// chunks stored, SYNC) — without touching the vector store, which the next page fills. Everything
// goes through the upsert's own plan (plan.ts: names, files, limits checked before any write) and
// chunking (execute.ts); a loader too large for a request continues in the upsert queue as a
// queued upsert does (which also indexes it, with the store's saved or default components).
import { and, eq } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { documentStoreLoader } from "../../db/schema";
import { ApiError, notFound, payloadTooLarge } from "../../errors";
import { maxUploadBytes } from "../../env";
import { newId } from "../../lib/ids";
import { megabytes, workLimits } from "../../lib/limits";
import { nowIso } from "../../lib/time";
import { loaderDefinition } from "../../providers/loaders/registry";
import type { LoaderConfigBody, PreviewBody } from "../../schemas/document-store-wizard";
import type { UpsertInput } from "../../schemas/document-store";
import { chunkPage } from "./chunks";
import { chunksOf } from "./execute";
import { LoaderLease, queuedUpsertLeaseMs, upsertLeaseMs } from "./lease";
import { entryFor, storeFiles, writeEntry } from "./loader-entry";
import { holdForRetry } from "./loader-rows";
import { type Plan, planSaved, planUpsert } from "./plan";
import { type StoreRow, getStoreState } from "./stores";
import type { Stmt } from "../../providers/vectorstores/d1-json";
import type { DocStoreDeps, LoaderEntry } from "./types";
import type { Accepted, QueueSender } from "./upsert";

type LoaderConfig = z.infer<typeof LoaderConfigBody>;
const L = documentStoreLoader;

/** A save stages its loader under a lease of this kind: the process call that follows takes it over. */
const SAVED_LEASE = "wizard-saved:";

/** The page's loader config as an upsert's input (the loader's node inputs; its credential where loaders read it). */
function upsertInput(body: LoaderConfig): UpsertInput {
  const config: Record<string, unknown> = { ...body.loaderConfig };
  delete config.textSplitter; // an anchor of the canvas node: the splitter comes as splitterId
  const credential = body.credential || config.FLOWISE_CREDENTIAL_ID;
  delete config.FLOWISE_CREDENTIAL_ID;
  if (typeof credential === "string" && credential) config.credential = credential;
  return {
    docId: body.id,
    loaderName: body.loaderName || undefined,
    loader: { name: body.loaderId, config },
    // "None" in the page: the store's default splitter (recursive), as an upsert without one.
    splitter: body.splitterId ? { name: body.splitterId, config: body.splitterConfig ?? {} } : undefined,
  };
}

/** What the store page lists as the loader's source (Flowise's `source`): its files, else its URL. */
export function withSource(entry: LoaderEntry): LoaderEntry & { source: string } {
  const url = entry.loaderConfig.url ?? entry.loaderConfig.repoLink;
  const source = entry.files.length ? entry.files.map((f) => f.name).join(", ") : typeof url === "string" && url ? url : "None";
  return { ...entry, source };
}

/**
 * Writing a loader also writes the store's components (loader-entry.ts); the wizard's save and
 * process leave them as they were, for the vector store page to choose (as Flowise's do).
 */
const keepComponents = (row: StoreRow): Stmt => ({
  sql: "UPDATE document_store SET embeddingConfig = ?, vectorStoreConfig = ?, recordManagerConfig = ? WHERE id = ?",
  params: [row.embeddingConfig, row.vectorStoreConfig, row.recordManagerConfig, row.id],
});

const totalBytes = (plan: Plan) => plan.files.reduce((n, f) => n + f.size, 0);

/** POST /loader/preview: the first `previewChunkCount` chunks of what the loader and splitter make; nothing is stored. */
export async function previewChunks(deps: DocStoreDeps, body: z.infer<typeof PreviewBody>) {
  const store = await getStoreState(deps, body.storeId);
  const plan = planUpsert(deps, store, upsertInput(body));
  const bytes = totalBytes(plan);
  const max = maxUploadBytes(deps.env);
  if (bytes > max)
    throw payloadTooLarge(
      `A preview reads at most ${Math.round(max / 1024 / 1024)} MB of files (MAX_UPLOAD_MB); these are ` +
        `${(bytes / 1024 / 1024).toFixed(1)} MB: process the loader instead`,
    );
  const { chunks } = await chunksOf(deps, plan);
  const count = body.previewChunkCount === -1 ? chunks.length : Math.min(body.previewChunkCount, chunks.length);
  return {
    chunks: chunks.slice(0, count).map((c) => ({ pageContent: c.pageContent, metadata: c.metadata })),
    totalChunks: chunks.length,
    previewChunkCount: count,
  };
}

/**
 * POST /loader/save: the loader with its config and files (in R2), listed as SYNCING with no chunks
 * yet, under a lease the process call takes over; a loader being edited keeps its chunks until then.
 */
export async function saveLoader(deps: DocStoreDeps, body: LoaderConfig): Promise<LoaderEntry & { source: string }> {
  const store = await getStoreState(deps, body.storeId);
  if (body.id && !store.loaders.some((l) => l.id === body.id))
    throw notFound(`Document loader ${body.id} not found in document store ${body.storeId}`);
  const plan = planUpsert(deps, store, upsertInput(body), undefined, { inPlace: true });
  const lease = new LoaderLease(deps.db, plan.storeId, plan.entryId, queuedUpsertLeaseMs(deps.env), SAVED_LEASE + newId());
  if (plan.replaces) await lease.claim();
  try {
    const entry = entryFor(plan, await storeFiles(deps.files, plan), undefined, "SYNCING");
    await writeEntry(deps, plan, entry, lease, undefined, [keepComponents(store.row)]);
    return withSource(entry);
  } catch (err) {
    await lease.release().catch(() => false);
    throw err;
  }
}

/** The lease a save left is handed over (only once); any other work on the loader is a 409 until it ends. */
async function takeOver(deps: DocStoreDeps, leaseId: string | null, lease: LoaderLease): Promise<void> {
  if (leaseId?.startsWith(SAVED_LEASE)) {
    const r = await deps.db
      .update(L)
      .set({ leaseId: lease.id, leaseUntil: lease.until() })
      .where(and(eq(L.id, lease.loaderId), eq(L.leaseId, leaseId)))
      .run();
    if (r.meta.changes) return;
  }
  await lease.claim();
}

/** Processing that failed: the loader reads STALE with why (until processed again), its lease given back. */
async function failed(deps: DocStoreDeps, lease: LoaderLease, err: unknown): Promise<void> {
  const error = err instanceof Error ? err.message : String(err);
  await deps.db
    .update(L)
    .set({ status: "STALE", error, leaseId: null, leaseUntil: null, updatedDate: nowIso() })
    .where(and(eq(L.id, lease.loaderId), eq(L.leaseId, lease.id)))
    .run();
}

const queueOf = (deps: DocStoreDeps): QueueSender | undefined => {
  const q = (deps.env as { UPSERT_QUEUE?: QueueSender }).UPSERT_QUEUE;
  return typeof q?.send === "function" ? q : undefined;
};

/** The loader goes to the upsert queue under its lease, held until the consumer can run it. */
async function queued(deps: DocStoreDeps, queue: QueueSender, lease: LoaderLease, why: string): Promise<Accepted> {
  lease.stop();
  await holdForRetry(deps, lease.loaderId, lease.id, Date.now() + queuedUpsertLeaseMs(deps.env));
  await queue.send({ kind: "document-store-upsert", storeId: lease.storeId, loaderIds: [lease.loaderId], leases: [lease.id] });
  return {
    docId: lease.loaderId,
    storeId: lease.storeId,
    status: "UPSERTING",
    message:
      `Accepted: ${why}, so it is processed in the upsert queue (and indexed into the store's vector store); ` +
      "the loader's status and progress show how far it is",
  };
}

/**
 * POST /loader/process/{loaderId}: the saved loader's files read and split, its chunks stored (they
 * replace any it had) and the loader SYNC; answers the first page of its chunks. Larger than a
 * request should process (UPSERT_QUEUE_MB of text or JSON Lines, UPSERT_QUEUE_CHUNKS chunks): 202,
 * the rest happens in the upsert queue.
 */
export async function processLoader(deps: DocStoreDeps, storeId: string, loaderId: string) {
  const store = await getStoreState(deps, storeId);
  const row = store.rows.find((r) => r.id === loaderId);
  if (!row) throw notFound(`Document loader ${loaderId} not found in document store ${storeId}`);
  const lease = new LoaderLease(deps.db, storeId, loaderId, upsertLeaseMs(deps.env));
  await takeOver(deps, row.leaseId, lease);
  lease.beat();
  try {
    const plan = planSaved(deps, store, loaderId, lease.id);
    const limits = workLimits(deps.env);
    const queue = queueOf(deps);
    const bytes = totalBytes(plan);
    if (loaderDefinition(plan.loaderNode).windows && bytes > megabytes(limits.queueMb)) {
      const size = `its files (${(bytes / 1024 / 1024).toFixed(1)} MB) are more than one request reads (UPSERT_QUEUE_MB ${limits.queueMb})`;
      if (!queue) throw payloadTooLarge(`${size}: processing them needs the UPSERT_QUEUE queue binding`);
      return await queued(deps, queue, lease, size);
    }
    const { chunks } = await chunksOf(deps, plan);
    if (queue && chunks.length > limits.queueChunks)
      return await queued(
        deps,
        queue,
        lease,
        `its ${chunks.length} chunks are more than one request processes (UPSERT_QUEUE_CHUNKS ${limits.queueChunks})`,
      );
    const files = (await storeFiles(deps.files, plan)).map((f) => ({ ...f, status: "SYNC" as const }));
    await writeEntry(deps, plan, entryFor(plan, files, chunks, "SYNC"), lease, chunks, [keepComponents(store.row)]);
    // Chunked, not yet in the vector store: the store reads SYNC, as Flowise's does after processing.
    await lease.release("SYNC");
    return chunkPage(deps, storeId, loaderId, 1);
  } catch (err) {
    lease.stop();
    if (!(err instanceof ApiError) || err.status !== 409) await failed(deps, lease, err).catch(() => undefined);
    throw err;
  }
}
