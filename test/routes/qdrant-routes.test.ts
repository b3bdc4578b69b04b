// qdrant through the API, against the Qdrant stand-in (test/standin/qdrant.mjs): a chatflow upserted
// with POST /vector/upsert and asked through a conversational retrieval chain; a document store on
// qdrant (upsert with a record manager, /document-store/vectorstore/query, a loader's vectors
// deleted → its points gone from Qdrant); the wizard offering it; a Qdrant that is down → 502 JSON.
import { describe, expect, inject, it } from "vitest";
import { marker, requestsWith } from "../engine/helpers";
import { BAKERY, LIBRARY, STATION, TOWN_TEXT, flow, ref, standinModel } from "../engine/retrieval-flows";
import { call, expectError, json } from "../helpers";
import { newStore, upsert } from "./document-store-helpers";

const qdrant = () => inject("qdrantUrl");
const qdrantCredential = async (key = `qd-route-${marker()}`) =>
  (await json("POST", "/credentials", { body: { name: "qd", credentialName: "qdrantApi", plainDataObj: { qdrantApiKey: key } } }))
    .id as string;
const dump = async (collection: string) =>
  (await (await fetch(`${qdrant()}/dump/${collection}`)).json()) as {
    points: Array<{ id: string; payload: { content: string; metadata: Record<string, unknown> } }>;
  };
const received = async (collection: string) =>
  ((await (await fetch(`${qdrant()}/requests`)).json()) as Array<{ method: string; path: string; headers: any; body: any }>).filter((r) =>
    r.path.startsWith(`/collections/${collection}`),
  );

describe("a chatflow on qdrant", () => {
  it("POST /vector/upsert fills the collection; a conversational retrieval chain answers from the retrieved chunk", async () => {
    const key = `qd-route-${marker()}`;
    const cred = await qdrantCredential(key);
    const collection = `flow-${marker()}`;
    const flowData = flow([
      ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000 }],
      ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT, textSplitter: ref("splitter_0") }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      [
        "qdrant_0",
        "qdrant",
        "Vector Stores",
        {
          credential: cred,
          document: [ref("loader_0")],
          embeddings: ref("emb_0"),
          qdrantServerUrl: qdrant(),
          qdrantCollection: collection,
          topK: 1,
        },
        { output: "retriever" },
      ],
      standinModel(),
      [
        "chain_0",
        "conversationalRetrievalQAChain",
        "Chains",
        { model: ref("model_0"), vectorStoreRetriever: ref("qdrant_0"), returnSourceDocuments: true },
      ],
    ] as never);
    const saved = await json("POST", "/chatflows", { body: { name: "qdrant", flowData } });
    expect(saved.warning).toBeUndefined();
    expect(await json("POST", `/vector/upsert/${saved.id}`, { body: {} })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    expect((await dump(collection)).points.map((p) => p.payload.content).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const r of await received(collection)) expect(r.headers["api-key"]).toBe(key);
    // Upserting again skips every chunk (the node's own record manager, full cleanup).
    expect(await json("POST", `/vector/upsert/${saved.id}`, { body: {} })).toMatchObject({ numAdded: 0, numSkipped: 3 });

    const m = marker();
    const answer = await json("POST", `/prediction/${saved.id}`, { body: { question: `reading room librarians ${m}` } });
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    const chat = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
    expect(
      chat
        .at(-1)
        ?.body.messages.map((x) => x.content)
        .join("\n"),
    ).toContain(LIBRARY);
  });

  it("a private qdrantServerUrl is a save warning and a 400; Qdrant down is a 502 naming it, never the key", async () => {
    const cred = await qdrantCredential("qd-route-secret-123456");
    const node = (url: string, collection: string) =>
      flow([
        ["emb_0", "localHashEmbeddings", "Embeddings", {}],
        [
          "qd_0",
          "qdrant",
          "Vector Stores",
          { credential: cred, embeddings: ref("emb_0"), qdrantServerUrl: url, qdrantCollection: collection },
          { output: "retriever" },
        ],
        standinModel(),
        ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("qd_0") }],
      ] as never);
    const priv = await json("POST", "/chatflows", { body: { name: "qd-private", flowData: node("http://10.1.2.3:6333", "c") } });
    expect(priv.warning).toMatch(/qd_0 qdrantServerUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/);
    const refused = await expectError(await call("POST", `/prediction/${priv.id}`, { body: { question: "hello" } }), 400);
    expect(refused.message).toMatch(/^qdrant qdrantServerUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/);

    const down = await json("POST", "/chatflows", { body: { name: "qd-down", flowData: node(qdrant(), "down") } });
    const e = await expectError(await call("POST", `/prediction/${down.id}`, { body: { question: "hello" } }), 502);
    expect(e.message).toBe("Qdrant search failed (500): Service internal error: the shard is having a bad day");
    expect(e.message).not.toContain("qd-route-secret-123456");
  });
});

