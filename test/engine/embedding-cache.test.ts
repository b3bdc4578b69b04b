// The embeddings caches between an embeddings node and a vector store, driven through POST /vector/upsert
// and POST /prediction: the texts of a second upsert (re-indexed: the record manager's forceUpdate)
// are not sent to the embeddings stand-in again. inMemoryEmbeddingCache (this isolate's memory, per
// chatflow) and redisEmbeddingsCache (RESP over TCP to the Redis stand-in: namespace + SHA-256 of the
// text → the vector as JSON, SET … EX ttl; shared by chatflows using the same Redis and namespace).
import { describe, expect, inject, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { credential, marker, requestsWith, standinUrl } from "./helpers";
import { flow, ref, standinModel } from "./retrieval-flows";

const sha256 = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

/** Paragraphs with the marker → openAIEmbeddings (stand-in) → the cache node → memoryVectorStore (forceUpdate) → a retrieval chain. */
async function save(m: string, cache: string, cacheInputs: Record<string, unknown> = {}) {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-cache" });
  const text = `Ferries ${m} leave at noon.\n\nTrams ${m} run all night.`;
  const flowData = flow([
    ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 40, chunkOverlap: "" }],
    ["loader_0", "plainText", "Document Loaders", { text, textSplitter: ref("splitter_0") }, { output: "document" }],
    ["emb_0", "openAIEmbeddings", "Embeddings", { basepath: `${standinUrl()}/v1`, credential: openai }],
    ["cache_0", cache, "Cache", { embeddings: ref("emb_0"), ...cacheInputs }],
    ["rm_0", "SQLiteRecordManager", "Record Manager", { cleanup: "full", forceUpdate: true }],
    ["vs_0", "memoryVectorStore", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("cache_0"), recordManager: ref("rm_0") }],
    standinModel(),
    ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0"), returnSourceDocuments: true }],
  ] as never);
  return (await json("POST", "/chatflows", { body: { name: `cache ${cache}`, flowData } })).id as string;
}

/** The texts the embeddings stand-in was asked to embed (with the marker in them). */
const embedded = async (m: string) =>
  (await requestsWith(m))
    .filter((r) => r.path.endsWith("/embeddings"))
    .flatMap((r) => [(r.body as unknown as { input: string | string[] }).input].flat());
const upsert = (id: string) => json("POST", `/vector/upsert/${id}`, { body: {} });

describe("embeddings caches on a vector store's embeddings input", () => {
  it("inMemoryEmbeddingCache: the second upsert of the same texts asks the model for nothing; queries still reach it", async () => {
    const m = marker();
    const id = await save(m, "inMemoryEmbeddingCache", { namespace: "ns:" });
    expect(await upsert(id)).toMatchObject({ numAdded: 2 });
    const first = await embedded(m);
    expect(first.sort()).toEqual([`Ferries ${m} leave at noon.`, `Trams ${m} run all night.`].sort());
    expect(await upsert(id)).toMatchObject({ numUpdated: 2 });
    expect(await embedded(m)).toHaveLength(2);
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `When do trams ${m} run?` } });
    expect(answer.sourceDocuments.length).toBeGreaterThan(0);
    expect(await embedded(m)).toEqual(expect.arrayContaining([`When do trams ${m} run?`]));
  });

  it("redisEmbeddingsCache: vectors under namespace + SHA-256 (SET … EX ttl), read back by another chatflow", async () => {
    const m = marker();
    const cred = await credential("redisCacheUrlApi", { redisUrl: inject("redisUrl") });
    const inputs = { credential: cred, namespace: `emb-${m}:`, ttl: "120" };
    expect(await upsert(await save(m, "redisEmbeddingsCache", inputs))).toMatchObject({ numAdded: 2 });
    expect(await embedded(m)).toHaveLength(2);
    // Another chatflow, the same Redis and namespace: nothing to embed.
    expect(await upsert(await save(m, "redisEmbeddingsCache", inputs))).toMatchObject({ numAdded: 2 });
    expect(await embedded(m)).toHaveLength(2);

    const commands = (await (await fetch(`${inject("upstashUrl")}/commands`)).json()) as Array<{ args: string[] }>;
    const key = `emb-${m}:${await sha256(`Ferries ${m} leave at noon.`)}`;
    const sets = commands.filter((c) => c.args[0] === "SET" && c.args[1] === key);
    expect(sets).toHaveLength(1);
    expect(sets[0].args.slice(3)).toEqual(["EX", "120"]);
    const vector = JSON.parse(sets[0].args[2]);
    expect(Array.isArray(vector) && vector.every((x: unknown) => typeof x === "number")).toBe(true);
    expect(commands.filter((c) => c.args[0] === "GET" && c.args[1] === key)).toHaveLength(2);
  });

  it("no embeddings connected → 400 naming the node; no Redis credential → 400", async () => {
    const bare = flow([
      ["cache_0", "inMemoryEmbeddingCache", "Cache", {}],
      ["vs_0", "memoryVectorStore", "Vector Stores", { embeddings: ref("cache_0") }, { output: "retriever" }],
      standinModel(),
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0") }],
    ] as never);
    const id = (await json("POST", "/chatflows", { body: { name: "bare cache", flowData: bare } })).id;
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toContain("cache_0 (cache_0) needs an embeddings node connected to its embeddings input");
    const noRedis = await save(marker(), "redisEmbeddingsCache");
    const e2 = await expectError(await call("POST", `/vector/upsert/${noRedis}`, { body: {} }), 400);
    expect(e2.message).toContain("needs a redisCacheUrlApi (redisUrl) or redisCacheApi (host) credential");
  });
});
