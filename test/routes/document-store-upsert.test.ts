import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { call, expectError, json, uuid } from "../helpers";
import { DOCX_MIME, makeDocx, makePdf } from "../providers/docs";
import { LOCAL, form, loadersOf, newStore, snapshot, upsert, upsertForm } from "./document-store-helpers";

// Paragraphs of 20–60 characters each become one chunk.
const SPLIT_PARAGRAPHS = { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } };
const RM = (cleanup: string, extra: Record<string, unknown> = {}) => ({ name: "SQLiteRecordManager", config: { cleanup, ...extra } });
const text = (lines: string[]) => lines.join("\n\n");
const chunksOf = async (storeId: string, loaderId = "all") => (await json("GET", `/document-store/chunks/${storeId}/${loaderId}/1`)).chunks;
const query = (storeId: string, q: string, inputs?: Record<string, unknown>) =>
  json("POST", "/document-store/vectorstore/query", { body: { storeId, query: q, ...(inputs ? { inputs } : {}) } });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("upsert: loaders", () => {
  it("multipart text file: stored in R2 under the loader, chunked, counted, queried", async () => {
    const store = await newStore();
    const body = text([
      "Solar panels turn sunlight into electricity.",
      "Wind turbines spin in strong coastal winds.",
      "Hydroelectric dams hold back rivers.",
    ]);
    const res = await upsertForm(
      store.id,
      form([{ name: "energy.txt", type: "text/plain", data: body }], {
        ...LOCAL,
        splitter: SPLIT_PARAGRAPHS,
        metadata: { team: "research" },
      }),
    );
    expect(res.status).toBe(200);
    const up = await res.json<any>();
    expect(up).toMatchObject({ numAdded: 3, numUpdated: 0, numSkipped: 0, numDeleted: 0, storeId: store.id });
    expect(up.addedDocs[0].metadata).toMatchObject({ source: "energy.txt", team: "research", docId: up.docId });

    const object = await env.FILES.get(`docustore/${store.id}/${up.docId}/energy.txt`);
    expect(await object!.text()).toBe(body);
    const loader = loadersOf(await json("GET", `/document-store/store/${store.id}`))[0];
    expect(loader).toMatchObject({
      id: up.docId,
      loaderId: "textFile",
      loaderName: "Text File",
      totalChunks: 3,
      status: "SYNC",
      loaderConfig: { txtFile: 'FILE-STORAGE::["energy.txt"]', metadata: { team: "research" } },
    });
    expect(loader.files).toEqual([
      expect.objectContaining({ name: "energy.txt", mimePrefix: "text/plain", size: body.length, status: "SYNC" }),
    ]);

    const found = await query(store.id, "wind turbines on the coast");
    expect(found.docs[0]).toMatchObject({ pageContent: "Wind turbines spin in strong coastal winds.", chunkNo: 2 });
    expect(found.docs).toHaveLength(3);
    const chunks = await chunksOf(store.id);
    expect(found.docs[0].id).toBe(chunks[1].id);
    expect(typeof found.timeTaken).toBe("number");
    expect((await query(store.id, "dams", { topK: 1 })).docs.map((d: any) => d.pageContent)).toEqual([
      "Hydroelectric dams hold back rivers.",
    ]);
  });

  it("pdfFile per page and per file, from a PDF built in the test", async () => {
    const store = await newStore();
    const pdf = makePdf([["Chapter one covers the history of bread baking."], ["Chapter two covers sourdough starters and flour."]]);
    const res = await upsertForm(store.id, form([{ name: "bread.pdf", type: "application/pdf", data: pdf }], LOCAL));
    const up = await res.json<any>();
    expect(res.status).toBe(200);
    expect(up.numAdded).toBe(2);
    const chunks = await chunksOf(store.id, up.docId);
    expect(JSON.parse(chunks[1].metadata)).toMatchObject({ source: "bread.pdf", loc: { pageNumber: 2 }, pdf: { totalPages: 2 } });
    expect((await query(store.id, "sourdough starter")).docs[0].pageContent).toContain("sourdough");

    const whole = await upsertForm(
      store.id,
      form([{ name: "bread.pdf", type: "application/pdf", data: pdf }], { loader: { name: "pdfFile", config: { usage: "perFile" } } }),
    );
    expect((await whole.json<any>()).numAdded).toBe(1);
  }, 30_000);

  it("csvFile, jsonFile, jsonlinesFile and docxFile from multipart uploads", async () => {
    const store = await newStore();
    const cases: Array<{
      file: { name: string; type: string; data: string | Uint8Array };
      chunks: number;
      first: string;
      meta: Record<string, unknown>;
      config?: Record<string, unknown>;
    }> = [
      {
        file: { name: "people.csv", type: "text/csv", data: "name,role\nAda,engineer\nGrace,admiral\n" },
        chunks: 2,
        first: "name: Ada\nrole: engineer",
        meta: { source: "people.csv", line: 1 },
      },
      {
        file: { name: "faq.json", type: "application/json", data: JSON.stringify([{ q: "What is it?", a: "A store." }]) },
        chunks: 1,
        first: "A store.",
        meta: { source: "faq.json", line: 1 },
        config: { pointersName: "a" },
      },
      {
        file: { name: "log.jsonl", type: "application/jsonl", data: '{"msg":"started"}\n{"msg":"stopped"}\n' },
        chunks: 2,
        first: "started",
        meta: { source: "log.jsonl", line: 1 },
        config: { pointerName: "msg" },
      },
      {
        file: { name: "memo.docx", type: DOCX_MIME, data: makeDocx(["Memo title", "Body of the memo."]) },
        chunks: 1,
        first: "Memo title\nBody of the memo.",
        meta: { source: "memo.docx" },
      },
    ];
    for (const c of cases) {
      const fields: Record<string, unknown> = { ...LOCAL };
      if (c.config) fields.loader = { name: c.file.name.endsWith(".json") ? "jsonFile" : "jsonlinesFile", config: c.config };
      const res = await upsertForm(store.id, form([c.file], fields));
      const up = await res.json<any>();
      expect(res.status, JSON.stringify(up)).toBe(200);
      expect(up.numAdded).toBe(c.chunks);
      const chunks = await chunksOf(store.id, up.docId);
      expect(chunks[0].pageContent).toBe(c.first);
      expect(JSON.parse(chunks[0].metadata)).toMatchObject(c.meta);
      expect(await env.FILES.head(`docustore/${store.id}/${up.docId}/${c.file.name}`)).not.toBeNull();
    }
    const loaders = loadersOf(await json("GET", `/document-store/store/${store.id}`));
    expect(loaders.map((l: any) => l.loaderId)).toEqual(["csvFile", "jsonFile", "jsonlinesFile", "docxFile"]);
  });

  it("JSON body: a file as a Flowise data URI, and plainText with metadata", async () => {
    const store = await newStore();
    const data = btoa("Lighthouses guide ships at night.");
    const up = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "textFile", config: { txtFile: `data:text/plain;base64,${data},filename:light.txt` } },
    });
    expect(up.numAdded).toBe(1);
    expect(await (await env.FILES.get(`docustore/${store.id}/${up.docId}/light.txt`))!.text()).toBe("Lighthouses guide ships at night.");
    const plain = await upsert(store.id, { loader: { name: "plainText", config: { text: "Plain words." } }, metadata: '{"kind":"note"}' });
    expect(plain.addedDocs[0].metadata).toEqual({ kind: "note", docId: plain.docId, loc: { lines: { from: 1, to: 1 } } });
  });

  it("cheerioWebScraper fetches a page and keeps its text (outbound fetch stubbed)", async () => {
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url === "https://docs.example.com/start") return new Response(null, { status: 301, headers: { location: "/guide" } });
      return new Response(
        "<html><head><title>Guide</title><script>x()</script></head><body><h1>Getting started</h1><p>Install the tool first.</p></body></html>",
        { headers: { "content-type": "text/html" } },
      );
    });
    const store = await newStore();
    const up = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "cheerioWebScraper", config: { url: "https://docs.example.com/start" } },
    });
    expect(spy).toHaveBeenCalledTimes(2);
    // The final URL after redirects (a stubbed Response has none, so the URL asked for).
    expect(up.addedDocs[0]).toMatchObject({
      pageContent: "Getting started\nInstall the tool first.",
      metadata: { source: expect.stringMatching(/^https:\/\/docs\.example\.com\//), title: "Guide" },
    });
  });

  it("markdownTextSplitter and tokenTextSplitter through an upsert", async () => {
    const store = await newStore();
    const md = "# Intro\n\nShort intro.\n\n## Setup\n\nInstall it.\n\n## Usage\n\nRun it.";
    const a = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "plainText", config: { text: md } },
      splitter: { name: "markdownTextSplitter", config: { chunkSize: 30, chunkOverlap: 0 } },
    });
    expect((await chunksOf(store.id, a.docId)).map((c: any) => c.pageContent)).toEqual([
      "# Intro\n\nShort intro.",
      "## Setup\n\nInstall it.",
      "## Usage\n\nRun it.",
    ]);
    const b = await upsert(store.id, {
      loader: { name: "plainText", config: { text: "one two three four five six seven" } },
      splitter: { name: "tokenTextSplitter", config: { chunkSize: 4, chunkOverlap: 0, encodingName: "gpt2" } },
    });
    expect((await chunksOf(store.id, b.docId)).map((c: any) => c.pageContent)).toEqual(["one two three four", " five six seven"]);
    const loader = loadersOf(await json("GET", `/document-store/store/${store.id}`)).find((l: any) => l.id === b.docId);
    expect(loader).toMatchObject({
      splitterId: "tokenTextSplitter",
      splitterName: "Token Text Splitter",
      splitterConfig: { chunkSize: 4, chunkOverlap: 0, encodingName: "gpt2" },
    });
  });
});

