// Document-store and chatflow routes on the hosted stores added after remote-stores-routes.test.ts
// (weaviate, elasticsearch, openSearch, meilisearch), the same cases: a chatflow filling the service through POST /vector/upsert and a
// retrieval chain answering from it (its model given the chunk); a document store upserting,
// querying and deleting a loader's vectors (record manager rows deleted → gone from the service);
// the wizard offering them; a private endpoint → save warning and 400; down → 502.
import { describe, expect, inject, it } from "vitest";
import { marker, requestsWith } from "../engine/helpers";
import { BAKERY, LIBRARY, STATION, TOWN_TEXT, flow, ref, standinModel } from "../engine/retrieval-flows";
import { call, expectError, json } from "../helpers";
import { newStore, upsert } from "./document-store-helpers";

const credentialOf = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id as string;

interface Store {
  name: string;
  /** The store's inputs and a credential for a new place (collection, table, index) `place`. */
  setup(place: string, key: string): Promise<{ credential: string; inputs: Record<string, unknown> }>;
  /** The texts the service holds for `place`. */
  texts(place: string): Promise<string[]>;
  /** The stand-in's requests for `place`. */
  requests(place: string): Promise<Array<{ method: string; path: string; headers: Record<string, string>; body: any }>>;
  authOf(headers: Record<string, string>): string | undefined;
  key: string;
  /** The node's inputs pointing at a private address, with the refusal's message. */
  privateInputs?: Record<string, unknown>;
  /** Where the URL is the credential's: a credential naming `url` instead. */
  privateCredential?(url: string, key: string): Promise<string>;
  privateRefusal: RegExp;
  /** A place that answers 500, and the 502's message. */
  down: string;
  downMessage: string;
  inputNames: string[];
}

/** The stand-in's JSON answer at `url`. */
const get = async (url: string): Promise<any> => (await fetch(url)).json();
const all = async (base: string) =>
  (await (await fetch(`${base}/requests`)).json()) as Array<{ method: string; path: string; headers: any; body: any }>;

/** Weaviate capitalises class names. */
const cap = (place: string) => place[0].toUpperCase() + place.slice(1);

const STORES: Store[] = [
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
      return (await all(inject("weaviateUrl"))).filter(
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
      return (await all(inject("elasticsearchUrl"))).filter((r) => r.path.startsWith(`/${place}`));
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
      return (await all(inject("openSearchUrl"))).filter((r) => r.path.startsWith(`/${place}`));
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
      return (await all(inject("meilisearchUrl"))).filter((r) => r.path.startsWith(`/indexes/${place}`) || r.body?.uid === place);
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
    const flowData = flow([
      ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000 }],
      ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT, textSplitter: ref("splitter_0") }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      [
        `${s.name}_0`,
        s.name,
        "Vector Stores",
        { credential, document: [ref("loader_0")], embeddings: ref("emb_0"), topK: 1, ...inputs },
        { output: "retriever" },
      ],
      standinModel(),
      [
        "chain_0",
        "conversationalRetrievalQAChain",
        "Chains",
        { model: ref("model_0"), vectorStoreRetriever: ref(`${s.name}_0`), returnSourceDocuments: true },
      ],
    ] as never);
    const saved = await json("POST", "/chatflows", { body: { name: s.name, flowData } });
    expect(saved.warning).toBeUndefined();
    expect(await json("POST", `/vector/upsert/${saved.id}`, { body: {} })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    expect((await s.texts(place)).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const r of await s.requests(place)) expect(s.authOf(r.headers)).toBe(key);
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

  it("a private endpoint is refused (a save warning where it is an input, a 400); the service down is a 502, never the key", async () => {
    const key = `${s.key}-secret-123456`;
    const node = async (place: string, url?: string) => {
      const { credential, inputs } = await s.setup(place, key);
      const cred = url && s.privateCredential ? await s.privateCredential(url, key) : credential;
      return flow([
        ["emb_0", "localHashEmbeddings", "Embeddings", {}],
        [
          `${s.name}_0`,
          s.name,
          "Vector Stores",
          { credential: cred, embeddings: ref("emb_0"), ...inputs, ...(url && s.privateInputs ? s.privateInputs : {}) },
          { output: "retriever" },
        ],
        standinModel(),
        ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref(`${s.name}_0`) }],
      ] as never);
    };
    const priv = await json("POST", "/chatflows", { body: { name: `${s.name}-private`, flowData: await node("c", "http://10.1.2.3") } });
    if (s.privateInputs) expect(priv.warning).toMatch(s.privateRefusal);
    else expect(priv.warning).toBeUndefined();
    const refused = await expectError(await call("POST", `/prediction/${priv.id}`, { body: { question: "hello" } }), 400);
    expect(refused.message).toMatch(s.privateCredential ? s.privateRefusal : new RegExp(`^${s.name} \\w+ refused by the outbound policy`));

    const down = await json("POST", "/chatflows", { body: { name: `${s.name}-down`, flowData: await node(s.down) } });
    const e = await expectError(await call("POST", `/prediction/${down.id}`, { body: { question: "hello" } }), 502);
    expect(e.message).toBe(s.downMessage);
    expect(e.message).not.toContain(key);
  });
});

