// chroma, supabase and upstash (Upstash Vector) through the API, against their stand-ins
// (test/standin/chroma.mjs, supabase.mjs, upstash-vector.mjs): a chatflow upserted with
// POST /vector/upsert and asked through a conversational retrieval chain; a document store on each
// (upsert with a record manager, /document-store/vectorstore/query, a loader's vectors deleted → gone
// from the service); the wizard offering them; a private endpoint → save warning and 400; down → 502.
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

const STORES: HostedStore[] = [
  {
    name: "chroma",
    key: "ck-route",
    async setup(place, key) {
      return {
        credential: await credentialOf("chromaApi", { chromaApiKey: key }),
        inputs: { chromaURL: inject("chromaUrl"), collectionName: place },
      };
    },
    async texts(place) {
      const d = await get(`${inject("chromaUrl")}/dump/default_tenant/default_database/${place}`);
      return (d.records ?? []).map((r: { document: string }) => r.document);
    },
    async requests(place) {
      const d = await get(`${inject("chromaUrl")}/dump/default_tenant/default_database/${place}`);
      return (await storeRequests(inject("chromaUrl"))).filter((r) => r.body?.name === place || (d.id && r.path.includes(d.id)));
    },
    authOf: (h) => h["x-chroma-token"],
    privateInputs: { chromaURL: "http://10.1.2.3:8000" },
    privateRefusal: /chroma_0 chromaURL refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Chroma get collection failed (500): InternalError: the segment is having a bad day",
    inputNames: ["collectionName", "chromaURL", "chromaMetadataFilter"],
  },
  {
    name: "supabase",
    key: "sb-route",
    async setup(place, key) {
      return {
        credential: await credentialOf("supabaseApi", { supabaseApiKey: key }),
        inputs: { supabaseProjUrl: inject("supabaseUrl"), tableName: place, queryName: `match_${place}` },
      };
    },
    async texts(place) {
      const d = await get(`${inject("supabaseUrl")}/dump/${place}`);
      return d.rows.map((r: { content: string }) => r.content);
    },
    async requests(place) {
      return (await storeRequests(inject("supabaseUrl"))).filter(
        (r) => r.path.includes(`/${place}?`) || r.path.includes(`/match_${place}`),
      );
    },
    authOf: (h) => h.apikey,
    privateInputs: { supabaseProjUrl: "http://10.1.2.3" },
    privateRefusal: /supabase_0 supabaseProjUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Supabase match failed (500): the database is having a bad day",
    inputNames: ["supabaseProjUrl", "tableName", "queryName", "supabaseRPCFilter"],
  },
  {
    name: "upstash",
    key: "up-route",
    async setup(place, key) {
      const url = `${inject("upstashVectorUrl")}/${place}`;
      return {
        credential: await credentialOf("upstashVectorApi", { UPSTASH_VECTOR_REST_URL: url, UPSTASH_VECTOR_REST_TOKEN: key }),
        inputs: {},
      };
    },
    async texts(place) {
      const d = await get(`${inject("upstashVectorUrl")}/dump/${place}`);
      return d.vectors.map((v: { metadata: { _pageContentLC: string } }) => v.metadata._pageContentLC);
    },
    async requests(place) {
      return (await storeRequests(inject("upstashVectorUrl"))).filter((r) => r.path.startsWith(`/${place}/`));
    },
    authOf: (h) => h.authorization?.replace(/^Bearer /, ""),
    // The URL is the credential's: no save warning; the refusal comes when the store is first used.
    privateCredential: (url, key) => credentialOf("upstashVectorApi", { UPSTASH_VECTOR_REST_URL: url, UPSTASH_VECTOR_REST_TOKEN: key }),
    privateRefusal: /^upstashVectorApi credential UPSTASH_VECTOR_REST_URL refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    down: "down",
    downMessage: "Upstash Vector query failed (500): Internal Server Error: the index is having a bad day",
    inputNames: ["upstashMetadataFilter", "topK"],
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
