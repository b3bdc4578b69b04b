// mongoDBAtlas (vector store) and MongoDBAtlasChatMemory against the MongoDB stand-in
// (test/standin/mongodb.mjs: OP_MSG with BSON, SCRAM-SHA-256 checking the client's proof, a
// primary and a secondary, $vectorSearch, a DNS-over-HTTPS route): a chatflow upserted through
// POST /vector/upsert and answering from the stored text, the documents laid out as Flowise writes
// them, the metadata filter in $vectorSearch, mmr, the memory's session kept across predictions in
// Flowise's layout (a session Flowise left read and appended to; one at the 16 MiB document limit
// refused, saying so; `messages` not an array refused by $push), mongodb+srv:// through DoH to the
// replica set's primary, and the failures: a wrong password (502, never the password), a private
// host (400), SCRAM-SHA-1, bad inputs.
import { describe, expect, inject, it } from "vitest";
import { askLibrarians, saveChatflow, townChatflow, upsertChatflow } from "../routes/hosted-store-routes";
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { loadMongoHistory, saveMongoExchange } from "../../src/providers/memory/mongodb";
import { mongoCollection } from "../../src/providers/mongodb";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { credential, db, makeCtx, marker, requestsWith, runFlow, runtimeWith } from "./helpers";
import { err, predict, storeFlow, upsertFlow } from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION, flow, ref, standinModel } from "./retrieval-flows";

const USER = "edgeflow";
const PASSWORD = "mongo-standin-Secret1";
const wire = (password = PASSWORD, base = inject("mongoWireUrl")) => base.replace("mongodb://", `mongodb://${USER}:${password}@`);
const mongoCredential = (url = wire()) => credential("mongoDBUrlApi", { mongoDBConnectUrl: url });

interface Command {
  command: string;
  db: string;
  collection: string | null;
  role: string;
  user: string | null;
  body: any;
}
const commandsOn = async (collection: string) =>
  (await (await fetch(`${inject("mongoUrl")}/requests?collection=${collection}`)).json()) as Command[];
const dump = async (db: string, collection: string) =>
  (await (await fetch(`${inject("mongoUrl")}/dump/${db}/${collection}`)).json()) as any[];
const DB = "edgeflow_test";
const vector = { doubles: true, length: LOCAL_HASH_DIMS };

function mongoFlow(o: { credential: string; collection: string; topK?: string; text?: string; extra?: Record<string, unknown> }) {
  return storeFlow({
    id: "mongo_0",
    node: "mongoDBAtlas",
    credential: o.credential,
    text: o.text,
    inputs: { databaseName: DB, collectionName: o.collection, indexName: "vector_index", topK: o.topK ?? "1", ...o.extra },
  });
}

