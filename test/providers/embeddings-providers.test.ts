// Flowise 3.1.4's hosted embeddings nodes (src/providers/embeddings/hosted.ts), each over its own
// wire protocol against the stand-ins (test/standin: Mistral's, Voyage's, Jina's and Together's rules in
// embeddings-dialects.mjs, cohere.mjs, gemini-embeddings.mjs): built through the registry with a stored credential of the
// node's Flowise type, then documents and a query embedded; what the stand-in received is checked
// (path, key, model, per-provider fields, batches), and a document store upsert runs end to end.
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { embeddingsNodes } from "../../src/engine/chatflow/nodes/embeddings";
import { providerDeps } from "../../src/engine/core/ports";
import { buildEmbeddings, supportedEmbeddings } from "../../src/providers/embeddings/registry";
import { inject } from "vitest";
import { credential, makeCtx, marker, runtimeWith, standinUrl } from "../engine/helpers";
import { json } from "../helpers";
import { newStore, upsert } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";

type Body = Record<string, any>;
interface Received {
  path: string;
  headers: Record<string, string | null>;
  body: Body;
}

const dialectsUrl = () => inject("embeddingsDialectsUrl");
const received = async (m: string, base = standinUrl()): Promise<Received[]> => (await fetch(`${base}/requests?contains=${m}`)).json();

interface Case {
  node: string;
  credentialName: string;
  /** The credential's values, given its key. */
  secret: (key: string) => Record<string, unknown>;
  config: Record<string, unknown>;
  vars?: () => Partial<Env>;
  /** The stand-in it talks to (default the OpenAI-shaped one). */
  standin?: () => string;
  path: string;
  /** The key as the request carried it. */
  auth: (r: Received) => string | null | undefined;
  /** The texts a request carried. */
  texts: (body: Body) => string[];
  dims: number;
  /** Texts per request at most (the provider's limit, or the node's batch size). */
  batch: number;
  /** What a documents request and a query request carry besides the texts. */
  document: (body: Body) => void;
  query: (body: Body) => void;
}

const bearer = (r: Received) => r.headers.authorization?.replace(/^Bearer /, "");
const openAIInputs = (body: Body) => body.input as string[];

