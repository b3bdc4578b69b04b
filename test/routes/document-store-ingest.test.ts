// Ingestion of many chunks through an OpenAI-compatible embeddings endpoint: the chunks are
// embedded in slices a few at a time while earlier vectors are written; every chunk must still
// end up with its own vector and its chunk number, and a provider's bad answer must fail the
// upsert rather than put vectors on the wrong chunks.
import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { json } from "../helpers";
import { newStore, upsert } from "./document-store-helpers";
import { EMBED_WINDOW, EMBED_SLICE, EmbedStream } from "../../src/services/document-store/embed-stream";
import { ApiError } from "../../src/errors";

afterEach(() => {
  vi.restoreAllMocks();
});

const ONE_PER_PARAGRAPH = { name: "characterTextSplitter", config: { chunkSize: 1, chunkOverlap: 0, separator: "\n\n" } };
const query = (storeId: string, q: string) =>
  json("POST", "/document-store/vectorstore/query", { body: { storeId, query: q, inputs: { topK: 1 } } });
const paragraph = (i: number) => `paragraph number ${i} of the long file`;

/** Two ones per paragraph number (i mod 64, 64 + i / 64): another number shares at most one. */
function vectorOf(text: string): number[] {
  const i = Number(/number (\d+)/.exec(text)?.[1] ?? 0);
  const v = new Array<number>(96).fill(0);
  v[i % 64] = 1;
  v[64 + Math.floor(i / 64)] = 1;
  return v;
}
const base64Of = (v: number[]) => btoa(String.fromCharCode(...new Uint8Array(new Float32Array(v).buffer)));

async function openAICredential() {
  return json("POST", "/credentials", { body: { name: "oa", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } });
}

describe("ingestion in slices", () => {
  it("1,300 chunks: each keeps its own vector and chunk number; requests are slices, a bounded number in flight", async () => {
    const cred = await openAICredential();
    const sizes: number[] = [];
    let inFlight = 0;
    let most = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const body = await new Request(input as RequestInfo, init).json<any>();
      sizes.push(body.input.length);
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5 + (sizes.length % 3) * 10)); // answers out of order
      inFlight--;
      return Response.json({ data: body.input.map((t: string, index: number) => ({ index, embedding: base64Of(vectorOf(t)) })) });
    });
    const count = 1300;
    const store = await newStore();
    const embedding = { name: "openAIEmbeddings", config: { credential: cred.id, basepath: "https://llm.example.com/v1", modelName: "m" } };
    const text = Array.from({ length: count }, (_, i) => paragraph(i)).join("\n\n");
    const up = await upsert(store.id, {
      embedding,
      vectorStore: { name: "localVectorStore" },
      loader: { name: "plainText", config: { text } },
      splitter: ONE_PER_PARAGRAPH,
    });
    expect(up.numAdded).toBe(count);

    // Every text was embedded once, in requests of at most one slice, never more than the window at once.
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(count);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(EMBED_SLICE);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(EMBED_WINDOW);

    // Each stored vector row carries the chunk number of its text (written with the vector), and
    // the text is written once: the row points at its chunk instead of holding a copy.
    const rows = (
      await env.DB.prepare(
        "SELECT v.pageContent AS own, c.pageContent, v.chunkNo, c.chunkNo AS chunkNoOfChunk FROM vector_document v " +
          "LEFT JOIN document_store_file_chunk c ON c.id = v.chunkId WHERE v.provider = 'local' AND v.namespace = ?",
      )
        .bind(store.id)
        .all<{ own: string; pageContent: string | null; chunkNo: number; chunkNoOfChunk: number | null }>()
    ).results;
    expect(rows).toHaveLength(count);
    expect(rows.every((r) => r.pageContent === paragraph(r.chunkNo - 1) && r.chunkNoOfChunk === r.chunkNo)).toBe(true);
    expect(rows.every((r) => r.own === "")).toBe(true);
    const vectors = await env.DB.prepare("SELECT COUNT(*) AS n FROM local_embedding WHERE namespace = ?")
      .bind(store.id)
      .first<{ n: number }>();
    expect(vectors!.n).toBe(count);

    // Slice edges and the ends: the query for a paragraph finds that paragraph, as its chunk.
    for (const i of [0, EMBED_SLICE - 1, EMBED_SLICE, 999, 1000, count - 1]) {
      const found = await query(store.id, paragraph(i));
      expect(found.docs[0]).toMatchObject({ pageContent: paragraph(i), chunkNo: i + 1 });
    }
  }, 60_000);

  it("an endpoint that answers base64 that is not base64 fails the upsert with 502", async () => {
    const cred = await openAICredential();
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const body = await new Request(input as RequestInfo, init).json<any>();
      return Response.json({ data: body.input.map((_: string, index: number) => ({ index, embedding: "not*base64!" })) });
    });
    const store = await newStore();
    const embedding = { name: "openAIEmbeddings", config: { credential: cred.id, basepath: "https://llm.example.com/v1", modelName: "m" } };
    const err = await json(
      "POST",
      `/document-store/upsert/${store.id}`,
      { body: { embedding, vectorStore: { name: "localVectorStore" }, loader: { name: "plainText", config: { text: "one\n\ntwo" } } } },
      502,
    );
    expect(err.message).toContain("without one embedding per input");
  });
});

describe("EmbedStream", () => {
  const fake = (answer: (texts: string[]) => number[][]) => ({
    embedDocuments: async (texts: string[]) => answer(texts),
    embedQuery: async () => [0],
  });

  it("gives the vectors in order, in writes of at least min and at most max", async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `t${i}`);
    const stream = new EmbedStream(
      fake((ts) => ts.map((t) => [Number(t.slice(1))])),
      texts,
      4,
      2,
    );
    const writes: number[][][] = [];
    for (let v; (v = await stream.next(10, 20)); ) writes.push(v);
    expect(writes.flat().map((v) => v[0])).toEqual(texts.map((_, i) => i));
    expect(writes.slice(0, -1).every((w) => w.length >= 10 && w.length <= 20)).toBe(true);
  });

  it("a provider that answers fewer vectors than texts is a 502, not vectors shifted onto the wrong chunks", async () => {
    const stream = new EmbedStream(
      fake((ts) => ts.slice(1).map(() => [1])),
      ["a", "b", "c"],
      4,
      1,
    );
    const err = await stream.next(1, 10).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(502);
  });
});
