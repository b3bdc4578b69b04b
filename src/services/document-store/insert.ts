// Flowise's POST /document-store/vectorstore/insert: the store's stored chunks into its vector
// store, without loading or splitting anything again. It is how a store moved in from Flowise gets
// its vectors back (an export carries chunks, never vectors, and not the files its loaders read),
// and how edited chunks reach the vector store. Each loader is indexed under its lease, as an
// upsert is, through the record manager when the store has one.
import { Document } from "@langchain/core/documents";
import { asc, and, eq } from "drizzle-orm";
import { documentStoreFileChunk } from "../../db/schema";
import { badRequest, notFound } from "../../errors";
import { workLimits } from "../../lib/limits";
import { nowIso } from "../../lib/time";
import { runBatch } from "../../providers/vectorstores/d1-json";
import { recordUpsert } from "../upsert-history";
import { buildComponents, resolveComponents } from "./components";
import { ADDED_DOCS_LIMIT, type UpsertResult, assertIndexable, indexChunks } from "./indexing";
import { LoaderLease, upsertLeaseMs } from "./lease";
import { getStoreState, parseComponent } from "./stores";
import type { DocStoreDeps } from "./types";

/** Flowise's body: the store, optionally one loader, and the components (else the store's saved ones). */
export interface InsertInput {
  storeId: string;
  docId?: string;
  embeddingName?: string;
  embeddingConfig?: Record<string, unknown>;
  vectorStoreName?: string;
  vectorStoreConfig?: Record<string, unknown>;
  recordManagerName?: string;
  recordManagerConfig?: Record<string, unknown>;
}

const component = (name: string | undefined, config: Record<string, unknown> | undefined) => (name ? { name, config } : undefined);
const configString = (c: { name: string; config: Record<string, unknown> } | undefined) =>
  c ? JSON.stringify({ name: c.name, config: c.config }) : null;

function parsedMetadata(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export async function insertStoredChunks(deps: DocStoreDeps, input: InsertInput): Promise<UpsertResult> {
  const { db, env } = deps;
  const store = await getStoreState({ db }, input.storeId);
  const loaders = input.docId ? store.loaders.filter((l) => l.id === input.docId) : store.loaders;
  if (input.docId && !loaders.length) throw notFound(`Document loader ${input.docId} not found in document store ${input.storeId}`);
  if (!loaders.length) throw badRequest(`Document store ${input.storeId} has no loaders, so no chunks to insert`);
  const components = resolveComponents(
    env,
    {
      embedding: component(input.embeddingName, input.embeddingConfig),
      vectorStore: component(input.vectorStoreName, input.vectorStoreConfig),
      recordManager: component(input.recordManagerName, input.recordManagerConfig),
    },
    {
      embedding: parseComponent(store.row.embeddingConfig),
      vectorStore: parseComponent(store.row.vectorStoreConfig),
      recordManager: parseComponent(store.row.recordManagerConfig),
    },
  );
  const built = await buildComponents(deps, store.row.id, components);
  const maxChunks = workLimits(env).chunks;

  const total: UpsertResult = {
    numAdded: 0,
    numUpdated: 0,
    numSkipped: 0,
    numDeleted: 0,
    addedDocs: [],
    docId: input.docId ?? "",
    storeId: store.row.id,
  };
  const since = built.recordManager ? await built.recordManager.recordManager.getTime() : undefined;
  for (const [i, loader] of loaders.entries()) {
    const rows = await db
      .select({ id: documentStoreFileChunk.id, pageContent: documentStoreFileChunk.pageContent, metadata: documentStoreFileChunk.metadata })
      .from(documentStoreFileChunk)
      .where(and(eq(documentStoreFileChunk.storeId, store.row.id), eq(documentStoreFileChunk.docId, loader.id)))
      .orderBy(asc(documentStoreFileChunk.chunkNo))
      .all();
    if (rows.length > maxChunks)
      throw badRequest(`Loader ${loader.id} has ${rows.length} chunks, more than one insert takes (MAX_CHUNKS_PER_UPSERT ${maxChunks})`);
    if (!rows.length) continue;
    const docs = rows.map((r) => new Document({ pageContent: r.pageContent, metadata: parsedMetadata(r.metadata) }));
    assertIndexable(built, docs);
    const lease = new LoaderLease(db, store.row.id, loader.id, upsertLeaseMs(env));
    await lease.claim();
    lease.beat();
    let indexed;
    try {
      // Several loaders: a full cleanup runs once, after the last (as a refresh does).
      // Without a record manager the vectors read their text from these chunks (indexing.ts).
      const control = { fullCleanupSince: since, skipFullCleanup: i < loaders.length - 1 };
      indexed = await indexChunks(
        built,
        loader.id,
        docs,
        control,
        undefined,
        rows.map((r) => r.id),
      );
    } catch (err) {
      await lease.release("SYNC");
      throw err;
    }
    await lease.release("UPSERTED");
    total.numAdded += indexed.numAdded;
    total.numUpdated += indexed.numUpdated;
    total.numSkipped += indexed.numSkipped;
    total.numDeleted += indexed.numDeleted;
    for (const d of indexed.addedDocs)
      if (total.addedDocs.length < ADDED_DOCS_LIMIT) total.addedDocs.push({ pageContent: d.pageContent, metadata: d.metadata });
  }
  // The components used are the store's from now on (Flowise saves them with the insert).
  await runBatch(db, [
    {
      sql: "UPDATE document_store SET embeddingConfig = ?, vectorStoreConfig = ?, recordManagerConfig = ?, updatedDate = ? WHERE id = ?",
      params: [
        configString(components.embedding),
        configString(components.vectorStore),
        configString(components.recordManager),
        nowIso(),
        store.row.id,
      ],
    },
  ]);
  const { addedDocs: _docs, ...counts } = total;
  await recordUpsert(
    { db },
    store.row.id,
    counts,
    JSON.stringify({
      embedding: components.embedding,
      vectorStore: components.vectorStore,
      recordManager: components.recordManager ?? null,
    }),
  );
  return total;
}
