// Document-store and chatflow routes on the hosted stores added after remote-stores-routes.test.ts
// (weaviate, elasticsearch, openSearch, meilisearch), the same cases: a chatflow filling the service through POST /vector/upsert and a
// retrieval chain answering from it (its model given the chunk); a document store upserting,
// querying and deleting a loader's vectors (record manager rows deleted → gone from the service);
// the wizard offering them; a private endpoint → save warning and 400; down → 502.
import { describe, expect, inject, it } from "vitest";
import { marker } from "../engine/helpers";
import { storeRequests } from "../engine/hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "../engine/retrieval-flows";
import {
  ENERGY,
  type HostedStore,
  SOLAR,
  TIDAL,
  WIND,
  askLibrarians,
  credentialOf,
  deleteVectors,
  offeredInputs,
  predictionError,
  queryWindTurbines,
  retrieverChatflow,
  saveChatflow,
  standinJson as get,
  storeUpsertConfig,
  townChatflow,
  upsertChatflow,
  upsertText,
} from "./hosted-store-routes";
import { newStore } from "./document-store-helpers";

/** Weaviate capitalises class names. */
const cap = (place: string) => place[0].toUpperCase() + place.slice(1);

const STORES: HostedStore[] = [
  {
    name: "weaviate",
    key: "wv-route",
    async setup(place, key) {
      return {
        credential: await credentialOf("weaviateApi", { weaviateApiKey: key }),
        inputs: { weaviateConnectionType: "local", weaviateHost: inject("weaviateUrl"), weaviateIndex: place },
      };
    },
    async texts(place) {
      const d = await get(`${inject("weaviateUrl")}/dump/${cap(place)}`);
      return (d.objects ?? []).map((o: { properties: { text: string } }) => o.properties.text);
    },
    async requests(place) {
      const name = cap(place);
      return (await storeRequests(inject("weaviateUrl"))).filter(
        (r) =>
          r.path === `/v1/schema/${name}` ||
          r.body?.class === name ||
          r.body?.objects?.[0]?.class === name ||
          r.body?.match?.class === name ||
          String(r.body?.query ?? "").includes(` ${name}(`),
      );
    },
    authOf: (h) => h.authorization?.replace(/^Bearer /, ""),
    privateInputs: { weaviateHost: "http://10.1.2.3:8080" },
    privateRefusal: /weaviate_0 weaviateHost refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Weaviate get schema failed (500): the shard is having a bad day",
    inputNames: ["weaviateConnectionType", "weaviateHost", "weaviateIndex", "weaviateTextKey", "weaviateMetadataKeys", "weaviateFilter"],
  },
  {
    name: "elasticsearch",
    key: "es-route",
    async setup(place, key) {
      return {
        credential: await credentialOf("elasticsearchApi", { endpoint: inject("elasticsearchUrl"), apiKey: key }),
        inputs: { indexName: place },
      };
    },
    async texts(place) {
      const d = await get(`${inject("elasticsearchUrl")}/dump/${place}`);
      return (d.docs ?? []).map((x: { _source: { text: string } }) => x._source.text);
    },
    async requests(place) {
      return (await storeRequests(inject("elasticsearchUrl"))).filter((r) => r.path.startsWith(`/${place}`));
    },
    authOf: (h) => h.authorization?.replace(/^ApiKey /, ""),
    privateCredential: (url, key) => credentialOf("elasticsearchApi", { endpoint: url, apiKey: key }),
    privateRefusal: /^elasticsearchApi credential endpoint refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Elasticsearch search failed (500): internal_server_error: the cluster is having a bad day",
    inputNames: ["indexName", "topK", "similarity"],
  },
  {
    name: "openSearch",
    key: "os-route",
    async setup(place, key) {
      const plainDataObj = { openSearchUrl: inject("openSearchUrl"), user: "admin", password: key };
      return { credential: await credentialOf("openSearchUrl", plainDataObj), inputs: { indexName: place } };
    },
    async texts(place) {
      const d = await get(`${inject("openSearchUrl")}/dump/${place}`);
      return (d.docs ?? []).map((x: { _source: { text: string } }) => x._source.text);
    },
    async requests(place) {
      return (await storeRequests(inject("openSearchUrl"))).filter((r) => r.path.startsWith(`/${place}`));
    },
    authOf: (h) => atob(String(h.authorization).replace(/^Basic /, "")).replace(/^admin:/, ""),
    privateCredential: (url, key) => credentialOf("openSearchUrl", { openSearchUrl: url, user: "admin", password: key }),
    privateRefusal: /^openSearchUrl credential openSearchUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "OpenSearch search failed (500): internal_server_error: the cluster is having a bad day",
    inputNames: ["indexName", "topK", "engine", "spaceType"],
  },
  {
    name: "meilisearch",
    key: "ms-admin-route",
    async setup(place, key) {
      const plainDataObj = { meilisearchSearchApiKey: key, meilisearchAdminApiKey: key };
      return {
        credential: await credentialOf("meilisearchApi", plainDataObj),
        inputs: { host: inject("meilisearchUrl"), indexUid: place },
      };
    },
    async texts(place) {
      const d = await get(`${inject("meilisearchUrl")}/dump/${place}`);
      return (d.documents ?? []).map((x: { pageContent: string }) => x.pageContent);
    },
    async requests(place) {
      return (await storeRequests(inject("meilisearchUrl"))).filter((r) => r.path.startsWith(`/indexes/${place}`) || r.body?.uid === place);
    },
    authOf: (h) => h.authorization?.replace(/^Bearer /, ""),
    privateInputs: { host: "http://10.1.2.3:7700" },
    privateRefusal: /meilisearch_0 host refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Meilisearch search failed (500): the index is having a bad day",
    inputNames: ["host", "indexUid", "K", "semanticRatio", "searchFilter"],
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

  it("a private endpoint is refused (a save warning where it is an input, a 400); the service down is a 502, never the key", async () => {
    const key = `${s.key}-secret-123456`;
    const node = async (place: string, url?: string) => {
      const { credential, inputs } = await s.setup(place, key);
      const cred = url && s.privateCredential ? await s.privateCredential(url, key) : credential;
      return retrieverChatflow(`${s.name}_0`, s.name, { credential: cred, ...inputs, ...(url && s.privateInputs ? s.privateInputs : {}) });
    };
    const priv = await saveChatflow(`${s.name}-private`, await node("c", "http://10.1.2.3"));
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