const cases: Case[] = [
  {
    node: "mistralAIEmbeddings",
    credentialName: "mistralAIApi",
    secret: (key) => ({ mistralAIAPIKey: key }),
    // A bare host, as the override is usually written: /v1 is added, as for chatMistralAI.
    config: { overrideEndpoint: dialectsUrl(), modelName: "mistral-embed", batchSize: 3 }, // new lines stripped by default
    standin: dialectsUrl,
    path: "/v1/embeddings",
    auth: bearer,
    texts: openAIInputs,
    dims: 4096,
    batch: 3,
    document: (body) => {
      expect(body).toMatchObject({ model: "mistral-embed" });
      expect(body).not.toHaveProperty("encoding_format"); // numbers, as Mistral's own client asks
    },
    query: (body) => expect(body.model).toBe("mistral-embed"),
  },
  {
    node: "togetherAIEmbedding",
    credentialName: "togetherAIApi",
    secret: (key) => ({ togetherAIApiKey: key }),
    config: { modelName: "BAAI/bge-base-en-v1.5" },
    vars: () => ({ TOGETHER_BASE_URL: `${dialectsUrl()}/together/v1` }),
    standin: dialectsUrl,
    path: "/together/v1/embeddings",
    auth: bearer,
    texts: openAIInputs,
    dims: 4096,
    batch: 64,
    // Together's API takes model and input, and answers numbers: no encoding_format.
    document: (body) => expect(Object.keys(body).sort()).toEqual(["input", "model"]),
    query: (body) => expect(body).toEqual({ model: "BAAI/bge-base-en-v1.5", input: [expect.any(String)] }),
  },
  {
    node: "jinaEmbeddings",
    credentialName: "jinaAIApi",
    secret: (key) => ({ jinaAIAPIKey: key }),
    config: { modelName: "jina-embeddings-v3", modelDimensions: 256 },
    vars: () => ({ JINA_EMBEDDINGS_BASE_URL: `${dialectsUrl()}/jina/v1` }),
    standin: dialectsUrl,
    path: "/jina/v1/embeddings",
    auth: bearer,
    texts: openAIInputs,
    dims: 256,
    batch: 24,
    // Base64 asked as Jina names it (it refuses OpenAI's encoding_format).
    document: (body) => {
      expect(body).toMatchObject({ model: "jina-embeddings-v3", dimensions: 256, task: "retrieval.passage", normalized: true });
      expect(body.embedding_type).toBe("base64");
      expect(body).not.toHaveProperty("encoding_format");
    },
    query: (body) => expect(body).toMatchObject({ model: "jina-embeddings-v3", dimensions: 256, task: "retrieval.query" }),
  },
  {
    node: "voyageAIEmbeddings",
    credentialName: "voyageAIApi",
    // The credential's endpoint: Voyage's whole URL, as Flowise's credential defaults it.
    secret: (key) => ({ apiKey: key, endpoint: `${dialectsUrl()}/voyage/v1/embeddings` }),
    config: { modelName: "voyage-3" },
    standin: dialectsUrl,
    path: "/voyage/v1/embeddings",
    auth: bearer,
    texts: openAIInputs,
    dims: 4096,
    batch: 128,
    // Base64 (NumPy float32s, as Voyage's own client decodes them); each kind its retrieval input_type.
    document: (body) => expect(body).toMatchObject({ model: "voyage-3", encoding_format: "base64", input_type: "document" }),
    query: (body) => expect(body).toMatchObject({ model: "voyage-3", input_type: "query" }),
  },
  {
    node: "cohereEmbeddings",
    credentialName: "cohereApi",
    secret: (key) => ({ cohereApiKey: key }),
    config: { modelName: "embed-english-v3.0", inputType: "search_query" },
    vars: () => ({ COHERE_EMBEDDINGS_BASE_URL: standinUrl() }),
    path: "/v1/embed",
    auth: bearer,
    texts: (body) => body.texts,
    dims: 1024,
    batch: 96,
    // Retrieval is asymmetric: stored texts as documents, the question as a query (whatever the node's Type).
    document: (body) =>
      expect(body).toMatchObject({
        model: "embed-english-v3.0",
        input_type: "search_document",
        embedding_types: ["float"],
        truncate: "END",
      }),
    query: (body) => expect(body).toMatchObject({ model: "embed-english-v3.0", input_type: "search_query" }),
  },
  {
    node: "googleGenerativeAiEmbeddings",
    credentialName: "googleGenerativeAI",
    secret: (key) => ({ googleGenerativeAPIKey: key }),
    config: { modelName: "gemini-embedding-001", tasktype: "RETRIEVAL_QUERY" },
    vars: () => ({ GOOGLE_GENERATIVE_AI_BASE_URL: standinUrl() }),
    path: "/v1beta/models/gemini-embedding-001:batchEmbedContents",
    auth: (r) => r.headers["x-goog-api-key"],
    texts: (body) => body.requests.map((q: Body) => q.content.parts[0].text),
    dims: 768,
    batch: 100,
    document: (body) =>
      expect(body.requests.every((q: Body) => q.model === "models/gemini-embedding-001" && q.taskType === "RETRIEVAL_DOCUMENT")).toBe(true),
    query: (body) => expect(body.requests).toMatchObject([{ model: "models/gemini-embedding-001", taskType: "RETRIEVAL_QUERY" }]),
  },
];

