// The redis vector store against a RediSearch stand-in over RESP (test/standin/redis-search.mjs),
// which computes KNN over the float32 bytes it holds: upsert and prediction in a chatflow
// (LangChain's index and hashes: doc:<index>:<id>, escaped metadata JSON; FT.SEARCH KNN with
// DIALECT 2), the record manager (EXISTS asked, DEL of removed ones), replaceIndex, custom keys, an
// index Flowise filled, mmr, and a Redis that refuses the password, fails or is not Redis Stack.
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS } from "../../src/providers/embeddings/local-hash";
import { credential, marker } from "./helpers";
import { askNightTrains, bookkeepingTexts, err, predict, storeFlow, upsertFlow, type TownFlowOptions } from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const PASSWORD = "redis-search-password";
const redisUrl = (password = PASSWORD) => inject("redisSearchRedisUrl").replace("redis://", `redis://default:${password}@`);

interface Command {
  command: string;
  args: Array<string | { bytes: number }>;
  user: string;
}
const commandsOn = async (index: string) =>
  ((await (await fetch(`${inject("redisSearchUrl")}/requests`)).json()) as Command[]).filter(
    (c) => c.args[0] === index || String(c.args[0]).startsWith(`doc:${index}:`),
  );
const dump = async (index: string) =>
  (await (await fetch(`${inject("redisSearchUrl")}/dump/${index}`)).json()) as {
    index: { prefix: string; vectorField: string; dim: number; metric: string; fields: string[] } | null;
    docs: Array<{ key: string; fields: Record<string, any> }>;
  };
const redisCredential = (password = PASSWORD) => credential("redisCacheUrlApi", { redisUrl: redisUrl(password) });

function redisFlow({ index, topK, extra, ...rest }: TownFlowOptions & { credential: string; index: string }) {
  return storeFlow({ id: "redis_0", node: "redis", inputs: { indexName: index, topK: topK ?? "1", ...extra }, ...rest });
}

