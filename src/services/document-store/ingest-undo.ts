// Undoing a streamed upsert (ingest.ts) when it fails: bad input after some windows removes what
// the run wrote (and puts the store's configs back); a server failure in a request leaves the
// chunks written so far and says on the loader how far it got. Also the chunk INSERTs and the
// vector deletes the run shares with it.
import { ApiError } from "../../errors";
import type { Stmt } from "../../providers/vectorstores/d1-json";
import { jsonBatches, jsonColumns, runBatchPaced } from "../../providers/vectorstores/d1-json";
import type { BuiltComponents } from "./components";
import { deleteLoaderFiles } from "./files";
import { HOLDS_LEASE, type LoaderLease } from "./lease";
import { configString } from "./loader-entry";
import { endRow } from "./loader-rows";
import type { Plan } from "./plan";
import type { StreamProgress } from "./progress";
import type { DocStoreDeps, LoaderFileEntry } from "./types";

/** The store's component configs before the run wrote its own (put back if the run is undone). */
export interface StoreBefore {
  embeddingConfig: string | null;
  vectorStoreConfig: string | null;
  recordManagerConfig: string | null;
  updatedDate: string;
}

/** What undoing needs of the run: its deps, plan, lease and what its writes are conditional on. */
export interface RunState {
  deps: DocStoreDeps;
  plan: Plan;
  lease: LoaderLease;
  /** The loader's id and the lease's id: every write of the run is conditional on them. */
  held: string[];
  built: BuiltComponents;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const isBadInput = (err: unknown) => err instanceof ApiError && [400, 413, 415, 422].includes(err.status);
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A failed run as settling it needs it: how far it got (`saved`: its last progress written to D1). */
export interface FailedRun extends RunState {
  saved: StreamProgress | undefined;
  filesWritten: boolean;
  fileEntries: LoaderFileEntry[];
}

/** Leaves what the failure should leave (see the top of ingest.ts); answers the error to throw. */
export async function settleFailure(run: FailedRun, store: () => Stmt[], err: unknown): Promise<unknown> {
  const { deps, plan, lease, saved } = run;
  if (!saved) {
    // Nothing of this run is in D1: the lease goes back (a queued one stays for the consumer).
    if (!plan.lease) await lease.release().catch(() => false);
    if (run.filesWritten && err instanceof ApiError && err.status === 404)
      await deleteLoaderFiles(deps.files, plan.storeId, plan.entryId).catch(() => undefined);
    return err;
  }
  try {
    if (isBadInput(err)) await undoRun(run, store(), messageOf(err));
    else if (!plan.lease) await stopRun(deps, plan, lease, saved, run.fileEntries, messageOf(err));
    // A queued run keeps its progress: the queue's retry continues from it.
  } catch (cleanup) {
    console.error(`document store: cleaning up after a failed upsert of loader ${plan.entryId} failed: ${messageOf(cleanup)}`);
  }
  return err;
}

/**
 * Bad input after some windows: what this run wrote goes (a new loader entirely; one processed again is left
 * empty, STALE, with the error).
 */
export async function undoRun(run: RunState, store: Stmt[], error: string): Promise<void> {
  const { deps, plan, lease, held } = run;
  if ((await lease.holder())?.leaseId !== lease.id) return; // taken over or deleted: nothing here is ours any more
  await deleteDocVectors(run.built, plan.entryId);
  const dropChunks = {
    sql: `DELETE FROM document_store_file_chunk WHERE storeId = ? AND docId = ? AND ${HOLDS_LEASE}`,
    params: [plan.storeId, plan.entryId, ...held],
  };
  if (!plan.replaces) {
    await runBatchPaced(deps.db, [
      dropChunks,
      ...store,
      {
        sql: "DELETE FROM document_store_loader WHERE id = ? AND storeId = ? AND leaseId = ?",
        params: [plan.entryId, plan.storeId, lease.id],
      },
    ]);
    await deleteLoaderFiles(deps.files, plan.storeId, plan.entryId);
    return;
  }
  await runBatchPaced(deps.db, [dropChunks, ...store, endRow(lease, { status: "STALE", error, emptied: true })]);
  await lease.release();
}

/**
 * The store as it was before the run: its configs put back (unless changed since), or — made by
 * this run — gone while it holds nothing. Only by the call that wrote them (a queued upsert
 * saved its configs when it was staged).
 */
export function restoreStore(plan: Plan, began: boolean, b: StoreBefore | undefined): Stmt[] {
  if (!began) return [];
  if (plan.newStore) {
    return [
      {
        sql: "DELETE FROM document_store WHERE id = ? AND NOT EXISTS (SELECT 1 FROM document_store_loader WHERE storeId = ? AND id <> ?)",
        params: [plan.storeId, plan.storeId, plan.entryId],
      },
    ];
  }
  if (!b) return [];
  const { embedding, vectorStore, recordManager } = plan.components;
  return [
    {
      sql: `UPDATE document_store SET embeddingConfig = ?, vectorStoreConfig = ?, recordManagerConfig = ?, updatedDate = ?
        WHERE id = ? AND embeddingConfig IS ? AND vectorStoreConfig IS ? AND recordManagerConfig IS ?`,
      params: [
        b.embeddingConfig,
        b.vectorStoreConfig,
        b.recordManagerConfig,
        b.updatedDate,
        plan.storeId,
        configString(embedding),
        configString(vectorStore),
        configString(recordManager),
      ],
    },
  ];
}

/** A request's run that failed on the server's side: its chunks stay; the loader says how far it got. */
export async function stopRun(
  deps: DocStoreDeps,
  plan: Plan,
  lease: LoaderLease,
  p: StreamProgress,
  fileEntries: LoaderFileEntry[],
  error: string,
): Promise<void> {
  const complete = p.file >= plan.files.length;
  const end = complete
    ? endRow(lease, { status: "SYNC", files: JSON.stringify(fileEntries.map((f) => ({ ...f, status: "SYNC" }))) })
    : endRow(lease, {
        status: "STALE",
        error:
          `The upsert stopped after ${mb(p.bytesRead)} of ${mb(p.totalBytes)} MB (${p.chunks} chunks ` +
          `stored): ${error}. Refresh the store or upsert the loader again`,
        keepProgress: true,
      });
  await runBatchPaced(deps.db, [end]);
  await lease.release("SYNC"); // chunks stored, not (all) in the vector store
}

/** INSERTs of chunk rows ([id, docId, storeId, chunkNo, pageContent, metadata]), conditional on the lease (`held`: loader id, lease id). */
export function chunkInserts(rows: unknown[][], held: string[]) {
  return jsonBatches(rows).map((json) => ({
    sql:
      `INSERT INTO document_store_file_chunk (id, docId, storeId, chunkNo, pageContent, metadata) ` +
      `SELECT ${jsonColumns(6)} FROM json_each(?) WHERE ${HOLDS_LEASE}`,
    params: [json, ...held],
  }));
}

/** Every vector of a loader, a page at a time (through its record manager when it has one). */
export async function deleteDocVectors(built: BuiltComponents, docId: string): Promise<void> {
  const rm = built.recordManager?.recordManager;
  for (;;) {
    const ids = rm ? await rm.listKeys({ docId, limit: 1000 }) : await built.store.idsOfDoc(docId, 1000);
    if (!ids.length) return;
    await built.store.delete({ ids });
    if (rm) await rm.deleteKeys(ids);
  }
}
