// Issue 31 item 1: the studio's document store wizard, vector half. A processed loader's chunks go
// into the vector store the way Flowise's vector store page does it — save the choice, insert with
// the page's own body (`''` and null for what it did not pick, `isStrictSave`), query — and the
// upsert API dialog's configs and the tool description generator read the store.
import { beforeAll, describe, expect, it } from "vitest";
import { openAICredential, standinUrl } from "../agentflow-api/flows";
import { call, expectError, json, uuid } from "../helpers";
import { newStore, snapshot } from "../routes/document-store-helpers";
import { signedIn, studio } from "../studio/helpers";
import { PARAGRAPHS, textLoader } from "./helpers";

/** A store with one processed text loader (3 chunks), not yet in a vector store. */
async function processedStore(name: string) {
  const store = await newStore(name);
  const saved = await json("POST", "/document-store/loader/save", { body: textLoader(store.id) });
  await json("POST", `/document-store/loader/process/${saved.id}`, { body: textLoader(store.id, { id: saved.id }) });
  return { storeId: store.id as string, loaderId: saved.id as string };
}

/** What the vector store page sends to save or insert (prepareConfigData). */
const pageChoice = (storeId: string, docId?: string, recordManager = true) => ({
  storeId,
  docId,
  isStrictSave: true,
  embeddingName: "localHashEmbeddings",
  embeddingConfig: { dimensions: "" },
  vectorStoreName: "localVectorStore",
  vectorStoreConfig: { topK: "" },
  recordManagerName: recordManager ? "SQLiteRecordManager" : "",
  recordManagerConfig: recordManager ? { cleanup: "full", sourceIdKey: "source" } : null,
});

describe("the vector store page: save, insert, query", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = (await signedIn()).cookie;
  });
  const asStudio = async (method: string, path: string, body?: unknown, expected = 200) => {
    const res = await studio(method, path, { cookie, body });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };

  it("save keeps the choice (the page reads it back as objects); insert upserts the chunks; query finds them", async () => {
    const { storeId, loaderId } = await processedStore("wizard vectors");
    const saved = await asStudio("POST", "/document-store/vectorstore/save", pageChoice(storeId, loaderId));
    expect(saved).toMatchObject({ id: storeId, status: "SYNC" });
    const read = await asStudio("GET", `/document-store/store/${storeId}`);
    expect(read.embeddingConfig).toEqual({ name: "localHashEmbeddings", config: { dimensions: "" } });
    expect(read.vectorStoreConfig).toMatchObject({ name: "localVectorStore" });
    expect(read.recordManagerConfig).toEqual({ name: "SQLiteRecordManager", config: { cleanup: "full", sourceIdKey: "source" } });
    expect(read.loaders).toMatchObject([{ id: loaderId, source: "animals.txt", status: "SYNC" }]);

    const inserted = await asStudio("POST", "/document-store/vectorstore/insert", pageChoice(storeId, loaderId));
    expect(inserted).toMatchObject({ numAdded: 3, numSkipped: 0, numDeleted: 0 });
    expect(await snapshot(storeId)).toMatchObject({ chunks: 3, vectors: 3, records: 3 });
    expect((await asStudio("GET", `/document-store/store/${storeId}`)).status).toBe("UPSERTED");
    // Again: the record manager skips what is already there.
    expect(await asStudio("POST", "/document-store/vectorstore/insert", pageChoice(storeId, loaderId))).toMatchObject({ numSkipped: 3 });

    const found = await asStudio("POST", "/document-store/vectorstore/query", {
      storeId,
      query: "where are the flowers",
      inputs: { topK: "1", document: "", embeddings: "" },
    });
    expect(found).toMatchObject({ timeTaken: expect.any(Number), docs: [{ pageContent: PARAGRAPHS[1] }] });
  });

  it("a strict insert without a record manager clears the saved one (the chunks go in without records)", async () => {
    const { storeId, loaderId } = await processedStore("wizard strict");
    await asStudio("POST", "/document-store/vectorstore/save", pageChoice(storeId, loaderId));
    const inserted = await asStudio("POST", "/document-store/vectorstore/insert", pageChoice(storeId, undefined, false));
    expect(inserted.numAdded).toBe(3);
    expect(await snapshot(storeId)).toMatchObject({ vectors: 3, records: 0 });
    expect((await asStudio("GET", `/document-store/store/${storeId}`)).recordManagerConfig).toBeNull();
  });

  it("update changes only the vector store's config; bad input is a clear 4xx", async () => {
    const { storeId } = await processedStore("wizard update");
    await json("POST", "/document-store/vectorstore/save", { body: pageChoice(storeId) });
    const updated = await json("POST", "/document-store/vectorstore/update", {
      body: { storeId, vectorStoreName: "localVectorStore", vectorStoreConfig: { topK: "2" } },
    });
    expect(JSON.parse(updated.vectorStoreConfig)).toEqual({ name: "localVectorStore", config: { topK: "2" } });
    expect(JSON.parse(updated.embeddingConfig).name).toBe("localHashEmbeddings");
    expect(await json("POST", "/document-store/vectorstore/update", { body: { storeId } })).toEqual({});

    const bad = await call("POST", "/document-store/vectorstore/save", { body: { ...pageChoice(storeId), embeddingName: "teleporter" } });
    expect((await expectError(bad, 400)).message).toContain('Unknown embedding "teleporter"');
    expect(JSON.parse((await json("GET", `/document-store/store/${storeId}`)).embeddingConfig).name).toBe("localHashEmbeddings");
    await expectError(await call("POST", "/document-store/vectorstore/save", { body: pageChoice(uuid()) }), 404);
    await expectError(await call("POST", "/document-store/vectorstore/save", { body: { storeId: "x" } }), 400);
    const badStore = { ...pageChoice(storeId), vectorStoreName: "nowhere" };
    await expectError(await call("POST", "/document-store/vectorstore/update", { body: badStore }), 400);
  });
});