describe("a document store on qdrant", () => {
  it("is offered by the wizard; upserts its chunks (with their docId), answers queries, deletes a loader's points", async () => {
    const components = await json<Array<{ name: string; inputs: Array<{ name: string }> }>>(
      "GET",
      "/document-store/components/vectorstore",
    );
    const offered = components.find((c) => c.name === "qdrant");
    expect(offered?.inputs.map((i) => i.name)).toEqual(expect.arrayContaining(["qdrantServerUrl", "qdrantCollection", "qdrantFilter"]));

    const cred = await qdrantCredential();
    const store = await newStore();
    const collection = `store-${marker()}`;
    const common = {
      splitter: { name: "characterTextSplitter", config: { separator: "\n\n", chunkSize: 50, chunkOverlap: 0 } },
      embedding: { name: "localHashEmbeddings" },
      vectorStore: { name: "qdrant", config: { qdrantServerUrl: qdrant(), qdrantCollection: collection, credential: cred } },
      recordManager: { name: "SQLiteRecordManager", config: { cleanup: "incremental", sourceIdKey: "source" } },
    };
    const energy = "Solar panels turn sunlight into electricity.\n\nWind turbines spin in strong coastal winds.";
    const a = await upsert(store.id, { ...common, loader: { name: "plainText", config: { text: energy } }, metadata: { source: "a" } });
    expect(a).toMatchObject({ numAdded: 2 });
    const b = await upsert(store.id, {
      ...common,
      loader: { name: "plainText", config: { text: "Tidal mills grind grain when the sea comes in." } },
      metadata: { source: "b" },
    });
    expect(b).toMatchObject({ numAdded: 1 });
    const points = (await dump(collection)).points;
    expect(points).toHaveLength(3);
    expect(points.filter((p) => p.payload.metadata.docId === a.docId).map((p) => p.payload.content)).toEqual([
      "Solar panels turn sunlight into electricity.",
      "Wind turbines spin in strong coastal winds.",
    ]);

    const found = await json("POST", "/document-store/vectorstore/query", {
      body: { storeId: store.id, query: "wind turbines on the coast", inputs: { topK: 1 } },
    });
    expect(found.docs).toEqual([
      expect.objectContaining({ pageContent: "Wind turbines spin in strong coastal winds.", chunkNo: expect.any(Number) }),
    ]);
    expect(found.docs[0].chunkNo).toBeGreaterThanOrEqual(0);

    // The same loader again: nothing re-embedded or written (asked of Qdrant which ids it holds).
    const again = await upsert(store.id, {
      ...common,
      docId: a.docId,
      replaceExisting: true,
      loader: { name: "plainText", config: { text: energy } },
      metadata: { source: "a" },
    });
    expect(again).toMatchObject({ numAdded: 0, numSkipped: 2 });

    expect(await json("DELETE", `/document-store/vectorstore/${store.id}?docId=${a.docId}`)).toEqual({ deleted: 2 });
    expect((await dump(collection)).points.map((p) => p.payload.content)).toEqual(["Tidal mills grind grain when the sea comes in."]);
    const deletes = (await received(collection)).filter((r) => r.path.endsWith("/points/delete?wait=true"));
    expect(deletes.at(-1)?.body.points).toHaveLength(2);
    expect(await json("DELETE", `/document-store/vectorstore/${store.id}`)).toEqual({ deleted: 1 });
    expect((await dump(collection)).points).toEqual([]);
  });
});