describe("redis (RediSearch)", () => {
  it("makes LangChain's index, writes its hashes with the vectors as float32 bytes, answers by KNN", async () => {
    const cred = await redisCredential();
    const index = `i_${marker()}`;
    const flowData = redisFlow({ credential: cred, index });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const commands = await commandsOn(index);
    expect(commands.find((c) => c.command === "FT.CREATE")?.args).toEqual([
      index,
      "ON",
      "HASH",
      "PREFIX",
      "1",
      `doc:${index}:`,
      "SCHEMA",
      "content_vector",
      "VECTOR",
      "HNSW",
      "6",
      "TYPE",
      "FLOAT32",
      "DIM",
      String(LOCAL_HASH_DIMS),
      "DISTANCE_METRIC",
      "COSINE",
      "content",
      "TEXT",
      "metadata",
      "TEXT",
    ]);
    const hset = commands.find((c) => c.command === "HSET");
    expect(hset?.args.slice(1)).toEqual([
      "content_vector",
      { bytes: LOCAL_HASH_DIMS * 4 },
      "content",
      expect.any(String),
      "metadata",
      expect.any(String),
    ]);
    const stored = await dump(index);
    expect(stored.docs.map((d) => d.fields.content).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(stored.docs[0].fields.metadata).toMatch(/^\{\\"source\\"\\:\\"town\\",\\"loc\\"/);
    expect(stored.docs[0].fields.content_vector).toHaveLength(LOCAL_HASH_DIMS);
    expect(await bookkeepingTexts("redis", `${chatflowid}_redis_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(prompt).toContain(STATION);
    const search = (await commandsOn(index)).filter((c) => c.command === "FT.SEARCH").at(-1);
    expect(search?.args).toEqual([
      index,
      "* => [KNN 1 @content_vector $vector AS vector_score]",
      "RETURN",
      "3",
      "metadata",
      "content",
      "vector_score",
      "SORTBY",
      "vector_score",
      "LIMIT",
      "0",
      "1",
      "PARAMS",
      "2",
      "vector",
      { bytes: LOCAL_HASH_DIMS * 4 },
      "DIALECT",
      "2",
    ]);
    for (const c of await commandsOn(index)) expect(c.user).toBe("default");
  });

  it("a record manager: unchanged hashes skipped (EXISTS asked), removed ones deleted; replaceIndex remakes the index", async () => {
    const cred = await redisCredential();
    const index = `i_${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(redisFlow({ credential: cred, index, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(redisFlow({ credential: cred, index, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await commandsOn(index)).some((c) => c.command === "EXISTS")).toBe(true);
    const fewer = redisFlow({ credential: cred, index, recordManager, text: LIBRARY });
    expect(await upsertFlow(fewer, { chatflowid })).toMatchObject({ numAdded: 0, numSkipped: 1, numDeleted: 2 });
    expect((await dump(index)).docs.map((d) => d.fields.content)).toEqual([LIBRARY]);
    expect((await commandsOn(index)).filter((c) => c.command === "DEL")).toHaveLength(1);

    const replaced = redisFlow({ credential: cred, index, text: BAKERY, extra: { replaceIndex: true } });
    await upsertFlow(replaced, { chatflowid: crypto.randomUUID() });
    const names = (await commandsOn(index)).map((c) => c.command);
    expect(names.lastIndexOf("FT.DROPINDEX")).toBeLessThan(names.lastIndexOf("FT.CREATE"));
    expect((await dump(index)).docs.map((d) => d.fields.content).sort()).toEqual([BAKERY, LIBRARY].sort());
  });

  it("custom content, metadata and vector fields; mmr; a redisCacheApi credential", async () => {
    const cred = await credential("redisCacheApi", {
      redisCacheHost: "127.0.0.1",
      redisCachePort: new URL(inject("redisSearchRedisUrl")).port,
      redisCacheUser: "default",
      redisCachePwd: PASSWORD,
    });
    const index = `i_${marker()}`;
    const extra = { contentKey: "text", metadataKey: "meta", vectorKey: "emb" };
    await upsertFlow(redisFlow({ credential: cred, index, extra }));
    const stored = await dump(index);
    expect(stored.index).toMatchObject({ vectorField: "emb", fields: ["emb", "text", "meta"] });
    expect(Object.keys(stored.docs[0].fields).sort()).toEqual(["emb", "meta", "text"]);
    const ask = (more: Record<string, unknown>) =>
      predict(redisFlow({ credential: cred, index, text: "", topK: "2", extra: { ...extra, ...more } }), "bakery sourdough croissants");
    expect((await ask({})).sourceDocuments?.map((d) => d.pageContent)).toEqual([BAKERY, expect.any(String)]);
    const diverse = await ask({ searchType: "mmr", fetchK: "3", lambda: "0.2" });
    expect(diverse.sourceDocuments).toHaveLength(2);
    const mmr = (await commandsOn(index)).filter((c) => c.command === "FT.SEARCH").at(-1);
    expect(mmr?.args.slice(2, 8)).toEqual(["RETURN", "4", "meta", "text", "vector_score", "emb"]);
  });

  it('metadata is escaped as LangChain escapes it (-, : and ") and read back whole', async () => {
    const index = `i_${marker()}`;
    await upsertFlow(redisFlow({ credential: await redisCredential(), index, text: BAKERY, metadata: '{"source":"a-b:c \\"q\\""}' }));
    const result = await predict(redisFlow({ credential: await redisCredential(), index, text: "" }), "bakery");
    expect(result.sourceDocuments).toEqual([{ pageContent: BAKERY, metadata: expect.objectContaining({ source: 'a-b:c "q"' }) }]);
    expect((await dump(index)).docs[0].fields.metadata).toContain('a\\-b\\:c \\\\"q\\\\"');
  });

  it('a vectorKey with a "." is a 400 (a query reads it as punctuation); keys naming one field twice are a 400', async () => {
    const cred = await redisCredential();
    const index = `i_${marker()}`;
    const dotted = redisFlow({ credential: cred, index, extra: { vectorKey: "content.vector" } });
    // Before: the index and hashes were written, then every FT.SEARCH failed with a syntax error (a 502).
    const refused = await err(upsertFlow(dotted).then(() => predict(dotted, "bakery")));
    expect(refused).toMatchObject({ status: 400, message: "redis vectorKey must be a field name (letters, digits and _)" });
    const same = await err(upsertFlow(redisFlow({ credential: cred, index, extra: { contentKey: "text", metadataKey: "text" } })));
    expect(same).toMatchObject({ status: 400, message: "redis contentKey, metadataKey and vectorKey must be three different field names" });
    expect(await commandsOn(index)).toEqual([]);
    // A dotted content key is never in a query: still taken.
    await upsertFlow(redisFlow({ credential: cred, index, text: BAKERY, extra: { contentKey: "page.content" } }));
    const found = await predict(redisFlow({ credential: cred, index, text: "", extra: { contentKey: "page.content" } }), "bakery");
    expect(found.sourceDocuments?.map((d) => d.pageContent)).toEqual([BAKERY]);
  });

  it("a refused password, a failing index, no RediSearch → 502s with Redis's message, never the password; bad inputs → 400", async () => {
    const wrong = "wrong-redis-password-42";
    const refused = await err(predict(redisFlow({ credential: await redisCredential(wrong), index: "x" }), "bakery"));
    expect(refused.status).toBe(502);
    expect(refused.message).toMatch(/^Redis at 127\.0\.0\.1:\d+ refused AUTH: WRONGPASS/);
    expect(refused.message).not.toContain(wrong);
    const cred = await redisCredential();
    const down = await err(predict(redisFlow({ credential: cred, index: "down" }), "bakery"));
    expect(down.status).toBe(502);
    expect(down.message).toMatch(/^Redis at 127\.0\.0\.1:\d+ FT\.SEARCH failed: ERR the shard is having a bad day$/);
    const plain = await credential("redisCacheUrlApi", { redisUrl: inject("redisUrl") });
    const noSearch = await err(predict(redisFlow({ credential: plain, index: "x" }), "bakery"));
    expect(noSearch.status).toBe(502);
    expect(noSearch.message).toMatch(/FT\.SEARCH failed: .*\(is this Redis Stack, with RediSearch\?\)$/);

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ indexName: "" }, "redis needs its indexName input (the name of a RediSearch index)"],
      [{ vectorKey: "a b" }, "redis vectorKey must be a field name (letters, digits and _)"],
      [{ contentKey: "a b" }, "redis contentKey must be a field name (letters, digits, _ and .)"],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(redisFlow({ credential: cred, index: "x", extra }), "bakery"));
      expect(e).toMatchObject({ status: 400, message });
    }
    const none = await err(predict(redisFlow({ credential: "", index: "x" }), "bakery"));
    expect(none).toMatchObject({
      status: 400,
      message: "redis is not configured: connect a redisCacheUrlApi (redisUrl) or redisCacheApi credential",
    });
  });
});