/** The node built as a flow would build it: the stored credential by id, the deployment's vars. */
async function build(c: Case, key: string, config: Record<string, unknown> = {}) {
  const id = await credential(c.credentialName, c.secret(key));
  const ctx = makeCtx("embeddings", { runtime: runtimeWith(c.vars?.() ?? {}) });
  return buildEmbeddings(c.node, { ...c.config, ...config, credential: id }, providerDeps(ctx));
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe("hosted embeddings nodes, each over its provider's API", () => {
  it("are in the registry, so in the document store wizard's list and the chatflow engine", async () => {
    expect(supportedEmbeddings()).toEqual(expect.arrayContaining(cases.map((c) => c.node)));
    const wizard = (await json("GET", "/document-store/components/embeddings")) as Array<{ name: string; credential?: unknown }>;
    expect(wizard.map((n) => n.name)).toEqual(expect.arrayContaining(cases.map((c) => c.node)));
    expect(embeddingsNodes.map((n) => n.name)).toEqual(expect.arrayContaining(cases.map((c) => c.node)));
  });

  for (const c of cases) {
    it(`${c.node}: documents in batches of ${c.batch} and a query, in order, with the credential's key`, async () => {
      const m = marker();
      const key = `key-${c.node}-${m}`;
      const embeddings = await build(c, key);
      // One text past the limit: two requests; each text its own words, so each its own vector.
      const texts = Array.from({ length: c.batch + 1 }, (_, i) => `${m} topic${i} item${i}\nline two`);
      const vectors = await embeddings.embedDocuments(texts);
      expect(vectors).toHaveLength(texts.length);
      expect(vectors.every((v) => v.length === c.dims)).toBe(true);
      const query = await embeddings.embedQuery(texts[c.batch]);
      expect(query).toHaveLength(c.dims);
      // In order: the query matches its own document best.
      const best = vectors.map((v) => dot(v, query)).reduce((b, s, i, all) => (s > all[b] ? i : b), 0);
      expect(best).toBe(c.batch);

      const requests = await received(m, c.standin?.());
      expect(requests.map((r) => r.path)).toEqual([c.path, c.path, c.path]);
      for (const r of requests) expect(c.auth(r)).toBe(key);
      // The two batches go out together (either may arrive first); the query after them.
      const [first, second] = requests
        .slice(0, 2)
        .map((r) => r.body)
        .sort((a, b) => c.texts(b).length - c.texts(a).length);
      const asked = requests[2].body;
      expect(c.texts(first)).toHaveLength(c.batch);
      expect([...c.texts(first), ...c.texts(second)].map((t) => t.replace("\n", " "))).toEqual(texts.map((t) => t.replace("\n", " ")));
      c.document(first);
      c.document(second);
      expect(c.texts(asked)).toHaveLength(1);
      c.query(asked);
    });
  }

  it("new lines: stripped where the node or its client strips them (Mistral, Jina), kept by the others", async () => {
    const stripped: Record<string, boolean> = {};
    for (const c of cases) {
      const m = marker();
      await (await build(c, `key-${m}`)).embedDocuments([`${m} first\nsecond`]);
      stripped[c.node] = !c.texts((await received(m, c.standin?.()))[0].body)[0].includes("\n");
    }
    expect(stripped).toEqual({
      mistralAIEmbeddings: true,
      togetherAIEmbedding: false,
      jinaEmbeddings: true,
      voyageAIEmbeddings: false,
      cohereEmbeddings: false,
      googleGenerativeAiEmbeddings: false,
    });
  });

  it("an empty document or question goes as one space to every provider (a text-less retriever hit, an empty question)", async () => {
    for (const c of cases) {
      const m = marker();
      const embeddings = await build(c, `key-${m}`);
      const vectors = await embeddings.embedDocuments([`${m} first`, ""]);
      expect(
        vectors.map((v) => v.length),
        c.node,
      ).toEqual([c.dims, c.dims]);
      expect(c.texts((await received(m, c.standin?.()))[0].body), c.node).toEqual([`${m} first`, " "]);
    }
  });

  it("Cohere's classification/clustering Type and Gemini's other task types are sent for documents and queries alike", async () => {
    const cohere = cases.find((c) => c.node === "cohereEmbeddings")!;
    const gemini = cases.find((c) => c.node === "googleGenerativeAiEmbeddings")!;
    const m = marker();
    const co = await build(cohere, `key-${m}`, { inputType: "clustering" });
    await co.embedDocuments([`${m} a`]);
    await co.embedQuery(`${m} b`);
    const ge = await build(gemini, `key-${m}`, { tasktype: "CLUSTERING" });
    await ge.embedDocuments([`${m} c`]);
    const unspecified = await build(gemini, `key-${m}`, { tasktype: "TASK_TYPE_UNSPECIFIED" });
    await unspecified.embedQuery(`${m} d`);
    const bodies = (await received(m)).map((r) => r.body);
    expect(bodies.slice(0, 2).map((b) => b.input_type)).toEqual(["clustering", "clustering"]);
    expect(bodies[2].requests[0].taskType).toBe("CLUSTERING");
    expect(bodies[3].requests[0]).not.toHaveProperty("taskType");
  });

  it("Jina's late chunking is asked for documents when the node allows it", async () => {
    const jina = cases.find((c) => c.node === "jinaEmbeddings")!;
    const m = marker();
    const e = await build(jina, `key-${m}`, { allowLateChunking: true });
    await e.embedDocuments([`${m} a`]);
    await e.embedQuery(`${m} b`);
    const [doc, query] = (await received(m, jina.standin?.())).map((r) => r.body);
    expect(doc.late_chunking).toBe(true);
    expect(query).not.toHaveProperty("late_chunking");
  });
});

describe("hosted embeddings failures", () => {
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: { status: number; message: string }) => e,
    );

  it("a 5xx is tried once more, then a 502 with the provider's message", async () => {
    for (const node of ["cohereEmbeddings", "googleGenerativeAiEmbeddings", "jinaEmbeddings"]) {
      const c = cases.find((x) => x.node === node)!;
      const m = marker();
      const err = await failureOf((await build(c, `key-${m}`)).embedDocuments([`${m} [fail-embed]`]));
      expect(err?.status, node).toBe(502);
      expect(err?.message, node).toMatch(/ embeddings answered 500: stand-in .*failure/);
      expect(await received(m, c.standin?.()), node).toHaveLength(2);
    }
  });

  it("a provider echoing the key (401/400) is a 502 whose message does not carry it", async () => {
    for (const node of ["mistralAIEmbeddings", "cohereEmbeddings", "googleGenerativeAiEmbeddings"]) {
      const c = cases.find((x) => x.node === node)!;
      const m = marker();
      const key = `secret-${node}-${m}`;
      const err = await failureOf((await build(c, key)).embedQuery(`${m} [echo-auth]`));
      expect(err?.status, node).toBe(502);
      expect(err?.message, node).toMatch(/ embeddings answered (401|400): /);
      expect(err?.message, node).not.toContain(key);
      expect(err?.message, node).toContain("[redacted]");
    }
  });
});

