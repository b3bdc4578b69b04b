import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { LOCAL, newStore, upsert } from "./document-store-helpers";

// The local vector store keeps decoded vectors in the isolate between queries. These prove a
// query never answers from vectors that a write has since replaced or removed.
const query = (storeId: string, q: string) =>
  json<{ docs: Array<{ pageContent: string; id: string }> }>("POST", "/document-store/vectorstore/query", { body: { storeId, query: q } });

describe("local vector store queries after writes", () => {
  it("see new chunks, chunks replaced in place (new ids, same content), and removals", async () => {
    const store = await newStore("cache");
    const first = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "plainText", config: { text: "Otters hold hands while they sleep." } },
      recordManager: { name: "SQLiteRecordManager" },
    });
    const before = await query(store.id, "otters sleep");
    expect(before.docs[0].pageContent).toContain("Otters");

    // Same content again, replacing the loader in place: the chunks get new ids.
    await upsert(store.id, {
      ...LOCAL,
      docId: first.docId,
      replaceExisting: true,
      loader: { name: "plainText", config: { text: "Otters hold hands while they sleep." } },
    });
    const replaced = await query(store.id, "otters sleep");
    expect(replaced.docs[0].pageContent).toContain("Otters");
    const chunks = await json("GET", `/document-store/chunks/${store.id}/all/1`);
    expect(chunks.chunks.map((c: { id: string }) => c.id)).toContain(replaced.docs[0].id);

    // New content is found at once.
    await upsert(store.id, { ...LOCAL, loader: { name: "plainText", config: { text: "Volcanoes erupt molten basalt." } } });
    expect((await query(store.id, "volcano basalt")).docs[0].pageContent).toContain("Volcanoes");

    // Removed vectors are not answered any more.
    await json("DELETE", `/document-store/vectorstore/${store.id}`);
    const after = await query(store.id, "otters sleep").catch((err: Error) => err);
    if (!(after instanceof Error)) expect(after.docs.some((d) => d.pageContent.includes("Otters"))).toBe(false);
  });
});

// A repeated query builds the store's embedding and vector store from what this isolate read
// before, and confirms that configuration in the same read that fetches the hits.
describe("queries after the store itself changed", () => {
  it("use the store's new configuration at once", async () => {
    const store = await newStore("cache-config");
    await upsert(store.id, { ...LOCAL, loader: { name: "plainText", config: { text: "Glaciers carve deep valleys." } } });
    expect((await query(store.id, "glaciers valleys")).docs[0].pageContent).toContain("Glaciers");

    // Another embedding size: the stored 256-dimension vectors no longer fit, which a query built
    // from the earlier configuration would not notice.
    const row = await json("GET", `/document-store/store/${store.id}`);
    const embedding = JSON.parse(row.embeddingConfig);
    await json("PUT", `/document-store/store/${store.id}`, {
      body: { embeddingConfig: JSON.stringify({ ...embedding, config: { ...embedding.config, dimensions: 64 } }) },
    });
    const res = await call("POST", "/document-store/vectorstore/query", { body: { storeId: store.id, query: "glaciers valleys" } });
    expect((await expectError(res, 400)).message).toMatch(/256 dimensions but the embedding gives 64/);
  });

  it("answer 404 once the store is deleted", async () => {
    const store = await newStore("cache-delete");
    await upsert(store.id, { ...LOCAL, loader: { name: "plainText", config: { text: "Comets have icy tails." } } });
    expect((await query(store.id, "comets")).docs).toHaveLength(1);
    await json("DELETE", `/document-store/store/${store.id}`);
    await expectError(await call("POST", "/document-store/vectorstore/query", { body: { storeId: store.id, query: "comets" } }), 404);
  });

  it("link each hit to its chunk, and no longer once that chunk's text was edited (chunkNo -1, as Flowise)", async () => {
    const store = await newStore("cache-chunks");
    const text = ["Penguins nest on rocky shores.", "Camels store fat in their humps.", "Owls hunt silently at night."].join("\n\n");
    const up = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "plainText", config: { text } },
      splitter: { name: "characterTextSplitter", config: { chunkSize: 40, chunkOverlap: 0, separator: "\n\n" } },
    });
    const { chunks } = await json("GET", `/document-store/chunks/${store.id}/${up.docId}/1`);
    const camel = chunks.find((c: { pageContent: string }) => c.pageContent.includes("Camels"));
    const hit = (await query(store.id, "camels humps")).docs[0] as unknown as { id: string; chunkNo: number; pageContent: string };
    expect(hit).toMatchObject({ id: camel.id, chunkNo: camel.chunkNo, pageContent: camel.pageContent });

    // Chunk edits leave vectors as they are (a refresh re-indexes): the hit keeps its old text.
    await json("PUT", `/document-store/chunks/${store.id}/${up.docId}/${camel.id}`, { body: { pageContent: "Camels cross deserts." } });
    const stale = (await query(store.id, "camels humps")).docs[0] as unknown as { id: string; chunkNo: number; pageContent: string };
    expect(stale.pageContent).toBe(camel.pageContent);
    expect(stale.chunkNo).toBe(-1);
    expect(stale.id).not.toBe(camel.id);
  });
});
