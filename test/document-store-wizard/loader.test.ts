// Issue 31 item 1: the studio's document store wizard, loader half. The component lists the pages
// pick from, and the loader page's calls as Flowise's page makes them — files as data URIs
// (`data:…;base64,…,filename:x`), preview, save (SYNCING), process (SYNC, chunks stored) — checked
// in the answers the page reads and in what the store then holds.
import { afterEach, describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { makePdf } from "../providers/docs";
import { loadersOf, newStore, snapshot, waitForStatus } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";
import { PARAGRAPHS, dataUri, textLoader } from "./helpers";

const names = (list: Array<{ name: string }>) => list.map((n) => n.name);

describe("GET /document-store/components/*", () => {
  it("lists node descriptors of what a document store here runs, bindings permitting", async () => {
    const loaders = await json("GET", "/document-store/components/loaders");
    expect(names(loaders)).toEqual(expect.arrayContaining(["pdfFile", "textFile", "docxFile", "csvFile", "jsonFile", "cheerioWebScraper"]));
    expect(names(loaders)).not.toContain("documentStore");
    const pdf = loaders.find((n: any) => n.name === "pdfFile");
    expect(pdf).toMatchObject({ label: expect.any(String), category: "Document Loaders", inputs: expect.any(Array) });
    expect(pdf.inputs.map((i: any) => i.name)).toContain("pdfFile");

    const embeddings = names(await json("GET", "/document-store/components/embeddings"));
    // The tests bind Workers AI and Vectorize stand-ins, so both are offered beside the local ones.
    expect(embeddings).toEqual(expect.arrayContaining(["localHashEmbeddings", "cloudflareWorkersAIEmbeddings", "openAIEmbeddings"]));
    expect(embeddings).not.toContain("ollamaEmbedding"); // a chatflow node, not a document store provider
    expect(embeddings).not.toContain("openAIEmbedding_LlamaIndex");
    const stores = names(await json("GET", "/document-store/components/vectorstore"));
    expect(stores).toEqual(expect.arrayContaining(["localVectorStore", "vectorize", "faiss", "pinecone"]));
    for (const left of ["documentStoreVS", "memoryVectorStore", "pineconeLlamaIndex"]) expect(stores).not.toContain(left);
    expect(names(await json("GET", "/document-store/components/recordmanager"))).toContain("SQLiteRecordManager");

    const splitters = names(await json("GET", "/nodes/category/Text%20Splitters"));
    expect(splitters).toEqual(expect.arrayContaining(["recursiveCharacterTextSplitter", "characterTextSplitter", "tokenTextSplitter"]));
  });

  it("an unknown list is a 400; without a token a 401", async () => {
    expect((await expectError(await call("GET", "/document-store/components/teleporters"), 400)).message).toContain("loaders");
    await expectError(await call("GET", "/document-store/components/loaders", { token: null }), 401);
  });

  it("Flowise's permissions: add-loader for the loaders, upsert-config for the others", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: "wizard loaders", permissions: ["documentStores:add-loader"] } });
    expect((await call("GET", "/document-store/components/loaders", { token: key.apiKey })).status).toBe(200);
    await expectError(await call("GET", "/document-store/components/embeddings", { token: key.apiKey }), 403);
    await expectError(await call("POST", "/document-store/loader/preview", { token: key.apiKey, body: {} }), 403);
    // The vector store page's option lists (Workers AI's models) with the permission that page needs.
    const upsert = await json("POST", "/apikey", { body: { keyName: "wizard upsert", permissions: ["documentStores:upsert-config"] } });
    const models = await json("POST", "/node-load-method/cloudflareWorkersAIEmbeddings", {
      token: upsert.apiKey,
      body: { loadMethod: "listModels", inputs: {} },
    });
    expect(names(models)).toContain("@cf/baai/bge-base-en-v1.5");
  });
});

