// Mistral's, Voyage's, Jina's and Together's embeddings APIs hold rules OpenAI's does not
// (test/standin/embeddings-dialects.mjs): what each refuses, in its own error shape, and what our nodes
// send them — batches under each one's token cap, fields each one takes — checked against those rules.
import { describe, expect, inject, it } from "vitest";
import { providerDeps } from "../../src/engine/core/ports";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import { credential, makeCtx, marker, runtimeWith } from "../engine/helpers";

type Body = Record<string, any>;
const url = () => inject("embeddingsDialectsUrl");
const received = async (m: string): Promise<Array<{ path: string; body: Body }>> => (await fetch(`${url()}/requests?contains=${m}`)).json();

const post = async (path: string, body: Body) => {
  const res = await fetch(`${url()}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer k", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
};

/** Tokens the stand-in counts at least: runs of letters and groups of up to 3 digits. */
const fewestTokens = (texts: string[]) => texts.reduce((n, t) => n + (t.match(/\p{L}+|\p{N}{1,3}/gu)?.length ?? 0), 0);

/** A node as a flow builds it, with a stored credential of its Flowise type. */
async function build(node: string, credentialName: string, secret: Body, config: Body, vars: Body = {}) {
  const id = await credential(credentialName, secret);
  const ctx = makeCtx("embeddings", { runtime: runtimeWith(vars) });
  return buildEmbeddings(node, { ...config, credential: id }, providerDeps(ctx));
}

/** The batches as sent, back in the texts' order (they go out a few at once). */
const inOrder = (batches: string[][], texts: string[]) => [...batches].sort((a, b) => texts.indexOf(a[0]) - texts.indexOf(b[0]));
/** The requests' inputs, put back in order, are the texts (batches may run concurrently and arrive in any order). */
const expectAllInOrder = (requests: Array<{ body: Body }>, texts: string[]) =>
  expect(
    inOrder(
      requests.map((r) => r.body.input),
      texts,
    ).flat(),
  ).toEqual(texts);

describe("the embeddings dialects stand-in", () => {
  it("refuses what each API refuses, in its own status and shape, and accepts what it takes", async () => {
    const voyage = (body: Body) => post("/voyage/v1/embeddings", { model: "voyage-3", input: ["a"], ...body });
    const refusedByVoyage: Array<[Body, RegExp]> = [
      [{ input: Array.from({ length: 1001 }, () => "a") }, /maximum length of the input list is 1000/],
      [{ input: ["a", ""] }, /empty/],
      [{ input_type: "passage" }, /input_type must be null, 'query' or 'document'/],
      [{ encoding_format: "float" }, /encoding_format must be null or 'base64'/],
      [{ output_dimension: 256 }, /voyage-3 does not support output_dimension/],
      [{ model: "voyage-3.5", output_dimension: 300 }, /must be one of 256, 512, 1024, 2048/],
      [
        { model: "voyage-3-large", input: ["7,".repeat(120_001)] },
        /max allowed tokens per submitted batch is 120000\. Your batch has 120001/,
      ],
    ];
    for (const [body, message] of refusedByVoyage) {
      const res = await voyage(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.detail).toMatch(message);
    }
    const accepted = await voyage({ model: "voyage-3.5", input_type: "query", encoding_format: "base64", output_dimension: 256 });
    expect(accepted.status).toBe(200);
    expect(Buffer.from(accepted.body.data[0].embedding, "base64").length).toBe(256 * 4);

    const jina = (body: Body) => post("/jina/v1/embeddings", { model: "jina-embeddings-v3", input: ["a"], ...body });
    const refusedByJina: Array<[Body, RegExp]> = [
      [{ encoding_format: "base64" }, /'body -> jina-embeddings-v3 -> encoding_format' Extra inputs are not permitted/],
      [{ input: Array.from({ length: 2049 }, () => "a") }, /input length is larger than the largest allowed size 2048/],
      [{ model: "jina-embeddings-v4", input: Array.from({ length: 513 }, () => "a") }, /Each input list can contain at most 512 items/],
      [{ task: "retrieval.document" }, /'body -> jina-embeddings-v3 -> task' Input should be 'retrieval.query'/],
      [{ embedding_type: "int8" }, /Input should be 'float', 'base64'/],
      [{ late_chunking: true, input: ["word ".repeat(5000), "word ".repeat(3193)] }, /late_chunking .* 8192 tokens, got 8193/],
    ];
    for (const [body, message] of refusedByJina) {
      const res = await jina(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.detail).toMatch(message);
    }
    const late = await jina({
      late_chunking: true,
      input: ["word ".repeat(4000), "word ".repeat(4000)],
      embedding_type: "base64",
      dimensions: 64,
    });
    expect(late.status).toBe(200);
    expect(Buffer.from(late.body.data[1].embedding, "base64").length).toBe(64 * 4);

    const mistral = (body: Body) => post("/v1/embeddings", { model: "mistral-embed", input: ["a"], ...body });
    const tooMany = await mistral({ input: ["word ".repeat(10_000), "word ".repeat(6385)] });
    expect(tooMany).toEqual({
      status: 400,
      body: {
        object: "error",
        message: "Too many tokens overall, split into more batches.",
        type: "invalid_request_prompt",
        param: null,
        code: "3210",
      },
    });
    const badFormat = await mistral({ encoding_format: "hex" });
    expect(badFormat.status).toBe(422);
    expect(badFormat.body.message.detail[0]).toMatchObject({
      loc: ["body", "encoding_format"],
      msg: "Input should be 'float' or 'base64'",
    });
    expect((await mistral({ input: ["word ".repeat(16_384)], encoding_format: "float" })).status).toBe(200);

    // Together documents numbers only: asked for base64, it still answers numbers.
    const together = await post("/together/v1/embeddings", { model: "BAAI/bge-base-en-v1.5", input: ["a"], encoding_format: "base64" });
    expect(together.status).toBe(200);
    expect(Array.isArray(together.body.data[0].embedding)).toBe(true);
    expect((await post("/together/v1/embeddings", { input: ["a"] })).status).toBe(400);
  });
});

describe("embeddings requests each service accepts", () => {
  it("voyageAIEmbeddings: an upsert of dense chunks (a CSV) is batched under the model's 120K tokens per request", async () => {
    const m = marker();
    const voyage = await build(
      "voyageAIEmbeddings",
      "voyageAIApi",
      { apiKey: `k-${m}`, endpoint: `${url()}/voyage/v1` },
      {
        modelName: "voyage-3-large",
      },
    );
    // 128 chunks (the node's batch) of 1,000 numbers: 128,000 tokens at least, in 256 KB (under OpenAI's byte budget).
    const texts = Array.from({ length: 128 }, (_, i) => `${m} row${i} ${"7,".repeat(1000)}`);
    const vectors = await voyage.embedDocuments(texts);
    expect(vectors).toHaveLength(texts.length);
    const requests = await received(m);
    expect(requests.length).toBeGreaterThan(1);
    for (const r of requests) {
      expect(r.body).toMatchObject({ model: "voyage-3-large", input_type: "document", encoding_format: "base64" });
      expect(fewestTokens(r.body.input)).toBeLessThanOrEqual(120_000);
    }
    expectAllInOrder(requests, texts);
    // Each vector is its own text's (base64 float32s decoded in order): a query for row 5 finds row 5.
    const query = await voyage.embedQuery(`${m} row5`);
    const scores = vectors.map((v) => v.reduce((s, x, i) => s + x * query[i], 0));
    expect(scores.indexOf(Math.max(...scores))).toBe(5);
  });

  it("mistralAIEmbeddings: long chunks are batched under Mistral's 16,384 tokens per request, in order", async () => {
    const m = marker();
    const mistral = await build("mistralAIEmbeddings", "mistralAIApi", { mistralAIAPIKey: `k-${m}` }, { overrideEndpoint: url() });
    // 20 chunks of 1,000 words (the node's batch is 512): 20,000 tokens at least, one request before.
    const texts = Array.from({ length: 20 }, (_, i) => `${m} chunk${i} ${"lorem ".repeat(1000)}`);
    expect(await mistral.embedDocuments(texts)).toHaveLength(20);
    const requests = await received(m);
    expect(requests.length).toBeGreaterThan(1);
    for (const r of requests) {
      expect(r.path).toBe("/v1/embeddings");
      expect(fewestTokens(r.body.input)).toBeLessThanOrEqual(16_384);
    }
    expectAllInOrder(requests, texts);
  });

  it("jinaEmbeddings with late chunking: each batch is one text of 8,192 tokens at most; without it, the usual batches", async () => {
    const m = marker();
    const secret = { jinaAIAPIKey: `k-${m}` };
    const vars = { JINA_EMBEDDINGS_BASE_URL: `${url()}/jina/v1` };
    const late = await build("jinaEmbeddings", "jinaAIApi", secret, { allowLateChunking: true, modelDimensions: 32 }, vars);
    // 6 sections of 1,500 words: 9,000 tokens together, over the 8,192 late chunking reads at once.
    const texts = Array.from({ length: 6 }, (_, i) => `${m} section${i} ${"übersicht ".repeat(1500)}`);
    const vectors = await late.embedDocuments(texts);
    expect(vectors.map((v) => v.length)).toEqual([32, 32, 32, 32, 32, 32]);
    const requests = await received(m);
    expect(requests.length).toBeGreaterThan(1);
    for (const r of requests) {
      expect(r.body).toMatchObject({ late_chunking: true, task: "retrieval.passage", embedding_type: "base64" });
      expect(fewestTokens(r.body.input)).toBeLessThanOrEqual(8192);
    }
    expectAllInOrder(requests, texts);

    const n = marker();
    const plain = await build("jinaEmbeddings", "jinaAIApi", secret, { modelDimensions: 32 }, vars);
    await plain.embedDocuments(texts.map((t) => t.replace(m, n)));
    expect((await received(n)).map((r) => r.body.input.length)).toEqual([6]);
  });
});
