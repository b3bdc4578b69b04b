// Issue 9.2: an upsert whose worker dies is detected and recoverable. Work on a loader holds a
// lease (a heartbeat-renewed timestamp on its row): while it is live the store reads UPSERTING;
// once it has run out with the work unfinished the loader reads STALE with an error (and so does
// the store), and refresh or a new upsert take it over. The tests kill work the way it dies in
// practice — the request's client goes away mid-embedding (workerd cancels the request), or the
// queue message of an async upsert is lost — then move the worker's clock past the lease.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, json } from "../helpers";
import { LOCAL, loadersOf, newStore, upsert, waitForStatus } from "../routes/document-store-helpers";
import { until, wait } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const REAL_NOW = Date.now.bind(Date);
/** Moves the clock the worker reads (tests and worker share the isolate) `ms` ahead. */
const advanceClock = (ms: number) => vi.spyOn(Date, "now").mockImplementation(() => REAL_NOW() + ms);
const HOUR = 3_600_000;

const SPLIT_PARAGRAPHS = { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } };
const TEXT = "The harbour opens at dawn for the fishing boats.\n\nThe market by the pier sells the morning catch.";

/** openAIEmbeddings at an outside URL whose answers the test controls through a fetch spy. */
async function remoteEmbedding() {
  const cred = await json("POST", "/credentials", {
    body: { name: "oa", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } },
  });
  return { name: "openAIEmbeddings", config: { credential: cred.id, basepath: "https://embed.example.com/v1" } };
}
/** The embeddings endpoint answers (a tiny vector per text), or never does. */
function embeddingsEndpoint(mode: "answer" | "hang") {
  let calls = 0;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    calls++;
    if (mode === "hang") return new Promise<Response>(() => {});
    const body = await new Request(input as RequestInfo, init).json<{ input: string[] }>();
    return Response.json({ data: body.input.map((t, index) => ({ index, embedding: [t.length, 1, 0.5] })) });
  });
  return { calls: () => calls };
}

describe("a sync upsert whose worker dies while indexing", () => {
  it("reads UPSERTING while its lease lives, STALE with an error after; refresh and new upserts work on it", async () => {
    const store = await newStore();
    const embedding = await remoteEmbedding();
    const endpoint = embeddingsEndpoint("hang");
    const client = new AbortController();
    const dying = call("POST", `/document-store/upsert/${store.id}`, {
      signal: client.signal,
      body: {
        embedding,
        vectorStore: LOCAL.vectorStore,
        splitter: SPLIT_PARAGRAPHS,
        loader: { name: "plainText", config: { text: TEXT } },
      },
    }).catch(() => "cut off");
    await until("the embedding call", async () => (endpoint.calls() ? true : undefined));
    client.abort(); // the request is cancelled: its worker does nothing more, as if it had crashed
    expect(await dying).toBe("cut off");

    const during = await json("GET", `/document-store/store/${store.id}`);
    expect(during.status).toBe("UPSERTING");
    const [loader] = loadersOf(during);
    expect(loader.totalChunks).toBe(2);

    advanceClock(HOUR);
    const stale = await json("GET", `/document-store/store/${store.id}`);
    expect(stale.status).toBe("STALE");
    expect(loadersOf(stale)[0]).toMatchObject({
      id: loader.id,
      status: "STALE",
      error: expect.stringMatching(/stopped before it finished/),
    });
    expect((await json("GET", "/document-store/store")).find((s: any) => s.id === store.id).status).toBe("STALE");

    vi.mocked(globalThis.fetch).mockRestore();
    embeddingsEndpoint("answer");
    const [refreshed] = await json("POST", `/document-store/refresh/${store.id}`, { body: {} });
    expect(refreshed).toMatchObject({ docId: loader.id, numAdded: 2 });
    const after = await json("GET", `/document-store/store/${store.id}`);
    expect(after.status).toBe("UPSERTED");
    expect(loadersOf(after)[0]).toMatchObject({ id: loader.id, status: "SYNC", totalChunks: 2 });
    expect(loadersOf(after)[0].error).toBeUndefined();
    expect((await upsert(store.id, { loader: { name: "plainText", config: { text: "One more line about the harbour." } } })).numAdded).toBe(
      1,
    );
  }, 30_000);

  it("a new upsert works on a store with a dead loader, which stays STALE until refreshed", async () => {
    const store = await newStore();
    const embedding = await remoteEmbedding();
    const endpoint = embeddingsEndpoint("hang");
    const client = new AbortController();
    const dying = call("POST", `/document-store/upsert/${store.id}`, {
      signal: client.signal,
      body: { embedding, vectorStore: LOCAL.vectorStore, loader: { name: "plainText", config: { text: TEXT } } },
    }).catch(() => "cut off");
    await until("the embedding call", async () => (endpoint.calls() ? true : undefined));
    client.abort();
    await dying;
    advanceClock(HOUR);
    vi.mocked(globalThis.fetch).mockRestore();
    embeddingsEndpoint("answer");
    const added = await upsert(store.id, { loader: { name: "plainText", config: { text: "A second loader." } } });
    const s = await json("GET", `/document-store/store/${store.id}`);
    expect(loadersOf(s).map((l: any) => [l.id === added.docId, l.status])).toEqual([
      [false, "STALE"],
      [true, "SYNC"],
    ]);
    expect(s.status).toBe("STALE");
  }, 30_000);
});