describe("upsert: loader reuse, new stores, refresh", () => {
  it("docId reuses a loader's config as a new loader; replaceExisting replaces it in place", async () => {
    const store = await newStore();
    const first = await upsert(store.id, { ...LOCAL, loader: { name: "plainText", config: { text: "Version one." } } });
    const copy = await upsert(store.id, { docId: first.docId });
    expect(copy.docId).not.toBe(first.docId);
    expect((await chunksOf(store.id, copy.docId))[0].pageContent).toBe("Version one.");
    const replaced = await upsert(store.id, {
      docId: first.docId,
      replaceExisting: true,
      loader: { name: "plainText", config: { text: "Version two." } },
    });
    expect(replaced.docId).toBe(first.docId);
    expect((await chunksOf(store.id, first.docId)).map((c: any) => c.pageContent)).toEqual(["Version two."]);
    expect(loadersOf(await json("GET", `/document-store/store/${store.id}`))).toHaveLength(2);
    await expectError(await call("POST", `/document-store/upsert/${store.id}`, { body: { docId: uuid() } }), 404);
  });

  it("createNewDocStore makes the store from docStore (the path id is not looked up)", async () => {
    const up = await upsert(uuid(), {
      createNewDocStore: true,
      docStore: { name: "Fresh", description: "made by upsert" },
      ...LOCAL,
      loader: { name: "plainText", config: { text: "Hello." } },
    });
    const store = await json("GET", `/document-store/store/${up.storeId}`);
    expect(store).toMatchObject({ name: "Fresh", description: "made by upsert", status: "UPSERTED", totalChunks: 1 });
    await expectError(
      await call("POST", `/document-store/upsert/${uuid()}`, { body: { ...LOCAL, loader: { name: "plainText", config: { text: "x" } } } }),
      404,
    );
  });

  it("refresh re-processes every loader in place (or the items given) from stored files", async () => {
    const store = await newStore();
    const rm = RM("incremental");
    const a = await (
      await upsertForm(
        store.id,
        form(
          [{ name: "a.txt", type: "text/plain", data: text(["Alpha one is the first paragraph.", "Alpha two is the second paragraph."]) }],
          { ...LOCAL, recordManager: rm, splitter: SPLIT_PARAGRAPHS },
        ),
      )
    ).json<any>();
    const b = await upsert(store.id, { loader: { name: "plainText", config: { text: "Beta." } }, metadata: { source: "beta" } });
    const all = await json("POST", `/document-store/refresh/${store.id}`, { body: {} });
    expect(all.map((r: any) => [r.docId, r.numAdded, r.numSkipped])).toEqual([
      [a.docId, 0, 2],
      [b.docId, 0, 1],
    ]);
    const none = await json("POST", `/document-store/refresh/${store.id}`);
    expect(none).toHaveLength(2);
    const one = await json("POST", `/document-store/refresh/${store.id}`, {
      body: { items: [{ docId: b.docId, loader: { name: "plainText", config: { text: "Beta, edited." } } }] },
    });
    expect(one).toEqual([expect.objectContaining({ docId: b.docId, numAdded: 1, numDeleted: 1, numSkipped: 0 })]);
    expect(loadersOf(await json("GET", `/document-store/store/${store.id}`))).toHaveLength(2);
    await expectError(await call("POST", `/document-store/refresh/${uuid()}`, { body: {} }), 404);
  });
});

