// The weaviate vector store against the Weaviate stand-in (test/standin/weaviate.mjs), which stores
// objects and answers GraphQL nearVector searches by cosine distance with `where` filters: upsert
// and prediction in a chatflow (the class created, LangChain's object layout, the Bearer key), the
// record manager (unchanged chunks skipped, asked of Weaviate; removed ones deleted there),
// weaviateFilter and weaviateMetadataKeys, a class Flowise filled, and a Weaviate that is down, slow or refuses.
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { weaviateOrigin } from "../../src/providers/vectorstores/weaviate";
import { credential, marker } from "./helpers";
import {
  askNightTrains,
  bookkeepingTexts,
  err,
  otherSizeFlow,
  predict,
  storeFlow,
  storeRequests,
  upsertFlow,
  type TownFlowOptions,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const weaviate = () => inject("weaviateUrl");

/** What the stand-in received for a class, oldest first. */
const weaviateRequests = async (name: string) => {
  const all = await storeRequests(weaviate());
  return all.filter(
    (r) =>
      r.path === `/v1/schema/${name}` ||
      r.body?.class === name ||
      r.body?.objects?.[0]?.class === name ||
      r.body?.match?.class === name ||
      String(r.body?.query ?? "").includes(` ${name}(`),
  );
};
const dump = async (name: string) =>
  (await (await fetch(`${weaviate()}/dump/${name}`)).json()) as {
    objects: Array<{ id: string; vector: number[]; properties: Record<string, any> }>;
  };
const weaviateKey = () => credential("weaviateApi", { weaviateApiKey: `wv-key-${marker()}` });

/** The town flow with a weaviate node on its stand-in. */
function weaviateFlow({ index, topK, extra, ...rest }: TownFlowOptions & { index: string }) {
  return storeFlow({
    id: "weaviate_0",
    node: "weaviate",
    inputs: { weaviateConnectionType: "local", weaviateHost: weaviate(), weaviateIndex: index, topK: topK ?? "1", ...extra },
    ...rest,
  });
}

describe("weaviate", () => {
  it("creates the class, writes LangChain's objects over /v1/batch/objects with the Bearer key, answers from them", async () => {
    const cred = await credential("weaviateApi", { weaviateApiKey: "wv-secret-123456" });
    const index = `Town${marker()}`;
    const flowData = weaviateFlow({ credential: cred, index });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const received = await weaviateRequests(index);
    expect(received.slice(0, 3).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/schema/${index}`,
      "POST /v1/schema",
      "POST /v1/batch/objects",
    ]);
    expect(received[1].body).toEqual({ class: index });
    for (const r of received) expect(r.headers.authorization).toBe("Bearer wv-secret-123456");

    const stored = await dump(index);
    expect(stored.objects.map((o) => o.properties.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const o of stored.objects) expect(o.vector).toHaveLength(LOCAL_HASH_DIMS);
    // LangChain's layout: metadata flattened into properties (loc.lines.from → loc_lines_from).
    expect(stored.objects[0].properties).toMatchObject({ source: "town", loc_lines_from: expect.any(Number) });
    expect(stored.objects[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);

    expect(await bookkeepingTexts("weaviate", `${chatflowid}_weaviate_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([
      { pageContent: STATION, metadata: expect.objectContaining({ source: "town", loc_lines_from: expect.any(Number) }) },
    ]);
    expect(prompt).toContain(STATION);
    expect(prompt).not.toContain(BAKERY);
    const search = (await weaviateRequests(index)).filter((r) => r.path === "/v1/graphql").at(-1);
    expect(search?.body.query).toMatch(
      new RegExp(
        `^\\{ Get \\{ ${index}\\(nearVector: \\{vector: \\[.+\\]\\}, limit: 1\\) \\{ .*text.* _additional \\{ id distance \\} \\} \\} \\}$`,
      ),
    );
  });

  it("a record manager: unchanged chunks skipped (Weaviate asked which ids it holds), removed ones deleted in Weaviate", async () => {
    const cred = await weaviateKey();
    const index = `Again${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(weaviateFlow({ credential: cred, index, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(weaviateFlow({ credential: cred, index, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await weaviateRequests(index)).some((r) => String(r.body?.query).includes("ContainsAny"))).toBe(true);
    expect(await upsertFlow(weaviateFlow({ credential: cred, index, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(index)).objects.map((o) => o.properties.text)).toEqual([LIBRARY]);
    const deletes = (await weaviateRequests(index)).filter((r) => r.method === "DELETE");
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body.match.where).toMatchObject({ path: ["id"], operator: "ContainsAny" });
    expect(deletes[0].body.match.where.valueTextArray).toHaveLength(2);
  });

  it("weaviateFilter narrows the search (Weaviate's where, as given); weaviateMetadataKeys picks the properties read", async () => {
    const cred = await weaviateKey();
    const index = `Filter${marker()}`;
    await upsertFlow(weaviateFlow({ credential: cred, index, text: BAKERY, metadata: '{"kind":"shop"}' }));
    await upsertFlow(weaviateFlow({ credential: cred, index, text: LIBRARY, metadata: '{"kind":"public"}' }));
    const ask = async (extra: Record<string, unknown>) =>
      (await predict(weaviateFlow({ credential: cred, index, topK: "4", extra }), "bakery croissants bread")).sourceDocuments;
    expect((await ask({}))?.map((d) => d.pageContent)).toEqual([BAKERY, LIBRARY]);
    const pub = { path: ["kind"], operator: "Equal", valueText: "public" };
    expect((await ask({ weaviateFilter: JSON.stringify(pub) }))?.map((d) => d.pageContent)).toEqual([LIBRARY]);
    const notPub = { where: { path: ["kind"], operator: "NotEqual", valueText: "public" } };
    expect((await ask({ weaviateFilter: notPub }))?.map((d) => d.pageContent)).toEqual([BAKERY]);
    const last = (await weaviateRequests(index)).filter((r) => r.path === "/v1/graphql").at(-1);
    expect(last?.body.query).toContain('where: {path: ["kind"], operator: NotEqual, valueText: "public"}');
    expect((await ask({ weaviateMetadataKeys: '[ "kind" ]' }))?.map((d) => d.metadata)).toEqual([{ kind: "shop" }, { kind: "public" }]);
  });

  it("a class Flowise filled answers (no credential: a server without auth); mmr asks for the vectors", async () => {
    const name = `OpenFlowise${marker()}`;
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    const post = (path: string, body: unknown) =>
      fetch(`${weaviate()}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await post("/v1/schema", { class: name })).status).toBe(200);
    const objects = [
      { class: name, id: crypto.randomUUID(), vector: bakery, properties: { body: BAKERY, source: "bakery.txt" } },
      { class: name, id: crypto.randomUUID(), vector: library, properties: { body: LIBRARY, source: "library.txt" } },
    ];
    expect((await post("/v1/batch/objects", { objects })).status).toBe(200);
    const extra = { weaviateTextKey: "body" };
    const result = await predict(
      weaviateFlow({ index: name, text: "", extra }),
      "Where can I borrow novels and atlases with a reader card?",
    );
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { source: "library.txt" } }]);
    expect((await weaviateRequests(name)).at(-1)?.headers.authorization).toBeUndefined();

    const diverse = await predict(
      weaviateFlow({ index: name, text: "", topK: "2", extra: { ...extra, searchType: "mmr", fetchK: "2", lambda: "0.2" } }),
      "bakery sourdough",
    );
    expect(diverse.sourceDocuments).toHaveLength(2);
    expect((await weaviateRequests(name)).filter((r) => r.path === "/v1/graphql").at(-1)?.body.query).toContain("distance vector");
  });

  it("metadata keys Weaviate refuses as property names are renamed (leading digit, reserved word or suffix); {} is no filter", async () => {
    const cred = await weaviateKey();
    const index = `Names${marker()}`;
    // Weaviate refuses a property "2024", "_id" or "weather_temp" (a new one ending in _temp), failing the whole object.
    const metadata = JSON.stringify({ source: "bakery.txt", 2024: "open", _id: "b-1", weather: { temp: 21 }, "": "none" });
    expect(await upsertFlow(weaviateFlow({ credential: cred, index, text: BAKERY, metadata }))).toMatchObject({ numAdded: 1 });
    const [stored] = (await dump(index)).objects;
    expect(stored.properties).toEqual({
      text: BAKERY,
      source: "bakery.txt",
      _2024: "open",
      _id_: "b-1",
      weather_temp_: 21,
      loc_lines_from: 1,
      loc_lines_to: 1,
    });

    // Weaviate refuses `where: {}`: an empty weaviateFilter (or {"where": {}}) searches without one.
    for (const weaviateFilter of ["{}", '{"where":{}}']) {
      const result = await predict(weaviateFlow({ credential: cred, index, text: "", extra: { weaviateFilter } }), "bakery bread");
      expect(result.sourceDocuments?.map((d) => d.pageContent)).toEqual([BAKERY]);
      expect(result.sourceDocuments?.[0].metadata).toMatchObject({ _2024: "open", _id_: "b-1" });
      const search = (await weaviateRequests(index)).filter((r) => r.path === "/v1/graphql").at(-1);
      expect(search?.body.query).not.toContain("where");
    }
  });

  it("a class not created yet answers nothing (no write on a read)", async () => {
    const index = `Empty${marker()}`;
    const result = await predict(weaviateFlow({ credential: await weaviateKey(), index, text: "" }), "anything");
    expect(result.sourceDocuments).toEqual([]);
    expect((await weaviateRequests(index)).map((r) => r.method)).toEqual(["GET"]);
  });

  it("Weaviate down → 502 with its message, slow → 504, a refused key → 502 naming the credential; never the key", async () => {
    const key = "wv-secret-key-987654";
    const cred = await credential("weaviateApi", { weaviateApiKey: key });
    const down = await err(predict(weaviateFlow({ credential: cred, index: "Down" }), "bakery"));
    expect(down).toMatchObject({ status: 502, message: "Weaviate get schema failed (500): the shard is having a bad day" });
    const slow = await err(predict(weaviateFlow({ credential: cred, index: "Hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Weaviate get schema did not answer within 300 ms" });
    const wrongKey = await err(
      predict(weaviateFlow({ credential: await credential("weaviateApi", { weaviateApiKey: "not-a-key-123456" }), index: "X" }), "bakery"),
    );
    expect(wrongKey).toMatchObject({ status: 502, message: "Weaviate get schema was refused (401): check the weaviateApi credential" });
    const unreachable = await err(
      predict(weaviateFlow({ credential: cred, index: "X", extra: { weaviateHost: inject("closedUrl") } }), "bakery"),
    );
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Weaviate get schema failed: /);
    // A write Weaviate refuses (vectors of another length than the class's): 502 with Weaviate's message.
    const index = `Size${marker()}`;
    await upsertFlow(weaviateFlow({ credential: cred, index, text: BAKERY }));
    const other = otherSizeFlow("weaviate_0", "weaviate", {
      credential: cred,
      weaviateConnectionType: "custom",
      weaviateHttpSecure: false,
      weaviateHost: weaviate().replace("http://", ""),
      weaviateIndex: index,
    });
    const refused = await err(upsertFlow(other));
    expect(refused).toMatchObject({
      status: 502,
      message: "Weaviate batch import failed: new node has a vector with length 8. Existing nodes have vectors with length 256",
    });
    for (const e of [down, slow, wrongKey, unreachable, refused]) expect(e.message).not.toContain(key);
  });

  it("the server from weaviateHost and the connection type; bad inputs are 400s naming the input", async () => {
    expect(weaviateOrigin("my-cluster.weaviate.cloud", "cloud", true)).toBe("https://my-cluster.weaviate.cloud");
    expect(weaviateOrigin("localhost", "local", true)).toBe("http://localhost:8080");
    expect(weaviateOrigin("wv.internal:9000", "custom", false)).toBe("http://wv.internal:9000");
    expect(weaviateOrigin("wv.internal", "custom", true)).toBe("https://wv.internal:8080");
    expect(weaviateOrigin("http://127.0.0.1:8081/", "cloud", true)).toBe("http://127.0.0.1:8081");
    const cred = await weaviateKey();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ weaviateHost: "ftp://w.example" }, "weaviate weaviateHost must be a host[:port] or an http(s) URL (e.g. localhost:8080)"],
      [{ weaviateIndex: "" }, "weaviate needs its weaviateIndex input (the name of a Weaviate collection)"],
      [{ weaviateIndex: "my-docs" }, "weaviate weaviateIndex must be a GraphQL name: a letter, then letters, digits or _"],
      // Weaviate would refuse every object with a property of that name.
      [{ weaviateTextKey: "page-content" }, "weaviate weaviateTextKey must be a property name: a letter or _, then letters, digits or _"],
      [{ weaviateTextKey: "id" }, "weaviate weaviateTextKey must be a property name: a letter or _, then letters, digits or _"],
      [{ weaviateConnectionType: "grpc" }, "weaviate weaviateConnectionType must be one of cloud, local, custom"],
      [{ weaviateFilter: "{not json" }, "weaviateFilter is not valid JSON"],
      [{ weaviateMetadataKeys: '{"a":1}' }, 'weaviateMetadataKeys must be a JSON list of names (e.g. ["source"])'],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(weaviateFlow({ credential: cred, index: "X", extra }), "bakery"));
      expect(e, message).toMatchObject({ status: 400, message });
    }
  });
});