describe("store-configs and the tool description", () => {
  it("store-configs lists what an upsert of the loader may override, as Flowise's upsert API dialog reads it", async () => {
    const { storeId, loaderId } = await processedStore("wizard configs");
    await json("POST", "/document-store/vectorstore/save", { body: pageChoice(storeId) });
    const configs = await json("GET", `/document-store/store-configs/${storeId}/${loaderId}`);
    expect(configs).toEqual(
      expect.arrayContaining([
        { node: "Text File", nodeId: "textFile_0", label: expect.any(String), name: "files", type: expect.any(String) },
        expect.objectContaining({ nodeId: "characterTextSplitter_0", name: "chunkSize", type: "number" }),
        expect.objectContaining({ nodeId: "SQLiteRecordManager_0", name: "cleanup" }),
      ]),
    );
    for (const c of configs) expect(Object.keys(c).sort()).toEqual(["label", "name", "node", "nodeId", "type"]);
    await expectError(await call("GET", `/document-store/store-configs/${storeId}/${uuid()}`), 404);
  });

  it("generate-tool-desc: the chosen model reads the store's first chunks and its answer is the description", async () => {
    const { storeId } = await processedStore("wizard tool");
    const credential = await openAICredential();
    const selectedChatModel = {
      name: "chatOpenAI",
      inputs: { modelName: "gpt-standin", basepath: `${standinUrl()}/v1`, FLOWISE_CREDENTIAL_ID: credential },
    };
    const { content } = await json("POST", `/document-store/generate-tool-desc/${storeId}`, { body: { selectedChatModel } });
    // The stand-in echoes the last user message: the chunks the model was given.
    expect(content).toContain("echo:");
    for (const p of PARAGRAPHS) expect(content).toContain(p);

    const empty = await newStore("wizard tool empty");
    const none = await call("POST", `/document-store/generate-tool-desc/${empty.id}`, { body: { selectedChatModel } });
    expect((await expectError(none, 404)).message).toContain("no chunks");
    const unknown = await call("POST", `/document-store/generate-tool-desc/${storeId}`, {
      body: { selectedChatModel: { name: "hal9000" } },
    });
    expect((await expectError(unknown, 400)).message).toContain("hal9000");
    await expectError(await call("POST", `/document-store/generate-tool-desc/${storeId}`, { body: {} }), 400);
  });
});
