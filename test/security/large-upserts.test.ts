// Issue 8 point 6: a large but allowed upsert must not hold the isolate. Over UPSERT_QUEUE_CHUNKS
// chunks (loaders that read their text whole, counted before anything is written) or over
// UPSERT_QUEUE_MB of text and JSON Lines files (read in windows, issue 18) a document store upsert
// goes to the upsert queue (202) — the consumer has the CPU time a request lacks — unless the
// caller says `async: false`. /ping answers within a second while the request, and then the queue
// consumer, work. (How each CPU-heavy loop yields is in yielding.test.ts: here local D1 and R2,
// simulated in the same process, add stalls of their own to big writes.)
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";
import { LOCAL, form, loadersOf, newStore, snapshot, waitForStatus } from "../routes/document-store-helpers";
import { setVars } from "./helpers";
import { multipart, slowest, whilePinging } from "./pinging";

const PARAGRAPHS = 6_000; // over UPSERT_QUEUE_CHUNKS (5,000), under MAX_CHUNKS_PER_UPSERT (20,000)
const text = Array.from(
  { length: PARAGRAPHS },
  (_, i) => `Paragraph ${i + 1} tells of harbour ${i % 97}, its boats, nets and weather on day ${i}.`,
).join("\n\n");
const ONE_PER_PARAGRAPH = { name: "characterTextSplitter", config: { chunkSize: 100, chunkOverlap: 0, separator: "\n\n" } };
const record = { name: "SQLiteRecordManager", config: { cleanup: "full" } };

describe("large upserts", () => {
  it("over UPSERT_QUEUE_CHUNKS: 202 at once; the queue consumer finishes it; /ping answers throughout", async () => {
    const store = await newStore();
    // plainText: a loader that holds its text whole, so its chunks are counted before anything is written.
    const body = {
      body: { ...LOCAL, splitter: ONE_PER_PARAGRAPH, recordManager: record, loader: { name: "plainText", config: { text } } },
    };
    const { result, pings } = await whilePinging(async () => {
      const res = await call("POST", `/document-store/upsert/${store.id}`, body);
      const answer = await res.json<any>();
      expect(res.status).toBe(202);
      // Pinging goes on while the consumer works, until the store is done.
      const done = await waitForStatus(store.id, (s) => s.status === "UPSERTED", 60_000);
      return { answer, done };
    });
    expect(result.answer).toMatchObject({ storeId: store.id, status: "UPSERTING" });
    expect(result.answer.message).toContain(`its ${PARAGRAPHS} chunks are more than one request processes (UPSERT_QUEUE_CHUNKS 5000)`);
    expect(loadersOf(result.done)[0]).toMatchObject({ id: result.answer.docId, status: "SYNC", totalChunks: PARAGRAPHS });
    expect(await snapshot(store.id)).toMatchObject({ chunks: PARAGRAPHS, vectors: PARAGRAPHS, records: PARAGRAPHS });
    expect(slowest(pings)).toBeLessThan(1000);
    const found = await json("POST", "/document-store/vectorstore/query", {
      body: { storeId: store.id, query: "harbour 42 boats nets day 4201", inputs: { topK: 1 } },
    });
    expect(found.docs[0].pageContent).toContain("day 4201.");
  }, 120_000);

  it("`async: false` runs it in the request (200 with the counts) and the request still yields", async () => {
    const store = await newStore();
    const body = await multipart(
      form([{ name: "harbour.txt", type: "text/plain", data: text }], {
        ...LOCAL,
        splitter: ONE_PER_PARAGRAPH,
        recordManager: record,
        async: "false",
      }),
    );
    const { result, pings } = await whilePinging(() => call("POST", `/document-store/upsert/${store.id}`, body));
    expect(result.status).toBe(200);
    expect(await result.json<any>()).toMatchObject({ numAdded: PARAGRAPHS, numSkipped: 0, storeId: store.id });
    expect(slowest(pings)).toBeLessThan(1000);
  }, 120_000);

  it("a text file over UPSERT_QUEUE_MB: 202 at once, the consumer reads it a window at a time; /ping answers throughout", async () => {
    const restore = setVars({ UPSERT_QUEUE_MB: "0.25" });
    try {
      const store = await newStore();
      const body = await multipart(
        form([{ name: "harbour.txt", type: "text/plain", data: text }], { ...LOCAL, splitter: ONE_PER_PARAGRAPH }),
      );
      const { result, pings } = await whilePinging(async () => {
        const res = await call("POST", `/document-store/upsert/${store.id}`, body);
        expect(res.status).toBe(202);
        return { answer: await res.json<any>(), done: await waitForStatus(store.id, (s) => s.status === "UPSERTED", 60_000) };
      });
      expect(result.answer.message).toContain("more than one request reads (UPSERT_QUEUE_MB 0.25)");
      expect(loadersOf(result.done)[0]).toMatchObject({ id: result.answer.docId, status: "SYNC", totalChunks: PARAGRAPHS });
      expect(await snapshot(store.id)).toMatchObject({ chunks: PARAGRAPHS, vectors: PARAGRAPHS });
      expect(slowest(pings)).toBeLessThan(1000);
    } finally {
      restore();
    }
  }, 120_000);

  it("under the threshold it answers 200 now, as before", async () => {
    const store = await newStore();
    const small = text.split("\n\n").slice(0, 50).join("\n\n");
    const res = await call("POST", `/document-store/upsert/${store.id}`, {
      raw: form([{ name: "small.txt", type: "text/plain", data: small }], { ...LOCAL, splitter: ONE_PER_PARAGRAPH }),
    });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).numAdded).toBe(50);
  });
});