describe("a document store with cohereEmbeddings", () => {
  it("upserts over Cohere's API (COHERE_EMBEDDINGS_BASE_URL); a query answers the right chunk", async () => {
    const restore = setVars({ COHERE_EMBEDDINGS_BASE_URL: standinUrl() });
    try {
      const m = marker();
      const id = await credential("cohereApi", { cohereApiKey: `co-${m}` });
      const store = await newStore(`cohere ${m}`);
      const embedding = { name: "cohereEmbeddings", config: { credential: id, modelName: "embed-english-v3.0" } };
      const paragraphs = [
        `Glaciers carve valleys over centuries ${m}.`,
        `Lighthouses guide ships along rocky coasts ${m}.`,
        `Volcanoes erupt molten rock and ash ${m}.`,
      ];
      const up = await upsert(store.id, {
        embedding,
        vectorStore: { name: "localVectorStore" },
        loader: { name: "plainText", config: { text: paragraphs.join("\n\n") } },
        splitter: { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } },
      });
      expect(up.numAdded).toBe(3);
      const found = await json("POST", "/document-store/vectorstore/query", {
        body: { storeId: store.id, query: `which ships need lighthouses ${m}`, inputs: { topK: 1 } },
      });
      expect(found.docs.map((d: { pageContent: string }) => d.pageContent)).toEqual([paragraphs[1]]);
      const requests = await received(m);
      expect(requests.map((r) => [r.path, r.headers.authorization, r.body.input_type])).toEqual([
        ["/v1/embed", `Bearer co-${m}`, "search_document"],
        ["/v1/embed", `Bearer co-${m}`, "search_query"],
      ]);
    } finally {
      restore();
    }
  });
});