describe.each(STORES)("a document store on $name", (s) => {
  it("is offered by the wizard; upserts its chunks (with their docId), answers queries, deletes a loader's vectors", async () => {
    const components = await json<Array<{ name: string; inputs: Array<{ name: string }> }>>(
      "GET",
      "/document-store/components/vectorstore",
    );
    const offered = components.find((c) => c.name === s.name);
    expect(offered?.inputs.map((i) => i.name)).toEqual(expect.arrayContaining(s.inputNames));

    const place = `ds_${marker()}`;
    const { credential, inputs } = await s.setup(place, `${s.key}-${marker()}`);
    const store = await newStore();
    const common = {
      splitter: { name: "characterTextSplitter", config: { separator: "\n\n", chunkSize: 50, chunkOverlap: 0 } },
      embedding: { name: "localHashEmbeddings" },
      vectorStore: { name: s.name, config: { ...inputs, credential } },
      recordManager: { name: "SQLiteRecordManager", config: { cleanup: "incremental", sourceIdKey: "source" } },
    };
    const energy = "Solar panels turn sunlight into electricity.\n\nWind turbines spin in strong coastal winds.";
    const tidal = "Tidal mills grind grain when the sea comes in.";
    const a = await upsert(store.id, { ...common, loader: { name: "plainText", config: { text: energy } }, metadata: { source: "a" } });
    expect(a).toMatchObject({ numAdded: 2 });
    const b = await upsert(store.id, { ...common, loader: { name: "plainText", config: { text: tidal } }, metadata: { source: "b" } });
    expect(b).toMatchObject({ numAdded: 1 });
    expect((await s.texts(place)).sort()).toEqual(
      ["Solar panels turn sunlight into electricity.", "Wind turbines spin in strong coastal winds.", tidal].sort(),
    );

    const found = await json("POST", "/document-store/vectorstore/query", {
      body: { storeId: store.id, query: "wind turbines on the coast", inputs: { topK: 1 } },
    });
    expect(found.docs).toEqual([
      expect.objectContaining({ pageContent: "Wind turbines spin in strong coastal winds.", chunkNo: expect.any(Number) }),
    ]);

    const again = await upsert(store.id, {
      ...common,
      docId: a.docId,
      replaceExisting: true,
      loader: { name: "plainText", config: { text: energy } },
      metadata: { source: "a" },
    });
    expect(again).toMatchObject({ numAdded: 0, numSkipped: 2 });

    expect(await json("DELETE", `/document-store/vectorstore/${store.id}?docId=${a.docId}`)).toEqual({ deleted: 2 });
    expect(await s.texts(place)).toEqual([tidal]);
    expect(await json("DELETE", `/document-store/vectorstore/${store.id}`)).toEqual({ deleted: 1 });
    expect(await s.texts(place)).toEqual([]);
  });
});