describe("mongoDBAtlas", () => {
  it("POST /vector/upsert writes Flowise's documents; a retrieval chain answers from $vectorSearch", async () => {
    const collection = `c_${marker()}`;
    const inputs = { credential: await mongoCredential(), databaseName: DB, collectionName: collection, indexName: "vector_index" };
    const saved = await saveChatflow("mongo", townChatflow("mongoDBAtlas_0", "mongoDBAtlas", inputs));
    expect(saved.warning).toBeUndefined();
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const docs = await dump(DB, collection);
    expect(docs.map((d) => d.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const d of docs) {
      expect(Object.keys(d).slice(0, 3)).toEqual(["_id", "text", "embedding"]);
      expect(d._id).toEqual(expect.any(String));
      expect(d.embedding).toHaveLength(LOCAL_HASH_DIMS);
      expect(d.loc).toEqual({ lines: expect.any(Object) });
    }
    const insert = (await commandsOn(collection)).find((c) => c.command === "insert");
    expect(insert).toMatchObject({ db: DB, role: "primary", user: USER, body: { insert: collection, ordered: false, $db: DB } });
    expect(insert?.body.documents[0].embedding).toEqual(vector);

    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 0, numSkipped: 3 });
    expect((await commandsOn(collection)).filter((c) => c.command === "insert")).toHaveLength(1);

    const { answer, prompt } = await askLibrarians(saved.id);
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    expect(prompt).toContain(LIBRARY);
    const search = (await commandsOn(collection)).filter((c) => c.command === "aggregate").at(-1);
    expect(search?.body).toEqual({
      aggregate: collection,
      pipeline: [
        { $vectorSearch: { queryVector: vector, index: "vector_index", path: "embedding", limit: 1, numCandidates: 10 } },
        { $set: { score: { $meta: "vectorSearchScore" } } },
        { $project: { embedding: 0 } },
      ],
      cursor: {},
      $db: DB,
    });
    const names = (await commandsOn(collection)).map((c) => c.command);
    expect(names).not.toContain("saslStart"); // recorded by collection: auth commands name none
    expect((await commandsOn(collection)).every((c) => c.user === USER)).toBe(true);
  });

  it("the metadata filter reaches $vectorSearch as {key: {$eq: value}}; custom fields; mmr; an upsert repeated keeps one copy", async () => {
    const cred = await mongoCredential();
    const collection = `c_${marker()}`;
    const extra = { textKey: "content", embeddingKey: "vec" };
    await upsertFlow(mongoFlow({ credential: cred, collection, extra }));
    const stored = await dump(DB, collection);
    expect(Object.keys(stored[0]).slice(0, 3)).toEqual(["_id", "content", "vec"]);
    expect(stored[0].source).toBe("town");

    const ask = async (more: Record<string, unknown>) =>
      (await predict(mongoFlow({ credential: cred, collection, text: "", topK: "2", extra: { ...extra, ...more } }), "bakery sourdough"))
        .sourceDocuments;
    const found = await ask({ mongoMetadataFilter: '{"source":"town"}' });
    expect(found?.map((d) => d.pageContent)).toEqual([BAKERY, expect.any(String)]);
    expect(found?.[0].metadata).toMatchObject({ source: "town" });
    expect(found?.[0].metadata).not.toHaveProperty("vec");
    const filtered = (await commandsOn(collection)).filter((c) => c.command === "aggregate").at(-1);
    expect(filtered?.body.pipeline[0].$vectorSearch).toMatchObject({
      path: "vec",
      limit: 2,
      numCandidates: 20,
      filter: { source: { $eq: "town" } },
    });
    expect(await ask({ mongoMetadataFilter: { source: "elsewhere" } })).toEqual([]);

    const diverse = await ask({ searchType: "mmr", fetchK: "3", lambda: "0.2" });
    expect(diverse).toHaveLength(2);
    const mmr = (await commandsOn(collection)).filter((c) => c.command === "aggregate").at(-1);
    expect(mmr?.body.pipeline).toHaveLength(2); // the vectors kept for mmr: no $project
    expect(mmr?.body.pipeline[0].$vectorSearch).toMatchObject({ limit: 3, numCandidates: 30 });

    // The same chunks upserted again by a flow without a record manager: duplicates replaced, not doubled.
    const chatflowid = crypto.randomUUID();
    await upsertFlow(mongoFlow({ credential: cred, collection: `${collection}_b`, text: BAKERY }), { chatflowid });
    await upsertFlow(mongoFlow({ credential: cred, collection: `${collection}_b`, text: BAKERY }), { chatflowid });
    expect((await dump(DB, `${collection}_b`)).map((d) => d.text)).toEqual([BAKERY]);
  });

  it("a vector written again under its id is replaced (insert's duplicate key, then an upsert by _id); has and delete by _id", async () => {
    const collection = `c_${marker()}`;
    const ctx = {
      env: env as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ mongoDBConnectUrl: wire() }),
    };
    const store = buildVectorStore("mongoDBAtlas", { credential: "c", databaseName: DB, collectionName: collection }, ctx);
    const v = [0.5, 0, 0, 0, 0, 0, 0, 1];
    await store.addVectors([v], [new Document({ pageContent: "first", metadata: { n: 1 } })], { ids: ["id-1"] });
    await store.addVectors([v, v], [new Document({ pageContent: "second" }), new Document({ pageContent: "third" })], {
      ids: ["id-1", "id-2"],
    });
    expect(await dump(DB, collection)).toEqual([
      { _id: "id-1", text: "second", embedding: v },
      { _id: "id-2", text: "third", embedding: v },
    ]);
    const update = (await commandsOn(collection)).find((c) => c.command === "update");
    expect(update?.body.updates).toEqual([{ q: { _id: "id-1" }, u: { text: "second", embedding: v }, upsert: true }]);
    expect([...(await store.has(["id-1", "id-2", "id-3"]))].sort()).toEqual(["id-1", "id-2"]);
    // More than a batch (the stand-in's cursors answer 3 at a time): the rest read with getMore.
    const ids = ["id-3", "id-4", "id-5", "id-6"];
    await store.addVectors(
      ids.map(() => v),
      ids.map((id) => new Document({ pageContent: id })),
      { ids },
    );
    expect((await store.has(["id-1", "id-2", ...ids])).size).toBe(6);
    const getMore = (await commandsOn(collection)).filter((c) => c.command === "getMore");
    expect(getMore.at(-1)?.body).toEqual({ getMore: expect.any(Number), collection, $db: DB });
    await store.delete({ ids });
    await store.delete({ ids: ["id-1"] });
    expect((await dump(DB, collection)).map((d) => d._id)).toEqual(["id-2"]);
    const [hit] = await store.similaritySearchVectorWithScore(v, 1);
    expect(hit[0]).toMatchObject({ id: "id-2", pageContent: "third", metadata: {} });
    expect(hit[1]).toBeCloseTo(1, 6);
  });

  const directStore = (collection: string) =>
    buildVectorStore(
      "mongoDBAtlas",
      { credential: "c", databaseName: DB, collectionName: collection },
      {
        env: env as never,
        db: db(),
        embeddings: new LocalHashEmbeddings({ dims: 8 }),
        namespace: `ns_${marker()}`,
        getCredential: async () => ({ mongoDBConnectUrl: wire() }),
      },
    );
  const v8 = [1, 0, 0, 0, 0, 0, 0, 0];

  it("an insert holds at most ~16 MB of documents (MongoDB refuses a larger command); a 17 MB one is a 400, nothing sent", async () => {
    const collection = `c_${marker()}`;
    const store = directStore(collection);
    // 120 files loaded without a splitter, 200,000 characters each: 24 MB, one insert of 100 would be refused whole.
    const docs = Array.from({ length: 120 }, (_, i) => new Document({ pageContent: `${i} ${"x".repeat(200_000)}`, metadata: { n: i } }));
    const ids = docs.map((_, i) => `big-${i}`);
    await store.addVectors(
      docs.map(() => v8),
      docs,
      { ids },
    );
    const inserts = (await commandsOn(collection)).filter((c) => c.command === "insert");
    expect(inserts.map((c) => c.body.documents.length)).toEqual([83, 37]);
    expect((await store.has(ids)).size).toBe(120);

    const huge = new Document({ pageContent: "y".repeat(17_000_000) });
    const refused = await err(store.addVectors([v8], [huge], { ids: ["huge"] }));
    expect(refused).toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^mongoDBAtlas: a chunk \("y{40}…"\) makes a document of 17000\d{3} bytes .* at most 16777216 bytes a document: .*chunkSize\)$/,
      ),
    });
    expect((await commandsOn(collection)).filter((c) => c.command === "insert")).toHaveLength(2);
  }, 60_000);

  it("metadata keys holding NUL are written without it (a BSON key cannot hold one)", async () => {
    const collection = `c_${marker()}`;
    const store = directStore(collection);
    // A UTF-16 CSV read as UTF-8 has NULs in its column names.
    const metadata = { "t\u0000itle": "Report", pdf: { "a\u0000uthor": "Ada", tags: [{ "k\u0000": 1 }] }, text_NUL: "a\u0000b" };
    await store.addVectors([v8], [new Document({ pageContent: "nul", metadata })], { ids: ["nul-1"] });
    expect(await dump(DB, collection)).toEqual([
      { _id: "nul-1", text: "nul", embedding: v8, title: "Report", pdf: { author: "Ada", tags: [{ k: 1 }] }, text_NUL: "a\u0000b" },
    ]);
  });

  it("a document written again with a $-prefixed top-level field is deleted and inserted (a replacement may not hold one)", async () => {
    const collection = `c_${marker()}`;
    const store = directStore(collection);
    await store.addVectors([v8], [new Document({ pageContent: "first", metadata: { $price: 5, "price.usd": 5 } })], { ids: ["d-1"] });
    await store.addVectors(
      [v8, v8, v8],
      [
        new Document({ pageContent: "second", metadata: { $price: 6, "price.usd": 6 } }),
        new Document({ pageContent: "third" }),
        new Document({ pageContent: "fourth" }),
      ],
      { ids: ["d-1", "d-2", "d-3"] },
    );
    await store.addVectors([v8], [new Document({ pageContent: "third again", metadata: { "price.usd": 7 } })], { ids: ["d-2"] });
    const stored = (await dump(DB, collection)).sort((a, b) => a._id.localeCompare(b._id));
    expect(stored).toEqual([
      { _id: "d-1", text: "second", embedding: v8, $price: 6, "price.usd": 6 },
      { _id: "d-2", text: "third again", embedding: v8, "price.usd": 7 },
      { _id: "d-3", text: "fourth", embedding: v8 },
    ]);
    const writes = (await commandsOn(collection)).filter((c) => ["insert", "update", "delete"].includes(c.command));
    expect(writes.map((c) => c.command)).toEqual(["insert", "insert", "delete", "insert", "insert", "update"]);
    expect(writes[2].body.deletes).toEqual([{ q: { _id: { $in: ["d-1"] } }, limit: 0 }]);
    expect(writes[5].body.updates).toEqual([
      { q: { _id: "d-2" }, u: { text: "third again", embedding: v8, "price.usd": 7 }, upsert: true },
    ]);
  });

  it("mongoMetadataFilter: operators, $and and $or as written, nested objects by path (Atlas refuses $eq of an object)", async () => {
    const cred = await mongoCredential();
    const collection = `c_${marker()}`;
    await upsertFlow(mongoFlow({ credential: cred, collection }));
    const stored = await dump(DB, collection);
    const first = stored.filter((d) => d.loc.lines.from === 1).map((d) => d.text);
    expect(first).toHaveLength(1);
    const ask = async (mongoMetadataFilter: unknown) =>
      (
        await predict(mongoFlow({ credential: cred, collection, text: "", topK: "5", extra: { mongoMetadataFilter } }), "bakery")
      ).sourceDocuments?.map((d) => d.pageContent);
    const sent = async () =>
      (await commandsOn(collection)).filter((c) => c.command === "aggregate").at(-1)?.body.pipeline[0].$vectorSearch.filter;

    expect(await ask('{"source":{"$in":["town","city"]}}')).toHaveLength(stored.length);
    expect(await sent()).toEqual({ source: { $in: ["town", "city"] } });
    expect(await ask({ $or: [{ source: "elsewhere" }, { source: { $eq: "town" } }] })).toHaveLength(stored.length);
    expect(await sent()).toEqual({ $or: [{ source: "elsewhere" }, { source: { $eq: "town" } }] });
    expect(await ask({ loc: { lines: { from: 1 } }, source: "town" })).toEqual(first);
    expect(await sent()).toEqual({ "loc.lines.from": { $eq: 1 }, source: { $eq: "town" } });
  });

  it("mongodb+srv:// is resolved through DNS over HTTPS (SRV, TXT) and writes go to the replica set's primary", async () => {
    const runtime = runtimeWith({ MONGODB_DOH_URL: `${inject("mongoUrl")}/dns-query` } as never);
    const srv = await mongoCredential(`mongodb+srv://${USER}:${PASSWORD}@cluster0.edgeflow.test/?tls=false`);
    const collection = `c_${marker()}`;
    await upsertFlow(mongoFlow({ credential: srv, collection }), { runtime });
    const result = await predict(mongoFlow({ credential: srv, collection, text: "" }), "night trains platform", { runtime });
    expect(result.sourceDocuments?.map((d) => d.pageContent)).toEqual([STATION]);
    const commands = await commandsOn(collection);
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.every((c) => c.role === "primary" && c.user === USER)).toBe(true);
    const all = (await (await fetch(`${inject("mongoUrl")}/requests`)).json()) as Command[];
    expect(all.some((c) => c.role === "secondary" && c.command === "hello")).toBe(true);
    const dns = (await (await fetch(`${inject("mongoUrl")}/dns`)).json()) as Array<{ name: string; type: string; accept: string }>;
    expect(dns).toEqual(
      expect.arrayContaining([
        { name: "_mongodb._tcp.cluster0.edgeflow.test", type: "SRV", accept: "application/dns-json" },
        { name: "cluster0.edgeflow.test", type: "TXT", accept: "application/dns-json" },
      ]),
    );

    const priv = await mongoCredential(`mongodb+srv://${USER}:${PASSWORD}@private.edgeflow.test/`);
    const refused = await err(predict(mongoFlow({ credential: priv, collection }), "x", { runtime }));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/^mongoDBUrlApi credential mongoDBConnectUrl refused by the outbound policy: 10\.1\.2\.3 is a private/);
  });

  it("a wrong password → 502 without it; a private host → 400; SCRAM-SHA-1 → 400; a failing search → 502; bad inputs → 400", async () => {
    const collection = `c_${marker()}`;
    const wrong = "wrong-mongo-password-42";
    const refused = await err(predict(mongoFlow({ credential: await mongoCredential(wire(wrong)), collection }), "bakery"));
    expect(refused.status).toBe(502);
    expect(refused.message).toMatch(
      /^MongoDB at 127\.0\.0\.1:\d+ refused authentication: Authentication failed\. \(18 AuthenticationFailed\)$/,
    );
    expect(refused.message).not.toContain(wrong);

    const priv = await err(
      predict(mongoFlow({ credential: await mongoCredential(`mongodb://u:${wrong}@10.1.2.3:27017`), collection }), "x"),
    );
    expect(priv.status).toBe(400);
    expect(priv.message).toMatch(
      /^mongoDBUrlApi credential mongoDBConnectUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    );
    expect(priv.message).not.toContain(wrong);

    const sha1 = await err(
      predict(mongoFlow({ credential: await mongoCredential(wire("x").replace(`${USER}:`, "sha1only:")), collection }), "x"),
    );
    expect(sha1).toMatchObject({
      status: 400,
      message: expect.stringMatching(/can only authenticate with SCRAM-SHA-1; SCRAM-SHA-1 needs an MD5/),
    });
    const asked = await mongoCredential(`${wire()}/?authMechanism=SCRAM-SHA-1`);
    expect((await err(predict(mongoFlow({ credential: asked, collection }), "x"))).status).toBe(400);

    const down = await err(predict(mongoFlow({ credential: await mongoCredential(), collection, extra: { indexName: "down" } }), "x"));
    expect(down.status).toBe(502);
    expect(down.message).toMatch(/^MongoDB at 127\.0\.0\.1:\d+ aggregate failed: PlanExecutor error .* bad day \(8 UnknownError\)$/);

    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ databaseName: "" }, /needs its Database \(databaseName\) and Collection Name \(collectionName\)/],
      [{ embeddingKey: "$v" }, /embeddingKey must be a field name/],
      [{ mongoMetadataFilter: "{nope" }, /mongoMetadataFilter is not valid JSON/],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(mongoFlow({ credential: await mongoCredential(), collection, extra }), "x"));
      expect(e).toMatchObject({ status: 400, message: expect.stringMatching(message) });
    }
    const none = await err(predict(mongoFlow({ credential: "", collection }), "x"));
    expect(none).toMatchObject({ status: 400, message: expect.stringMatching(/connect a mongoDBUrlApi credential/) });
  });
});