// The stand-ins refuse what each embeddings API refuses, with its own 400 (server.mjs validateEmbeddings,
// cohere.mjs, gemini-embeddings.mjs); then what our flows hand them, checked to reach them as requests they accept.
describe("embeddings requests the APIs accept", () => {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${standinUrl()}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Body };
  };

  it("the stand-ins answer each API's 400 for what it refuses, and accept what it takes", async () => {
    const openai = (body: Body) => post("/v1/embeddings", { model: "text-embedding-3-small", ...body });
    const refusedByOpenAI: Array<[Body, RegExp]> = [
      [{ input: "" }, /'\$\.input' is invalid.*empty string/],
      [{ input: ["a", ""] }, /'\$\.input' is invalid.*empty string/],
      [{ input: [] }, /too short - 'input'/],
      [{ input: Array.from({ length: 2049 }, () => "a") }, /maximum length 2048/],
      [{ input: "a", model: undefined }, /you must provide a model parameter/],
      [{ input: "a", encoding_format: "hex" }, /Supported values are: 'float' and 'base64'/],
      [{ input: "a", dimensions: 0 }, /Expected a value >= 1/],
      [{ input: "a", model: "text-embedding-ada-002", dimensions: 256 }, /does not support specifying dimensions/],
      [{ input: Array.from({ length: 512 }, () => "word ".repeat(600)) }, /Requested 307200 tokens, max 300000 tokens per request/],
    ];
    for (const [body, message] of refusedByOpenAI) {
      const res = await openai(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.message).toMatch(message);
      expect(res.body.error.type).toMatch(/^(invalid_request_error|max_tokens_per_request)$/);
    }
    expect((await openai({ input: ["a", " "], dimensions: 8, encoding_format: "float" })).status).toBe(200);
    // Azure names the deployment in the path: no model in the body is fine there.
    expect((await post("/openai/deployments/emb/embeddings?api-version=2024-02-01", { input: "a" })).status).toBe(200);

    const cohere = (body: Body) => post("/v1/embed", { model: "embed-english-v3.0", texts: ["a"], input_type: "search_query", ...body });
    const refusedByCohere: Array<[Body, RegExp]> = [
      [{ texts: Array.from({ length: 97 }, () => "a") }, /texts must hold 1 to 96 items/],
      [{ texts: [] }, /texts must hold 1 to 96 items/],
      [{ input_type: undefined }, /input_type must be provided/],
      [{ model: "embed-v4.0", input_type: undefined }, /input_type must be provided/],
      [{ input_type: "query" }, /input_type must be one of/],
      [{ embedding_types: ["floats"] }, /embedding_types must be a list of/],
      [{ truncate: "MIDDLE" }, /truncate must be one of/],
    ];
    for (const [body, message] of refusedByCohere) {
      const res = await cohere(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await cohere({ model: "embed-english-v2.0", input_type: undefined })).status).toBe(200);
    expect((await cohere({ embedding_types: ["float", "int8"], truncate: "NONE" })).status).toBe(200);

    const request = (text: string) => ({ model: "models/gemini-embedding-001", content: { parts: [{ text }] } });
    const gemini = (requests: Body[]) =>
      post("/v1beta/models/gemini-embedding-001:batchEmbedContents", { requests }, { "x-goog-api-key": "k" });
    const refusedByGemini: Array<[Body[], RegExp]> = [
      [Array.from({ length: 101 }, () => request("a")), /at most 100 requests can be in one batch/],
      [[{ ...request("a"), model: "gemini-embedding-001" }], /must match the batch's models\/gemini-embedding-001/],
      [[{ ...request("a"), model: "models/text-embedding-004" }], /must match/],
      [[{ model: "models/gemini-embedding-001" }], /content is required/],
      [[{ ...request("a"), taskType: "RETRIEVAL" }], /Invalid value at 'requests\[0\]\.task_type'/],
      [[{ ...request("a"), outputDimensionality: "256" }], /Invalid value at 'requests\[0\]\.output_dimensionality'/],
    ];
    for (const [requests, message] of refusedByGemini) {
      const res = await gemini(requests);
      expect(res.status, JSON.stringify(requests).slice(0, 80)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
      expect(res.body.error.message).toMatch(message);
    }
    const accepted = await gemini([{ ...request("a"), taskType: "CODE_RETRIEVAL_QUERY", outputDimensionality: 16 }]);
    expect(accepted.status).toBe(200);
    expect(accepted.body.embeddings[0].values).toHaveLength(16);
  });

  /** openAIEmbeddings as a flow builds it, at the stand-in; its model name carries `m` (so every request does). */
  const openAIEmbeddings = async (m: string, config: Record<string, unknown> = {}) => {
    const id = await credential("openAIApi", { openAIApiKey: `key-${m}` });
    const ctx = makeCtx("embeddings", { runtime: runtimeWith({}) });
    const inputs = { basepath: `${standinUrl()}/v1`, modelName: `text-embedding-3-small-${m}`, credential: id, ...config };
    return buildEmbeddings("openAIEmbeddings", inputs, providerDeps(ctx));
  };

  it("openAIEmbeddings: an empty document or question goes as one space (OpenAI refuses an empty input)", async () => {
    // A retriever's hit with no text (an embeddings filter re-embeds hits), an empty question to a retriever.
    for (const stripNewLines of [true, false]) {
      const m = marker();
      const embeddings = await openAIEmbeddings(m, { stripNewLines });
      const vectors = await embeddings.embedDocuments([`${m} first`, "", `${m} third`]);
      expect(vectors.map((v) => v.length)).toEqual([4096, 4096, 4096]);
      expect(await embeddings.embedQuery("")).toHaveLength(4096);
      expect((await received(m)).map((r) => r.body.input)).toEqual([[`${m} first`, " ", `${m} third`], [" "]]);
    }
  });

  it("openAIEmbeddings: long chunks are batched under OpenAI's 300,000 tokens per request, in order", async () => {
    const m = marker();
    const embeddings = await openAIEmbeddings(m, { dimensions: 8 });
    // 512 chunks (the default batch size) of 600 words: one request would be 307,200 tokens at least.
    const texts = Array.from({ length: 512 }, (_, i) => `${m} chunk${i} ${"word ".repeat(600)}`);
    const vectors = await embeddings.embedDocuments(texts);
    expect(vectors).toHaveLength(texts.length);
    expect(vectors.every((v) => v.length === 8)).toBe(true);
    const batches = (await received(m)).map((r) => r.body.input as string[]);
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) expect(new TextEncoder().encode(batch.join("")).length).toBeLessThanOrEqual(300_000);
    // The batches go out together: in the texts' order once sorted by their first text.
    batches.sort((a, b) => texts.indexOf(a[0]) - texts.indexOf(b[0]));
    expect(batches.flat()).toEqual(texts);
  });

  it("googleGenerativeAiEmbeddings: a model named with or without models/ is the URL's model in every request", async () => {
    const gemini = cases.find((c) => c.node === "googleGenerativeAiEmbeddings")!;
    const m = marker();
    for (const modelName of ["text-embedding-004", "models/text-embedding-004"]) {
      const embeddings = await build(gemini, `key-${m}`, { modelName });
      await embeddings.embedDocuments([`${m} a`, `${m} b`]);
      await embeddings.embedQuery(`${m} c`);
    }
    const requests = await received(m);
    expect(requests).toHaveLength(4);
    for (const r of requests) {
      expect(r.path).toBe("/v1beta/models/text-embedding-004:batchEmbedContents");
      expect(r.body.requests.every((q: Body) => q.model === "models/text-embedding-004")).toBe(true);
    }
  });
});