describe("record manager", () => {
  const doc = (lines: string[]) => ({
    loader: { name: "plainText", config: { text: text(lines.map((l) => `${l} ${"·".repeat(25)}`)) } },
    splitter: SPLIT_PARAGRAPHS,
    metadata: { source: "manual.txt" },
  });

  it("counts added / unchanged / changed / removed content (incremental cleanup)", async () => {
    const store = await newStore();
    const first = await upsert(store.id, { ...LOCAL, recordManager: RM("incremental"), ...doc(["One.", "Two.", "Three."]) });
    expect(first).toMatchObject({ numAdded: 3, numSkipped: 0, numUpdated: 0, numDeleted: 0 });
    const same = await upsert(store.id, { docId: first.docId, replaceExisting: true, ...doc(["One.", "Two.", "Three."]) });
    expect(same).toMatchObject({ numAdded: 0, numSkipped: 3, numUpdated: 0, numDeleted: 0 });
    const changed = await upsert(store.id, { docId: first.docId, replaceExisting: true, ...doc(["One.", "Two, revised.", "Three."]) });
    expect(changed).toMatchObject({ numAdded: 1, numSkipped: 2, numDeleted: 1 });
    const removed = await upsert(store.id, { docId: first.docId, replaceExisting: true, ...doc(["One."]) });
    expect(removed).toMatchObject({ numAdded: 0, numSkipped: 1, numDeleted: 2 });
    const snap = await snapshot(store.id);
    expect(snap).toMatchObject({ vectors: 1, embeddings: 1, records: 1, chunks: 1 });
    expect((await query(store.id, "anything")).docs.map((d: any) => d.pageContent.split(" ")[0])).toEqual(["One."]);
  });

  it("cleanup none keeps old vectors; full removes what the run did not see; a lost vector is re-written (numUpdated)", async () => {
    const store = await newStore();
    const a = await upsert(store.id, { ...LOCAL, recordManager: RM("none"), ...doc(["Keep A.", "Keep B."]) });
    const b = await upsert(store.id, { docId: a.docId, replaceExisting: true, ...doc(["Keep A.", "New C."]) });
    expect(b).toMatchObject({ numAdded: 1, numSkipped: 1, numDeleted: 0 });
    expect((await snapshot(store.id)).vectors).toBe(3);

    const full = await upsert(store.id, { docId: a.docId, replaceExisting: true, recordManager: RM("full"), ...doc(["Keep A."]) });
    expect(full).toMatchObject({ numAdded: 0, numSkipped: 1, numDeleted: 2 });
    expect((await snapshot(store.id)).vectors).toBe(1);

    // The vector vanished behind the record manager's back: indexing writes it again.
    await env.DB.prepare("DELETE FROM local_embedding WHERE namespace = ?").bind(store.id).run();
    await env.DB.prepare("DELETE FROM vector_document WHERE namespace = ?").bind(store.id).run();
    const again = await upsert(store.id, { docId: a.docId, replaceExisting: true, ...doc(["Keep A."]) });
    expect(again).toMatchObject({ numAdded: 0, numUpdated: 1, numSkipped: 0 });
  });

  it("DELETE /vectorstore removes exactly the recorded vectors (all, or one loader's with ?docId)", async () => {
    const store = await newStore();
    const a = await upsert(store.id, { ...LOCAL, recordManager: RM("none"), ...doc(["A one.", "A two."]) });
    const b = await upsert(store.id, { ...doc(["B one."]), metadata: { source: "b.txt" } });
    // A vector written without the record manager (e.g. an older upsert) is not the record manager's to delete.
    await env.DB.prepare(
      "INSERT INTO vector_document (provider, namespace, id, docId, pageContent, metadata) VALUES ('local', ?, 'manual', NULL, 'manual', '{}')",
    )
      .bind(store.id)
      .run();
    expect(await json("DELETE", `/document-store/vectorstore/${store.id}?docId=${b.docId}`)).toEqual({ deleted: 1 });
    expect((await snapshot(store.id)).vectors).toBe(3);
    expect(await json("DELETE", `/document-store/vectorstore/${store.id}`)).toEqual({ deleted: 2 });
    const snap = await snapshot(store.id);
    expect(snap).toMatchObject({ vectors: 1, embeddings: 0, records: 0, chunks: 3 });
    void a;
    const noRm = await newStore();
    await upsert(noRm.id, { ...LOCAL, loader: { name: "plainText", config: { text: "x" } } });
    expect((await expectError(await call("DELETE", `/document-store/vectorstore/${noRm.id}`), 400)).message).toMatch(/record manager/);
    await expectError(await call("DELETE", `/document-store/vectorstore/${uuid()}`), 404);
  });
});

