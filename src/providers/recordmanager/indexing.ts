// LangChain's indexing semantics (@langchain/core/indexing `index`), over our record manager and
// vector stores, with one addition: a chunk whose hash is recorded but whose vector the store no
// longer holds (the store was switched or emptied) is written again and counted in numUpdated,
// instead of being skipped forever. Hashes are LangChain's (content + metadata → UUID v5).
import type { DocumentInterface } from "@langchain/core/documents";
import { _HashedDocument } from "@langchain/core/indexing";
import { fail } from "../../errors";
import { Pacer } from "../../lib/pace";
import type { DocVectorStore } from "../vectorstores/types";
import type { D1RecordManager } from "./d1";
import { errorMessage } from "../../lib/error-message";

export type Cleanup = "none" | "incremental" | "full";

export interface IndexOptions {
  cleanup: Cleanup;
  sourceIdKey: string;
  /** Re-write chunks even when recorded (counted in numUpdated). */
  forceUpdate?: boolean;
  /** Documents per embedding + write round. */
  batchSize?: number;
  /**
   * `full` cleanup deletes what was not seen since this time (default: this call's start). A
   * refresh of several loaders passes its own start and cleans up after the last one only.
   */
  fullCleanupSince?: number;
  skipFullCleanup?: boolean;
  /**
   * The time the indexing run started (default: this call's start): a run indexed in several
   * calls (a file read in windows) passes its own, so one call's incremental cleanup never
   * removes what an earlier call of the same run wrote.
   */
  startedAt?: number;
}

export interface IndexResult {
  numAdded: number;
  numUpdated: number;
  numSkipped: number;
  numDeleted: number;
  addedDocs: DocumentInterface[];
  /** The vector id of each input document, in input order (duplicates share one). */
  uids: string[];
}

/** The hash id LangChain gives a chunk (what the record manager and the vector store key on). */
function chunkUid(doc: DocumentInterface): string {
  return _HashedDocument.fromDocument(doc).uid as string;
}

/** Hashes every document (yielding between batches: tens of thousands of hashes add up). */
async function hashed(docs: DocumentInterface[]): Promise<{ unique: Array<{ uid: string; doc: DocumentInterface }>; uids: string[] }> {
  const seen = new Set<string>();
  const unique: Array<{ uid: string; doc: DocumentInterface }> = [];
  const uids: string[] = [];
  const pacer = new Pacer(500);
  for (const doc of docs) {
    await pacer.tick();
    let uid: string;
    try {
      uid = chunkUid(doc);
    } catch (err) {
      throw fail("NODE_FAILED", errorMessage(err));
    }
    uids.push(uid);
    if (seen.has(uid)) continue; // identical chunks are indexed once, as LangChain does
    seen.add(uid);
    unique.push({ uid, doc });
  }
  return { unique, uids };
}

export async function indexDocuments(
  docs: DocumentInterface[],
  recordManager: D1RecordManager,
  store: DocVectorStore,
  options: IndexOptions,
): Promise<IndexResult> {
  const { cleanup, sourceIdKey } = options;
  const start = options.startedAt ?? (await recordManager.getTime());
  const { unique: all, uids: inputUids } = await hashed(docs);
  const result: IndexResult = { numAdded: 0, numUpdated: 0, numSkipped: 0, numDeleted: 0, addedDocs: [], uids: inputUids };
  const sourceOf = (d: DocumentInterface): string | null => {
    const v = d.metadata?.[sourceIdKey];
    return v === undefined || v === null ? null : String(v);
  };
  if (cleanup === "incremental") {
    const missing = all.find((h) => sourceOf(h.doc) === null);
    if (missing)
      throw fail(
        "NODE_FAILED",
        `Incremental cleanup needs every chunk's metadata to have "${sourceIdKey}" (the record manager's sourceIdKey)`,
      );
  }

  const size = Math.max(1, options.batchSize ?? 1000);
  for (let i = 0; i < all.length; i += size) {
    const batch = all.slice(i, i + size);
    const uids = batch.map((h) => h.uid);
    const recorded = await recordManager.exists(uids);
    const present = await store.has(uids.filter((_, j) => recorded[j]));
    const toWrite: typeof batch = [];
    const toTouch: string[] = [];
    let rewritten = 0;
    batch.forEach((h, j) => {
      if (recorded[j] && present.has(h.uid) && !options.forceUpdate) {
        toTouch.push(h.uid);
        return;
      }
      if (recorded[j]) rewritten++;
      toWrite.push(h);
    });
    if (toWrite.length) {
      await store.addDocuments(
        toWrite.map((h) => h.doc),
        { ids: toWrite.map((h) => h.uid) },
      );
      result.numAdded += toWrite.length - rewritten;
      result.numUpdated += rewritten;
      result.addedDocs.push(...toWrite.map((h) => h.doc));
    }
    result.numSkipped += toTouch.length;
    const sources = batch.map((h) => sourceOf(h.doc));
    await recordManager.update(uids, {
      timeAtLeast: start,
      groupIds: sources,
      docIds: batch.map((h) => (typeof h.doc.metadata?.docId === "string" ? h.doc.metadata.docId : null)),
    });
    if (cleanup === "incremental") {
      const stale = await recordManager.listKeys({ before: start, groupIds: [...new Set(sources)] });
      if (stale.length) {
        await store.delete({ ids: stale });
        await recordManager.deleteKeys(stale);
        result.numDeleted += stale.length;
      }
    }
  }

  if (cleanup === "full" && !options.skipFullCleanup) {
    result.numDeleted += await cleanupBefore(recordManager, store, options.fullCleanupSince ?? start);
  }
  return result;
}

/** Deletes every recorded vector not indexed since `before` (LangChain's `full` cleanup). */
export async function cleanupBefore(recordManager: D1RecordManager, store: DocVectorStore, before: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const stale = await recordManager.listKeys({ before, limit: 1000 });
    if (!stale.length) return deleted;
    await store.delete({ ids: stale });
    await recordManager.deleteKeys(stale);
    deleted += stale.length;
  }
}
