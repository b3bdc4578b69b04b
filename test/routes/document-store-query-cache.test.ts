import { describe, expect, it } from "vitest";
import { json } from "../helpers";
import { LOCAL, newStore, upsert } from "./document-store-helpers";

// The local vector store keeps decoded vectors in the isolate between queries. These prove a
// query never answers from vectors that a write has since replaced or removed.
const query = (storeId: string, q: string) =>
  json<{ docs: Array<{ pageContent: string; id: string }> }>("POST", "/document-store/vectorstore/query", { body: { storeId, query: q } });

describe("local vector store queries after writes", () => {
  it("see new chunks, chunks replaced in place (new ids, same content), and removals", async () => {
    const store = await newStore("cache");
    const first = await upsert(store.id, { ...LOCAL, loader: { name: "plainText", config: { text: "Otters hold hands while they sleep." } }, recordManager: { name: "SQLiteRecordManager" } });
    const before = await query(store.id, "otters sleep");
    expect(before.docs[0].pageContent).toContain("Otters");

    // Same content again, replacing the loader in place: the chunks get new ids.
    await upsert(store.id, { ...LOCAL, docId: first.docId, replaceExisting: true, loader: { name: "plainText", config: { text: "Otters hold hands while they sleep." } } });
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