describe("vector store query", () => {
  it("answers the relevant chunk first, honours topK and refuses what it cannot answer", async () => {
    const store = await newStore();
    await upsert(store.id, {
      ...LOCAL,
      loader: {
        name: "plainText",
        config: {
          text: text([
            "The invoice total is due within thirty days.",
            "Our office dog is named Biscuit.",
            "Passwords must be rotated every ninety days.",
            "The cafeteria serves soup on Fridays.",
          ]),
        },
      },
      splitter: SPLIT_PARAGRAPHS,
    });
    const res = await query(store.id, "what is the dog called?");
    expect(res.docs[0]).toMatchObject({ pageContent: "Our office dog is named Biscuit.", chunkNo: 2 });
    expect(res.docs).toHaveLength(4);
    expect((await query(store.id, "password rotation policy", { topK: "2" })).docs[0].pageContent).toContain("Passwords");
    await expectError(
      await call("POST", "/document-store/vectorstore/query", { body: { storeId: store.id, query: "x", inputs: { topK: 0 } } }),
      400,
    );
    await expectError(
      await call("POST", "/document-store/vectorstore/query", { body: { storeId: store.id, query: "x", inputs: { topK: 500 } } }),
      400,
    );
    await expectError(await call("POST", "/document-store/vectorstore/query", { body: { storeId: uuid(), query: "x" } }), 404);
    await expectError(await call("POST", "/document-store/vectorstore/query", { body: { storeId: store.id } }), 400);
    const empty = await newStore();
    expect(
      (await expectError(await call("POST", "/document-store/vectorstore/query", { body: { storeId: empty.id, query: "x" } }), 400))
        .message,
    ).toMatch(/upsert it first/);
  });

  it("matches hits to the current chunk after chunks move (re-process) or change (edit)", async () => {
    const store = await newStore();
    const lines = ["Comets have icy tails that glow.", "Asteroids are rocky and dry bodies.", "Meteors burn up high in the sky."];
    const first = await upsert(store.id, {
      ...LOCAL,
      recordManager: RM("incremental"),
      metadata: { source: "space" },
      loader: { name: "plainText", config: { text: text(lines) } },
      splitter: SPLIT_PARAGRAPHS,
    });
    // A paragraph inserted first: the others keep their vectors (skipped) but move down one.
    const moved = await upsert(store.id, {
      docId: first.docId,
      replaceExisting: true,
      loader: { name: "plainText", config: { text: text(["Nebulae are vast clouds of gas.", ...lines]) } },
    });
    expect(moved).toMatchObject({ numAdded: 1, numSkipped: 3 });
    const hit = (await query(store.id, "rocky asteroids", { topK: 1 })).docs[0];
    const chunks = await chunksOf(store.id, first.docId);
    expect(hit).toMatchObject({ pageContent: lines[1], chunkNo: 3, id: chunks[2].id });
    // An edited chunk no longer has the vector's text: Flowise's answer, chunkNo -1.
    await json("PUT", `/document-store/chunks/${store.id}/${first.docId}/${chunks[2].id}`, { body: { pageContent: "Asteroids, edited." } });
    expect((await query(store.id, "rocky asteroids", { topK: 1 })).docs[0]).toMatchObject({ pageContent: lines[1], chunkNo: -1 });
  });

  it("only scores its own store's vectors", async () => {
    const a = await newStore("a");
    const b = await newStore("b");
    await upsert(a.id, { ...LOCAL, loader: { name: "plainText", config: { text: "Zebras have stripes." } } });
    await upsert(b.id, { ...LOCAL, loader: { name: "plainText", config: { text: "Penguins cannot fly." } } });
    expect((await query(a.id, "zebra penguin")).docs.map((d: any) => d.pageContent)).toEqual(["Zebras have stripes."]);
  });
});

