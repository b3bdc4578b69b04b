// A document store upsert of text and JSON Lines files, streamed: the files are read a window at
// a time (windows.ts); each window's chunks go to D1 with the loader's totals and progress in one
// batch under the loader's lease, then are embedded and written to the vector store. Memory holds
// one window whatever the file's size, and the store shows the loader's totals growing.
//
// What a failure leaves:
// - bad input (a file that is not text, a line that is not JSON, a limit passed) before anything
//   is written: nothing; after some windows: what this run wrote is removed again (a new loader
//   goes entirely; a loader processed again is left empty, STALE, with the error);
// - a server or provider failure: in a request, the chunks written so far stay (the loader SYNC if
//   the files were read to the end, else STALE with the error and its progress); in the queue, the
//   message is retried and the run continues where its progress says;
// - a worker that dies: its lease runs out, the loader reads STALE with its progress; a refresh or
//   a new upsert of it starts a run that replaces its chunks and vectors.
import { Document } from "@langchain/core/documents";
import { badRequest } from "../../errors";
import { newId, orderedIds } from "../../lib/ids";
import { type WorkLimits, overLimit, workLimits } from "../../lib/limits";
import { jsonLinesPointer } from "../../providers/loaders/json";
import { loaderDefinition, metadataShaper } from "../../providers/loaders/registry";
import { cleanupBefore, indexDocuments } from "../../providers/recordmanager/indexing";
import { buildSplitter } from "../../providers/splitters/registry";
import { runBatchPaced } from "../../providers/vectorstores/d1-json";
import { eq } from "drizzle-orm";
import { documentStore } from "../../db/schema";
import { type BuiltComponents, buildComponents } from "./components";
import { entryFor, lostLoader, recordRun, storeFiles, writeEntry, writesFiles } from "./loader-entry";
import { storedChunkPage } from "./chunks";
import { fileKey } from "./files";
import { type UpsertResult, type VectorStream, ADDED_DOCS_LIMIT, assertIndexable, vectorStream, writeVectors } from "./indexing";
import type { Continues, StreamControl } from "./ingest-control";
import { LoaderLease, upsertLeaseMs } from "./lease";
import { type StoreBefore, chunkInserts, deleteDocVectors, restoreStore, settleFailure } from "./ingest-undo";
import { endRow, windowRow } from "./loader-rows";
import type { Plan } from "./plan";
import { type IndexCounts, type StreamProgress, NO_COUNTS, addCounts } from "./progress";
import { createStore } from "./stores";
import type { DocStoreDeps, LoaderFileEntry } from "./types";
import { type ByteSource, type WindowOptions, START, memorySource, r2Source, readWindow, windowBytes } from "./windows";

/** Chunks read back from D1 at a time, to index what a stopped run stored but did not index. */
const REINDEX_PAGE = 1_000;
const STORE_CONFIG = {
  embeddingConfig: documentStore.embeddingConfig,
  vectorStoreConfig: documentStore.vectorStoreConfig,
  recordManagerConfig: documentStore.recordManagerConfig,
  updatedDate: documentStore.updatedDate,
};

export function executeStreamed(deps: DocStoreDeps, plan: Plan, control: StreamControl = {}): Promise<UpsertResult | Continues> {
  return new StreamedRun(deps, plan, control).run();
}

class StreamedRun {
  private readonly limits: WorkLimits;
  private readonly lease: LoaderLease;
  private readonly held: string[];
  /** The last state written to the loader's row. */
  private saved: StreamProgress | undefined;
  private built!: BuiltComponents;
  private options!: WindowOptions;
  /** The files have been put under the loader (reads go there). */
  private placed: boolean;
  private filesWritten = false;
  private fileEntries: LoaderFileEntry[];
  private readonly sources = new Map<number, ByteSource>();
  private readonly added: Document[] = [];
  /** This call made the run's first write (a later call of a queued run did not). */
  private began = false;
  /** The store's component configs before the run wrote its own (put back if the run is undone). */
  private storeBefore: StoreBefore | undefined;

  constructor(
    private readonly deps: DocStoreDeps,
    private readonly plan: Plan,
    private readonly control: StreamControl,
  ) {
    this.limits = workLimits(deps.env);
    this.lease = new LoaderLease(deps.db, plan.storeId, plan.entryId, upsertLeaseMs(deps.env), plan.lease);
    this.held = [plan.entryId, this.lease.id];
    // Only work under the lease the progress was written with continues it (a queued run's next message or retry).
    this.saved = plan.lease && plan.progress?.lease === plan.lease ? plan.progress : undefined;
    this.placed = !!this.saved;
    this.fileEntries = plan.files.flatMap((f) => (f.entry ? [f.entry] : []));
  }