describe("the loader page: preview, save, process", () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("a text file: preview stores nothing; save lists it SYNCING with its file; process stores its chunks (SYNC)", async () => {
    const store = await newStore("wizard text");
    const preview = await json("POST", "/document-store/loader/preview", { body: { ...textLoader(store.id), previewChunkCount: 2 } });
    expect(preview).toEqual({
      chunks: PARAGRAPHS.slice(0, 2).map((p) => ({ pageContent: p, metadata: expect.objectContaining({ source: "animals.txt" }) })),
      totalChunks: 3,
      previewChunkCount: 2,
    });
    expect(await snapshot(store.id)).toMatchObject({ chunks: 0, loaders: [], files: [] });

    const saved = await json("POST", "/document-store/loader/save", { body: textLoader(store.id) });
    expect(saved).toMatchObject({
      id: expect.any(String),
      loaderId: "textFile",
      loaderName: "Animal notes",
      status: "SYNCING",
      splitterId: "characterTextSplitter",
      files: [expect.objectContaining({ name: "animals.txt", mimePrefix: "text/plain", status: "NEW" })],
      loaderConfig: expect.objectContaining({ txtFile: 'FILE-STORAGE::["animals.txt"]' }),
      source: "animals.txt",
    });
    const during = await json("GET", `/document-store/store/${store.id}`);
    expect(during.status).toBe("UPSERTING");
    expect(loadersOf(during)).toMatchObject([{ id: saved.id, status: "SYNCING", totalChunks: 0 }]);

    const page = await json("POST", `/document-store/loader/process/${saved.id}`, { body: textLoader(store.id, { id: saved.id }) });
    expect(page).toMatchObject({ count: 3, currentPage: 1, docId: saved.id, file: expect.objectContaining({ status: "SYNC" }) });
    expect(page.chunks.map((c: any) => c.pageContent)).toEqual(PARAGRAPHS);
    const after = await json("GET", `/document-store/store/${store.id}`);
    // The vector store page chooses the components: processing saved none.
    expect(after).toMatchObject({ status: "SYNC", totalChunks: 3, embeddingConfig: null, vectorStoreConfig: null });
    expect(loadersOf(after)).toMatchObject([{ id: saved.id, status: "SYNC", totalChunks: 3, files: [{ status: "SYNC" }] }]);
    const snap = await snapshot(store.id);
    expect(snap).toMatchObject({ chunks: 3, vectors: 0, files: [`docustore/${store.id}/${saved.id}/animals.txt`] });
  });

  it("a PDF, one chunk per page; editing the loader previews its stored file (FILE-STORAGE) and reprocesses in place", async () => {
    const store = await newStore("wizard pdf");
    const pdf = makePdf([["Chapter one: the history of bread."], ["Chapter two: sourdough starters."]]);
    const body = {
      storeId: store.id,
      loaderId: "pdfFile",
      loaderConfig: { pdfFile: dataUri("bread.pdf", "application/pdf", pdf), usage: "perPage", textSplitter: "" },
      splitterId: "recursiveCharacterTextSplitter",
      splitterConfig: { chunkSize: 1000, chunkOverlap: 200 },
      previewChunkCount: 20,
    };
    const preview = await json("POST", "/document-store/loader/preview", { body });
    expect(preview.totalChunks).toBe(2);
    expect(preview.chunks[1]).toMatchObject({ pageContent: expect.stringContaining("sourdough"), metadata: { loc: { pageNumber: 2 } } });
    const saved = await json("POST", "/document-store/loader/save", { body });
    expect(saved.loaderName).toBe("Pdf File"); // the loader's label when the page sends no name
    await json("POST", `/document-store/loader/process/${saved.id}`, { body });

    const edited = { ...body, id: saved.id, loaderConfig: { ...saved.loaderConfig, usage: "perFile" } };
    const again = await json("POST", "/document-store/loader/preview", { body: edited });
    expect(again.totalChunks).toBe(1);
    expect(again.chunks[0].pageContent).toMatch(/bread[\s\S]*sourdough/);
    expect((await json("POST", "/document-store/loader/save", { body: edited })).id).toBe(saved.id);
    expect((await json("POST", `/document-store/loader/process/${saved.id}`, { body: edited })).count).toBe(1);
    const s = await json("GET", `/document-store/store/${store.id}`);
    expect(loadersOf(s)).toMatchObject([{ id: saved.id, status: "SYNC", totalChunks: 1, loaderConfig: { usage: "perFile" } }]);
  }, 60_000); // the first PDF an isolate reads compiles pdf.js

  it("over UPSERT_QUEUE_CHUNKS, processing answers 202 and the upsert queue finishes the loader", async () => {
    restore = setVars({ UPSERT_QUEUE_CHUNKS: "2" });
    const store = await newStore("wizard queued");
    const saved = await json("POST", "/document-store/loader/save", { body: textLoader(store.id) });
    const accepted = await json("POST", `/document-store/loader/process/${saved.id}`, { body: textLoader(store.id) }, 202);
    expect(accepted).toMatchObject({ docId: saved.id, storeId: store.id, status: "UPSERTING" });
    expect(accepted.message).toContain("UPSERT_QUEUE_CHUNKS 2");
    const done = await waitForStatus(store.id, (s) => s.status === "UPSERTED");
    expect(loadersOf(done)).toMatchObject([{ id: saved.id, status: "SYNC", totalChunks: 3 }]);
  });

  it("bad input: clear 4xx JSON errors, nothing stored", async () => {
    const store = await newStore("wizard errors");
    const preview = (body: unknown) => call("POST", "/document-store/loader/preview", { body });
    expect((await expectError(await preview({ ...textLoader(store.id), loaderId: "s3File" }), 400)).message).toContain("Unknown loader");
    expect((await expectError(await preview({ loaderId: "textFile" }), 400)).message).toContain("storeId");
    await expectError(await preview(textLoader(uuid())), 404);
    const noFile = { ...textLoader(store.id), loaderConfig: { txtFile: "" } };
    expect((await expectError(await preview(noFile), 400)).message).toContain("needs a file");
    const image = {
      ...textLoader(store.id),
      loaderConfig: { txtFile: dataUri("cat.png", "image/png", new Uint8Array([137, 80, 78, 71])) },
    };
    await expectError(await preview(image), 415);
    const badSplit = { ...textLoader(store.id), splitterConfig: { chunkSize: 10, chunkOverlap: 50 } };
    expect((await expectError(await preview(badSplit), 400)).message).toContain("chunkOverlap");
    const brokenPdf = {
      storeId: store.id,
      loaderId: "pdfFile",
      loaderConfig: { pdfFile: dataUri("x.pdf", "application/pdf", "%PDF-1.4 junk") },
    };
    await expectError(await call("POST", "/document-store/loader/save", { body: { ...textLoader(store.id), id: uuid() } }), 404);
    const broken = await json("POST", "/document-store/loader/save", { body: brokenPdf });
    const failed = await expectError(await call("POST", `/document-store/loader/process/${broken.id}`, { body: brokenPdf }), 400);
    expect(failed.message).toContain("x.pdf");
    const s = await json("GET", `/document-store/store/${store.id}`);
    expect(loadersOf(s)).toMatchObject([{ id: broken.id, status: "STALE", error: expect.stringContaining("x.pdf") }]);
    await expectError(await call("POST", `/document-store/loader/process/${uuid()}`, { body: { storeId: store.id } }), 404);
    await expectError(await call("POST", "/document-store/loader/process/not-a-uuid", { body: { storeId: store.id } }), 400);
    expect((await snapshot(store.id)).chunks).toBe(0);
  });
});