describe("Cloudflare path (Workers AI + Vectorize stand-ins)", () => {
  it("without a record manager, chunks go to Workers AI in calls of its cap (100), not slices split in two", async () => {
    const store = await newStore();
    const lines = Array.from({ length: 230 }, (_, i) => `Line ${i} names thing${i} alone.`);
    const callsBefore = (await (env.AI as any).calls()).length;
    const up = await upsert(store.id, {
      loader: { name: "plainText", config: { text: lines.join("\n\n") } },
      splitter: { name: "characterTextSplitter", config: { chunkSize: 40, chunkOverlap: 0, separator: "\n\n" } },
    });
    expect(up.numAdded).toBe(230);
    const calls = (await (env.AI as any).calls()).slice(callsBefore);
    expect(calls.map((c: any) => c.count)).toEqual([100, 100, 30]);
    expect(await (env.VECTORIZE as any).ids(store.id)).toHaveLength(230);
  });

  it("defaults to Workers AI and Vectorize when bound: batches of ≤ 100, metadata only ids, namespace per store", async () => {
    const store = await newStore();
    const lines = Array.from({ length: 230 }, (_, i) => `Line ${i} mentions item${i} only.`);
    const callsBefore = (await (env.AI as any).calls()).length;
    const up = await upsert(store.id, {
      loader: { name: "plainText", config: { text: lines.join("\n\n") } },
      splitter: { name: "characterTextSplitter", config: { chunkSize: 40, chunkOverlap: 0, separator: "\n\n" } },
      recordManager: RM("none"),
    });
    expect(up.numAdded).toBe(230);
    const s = await json("GET", `/document-store/store/${store.id}`);
    expect(JSON.parse(s.embeddingConfig).name).toBe("cloudflareWorkersAIEmbeddings");
    expect(JSON.parse(s.vectorStoreConfig).name).toBe("vectorize");
    const calls = (await (env.AI as any).calls()).slice(callsBefore);
    expect(calls.map((c: any) => c.count)).toEqual([100, 100, 30]);
    expect(calls.every((c: any) => c.model === "@cf/baai/bge-base-en-v1.5")).toBe(true);

    const ids: string[] = await (env.VECTORIZE as any).ids(store.id);
    expect(ids).toHaveLength(230);
    expect(await (env.VECTORIZE as any).metadataOf(ids[0])).toEqual({ storeId: store.id, docId: up.docId });
    expect((await snapshot(store.id)).embeddings).toBe(0); // text in D1, vectors in Vectorize

    const res = await query(store.id, "which line mentions item117?");
    expect(res.docs[0].pageContent).toBe("Line 117 mentions item117 only.");
    expect(res.docs[0].chunkNo).toBe(118);
    await expectError(
      await call("POST", "/document-store/vectorstore/query", { body: { storeId: store.id, query: "x", inputs: { topK: 21 } } }),
      400,
    );

    expect(await json("DELETE", `/document-store/vectorstore/${store.id}`)).toEqual({ deleted: 230 });
    expect(await (env.VECTORIZE as any).ids(store.id)).toEqual([]);
  });

  it("an embedding failure is a 502 after the chunks are kept: status SYNC, no vectors", async () => {
    const store = await newStore();
    const res = await call("POST", `/document-store/upsert/${store.id}`, {
      body: { loader: { name: "plainText", config: { text: "This text makes the model fail [fail-embed]." } } },
    });
    const err = await expectError(res, 502);
    expect(err.message).toContain("model unavailable");
    const s = await json("GET", `/document-store/store/${store.id}`);
    expect(s.status).toBe("SYNC");
    expect(loadersOf(s)[0]).toMatchObject({ status: "SYNC", totalChunks: 1 });
    expect((await snapshot(store.id)).vectors).toBe(0);
    expect(await (env.VECTORIZE as any).ids(store.id)).toEqual([]);
  });

  it("deleting a store removes its Vectorize vectors", async () => {
    const store = await newStore();
    await upsert(store.id, { loader: { name: "plainText", config: { text: "Vectorize me." } } });
    expect(await (env.VECTORIZE as any).ids(store.id)).toHaveLength(1);
    await json("DELETE", `/document-store/store/${store.id}`);
    expect(await (env.VECTORIZE as any).ids(store.id)).toEqual([]);
  });
});