describe("an async upsert whose queue message is lost", () => {
  it("reads UPSERTING (loader SYNCING) while the lease lives, STALE with an error after; refresh and async refresh work", async () => {
    const store = await newStore();
    const send = vi.spyOn(env.UPSERT_QUEUE as Queue, "send").mockResolvedValue(undefined as never); // the server stops before the consumer runs
    const res = await call("POST", `/document-store/upsert/${store.id}`, {
      body: { ...LOCAL, async: true, splitter: SPLIT_PARAGRAPHS, loader: { name: "plainText", config: { text: TEXT } } },
    });
    expect(res.status).toBe(202);
    const accepted = await res.json<any>();
    expect(send).toHaveBeenCalledTimes(1);
    await wait(200);
    const during = await json("GET", `/document-store/store/${store.id}`);
    expect(during.status).toBe("UPSERTING");
    expect(loadersOf(during)[0]).toMatchObject({ id: accepted.docId, status: "SYNCING" });

    // While the lease lives, nobody else processes the loader.
    expect((await call("POST", `/document-store/refresh/${store.id}`, { body: {} })).status).toBe(409);

    advanceClock(HOUR);
    const stale = await json("GET", `/document-store/store/${store.id}`);
    expect(stale.status).toBe("STALE");
    expect(loadersOf(stale)[0]).toMatchObject({ status: "STALE", error: expect.stringMatching(/stopped before it finished/) });

    send.mockRestore();
    const [refreshed] = await json("POST", `/document-store/refresh/${store.id}`, { body: {} });
    expect(refreshed).toMatchObject({ docId: accepted.docId, numAdded: 2 });
    expect(loadersOf(await json("GET", `/document-store/store/${store.id}`))[0]).toMatchObject({ status: "SYNC", totalChunks: 2 });

    expect((await call("POST", `/document-store/refresh/${store.id}`, { body: { async: true } })).status).toBe(202);
    const done = await waitForStatus(store.id, (s) => s.status === "UPSERTED" && loadersOf(s)[0].status === "SYNC");
    expect(loadersOf(done)[0]).toMatchObject({ id: accepted.docId, totalChunks: 2 });
    expect(loadersOf(done)[0].error).toBeUndefined();
  }, 30_000);
});

describe("the heartbeat", () => {
  it("keeps a slow worker's lease alive past its length; once it stops, the loader reads STALE", async () => {
    const { LoaderLease } = await import("../../src/services/document-store/lease");
    const { createDb } = await import("../../src/db");
    const store = await newStore();
    const up = await upsert(store.id, { ...LOCAL, loader: { name: "plainText", config: { text: TEXT } } });
    // A lease of 300 ms, renewed every 75 ms, as a worker holds it while indexing.
    const lease = new LoaderLease(createDb(env.DB), store.id, up.docId, 300);
    await lease.claim();
    lease.beat();
    try {
      for (let i = 0; i < 4; i++) {
        await wait(250);
        expect((await json("GET", `/document-store/store/${store.id}`)).status).toBe("UPSERTING");
      }
      // Another upsert may not take a live lease.
      expect((await call("POST", `/document-store/refresh/${store.id}`, { body: {} })).status).toBe(409);
    } finally {
      lease.stop(); // the worker dies: no more renewals
    }
    await wait(450);
    const stale = await json("GET", `/document-store/store/${store.id}`);
    expect(stale.status).toBe("STALE");
    expect(loadersOf(stale)[0]).toMatchObject({ status: "STALE", error: expect.stringMatching(/stopped before it finished/) });
    // Its late release finds the lease taken over by a refresh, and writes nothing.
    expect((await json("POST", `/document-store/refresh/${store.id}`, { body: {} }))[0]).toMatchObject({ docId: up.docId });
    expect(await lease.release("STALE")).toBe(false);
    expect((await json("GET", `/document-store/store/${store.id}`)).status).toBe("UPSERTED");
  }, 30_000);
});