  async run(): Promise<UpsertResult | Continues> {
    const { plan, limits } = this;
    const def = loaderDefinition(plan.loaderNode);
    const splitter = buildSplitter(plan.splitter.name, plan.splitter.config);
    this.options = {
      kind: def.windows ?? "text",
      splitter,
      bytes: windowBytes(limits, splitter.chunkSize),
      limits,
      shape: metadataShaper(plan.loaderConfig),
      pointer: def.windows === "lines" ? jsonLinesPointer(plan.loaderConfig) : undefined,
    };
    for (const f of plan.files) if (f.size === 0) throw badRequest(`File ${f.name} is empty`);
    this.built = await buildComponents(this.deps, plan.storeId, plan.components);
    const rm = this.built.recordManager;
    let p: StreamProgress = this.saved ?? {
      run: newId(),
      lease: this.lease.id,
      since: rm ? await rm.recordManager.getTime() : Date.now(),
      file: 0,
      at: START,
      bytesRead: 0,
      totalBytes: plan.files.reduce((n, f) => n + f.size, 0),
      chunks: 0,
      indexed: 0,
      // A new loader has no vectors from before; with a record manager, its cleanup decides.
      cleared: !!rm || !plan.replaces,
      counts: NO_COUNTS,
    };
    try {
      if (this.saved) {
        this.lease.beat();
        p = await this.indexStored(p);
      }
      const readBefore = p.bytesRead;
      while (p.file < plan.files.length) {
        const src = await this.source(p.file);
        const window = await readWindow(src, p.at, this.options);
        let next: StreamProgress = {
          ...p,
          at: window.next,
          bytesRead: p.bytesRead + window.next.offset - p.at.offset,
          chunks: p.chunks + window.chunks.length,
        };
        if (window.next.offset >= src.size && window.next.carry === undefined) next = { ...next, file: p.file + 1, at: START };
        if (next.chunks > limits.streamedChunks) throw overLimit(limits, "streamedChunks", `What loader ${plan.loaderNode} read`);
        assertIndexable(this.built, window.chunks);
        const last = next.file >= plan.files.length;
        if (!this.saved) {
          // Checked before anything is written: a bad file of one window stores nothing.
          if (last && !next.chunks) throw badRequest(`No text found in what loader ${plan.loaderNode} read`);
          await this.begin();
        }
        // The model starts on the window while its chunks are written.
        const ahead = rm
          ? undefined
          : vectorStream(
              this.built.store,
              window.chunks.map((c) => c.pageContent),
            );
        const chunkIds = orderedIds(window.chunks.length);
        await this.commit(window.chunks, chunkIds, p, next);
        if (!next.cleared) next = await this.clearOldVectors(next);
        next = {
          ...next,
          indexed: next.chunks,
          counts: addCounts(next.counts, await this.index(window.chunks, chunkIds, p.chunks + 1, next, ahead)),
        };
        p = next;
        if (!last && this.control.budgetBytes !== undefined && p.bytesRead - readBefore >= this.control.budgetBytes) {
          await this.save(p);
          this.lease.stop();
          return { continues: true, docId: plan.entryId, storeId: plan.storeId };
        }
      }
      if (!p.chunks) throw badRequest(`No text found in what loader ${plan.loaderNode} read`);
      return await this.finish(p);
    } catch (err) {
      this.lease.stop();
      throw await this.failed(err);
    }
  }

  /** The file's bytes: where it was staged or kept until the files are placed under the loader, then there. */
  private async source(i: number): Promise<ByteSource> {
    let src = this.sources.get(i);
    if (!src) {
      const f = this.plan.files[i];
      const key = this.placed ? fileKey(this.plan.storeId, this.plan.entryId, f.name) : f.key;
      src = key ? await r2Source(this.deps.files, key, f.name) : memorySource(f.name, f.bytes ?? new Uint8Array(0));
      if (!f.bytes || this.placed) this.sources.set(i, src);
    }
    return src;
  }

  /** Before the first write: the store (when new), the lease, the files under the loader. */
  private async begin(): Promise<void> {
    const { plan } = this;
    this.began = true;
    this.storeBefore = plan.newStore
      ? undefined
      : await this.deps.db.select(STORE_CONFIG).from(documentStore).where(eq(documentStore.id, plan.storeId)).get();
    if (plan.newStore)
      await createStore(this.deps, { id: plan.storeId, name: plan.newStore.name, description: plan.newStore.description ?? null });
    if (plan.replaces) await this.lease.claim();
    this.lease.beat();
    this.filesWritten = writesFiles(plan);
    this.fileEntries = await storeFiles(this.deps.files, plan);
    this.placed = true;
    this.sources.clear();
  }

  /**
   * A window's chunks (under `ids`) with the loader's totals and progress, in one batch under the lease (the
   * run's first replaces the loader's chunks).
   */
  private async commit(chunks: Document[], ids: string[], from: StreamProgress, next: StreamProgress): Promise<void> {
    const { deps, plan, lease } = this;
    if (!this.saved) {
      await writeEntry(
        deps,
        plan,
        entryFor(plan, this.fileEntries, chunks, "SYNCING"),
        lease,
        chunks,
        [windowRow(lease, next, { chunks: 0, chars: 0 })],
        ids,
      );
    } else {
      const rows = chunks.map((c, i) => [
        ids[i],
        plan.entryId,
        plan.storeId,
        from.chunks + i + 1,
        c.pageContent,
        JSON.stringify(c.metadata ?? {}),
      ]);
      const chars = chunks.reduce((n, c) => n + c.pageContent.length, 0);
      const [row] = await runBatchPaced(deps.db, [
        windowRow(lease, next, { chunks: chunks.length, chars }),
        ...chunkInserts(rows, this.held),
      ]);
      if (!row.meta.changes) throw await lostLoader(lease, true);
    }
    this.saved = next;
  }