describe("openAIEmbeddings", () => {
  it("calls the basepath with the credential's key, in batches; provider errors are 502", async () => {
    const cred = await json("POST", "/credentials", {
      body: { name: "oa", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } },
    });
    const seen: Array<{ url: string; auth: string | null; inputs: number }> = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const req = new Request(input as RequestInfo, init);
      const body = await req.json<any>();
      seen.push({ url: req.url, auth: req.headers.get("authorization"), inputs: body.input.length });
      if (body.input.some((t: string) => t.includes("boom")))
        return Response.json({ error: { message: "quota exceeded" } }, { status: 429 });
      return Response.json({ data: body.input.map((t: string, index: number) => ({ index, embedding: [t.length, 1, 0] })) });
    });
    const store = await newStore();
    const embedding = {
      name: "openAIEmbeddings",
      config: { credential: cred.id, basepath: "https://llm.example.com/v1", modelName: "text-embedding-3-small", batchSize: 2 },
    };
    const up = await upsert(store.id, {
      embedding,
      vectorStore: { name: "memoryVectorStore" },
      loader: { name: "plainText", config: { text: text(["a", "bb", "ccc"]) } },
      splitter: { name: "characterTextSplitter", config: { chunkSize: 2, chunkOverlap: 0, separator: "\n\n" } },
    });
    expect(up.numAdded).toBe(3);
    expect(seen.map((s) => [s.url, s.auth, s.inputs])).toEqual([
      ["https://llm.example.com/v1/embeddings", "Bearer sk-test", 2],
      ["https://llm.example.com/v1/embeddings", "Bearer sk-test", 1],
    ]);
    const err = await expectError(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { loader: { name: "plainText", config: { text: "boom" } } } }),
      502,
    );
    expect(err.message).toContain("quota exceeded");
  });
});

