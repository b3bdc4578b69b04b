// pinecone through the API: a document store whose vector store is pinecone (upsert, then
// /document-store/vectorstore/query), and a chatflow whose Pinecone is down answering a 502 JSON
// naming it — or, streaming, an `error` frame then `end`.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { storeRequests } from "../engine/hosted-store-flows";
import { framesOf, setVars } from "../security/helpers";
import { call, json } from "../helpers";
import { newStore, upsert } from "./document-store-helpers";
import { ENERGY, WIND, predictionError, queryWindTurbines, retrieverChatflow, saveChatflow } from "./hosted-store-routes";

const pinecone = () => inject("pineconeUrl");
let restore: () => void;
beforeAll(() => {
  restore = setVars({ PINECONE_BASE_URL: pinecone() });
});
afterAll(() => restore());

const pineconeCredential = async () =>
  (
    await json("POST", "/credentials", {
      body: { name: "pc", credentialName: "pineconeApi", plainDataObj: { pineconeApiKey: "pc-route-key-123456" } },
    })
  ).id as string;

describe("a document store on pinecone", () => {
  it("upserts its chunks into the Pinecone namespace (with their docId) and answers queries from it", async () => {
    const cred = await pineconeCredential();
    const store = await newStore();
    const index = `store-${crypto.randomUUID().slice(0, 8)}`;
    const vectorStore = { name: "pinecone", config: { pineconeIndex: index, pineconeNamespace: "kb", credential: cred } };
    const up = await upsert(store.id, {
      loader: { name: "plainText", config: { text: ENERGY } },
      splitter: { name: "characterTextSplitter", config: { separator: "\n\n", chunkSize: 50, chunkOverlap: 0 } },
      embedding: { name: "localHashEmbeddings" },
      vectorStore,
    });
    expect(up).toMatchObject({ numAdded: 2 });

    const received = (await storeRequests(pinecone())).filter((r) => r.path === `/idx/${index}/vectors/upsert`);
    expect(received[0].body.namespace).toBe("kb");
    expect(received[0].body.vectors.map((v: any) => v.metadata.docId)).toEqual([up.docId, up.docId]);

    const found = await queryWindTurbines(store.id);
    expect(found.docs.map((d: any) => d.pageContent)).toEqual([WIND]);
  });
});

describe("a chatflow whose Pinecone is down", () => {
  it("answers 502 naming Pinecone; streaming, an error frame then end", async () => {
    const cred = await pineconeCredential();
    const flowData = retrieverChatflow("pc_0", "pinecone", { credential: cred, pineconeIndex: "down" });
    const id = (await saveChatflow("pc-down", flowData)).id;
    const e = await predictionError(id, 502);
    expect(e.message).toMatch(/^Pinecone query failed \(500\)/);
    expect(e.message).not.toContain("pc-route-key-123456");

    const frames = await framesOf(await call("POST", `/prediction/${id}`, { body: { question: "hello", streaming: true } }));
    const events = frames.map((f) => f.event);
    expect(events.slice(-2)).toEqual(["error", "end"]);
    expect(String(frames.at(-2)?.data)).toMatch(/Pinecone query failed/);
  });
});