describe("MongoDBAtlasChatMemory", () => {
  const memoryFlow = async (inputs: Record<string, unknown>, url = wire()) => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-mongo-mem" });
    return flow([
      ["mem_0", "MongoDBAtlasChatMemory", "Memory", { credential: await mongoCredential(url), databaseName: DB, ...inputs }],
      standinModel("model_0", openai),
      ["chain_0", "conversationChain", "Chains", { model: ref("model_0"), memory: ref("mem_0") }],
    ] as never);
  };
  const lastChat = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions")).at(-1)!;

  it("keeps the session's messages across predictions, in Flowise's layout", async () => {
    const collection = `chat_${marker()}`;
    const f = await memoryFlow({ collectionName: collection });
    const sessionId = `s-${marker()}`;
    const first = await runFlow(f, makeCtx(`I am Ada ${sessionId}`, { sessionId }));
    await runFlow(f, makeCtx(`who am I ${sessionId}-2`, { sessionId }));
    expect((await lastChat(`${sessionId}-2`)).body.messages.filter((x: any) => x.role !== "system")).toEqual([
      { role: "user", content: `I am Ada ${sessionId}` },
      { role: "assistant", content: first.text },
      { role: "user", content: `who am I ${sessionId}-2` },
    ]);
    const [doc, ...more] = await dump(DB, collection);
    expect(more).toEqual([]);
    expect(doc._id).toEqual({ $oid: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(doc.sessionId).toBe(sessionId);
    const human = (content: string) => ({
      type: "human",
      data: { content, additional_kwargs: {}, response_metadata: {} },
      timestamp: { $date: expect.any(String) },
    });
    const ai = (content: string) => ({
      type: "ai",
      data: { content, tool_calls: [], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} },
      timestamp: { $date: expect.any(String) },
    });
    expect(doc.messages).toEqual([
      human(`I am Ada ${sessionId}`),
      ai(first.text),
      human(`who am I ${sessionId}-2`),
      ai(expect.any(String)),
    ]);
    const commands = await commandsOn(collection);
    expect(commands.map((c) => c.command)).toEqual(["find", "update", "find", "update"]);
    expect(commands[0].body).toMatchObject({ find: collection, filter: { sessionId }, limit: 1, $db: DB });
    expect(commands[1].body.updates).toEqual([
      { q: { sessionId }, u: { $push: { messages: { $each: [expect.any(Object), expect.any(Object)] } } }, upsert: true },
    ]);
  });

  const seed = async (collection: string, doc: Record<string, unknown>, padTo?: number) => {
    const q = padTo ? `?padTo=${padTo}` : "";
    const res = await fetch(`${inject("mongoUrl")}/seed/${DB}/${collection}${q}`, { method: "POST", body: JSON.stringify(doc) });
    return (await res.json()) as { size: number };
  };
  const stored = (type: string, data: Record<string, unknown>) => ({ type, data, timestamp: { $date: "2025-01-02T03:04:05.000Z" } });

  it("a session Flowise left reads here (odd kwargs keys, other message types, unicode) and the exchange is appended", async () => {
    const collection = `chat_${marker()}`;
    const sessionId = `s-${marker()}`;
    const kwargs = { "function_call.name": "x", $meta: { "a.b": 1 } };
    const old = [
      stored("system", { content: "be brief" }),
      stored("human", { content: "Grüße, ich heiße Zoë 🌍", additional_kwargs: kwargs }),
      stored("ai", {
        content: [
          { type: "text", text: "Hallo " },
          { type: "text", text: "Zoë" },
        ],
        additional_kwargs: kwargs,
      }),
      stored("tool", { content: "42", tool_call_id: "call_1" }),
    ];
    await seed(collection, { sessionId, messages: old });
    const f = await memoryFlow({ collectionName: collection });
    const q = `wie heiße ich? ${sessionId}`;
    await runFlow(f, makeCtx(q, { sessionId }));
    expect((await lastChat(sessionId)).body.messages.filter((x: any) => x.role !== "system")).toEqual([
      { role: "user", content: "Grüße, ich heiße Zoë 🌍" },
      { role: "assistant", content: "Hallo Zoë" },
      { role: "user", content: q },
    ]);
    const [doc] = await dump(DB, collection);
    expect(doc.messages.slice(0, 4)).toEqual(old);
    expect(doc.messages.slice(4).map((m: any) => [m.type, typeof m.data.content])).toEqual([
      ["human", "string"],
      ["ai", "string"],
    ]);
    expect(doc.messages[4].data.content).toBe(q);
  });

  it("a session whose document is at MongoDB's 16 MiB limit: the exchange is refused (17419) → 502, the document unchanged", async () => {
    // The save alone: a run would first read the 16 MiB back (slow in a test), to the same end.
    const collection = `chat_${marker()}`;
    const sessionId = `s-${marker()}`;
    const { size } = await seed(collection, { sessionId, messages: [stored("human", { content: "hi" })] }, 16 * 1024 * 1024 - 64);
    expect(size).toBe(16 * 1024 * 1024 - 64);
    const memory = mongoCollection({ mongoDBConnectUrl: wire() }, { label: "mem", databaseName: DB, collectionName: collection, env });
    const e = await err(saveMongoExchange(memory, sessionId, "one more", "answer"));
    expect(e).toMatchObject({ status: 502, message: expect.stringContaining("Resulting document after update is larger than 16777216") });
    expect(e.message).toContain(`session "${sessionId}" is at MongoDB's 16 MiB document limit: start a new session or delete it`);
    const [doc] = await dump(DB, collection);
    expect(doc.messages).toEqual([stored("human", { content: "hi" })]);
  });

  it("a session document whose `messages` is not an array reads as empty; MongoDB refuses the $push → 502", async () => {
    const collection = `chat_${marker()}`;
    const sessionId = `s-${marker()}`;
    await seed(collection, { sessionId, messages: "not a list" });
    const memory = mongoCollection({ mongoDBConnectUrl: wire() }, { label: "mem", databaseName: DB, collectionName: collection, env });
    expect(await loadMongoHistory(memory, sessionId)).toEqual([]);
    const e = await err(saveMongoExchange(memory, sessionId, "q", "a"));
    expect(e).toMatchObject({
      status: 502,
      message: expect.stringContaining("The field 'messages' must be an array but is of type string"),
    });
    expect((await dump(DB, collection))[0].messages).toBe("not a list");
  });

  it("a session id input names the session; a wrong password → 502 without it", async () => {
    const collection = `chat_${marker()}`;
    const f = await memoryFlow({ collectionName: collection, sessionId: "fixed-session" });
    await runFlow(f, makeCtx(`hello ${marker()}`));
    expect((await dump(DB, collection)).map((d) => d.sessionId)).toEqual(["fixed-session"]);
    const wrong = "wrong-memory-password-7";
    const e = await err(runFlow(await memoryFlow({ collectionName: collection }, wire(wrong)), makeCtx("hi")));
    expect(e.status).toBe(502);
    expect(e.message).not.toContain(wrong);
  });
});