describe("openAIEmbeddings wire format", () => {
  // A 3-dimensional vector per text: texts about cats point one way, the rest another.
  const vectorOf = (t: string) => (t.includes("cat") ? [1, 0, 0] : [0, 1, 0]);
  const ONE_PER_PARAGRAPH = { name: "characterTextSplitter", config: { chunkSize: 1, chunkOverlap: 0, separator: "\n\n" } };
  const base64Of = (v: number[]) => btoa(String.fromCharCode(...new Uint8Array(new Float32Array(v).buffer)));

  it("asks for base64 vectors, decodes them, and sends batches a few at a time in order", async () => {
    const cred = await json("POST", "/credentials", {
      body: { name: "oa", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } },
    });
    const bodies: any[] = [];
    let inFlight = 0;
    let most = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const body = await new Request(input as RequestInfo, init).json<any>();
      bodies.push(body);
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, body.input[0].includes("cat") ? 60 : 20)); // the cat's batch answers last
      inFlight--;
      return Response.json({ data: body.input.map((t: string, index: number) => ({ index, embedding: base64Of(vectorOf(t)) })) });
    });
    const store = await newStore();
    const texts = ["a dog runs", "the cat sleeps", "birds fly", "fish swim", "a cow eats", "rain falls", "sun shines", "wind blows"];
    const embedding = {
      name: "openAIEmbeddings",
      config: { credential: cred.id, basepath: "https://llm.example.com/v1", modelName: "m", batchSize: 1 },
    };
    const up = await upsert(store.id, {
      embedding,
      vectorStore: { name: "localVectorStore" },
      loader: { name: "plainText", config: { text: text(texts) } },
      splitter: ONE_PER_PARAGRAPH,
    });
    expect(up.numAdded).toBe(8);
    expect(bodies.every((b) => b.encoding_format === "base64")).toBe(true);
    expect(bodies.map((b) => b.input[0]).sort()).toEqual([...texts].sort());
    // Each chunk got its own vector back (batches answered out of order would swap them).
    expect((await query(store.id, "a cat", { topK: 1 })).docs.map((d: any) => d.pageContent)).toEqual(["the cat sleeps"]);
    expect(most).toBeGreaterThan(1); // not one after another
    expect(most).toBeLessThanOrEqual(4);
  });

  it("falls back to JSON numbers for a server that refuses encoding_format", async () => {
    const cred = await json("POST", "/credentials", {
      body: { name: "oa", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } },
    });
    const formats: unknown[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const body = await new Request(input as RequestInfo, init).json<any>();
      formats.push(body.encoding_format);
      if (body.encoding_format) return Response.json({ error: { message: "unknown field encoding_format" } }, { status: 400 });
      return Response.json({ data: body.input.map((t: string, index: number) => ({ index, embedding: vectorOf(t) })) });
    });
    const store = await newStore();
    const embedding = {
      name: "openAIEmbeddings",
      config: { credential: cred.id, basepath: "https://floats.example.com/v1", modelName: "m" },
    };
    const up = await upsert(store.id, {
      embedding,
      vectorStore: { name: "memoryVectorStore" },
      loader: { name: "plainText", config: { text: text(["the cat sleeps", "a dog runs"]) } },
      splitter: ONE_PER_PARAGRAPH,
    });
    expect(up.numAdded).toBe(2);
    expect(formats).toEqual(["base64", undefined]);
  });

  it("a request refused for another reason fails as it is and leaves base64 on for that server", async () => {
    const cred = await json("POST", "/credentials", {
      body: { name: "oa", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } },
    });
    const formats: unknown[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const body = await new Request(input as RequestInfo, init).json<any>();
      formats.push(body.encoding_format);
      if (body.dimensions)
        return Response.json({ error: { message: "This model does not support specifying dimensions." } }, { status: 400 });
      return Response.json({ data: body.input.map((t: string, index: number) => ({ index, embedding: base64Of(vectorOf(t)) })) });
    });
    const config = { credential: cred.id, basepath: "https://base64-kept.example.com/v1", modelName: "m" };
    // A store each: a store keeps the embedding config it was upserted with.
    const upserting = async (extra: Record<string, unknown>, name: string) =>
      call("POST", `/document-store/upsert/${(await newStore()).id}`, {
        body: {
          embedding: { name: "openAIEmbeddings", config: { ...config, ...extra } },
          vectorStore: { name: "memoryVectorStore" },
          loader: { name: "plainText", config: { text: text([`${name} sleeps`]) } },
          splitter: ONE_PER_PARAGRAPH,
        },
      });
    const refused = await upserting({ dimensions: 8 }, "the cat");
    expect(refused.status).toBe(502);
    expect(formats).toEqual(["base64", undefined]); // asked once more, for numbers: refused the same
    formats.length = 0;
    expect((await upserting({}, "the dog")).status).toBe(200);
    expect(formats).toEqual(["base64"]);
  });
});

