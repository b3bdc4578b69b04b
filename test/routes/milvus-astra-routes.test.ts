// Document-store and chatflow routes on milvus (Milvus's REST API v2) and Astra (Astra DB's Data API), the cases of
// remote-stores-2-routes.test.ts: a chatflow filling the service through POST /vector/upsert and a
// retrieval chain answering from it (its model given the chunk); a document store upserting,
// querying and deleting a loader's vectors (record manager rows deleted → gone from the service);
// the wizard offering it; a private endpoint → save warning and 400; down → 502.
import { describe, expect, inject, it } from "vitest";
import { marker } from "../engine/helpers";
import { storeRequests } from "../engine/hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "../engine/retrieval-flows";
import { newStore } from "./document-store-helpers";
import {
  ENERGY,
  type HostedStore,
  SOLAR,
  TIDAL,
  WIND,
  askLibrarians,
  credentialOf,
  deleteVectors,
  standinJson as get,
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

const STORES: HostedStore[] = [
  {
    name: "milvus",
    key: "mv-route",
    async setup(place, key) {
      return {
        credential: await credentialOf("milvusAuth", { milvusUser: "root", milvusPassword: key }),
        inputs: { milvusServerUrl: inject("milvusUrl"), milvusCollection: place },
      };
    },
    async texts(place) {
      const d = await get(`${inject("milvusUrl")}/dump/${place}`);
      return (d.rows ?? []).map((r: { row: { langchain_text: string } }) => r.row.langchain_text);
    },
    async requests(place) {
      return (await storeRequests(inject("milvusUrl"))).filter((r) => r.body?.collectionName === place);
    },
    authOf: (h) => h.authorization?.replace(/^Bearer root:/, ""),
    privateInputs: { milvusServerUrl: "http://10.1.2.3:19530" },
    privateRefusal: /milvus_0 milvusServerUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Milvus describe collection failed (65535): service unavailable: the query node is having a bad day",
    inputNames: ["milvusServerUrl", "milvusCollection", "milvusPartition", "milvusTextField", "milvusFilter"],
  },
  {
    name: "Astra",
    key: "AstraCS:route",
    async setup(place, key) {
      return {
        credential: await credentialOf("AstraDBApi", { applicationToken: key, dbEndPoint: inject("astraUrl") }),
        inputs: { astraCollection: place },
      };
    },
    async texts(place) {
      const d = await get(`${inject("astraUrl")}/dump/${place}`);
      return (d.docs ?? []).map((x: { text: string }) => x.text);
    },
    async requests(place) {
      return (await storeRequests(inject("astraUrl"))).filter(
        (r) => r.path === `/api/json/v1/default_keyspace/${place}` || r.body?.createCollection?.name === place,
      );
    },
    authOf: (h) => h.token,
    privateCredential: (url, key) => credentialOf("AstraDBApi", { applicationToken: key, dbEndPoint: url }),
    privateRefusal: /^AstraDBApi credential dbEndPoint refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Astra DB find failed (500): Server failed: the coordinator is having a bad day",
    inputNames: ["astraCollection", "vectorDimension", "similarityMetric"],
  },
];

describe.each(STORES)("a chatflow on $name", (s) => {
  it("POST /vector/upsert fills it; a conversational retrieval chain answers from the retrieved chunk", async () => {
    const key = `${s.key}-${marker()}`;
    const place = `r_${marker()}`;
    const { credential, inputs } = await s.setup(place, key);
    const saved = await saveChatflow(s.name, townChatflow(`${s.name}_0`, s.name, { credential, ...inputs }));
    expect(saved.warning).toBeUndefined();
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 3, numSkipped: 0 });
    expect((await s.texts(place)).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const r of await s.requests(place)) expect(s.authOf(r.headers)).toBe(key);
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 0, numSkipped: 3 });

    const { answer, prompt } = await askLibrarians(saved.id);
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    expect(prompt).toContain(LIBRARY);
  });

  it("a private endpoint is refused (a save warning, a 400); the service down is a 502, never the key", async () => {
    const key = `${s.key}-secret-123456`;
    const node = async (place: string, url?: string) => {
      const { credential, inputs } = await s.setup(place, key);
      const cred = url && s.privateCredential ? await s.privateCredential(url, key) : credential;
      return retrieverChatflow(`${s.name}_0`, s.name, { credential: cred, ...inputs, ...(url && s.privateInputs ? s.privateInputs : {}) });
    };
    const priv = await saveChatflow(`${s.name}-private`, await node("c", "http://10.1.2.3"));
    // Where the URL is an input it is checked when saved; a credential's is read at run time.
    if (s.privateInputs) expect(priv.warning).toMatch(s.privateRefusal);
    else expect(priv.warning).toBeUndefined();
    const refused = await predictionError(priv.id, 400);
    expect(refused.message).toMatch(s.privateCredential ? s.privateRefusal : new RegExp(`^${s.name} \\w+ refused by the outbound policy`));

    const down = await saveChatflow(`${s.name}-down`, await node(s.down));
    const e = await predictionError(down.id, 502);
    expect(e.message).toBe(s.downMessage);
    expect(e.message).not.toContain(key);
  });
});

describe.each(STORES)("a document store on $name", (s) => {
  it("is offered by the wizard; upserts its chunks (with their docId), answers queries, deletes a loader's vectors", async () => {
    expect(await offeredInputs(s.name)).toEqual(expect.arrayContaining(s.inputNames));

    const place = `ds_${marker()}`;
    const { credential, inputs } = await s.setup(place, `${s.key}-${marker()}`);
    const store = await newStore();
    const common = storeUpsertConfig({ name: s.name, config: { ...inputs, credential } });
    const a = await upsertText(store.id, common, ENERGY, "a");
    expect(a).toMatchObject({ numAdded: 2 });
    const b = await upsertText(store.id, common, TIDAL, "b");
    expect(b).toMatchObject({ numAdded: 1 });
    expect((await s.texts(place)).sort()).toEqual([SOLAR, WIND, TIDAL].sort());

    const found = await queryWindTurbines(store.id);
    expect(found.docs).toEqual([expect.objectContaining({ pageContent: WIND, chunkNo: expect.any(Number) })]);

    const again = await upsertText(store.id, common, ENERGY, "a", { docId: a.docId, replaceExisting: true });
    expect(again).toMatchObject({ numAdded: 0, numSkipped: 2 });

    expect(await deleteVectors(store.id, a.docId)).toEqual({ deleted: 2 });
    expect(await s.texts(place)).toEqual([TIDAL]);
    expect(await deleteVectors(store.id)).toEqual({ deleted: 1 });
    expect(await s.texts(place)).toEqual([]);
  });
});
