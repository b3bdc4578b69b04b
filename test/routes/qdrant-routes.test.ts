// qdrant through the API, against the Qdrant stand-in (test/standin/qdrant.mjs): a chatflow upserted
// with POST /vector/upsert and asked through a conversational retrieval chain; a document store on
// qdrant (upsert with a record manager, /document-store/vectorstore/query, a loader's vectors
// deleted → its points gone from Qdrant); the wizard offering it; a Qdrant that is down → 502 JSON.
import { describe, expect, inject, it } from "vitest";
import { marker } from "../engine/helpers";
import { storeRequests } from "../engine/hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "../engine/retrieval-flows";
import { json } from "../helpers";
import { newStore } from "./document-store-helpers";
import {
  ENERGY,
  SOLAR,
  TIDAL,
  WIND,
  askLibrarians,
  deleteVectors,
  offeredInputs,
  predictionError,
  queryWindTurbines,
  retrieverChatflow,
  saveChatflow,
  storeUpsertConfig,
  townChatflow,
  upsertChatflow,
  upsertText,
} from "./hosted-store-routes";

const qdrant = () => inject("qdrantUrl");
const qdrantCredential = async (key = `qd-route-${marker()}`) =>
  (await json("POST", "/credentials", { body: { name: "qd", credentialName: "qdrantApi", plainDataObj: { qdrantApiKey: key } } }))
    .id as string;
const dump = async (collection: string) =>
  (await (await fetch(`${qdrant()}/dump/${collection}`)).json()) as {
    points: Array<{ id: string; payload: { content: string; metadata: Record<string, unknown> } }>;
  };
const received = async (collection: string) =>
  (await storeRequests(qdrant())).filter((r) => r.path.startsWith(`/collections/${collection}`));

describe("a chatflow on qdrant", () => {
  it("POST /vector/upsert fills the collection; a conversational retrieval chain answers from the retrieved chunk", async () => {
    const key = `qd-route-${marker()}`;
    const cred = await qdrantCredential(key);
    const collection = `flow-${marker()}`;
    const flowData = townChatflow("qdrant_0", "qdrant", { credential: cred, qdrantServerUrl: qdrant(), qdrantCollection: collection });
    const saved = await saveChatflow("qdrant", flowData);
    expect(saved.warning).toBeUndefined();
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 3, numSkipped: 0 });
    expect((await dump(collection)).points.map((p) => p.payload.content).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const r of await received(collection)) expect(r.headers["api-key"]).toBe(key);
    // Upserting again skips every chunk (the node's own record manager, full cleanup).
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 0, numSkipped: 3 });

    const { answer, prompt } = await askLibrarians(saved.id);
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    expect(prompt).toContain(LIBRARY);
  });

  it("a private qdrantServerUrl is a save warning and a 400; Qdrant down is a 502 naming it, never the key", async () => {
    const cred = await qdrantCredential("qd-route-secret-123456");
    const node = (url: string, collection: string) =>
      retrieverChatflow("qd_0", "qdrant", { credential: cred, qdrantServerUrl: url, qdrantCollection: collection });
    const priv = await saveChatflow("qd-private", node("http://10.1.2.3:6333", "c"));
    expect(priv.warning).toMatch(/qd_0 qdrantServerUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/);
    const refused = await predictionError(priv.id, 400);
    expect(refused.message).toMatch(/^qdrant qdrantServerUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/);

    const down = await saveChatflow("qd-down", node(qdrant(), "down"));
    const e = await predictionError(down.id, 502);
    expect(e.message).toBe("Qdrant search failed (500): Service internal error: the shard is having a bad day");
    expect(e.message).not.toContain("qd-route-secret-123456");
  });
});

describe("a document store on qdrant", () => {
  it("is offered by the wizard; upserts its chunks (with their docId), answers queries, deletes a loader's points", async () => {
    expect(await offeredInputs("qdrant")).toEqual(expect.arrayContaining(["qdrantServerUrl", "qdrantCollection", "qdrantFilter"]));

    const cred = await qdrantCredential();
    const store = await newStore();
    const collection = `store-${marker()}`;
    const common = storeUpsertConfig({
      name: "qdrant",
      config: { qdrantServerUrl: qdrant(), qdrantCollection: collection, credential: cred },
    });
    const a = await upsertText(store.id, common, ENERGY, "a");
    expect(a).toMatchObject({ numAdded: 2 });
    const b = await upsertText(store.id, common, TIDAL, "b");
    expect(b).toMatchObject({ numAdded: 1 });
    const points = (await dump(collection)).points;
    expect(points).toHaveLength(3);
    expect(points.filter((p) => p.payload.metadata.docId === a.docId).map((p) => p.payload.content)).toEqual([SOLAR, WIND]);

    const found = await queryWindTurbines(store.id);
    expect(found.docs).toEqual([expect.objectContaining({ pageContent: WIND, chunkNo: expect.any(Number) })]);
    expect(found.docs[0].chunkNo).toBeGreaterThanOrEqual(0);

    // The same loader again: nothing re-embedded or written (asked of Qdrant which ids it holds).
    const again = await upsertText(store.id, common, ENERGY, "a", { docId: a.docId, replaceExisting: true });
    expect(again).toMatchObject({ numAdded: 0, numSkipped: 2 });

    expect(await deleteVectors(store.id, a.docId)).toEqual({ deleted: 2 });
    expect((await dump(collection)).points.map((p) => p.payload.content)).toEqual([TIDAL]);
    const deletes = (await received(collection)).filter((r) => r.path.endsWith("/points/delete?wait=true"));
    expect(deletes.at(-1)?.body.points).toHaveLength(2);
    expect(await deleteVectors(store.id)).toEqual({ deleted: 1 });
    expect((await dump(collection)).points).toEqual([]);
  });
});