describe("async upsert through the queue", () => {
  it("answers 202 with the store UPSERTING; the consumer finishes (loader counts, UPSERTED)", async () => {
    const store = await newStore();
    const res = await upsertForm(
      store.id,
      form(
        [
          {
            name: "q.txt",
            type: "text/plain",
            data: text(["Queued one is a sentence long enough.", "Queued two is another long sentence."]),
          },
        ],
        { ...LOCAL, splitter: SPLIT_PARAGRAPHS, async: "true" },
      ),
    );
    expect(res.status).toBe(202);
    const accepted = await res.json<any>();
    expect(accepted).toMatchObject({ storeId: store.id, status: "UPSERTING" });
    const during = await json("GET", `/document-store/store/${store.id}`);
    // Until the consumer has committed the chunks the loader is SYNCING with its file NEW.
    const staged = loadersOf(during)[0];
    expect(staged).toMatchObject({ id: accepted.docId, files: [expect.objectContaining({ name: "q.txt" })] });
    if (staged.status === "SYNCING") expect(staged.files[0].status).toBe("NEW");
    let s = during;
    for (let i = 0; i < 200 && s.status !== "UPSERTED"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = await json("GET", `/document-store/store/${store.id}`);
    }
    expect(s.status).toBe("UPSERTED");
    expect(loadersOf(s)[0]).toMatchObject({ id: accepted.docId, status: "SYNC", totalChunks: 2 });
    expect((await query(store.id, "queued two")).docs[0].pageContent).toBe("Queued two is another long sentence.");
  });

  it("a file the consumer cannot read leaves its loader STALE with the error", async () => {
    const store = await newStore();
    const res = await upsertForm(
      store.id,
      form([{ name: "bad.pdf", type: "application/pdf", data: "%PDF-1.4 broken" }], { ...LOCAL, async: "true" }),
    );
    expect(res.status).toBe(202);
    let s: any;
    for (let i = 0; i < 200; i++) {
      s = await json("GET", `/document-store/store/${store.id}`);
      if (loadersOf(s)[0]?.status === "STALE") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(s.status).toBe("STALE");
    expect(loadersOf(s)[0].error).toMatch(/not a readable PDF/);
    expect((await snapshot(store.id)).chunks).toBe(0);
  }, 30_000);
});

describe("upsert: bad input leaves the store as it was", () => {
  it("unknown names, bad files, limits, content types and private URLs are clear 4xx", async () => {
    const store = await newStore();
    await upsert(store.id, {
      ...LOCAL,
      recordManager: RM("none"),
      loader: { name: "plainText", config: { text: "Existing content." } },
      metadata: { source: "x" },
    });
    const before = await snapshot(store.id);
    const expectUnchanged = async () => expect(await snapshot(store.id)).toEqual(before);
    const bad = async (res: Response, status: number, message: RegExp) => {
      expect((await expectError(res, status)).message).toMatch(message);
      await expectUnchanged();
    };
    const plain = { loader: { name: "plainText", config: { text: "x" } } };
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { loader: { name: "s3File" } } }),
      400,
      /Unknown loader "s3File". Supported: .*cheerioWebScraper.*pdfFile/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { ...plain, splitter: { name: "htmlSplitter" } } }),
      400,
      /Unknown splitter "htmlSplitter". Supported: characterTextSplitter/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { ...plain, embedding: { name: "noSuchEmbeddings" } } }),
      400,
      /Unknown embedding "noSuchEmbeddings". Supported: .*localHashEmbeddings/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { ...plain, vectorStore: { name: "milvusNoSuchStore" } } }),
      400,
      /Unknown vector store "milvusNoSuchStore". Supported: .*faiss.*vectorize/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { ...plain, recordManager: { name: "redisRecordManager" } } }),
      400,
      /Unknown record manager "redisRecordManager". Supported: /,
    );
    await bad(
      await upsertForm(store.id, form([{ name: "broken.pdf", type: "application/pdf", data: "%PDF-1.4 garbage" }])),
      400,
      /broken.pdf is not a readable PDF/,
    );
    await bad(await upsertForm(store.id, form([{ name: "empty.txt", type: "text/plain", data: "" }])), 400, /empty.txt is empty/);
    await bad(await upsertForm(store.id, form([{ name: "blank.txt", type: "text/plain", data: "   \n\n  " }])), 400, /No text found/);
    await bad(
      await upsertForm(store.id, form([{ name: "scan.pdf", type: "application/pdf", data: makePdf([[]]) }])),
      400,
      /No text found in PDF scan.pdf/,
    );
    await bad(
      await upsertForm(
        store.id,
        form([{ name: "photo.png", type: "image/png", data: new Uint8Array([137, 80, 78, 71]) }], { loader: { name: "textFile" } }),
      ),
      415,
      /cannot read photo.png/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { raw: "text=hello", headers: { "content-type": "text/plain" } }),
      415,
      /not accepted/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { raw: "{oops", headers: { "content-type": "application/json" } }),
      400,
      /Malformed JSON/,
    );
    const big = new Uint8Array(21 * 1024 * 1024).fill(97);
    // A file read whole (PDF) over MAX_UPLOAD_MB; text files have their own limit (test/document-store/large-files.test.ts).
    await bad(
      await upsertForm(store.id, form([{ name: "big.pdf", type: "application/pdf", data: big }])),
      413,
      /larger than the upload limit of 20 MB \(MAX_UPLOAD_MB\)/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, {
        body: { loader: { name: "cheerioWebScraper", config: { url: "http://127.0.0.1:8787/admin" } } },
      }),
      400,
      /Outbound request refused: .*127\.0\.0\.1/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, {
        body: { loader: { name: "cheerioWebScraper", config: { url: "file:///etc/passwd" } } },
      }),
      400,
      /only http and https/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, {
        body: { loader: { name: "cheerioWebScraper", config: { url: "http://[::ffff:169.254.169.254]/latest" } } },
      }),
      400,
      /Outbound request refused/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, {
        body: { ...plain, splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 10, chunkOverlap: 20 } } },
      }),
      400,
      /chunkOverlap/,
    );
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { ...plain, recordManager: RM("sometimes") } }),
      400,
      /cleanup must be one of/,
    );
    await bad(await call("POST", `/document-store/upsert/${store.id}`, { body: { loader: { name: "pdfFile" } } }), 400, /needs a file/);
    await bad(await call("POST", `/document-store/upsert/${store.id}`, { body: { ...plain, metadata: "[1]" } }), 400, /metadata/);
    await bad(
      await call("POST", `/document-store/upsert/${store.id}`, { body: { ...plain, recordManager: RM("incremental") } }),
      400,
      /Incremental cleanup needs .*"source"/,
    );
  }, 30_000);

  it("a failed createNewDocStore creates no store", async () => {
    const count = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM document_store").first<{ n: number }>())!.n;
    const n = await count();
    await expectError(
      await upsertForm(
        uuid(),
        form([{ name: "broken.pdf", type: "application/pdf", data: "%PDF-1.4 garbage" }], {
          createNewDocStore: "true",
          docStore: { name: "never" },
        }),
      ),
      400,
    );
    expect(await count()).toBe(n);
  });
});