  private async save(p: StreamProgress): Promise<void> {
    const [row] = await runBatchPaced(this.deps.db, [windowRow(this.lease, p, { chunks: 0, chars: 0 })]);
    if (!row.meta.changes) throw await lostLoader(this.lease, true);
    this.saved = p;
  }

  /**
   * The loader's vectors from before this run go (no record manager: it is replaced, not added to); noted before
   * any of this run's are written.
   */
  private async clearOldVectors(p: StreamProgress): Promise<StreamProgress> {
    await deleteDocVectors(this.built, this.plan.entryId);
    const next = { ...p, cleared: true };
    await this.save(next);
    return next;
  }

  /**
   * Chunks (stored under `chunkIds`) numbered from `firstNo` into the vector store; their vector ids are the
   * run's and their numbers (a retry rewrites the same ones). Without a record manager the vectors read
   * their text from the chunks; the record manager's vectors outlive them (unchanged ones are kept), so keep
   * their own.
   */
  private async index(
    chunks: Document[],
    chunkIds: string[],
    firstNo: number,
    p: StreamProgress,
    ahead?: VectorStream,
  ): Promise<IndexCounts> {
    const docId = this.plan.entryId;
    const docs = chunks.map((c) => new Document({ pageContent: c.pageContent, metadata: { ...c.metadata, docId } }));
    if (!docs.length) return NO_COUNTS;
    const rm = this.built.recordManager;
    if (!rm) {
      await writeVectors(
        this.built.store,
        docs,
        docs.map((_, i) => `${p.run}-${firstNo + i}`),
        firstNo,
        ahead,
        chunkIds,
      );
      this.keep(docs);
      return { ...NO_COUNTS, numAdded: docs.length };
    }
    const { recordManager, cleanup, sourceIdKey, forceUpdate } = rm;
    const result = await indexDocuments(docs, recordManager, this.built.store, {
      cleanup,
      sourceIdKey,
      forceUpdate,
      startedAt: p.since,
      skipFullCleanup: true,
    });
    await this.built.store.linkChunks(result.uids.map((uid, i) => [uid, firstNo + i]));
    this.keep(result.addedDocs as Document[]);
    return { numAdded: result.numAdded, numUpdated: result.numUpdated, numSkipped: result.numSkipped, numDeleted: result.numDeleted };
  }

  /** The first added documents, for the answer (ADDED_DOCS_LIMIT). */
  private keep(docs: Document[]): void {
    for (const d of docs) {
      if (this.added.length >= ADDED_DOCS_LIMIT) return;
      this.added.push(d);
    }
  }

  /** A run continued after its worker stopped: chunks it stored but had not indexed are indexed first (read back from D1). */
  private async indexStored(p: StreamProgress): Promise<StreamProgress> {
    let state = p;
    if (!state.cleared) state = await this.clearOldVectors(state);
    while (state.indexed < state.chunks) {
      const page = await storedChunkPage(this.deps.db, this.plan, state.indexed, state.chunks, REINDEX_PAGE);
      if (!page.ids.length) break;
      const { ids, chunks, firstNo, lastNo } = page;
      const counts = await this.index(chunks, ids, firstNo, state);
      state = { ...state, indexed: lastNo, counts: addCounts(state.counts, counts) };
    }
    return state;
  }

  private async finish(p: StreamProgress): Promise<UpsertResult> {
    const { deps, plan, lease, built, control } = this;
    let counts = p.counts;
    const rm = built.recordManager;
    if (rm?.cleanup === "full" && !control.skipFullCleanup) {
      counts = {
        ...counts,
        numDeleted: counts.numDeleted + (await cleanupBefore(rm.recordManager, built.store, control.fullCleanupSince ?? p.since)),
      };
    }
    const files = JSON.stringify(this.fileEntries.map((f) => ({ ...f, status: "SYNC" })));
    const [row] = await runBatchPaced(deps.db, [endRow(lease, { status: "SYNC", files })]);
    if (!row.meta.changes || !(await lease.release("UPSERTED"))) throw await lostLoader(lease, true);
    await recordRun(deps, plan, entryFor(plan, this.fileEntries, undefined, "SYNC").loaderConfig, counts);
    return {
      ...counts,
      addedDocs: this.added.map((d) => ({ pageContent: d.pageContent, metadata: d.metadata })),
      docId: plan.entryId,
      storeId: plan.storeId,
    };
  }

  /** Leaves what the failure should leave (see the top of this file); answers the error to throw. */
  private failed(err: unknown): Promise<unknown> {
    const { deps, plan, lease, held, built, saved } = this;
    const run = { deps, plan, lease, held, built, saved, filesWritten: this.filesWritten, fileEntries: this.fileEntries };
    return settleFailure(run, () => restoreStore(plan, this.began, this.storeBefore), err);
  }
}
